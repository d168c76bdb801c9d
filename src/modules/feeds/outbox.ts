import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lte, min, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, isPg, many, one, preparedOne, rawExec, rawInsertCount, rawMany, tables } from "../../db/query";
import type { events } from "../../db/schema";
import { type FairOptions, fairCandidates, newFairCursor, pauseKeyOf } from "./outbox-fair";
import { invalidateFeedCaches } from "./repo";

/**
 * The outbox (`events`), owned here: admit.ts writes one row per target of
 * each job that enters a feed, in the admitting transaction; the webhook deliverer reads
 * the rows due and records each delivery's outcome through these functions.
 */

export type EventRow = typeof events.$inferSelect;

export interface EventInsert {
  id: string;
  type: string;
  accountId: string;
  feedId: string;
  /** WEBHOOK_TARGET or a channel id. */
  target: string;
  feedJobId: string | null;
  jobCiphertext: string | null;
  createdAtTs: number;
  /** skipped: dropped at admission (the account's backlog is full, see admit.ts), with the reason in lastError. */
  status: "pending" | "no_endpoint" | "skipped";
  nextAttemptAtTs: number | null;
  lastError?: string | null;
  /** An automation alert's facts as JSON text (admit.ts queueAlertEvents); absent for every other event. */
  facts?: string | null;
}

const EVENT_COLUMNS = "id, type, account_id, feed_id, target, feed_job_id, job_ciphertext, created_at_ts, status, next_attempt_at_ts, last_error, facts";
const EVENT_VALUES = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";
const eventValues = (e: EventInsert) => [
  e.id,
  e.type,
  e.accountId,
  e.feedId,
  e.target,
  e.feedJobId,
  e.jobCiphertext,
  e.createdAtTs,
  e.status,
  e.nextAttemptAtTs,
  e.lastError ?? null,
  e.facts ?? null,
];

/**
 * The account's events still to send, counted up to `limit` (a range of events_account_due_idx that stops
 * there: the pending cap's check costs at most the cap, never the whole backlog).
 */
export async function pendingOfAccount(db: Db, accountId: string, limit: number): Promise<number> {
  const rows = await rawMany<{ n: number | string }>(
    db,
    "feeds.pendingOfAccount",
    "SELECT count(*) AS n FROM (SELECT 1 FROM events WHERE account_id = ? AND status IN ('pending', 'retrying') LIMIT ?) AS capped",
    [accountId, limit],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The target of an event sent to the feed's webhook URL; any other target is a channel id. */
export const WEBHOOK_TARGET = "webhook" as const;

/**
 * One row's INSERT. On PostgreSQL the transaction takes its id before the event takes its seq (CASE evaluates
 * WHEN first): claimDueEvents relies on it.
 */
function insertEventText(db: Db, tail: string): string {
  return isPg(db)
    ? `INSERT INTO events (seq, ${EVENT_COLUMNS}) VALUES (CASE WHEN pg_current_xact_id() IS NOT NULL THEN nextval('events_seq_seq') END, ${EVENT_VALUES})${tail}`
    : `INSERT INTO events (${EVENT_COLUMNS}) VALUES (${EVENT_VALUES})${tail}`;
}

/** One outbox row (see admit.ts queueTestEvent). */
export async function insertEvent(db: Db, e: EventInsert): Promise<void> {
  // Runs for every feed entry at ingest, so this is plain SQL (see rawExec).
  await rawExec(db, "feeds.insertEvent", insertEventText(db, ""), eventValues(e));
}

/** insertEvent, answering with the new row's seq (the digest events: see outbox-digests.ts). */
export async function insertEventReturningSeq(db: Db, e: EventInsert): Promise<number> {
  const rows = await rawMany<{ seq: number | string }>(db, "feeds.insertEventReturningSeq", insertEventText(db, " RETURNING seq"), eventValues(e));
  return Number(rows[0]!.seq);
}

/**
 * A batch's outbox rows, in one statement per chunk; their seqs follow the order given (a VALUES list is
 * inserted row by row, in order, on both dialects). On PostgreSQL each row takes the transaction id before
 * its seq, as insertEvent does.
 */
export async function insertEvents(db: Db, rows: readonly EventInsert[]): Promise<void> {
  await rawInsertCount(
    db,
    "feeds.insertEvents",
    isPg(db)
      ? {
          head: `INSERT INTO events (seq, ${EVENT_COLUMNS})`,
          row: `(CASE WHEN pg_current_xact_id() IS NOT NULL THEN nextval('events_seq_seq') END, ${EVENT_VALUES})`,
        }
      : { head: `INSERT INTO events (${EVENT_COLUMNS})`, row: `(${EVENT_VALUES})` },
    rows.map(eventValues),
  );
}

/** A due event as the scan sees it. */
export interface DueEvent {
  seq: number;
  feedId: string;
  target: string;
}

/**
 * Where one event goes, as the deliverer counts what is in flight: one event at a time per key. The webhook's
 * key is the feed id (what it was before events had targets); a channel's is the feed id and the channel id.
 */
export function targetKey(feedId: string, target: string): string {
  return target === WEBHOOK_TARGET ? feedId : `${feedId} ${target}`;
}

/** The feed of a targetKey (ids hold no spaces). */
export function feedOfKey(key: string): string {
  const space = key.indexOf(" ");
  return space < 0 ? key : key.slice(0, space);
}

/**
 * Events whose next attempt is due, oldest first (match order), as (seq, feedId, target): the deliverer
 * asks after every completed delivery, so this reads only the partial index of events still to send.
 * Events of `pausedTargets` (channels the deliverer must not send to yet: rate limit, a retry's wait) are
 * left out in the query, so a long queue for one paused channel does not fill the scan and hide others.
 */
export async function dueEvents(db: Db, nowTs: number, limit: number, pausedTargets: ReadonlySet<string> = NONE): Promise<DueEvent[]> {
  const paused = [...pausedTargets];
  const rows = await rawMany<{ seq: number | string; feedId: string; target: string }>(
    db,
    // One statement text (and prepared statement) per number of paused targets.
    `webhooks.due.${paused.length}`,
    `SELECT seq, feed_id AS "feedId", target FROM events WHERE status IN ('pending', 'retrying') AND next_attempt_at_ts <= ?
     ${paused.length > 0 ? `AND target NOT IN (${paused.map(() => "?").join(", ")})` : ""}
     ORDER BY next_attempt_at_ts, seq LIMIT ?`,
    [nowTs, ...paused, limit],
  );
  // PostgreSQL's bigint arrives as a string.
  return rows.map((r) => ({ seq: Number(r.seq), feedId: r.feedId, target: r.target }));
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The oldest event still to send of a (feed, channel), due or not. A channel's events go out strictly in seq
 * order, retries included: an event waiting for its retry holds back the newer ones of its (feed, channel),
 * so a chat never shows alerts out of order. (A webhook's newer events do not wait for a retry: receivers
 * order by the payload, as before targets existed.)
 */
export async function channelHead(db: Db, feedId: string, target: string): Promise<{ seq: number; nextAttemptAtTs: number } | undefined> {
  // `target != 'webhook'` is in the text so both dialects can use the partial index events_channel_head_idx.
  const rows = await rawMany<{ seq: number | string; nextAttemptAtTs: number | string }>(
    db,
    "webhooks.channelHead",
    `SELECT seq, next_attempt_at_ts AS "nextAttemptAtTs" FROM events
     WHERE feed_id = ? AND target = ? AND status IN ('pending', 'retrying') AND target != 'webhook' ORDER BY seq LIMIT 1`,
    [feedId, target],
  );
  const row = rows[0];
  return row ? { seq: Number(row.seq), nextAttemptAtTs: Number(row.nextAttemptAtTs) } : undefined;
}

export interface Picked {
  events: EventRow[];
  /** Channels whose next event (the head of a (feed, channel)) is waiting for a retry: not before this time. */
  pauses: Map<string, number>;
}

/**
 * The fair pick's options (outbox-fair.ts) from what a caller passes: `busy` target keys are skipped, and so
 * are `pausedTargets` (channel ids, and feed ids for webhooks held back by their breaker); `scan` bounds
 * each account's walk. A caller without a cursor of its own starts from the first account and target.
 */
function fairOptions(scan: number, busy: ReadonlySet<string>, pausedTargets: ReadonlySet<string>, fair: Partial<FairOptions>): FairOptions {
  return {
    cursor: fair.cursor ?? newFairCursor(),
    roomOf: fair.roomOf ?? (() => Number.POSITIVE_INFINITY),
    seeksPerAccount: fair.seeksPerAccount ?? scan,
    isSkipped: (feedId, target) =>
      busy.has(targetKey(feedId, target)) || pausedTargets.has(pauseKeyOf(feedId, target)) || (fair.isSkipped?.(feedId, target) ?? false),
  };
}

/**
 * The events to send now, at most one per target key (targetKey) not in `busy`, up to `max`, picked fairly
 * across accounts and then targets (outbox-fair.ts fairCandidates; `scan` is each account's seek budget):
 * a webhook's oldest due event; for a channel, the head of its (feed, channel) instead, when that is due
 * (else the channel is paused until it is). Only those rows are read whole.
 */
export async function pickDueEvents(
  db: Db,
  nowTs: number,
  scan: number,
  max: number,
  busy: ReadonlySet<string>,
  pausedTargets: ReadonlySet<string> = NONE,
  fair: Partial<FairOptions> = {},
): Promise<Picked> {
  const picked: Picked = { events: [], pauses: new Map() };
  for (const due of await fairCandidates(db, nowTs, max, fairOptions(scan, busy, pausedTargets, fair))) {
    if (picked.pauses.has(due.target)) continue;
    let seq = due.seq;
    if (due.target !== WEBHOOK_TARGET) {
      const head = await channelHead(db, due.feedId, due.target);
      if (!head) continue;
      if (head.nextAttemptAtTs > nowTs) {
        picked.pauses.set(due.target, head.nextAttemptAtTs);
        continue;
      }
      seq = head.seq;
    }
    const e = await findEventBySeq(db, seq);
    if (e) picked.events.push(e);
  }
  // Started in match order, as claimDueEvents orders them on PostgreSQL.
  picked.events.sort((a, b) => a.nextAttemptAtTs! - b.nextAttemptAtTs! || a.seq - b.seq);
  return picked;
}

export interface Claimed extends Picked {
  /** PostgreSQL: the lease this node holds on each of the events' feeds until it calls releaseFeeds; null on SQLite. */
  leaseUntilTs: number | null;
}

/**
 * The events this node sends now, at most one per target key (targetKey) and never one of a key in `busy`
 * (this node's keys in flight). On SQLite one process owns the outbox: pickDueEvents as it is. On PostgreSQL
 * several nodes share it, so a feed is held cluster-wide while any of its events is in flight: the node first
 * leases the feeds of the fair pick's candidates (outbox-fair.ts) that have nothing in flight here (one
 * conditional UPDATE of feeds.webhook_lease_until_ts over the rows it could lock with SKIP LOCKED: exactly one
 * node wins a free feed, and none waits on another's claim), then reads each leased
 * feed's next event per target afresh (the oldest due webhook event; each channel's head), so it sees what the
 * previous holder committed before it let go. A leased feed with nothing to send any more is let go at once;
 * the others when all their events claimed here are booked. One lease per feed, not per target, keeps the
 * order argument below as it was; the price is that a feed's targets are claimed together, in rounds. A node
 * that dies holding a feed loses it when the lease runs out; the event it was sending is still due and goes
 * out again with the same event id (at-least-once).
 *
 * Late commits (PostgreSQL). Nodes write events concurrently, and a transaction that took a smaller seq may
 * commit after one that took a bigger seq: the newer event is visible first. So a feed's next event is sent
 * only once it is "settled": the scanned due events (and channel heads) of the leased feeds are stamped, the
 * first time a claim sees them, with the id of the stamping transaction (visible_after_xid =
 * pg_current_xact_id(), taken after its snapshot, in which the event is committed), and an event is sent only
 * once no transaction with a smaller id is running (pg_snapshot_xmin(snapshot of the read) >= stamp). If the
 * next event is not settled (or not stamped yet: it committed after the stamping), it is not sent this round;
 * a later event of the same target is never sent in its place. Why this keeps seq order: let E2 (seq s2) be
 * settled, and T1 a transaction writing E1 of the same feed with s1 < s2. insertEvent gives T1 its id X1
 * before it takes s1; s1 < s2 means T1 took s1 before E2's transaction took s2, which was before E2 committed,
 * which was before the stamping transaction took its id V (ids are handed out in increasing order): X1 < V.
 * E2 settled means every transaction below V had ended, T1 included: E1 is committed (then visible, and the
 * read takes it first, being older) or rolled back. Why not a value taken when the event is written: an
 * ingest transaction is SERIALIZABLE, so pg_current_snapshot() there is the snapshot of its first statement,
 * and a snapshot's xmax is only "one past the newest ENDED transaction", so a running T1 can have an id at or
 * above it either way. Due webhook events are ordered by (next_attempt_at_ts, seq) as before; the guarantee is
 * seq order among events of equal due time, i.e. first attempts written with the same clock reading or in
 * clock order. A channel's events go in seq order outright (channelHead).
 */
export async function claimDueEvents(
  db: Db,
  nowTs: number,
  scan: number,
  max: number,
  busy: ReadonlySet<string>,
  leaseMs: number,
  pausedTargets: ReadonlySet<string> = NONE,
  fair: Partial<FairOptions> = {},
): Promise<Claimed> {
  if (!isPg(db)) return { ...(await pickDueEvents(db, nowTs, scan, max, busy, pausedTargets, fair)), leaseUntilTs: null };
  const none: Claimed = { events: [], pauses: new Map(), leaseUntilTs: null };
  const options = fairOptions(scan, busy, pausedTargets, fair);
  const scanned = await fairCandidates(db, nowTs, max, options);
  // A feed with anything in flight here is leased by this node already: it is claimed again once that is booked.
  const busyFeeds = new Set([...busy].map(feedOfKey));
  const wanted: string[] = [];
  for (const due of scanned) {
    if (wanted.length >= max) break;
    if (!busyFeeds.has(due.feedId) && !wanted.includes(due.feedId)) wanted.push(due.feedId);
  }
  if (wanted.length === 0) return none;
  const leaseUntilTs = nowTs + leaseMs;
  const { feeds, events } = tables(db);
  invalidateFeedCaches(db);
  const isFree = or(isNull(feeds.webhookLeaseUntilTs), lte(feeds.webhookLeaseUntilTs, nowTs));
  // SKIP LOCKED: a feed another node is leasing right now is passed over, not waited for (as tasks are claimed).
  const lockable = sql`${feeds.id} IN (SELECT id FROM feeds WHERE id IN (${sql.join(
    wanted.map((id) => sql`${id}`),
    sql`, `,
  )}) AND (webhook_lease_until_ts IS NULL OR webhook_lease_until_ts <= ${nowTs}) FOR UPDATE SKIP LOCKED)`;
  const held = await many(db, db.update(feeds).set({ webhookLeaseUntilTs: leaseUntilTs }).where(and(lockable, isFree)).returning({ id: feeds.id }));
  if (held.length === 0) return none;
  const heldIds = held.map((h) => h.id);
  // Each (feed, channel)'s head, due or not, read after the lease (uses events_channel_head_idx); a round
  // trip spared when the scan found no channel event of these feeds (feeds with a webhook only, mostly).
  const hasChannelEvents = scanned.some((d) => d.target !== WEBHOOK_TARGET && heldIds.includes(d.feedId));
  const heads = !hasChannelEvents
    ? []
    : (
        await rawMany<{ seq: number | string; feedId: string; target: string }>(
          db,
          "webhooks.channelHeads",
          `SELECT DISTINCT ON (feed_id, target) seq, feed_id AS "feedId", target FROM events
           WHERE feed_id = ANY(?) AND status IN ('pending', 'retrying') AND target != 'webhook' ORDER BY feed_id, target, seq`,
          [heldIds],
        )
      )
        .filter((h) => !pausedTargets.has(h.target) && !options.isSkipped(h.feedId, h.target))
        .map((h) => Number(h.seq));
  // Only feeds this node holds: no two nodes stamp the same rows at once. Each event is stamped once.
  const unstamped = [...scanned.filter((d) => heldIds.includes(d.feedId)).map((d) => d.seq), ...heads];
  if (unstamped.length > 0)
    await exec(
      db,
      db
        .update(events)
        .set({ visibleAfterXid: sql`pg_current_xact_id()::text::bigint` })
        .where(and(inArray(events.seq, unstamped), isNull(events.visibleAfterXid))),
    );
  const settled = sql<boolean | null>`${events.visibleAfterXid} <= pg_snapshot_xmin(pg_current_snapshot())::text::bigint`;
  const webhookNext = await Promise.all(
    heldIds.map((id) =>
      one(
        db,
        db
          .select({ event: events, settled })
          .from(events)
          .where(
            and(eq(events.feedId, id), eq(events.target, WEBHOOK_TARGET), inArray(events.status, ["pending", "retrying"]), lte(events.nextAttemptAtTs, nowTs)),
          )
          .orderBy(asc(events.nextAttemptAtTs), asc(events.seq))
          .limit(1),
      ),
    ),
  );
  const channelNext = heads.length === 0 ? [] : await many(db, db.select({ event: events, settled }).from(events).where(inArray(events.seq, heads)));
  const claimed: EventRow[] = [];
  const pauses = new Map<string, number>();
  for (const next of [...webhookNext, ...channelNext]) {
    if (!next) continue;
    const e = next.event;
    if (e.target !== WEBHOOK_TARGET && e.nextAttemptAtTs! > nowTs) {
      pauses.set(e.target, Math.min(pauses.get(e.target) ?? Number.POSITIVE_INFINITY, e.nextAttemptAtTs!));
      continue;
    }
    if (next.settled === true && !options.isSkipped(e.feedId, e.target)) claimed.push(e);
  }
  claimed.sort((a, b) => a.nextAttemptAtTs! - b.nextAttemptAtTs! || a.seq - b.seq);
  // A feed brings one event per target: keep within `max` and each account's room; a feed left with none is let go below.
  const taken = new Map<string, number>();
  const fits = claimed.filter((e) => {
    const n = taken.get(e.accountId) ?? 0;
    if (n >= options.roomOf(e.accountId)) return false;
    taken.set(e.accountId, n + 1);
    return true;
  });
  claimed.splice(0, claimed.length, ...fits.slice(0, max));
  const idle = heldIds.filter((id) => !claimed.some((e) => e.feedId === id));
  if (idle.length > 0) await releaseFeeds(db, idle, leaseUntilTs);
  return { events: claimed, pauses, leaseUntilTs };
}

/** Lets go of feeds leased by claimDueEvents (PostgreSQL): only while the lease is still the one this node took. */
export async function releaseFeeds(db: Db, feedIds: string[], leaseUntilTs: number): Promise<void> {
  if (!isPg(db) || feedIds.length === 0) return;
  const { feeds } = tables(db);
  invalidateFeedCaches(db);
  await exec(
    db,
    db
      .update(feeds)
      .set({ webhookLeaseUntilTs: null })
      .where(and(inArray(feeds.id, feedIds), eq(feeds.webhookLeaseUntilTs, leaseUntilTs))),
  );
}

/** Why dropEvents ended an event (its last_error, as the deliveries list shows it). */
export const DROPPED_CHANNEL_DELETED = "The channel was deleted";
export const DROPPED_CHANNEL_REMOVED = "The channel is no longer on this feed";
export const DROPPED_MUTED = "Notifications are muted on this feed";

/**
 * Ends, in one statement, every event of these feeds not sent yet (pending, retrying, held for a digest, or a
 * digest's alerts and the digest itself), to `target` only when given: a deleted channel's, a channel taken
 * off a feed, a muted feed's. Without it the deliverer would find them one at a time, each costing a turn,
 * behind which other accounts waited. An event in flight meanwhile still books its own outcome. Returns how
 * many were ended.
 */
export function dropEvents(db: Db, feedIds: readonly string[], target: string | null, why: string): Promise<number> {
  if (feedIds.length === 0) return Promise.resolve(0);
  const feeds = feedIds.map(() => "?").join(", ");
  return rawExec(
    db,
    `feeds.dropEvents.${feedIds.length}.${target === null ? "all" : "one"}`,
    `UPDATE events SET status = 'skipped', next_attempt_at_ts = NULL, last_error = ?
     WHERE feed_id IN (${feeds}) ${target === null ? "" : "AND target = ?"} AND status IN ('pending', 'retrying', 'held', 'in_digest')`,
    [why, ...feedIds, ...(target === null ? [] : [target])],
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

/** Whether this job already reached this feed's target (its webhook, or one channel) since `sinceTs` (the 24-hour de-duplication). */
export async function deliveredRecently(db: Db, e: EventRow, sinceTs: number): Promise<boolean> {
  if (!e.jobCiphertext) return false;
  const hits = await rawMany(
    db,
    "webhooks.deliveredRecently",
    `SELECT 1 AS hit FROM events WHERE job_ciphertext = ? AND feed_id = ? AND target = ? AND seq != ? AND status = 'delivered' AND delivered_at_ts > ? LIMIT 1`,
    [e.jobCiphertext, e.feedId, e.target, e.seq, sinceTs],
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
 * transaction that books the attempt itself (delivery/repo.ts recordAttempt).
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

/**
 * The first successful delivery of each (job, target) among these feeds' events of one type: when the
 * webhook or channel first carried the job. A digest's alerts count from the digest's delivery (it settles them).
 */
export function firstDeliveries(
  db: Db,
  feedIds: readonly string[],
  type: string,
): Promise<{ feedId: string; jobCiphertext: string | null; target: string; deliveredAtTs: number | null }[]> {
  if (feedIds.length === 0) return Promise.resolve([]);
  const { events } = tables(db);
  return many(
    db,
    db
      .select({ feedId: events.feedId, jobCiphertext: events.jobCiphertext, target: events.target, deliveredAtTs: min(events.deliveredAtTs) })
      .from(events)
      .where(and(inArray(events.feedId, [...feedIds]), eq(events.type, type), eq(events.status, "delivered"), isNotNull(events.deliveredAtTs)))
      .groupBy(events.feedId, events.jobCiphertext, events.target),
  );
}

/** A feed's newest events to one target (a channel's recent deliveries through this feed). */
export function recentEventsTo(db: Db, feedId: string, target: string, limit: number): Promise<EventRow[]> {
  const { events } = tables(db);
  // Walks events_feed_idx from the newest: the feed's events to its other targets are passed over on the way.
  return many(
    db,
    db
      .select()
      .from(events)
      .where(and(eq(events.feedId, feedId), eq(events.target, target), sql`${events.status} != 'no_endpoint'`))
      .orderBy(desc(events.seq))
      .limit(limit),
  );
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
      .where(and(eq(events.feedId, feedId), eq(events.target, WEBHOOK_TARGET), eq(events.status, "failed")))
      .orderBy(desc(events.seq))
      .limit(1),
  );
  return row?.error ?? null;
}
