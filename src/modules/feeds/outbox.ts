import { and, asc, count, desc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, isPg, many, one, preparedOne, rawExec, rawMany, tables } from "../../db/query";
import type { events } from "../../db/schema";

/**
 * The outbox (`events`), owned here: admit.ts writes one row per job that
 * enters a feed, in the admitting transaction; the webhook deliverer reads
 * the rows due and records each delivery's outcome through these functions.
 */

export type EventRow = typeof events.$inferSelect;

export interface EventInsert {
  id: string;
  type: string;
  accountId: string;
  feedId: string;
  feedJobId: string | null;
  jobCiphertext: string | null;
  createdAtTs: number;
  status: "pending" | "no_endpoint";
  nextAttemptAtTs: number | null;
}

/** One outbox row (see admit.ts queueEvent). */
export async function insertEvent(db: Db, e: EventInsert): Promise<void> {
  // Runs for every feed entry at ingest, so this is plain SQL (see rawExec).
  await rawExec(
    db,
    "feeds.insertEvent",
    `INSERT INTO events (id, type, account_id, feed_id, feed_job_id, job_ciphertext, created_at_ts, status, next_attempt_at_ts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [e.id, e.type, e.accountId, e.feedId, e.feedJobId, e.jobCiphertext, e.createdAtTs, e.status, e.nextAttemptAtTs],
  );
}

/**
 * Events whose next attempt is due, oldest first (match order), as (seq, feedId) pairs: the deliverer
 * asks after every completed delivery, so this reads only the partial index of events still to send.
 */
export async function dueEvents(db: Db, nowTs: number, limit: number): Promise<{ seq: number; feedId: string }[]> {
  const rows = await rawMany<{ seq: number | string; feedId: string }>(
    db,
    "webhooks.due",
    `SELECT seq, feed_id AS "feedId" FROM events WHERE status IN ('pending', 'retrying') AND next_attempt_at_ts <= ?
     ORDER BY next_attempt_at_ts, seq LIMIT ?`,
    [nowTs, limit],
  );
  // PostgreSQL's bigint arrives as a string.
  return rows.map((r) => ({ seq: Number(r.seq), feedId: r.feedId }));
}

/**
 * The events to send now: of the first `scan` due events (dueEvents' order),
 * the oldest of each feed not in `busy`, up to `max` events; only those rows
 * are read whole.
 */
export async function pickDueEvents(db: Db, nowTs: number, scan: number, max: number, busy: ReadonlySet<string>): Promise<EventRow[]> {
  const picked: EventRow[] = [];
  const feeds = new Set(busy);
  for (const due of await dueEvents(db, nowTs, scan)) {
    if (picked.length >= max) break;
    if (feeds.has(due.feedId)) continue;
    const e = await findEventBySeq(db, due.seq);
    if (!e) continue;
    feeds.add(e.feedId);
    picked.push(e);
  }
  return picked;
}

export interface Claimed {
  events: EventRow[];
  /** PostgreSQL: the lease this node holds on each of the events' feeds until it calls releaseFeeds; null on SQLite. */
  leaseUntilTs: number | null;
}

/**
 * The events this node sends now, at most one per feed and never one of a feed in `busy` (this node's
 * feeds in flight). On SQLite one process owns the outbox: pickDueEvents as it is. On PostgreSQL several
 * nodes share it, so a feed is held cluster-wide while one of its events is in flight: the node first
 * leases the feeds of the first `scan` due events (one conditional UPDATE of feeds.webhook_lease_until_ts:
 * the row lock makes exactly one node win a free feed), then reads each leased feed's oldest due event
 * afresh, so it sees what the previous holder committed before it let go. A leased feed with nothing due
 * any more is let go at once. A node that dies holding a feed loses it when the lease runs out; the event
 * it was sending is still due and goes out again with the same webhook-id (at-least-once).
 */
export async function claimDueEvents(db: Db, nowTs: number, scan: number, max: number, busy: ReadonlySet<string>, leaseMs: number): Promise<Claimed> {
  if (!isPg(db)) return { events: await pickDueEvents(db, nowTs, scan, max, busy), leaseUntilTs: null };
  const wanted: string[] = [];
  for (const due of await dueEvents(db, nowTs, scan)) {
    if (wanted.length >= max) break;
    if (!busy.has(due.feedId) && !wanted.includes(due.feedId)) wanted.push(due.feedId);
  }
  if (wanted.length === 0) return { events: [], leaseUntilTs: null };
  const leaseUntilTs = nowTs + leaseMs;
  const { feeds, events } = tables(db);
  const held = await many(
    db,
    db
      .update(feeds)
      .set({ webhookLeaseUntilTs: leaseUntilTs })
      .where(and(inArray(feeds.id, wanted), or(isNull(feeds.webhookLeaseUntilTs), lte(feeds.webhookLeaseUntilTs, nowTs))))
      .returning({ id: feeds.id }),
  );
  const oldest = await Promise.all(
    held.map(({ id }) =>
      one(
        db,
        db
          .select()
          .from(events)
          .where(and(eq(events.feedId, id), inArray(events.status, ["pending", "retrying"]), lte(events.nextAttemptAtTs, nowTs)))
          .orderBy(asc(events.nextAttemptAtTs), asc(events.seq))
          .limit(1),
      ),
    ),
  );
  const claimed = oldest.filter((e): e is EventRow => e !== undefined).sort((a, b) => a.nextAttemptAtTs! - b.nextAttemptAtTs! || a.seq - b.seq);
  const idle = held.map((h) => h.id).filter((id) => !claimed.some((e) => e.feedId === id));
  if (idle.length > 0) await releaseFeeds(db, idle, leaseUntilTs);
  return { events: claimed, leaseUntilTs };
}

/** Lets go of feeds leased by claimDueEvents (PostgreSQL): only while the lease is still the one this node took. */
export async function releaseFeeds(db: Db, feedIds: string[], leaseUntilTs: number): Promise<void> {
  if (!isPg(db) || feedIds.length === 0) return;
  const { feeds } = tables(db);
  await exec(
    db,
    db
      .update(feeds)
      .set({ webhookLeaseUntilTs: null })
      .where(and(inArray(feeds.id, feedIds), eq(feeds.webhookLeaseUntilTs, leaseUntilTs))),
  );
}

export function findEventBySeq(db: Db, seq: number): Promise<EventRow | undefined> {
  return preparedOne(
    db,
    "webhooks.eventBySeq",
    (d) => {
      const { events } = tables(d);
      return d
        .select()
        .from(events)
        .where(eq(events.seq, sql.placeholder("seq")));
    },
    { seq },
  );
}

/** Whether this job already reached this feed's endpoint since `sinceTs` (the 24-hour de-duplication). */
export async function deliveredRecently(db: Db, e: EventRow, sinceTs: number): Promise<boolean> {
  if (!e.jobCiphertext) return false;
  const hits = await rawMany(
    db,
    "webhooks.deliveredRecently",
    `SELECT 1 AS hit FROM events WHERE job_ciphertext = ? AND feed_id = ? AND seq != ? AND status = 'delivered' AND delivered_at_ts > ? LIMIT 1`,
    [e.jobCiphertext, e.feedId, e.seq, sinceTs],
  );
  return hits.length > 0;
}

export async function setEventState(
  db: Db,
  seq: number,
  state: Partial<Pick<EventRow, "status" | "nextAttemptAtTs" | "lastError" | "attempts">>,
): Promise<void> {
  const { events } = tables(db);
  await exec(db, db.update(events).set(state).where(eq(events.seq, seq)));
}

/**
 * The event's state after one more delivery attempt: delivered, retrying at
 * `nextAttemptAtTs`, or failed for good. The deliverer calls it in the
 * transaction that books the attempt itself (webhooks/repo.ts recordAttempt).
 */
export async function recordEventAttempt(
  db: Db,
  e: Pick<EventRow, "seq" | "attempts">,
  attempt: { startedAtTs: number; durationMs: number; statusCode: number | null; error: string | null },
  next: { status: "delivered" | "retrying" | "failed"; nextAttemptAtTs: number | null },
): Promise<void> {
  // Plain SQL: this runs for every webhook sent.
  await rawExec(
    db,
    "webhooks.updateEvent",
    "UPDATE events SET status = ?, attempts = ?, next_attempt_at_ts = ?, delivered_at_ts = ?, last_status_code = ?, last_error = ? WHERE seq = ?",
    [
      next.status,
      e.attempts + 1,
      next.nextAttemptAtTs,
      next.status === "delivered" ? attempt.startedAtTs + attempt.durationMs : null,
      attempt.statusCode,
      attempt.error,
      e.seq,
    ],
  );
}

export async function listEvents(
  db: Db,
  feedId: string,
  opts: { limit: number; offset: number; status?: string },
): Promise<{ items: EventRow[]; total: number }> {
  const { events } = tables(db);
  const where = and(eq(events.feedId, feedId), opts.status ? eq(events.status, opts.status) : sql`${events.status} != 'no_endpoint'`);
  const total = (await one(db, db.select({ n: count() }).from(events).where(where)))?.n ?? 0;
  const items = await many(db, db.select().from(events).where(where).orderBy(desc(events.seq)).limit(opts.limit).offset(opts.offset));
  return { items, total };
}

export function findEvent(db: Db, feedId: string, eventId: string): Promise<EventRow | undefined> {
  const { events } = tables(db);
  return one(
    db,
    db
      .select()
      .from(events)
      .where(and(eq(events.feedId, feedId), eq(events.id, eventId)))
      .limit(1),
  );
}

/** Why the feed's newest failed webhook event failed, or null when none did. */
export async function lastWebhookError(db: Db, feedId: string): Promise<string | null> {
  const { events } = tables(db);
  const row = await one(
    db,
    db
      .select({ error: events.lastError })
      .from(events)
      .where(and(eq(events.feedId, feedId), eq(events.status, "failed")))
      .orderBy(desc(events.seq))
      .limit(1),
  );
  return row?.error ?? null;
}
