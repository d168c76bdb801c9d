/**
 * The notification outbox (events, owned by modules/feeds: admit writes it) and every delivery attempt (webhook_attempts, owned by modules/webhooks).
 */
import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { feeds } from "./feeds";

/**
 * The notification outbox: one row per target (webhook, channel) of each job
 * that entered an unmuted feed, written in the same transaction as the match. The webhook deliverer reads it
 * in `seq` order; deleting a feed drops its events.
 */
export const events = sqliteTable(
  "events",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    type: text("type").notNull(),
    accountId: text("account_id").notNull(),
    feedId: text("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    /** No foreign key: the feed's cascade already removes these rows, and a second one would scan events per deleted match. */
    feedJobId: text("feed_job_id"),
    jobCiphertext: text("job_ciphertext"),
    /** An automation alert's facts (connects.low, budget.low: feeds/admit.ts AlertFacts) as JSON text; null for every other event. */
    facts: text("facts"),
    createdAtTs: integer("created_at_ts").notNull(),
    /** Where the event goes: "webhook" (the feed's webhook URL) or the id of one of the feed's notification channels. */
    target: text("target").notNull().default("webhook"),
    /**
     * Delivery state: pending (no attempt yet), retrying, delivered, failed (retries spent), suppressed
     * (the same job already notified this feed within 24 h), skipped (no webhook URL, or disabled), or
     * no_endpoint (a test event written while the feed had no URL, or a match written so before matches without
     * a target stopped writing events: never delivered, never indexed as due). A channel alert
     * can also be held (waiting for its digest window or quiet hours to end; next_attempt_at_ts is then when)
     * and in_digest (its window closed: the digest event digest_seq carries it, and settles it when it does).
     */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAtTs: integer("next_attempt_at_ts"),
    deliveredAtTs: integer("delivered_at_ts"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    /**
     * PostgreSQL only (NULL on SQLite, whose one writer commits events in `seq` order): the id of the
     * transaction that stamped the event when a deliverer first saw it committed; the event goes out only
     * once every transaction with a smaller id has ended (see feeds/outbox.ts claimDueEvents).
     */
    visibleAfterXid: integer("visible_after_xid"),
    /**
     * A channel alert held for a digest (digest mode or quiet hours, see modules/channels/schedule.ts): the seq of
     * the `channel.digest` event that carries it, set when its window closes. No foreign key: both rows are the
     * feed's, and its cascade removes them together.
     */
    digestSeq: integer("digest_seq"),
  },
  // Event ids are fresh UUIDv7s, unique by construction; lookups by id go through the feed.
  (t) => [
    index("events_feed_idx").on(t.feedId, t.seq),
    // Only events still to send are in this index, so delivered history costs the deliverer nothing.
    index("events_due_idx").on(t.nextAttemptAtTs).where(sql`status IN ('pending', 'retrying')`),
    index("events_job_feed_idx").on(t.jobCiphertext, t.feedId),
    // The oldest undelivered event of a (feed, channel): a channel's events go out strictly in order, retries
    // included (see outbox.channelHead). Webhook events never enter it, so ingestion pays nothing for it.
    index("events_channel_head_idx").on(t.feedId, t.target, t.seq).where(sql`status IN ('pending', 'retrying') AND target != 'webhook'`),
    // Fair delivery (feeds/outbox.ts fairCandidates): the accounts with work and each account's oldest due
    // event (readyz, metrics, the pending cap) are one seek each, whatever another account's backlog.
    index("events_account_due_idx").on(t.accountId, t.nextAttemptAtTs, t.seq).where(sql`status IN ('pending', 'retrying')`),
    // An account's targets with work, one seek each from a cursor, and each target's oldest due event.
    index("events_target_due_idx").on(t.accountId, t.feedId, t.target, t.nextAttemptAtTs, t.seq).where(sql`status IN ('pending', 'retrying')`),
    // Alerts held for a digest, by when it goes: the deliverer looks for windows that ended on every round.
    index("events_held_idx").on(t.nextAttemptAtTs).where(sql`status = 'held'`),
    // A digest's alerts.
    index("events_digest_idx").on(t.digestSeq).where(sql`digest_seq IS NOT NULL`),
  ],
);

/** Every delivery attempt of an event: when, how long, what came back. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventSeq: integer("event_seq")
      .notNull()
      .references(() => events.seq, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    startedAtTs: integer("started_at_ts").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
  },
  (t) => [index("webhook_attempts_event_idx").on(t.eventSeq)],
);
