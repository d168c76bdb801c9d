/**
 * Model scores, kept per job and prompt (owned by modules/scoring).
 */
import { sqliteTable, text, integer, real, primaryKey } from "drizzle-orm/sqlite-core";

/** Model scores are paid for once per job and prompt text. */
export const jobScores = sqliteTable(
  "job_scores",
  {
    jobCiphertext: text("job_ciphertext").notNull(),
    promptHash: text("prompt_hash").notNull(),
    score: real("score").notNull(),
    reason: text("reason"),
    model: text("model").notNull(),
    createdAtTs: integer("created_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobCiphertext, t.promptHash] })],
);
