import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { prepared, rawStatement } from "../../db/prepared";
import { events, feeds, webhookAttempts } from "../../db/schema";

export type EventRow = typeof events.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/**
 * Events whose next attempt is due, oldest first (match order), as (seq, feedId) pairs: the deliverer
 * asks after every completed delivery, so this reads only the partial index of events still to send.
 */
export function dueEvents(db: Db, nowTs: number, limit: number): { seq: number; feedId: string }[] {
  return rawStatement(
    db,
    "webhooks.due",
    `SELECT seq, feed_id AS feedId FROM events WHERE status IN ('pending', 'retrying') AND next_attempt_at_ts <= ?
     ORDER BY next_attempt_at_ts, seq LIMIT ?`,
  ).all(nowTs, limit) as { seq: number; feedId: string }[];
}

export function findEventBySeq(db: Db, seq: number): EventRow | undefined {
  return prepared(db, "webhooks.eventBySeq", (d) =>
    d
      .select()
      .from(events)
      .where(eq(events.seq, sql.placeholder("seq")))
      .prepare(),
  ).get({ seq });
}

/** Whether this job already reached this feed's endpoint since `sinceTs` (the 24-hour de-duplication). */
export function deliveredRecently(db: Db, e: EventRow, sinceTs: number): boolean {
  if (!e.jobCiphertext) return false;
  return (
    rawStatement(
      db,
      "webhooks.deliveredRecently",
      `SELECT 1 AS hit FROM events WHERE job_ciphertext = ? AND feed_id = ? AND seq != ? AND status = 'delivered' AND delivered_at_ts > ? LIMIT 1`,
    ).get(e.jobCiphertext, e.feedId, e.seq, sinceTs) !== null
  );
}

export function setEventState(db: Db, seq: number, state: Partial<Pick<EventRow, "status" | "nextAttemptAtTs" | "lastError" | "attempts">>): void {
  db.update(events).set(state).where(eq(events.seq, seq)).run();
}

/**
 * Books one attempt and the event's new state in one transaction: delivered,
 * retrying at `nextAttemptAtTs`, or failed for good.
 */
export function recordAttempt(
  db: Db,
  e: EventRow,
  attempt: { startedAtTs: number; durationMs: number; statusCode: number | null; error: string | null },
  next: { status: "delivered" | "retrying" | "failed"; nextAttemptAtTs: number | null },
): void {
  // One delivery, one commit; both statements prepared once (this runs for every webhook sent).
  const insert = rawStatement(
    db,
    "webhooks.insertAttempt",
    "INSERT INTO webhook_attempts (event_seq, attempt, started_at_ts, duration_ms, status_code, error) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const update = rawStatement(
    db,
    "webhooks.updateEvent",
    "UPDATE events SET status = ?, attempts = ?, next_attempt_at_ts = ?, delivered_at_ts = ?, last_status_code = ?, last_error = ? WHERE seq = ?",
  );
  db.$client.transaction(() => {
    insert.run(e.seq, e.attempts + 1, attempt.startedAtTs, attempt.durationMs, attempt.statusCode, attempt.error);
    update.run(
      next.status,
      e.attempts + 1,
      next.nextAttemptAtTs,
      next.status === "delivered" ? attempt.startedAtTs + attempt.durationMs : null,
      attempt.statusCode,
      attempt.error,
      e.seq,
    );
  })();
}

/** Success clears the failing streak; a final failure starts it, and past the limit disables the endpoint. */
export function noteDeliveryOutcome(db: Db, feedId: string, delivered: boolean, nowTs: number, disableAfterMs: number, lastProblem: string): "ok" | "failing" | "disabled" {
  if (delivered) {
    db.update(feeds).set({ webhookFailingSinceTs: null }).where(eq(feeds.id, feedId)).run();
    return "ok";
  }
  const feed = db.select({ since: feeds.webhookFailingSinceTs }).from(feeds).where(eq(feeds.id, feedId)).get();
  if (!feed) return "ok";
  if (feed.since === null) {
    db.update(feeds).set({ webhookFailingSinceTs: nowTs }).where(eq(feeds.id, feedId)).run();
    return "failing";
  }
  if (nowTs - feed.since < disableAfterMs) return "failing";
  db.update(feeds)
    .set({
      webhookDisabledAtTs: nowTs,
      webhookDisabledReason: `Disabled after every delivery failed for ${Math.round(disableAfterMs / 3_600_000)} hours (last: ${lastProblem}); save the webhook URL again to re-enable it`,
    })
    .where(and(eq(feeds.id, feedId), sql`${feeds.webhookDisabledAtTs} IS NULL`))
    .run();
  return "disabled";
}

export function listEvents(
  db: Db,
  feedId: string,
  opts: { limit: number; offset: number; status?: string },
): { items: EventRow[]; total: number } {
  const where = and(eq(events.feedId, feedId), opts.status ? eq(events.status, opts.status) : sql`${events.status} != 'no_endpoint'`);
  const total = db.select({ n: count() }).from(events).where(where).get()?.n ?? 0;
  const items = db.select().from(events).where(where).orderBy(desc(events.seq)).limit(opts.limit).offset(opts.offset).all();
  return { items, total };
}

export function attemptsOf(db: Db, seqs: number[]): AttemptRow[] {
  if (seqs.length === 0) return [];
  return db.select().from(webhookAttempts).where(inArray(webhookAttempts.eventSeq, seqs)).orderBy(webhookAttempts.eventSeq, webhookAttempts.attempt).all();
}

export function findEvent(db: Db, feedId: string, eventId: string): EventRow | undefined {
  return db
    .select()
    .from(events)
    .where(and(eq(events.feedId, feedId), eq(events.id, eventId)))
    .get();
}
