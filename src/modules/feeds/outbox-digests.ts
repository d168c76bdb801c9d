/**
 * Digests in the outbox (the events table, owned here). A channel in digest
 * mode, or in its quiet hours, does not get its alerts one by one: the
 * deliverer holds each (`held`, next_attempt_at_ts = when its digest goes; see
 * channels/schedule.ts). When that time comes, closeWindow turns the held
 * alerts of a (feed, channel) into one `channel.digest` event, in one
 * transaction: the digest row is written and owns its alerts (`in_digest`,
 * digest_seq) before anything is sent. From there the digest is an ordinary
 * event of the channel (claimed, paced, retried, booked, listed), and booking
 * it settles its alerts in the same transaction (delivery/repo.ts). So a crash
 * before the close leaves the alerts held (closed on the next round), one
 * after it leaves the digest due: it goes out once, with the same alerts.
 */
import type { Db } from "../../db/client";
import { tx } from "../../db/client";
import { count, inArray } from "drizzle-orm";
import { many, rawExec, rawMany, tables } from "../../db/query";
import { newId } from "../../lib/ids";
import { type EventRow, insertEventReturningSeq } from "./outbox";

/** The event that carries a (feed, channel)'s held alerts as one message. */
export const DIGEST_EVENT = "channel.digest";

/** Holds a channel alert until `untilTs`, when its digest goes (out of the due index until then). */
export async function holdEvent(db: Db, seq: number, untilTs: number): Promise<void> {
  await rawExec(db, "digests.hold", "UPDATE events SET status = 'held', next_attempt_at_ts = ?, last_error = NULL WHERE seq = ?", [untilTs, seq]);
}

/** Whether this job is already waiting for a digest of this (feed, channel): the 24 h de-duplication for alerts not sent yet. */
export async function isHeldAlready(db: Db, e: Pick<EventRow, "seq" | "jobCiphertext" | "feedId" | "target">): Promise<boolean> {
  if (!e.jobCiphertext) return false;
  const hits = await rawMany(
    db,
    "digests.heldAlready",
    `SELECT 1 AS hit FROM events WHERE job_ciphertext = ? AND feed_id = ? AND target = ? AND seq != ? AND status IN ('held', 'in_digest') LIMIT 1`,
    [e.jobCiphertext, e.feedId, e.target, e.seq],
  );
  return hits.length > 0;
}

/** (feed, channel) pairs with held alerts whose digest is due at `nowTs`. */
export async function endedWindows(db: Db, nowTs: number, limit: number): Promise<{ feedId: string; target: string }[]> {
  return rawMany(db, "digests.ended", `SELECT DISTINCT feed_id AS "feedId", target FROM events WHERE status = 'held' AND next_attempt_at_ts <= ? LIMIT ?`, [
    nowTs,
    limit,
  ]);
}

/**
 * Makes the due held alerts of one (feed, channel) into a digest event, due now, in one transaction; returns
 * its seq, or null when there was nothing to close (another node, or an earlier round, did it).
 */
export function closeWindow(db: Db, feedId: string, target: string, nowTs: number): Promise<number | null> {
  return tx(db, async (t) => {
    const held = await rawMany<{ seq: number | string; accountId: string }>(
      t,
      "digests.heldOf",
      `SELECT seq, account_id AS "accountId" FROM events WHERE feed_id = ? AND target = ? AND status = 'held' AND next_attempt_at_ts <= ? ORDER BY seq`,
      [feedId, target, nowTs],
    );
    if (held.length === 0) return null;
    const seq = await insertEventReturningSeq(t, {
      id: `evt_${newId()}`,
      type: DIGEST_EVENT,
      accountId: held[0]!.accountId,
      feedId,
      target,
      feedJobId: null,
      jobCiphertext: null,
      createdAtTs: nowTs,
      status: "pending",
      nextAttemptAtTs: nowTs,
    });
    await rawExec(
      t,
      "digests.own",
      `UPDATE events SET status = 'in_digest', digest_seq = ?, next_attempt_at_ts = NULL WHERE feed_id = ? AND target = ? AND status = 'held' AND next_attempt_at_ts <= ?`,
      [seq, feedId, target, nowTs],
    );
    return seq;
  });
}

/** One alert of a digest, with its feed entry's matching score (null once the entry is gone). */
export type DigestMember = Pick<EventRow, "seq" | "id" | "type" | "feedJobId" | "jobCiphertext" | "createdAtTs"> & { matchingScore: number | null };

/** A digest's alerts, best matching score first (then oldest first). */
export async function digestMembers(db: Db, digestSeq: number): Promise<DigestMember[]> {
  const rows = await rawMany<DigestMember & { seq: number | string; createdAtTs: number | string; matchingScore: number | string | null }>(
    db,
    "digests.members",
    `SELECT e.seq, e.id, e.type, e.feed_job_id AS "feedJobId", e.job_ciphertext AS "jobCiphertext", e.created_at_ts AS "createdAtTs",
            fj.matching_score AS "matchingScore"
     FROM events e LEFT JOIN feed_jobs fj ON fj.id = e.feed_job_id WHERE e.digest_seq = ?`,
    [digestSeq],
  );
  return rows
    .map((r) => ({
      ...r,
      seq: Number(r.seq),
      createdAtTs: Number(r.createdAtTs),
      matchingScore: r.matchingScore === null ? null : Number(r.matchingScore),
    }))
    .sort((a, b) => (b.matchingScore ?? -1) - (a.matchingScore ?? -1) || a.seq - b.seq);
}

/**
 * A digest's alerts take its outcome: delivered (at `deliveredAtTs`, which the 24 h de-duplication reads),
 * failed or skipped with its reason. Called in the transaction that books (or skips) the digest.
 */
export async function settleDigestMembers(
  db: Db,
  digestSeq: number,
  outcome: { status: "delivered"; deliveredAtTs: number } | { status: "failed" | "skipped"; error: string },
): Promise<void> {
  await rawExec(db, "digests.settle", "UPDATE events SET status = ?, delivered_at_ts = ?, last_error = ? WHERE digest_seq = ? AND status = 'in_digest'", [
    outcome.status,
    outcome.status === "delivered" ? outcome.deliveredAtTs : null,
    outcome.status === "delivered" ? null : outcome.error,
    digestSeq,
  ]);
}

/** The event ids of these digests by seq (the deliveries list names the digest each alert went in). */
export async function digestIds(db: Db, seqs: readonly number[]): Promise<Map<number, string>> {
  if (seqs.length === 0) return new Map();
  const { events } = tables(db);
  const rows = await many(
    db,
    db
      .select({ seq: events.seq, id: events.id })
      .from(events)
      .where(inArray(events.seq, [...seqs])),
  );
  return new Map(rows.map((r) => [Number(r.seq), r.id]));
}

/** How many alerts each of these digests carries. */
export async function digestSizes(db: Db, seqs: readonly number[]): Promise<Map<number, number>> {
  if (seqs.length === 0) return new Map();
  const { events } = tables(db);
  const rows = await many(
    db,
    db
      .select({ digestSeq: events.digestSeq, n: count() })
      .from(events)
      .where(inArray(events.digestSeq, [...seqs]))
      .groupBy(events.digestSeq),
  );
  return new Map(rows.map((r) => [Number(r.digestSeq), Number(r.n)]));
}

/** Ends a digest without sending it (its channel was deleted, taken off the feed, the feed muted…), and its alerts with it. */
export function skipDigest(db: Db, digestSeq: number, why: string): Promise<void> {
  return tx(db, async (t) => {
    await rawExec(t, "digests.skip", "UPDATE events SET status = 'skipped', next_attempt_at_ts = NULL, last_error = ? WHERE seq = ?", [why, digestSeq]);
    await settleDigestMembers(t, digestSeq, { status: "skipped", error: why });
  });
}
