/**
 * When each account first had a letter written for a job (owned by modules/proposals).
 */
import { sqliteTable, text, integer, primaryKey, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/**
 * The first cover letter generated for a job by an account: the "drafted" stage of speed-to-lead
 * (modules/analytics reads it). The letter itself is not kept: the caller has it, and apply stores the one sent.
 * Deleting the account removes its rows; no key to the job, whose archive row may be pruned: the analytics
 * join then drops it.
 */
export const proposalDrafts = sqliteTable(
  "proposal_drafts",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    jobCiphertext: text("job_ciphertext").notNull(),
    firstDraftedAtTs: integer("first_drafted_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.jobCiphertext] })],
);

/**
 * A freelancer profile's portfolio (issue 44): case studies, past clients and years per skill, as the freelancer
 * entered them. One JSON document per profile, since it is always read and replaced whole; the letter writer
 * grounds its claims in it and the claim check holds letters to it.
 */
export const portfolios = sqliteTable(
  "portfolios",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    profileId: text("profile_id").notNull(),
    document: text("document", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    updatedAtTs: integer("updated_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.profileId] })],
);

/**
 * Every letter written for a job, in order: regenerating with an instruction adds a version, and the one an
 * application sent is marked with it. Claims are what the claim check left flagged in that version.
 */
export const proposalVersions = sqliteTable(
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
    claims: text("claims", { mode: "json" }).notNull().$type<unknown[]>(),
    memberId: text("member_id"),
    createdAtTs: integer("created_at_ts").notNull(),
    sentApplicationId: text("sent_application_id"),
  },
  (t) => [uniqueIndex("proposal_versions_job_uq").on(t.accountId, t.jobCiphertext, t.version)],
);
