import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import type { FeedIndex } from "../feeds/matcher";
import { evolveSandboxJob } from "../../sources/sandbox/evolve";
import type { JobDocument } from "./document";
import { ingestDocuments } from "../intake/ingest";
import { dueTracking, findJob } from "./repo";

export const TRACK_TASK = "jobs.track";
/** A watched job is re-read at most this often, whatever the schedule. */
const MIN_INTERVAL_MS = 5 * 60_000;
/** Sources jobpilot can read a job from again; jobs from other sources are checked when they are ingested again. */
const REREADABLE = new Set(["sandbox"]);

export interface TrackDeps {
  db: Db;
  clock: Clock;
  feedIndex: FeedIndex;
  wake: () => void;
  config: { trackerBudget: number; trackerMaxAgeDays: number };
}

/**
 * The tracker task (enqueued by the scheduler): re-reads up to the budget of
 * watched jobs, least recently checked first, and ingests what it read —
 * ingestion records the check, so the tracker and a user re-ingesting the same
 * job count the same way.
 */
export function trackJobs(deps: TrackDeps): void {
  const now = deps.clock.now();
  const due = dueTracking(deps.db, now - MIN_INTERVAL_MS, deps.config.trackerBudget).filter((j) => REREADABLE.has(j.source));
  const docs: JobDocument[] = [];
  for (const { jobCiphertext } of due) {
    const row = findJob(deps.db, jobCiphertext);
    if (row) docs.push(evolveSandboxJob(row.document as JobDocument, now));
  }
  if (docs.length) ingestDocuments(deps, docs, { source: "sandbox" });
}
