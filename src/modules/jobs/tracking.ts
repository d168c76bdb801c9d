import type { Db } from "../../db/client";
import { countsOf, recordCheck, startTracking, type TrackingState } from "./activity";
import { normalizeJob } from "./normalize";
import * as repo from "./repo";

/**
 * The proposal-activity tracker's bookkeeping. A job is watched from the
 * moment it enters a feed or is applied to; every newer document of it (a
 * re-ingest, or the tracker re-reading it from its source) is one check.
 */
export async function ensureTracked(db: Db, ciphertext: string, document: unknown, nowTs: number): Promise<void> {
  const state = startTracking(countsOf(document), nowTs);
  await repo.insertTrackingIfAbsent(db, {
    jobCiphertext: ciphertext,
    active: state.active, // a job already closed or filled at its first check is not watched
    state: state as unknown as Record<string, unknown>,
    lastCheckedAtTs: nowTs,
  });
}

/** ensureTracked for a batch of jobs (each once), in one statement per chunk. */
export async function ensureTrackedMany(db: Db, jobs: readonly { ciphertext: string; document: unknown; nowTs: number }[]): Promise<void> {
  await repo.insertTrackingsIfAbsent(
    db,
    jobs.map(({ ciphertext, document, nowTs }) => {
      const state = startTracking(countsOf(document), nowTs);
      return { jobCiphertext: ciphertext, active: state.active, state: state as unknown as Record<string, unknown>, lastCheckedAtTs: nowTs };
    }),
  );
}

/** Records a newer document of a watched job as a check; does nothing for jobs nobody watches. */
export async function checkTracked(db: Db, ciphertext: string, document: unknown, nowTs: number, maxAgeMs: number): Promise<void> {
  const row = await repo.findTracking(db, ciphertext);
  if (!row?.active) return;
  const normalized = normalizeJob(document);
  const state = recordCheck(row.state as unknown as TrackingState, countsOf(document), nowTs, {
    publishTimeTs: normalized.ok ? normalized.job.publishTimeTs : null,
    maxAgeMs,
  });
  await repo.saveTracking(db, ciphertext, state as unknown as Record<string, unknown>, state.active, nowTs);
}
