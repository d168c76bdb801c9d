/**
 * Client score: a transparent 0–100 judgement of the client behind a job,
 * computed only from the client facts already in the archived job document
 * (docs/reference/marketplace-data.md §1.2–1.7). Four components, each from
 * piecewise-linear rules over named facts, are combined by a weighted mean;
 * every number that moved the score is also returned as a short sentence so a
 * reader can check the result by hand (README "Client score" has the table).
 *
 * Reading follows normalize.ts: each fact is taken from authenticated details,
 * then public details, then the search tile (`upworkHistoryData.client`), then
 * a feed tile's top-level `client`; null, `ExecutionAborted`, non-numeric and
 * out-of-range values fall through to the next location. Pure: time comes from
 * `nowTs` only.
 */
import {
  detailRoots,
  first,
  firstNum,
  isCount,
  isNonNegative,
  isPositive,
  isRating,
  numIf,
  obj,
  paymentVerified,
  str,
  timestamp,
} from "../../lib/json-readers";

export interface ScoreComponent {
  /** 0–100, or null when the document has nothing to judge this component by. */
  score: number | null;
  facts: string[];
}

export interface ClientScore {
  score: number | null;
  label: string;
  components: { hires: ScoreComponent; money: ScoreComponent; reputation: ScoreComponent; engagement: ScoreComponent };
  flags: string[];
  perks: string[];
  facts: string[];
}

const COMPONENT_WEIGHTS = { hires: 0.3, money: 0.3, reputation: 0.3, engagement: 0.1 } as const;

/** Reputation when there is no rating to judge (only the payment status). */
const NO_RATING_SCORE = 50;
/** A client whose payment method is reported unverified is never rated above "Fair". */
const UNVERIFIED_CAP = 64;
const DAY = 86_400_000;
/** Work histories are short (the marketplace lists a few contracts); the cap only bounds hostile input. */
const MAX_HISTORY_ENTRIES = 500;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

// ---------- reading (the tri-state rules of normalize.ts; readers in ./document/readers.ts) ----------

/** Marketplace ratings run 1–5; a 0 is what the marketplace sends for "no rating yet". */
const rated = (n: number) => n > 0 && isRating(n);

interface Average {
  avg: number;
  count: number;
}

/** Everything the score looks at, already resolved across the document's sections; null = unknown. */
interface ClientFacts {
  posted: number | null;
  withHires: number | null;
  assignments: number | null;
  activeContracts: number | null;
  openJobs: number | null;
  spent: number | null;
  /** True when `spent` is only the sum of the listed work-history contracts (a lower bound). */
  spentFromHistory: boolean;
  financialPrivacy: boolean;
  avgHourlyRate: number | null;
  hoursBilled: number | null;
  rating: number | null;
  reviews: number | null;
  /** True when the rating is the mean of `feedbackToClient` scores in the work history. */
  ratingFromHistory: boolean;
  /** Mean `feedback.score` the client gave freelancers in the listed contracts. */
  givenFeedback: Average | null;
  paymentVerified: boolean | null;
  memberSinceTs: number | null;
  lastActivityTs: number | null;
  interviewing: number | null;
  invitesSent: number | null;
  unansweredInvites: number | null;
  historyCount: number;
  latestEndTs: number | null;
}

function readClientFacts(input: unknown): ClientFacts {
  const doc = obj(input) ?? {};
  const { auth, pub } = detailRoots(doc);
  const authBuyer = obj(auth?.buyer);
  const authInfo = obj(authBuyer?.info);
  const pubBuyer = obj(pub?.buyer);
  const tile = obj(obj(doc.upworkHistoryData)?.client);
  const feed = obj(doc.client);
  const [aStats, pStats] = [obj(authInfo?.stats), obj(pubBuyer?.stats)];
  const [aJobs, pJobs] = [obj(authInfo?.jobs), obj(pubBuyer?.jobs)];
  // The auth body nests the job under `opening.job`; the public body keeps its fields on `opening`.
  const activity = [obj(obj(obj(auth?.opening)?.job)?.clientActivity), obj(obj(pub?.opening)?.clientActivity)];
  const act = (key: string) =>
    firstNum(
      activity.map((a) => a?.[key]),
      isCount,
    );

  // Work history: only the authenticated body carries it; entries are contracts, newest first.
  const rawHistory = Array.isArray(authBuyer?.workHistory) ? authBuyer.workHistory : Array.isArray(pubBuyer?.workHistory) ? pubBuyer.workHistory : [];
  let historyCount = 0,
    activeInHistory = 0,
    charges = 0,
    chargeCount = 0,
    latestEndTs: number | null = null;
  const received = { sum: 0, count: 0 };
  const given = { sum: 0, count: 0 };
  for (const raw of rawHistory.slice(0, MAX_HISTORY_ENTRIES)) {
    const e = obj(raw);
    if (e === undefined) continue;
    historyCount++;
    if (str(e.status)?.toUpperCase() === "ACTIVE") activeInHistory++;
    const end = timestamp(e.endDate);
    if (end !== null && (latestEndTs === null || end > latestEndTs)) latestEndTs = end;
    const charge = numIf(e.totalCharge, isNonNegative);
    if (charge !== null) [charges, chargeCount] = [charges + charge, chargeCount + 1];
    const toFreelancer = numIf(obj(e.feedback)?.score, rated);
    if (toFreelancer !== null) [given.sum, given.count] = [given.sum + toFreelancer, given.count + 1];
    const toClient = obj(e.feedbackToClient);
    const receivedScore = toClient?.feedbackSuppressed === true ? null : numIf(toClient?.score, rated);
    if (receivedScore !== null) [received.sum, received.count] = [received.sum + receivedScore, received.count + 1];
  }

  let spent = firstNum([aStats?.totalCharges, pStats?.totalCharges, tile?.totalSpent, feed?.totalSpent], isNonNegative);
  const spentFromHistory = spent === null && chargeCount > 0;
  if (spentFromHistory) spent = charges;

  let ratingValue = firstNum([aStats?.score, pStats?.score, tile?.totalFeedback, feed?.totalFeedback, feed?.rating], rated);
  let reviews = firstNum([aStats?.feedbackCount, pStats?.feedbackCount, tile?.totalReviews, feed?.totalReviews], isCount);
  if (reviews === 0) ratingValue = null; // a stale score with no reviews behind it means nothing
  const ratingFromHistory = ratingValue === null && reviews !== 0 && received.count > 0;
  if (ratingFromHistory) [ratingValue, reviews] = [received.sum / received.count, received.count];

  const activeStats = firstNum([aStats?.activeAssignmentsCount, pStats?.activeAssignmentsCount], isCount);
  return {
    posted: firstNum([aJobs?.postedCount, pJobs?.postedCount, feed?.totalPostedJobs], isCount),
    withHires: firstNum([aStats?.totalJobsWithHires, pStats?.totalJobsWithHires, feed?.totalJobsWithHires, feed?.totalHires], isCount),
    assignments: firstNum([aStats?.totalAssignments, pStats?.totalAssignments], isCount),
    activeContracts: activeStats ?? (historyCount > 0 ? activeInHistory : null),
    openJobs: firstNum([aJobs?.openCount, pJobs?.openCount], isCount),
    spent,
    spentFromHistory,
    financialPrivacy: tile?.hasFinancialPrivacy === true || feed?.hasFinancialPrivacy === true,
    avgHourlyRate: firstNum([authInfo?.avgHourlyJobsRate, pubBuyer?.avgHourlyJobsRate], isPositive),
    hoursBilled: firstNum([aStats?.hoursCount, pStats?.hoursCount], (n) => n >= 1),
    rating: ratingValue,
    reviews,
    ratingFromHistory,
    givenFeedback: given.count > 0 ? { avg: given.sum / given.count, count: given.count } : null,
    paymentVerified: first(
      [
        authBuyer?.isPaymentMethodVerified,
        obj(pub?.buyerExtra)?.isPaymentMethodVerified,
        pubBuyer?.isPaymentMethodVerified,
        tile?.paymentVerificationStatus,
        feed?.paymentVerificationStatus,
        feed?.paymentVerified,
      ],
      paymentVerified,
    ),
    memberSinceTs: timestamp(obj(authInfo?.company)?.contractDate) ?? timestamp(obj(pubBuyer?.company)?.contractDate),
    lastActivityTs: activity.map((a) => timestamp(a?.lastBuyerActivity)).find((t) => t !== null) ?? null,
    interviewing: act("totalInvitedToInterview"),
    invitesSent: act("invitationsSent"),
    unansweredInvites: act("unansweredInvites"),
    historyCount,
    latestEndTs,
  };
}

// ---------- formatting ----------

const group = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const usd = (n: number) => `$${group(n)}`;
const plural = (n: number, word: string) => `${group(n)} ${word}${Math.round(n) === 1 ? "" : "s"}`;
/** 4.94 → "4.94", 4.9 → "4.9", 5 → "5.0". */
const stars = (r: number) => r.toFixed(2).replace(/(\.\d)0$/, "$1");
const pct = (rate: number) => `${Math.round(rate * 100)}%`;
const memberSince = (ts: number) => `${MONTHS[new Date(ts).getUTCMonth()]} ${new Date(ts).getUTCFullYear()}`;

function ago(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${plural(minutes, "minute")} ago`;
  if (minutes < 48 * 60) return `${plural(Math.floor(minutes / 60), "hour")} ago`;
  return `${plural(Math.floor(minutes / 1440), "day")} ago`;
}

// ---------- the formula ----------

/** Linear interpolation through (x, y) points sorted by x; flat beyond the ends. */
export function piecewise(x: number, points: readonly (readonly [number, number])[]): number {
  const [first, last] = [points[0]!, points[points.length - 1]!];
  if (x <= first[0]) return first[1];
  if (x >= last[0]) return last[1];
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1]!;
    const [x1, y1] = points[i]!;
    if (x <= x1) return y0 + ((x - x0) / (x1 - x0)) * (y1 - y0);
  }
  return last[1];
}

const bound = (n: number) => Math.round(Math.min(100, Math.max(0, n)));
/** Few observations say little, so a raw score is pulled toward a neutral prior: weight n / (n + k). */
const shrink = (raw: number, n: number, k: number, prior: number) => (n / (n + k)) * raw + (k / (n + k)) * prior;
const hireRate = (f: ClientFacts) => (f.posted !== null && f.posted > 0 && f.withHires !== null ? Math.min(1, f.withHires / f.posted) : null);

function hiresComponent(f: ClientFacts): ScoreComponent {
  const facts: string[] = [];
  const rate = hireRate(f);
  let score: number | null = null;
  if (rate !== null) {
    facts.push(`Hired ${group(f.withHires!)} of ${plural(f.posted!, "job")} posted (${pct(rate)})`);
    const volumeBonus = piecewise(f.assignments ?? f.withHires!, [
      [1, 0],
      [10, 5],
      [30, 10],
    ]);
    score = bound(
      shrink(
        piecewise(rate, [
          [0, 0],
          [0.5, 60],
          [0.8, 100],
        ]),
        f.posted!,
        3,
        50,
      ) + volumeBonus,
    );
  } else if (f.posted !== null) facts.push(`${plural(f.posted, "job")} posted`);
  else if (f.withHires !== null) facts.push(`Hired for ${plural(f.withHires, "job")}`);
  if (f.assignments !== null && f.assignments > 0) facts.push(`${plural(f.assignments, "contract")} in total`);
  return { score, facts };
}

function moneyComponent(f: ClientFacts): ScoreComponent {
  const facts: string[] = [];
  let score: number | null = null;
  if (f.spent !== null) {
    facts.push(f.spentFromHistory ? `At least ${usd(f.spent)} spent (sum of ${plural(f.historyCount, "listed contract")})` : `${usd(f.spent)} spent`);
    const spendScore = piecewise(Math.log10(1 + f.spent), [
      [0, 0],
      [3, 40],
      [4, 70],
      [5, 100],
    ]);
    const rateAdjust =
      f.avgHourlyRate === null
        ? 0
        : piecewise(f.avgHourlyRate, [
            [10, -10],
            [25, 0],
            [60, 10],
          ]);
    score = bound(spendScore + rateAdjust);
  } else if (f.financialPrivacy) facts.push("Spending hidden (financial privacy)");
  if (f.avgHourlyRate !== null) facts.push(`Average hourly rate paid $${f.avgHourlyRate.toFixed(2)}`);
  if (f.hoursBilled !== null) facts.push(`${plural(f.hoursBilled, "hour")} billed`);
  return { score, facts };
}

function reputationComponent(f: ClientFacts): ScoreComponent {
  const facts: string[] = [];
  let score: number | null = null;
  if (f.rating !== null) {
    const n = f.reviews ?? 1; // a rating without a count counts as one review
    if (f.ratingFromHistory) facts.push(`Rated ${stars(f.rating)} by freelancers over ${plural(n, "listed contract")}`);
    else facts.push(f.reviews === null ? `Rated ${stars(f.rating)}` : `Rated ${stars(f.rating)} from ${plural(n, "review")}`);
    score = shrink(
      piecewise(f.rating, [
        [3, 0],
        [5, 100],
      ]),
      n,
      5,
      60,
    );
  } else {
    if (f.reviews === 0) facts.push("No reviews yet");
    // Unknown reputation sits mid-scale, below the rated prior, so payment status can still count.
    if (f.paymentVerified !== null) score = NO_RATING_SCORE;
  }
  if (f.paymentVerified !== null) facts.push(f.paymentVerified ? "Payment method verified" : "Payment method not verified");
  if (f.givenFeedback !== null) facts.push(`Gave freelancers ${stars(f.givenFeedback.avg)} on average over ${plural(f.givenFeedback.count, "contract")}`);
  if (score !== null) {
    if (f.paymentVerified === false) score -= 30;
    if (harshReviewer(f)) score -= 10;
  }
  return { score: score === null ? null : bound(score), facts };
}

const harshReviewer = (f: ClientFacts) => f.givenFeedback !== null && f.givenFeedback.count >= 3 && f.givenFeedback.avg < 4;
const unansweredShare = (f: ClientFacts) =>
  f.invitesSent !== null && f.invitesSent > 0 && f.unansweredInvites !== null ? Math.min(1, f.unansweredInvites / f.invitesSent) : null;

function engagementComponent(f: ClientFacts, nowTs: number): ScoreComponent {
  const facts: string[] = [];
  const parts: number[] = [];
  const clock = Number.isFinite(nowTs);
  const daysSince = (ts: number) => Math.max(0, nowTs - ts) / DAY;
  if (f.lastActivityTs !== null && clock) {
    facts.push(`Last active ${ago(nowTs - f.lastActivityTs)}`);
    parts.push(
      piecewise(daysSince(f.lastActivityTs), [
        [0, 100],
        [7, 80],
        [30, 40],
        [90, 0],
      ]),
    );
  }
  if (f.interviewing !== null || f.invitesSent !== null) {
    const interviewing = f.interviewing ?? 0;
    const sent = f.invitesSent ?? 0;
    if (interviewing > 0) facts.push(`Interviewing ${plural(interviewing, "freelancer")}`);
    if (sent > 0) facts.push(`Sent ${plural(sent, "invite")}, ${group(f.unansweredInvites ?? 0)} unanswered`);
    parts.push((interviewing > 0 ? 100 : sent > 0 ? 75 : 50) - 50 * (unansweredShare(f) ?? 0));
  }
  if (f.memberSinceTs !== null && clock) {
    facts.push(`Member since ${memberSince(f.memberSinceTs)}`);
    parts.push(
      piecewise(daysSince(f.memberSinceTs), [
        [0, 20],
        [90, 50],
        [365, 80],
        [1095, 100],
      ]),
    );
  }
  if (f.activeContracts !== null && f.activeContracts > 0) {
    facts.push(`${plural(f.activeContracts, "active contract")}`);
    parts.push(100);
  } else if (f.latestEndTs !== null && clock) {
    facts.push(`Last contract ended ${ago(nowTs - f.latestEndTs)}`);
    parts.push(
      piecewise(daysSince(f.latestEndTs), [
        [30, 100],
        [180, 50],
        [365, 20],
      ]),
    );
  }
  if (f.openJobs !== null && f.openJobs > 0) facts.push(`${plural(f.openJobs, "open job")}`);
  if (parts.length === 0) return { score: null, facts };
  // Many postings at once spread the client's attention (and are a job-farming pattern).
  const openPenalty = f.openJobs !== null && f.openJobs >= 10 ? 10 : 0;
  return { score: bound(parts.reduce((a, b) => a + b, 0) / parts.length - openPenalty), facts };
}

/** A client who posted at least this many jobs and hired for none is a "ghost" (a flag here, a signal at ingest). */
export const GHOST_MIN_POSTED = 5;

function noHiresFlag(f: ClientFacts): string | null {
  return f.posted !== null && f.posted >= GHOST_MIN_POSTED && f.withHires === 0 ? `No hires after ${plural(f.posted, "job")} posted` : null;
}

/** What ingest's signals need of the client's history (modules/jobs/signals.ts): the ghost flag and the facts behind the scam rule. */
export function clientHistory(doc: unknown): {
  noHires: string | null;
  posted: number | null;
  withHires: number | null;
  spent: number | null;
  paymentVerified: boolean | null;
} {
  let f: ClientFacts;
  try {
    f = readClientFacts(doc);
  } catch {
    f = readClientFacts(undefined);
  }
  return { noHires: noHiresFlag(f), posted: f.posted, withHires: f.withHires, spent: f.spent, paymentVerified: f.paymentVerified };
}

function flagsOf(f: ClientFacts, nowTs: number): string[] {
  const flags: string[] = [];
  const rate = hireRate(f);
  if (f.paymentVerified === false) flags.push("Payment method not verified");
  if (f.rating !== null && f.rating < 4 && (f.reviews ?? 0) >= 3) flags.push(`Low rating (${stars(f.rating)} from ${plural(f.reviews!, "review")})`);
  const ghost = noHiresFlag(f);
  if (ghost !== null) flags.push(ghost);
  else if (rate !== null && f.posted! >= 5 && rate < 0.3) flags.push(`Low hire rate (${pct(rate)} of ${plural(f.posted!, "job")} posted)`);
  const unanswered = unansweredShare(f);
  if (unanswered !== null && f.unansweredInvites! >= 2 && unanswered >= 0.5)
    flags.push(`Unanswered invites (${group(f.unansweredInvites!)} of ${group(f.invitesSent!)} sent)`);
  if (f.lastActivityTs !== null && Number.isFinite(nowTs) && nowTs - f.lastActivityTs >= 30 * DAY) {
    flags.push(`Inactive for ${plural(Math.floor((nowTs - f.lastActivityTs) / DAY), "day")}`);
  }
  if (harshReviewer(f)) flags.push(`Low feedback to freelancers (${stars(f.givenFeedback!.avg)} average over ${plural(f.givenFeedback!.count, "contract")})`);
  return flags;
}

function perksOf(f: ClientFacts): string[] {
  const perks: string[] = [];
  const rate = hireRate(f);
  if (f.paymentVerified === true) perks.push("Payment verified");
  if (f.spent !== null && f.spent >= 10_000) perks.push(`High spender (${f.spentFromHistory ? "at least " : ""}${usd(f.spent)} spent)`);
  if (rate !== null && f.posted! >= 5 && rate >= 0.7) perks.push(`Repeat hires (${group(f.withHires!)} of ${plural(f.posted!, "job")} hired)`);
  if (f.rating !== null && f.rating >= 4.8 && (f.reviews ?? 0) >= 5) perks.push(`Highly rated (${stars(f.rating)} from ${plural(f.reviews!, "review")})`);
  if (f.avgHourlyRate !== null && f.avgHourlyRate >= 40) perks.push("Pays above $40/h on average");
  return perks;
}

/** Any sign the client has used the marketplace before; without one the score is null ("New client"). */
function hasHistory(f: ClientFacts): boolean {
  const positive = (n: number | null) => n !== null && n > 0;
  return (
    positive(f.spent) ||
    positive(f.withHires) ||
    positive(f.assignments) ||
    positive(f.reviews) ||
    f.rating !== null ||
    f.historyCount > 0 ||
    (f.posted !== null && f.posted >= 5)
  );
}

export function scoreLabel(score: number | null): string {
  if (score === null) return "New client";
  return score >= 80 ? "Excellent" : score >= 65 ? "Good" : score >= 45 ? "Fair" : "Risky";
}

export function clientScore(doc: unknown, nowTs: number): ClientScore {
  let f: ClientFacts;
  try {
    f = readClientFacts(doc);
  } catch {
    // JSON cannot throw on reads, but a caller's object with throwing getters must not break a feed.
    f = readClientFacts(undefined);
  }
  const components = {
    hires: hiresComponent(f),
    money: moneyComponent(f),
    reputation: reputationComponent(f),
    engagement: engagementComponent(f, nowTs),
  };
  let score: number | null = null;
  // Engagement alone (activity, account age) is too thin to rate a client on.
  const core = components.hires.score !== null || components.money.score !== null || components.reputation.score !== null;
  if (hasHistory(f) && core) {
    let sum = 0,
      weights = 0;
    for (const key of ["hires", "money", "reputation", "engagement"] as const) {
      const s = components[key].score;
      if (s !== null) [sum, weights] = [sum + s * COMPONENT_WEIGHTS[key], weights + COMPONENT_WEIGHTS[key]];
    }
    score = Math.round(sum / weights);
    if (f.paymentVerified === false) score = Math.min(score, UNVERIFIED_CAP);
  }
  const facts = [...components.hires.facts, ...components.money.facts, ...components.reputation.facts, ...components.engagement.facts];
  if (score === null && !hasHistory(f)) facts.push("No hiring history on record");
  return { score, label: scoreLabel(score), components, flags: flagsOf(f, nowTs), perks: perksOf(f), facts };
}

/** The client facts a job's card shows at a glance (null = unknown), read by the same rules as the score. */
export interface ClientBasics {
  name: string | null;
  spent: number | null;
  rating: number | null;
  reviews: number | null;
  /** Share of posted jobs that led to a hire, 0–1. */
  hireRate: number | null;
  paymentVerified: boolean | null;
}

export function clientBasics(doc: unknown): ClientBasics {
  let f: ClientFacts;
  try {
    f = readClientFacts(doc);
  } catch {
    f = readClientFacts(undefined);
  }
  const { auth, pub } = detailRoots(doc);
  const companyName = (root: ReturnType<typeof obj>) => str(obj(obj(obj(root?.buyer)?.info)?.company)?.name);
  const name = companyName(auth) ?? companyName(pub) ?? null;
  return { name, spent: f.spent, rating: f.rating, reviews: f.reviews, hireRate: hireRate(f), paymentVerified: f.paymentVerified };
}
