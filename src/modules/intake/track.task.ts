import type { Db } from "../../db/client";
import type { Metrics } from "../../metrics";
import type { Clock } from "../../lib/clock";
import type { JobSource } from "../../sources/source";
import type { FeedIndex } from "../feeds/matcher";
import type { JobDocument } from "../../sources/document";
import { dueTracking, findJob } from "../jobs/repo";
import { ingestDocuments } from "./ingest";

export const TRACK_TASK = "jobs.track";
/** A watched job is re-read at most this often, whatever the schedule. */
const MIN_INTERVAL_MS = 5 * 60_000;

export interface TrackDeps {
  db: Db;
  clock: Clock;
  feedIndex: FeedIndex;
  wake: () => void;
  config: { trackerBudget: number; trackerMaxAgeDays: number };
  metrics: Metrics;
}

/**
 * The tracker task (enqueued by the scheduler): re-reads up to the budget of
 * watched jobs, least recently checked first, through the source each came
 * from, and ingests what it read — ingestion records the check, so the tracker
 * and a user re-ingesting the same job count the same way. Jobs whose source
 * cannot re-read (no `reread`, or no such source: push, capture) are checked
 * when they are ingested again.
 */
export async function trackJobs(deps: TrackDeps, sourceNamed: (name: string) => JobSource | undefined): Promise<void> {
  const now = deps.clock.now();
  const due = await dueTracking(deps.db, now - MIN_INTERVAL_MS, deps.config.trackerBudget);
  const docsBySource = new Map<string, JobDocument[]>();
  for (const { jobCiphertext, source: name } of due) {
    const source = sourceNamed(name);
    if (!source?.reread) continue;
    const row = await findJob(deps.db, jobCiphertext);
    if (!row) continue;
    const doc = await source.reread(row.document as JobDocument, now);
    const docs = docsBySource.get(name);
    if (docs) docs.push(doc);
    else docsBySource.set(name, [doc]);
  }
  for (const [name, docs] of docsBySource) await ingestDocuments(deps, docs, { source: name });
}
