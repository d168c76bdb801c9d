/**
 * PostgreSQL twin of src/db/schema/worker.ts (owned by src/worker).
 */
import { pgTable, text, integer, index } from "drizzle-orm/pg-core";
import { TASK_STATUSES } from "../enums";
import { int64, jsonText } from "./columns";

export const tasks = pgTable(
  "tasks",
  {
    id: int64("id").primaryKey().generatedByDefaultAsIdentity(),
    kind: text("kind").notNull(),
    payload: jsonText("payload").notNull().$type<Record<string, unknown>>(),
    status: text("status", { enum: TASK_STATUSES }).notNull(),
    runAtTs: int64("run_at_ts").notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    leaseUntilTs: int64("lease_until_ts"),
    lastError: text("last_error"),
    createdAtTs: int64("created_at_ts").notNull(),
    updatedAtTs: int64("updated_at_ts").notNull(),
  },
  (t) => [index("tasks_claim_idx").on(t.status, t.runAtTs)],
);

export const clusterClaims = pgTable("cluster_claims", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  untilTs: int64("until_ts").notNull(),
});
