/**
 * Speed to lead: how long each job took from its publish time to every stage jobpilot and the account took it
 * through. Every time is read from the table's owner (jobs, feeds and its outbox, proposals, applications), so
 * analytics owns no table and writes nothing.
 */
import type { Db } from "../../db/client";
import { AppError, notFound } from "../../errors";
import { listApplications } from "../applications/repo";
import { JOB_MATCHED_EVENT } from "../feeds/admit";
import { firstDeliveries } from "../feeds/outbox";
import { entryTimesOfFeeds, findFeed, listFeeds } from "../feeds/repo";
import { jobTimes } from "../jobs/repo";
import { firstDrafts } from "../proposals/repo";
import type { AuthContext } from "../accounts/service";
import type { SpeedQuery, SpeedResponse, StageSpeed } from "./model";

export interface AnalyticsDeps {
  db: Db;
}

/** Applications are read a page at a time through their owner's list. */
const APPLICATION_PAGE = 500;

/** The earliest of a job's times for one stage (several feeds, targets or applications may reach it). */
function keepEarliest(map: Map<string, number>, key: string, ts: number | null): void {
  if (ts === null) return;
  const known = map.get(key);
  if (known === undefined || ts < known) map.set(key, ts);
}

/** Nearest-rank percentile of sorted values: an observed duration, never an interpolation between two jobs. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function stageSpeed(durationsMs: number[]): StageSpeed {
  if (durationsMs.length === 0) return { count: 0, p50Ms: null, p90Ms: null, p99Ms: null };
  const sorted = [...durationsMs].sort((a, b) => a - b);
  return { count: sorted.length, p50Ms: percentile(sorted, 50), p90Ms: percentile(sorted, 90), p99Ms: percentile(sorted, 99) };
}

/** Every applied application of the account: when each job was first submitted. */
async function submittedTimes(db: Db, accountId: string): Promise<Map<string, number>> {
  const submitted = new Map<string, number>();
  for (let offset = 0; ; offset += APPLICATION_PAGE) {
    const { items } = await listApplications(db, accountId, { limit: APPLICATION_PAGE, offset, status: "applied" });
    for (const { app } of items) keepEarliest(submitted, app.jobCiphertext, app.processedAtTs ?? app.appliedAtTs);
    if (items.length < APPLICATION_PAGE) return submitted;
  }
}

/**
 * GET /api/v1/analytics/speed. The jobs counted are those the account was alerted about (a delivered alert) or
 * applied to; each stage is the earliest time the job reached it among the feeds in scope (a job in two feeds
 * was scored and alerted when its first feed did), minus the job's publish time.
 */
export async function speedToLead(deps: AnalyticsDeps, auth: AuthContext, query: SpeedQuery): Promise<SpeedResponse> {
  const { db } = deps;
  if (query.from !== undefined && query.to !== undefined && query.from >= query.to) throw new AppError("bad_request", "from must be before to");
  let feedIds: string[];
  if (query.feedId !== undefined) {
    if (!(await findFeed(db, auth.accountId, query.feedId))) throw notFound("Feed not found");
    feedIds = [query.feedId];
  } else feedIds = (await listFeeds(db, auth.accountId)).map((f) => f.id);

  const scored = new Map<string, number>();
  for (const e of await entryTimesOfFeeds(db, feedIds)) keepEarliest(scored, e.jobCiphertext, e.matchedAtTs);
  const alerted = new Map<string, number>();
  const alertedPerTarget = new Map<string, Map<string, number>>();
  for (const d of await firstDeliveries(db, feedIds, JOB_MATCHED_EVENT)) {
    if (d.jobCiphertext === null) continue;
    keepEarliest(alerted, d.jobCiphertext, d.deliveredAtTs);
    let perJob = alertedPerTarget.get(d.target);
    if (!perJob) alertedPerTarget.set(d.target, (perJob = new Map()));
    keepEarliest(perJob, d.jobCiphertext, d.deliveredAtTs);
  }
  const submitted = await submittedTimes(db, auth.accountId);
  // With a feed named, an application counts when its job is in that feed.
  if (query.feedId !== undefined) for (const job of submitted.keys()) if (!scored.has(job)) submitted.delete(job);

  const candidates = [...new Set([...alerted.keys(), ...submitted.keys()])];
  const times = await jobTimes(db, candidates);
  const drafted = await firstDrafts(db, auth.accountId, candidates);

  const durations = { firstSeen: [] as number[], scored: [] as number[], alerted: [] as number[], drafted: [] as number[], submitted: [] as number[] };
  const perTarget = new Map<string, number[]>();
  let jobs = 0;
  let withoutPublishTime = 0;
  const since = (publishTs: number, ts: number | undefined, into: number[]) => {
    if (ts !== undefined) into.push(ts - publishTs);
  };
  for (const job of candidates) {
    const t = times.get(job);
    if (!t || (query.source !== undefined && t.source !== query.source)) continue;
    if (t.publishTimeTs === null) {
      withoutPublishTime++;
      continue;
    }
    if ((query.from !== undefined && t.publishTimeTs < query.from) || (query.to !== undefined && t.publishTimeTs >= query.to)) continue;
    jobs++;
    since(t.publishTimeTs, t.firstSeenAtTs, durations.firstSeen);
    since(t.publishTimeTs, scored.get(job), durations.scored);
    since(t.publishTimeTs, alerted.get(job), durations.alerted);
    since(t.publishTimeTs, drafted.get(job), durations.drafted);
    since(t.publishTimeTs, submitted.get(job), durations.submitted);
    for (const [target, perJob] of alertedPerTarget) {
      const ts = perJob.get(job);
      if (ts === undefined) continue;
      let list = perTarget.get(target);
      if (!list) perTarget.set(target, (list = []));
      list.push(ts - t.publishTimeTs);
    }
  }
  return {
    jobs,
    withoutPublishTime,
    stages: {
      firstSeen: stageSpeed(durations.firstSeen),
      scored: stageSpeed(durations.scored),
      alerted: stageSpeed(durations.alerted),
      drafted: stageSpeed(durations.drafted),
      submitted: stageSpeed(durations.submitted),
    },
    alertedByTarget: [...perTarget]
      .map(([target, list]) => ({ target, ...stageSpeed(list) }))
      .sort((a, b) => b.count - a.count || a.target.localeCompare(b.target)),
  };
}
