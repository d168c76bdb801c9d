/**
 * The sandbox marketplace over time: `evolveSandboxJob` answers "what does this generated job look like at
 * nowTs?", so re-scrapes and the proposal tracker see counts move as on the marketplace. It is a pure function
 * of (doc, nowTs) whose counts never go down, and evolving an evolved document gives the same result, which the
 * tracker relies on (see docs/architecture.md, 'Sandbox jobs over time').
 */
import type { JobDocument } from "../document";
import { iso } from "../../lib/time";
import { num } from "../../lib/json-readers";
import { MINUTE, Rng, round2 } from "./companies";

const HOUR = 60 * MINUTE;
/** The generator publishes counts once a job is two minutes old. */
const UNPUBLISHED_MS = 2 * MINUTE;

type Obj = Record<string, any>;

interface Plan {
  publishTs: number;
  ceiling: number;
  tauHours: number;
  /** Absolute times (ms) of each event; counts are how many are at or before the clock. */
  interviews: number[];
  invites: number[];
  unanswered: number[];
  hires: number[];
  /** Client visits without another event: every visitGap from publish. */
  visitGapMs: number;
  /** Infinity for a job that stays open. */
  closeTs: number;
  positionsToHire: number;
  bids: { center: number; minFrac: number; maxFrac: number; phase: number };
}

interface Counts {
  proposals: number | null;
  interviewing: number | null;
  hired: number | null;
  invitesSent: number | null;
  unansweredInvites: number | null;
  lastBuyerActivity: number | null;
}

const countAt = (times: number[], ts: number) => times.filter((t) => t <= ts).length;

function timeOf(v: unknown): number | null {
  if (typeof v !== "string") return null;
  const ts = Date.parse(v);
  return Number.isFinite(ts) ? ts : null;
}

/** Proposals at a given time: a saturating curve, null while unpublished. */
function proposalsAt(plan: Plan, ts: number): number | null {
  const age = ts - plan.publishTs;
  if (age < UNPUBLISHED_MS) return null;
  // Never above the ceiling; it reaches it once e^(−x) underflows (1 − e^(−x) is then exactly 1).
  return Math.floor(plan.ceiling * (1 - Math.exp(-age / HOUR / plan.tauHours)));
}

/** When the proposal curve first reaches k (k below the ceiling). */
function timeToReach(plan: Plan, k: number): number {
  const hours = -plan.tauHours * Math.log(1 - k / plan.ceiling);
  return plan.publishTs + Math.max(UNPUBLISHED_MS, Math.ceil(hours * HOUR));
}

function planFor(publishTs: number, positionsToHire: number, originalProposals: number, bidCenter: number, rng: Rng): Plan {
  // A job already past the drawn ceiling at its first scrape keeps its own count
  // as the ceiling (so evolving an evolved document draws the same ceiling).
  const ceiling = Math.max(Math.round(Math.exp(rng.range(Math.log(5), Math.log(80)))), originalProposals);
  const plan: Plan = {
    publishTs,
    ceiling,
    tauHours: rng.range(1, 6),
    interviews: [],
    invites: [],
    unanswered: [],
    hires: [],
    visitGapMs: Math.round(rng.range(2, 24) * HOUR),
    closeTs: Infinity,
    positionsToHire,
    bids: { center: bidCenter, minFrac: rng.range(0.2, 0.7), maxFrac: rng.range(1.3, 2.5), phase: rng.range(0, 2 * Math.PI) },
  };

  const outcome = rng.next();
  const hires = outcome < 0.4;
  if (hires) plan.closeTs = publishTs + Math.round(rng.range(24, 120) * HOUR);
  else if (outcome < 0.65) plan.closeTs = publishTs + Math.round(rng.range(12, 240) * HOUR);

  // Interviews: once k0 proposals are in, after a delay, then every few hours.
  const interviewCap = hires ? rng.int(positionsToHire, positionsToHire + 5) : rng.chance(0.35) ? 0 : rng.int(1, 6);
  let t = timeToReach(plan, Math.min(rng.int(1, 4), ceiling - 1)) + Math.round(rng.range(0.5, 8) * HOUR);
  for (let i = 0; i < interviewCap; i++) {
    plan.interviews.push(t);
    t += Math.round(rng.range(1, 18) * HOUR);
  }

  // Invitations in the first day or two; some are never answered.
  const inviteCount = rng.chance(0.35) ? rng.int(1, 8) : 0;
  t = publishTs + UNPUBLISHED_MS + Math.round(rng.range(0, 12) * HOUR);
  for (let i = 0; i < inviteCount; i++) {
    plan.invites.push(t);
    if (rng.chance(0.4)) plan.unanswered.push(t);
    t += Math.round(rng.range(0.5, 24) * HOUR);
  }

  // Hires: the last one closes the job; earlier ones (several positions) a few hours apart.
  if (hires) {
    const gapMs = Math.round(rng.range(1, 8) * HOUR);
    for (let k = 1; k <= positionsToHire; k++) {
      plan.hires.push(Math.max(publishTs + HOUR, plan.closeTs - (positionsToHire - k) * gapMs));
    }
  }
  return plan;
}

/** The model's counts at ts; activity freezes when the job closes. */
function modelAt(plan: Plan, ts: number): Counts {
  const at = Math.min(ts, plan.closeTs);
  const proposals = proposalsAt(plan, at);
  if (proposals === null) {
    return { proposals: null, interviewing: null, hired: null, invitesSent: null, unansweredInvites: null, lastBuyerActivity: null };
  }
  const hired = countAt(plan.hires, at);
  // Interviews draw on applicants, and everyone hired was interviewed.
  const interviewing = Math.max(Math.min(countAt(plan.interviews, at), proposals), hired);
  const sinceVisit = (at - plan.publishTs) % plan.visitGapMs;
  const events = [plan.publishTs, at - sinceVisit, ...[...plan.interviews, ...plan.invites, ...plan.hires].filter((e) => e <= at)];
  return {
    proposals,
    interviewing,
    hired,
    invitesSent: countAt(plan.invites, at),
    unansweredInvites: countAt(plan.unanswered, at),
    lastBuyerActivity: Math.max(...events),
  };
}

/** Shallow-copies each object along `path` below `node` into its parent and returns the last copy; undefined when a step is not an object. */
function ownPath(node: Obj, path: string[]): Obj | undefined {
  for (const key of path) {
    const next = node[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) return undefined;
    node = node[key] = { ...next };
  }
  return node;
}

/** max(model, floor), where null is "not yet published" and loses to any number. */
function atLeast(model: number | null, floor: number | null): number | null {
  if (floor === null) return model;
  return model === null ? floor : Math.max(model, floor);
}

/** The three bid figures for p proposals: one bid → all equal; the spread widens as bids come in. */
function bidsFor(plan: Plan, proposals: number | null): [number | null, number | null, number | null] {
  if (proposals === null || proposals === 0) return [null, null, null];
  const { center, minFrac, maxFrac, phase } = plan.bids;
  const spread = 1 - Math.exp(-(proposals - 1) / 8);
  const wobble = 0.1 * Math.sin(proposals * 1.7 + phase) * spread; // |wobble| < 1 − minFrac and < maxFrac − 1
  return [round2(center * (1 + wobble)), round2(center * (1 - (1 - minFrac) * spread)), round2(center * (1 + (maxFrac - 1) * spread))];
}

/**
 * The sandbox marketplace's job as it looks at `nowTs`: a copy of the generated document whose clientActivity
 * counts (in both details bodies and the tile's totalApplicants), lastBuyerActivity, applicantsBidsStats and
 * opening status have moved on deterministically (seeded by the ciphertext) since the job was published:
 * proposals rise quickly in the first hours then level off (per-job ceiling, e.g. 5–80), interviews start after
 * some proposals, some jobs hire (hired = positionsToHire) and close after 1–5 days, some simply close. Counts
 * never go down. Pure: same (doc, nowTs) → same result; exploredAt = nowTs.
 */
export function evolveSandboxJob(doc: JobDocument, nowTs: number): JobDocument {
  // Copy-on-write: the objects on the paths that change are copied, the rest
  // (description, buyer, work history…) is shared with the input, which is
  // never modified: a deep copy of every re-scrape would cost far more (docs/performance.md, 'Why the code is as it is').
  const out: Obj = { ...doc, exploredAt: nowTs };
  const tile = ownPath(out, ["jobTile", "job"]);
  const pubOpening = ownPath(out, ["jobDetailsResponse", "data", "jobPubDetails", "opening"]);
  const authRoot = ownPath(out, ["authJobDetailsResponse", "data", "jobAuthDetails"]);
  const authJob = authRoot && ownPath(authRoot, ["opening", "job"]);
  const bidStats = authRoot && ownPath(authRoot, ["applicantsBidsStats"]);
  const activities = [authJob && ownPath(authJob, ["clientActivity"]), pubOpening && ownPath(pubOpening, ["clientActivity"])].filter(
    (a): a is Obj => a !== undefined,
  );

  const publishTs = timeOf(tile?.publishTime) ?? timeOf(pubOpening?.publishTime) ?? timeOf(authJob?.publishTime);
  if (publishTs === null) return out as JobDocument;

  // The document as generated (or last evolved): its counts are a floor once the clock has reached its scrape.
  const first = activities[0];
  const floorApplies = typeof doc.exploredAt !== "number" || nowTs >= doc.exploredAt;
  const floor = (key: string, fallback?: unknown) => (floorApplies ? num(first !== undefined ? first[key] : fallback) : null);
  const floors: Counts = {
    proposals: floor("totalApplicants", activities.length === 0 ? tile?.totalApplicants : undefined),
    interviewing: floor("totalInvitedToInterview"),
    hired: floor("totalHired"),
    invitesSent: floor("invitationsSent"),
    unansweredInvites: floor("unansweredInvites"),
    lastBuyerActivity: floorApplies ? timeOf(first?.lastBuyerActivity) : null,
  };
  const positionsToHire = Math.max(1, num(first?.numberOfPositionsToHire) ?? num(tile?.personsToHire) ?? 1);

  // Bids centre on the client's budget, never on the document's current average:
  // the tracker evolves its own last output again and again, and a centre taken
  // from the previous average would compound.
  const hourly = String(tile?.jobType ?? authJob?.info?.type ?? pubOpening?.info?.type).toUpperCase() === "HOURLY";
  const budgetOpening = authJob ?? pubOpening;
  const rng = new Rng(`evolve|${tile?.ciphertext ?? doc.id}`);
  const bidCenter = hourly
    ? (num(budgetOpening?.extendedBudgetInfo?.hourlyBudgetMin) || 30) * rng.range(0.9, 1.4)
    : (num(budgetOpening?.budget?.amount) || 300) * rng.range(0.8, 1.2);

  const plan = planFor(publishTs, positionsToHire, floors.proposals ?? 0, bidCenter, rng);
  const model = modelAt(plan, nowTs);
  const counts: Counts = {
    proposals: atLeast(model.proposals, floors.proposals),
    interviewing: atLeast(model.interviewing, floors.interviewing),
    hired: atLeast(model.hired, floors.hired),
    invitesSent: atLeast(model.invitesSent, floors.invitesSent),
    unansweredInvites: atLeast(model.unansweredInvites, floors.unansweredInvites),
    lastBuyerActivity: atLeast(model.lastBuyerActivity, floors.lastBuyerActivity),
  };
  const status = nowTs >= plan.closeTs ? "CLOSED" : "ACTIVE";

  for (const activity of activities) {
    activity.lastBuyerActivity = counts.lastBuyerActivity === null ? null : iso(counts.lastBuyerActivity);
    activity.totalApplicants = counts.proposals;
    activity.totalHired = counts.hired;
    activity.totalInvitedToInterview = counts.interviewing;
    activity.unansweredInvites = counts.unansweredInvites;
    activity.invitationsSent = counts.invitesSent;
  }
  if (authJob !== undefined) authJob.status = status;
  if (pubOpening !== undefined) pubOpening.status = status;
  // The generator's tile says 0 while details say null; keep that convention.
  if (tile !== undefined) tile.totalApplicants = counts.proposals ?? 0;

  if (bidStats !== undefined) {
    const [avg, min, max] = bidsFor(plan, counts.proposals);
    const old = (key: string) => (floorApplies ? num(bidStats[key]?.amount) : null);
    const oldMin = old("minRateBid");
    const oldMax = old("maxRateBid");
    // More bidders can only widen the range.
    const set = (key: string, amount: number | null) => {
      bidStats[key] = {
        ...(typeof bidStats[key] === "object" && bidStats[key] !== null ? bidStats[key] : {}),
        amount,
        currencyCode: bidStats[key]?.currencyCode ?? "USD",
      };
    };
    set("avgRateBid", avg ?? old("avgRateBid"));
    set("minRateBid", min === null ? oldMin : oldMin === null ? min : Math.min(min, oldMin));
    set("maxRateBid", max === null ? oldMax : oldMax === null ? max : Math.max(max, oldMax));
  }
  return out as JobDocument;
}
