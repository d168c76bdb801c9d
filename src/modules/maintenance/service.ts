/**
 * Retention (JOBPILOT_RETENTION_DAYS): what grows without bound and is only history after a while, deleted in
 * small batches by a background task, so on SQLite a request waits behind one batch at most. Whatever a record of
 * the spec still points at is kept (see docs/architecture.md, 'What retention keeps').
 */
import { tx, type Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import { deleteEndedBefore } from "../../marketplace/companion/repo";
import { jobsWithApplications } from "../applications/repo";
import { deleteEntries, deleteSettledEvents, feedIds, firstEventSeqSince, oldEntriesOfFeed, type EntryCursor } from "../feeds/retention";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionDeps {
  db: Db;
  clock: Clock;
}

export interface RetentionOptions {
  retentionDays: number;
  /** Most rows one batch deletes. */
  batchSize?: number;
  /** Pause between batches, so other writers get the database. */
  pauseMs?: number;
}

export interface RetentionResult {
  events: number;
  feedEntries: number;
  companionTasks: number;
}

export const DEFAULT_RETENTION_BATCH = 500;

/**
 * One batch of old feed entries of one feed: those the feed does not need (see oldEntriesOfFeed) and the
 * account did not apply for, checked and deleted in one transaction so an apply cannot slip in between.
 * Returns how many were deleted and where the walk got to (null when the feed has no older entries left to look at).
 */
export async function pruneFeedEntriesBatch(
  db: Db,
  feedId: string,
  olderThanTs: number,
  cursor: EntryCursor | null,
  limit: number,
): Promise<{ deleted: number; next: EntryCursor | null }> {
  return tx(db, async (t) => {
    const old = await oldEntriesOfFeed(t, feedId, olderThanTs, cursor, limit);
    if (old.length === 0) return { deleted: 0, next: null };
    // A feed's entries all belong to its account.
    const applied = await jobsWithApplications(
      t,
      old[0]!.accountId,
      old.map((e) => e.jobCiphertext),
    );
    const deleted = await deleteEntries(
      t,
      old.filter((e) => !applied.has(e.jobCiphertext)).map((e) => e.id),
    );
    if (old.length < limit) return { deleted, next: null };
    // The next call starts at the last match time seen, past the entries kept there (now and in earlier calls).
    const lastTs = old[old.length - 1]!.matchedAtTs;
    const keptIds = old.filter((e) => e.matchedAtTs === lastTs && applied.has(e.jobCiphertext)).map((e) => e.id);
    if (cursor?.matchedAtTs === lastTs) keptIds.push(...cursor.keptIds);
    return { deleted, next: { matchedAtTs: lastTs, keptIds } };
  });
}

/** Deletes what is past retention, batch by batch; returns how many rows of each kind went. 0 days keeps everything. */
export async function pruneOldRows(deps: RetentionDeps, opts: RetentionOptions): Promise<RetentionResult> {
  const result: RetentionResult = { events: 0, feedEntries: 0, companionTasks: 0 };
  if (opts.retentionDays <= 0) return result;
  const limit = opts.batchSize ?? DEFAULT_RETENTION_BATCH;
  const pause = () => Bun.sleep(opts.pauseMs ?? 10);
  const olderThanTs = deps.clock.now() - opts.retentionDays * DAY_MS;

  // Events first: an entry whose event is still on record is then usually free to go too.
  const beforeSeq = await firstEventSeqSince(deps.db, olderThanTs);
  for (let afterSeq = 0; ; ) {
    const seqs = await deleteSettledEvents(deps.db, { olderThanTs, afterSeq, beforeSeq, limit });
    result.events += seqs.length;
    if (seqs.length < limit) break;
    afterSeq = seqs[seqs.length - 1]!;
    await pause();
  }

  for (const feedId of await feedIds(deps.db)) {
    let cursor: EntryCursor | null = null;
    do {
      const batch: Awaited<ReturnType<typeof pruneFeedEntriesBatch>> = await pruneFeedEntriesBatch(deps.db, feedId, olderThanTs, cursor, limit);
      result.feedEntries += batch.deleted;
      cursor = batch.next;
      if (batch.deleted > 0) await pause();
    } while (cursor);
  }

  for (;;) {
    const n = await deleteEndedBefore(deps.db, olderThanTs, limit);
    result.companionTasks += n;
    if (n < limit) break;
    await pause();
  }
  return result;
}
