/**
 * The durable task queue (owned by src/worker).
 */
import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { TASK_STATUSES } from "../enums";

/**
 * Durable background work. A worker claims rows with a lease; a crash leaves
 * them `running` past their lease and they are queued again at the next start.
 * Done tasks are deleted (their effects live in the domain tables); failed
 * ones stay for inspection.
 */
export const tasks = sqliteTable(
  "tasks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    payload: text("payload", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    status: text("status", { enum: TASK_STATUSES }).notNull(),
    runAtTs: integer("run_at_ts").notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    leaseUntilTs: integer("lease_until_ts"),
    lastError: text("last_error"),
    createdAtTs: integer("created_at_ts").notNull(),
    updatedAtTs: integer("updated_at_ts").notNull(),
  },
  (t) => [index("tasks_claim_idx").on(t.status, t.runAtTs)],
);

/**
 * What the nodes sharing one database agree on, one row per name: the last tick of a schedule that ran
 * (`until_ts` is the tick's time; the first node to move it forward runs the tick), or a lease on a loop that
 * must run on one node at a time (`holder` runs it until `until_ts` unless it renews first).
 */
export const clusterClaims = sqliteTable("cluster_claims", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  untilTs: integer("until_ts").notNull(),
});
