/**
 * PostgreSQL twin of src/db/schema/members.ts (owned by modules/members).
 */
import { sql } from "drizzle-orm";
import { pgTable, text, index, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";
import { MEMBER_LINK_PURPOSES, MEMBER_ROLES } from "../enums";
import { accounts } from "./accounts";
import { int64 } from "./columns";

export const members = pgTable(
  "members",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: MEMBER_ROLES }).notNull(),
    passwordHash: text("password_hash"),
    createdAtTs: int64("created_at_ts").notNull(),
    removedAtTs: int64("removed_at_ts"),
  },
  (t) => [uniqueIndex("members_email_uq").on(t.email).where(sql`removed_at_ts IS NULL`), index("members_account_idx").on(t.accountId)],
);

export const memberLinks = pgTable(
  "member_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: MEMBER_LINK_PURPOSES }).notNull(),
    createdAtTs: int64("created_at_ts").notNull(),
    expiresAtTs: int64("expires_at_ts").notNull(),
    usedAtTs: int64("used_at_ts"),
  },
  (t) => [index("member_links_member_idx").on(t.memberId)],
);

export const jobClaims = pgTable(
  "job_claims",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    jobCiphertext: text("job_ciphertext").notNull(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    claimedAtTs: int64("claimed_at_ts").notNull(),
    expiresAtTs: int64("expires_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.jobCiphertext] }), index("job_claims_member_idx").on(t.memberId)],
);

export const feedMembers = pgTable(
  "feed_members",
  {
    feedId: text("feed_id").notNull(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.feedId, t.memberId] }), index("feed_members_member_idx").on(t.memberId)],
);
