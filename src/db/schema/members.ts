/**
 * The people of an account (owned by modules/members): each signs in with an e-mail and a password (argon2id
 * through Bun.password) and acts with a role; and the one-time links that set a password (an invitation, the first
 * owner's) or reset one, stored only as their SHA-256.
 */
import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, index, primaryKey, uniqueIndex } from "drizzle-orm/sqlite-core";
import { MEMBER_LINK_PURPOSES, MEMBER_ROLES } from "../enums";
import { accounts } from "./accounts";

export const members = sqliteTable(
  "members",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** Lower-cased and trimmed: one person, one address, on the whole server (sign-in finds the account by it). */
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: MEMBER_ROLES }).notNull(),
    /** Null until the member sets one through their link. */
    passwordHash: text("password_hash"),
    createdAtTs: integer("created_at_ts").notNull(),
    /** Removed members keep their row (the audit log names them); they cannot sign in and their address is free again. */
    removedAtTs: integer("removed_at_ts"),
  },
  (t) => [uniqueIndex("members_email_uq").on(t.email).where(sql`removed_at_ts IS NULL`), index("members_account_idx").on(t.accountId)],
);

export const memberLinks = sqliteTable(
  "member_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: MEMBER_LINK_PURPOSES }).notNull(),
    createdAtTs: integer("created_at_ts").notNull(),
    expiresAtTs: integer("expires_at_ts").notNull(),
    usedAtTs: integer("used_at_ts"),
  },
  (t) => [index("member_links_member_idx").on(t.memberId)],
);

/**
 * A job a member is drafting for: opening it to draft claims it, so nobody else bids on it meanwhile (released by
 * hand, when its application goes out, or when expires_at_ts passes).
 */
export const jobClaims = sqliteTable(
  "job_claims",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    jobCiphertext: text("job_ciphertext").notNull(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    claimedAtTs: integer("claimed_at_ts").notNull(),
    expiresAtTs: integer("expires_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.jobCiphertext] }), index("job_claims_member_idx").on(t.memberId)],
);

/** Feeds assigned to members (routing): the inbox shows each member their own feeds first. */
export const feedMembers = sqliteTable(
  "feed_members",
  {
    feedId: text("feed_id").notNull(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.feedId, t.memberId] }), index("feed_members_member_idx").on(t.memberId)],
);
