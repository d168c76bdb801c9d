/**
 * PostgreSQL twin of src/db/schema/webhooks.ts (events owned by modules/feeds, webhook_attempts by modules/webhooks).
 */
import { sql } from "drizzle-orm";
import { pgTable, text, integer, index } from "drizzle-orm/pg-core";
import { feeds } from "./feeds";
import { int64 } from "./columns";

export const events = pgTable(
  "events",
  {
    seq: int64("seq").primaryKey().generatedByDefaultAsIdentity(),
    id: text("id").notNull(),
    type: text("type").notNull(),
    accountId: text("account_id").notNull(),
    feedId: text("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    feedJobId: text("feed_job_id"),
    jobCiphertext: text("job_ciphertext"),
    facts: text("facts"),
    createdAtTs: int64("created_at_ts").notNull(),
    target: text("target").notNull().default("webhook"),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAtTs: int64("next_attempt_at_ts"),
    deliveredAtTs: int64("delivered_at_ts"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    visibleAfterXid: int64("visible_after_xid"),
    digestSeq: int64("digest_seq"),
  },
  (t) => [
    index("events_feed_idx").on(t.feedId, t.seq),
    index("events_due_idx").on(t.nextAttemptAtTs).where(sql`status IN ('pending', 'retrying')`),
    index("events_job_feed_idx").on(t.jobCiphertext, t.feedId),
    index("events_channel_head_idx").on(t.feedId, t.target, t.seq).where(sql`status IN ('pending', 'retrying') AND target != 'webhook'`),
    index("events_account_due_idx").on(t.accountId, t.nextAttemptAtTs, t.seq).where(sql`status IN ('pending', 'retrying')`),
    index("events_target_due_idx").on(t.accountId, t.feedId, t.target, t.nextAttemptAtTs, t.seq).where(sql`status IN ('pending', 'retrying')`),
    index("events_held_idx").on(t.nextAttemptAtTs).where(sql`status = 'held'`),
    index("events_digest_idx").on(t.digestSeq).where(sql`digest_seq IS NOT NULL`),
  ],
);

export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: int64("id").primaryKey().generatedByDefaultAsIdentity(),
    eventSeq: int64("event_seq")
      .notNull()
      .references(() => events.seq, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    startedAtTs: int64("started_at_ts").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
  },
  (t) => [index("webhook_attempts_event_idx").on(t.eventSeq)],
);
