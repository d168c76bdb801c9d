import { inArray } from "drizzle-orm";
import { tx, type Db } from "../../db/client";
import { many, rawExec, tables } from "../../db/query";
import type { webhookAttempts } from "../../db/schema";
import { recordEventAttempt, type EventRow } from "../feeds/outbox";
import { DIGEST_EVENT, settleDigestMembers } from "../feeds/outbox-digests";

export type AttemptRow = typeof webhookAttempts.$inferSelect;

export interface AttemptBooking {
  e: EventRow;
  attempt: { startedAtTs: number; durationMs: number; statusCode: number | null; error: string | null };
  next: { status: "delivered" | "retrying" | "failed"; nextAttemptAtTs: number | null };
}

/**
 * Books one attempt and the event's new state in one transaction: delivered,
 * retrying at `nextAttemptAtTs`, or failed for good. The attempt is this
 * module's row; the event's state is written by its owner (feeds/outbox.ts).
 */
export function recordAttempt(db: Db, e: EventRow, attempt: AttemptBooking["attempt"], next: AttemptBooking["next"]): Promise<void> {
  return recordAttempts(db, [{ e, attempt, next }]);
}

/**
 * Books several deliveries' attempts in one transaction: on SQLite with synchronous=FULL a commit is an
 * fsync, so one commit per delivery is what bounds a burst; the deliverer gathers the deliveries that end
 * together (see WebhookDeliverer.book). All or none: a failure rolls the whole batch back.
 */
export function recordAttempts(db: Db, bookings: AttemptBooking[]): Promise<void> {
  // Plain SQL: this runs for every webhook sent.
  return tx(db, async (t) => {
    for (const { e, attempt, next } of bookings) {
      await rawExec(
        t,
        "webhooks.insertAttempt",
        "INSERT INTO webhook_attempts (event_seq, attempt, started_at_ts, duration_ms, status_code, error) VALUES (?, ?, ?, ?, ?, ?)",
        [e.seq, e.attempts + 1, attempt.startedAtTs, attempt.durationMs, attempt.statusCode, attempt.error],
      );
      await recordEventAttempt(t, e, attempt, next);
      // A digest's alerts are settled with it, in this transaction: never sent twice, never lost.
      if (e.type === DIGEST_EVENT && next.status !== "retrying") {
        await settleDigestMembers(
          t,
          e.seq,
          next.status === "delivered"
            ? { status: "delivered", deliveredAtTs: attempt.startedAtTs + attempt.durationMs }
            : { status: "failed", error: `Its digest failed: ${attempt.error ?? "the platform refused it"}` },
        );
      }
    }
  });
}

export async function attemptsOf(db: Db, seqs: number[]): Promise<AttemptRow[]> {
  if (seqs.length === 0) return [];
  const { webhookAttempts } = tables(db);
  return many(db, db.select().from(webhookAttempts).where(inArray(webhookAttempts.eventSeq, seqs)).orderBy(webhookAttempts.eventSeq, webhookAttempts.attempt));
}
