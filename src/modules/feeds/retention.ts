/**
 * Deleting old rows of the tables feeds owns (JOBPILOT_RETENTION_DAYS): settled outbox events and old feed
 * entries, a bounded batch per call, each call one short statement, so the maintenance task can pause between
 * calls and the hot path never waits long behind it. Neither table has an index on time (each index is paid by
 * every ingest), so both walk an index they have: events by `seq` (written in time order), entries per feed by
 * (feed_id, matched_at_ts).
 */
import { and, asc, eq, gt, gte, inArray, isNull, lt, notExists, notInArray, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, many, one, tables } from "../../db/query";

/** Events whose delivery is over: nothing will send them again unless someone asks (and a retry makes them pending first). */
export const SETTLED_EVENT_STATUSES = ["delivered", "failed", "suppressed", "skipped", "no_endpoint"];
/** Events still to send: their feed entries are kept. */
const UNSETTLED_EVENT_STATUSES = ["pending", "retrying"];

/**
 * The seq of the first event written at or after `ts`, or null when every event is older. Events are written in
 * seq order, so everything older lies before it: later calls walk seq up to it instead of scanning for old rows.
 */
export async function firstEventSeqSince(db: Db, ts: number): Promise<number | null> {
  const { events } = tables(db);
  const row = await one(db, db.select({ seq: events.seq }).from(events).where(gte(events.createdAtTs, ts)).orderBy(asc(events.seq)).limit(1));
  return row ? Number(row.seq) : null;
}

/**
 * Deletes up to `limit` settled events created before `olderThanTs` with seq in (afterSeq, beforeSeq), oldest
 * first, in one statement; their delivery attempts go with them (ON DELETE CASCADE). The status is checked again
 * by the DELETE itself, so an event a retry made pending meanwhile stays. Returns the seqs deleted.
 */
export async function deleteSettledEvents(db: Db, opts: { olderThanTs: number; afterSeq: number; beforeSeq: number | null; limit: number }): Promise<number[]> {
  const { events } = tables(db);
  const batch = db
    .select({ seq: events.seq })
    .from(events)
    .where(
      and(
        gt(events.seq, opts.afterSeq),
        opts.beforeSeq === null ? undefined : lt(events.seq, opts.beforeSeq),
        lt(events.createdAtTs, opts.olderThanTs),
        inArray(events.status, SETTLED_EVENT_STATUSES),
      ),
    )
    .orderBy(asc(events.seq))
    .limit(opts.limit);
  const deleted = await many(
    db,
    db
      .delete(events)
      .where(and(inArray(events.status, SETTLED_EVENT_STATUSES), inArray(events.seq, batch)))
      .returning({ seq: events.seq }),
  );
  return deleted.map((r) => Number(r.seq)).sort((a, b) => a - b);
}

/**
 * Where a walk through one feed's old entries has got to: the match time it reached, and the entries at that
 * time it looked at and kept (the ones it deleted are gone). Entries go in index order, by match time alone: a
 * tie-break on id would make the database sort every old entry of the feed on each call, and one ingest batch
 * gives a feed many entries of the same time.
 */
export interface EntryCursor {
  matchedAtTs: number;
  keptIds: string[];
}

export interface OldEntry {
  id: string;
  accountId: string;
  jobCiphertext: string;
  matchedAtTs: number;
}

/** No event of the entry's job in its feed is still to be sent (the deliverer reads the entry to build it). */
function noEventToSend(db: Db) {
  const { events, feedJobs } = tables(db);
  return notExists(
    db
      .select({ seq: events.seq })
      .from(events)
      .where(and(eq(events.jobCiphertext, feedJobs.jobCiphertext), eq(events.feedId, feedJobs.feedId), inArray(events.status, UNSETTLED_EVENT_STATUSES))),
  );
}

/**
 * Up to `limit` of a feed's entries matched before `olderThanTs`, from `cursor` on, oldest first, that the feed
 * itself does not need: not starred, and no event of theirs still to send. (Entries the account applied for are
 * the applications module's to tell; the caller asks it.)
 */
export async function oldEntriesOfFeed(db: Db, feedId: string, olderThanTs: number, cursor: EntryCursor | null, limit: number): Promise<OldEntry[]> {
  const { feedJobs } = tables(db);
  const rows = await many(
    db,
    db
      .select({ id: feedJobs.id, accountId: feedJobs.accountId, jobCiphertext: feedJobs.jobCiphertext, matchedAtTs: feedJobs.matchedAtTs })
      .from(feedJobs)
      .where(
        and(
          eq(feedJobs.feedId, feedId),
          lt(feedJobs.matchedAtTs, olderThanTs),
          cursor
            ? or(
                gt(feedJobs.matchedAtTs, cursor.matchedAtTs),
                and(eq(feedJobs.matchedAtTs, cursor.matchedAtTs), cursor.keptIds.length > 0 ? notInArray(feedJobs.id, cursor.keptIds) : undefined),
              )
            : undefined,
          isNull(feedJobs.starredAtTs),
          noEventToSend(db),
        ),
      )
      .orderBy(asc(feedJobs.matchedAtTs))
      .limit(limit),
  );
  return rows.map((r) => ({ ...r, matchedAtTs: Number(r.matchedAtTs) }));
}

/** Deletes these entries, checking again in the same statement that none was starred or got an event to send. Returns how many went. */
export async function deleteEntries(db: Db, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { feedJobs } = tables(db);
  return exec(db, db.delete(feedJobs).where(and(inArray(feedJobs.id, [...ids]), isNull(feedJobs.starredAtTs), noEventToSend(db))));
}

/** The ids of every feed (the entry walk goes feed by feed, along the (feed_id, matched_at_ts) index). */
export async function feedIds(db: Db): Promise<string[]> {
  const { feeds } = tables(db);
  return (await many(db, db.select({ id: feeds.id }).from(feeds).orderBy(asc(feeds.id)))).map((r) => r.id);
}
