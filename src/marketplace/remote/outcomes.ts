/**
 * What a remote submitter (bridge or companion) reported for each application,
 * kept in a table so a restart can find it, plus the in-process waiters a
 * submit() blocks on. The rules both drivers follow live here once:
 *   - the first outcome wins, except `logged_out` (nothing reached the marketplace), which a later attempt replaces;
 *   - a submit whose application already has an outcome returns it instead of sending again;
 *   - lookup answers from the table first, and treats `logged_out` as "no record" (safe to send).
 *
 * The Connects an applied outcome reported are stored in the same row, so a submit on another node or after a
 * restart reads them with the outcome.
 */
import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import type { SubmitOutcome } from "../driver";
import { isFinalStatus, toOutcome } from "./operations";
import * as repo from "./repo";

export type LookupAnswer = SubmitOutcome | null | "unknown";

export interface OutcomeStore {
  stored(applicationId: string): Promise<SubmitOutcome | null>;
  /** Stores an outcome (first one wins, see repo.recordOutcome), wakes the submits waiting for it, and returns what is stored. */
  record(applicationId: string, outcome: SubmitOutcome): Promise<SubmitOutcome>;
  /** The start of a submission: a known final outcome (do not send again), else null after forgetting a stale logged_out. */
  beforeSubmit(applicationId: string): Promise<SubmitOutcome | null>;
  /** Resolves with the outcome once stored (already stored counts), or null after `waitMs`. */
  wait(applicationId: string, waitMs: number): Promise<SubmitOutcome | null>;
  /** lookup(): the stored outcome, else what `ask` learns from the submitter (stored when it is an outcome). */
  reconcile(applicationId: string, ask: () => Promise<LookupAnswer>): Promise<LookupAnswer>;
  /** Submissions waiting in this process right now (tests and diagnostics). */
  waiting(): number;
}

export function createOutcomeStore(deps: { db: Db; clock: Clock }): OutcomeStore {
  // In-memory only: a waiter lives as long as one wait() call; the table is what survives a restart.
  const waiters = new Map<string, Set<(outcome: SubmitOutcome) => void>>();

  const fromRow = (row: repo.BridgeOutcomeRow): SubmitOutcome => {
    const outcome = toOutcome(row.status as Parameters<typeof toOutcome>[0], row.message);
    const balance = row.connectsAvailable === null ? {} : { connectsAvailable: row.connectsAvailable };
    return row.status === "applied" && row.connectsRequired !== null
      ? { ...outcome, connects: { required: row.connectsRequired, boost: row.boostConnects ?? 0 }, ...balance }
      : { ...outcome, ...balance };
  };

  async function stored(applicationId: string): Promise<SubmitOutcome | null> {
    const row = await repo.findOutcome(deps.db, applicationId);
    return row && isFinalStatus(row.status) ? fromRow(row) : null;
  }

  async function record(applicationId: string, outcome: SubmitOutcome): Promise<SubmitOutcome> {
    // The Connects are written with the report that wins the row (first one wins), never with one it refuses.
    const receivedAtTs = deps.clock.now();
    const row = await repo.recordOutcome(deps.db, {
      applicationId,
      status: outcome.status,
      message: outcome.message,
      receivedAtTs,
      connectsRequired: outcome.connects?.required ?? null,
      boostConnects: outcome.connects?.boost ?? null,
      connectsAvailable: outcome.connectsAvailable ?? null,
    });
    // The balance is kept with the report that wins the row, so a submit on any node (or after a restart) reads it.
    const kept = isFinalStatus(row.status) ? fromRow(row) : outcome;
    for (const wake of waiters.get(applicationId) ?? []) wake(kept);
    return kept;
  }

  async function wait(applicationId: string, waitMs: number): Promise<SubmitOutcome | null> {
    // The waiter is registered before the stored outcome is read: an outcome recorded in between wakes it.
    let wake!: (outcome: SubmitOutcome | null) => void;
    const waiting = new Promise<SubmitOutcome | null>((resolve) => {
      let set = waiters.get(applicationId);
      if (!set) waiters.set(applicationId, (set = new Set()));
      const timer = setTimeout(() => wake(null), Math.max(0, waitMs));
      wake = (outcome) => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0 && waiters.get(applicationId) === set) waiters.delete(applicationId);
        resolve(outcome);
      };
      set.add(wake);
    });
    const already = await stored(applicationId);
    if (already) wake(already);
    return waiting;
  }

  return {
    stored,
    record,
    wait,
    waiting: () => [...waiters.values()].reduce((n, s) => n + s.size, 0),

    async beforeSubmit(applicationId) {
      const known = await stored(applicationId);
      if (known && known.status !== "logged_out") return known;
      await repo.clearLoggedOut(deps.db, applicationId);
      return null;
    },

    async reconcile(applicationId, ask) {
      const known = await stored(applicationId);
      // logged_out: the submitter did not submit, so sending again is not a duplicate.
      if (known) return known.status === "logged_out" ? null : known;
      const answer = await ask();
      if (answer === null || answer === "unknown") return answer;
      if (answer.status === "logged_out") return null;
      return record(applicationId, answer);
    },
  };
}
