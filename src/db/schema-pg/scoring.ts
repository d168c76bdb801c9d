/**
 * PostgreSQL twin of src/db/schema/scoring.ts (owned by modules/scoring).
 */
import { pgTable, text, doublePrecision, primaryKey } from "drizzle-orm/pg-core";
import { int64 } from "./columns";

export const jobScores = pgTable(
  "job_scores",
  {
    jobCiphertext: text("job_ciphertext").notNull(),
    promptHash: text("prompt_hash").notNull(),
    score: doublePrecision("score").notNull(),
    reason: text("reason"),
    model: text("model").notNull(),
    createdAtTs: int64("created_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobCiphertext, t.promptHash] })],
);
