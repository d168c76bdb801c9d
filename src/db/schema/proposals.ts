/**
 * When each account first had a letter written for a job (owned by modules/proposals).
 */
import { sqliteTable, text, integer, primaryKey } from "drizzle-orm/sqlite-core";
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
