import { inArray } from "drizzle-orm";
import { exclusive, tx, type Db } from "../../db/client";
import { rawStatement } from "../../db/prepared";
import { webhookAttempts } from "../../db/schema";
import { recordEventAttempt, type EventRow } from "../feeds/outbox";

export type AttemptRow = typeof webhookAttempts.$inferSelect;

/**
 * Books one attempt and the event's new state in one transaction: delivered,
 * retrying at `nextAttemptAtTs`, or failed for good. The attempt is this
 * module's row; the event's state is written by its owner (feeds/outbox.ts).
 */
export function recordAttempt(
  db: Db,
  e: EventRow,
  attempt: { startedAtTs: number; durationMs: number; statusCode: number | null; error: string | null },
  next: { status: "delivered" | "retrying" | "failed"; nextAttemptAtTs: number | null },
): Promise<void> {
  // One delivery, one commit; the insert is prepared once (this runs for every webhook sent).
  return tx(db, async (t) => {
    await exclusive(t, () => {
      rawStatement(
        t,
        "webhooks.insertAttempt",
        "INSERT INTO webhook_attempts (event_seq, attempt, started_at_ts, duration_ms, status_code, error) VALUES (?, ?, ?, ?, ?, ?)",
      ).run(e.seq, e.attempts + 1, attempt.startedAtTs, attempt.durationMs, attempt.statusCode, attempt.error);
    });
    await recordEventAttempt(t, e, attempt, next);
  });
}

export function attemptsOf(db: Db, seqs: number[]): Promise<AttemptRow[]> {
  return exclusive(db, () => {
    if (seqs.length === 0) return [];
    return db.select().from(webhookAttempts).where(inArray(webhookAttempts.eventSeq, seqs)).orderBy(webhookAttempts.eventSeq, webhookAttempts.attempt).all();
  });
}
