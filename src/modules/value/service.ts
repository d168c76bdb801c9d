/**
 * Expected value per job: what applying is worth against what it costs. P(reply) and P(hire | reply) come from
 * the account's own outcome ledger in the job's score band, blended with a prior from market figures that is
 * worth a fixed number of pseudo-proposals, so a band with few outcomes leans on the market and one with many on
 * the data. docs/expected-value.md explains it in words and quotes the constants below (a test holds it to them).
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { many } from "../../db/query";
import { connectsRequiredOf, DEFAULT_CONNECTS_REQUIRED } from "../../lib/connects";
import { detailRoots, obj, str } from "../../lib/json-readers";
import type { AuthContext } from "../accounts/service";
import { defaultBid } from "../applications/service";
import { sentProposals } from "../applications/facts";
import { bestScoresOfJobs, entryScores } from "../feeds/repo";
import { resolveJobRef } from "../feeds/service";
import type { NormalizedJob } from "../jobs/normalize";
import { readNormalizedJob } from "../jobs/read-normalized";
import type { ExpectedValue, ValueSource } from "./model";

/** Market-wide reply rate on the marketplace in 2025: 15 % (Vollna's 2025 market report, field-2026.md). */
export const PRIOR_REPLY_RATE = 0.15;
/** The reply prior weighs as much as this many sent proposals: from this many in a band on, the ledger weighs more. */
export const PRIOR_PROPOSALS = 20;
/**
 * Hires per reply: GigRadar's agency yardsticks (reply 20–35 %, win 5–12 %: midpoints 8.5 ÷ 27.5 ≈ 0.31) and the
 * derived 5 % win at the market's 15 % reply (≈ 0.33), rounded down to 0.3.
 */
export const PRIOR_HIRE_GIVEN_REPLY = 0.3;
/** The hire prior weighs as much as this many replies. */
export const PRIOR_REPLIES = 10;
/** Hours of part-time work assumed for each engagement duration (an unknown duration counts as the shortest). */
export const HOURS_BY_DURATION = {
  "Less than 1 month": 20,
  "1 to 3 months": 60,
  "3 to 6 months": 120,
  "More than 6 months": 160,
} as const;
/** A job the client says needs more than 30 hours a week counts twice the hours. */
export const FULL_TIME_FACTOR = 2;
/** No hourly job counts for more hours than this: months ahead are too uncertain to price a proposal on. */
export const MAX_HOURS = 200;
/** The score bands, as the funnel's groupBy=scoreBand has them (scores are 0–10; a band holds 2 points, the first 3). */
export const SCORE_BANDS = ["0-2", "3-4", "5-6", "7-8", "9-10", "unscored"] as const;
export type ScoreBand = (typeof SCORE_BANDS)[number];

type Duration = keyof typeof HOURS_BY_DURATION;
const DURATIONS = Object.keys(HOURS_BY_DURATION) as Duration[];

/** The band of a 0–10 score: its whole part decides (4.5 is 3-4), as in analytics. */
export function bandOf(score: number | null): ScoreBand {
  if (score === null) return "unscored";
  if (score < 3) return "0-2";
  if (score < 5) return "3-4";
  if (score < 7) return "5-6";
  if (score < 9) return "7-8";
  return "9-10";
}

/** One band's outcomes: proposals sent, how many were replied to, and how many of those ended in a hire. */
export interface BandCounts {
  sent: number;
  replied: number;
  hires: number;
}

const NO_COUNTS: BandCounts = { sent: 0, replied: 0, hires: 0 };

/** What the job's document says beyond the normalized job: the Connects it takes and whether it is full-time. */
export interface JobDocFacts {
  connectsRequired: number | null;
  fullTime: boolean | null;
}

export type ValueJob = Pick<
  NormalizedJob,
  "platform" | "jobType" | "fixedBudget" | "hourlyMin" | "hourlyMax" | "currency" | "engagementWeeks" | "engagementLabel"
>;

export interface ValueInput {
  job: ValueJob;
  facts: JobDocFacts;
  /** The job's match score (0–10), or null when it is in none of the account's feeds. */
  score: number | null;
  /** The ledger's counts for the job's band (of the freelancer when one is named). */
  counts: BandCounts;
  freelancerId?: string | null;
  boostConnects?: number;
  connectPriceUsd: number;
}

const cents = (usd: number) => Math.round(usd * 100) / 100;

/** "$3.10" under $100, "$1,240" from there: a card has room for a price, not a ledger. */
export function usd(amount: number): string {
  return amount < 100 ? `$${amount.toFixed(2)}` : `$${Math.round(amount).toLocaleString("en-US")}`;
}

/** The engagement duration as one of the marketplace's four labels; weeks when there is no label; null when neither. */
function durationOf(job: ValueJob): Duration | null {
  const label = DURATIONS.find((d) => d.toLowerCase() === job.engagementLabel?.trim().toLowerCase());
  if (label) return label;
  const weeks = job.engagementWeeks;
  if (weeks === null) return null;
  if (weeks < 4) return "Less than 1 month";
  if (weeks <= 13) return "1 to 3 months";
  if (weeks <= 26) return "3 to 6 months";
  return "More than 6 months";
}

/** Hours of work an hourly job is assumed to pay for: by duration, doubled for full-time, capped. */
export function hoursEstimate(job: ValueJob, fullTime: boolean | null): number {
  const base = HOURS_BY_DURATION[durationOf(job) ?? "Less than 1 month"];
  return Math.min(MAX_HOURS, fullTime === true ? base * FULL_TIME_FACTOR : base);
}

const isHourly = (job: ValueJob) => job.jobType === "HOURLY" || (job.jobType === null && (job.hourlyMin !== null || job.hourlyMax !== null));

/** The job's value if hired, and where it came from. Amounts in another currency are not converted: unknown. */
function jobValue(job: ValueJob, fullTime: boolean | null): { valueUsd: number | null; from: ValueSource; hourlyRate: number | null; hours: number | null } {
  const unknown = (from: ValueSource) => ({ valueUsd: null, from, hourlyRate: null, hours: null });
  if (job.platform !== "marketplace") return unknown("not_marketplace");
  if (job.currency !== null && job.currency.toUpperCase() !== "USD") return unknown("not_usd");
  if (isHourly(job)) {
    // Apply's default bid when the client named a rate; with no rate at all the bid's fallback is no value of the job's.
    if (!(job.hourlyMin && job.hourlyMin > 0) && !(job.hourlyMax && job.hourlyMax > 0)) return unknown("no_budget");
    const rate = defaultBid(job).hourlyRate!;
    const hours = hoursEstimate(job, fullTime);
    return { valueUsd: cents(rate * hours), from: "hourly", hourlyRate: rate, hours };
  }
  if (!(job.fixedBudget && job.fixedBudget > 0)) return unknown("no_budget");
  return { valueUsd: cents(defaultBid(job).fixedBid!), from: "fixed", hourlyRate: null, hours: null };
}

const UNKNOWN_WORDS: Record<Exclude<ValueSource, "fixed" | "hourly">, string> = {
  no_budget: "worth unknown (no budget)",
  not_usd: "worth unknown (budget not in USD)",
  not_marketplace: "worth unknown (not a marketplace job)",
};

/** The expected value of applying to one job. Pure: the caller reads the ledger and the job. */
export function expectedValue(input: ValueInput): ExpectedValue {
  const { job, facts, score, counts } = input;
  const boost = input.boostConnects ?? 0;
  const sent = Math.max(0, counts.sent);
  const replied = Math.min(sent, Math.max(0, counts.replied));
  const hires = Math.min(replied, Math.max(0, counts.hires));
  // Beta priors as pseudo-counts: the posterior mean is (prior successes + observed) ÷ (prior trials + observed).
  const pReply = (PRIOR_REPLY_RATE * PRIOR_PROPOSALS + replied) / (PRIOR_PROPOSALS + sent);
  const pHireGivenReply = (PRIOR_HIRE_GIVEN_REPLY * PRIOR_REPLIES + hires) / (PRIOR_REPLIES + replied);
  const value = jobValue(job, facts.fullTime);
  const marketplace = job.platform === "marketplace";
  const base = !marketplace ? 0 : (facts.connectsRequired ?? DEFAULT_CONNECTS_REQUIRED);
  const connects = base + (marketplace ? boost : 0);
  const costUsd = cents(connects * input.connectPriceUsd);
  const expectedUsd = value.valueUsd === null ? null : cents(pReply * pHireGivenReply * value.valueUsd);
  const cost = connects === 0 ? "no Connects" : `costs ${usd(costUsd)} in Connects`;
  const words = value.from === "fixed" || value.from === "hourly" ? `worth ~${usd(expectedUsd!)}; ${cost}` : `${UNKNOWN_WORDS[value.from]}; ${cost}`;
  return {
    pReply,
    pHireGivenReply,
    valueUsd: value.valueUsd,
    expectedUsd,
    connects,
    costUsd,
    worthIt: expectedUsd === null ? null : expectedUsd >= costUsd,
    basis: {
      scoreBand: bandOf(score),
      score,
      freelancerId: input.freelancerId ?? null,
      replyFrom: sent >= PRIOR_PROPOSALS ? "ledger" : "prior",
      sentInBand: sent,
      repliedInBand: replied,
      hireFrom: replied >= PRIOR_REPLIES ? "ledger" : "prior",
      hiresInBand: hires,
      valueFrom: value.from,
      hourlyRate: value.hourlyRate,
      hoursEstimate: value.hours,
      connectsFrom: marketplace && facts.connectsRequired === null ? "default" : "job",
      boostConnects: marketplace ? boost : 0,
    },
    words,
  };
}

/**
 * The Connects and workload a job's document states, wherever the source put them: the Connects as the governor
 * reads them (lib/connects.ts), the detail page's `workload` ("More than 30 hrs/week") or a tile's
 * `hourlyEngagementType` (FULL_TIME / PART_TIME).
 */
export function jobDocFacts(document: unknown): JobDocFacts {
  const doc = obj(document);
  const tile = obj(obj(doc?.jobTile)?.job);
  const { auth, pub } = detailRoots(document);
  const authOpening = obj(auth?.opening);
  const pubOpening = obj(pub?.opening);
  const connectsRequired = connectsRequiredOf(document);
  const workload = [obj(authOpening?.job)?.workload, pubOpening?.workload, obj(pubOpening?.job)?.workload, doc?.workload].map(str).find(Boolean);
  const engagement = [tile?.hourlyEngagementType, doc?.engagement].map(str).find(Boolean);
  let fullTime: boolean | null = null;
  if (workload) fullTime = /more than 30/i.test(workload);
  else if (engagement) fullTime = /full[_ -]?time|more than 30/i.test(engagement);
  return { connectsRequired, fullTime };
}

/** The account's outcome ledger by score band: in total and per freelancer. */
export interface Ledger {
  account: Map<ScoreBand, BandCounts>;
  byFreelancer: Map<string, Map<ScoreBand, BandCounts>>;
}

/**
 * One grouped statement over the account's sent proposals (the funnel's index answers it): per freelancer and
 * score band, sent, replied and hired. A later stage implies the earlier ones, as in the funnel: a hire counts as
 * a reply. A hire later lost still counts as a hire.
 */
export async function readLedger(db: Db, accountId: string): Promise<Ledger> {
  const a = sentProposals(db, { accountId });
  const hired = sql`${a.hiredAtTs} IS NOT NULL`;
  const replied = sql`(${a.repliedAtTs} IS NOT NULL OR ${a.replied} OR ${a.interviewAtTs} IS NOT NULL OR ${hired})`;
  const band = sql<string>`CASE WHEN ${a.score} IS NULL THEN 'unscored' WHEN ${a.score} < 3 THEN '0-2' WHEN ${a.score} < 5 THEN '3-4' WHEN ${a.score} < 7 THEN '5-6' WHEN ${a.score} < 9 THEN '7-8' ELSE '9-10' END`;
  const rows = await many(
    db,
    db
      .select({
        freelancerId: a.freelancerId,
        band,
        sent: sql<number>`COUNT(*)`,
        replied: sql<number>`SUM(CASE WHEN ${replied} THEN 1 ELSE 0 END)`,
        hires: sql<number>`SUM(CASE WHEN ${hired} THEN 1 ELSE 0 END)`,
      })
      .from(a)
      // By position, as the funnel does: PostgreSQL would otherwise have to match the CASE to the select's.
      .groupBy(sql`1, 2`),
  );
  const ledger: Ledger = { account: new Map(), byFreelancer: new Map() };
  const add = (into: Map<ScoreBand, BandCounts>, key: ScoreBand, c: BandCounts) => {
    const known = into.get(key) ?? NO_COUNTS;
    into.set(key, { sent: known.sent + c.sent, replied: known.replied + c.replied, hires: known.hires + c.hires });
  };
  for (const r of rows) {
    const key = r.band as ScoreBand;
    const counts = { sent: Number(r.sent), replied: Number(r.replied ?? 0), hires: Number(r.hires ?? 0) };
    add(ledger.account, key, counts);
    let mine = ledger.byFreelancer.get(r.freelancerId);
    if (!mine) ledger.byFreelancer.set(r.freelancerId, (mine = new Map()));
    add(mine, key, counts);
  }
  return ledger;
}

/** The ledger's counts for a band, of one freelancer when named (none sent as them: all zero, the prior alone). */
export function countsIn(ledger: Ledger, band: ScoreBand, freelancerId?: string | null): BandCounts {
  const source = freelancerId ? ledger.byFreelancer.get(freelancerId) : ledger.account;
  return source?.get(band) ?? NO_COUNTS;
}

export interface ValueDeps {
  db: Db;
  config: { connectPriceUsd: number };
}

export interface ValueOptions {
  freelancerId?: string | null;
  boostConnects?: number;
  /** The match score to band on; without it, the account's best match of the job (null: in none of its feeds). */
  score?: number | null;
  /** A ledger already read for this account (a page of cards reads it once). */
  ledger?: Ledger;
  /** The name of the parameter the job came in, for a 400 (default jobId). */
  field?: string;
}

/** One job as the batch form takes it: the archived document and its normalized reading. */
export interface ValuedJob {
  ciphertext: string;
  job: ValueJob;
  document: unknown;
  score?: number | null;
}

/**
 * The expected value of each job, for an inbox page or a list: one ledger statement and one best-score
 * statement whatever the number of jobs. Results are in the order given.
 */
export async function expectedValues(
  deps: ValueDeps,
  auth: Pick<AuthContext, "accountId">,
  jobs: readonly ValuedJob[],
  opts: Omit<ValueOptions, "score"> = {},
): Promise<ExpectedValue[]> {
  if (jobs.length === 0) return [];
  const ledger = opts.ledger ?? (await readLedger(deps.db, auth.accountId));
  const unscored = jobs.filter((j) => j.score === undefined).map((j) => j.ciphertext);
  const best = unscored.length === 0 ? new Map<string, number>() : await bestScoresOfJobs(deps.db, auth.accountId, unscored);
  return jobs.map((j) => {
    const score = j.score === undefined ? (best.get(j.ciphertext) ?? null) : j.score;
    return expectedValue({
      job: j.job,
      facts: jobDocFacts(j.document),
      score,
      counts: countsIn(ledger, bandOf(score), opts.freelancerId),
      freelancerId: opts.freelancerId,
      boostConnects: opts.boostConnects,
      connectPriceUsd: deps.config.connectPriceUsd,
    });
  });
}

/**
 * The expected value of one job named as apply names it (ciphertext, URL or one of the caller's feed entries;
 * another account's entry is a 404). Banded on the named entry's score, else on the account's best match.
 */
export async function expectedValueOf(deps: ValueDeps, auth: AuthContext, jobRef: string, opts: ValueOptions = {}): Promise<ExpectedValue> {
  const resolved = await resolveJobRef(deps, auth, jobRef, opts.field);
  let score = opts.score;
  if (score === undefined && resolved.processedJobId !== null && jobRef.trim() === resolved.processedJobId) {
    score = (await entryScores(deps.db, [resolved.processedJobId])).get(resolved.processedJobId) ?? null;
  }
  const [result] = await expectedValues(deps, auth, [{ ciphertext: resolved.row.ciphertext, job: resolved.job, document: resolved.row.document, score }], opts);
  return result!;
}

/**
 * The value line of a job's alert ("worth ~$3.10; costs $2.40 in Connects"), computed once where the deliverer
 * builds the alert and rendered by every channel kind. Null for a job outside the marketplace (nothing to spend),
 * and null rather than an error when it cannot be read: an alert is worth more than its value line.
 */
export async function alertValueLine(
  deps: ValueDeps & { log?: { warn(msg: string, fields?: Record<string, unknown>): void } },
  accountId: string,
  payload: { jobId: string; matchingScore: number; platform: string },
): Promise<string | null> {
  if (payload.platform !== "marketplace") return null;
  try {
    const read = await readNormalizedJob(deps.db, payload.jobId);
    if (!read) return null;
    const [value] = await expectedValues(deps, { accountId }, [
      { ciphertext: payload.jobId, job: read.job, document: read.row.document, score: payload.matchingScore },
    ]);
    return value!.words;
  } catch (err) {
    deps.log?.warn("expected value of an alert could not be computed", { job: payload.jobId, error: (err as Error)?.message ?? String(err) });
    return null;
  }
}
