/**
 * PostgreSQL twin of src/db/schema/proposals.ts (owned by modules/proposals).
 */
import { pgTable, text, integer, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";
import { int64, jsonText } from "./columns";
import { accounts } from "./accounts";

export const proposalDrafts = pgTable(
  "proposal_drafts",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    jobCiphertext: text("job_ciphertext").notNull(),
    firstDraftedAtTs: int64("first_drafted_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.jobCiphertext] })],
);

export const portfolios = pgTable(
  "portfolios",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    profileId: text("profile_id").notNull(),
    document: jsonText("document").notNull().$type<Record<string, unknown>>(),
    updatedAtTs: int64("updated_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.profileId] })],
);

export const proposalVersions = pgTable(
  "proposal_versions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    jobCiphertext: text("job_ciphertext").notNull(),
    version: integer("version").notNull(),
    letter: text("letter").notNull(),
    instruction: text("instruction"),
    writer: text("writer").notNull(),
    claims: jsonText("claims").notNull().$type<unknown[]>(),
    memberId: text("member_id"),
    createdAtTs: int64("created_at_ts").notNull(),
    sentApplicationId: text("sent_application_id"),
  },
  (t) => [uniqueIndex("proposal_versions_job_uq").on(t.accountId, t.jobCiphertext, t.version)],
);
