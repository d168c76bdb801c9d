/**
 * PostgreSQL twin of src/db/schema/proposals.ts (owned by modules/proposals).
 */
import { pgTable, text, primaryKey } from "drizzle-orm/pg-core";
import { int64 } from "./columns";
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
