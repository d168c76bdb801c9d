/**
 * Speed to lead: how long each job took from its publish time to every stage jobpilot and the account took it
 * through. Every time is read from the table's owner (jobs, feeds and its outbox, proposals, applications), so
 * analytics owns no table and writes nothing.
 */
import { and, gte, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { many } from "../../db/query";
import type { Clock } from "../../lib/clock";
import { wilson } from "../../lib/wilson";
import { listFreelancers } from "../../marketplace/driver";
import type { DriverDeps } from "../../marketplace/drivers";
import { driverFor } from "../accounts/drivers";
import { type SentFilter, sentProposals } from "../applications/facts";
import { AppError, notFound } from "../../errors";
import { funnelOf } from "../applications/funnel";
import { type ApplicationRow, listApplications } from "../applications/repo";
import { JOB_MATCHED_EVENT } from "../feeds/admit";
import { firstDeliveries } from "../feeds/outbox";
import { entryTimesOfFeeds, findFeed, listFeeds } from "../feeds/repo";
import { jobSummaries, jobTimes } from "../jobs/repo";
import { firstDrafts } from "../proposals/repo";
import type { AuthContext } from "../accounts/service";
import type { FunnelGroup, FunnelGroupBy, FunnelQuery, FunnelResponse, LedgerQuery, MinScoreSuggestion, SpeedQuery, SpeedResponse, StageSpeed } from "./model";
import { isKnownZone, zoneOffsetMs } from "../../lib/time-zone";
import { memberNames } from "../members/routing";

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

/** What the funnel analytics read beyond the database: the price of a Connect, the no-reply window, the drivers (freelancer names). */
export interface FunnelAnalyticsDeps extends AnalyticsDeps, DriverDeps {
  clock: Clock;
  config: DriverDeps["config"] & { connectPriceUsd: number; noReplyDays: number };
}

/** Below this many sent, a group's rates are not given: one reply in three says nothing. */
export const MIN_SENT_FOR_RATES = 10;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;

/** The buckets of the fixed dimensions, in the order they are listed (the open ones, feed/freelancer/source, go busiest first). */
const BUCKET_ORDER: Partial<Record<FunnelGroupBy, readonly string[]>> = {
  scoreBand: ["0-2", "3-4", "5-6", "7-8", "9-10", "unscored"],
  postAge: ["<15m", "15-60m", "1-6h", ">6h", "unknown"],
  bidRatio: ["<0.8", "0.8-1.0", "1.0-1.2", ">1.2", "unknown"],
  boost: ["boosted", "not boosted"],
  weekday: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"],
};

type Sent = ReturnType<typeof sentProposals>;

/** A UTC offset that holds from `startTs` on (until the next segment's start). */
interface OffsetSegment {
  startTs: number;
  offsetMs: number;
}

/** A number as a SQL literal: bucket bounds are ours, and literals keep each CASE identical wherever it is repeated. */
const lit = (n: number) => sql.raw(String(n));

/** The bucket expression of a dimension, over the sent proposal `a` (which carries its job's source and publish time). */
function bucketOf(groupBy: FunnelGroupBy | undefined, a: Sent, segments: OffsetSegment[]): SQL<string> {
  switch (groupBy) {
    case undefined:
      return sql<string>`'total'`;
    case "feed":
      return sql<string>`COALESCE(${a.feedId}, '')`;
    case "freelancer":
      // An expression, not the bare column (never null): grouping by the column lets SQLite walk
      // applications_governor_idx in its order and read every row, where the covering index answers (docs/performance.md).
      return sql<string>`COALESCE(${a.freelancerId}, '')`;
    case "member":
      // Who drafted it, else who sent it: a bidder's letter an admin approved is the bidder's proposal, as a
      // per-bidder reply rate must count it (an admin who sends their own draft is its drafter too).
      return sql<string>`COALESCE(${a.draftedBy}, ${a.sentBy}, '')`;
    case "source":
      return sql<string>`COALESCE(${a.source}, 'unknown')`;
    case "scoreBand":
      // Scores are 0–10 and may be fractional: a band holds its whole numbers and what lies between them (4.5 is 3-4).
      return sql<string>`CASE WHEN ${a.score} IS NULL THEN 'unscored' WHEN ${a.score} < 3 THEN '0-2' WHEN ${a.score} < 5 THEN '3-4' WHEN ${a.score} < 7 THEN '5-6' WHEN ${a.score} < 9 THEN '7-8' ELSE '9-10' END`;
    case "postAge": {
      const age = sql`(${a.processedAtTs} - ${a.publishTimeTs})`;
      return sql<string>`CASE WHEN ${a.publishTimeTs} IS NULL THEN 'unknown' WHEN ${age} < ${lit(15 * MINUTE_MS)} THEN '<15m' WHEN ${age} < ${lit(HOUR_MS)} THEN '15-60m' WHEN ${age} < ${lit(6 * HOUR_MS)} THEN '1-6h' ELSE '>6h' END`;
    }
    case "bidRatio":
      // Lower bounds inclusive; 1.0-1.2 also takes 1.2 itself, so ">1.2" means above it.
      return sql<string>`CASE WHEN ${a.bidRatio} IS NULL THEN 'unknown' WHEN ${a.bidRatio} < 0.8 THEN '<0.8' WHEN ${a.bidRatio} < 1.0 THEN '0.8-1.0' WHEN ${a.bidRatio} <= 1.2 THEN '1.0-1.2' ELSE '>1.2' END`;
    case "boost":
      return sql<string>`CASE WHEN ${a.boostBids} > 0 OR COALESCE(${a.boostConnects}, 0) > 0 THEN 'boosted' ELSE 'not boosted' END`;
    case "weekday": {
      // The local time is the sent time plus the offset of the segment it falls in; a week is added so the
      // division never meets a negative number (integer division truncates on both databases). Day 0 was a Thursday.
      let local: SQL = sql`(${a.processedAtTs} + ${lit(segments[0]!.offsetMs + 7 * DAY_MS)})`;
      if (segments.length > 1) {
        const whens = segments.slice(1).map((s, i) => sql` WHEN ${a.processedAtTs} < ${lit(s.startTs)} THEN ${lit(segments[i]!.offsetMs + 7 * DAY_MS)}`);
        const last = segments[segments.length - 1]!.offsetMs + 7 * DAY_MS;
        local = sql`(${a.processedAtTs} + CASE${sql.join(whens)} ELSE ${lit(last)} END)`;
      }
      const day = sql`((${local} / ${lit(DAY_MS)} + 4) % 7)`;
      return sql<string>`CASE ${day} ${sql.join(WEEKDAYS.map((name, i) => sql.raw(`WHEN ${i} THEN '${name}' `)))}END`;
    }
  }
}

/** The counts one group's figures are made of. */
interface Counts {
  sent: number;
  viewed: number;
  replied: number;
  interviews: number;
  hires: number;
  connectsSpent: number;
  valueUsd: number;
}

const cents = (usd: number) => Math.round(usd * 100) / 100;

/** A group's figures from its counts: the rates (with Wilson intervals) only from MIN_SENT_FOR_RATES sent on. */
export function groupOf(key: string, counts: Counts, connectPriceUsd: number, label?: string): FunnelGroup {
  const enough = counts.sent >= MIN_SENT_FOR_RATES;
  const costUsd = cents(counts.connectsSpent * connectPriceUsd);
  return {
    key,
    ...(label === undefined ? {} : { label }),
    sent: counts.sent,
    viewed: counts.viewed,
    replied: counts.replied,
    interviews: counts.interviews,
    hires: counts.hires,
    replyRate: enough ? counts.replied / counts.sent : null,
    replyRateCi95: enough ? wilson(counts.replied, counts.sent) : null,
    hireRate: enough ? counts.hires / counts.sent : null,
    hireRateCi95: enough ? wilson(counts.hires, counts.sent) : null,
    connectsSpent: counts.connectsSpent,
    costUsd,
    costPerReplyUsd: counts.replied === 0 ? null : cents(costUsd / counts.replied),
    costPerHireUsd: counts.hires === 0 ? null : cents(costUsd / counts.hires),
    valueUsd: cents(counts.valueUsd),
    enough,
  };
}

const countsOf = (g: Pick<FunnelGroup, keyof Counts>): Counts => ({
  sent: g.sent,
  viewed: g.viewed,
  replied: g.replied,
  interviews: g.interviews,
  hires: g.hires,
  connectsSpent: g.connectsSpent,
  valueUsd: g.valueUsd,
});

function sumCounts(groups: readonly Counts[]): Counts {
  const total: Counts = { sent: 0, viewed: 0, replied: 0, interviews: 0, hires: 0, connectsSpent: 0, valueUsd: 0 };
  for (const g of groups) for (const k of Object.keys(total) as (keyof Counts)[]) total[k] += g[k];
  return total;
}

/** The zone `tz` names, or the 400 naming tz when the runtime does not know it. */
function checkedZone(tz: string): string {
  if (!isKnownZone(tz)) throw new AppError("bad_request", `tz is not a known IANA time zone: ${tz}`);
  return tz;
}

/**
 * The offsets `tz` used between two times: one segment per offset change (daylight saving), found by stepping a
 * day at a time and narrowing each change to the minute. SQLite knows no time zones, so the weekday CASE carries
 * them; a few years of data make a dozen segments.
 */
export function offsetSegments(tz: string, fromTs: number, toTs: number): OffsetSegment[] {
  const segments: OffsetSegment[] = [{ startTs: fromTs, offsetMs: zoneOffsetMs(tz, fromTs) }];
  for (let ts = fromTs + DAY_MS; ts < toTs + DAY_MS; ts += DAY_MS) {
    const offset = zoneOffsetMs(tz, ts);
    const current = segments[segments.length - 1]!;
    if (offset === current.offsetMs) continue;
    let lo = ts - DAY_MS;
    let hi = ts;
    while (hi - lo > MINUTE_MS) {
      const mid = Math.floor((lo + hi) / 2 / MINUTE_MS) * MINUTE_MS;
      if (mid <= lo) break;
      if (zoneOffsetMs(tz, mid) === current.offsetMs) lo = mid;
      else hi = mid;
    }
    segments.push({ startTs: hi, offsetMs: offset });
  }
  return segments;
}

/** The checks funnel and ledger share: from before to, and feedId one of the caller's feeds (404 otherwise). */
async function checkFilters(db: Db, auth: AuthContext, query: LedgerQuery): Promise<void> {
  if (query.from !== undefined && query.to !== undefined && query.from >= query.to) throw new AppError("bad_request", "from must be before to");
  if (query.feedId !== undefined && !(await findFeed(db, auth.accountId, query.feedId))) throw notFound("Feed not found");
}

/** Freelancer names from the account's driver; none when it cannot list them now (the ids still group). */
async function freelancerNames(deps: FunnelAnalyticsDeps, accountId: string): Promise<Map<string, string>> {
  try {
    return new Map((await listFreelancers(await driverFor(deps, accountId), accountId)).map((f) => [f.id, f.name]));
  } catch {
    return new Map();
  }
}

/** Feed titles of the account; a feed id not among them was deleted since. */
async function feedTitles(db: Db, accountId: string): Promise<Map<string, string>> {
  return new Map((await listFeeds(db, accountId)).map((f) => [f.id, f.title]));
}

const feedLabel = (titles: Map<string, string>, feedId: string | null) =>
  feedId === null || feedId === "" ? "no feed" : (titles.get(feedId) ?? "deleted feed");

/**
 * The stage counts of a set of sent proposals, as SQL sums. Each later stage implies the earlier ones (funnelOf's
 * rule: a reply means it was viewed, an interview that it was replied to, a hire that there was an interview),
 * so a driver that never reported "viewed" does not make replied exceed viewed. A hire later lost still counts
 * as a hire (the hire time stays as history), but its value is gone, so valueUsd leaves it out.
 */
function stageSums(a: Sent) {
  const hired = sql`${a.hiredAtTs} IS NOT NULL`;
  const interview = sql`(${a.interviewAtTs} IS NOT NULL OR ${hired})`;
  const replied = sql`(${a.repliedAtTs} IS NOT NULL OR ${a.replied} OR ${interview})`;
  const viewed = sql`(${a.viewedAtTs} IS NOT NULL OR ${replied})`;
  const sum = (cond: SQL) => sql<number>`SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END)`;
  return {
    sent: sql<number>`COUNT(*)`,
    viewed: sum(viewed),
    replied: sum(replied),
    interviews: sum(interview),
    hires: sum(hired),
    // funnelOf's cost: nothing is known of a proposal whose driver did not say what submitting cost.
    connectsSpent: sql<number>`SUM(CASE WHEN ${a.connectsRequired} IS NULL THEN 0 ELSE ${a.connectsRequired} + COALESCE(${a.boostConnects}, 0) END)`,
    valueUsd: sql<number>`SUM(CASE WHEN ${hired} THEN COALESCE(${a.valueUsd}, 0) ELSE 0 END)`,
  };
}

/**
 * GET /api/v1/analytics/funnel: the account's sent proposals counted per stage, split by one dimension, in one
 * GROUP BY answered from applications_analytics_idx alone (each proposal carries its job's source and publish time
 * from apply time, so no job row is read). The total is the sum of the groups, since every proposal falls in exactly one.
 */
export async function funnelAnalytics(deps: FunnelAnalyticsDeps, auth: AuthContext, query: FunnelQuery): Promise<FunnelResponse> {
  const { db } = deps;
  const zone = query.tz === undefined ? null : checkedZone(query.tz);
  await checkFilters(db, auth, query);
  const filter = { accountId: auth.accountId, fromTs: query.from, toTs: query.to, feedId: query.feedId };
  let segments: OffsetSegment[] = [{ startTs: 0, offsetMs: 0 }];
  if (query.groupBy === "weekday" && zone !== null) {
    const range = await sentRange(db, filter);
    if (range) segments = offsetSegments(zone, range.min, range.max);
  }
  const a = sentProposals(db, filter);
  const joined = db.select({ key: bucketOf(query.groupBy, a, segments), ...stageSums(a) }).from(a);
  // By position: PostgreSQL would otherwise have to match the bucket's CASE, bound parameters and all, to the select's.
  // The total alone needs no grouping (on SQLite a GROUP BY, even of a constant, sorts every row).
  const rows = await many(db, query.groupBy === undefined ? joined : joined.groupBy(sql`1`));
  const price = deps.config.connectPriceUsd;
  const counted = rows.map((r) => ({
    key: String(r.key),
    counts: {
      sent: Number(r.sent),
      viewed: Number(r.viewed ?? 0),
      replied: Number(r.replied ?? 0),
      interviews: Number(r.interviews ?? 0),
      hires: Number(r.hires ?? 0),
      connectsSpent: Number(r.connectsSpent ?? 0),
      valueUsd: Number(r.valueUsd ?? 0),
    },
  }));
  const total = groupOf("total", sumCounts(counted.map((c) => c.counts)), price);
  if (query.groupBy === undefined) return { groups: [], total };

  const titles = query.groupBy === "feed" ? await feedTitles(db, auth.accountId) : null;
  const names = query.groupBy === "freelancer" ? await freelancerNames(deps, auth.accountId) : null;
  if (query.groupBy === "member") {
    const members = await memberNames(db, auth.accountId);
    const medians = await medianReplyByMember(db, filter);
    const groups = counted
      .map(({ key, counts }) => ({
        ...groupOf(key === "" ? "none" : key, counts, price, key === "" ? NO_MEMBER : (members.get(key) ?? "removed member")),
        medianReplyMs: medians.get(key) ?? null,
      }))
      .sort((x, y) => y.sent - x.sent || x.key.localeCompare(y.key));
    return { groups, total };
  }
  const groups = counted.map(({ key, counts }) => {
    if (titles) return groupOf(key === "" ? "none" : key, counts, price, feedLabel(titles, key));
    return groupOf(key, counts, price, names?.get(key));
  });
  const order = BUCKET_ORDER[query.groupBy];
  if (order) groups.sort((x, y) => order.indexOf(x.key) - order.indexOf(y.key));
  else groups.sort((x, y) => y.sent - x.sent || x.key.localeCompare(y.key));
  if (query.groupBy === "scoreBand") return { groups, total, suggestion: suggestMinScore(groups) };
  return { groups, total };
}

/** The member grouping's label for proposals no member sent or drafted. */
export const NO_MEMBER = "API key / automation";

/**
 * Per bucket, the median time from sending to the client's first reply over the replied proposals that have a
 * reply time (a driver may report a reply without one). Nearest rank, as the speed percentiles: an observed time.
 * The durations are read and ranked here, since SQLite has no percentile function.
 */
async function medianReplyByMember(db: Db, filter: SentFilter): Promise<Map<string, number>> {
  const a = sentProposals(db, filter);
  const bucket = bucketOf("member", a, []);
  const rows = await many(db, db.select({ key: bucket, sentAt: a.processedAtTs, repliedAt: a.repliedAtTs }).from(a).where(sql`${a.repliedAtTs} IS NOT NULL`));
  const byKey = new Map<string, number[]>();
  for (const r of rows) {
    const list = byKey.get(String(r.key)) ?? [];
    list.push(Math.max(0, Number(r.repliedAt) - Number(r.sentAt)));
    byKey.set(String(r.key), list);
  }
  return new Map(
    [...byKey].map(([key, list]) => [
      key,
      percentile(
        list.sort((x, y) => x - y),
        50,
      ),
    ]),
  );
}

/** The first and last send time within the filter (for the time zone's offsets); undefined when nothing was sent. */
async function sentRange(db: Db, filter: SentFilter): Promise<{ min: number; max: number } | undefined> {
  const a = sentProposals(db, filter);
  const [row] = await many(db, db.select({ min: sql<number>`MIN(${a.processedAtTs})`, max: sql<number>`MAX(${a.processedAtTs})` }).from(a));
  if (!row || row.min === null || row.max === null) return undefined;
  return { min: Number(row.min), max: Number(row.max) };
}

/** The lower bound of each score band, by its key. */
const BAND_FLOOR: Record<string, number> = { "0-2": 0, "3-4": 3, "5-6": 5, "7-8": 7, "9-10": 9 };

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/**
 * A minScore the score bands support raising to, or null. The rule, meant to be hard to satisfy by chance: for
 * a cut at a band's floor (3, 5, 7 or 9), every band below it that has proposals must have at least 10 sent and a
 * reply-rate interval lying wholly below the interval of all scored proposals together (upper bound under the
 * overall lower bound), and the bands kept must hold at least 10 sent. The highest such cut is suggested.
 * Unscored proposals take no part: a minScore would not have filtered them.
 */
export function suggestMinScore(bands: readonly FunnelGroup[]): MinScoreSuggestion | null {
  const scored = bands.filter((b) => BAND_FLOOR[b.key] !== undefined && b.sent > 0);
  const all = groupOf("scored", sumCounts(scored.map(countsOf)), 0);
  if (!all.enough || all.replyRateCi95 === null) return null;
  const overallLow = all.replyRateCi95[0]!;
  let best: { cut: number; below: FunnelGroup[] } | null = null;
  for (const cut of [3, 5, 7, 9]) {
    const below = scored.filter((b) => BAND_FLOOR[b.key]! < cut);
    const kept = scored.filter((b) => BAND_FLOOR[b.key]! >= cut);
    if (below.length === 0 || kept.reduce((n, b) => n + b.sent, 0) < MIN_SENT_FOR_RATES) continue;
    if (below.every((b) => b.enough && b.replyRateCi95 !== null && b.replyRateCi95[1]! < overallLow)) best = { cut, below };
  }
  if (!best) return null;
  const below = groupOf("below", sumCounts(best.below.map(countsOf)), 0);
  return {
    minScore: best.cut,
    reason:
      `Proposals scored below ${best.cut} got a reply ${pct(below.replyRate!)} of the time (${below.replied} of ${below.sent}), ` +
      `and every band below ${best.cut} is below the ${pct(all.replyRate!)} of all scored proposals with 95 % confidence ` +
      `(each band's upper bound is under the overall lower bound of ${pct(overallLow)}). ` +
      `A minScore of ${best.cut} would have skipped those ${below.sent} proposals and the ${below.connectsSpent} Connects they cost.`,
  };
}

/** The ledger's columns, in order (docs/analytics.md describes each). */
export const LEDGER_COLUMNS = [
  "queueId",
  "sentAt",
  "jobTitle",
  "jobUrl",
  "source",
  "feed",
  "freelancer",
  "score",
  "postAgeMinutes",
  "bidRatio",
  "boosted",
  "viewedAt",
  "repliedAt",
  "interviewAt",
  "hiredAt",
  "outcome",
  "outcomeAt",
  "valueUsd",
  "connectsRequired",
  "boostConnects",
  "connectsCostUsd",
] as const;

/** Rows read per statement: the CSV goes out a page at a time, never as one string of every row. */
const LEDGER_PAGE = 500;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled. A text that a
 * spreadsheet would run as a formula (starting with = + - @, or a tab or carriage return that hides one) gets a
 * leading ', since job titles are written by strangers. Numbers are ours and stay numbers (a negative one is
 * not a formula).
 */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvRow = (cells: (string | number | boolean | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;
const isoOrNull = (ts: number | null) => (ts === null ? null : new Date(ts).toISOString());

/**
 * GET /api/v1/analytics/ledger.csv: one row per sent proposal, oldest first, read a page at a time by
 * (sent time, id) so a long ledger neither builds one string nor holds the database between pages. The filters
 * are checked (400/404) before the first byte, so an error is still a JSON answer.
 */
export async function ledgerCsv(deps: FunnelAnalyticsDeps, auth: AuthContext, query: LedgerQuery): Promise<AsyncIterable<string>> {
  const { db } = deps;
  await checkFilters(db, auth, query);
  const titles = await feedTitles(db, auth.accountId);
  const names = await freelancerNames(deps, auth.accountId);
  const filter = { accountId: auth.accountId, fromTs: query.from, toTs: query.to, feedId: query.feedId };
  const config = { connectPriceUsd: deps.config.connectPriceUsd, noReplyDays: deps.config.noReplyDays };
  return (async function* () {
    yield csvRow([...LEDGER_COLUMNS]);
    let after: { ts: number; id: string } | null = null;
    for (;;) {
      const a = sentProposals(db, filter);
      const page: ApplicationRow[] = await many(
        db,
        db
          .select()
          .from(a)
          // The >= bound is what the index range starts from; the OR only skips the rows of that instant already sent.
          .where(after === null ? undefined : and(gte(a.processedAtTs, after.ts), sql`(${a.processedAtTs} > ${after.ts} OR ${a.id} > ${after.id})`))
          .orderBy(a.processedAtTs, a.id)
          .limit(LEDGER_PAGE),
      );
      // The page's jobs in one read by primary key: a join would let PostgreSQL hash the whole jobs table per page.
      const jobsOf = await jobSummaries(
        db,
        page.map((app) => app.jobCiphertext),
      );
      const now = deps.clock.now();
      let chunk = "";
      for (const app of page) {
        const job = jobsOf.get(app.jobCiphertext);
        const f = funnelOf(app, config, now);
        const sentAt = app.processedAtTs!;
        // The copies made at apply time, as the funnel groups by them.
        const publish = app.publishTimeTs;
        chunk += csvRow([
          app.id,
          isoOrNull(sentAt),
          job?.title ?? null,
          job?.url ?? null,
          app.source,
          app.feedId === null ? null : feedLabel(titles, app.feedId),
          names.get(app.freelancerId) ?? app.freelancerId,
          app.score,
          publish === null ? null : Math.round((sentAt - publish) / MINUTE_MS),
          app.bidRatio === null ? null : Math.round(app.bidRatio * 10_000) / 10_000,
          app.boostBids > 0 || (app.boostConnects ?? 0) > 0,
          isoOrNull(f.stages.viewed),
          isoOrNull(f.stages.replied),
          isoOrNull(f.stages.interview),
          isoOrNull(f.stages.hired),
          f.outcome,
          isoOrNull(f.outcomeAt),
          f.valueUsd,
          f.connectsRequired,
          f.boostConnects,
          f.connectsCostUsd,
        ]);
      }
      if (chunk !== "") yield chunk;
      if (page.length < LEDGER_PAGE) return;
      const last = page[page.length - 1]!;
      after = { ts: last.processedAtTs!, id: last.id };
    }
  })();
}
