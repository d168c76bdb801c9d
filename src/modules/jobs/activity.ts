/**
 * Proposal activity: the spec's `proposalActivity` on an archived job document, as pure functions of `nowTs`.
 * A null count means "not yet published", not zero, so an explicit null in a details body stays null rather than
 * falling through to the tile's 0 (see docs/architecture.md, 'Null counts in proposal activity').
 */
import { iso } from "../../lib/time";
import { count, currencyCode, detailRoots, first, isoTime, num, obj, str, type Obj } from "../../lib/json-readers";
import { normalizeJob } from "./normalize";

export interface ActivityCounts {
  proposals: number | null;
  interviewing: number | null;
  hired: number | null;
  invitesSent: number | null;
  unansweredInvites: number | null;
  positionsToHire: number | null;
  /** ISO 8601. */
  lastClientActivity: string | null;
  /** e.g. "ACTIVE", "CLOSED" (auth opening.job.status, else public opening.status). */
  openingStatus: string | null;
}

export interface BidStats {
  avg: number | null;
  min: number | null;
  max: number | null;
  currency: string | null;
}

export type Competition = "low" | "medium" | "high";

const HOUR = 3_600_000;

// ---------- reading (readers in ./document/readers.ts) ----------

/**
 * First usable value of `key` across the details' clientActivity objects, in
 * priority order. `null` in a details body is remembered: it means "not yet
 * published", so the fallbacks (tile values) are then not consulted.
 */
function fromActivity<T>(activities: (Obj | undefined)[], key: string, read: (v: unknown) => T | null, fallbacks: unknown[] = []): T | null {
  let publishedNull = false;
  for (const a of activities) {
    if (a === undefined || !(key in a)) continue;
    const value = read(a[key]);
    if (value !== null) return value;
    if (a[key] === null) publishedNull = true;
  }
  if (publishedNull) return null;
  for (const v of fallbacks) {
    const value = read(v);
    if (value !== null) return value;
  }
  return null;
}

function sections(doc: unknown) {
  const d = obj(doc);
  const { auth, pub } = detailRoots(d);
  const authJob = obj(obj(auth?.opening)?.job);
  const pubOpening = obj(pub?.opening);
  const tile = obj(obj(d?.jobTile)?.job);
  return { d, auth, authJob, pubOpening, tile };
}

// ---------- counts and bids ----------

/** Counts from the auth details, then the public details, then the tile (proposals from totalApplicants). */
export function countsOf(doc: unknown): ActivityCounts {
  const { d, authJob, pubOpening, tile } = sections(doc);
  const activities = [obj(authJob?.clientActivity), obj(pubOpening?.clientActivity)];
  const status = first([authJob?.status, pubOpening?.status], str);
  return {
    proposals: fromActivity(activities, "totalApplicants", count, [tile?.totalApplicants, d?.totalApplicants]),
    interviewing: fromActivity(activities, "totalInvitedToInterview", count),
    hired: fromActivity(activities, "totalHired", count),
    invitesSent: fromActivity(activities, "invitationsSent", count),
    unansweredInvites: fromActivity(activities, "unansweredInvites", count),
    positionsToHire: fromActivity(activities, "numberOfPositionsToHire", count, [tile?.personsToHire]),
    lastClientActivity: fromActivity(activities, "lastBuyerActivity", isoTime),
    openingStatus: status === null ? null : status.toUpperCase(),
  };
}

/** Applicant bid stats (auth details only); null when absent or when every amount is null (nobody has bid yet). */
export function bidStatsOf(doc: unknown): BidStats | null {
  const stats = obj(sections(doc).auth?.applicantsBidsStats);
  if (stats === undefined) return null;
  const bids = [obj(stats.avgRateBid), obj(stats.minRateBid), obj(stats.maxRateBid)];
  const [avg, min, max] = bids.map((b) => num(b?.amount));
  if (avg === null && min === null && max === null) return null;
  const currency = first(
    bids.map((b) => b?.currencyCode),
    currencyCode,
  );
  return { avg: avg ?? null, min: min ?? null, max: max ?? null, currency };
}

// ---------- competition ----------

/** Fewer proposals than this is always "low", however young the job. */
const COMPETITION_LOW_BELOW = 5;
/** The marketplace's top bucket ("50+"): always "high". */
const COMPETITION_HIGH_FROM = 50;
/** Proposals per hour since publish at or above which competition is "high" / "medium". */
const COMPETITION_HIGH_RATE = 10;
const COMPETITION_MEDIUM_RATE = 2;
/** A job older than its pace suggests is still "medium" once this many proposals are in. */
const COMPETITION_MEDIUM_FROM = 20;
/** Age floor for the rate, so 5 proposals in 2 minutes is not read as 150 per hour. */
const COMPETITION_MIN_AGE_MS = HOUR / 2;

/**
 * How crowded the job is, from proposals relative to its age:
 * - null when proposals is null (not yet published);
 * - fewer than 5 proposals → low; 50 or more → high (absolute floors);
 * - otherwise the pace r = proposals / hours since publish (at least half an
 *   hour): r ≥ 10/h → high, r ≥ 2/h → medium;
 * - a slower job with 20 or more proposals → medium, else low. Without a
 *   publish time only the count rules apply.
 */
export function competitionOf(proposals: number | null, publishTimeTs: number | null, nowTs: number): Competition | null {
  if (proposals === null) return null;
  if (proposals < COMPETITION_LOW_BELOW) return "low";
  if (proposals >= COMPETITION_HIGH_FROM) return "high";
  if (publishTimeTs !== null) {
    const hours = Math.max(nowTs - publishTimeTs, COMPETITION_MIN_AGE_MS) / HOUR;
    const rate = proposals / hours;
    if (rate >= COMPETITION_HIGH_RATE) return "high";
    if (rate >= COMPETITION_MEDIUM_RATE) return "medium";
  }
  return proposals >= COMPETITION_MEDIUM_FROM ? "medium" : "low";
}

// ---------- tracker ----------

export interface HistoryPoint {
  at: string;
  proposals: number | null;
  interviewing: number | null;
  hired: number | null;
}

export interface TrackingState {
  active: boolean;
  stoppedReason: string | null;
  openingStatus: string | null;
  startedAt: string;
  lastCheckedAt: string;
  checks: number;
  proposalsLastHour: number | null;
  proposalsAtStart: number | null;
  peakProposals: number | null;
  history: HistoryPoint[];
}

const STOP_CLOSED = "job closed";
const STOP_HIRED = "hired";
const STOP_AGE = "age limit";

/**
 * Why tracking should stop given the latest observation, or null to keep going.
 * "hired" is checked first: filling the last position closes the job in the
 * same moment, and the hire is the more useful reason to report.
 */
function stopReason(openingStatus: string | null, hired: number | null, positionsToHire: number | null): string | null {
  if (hired !== null && positionsToHire !== null && positionsToHire > 0 && hired >= positionsToHire) return STOP_HIRED;
  if (openingStatus !== null && openingStatus !== "ACTIVE") return STOP_CLOSED;
  return null;
}

/**
 * The first observation: one history point, one check. A job already closed or
 * filled starts stopped, since watching it could only repeat the same numbers.
 */
export function startTracking(counts: ActivityCounts, nowTs: number): TrackingState {
  const at = iso(nowTs);
  const reason = stopReason(counts.openingStatus, counts.hired, counts.positionsToHire);
  return {
    active: reason === null,
    stoppedReason: reason,
    openingStatus: counts.openingStatus,
    startedAt: at,
    lastCheckedAt: at,
    checks: 1,
    proposalsLastHour: null, // nothing is known about an hour ago yet
    proposalsAtStart: counts.proposals,
    peakProposals: counts.proposals,
    history: [{ at, proposals: counts.proposals, interviewing: counts.interviewing, hired: counts.hired }],
  };
}

/**
 * One more observation. A history point only when proposals, interviewing or
 * hired changed; a null in the new counts is read as "could not be read this
 * time" and keeps the last known value, so a flaky scrape does not write
 * number → null → number into the history. Stops (active false, stoppedReason)
 * when hired ≥ positionsToHire ("hired"), when the opening is no longer ACTIVE
 * ("job closed"), or when the job is older than maxAgeMs ("age
 * limit"; without a publish time the tracking start stands in for it). A
 * stopped state is returned unchanged. proposalsLastHour = proposals now −
 * proposals at the last history point at or before now − 1 h (null when
 * unknown). peakProposals = max seen.
 */
export function recordCheck(
  state: TrackingState,
  counts: ActivityCounts,
  nowTs: number,
  opts: { publishTimeTs: number | null; maxAgeMs: number },
): TrackingState {
  if (!state.active) return state;
  const at = iso(nowTs);
  const last = state.history[state.history.length - 1];
  const point: HistoryPoint = {
    at,
    proposals: counts.proposals ?? last?.proposals ?? null,
    interviewing: counts.interviewing ?? last?.interviewing ?? null,
    hired: counts.hired ?? last?.hired ?? null,
  };
  const changed = last === undefined || point.proposals !== last.proposals || point.interviewing !== last.interviewing || point.hired !== last.hired;
  const history = changed ? [...state.history, point] : state.history;

  const peakProposals =
    point.proposals === null ? state.peakProposals : state.peakProposals === null ? point.proposals : Math.max(state.peakProposals, point.proposals);

  // Counts are constant between change points, so the last point at or before
  // now − 1 h holds the value an hour ago. None that old → unknown.
  const hourAgo = nowTs - HOUR;
  let before: HistoryPoint | undefined;
  for (const p of history) if (Date.parse(p.at) <= hourAgo) before = p;
  const proposalsLastHour = point.proposals !== null && before?.proposals != null ? point.proposals - before.proposals : null;

  const openingStatus = counts.openingStatus ?? state.openingStatus;
  const ageFrom = opts.publishTimeTs ?? Date.parse(state.startedAt);
  const reason = stopReason(openingStatus, point.hired, counts.positionsToHire) ?? (nowTs - ageFrom > opts.maxAgeMs ? STOP_AGE : null);

  return {
    ...state,
    active: reason === null,
    stoppedReason: reason,
    openingStatus,
    lastCheckedAt: at,
    checks: state.checks + 1,
    proposalsLastHour,
    peakProposals,
    history,
  };
}

// ---------- the spec's proposalActivity ----------

/** The counts as read from a document (less the opening status), plus where they came from and what they imply. */
export interface ProposalActivity extends Omit<ActivityCounts, "openingStatus"> {
  source: "tracker" | "scrape";
  competition: Competition | null;
  bidStats: BidStats | null;
  tracking?: TrackingView;
  history?: HistoryPointView[];
}

/** What the API shows of a tracking state: its times in Unix ms, like every time the spec does not call ISO. */
export type TrackingView = Omit<TrackingState, "history" | "startedAt" | "lastCheckedAt"> & { startedAt: number; lastCheckedAt: number };
export type HistoryPointView = Omit<HistoryPoint, "at"> & { at: number };

function publishTimeOf(doc: unknown): number | null {
  const r = normalizeJob(doc);
  return r.ok ? r.job.publishTimeTs : null;
}

/**
 * The spec's proposalActivity. With a tracking state → source "tracker": the
 * document's counts, except that proposals / interviewing / hired come from the
 * tracker's last point when the tracker checked after the document was
 * scraped; plus tracking and history. Without → source "scrape" (the counts of
 * the document = the first scrape). null when neither the document nor a
 * tracker carries any activity data.
 */
export function proposalActivity(doc: unknown, tracking: TrackingState | null, nowTs: number): ProposalActivity | null {
  const counts = countsOf(doc);
  const bidStats = bidStatsOf(doc);
  const hasData =
    bidStats !== null ||
    counts.lastClientActivity !== null ||
    [counts.proposals, counts.interviewing, counts.hired, counts.invitesSent, counts.unansweredInvites, counts.positionsToHire].some((c) => c !== null);
  if (!hasData && tracking === null) return null;

  let { proposals, interviewing, hired } = counts;
  const last = tracking?.history[tracking.history.length - 1];
  if (tracking !== null && last !== undefined) {
    const exploredAt = num(obj(doc)?.exploredAt);
    const trackerNewer = exploredAt === null || Date.parse(tracking.lastCheckedAt) > exploredAt;
    if (trackerNewer || proposals === null) proposals = last.proposals ?? proposals;
    if (trackerNewer || interviewing === null) interviewing = last.interviewing ?? interviewing;
    if (trackerNewer || hired === null) hired = last.hired ?? hired;
  }

  const activity: ProposalActivity = {
    source: tracking === null ? "scrape" : "tracker",
    proposals,
    interviewing,
    hired,
    invitesSent: counts.invitesSent,
    unansweredInvites: counts.unansweredInvites,
    positionsToHire: counts.positionsToHire,
    lastClientActivity: counts.lastClientActivity,
    competition: competitionOf(proposals, publishTimeOf(doc), nowTs),
    bidStats,
  };
  if (tracking !== null) {
    // Stored as ISO (the state's own format); shown as Unix ms.
    const { history, startedAt, lastCheckedAt, ...rest } = tracking;
    activity.tracking = { ...rest, startedAt: Date.parse(startedAt), lastCheckedAt: Date.parse(lastCheckedAt) };
    activity.history = history.map((p) => ({ ...p, at: Date.parse(p.at) }));
  }
  return activity;
}
