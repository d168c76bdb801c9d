/**
 * The sandbox marketplace's rules as pure functions: identities, Connects
 * prices, availability, eligibility and the client's engagement timeline.
 * Everything is derived from hashes of stable inputs (account id, application
 * id, the sandbox seed), never from ambient randomness, so the same inputs and
 * the same clock always give the same answer — tests and demos can rely on it.
 * The client's side of a proposal (view, reply, interview, hire, or passing on
 * it) is the outcome model at the end, documented in docs/sandbox-market.md.
 */
import type { JobType } from "../../db/enums";
import { sha256Hex } from "../../lib/hash";
import { detailRoots, first, num, obj, str, type Obj } from "../../lib/json-readers";
import { tokenize } from "../../lib/text";

export const DEFAULT_CONNECTS = 80;
export const DEFAULT_JOB_SUCCESS_SCORE = 92;
export const DEFAULT_HOURLY_RATE = 45;
export const DEFAULT_COUNTRY = "US";
export const DEFAULT_PROFILE_NAME = "Full-Stack Web Developer";
export const DEFAULT_SKILLS = ["JavaScript", "TypeScript", "React", "Node.js", "PostgreSQL", "REST APIs"];
export const SPECIALIZATION_NAME = "React & Node.js Specialist";
export const SPECIALIZATION_RATE = 55;
export const SPECIALIZATION_SKILLS = ["React", "Node.js", "TypeScript", "Next.js", "GraphQL"];
/** Jobs stop taking proposals this long after they were posted. */
const MAX_JOB_AGE_MS = 30 * 24 * 60 * 60 * 1000;
/** Price when a job's budget says nothing usable. */
const UNKNOWN_BUDGET_CONNECTS = 8;

const MINUTE_MS = 60_000;

const FIRST_NAMES = [
  "Olivia",
  "Liam",
  "Emma",
  "Noah",
  "Ava",
  "Elijah",
  "Sophia",
  "James",
  "Isabella",
  "Lucas",
  "Mia",
  "Mateo",
  "Amelia",
  "Ethan",
  "Harper",
  "Daniel",
  "Evelyn",
  "Samuel",
  "Abigail",
  "Jack",
  "Priya",
  "Arjun",
  "Chloe",
  "Marco",
];
const LAST_NAMES = [
  "Carter",
  "Nguyen",
  "Patel",
  "Rodriguez",
  "Kim",
  "Johnson",
  "Okafor",
  "Schmidt",
  "Rossi",
  "Walker",
  "Silva",
  "Chen",
  "Murphy",
  "Kowalski",
  "Haddad",
  "Bennett",
  "Morales",
  "Lindqvist",
  "Tanaka",
  "Brooks",
];
/** Default-profile titles for freelancers an admin adds (the account's own one is always DEFAULT_PROFILE_NAME). */
const PROFILE_TITLES = ["Full-Stack Web Developer", "Senior Software Engineer", "Mobile App Developer", "Data Engineer", "UI/UX Designer", "DevOps Engineer"];

/** A 32-bit unsigned integer taken from the hash of `input` at word `index` (0–7). */
function hashWord(input: string, index: number): number {
  return parseInt(sha256Hex(input).slice(index * 8, index * 8 + 8), 16);
}

/** A freelancer ciphertext like the marketplace's (`~01` + 16 hex): the account's own one, or one an admin added by name. */
export function freelancerIdFor(accountId: string, addedName?: string): string {
  const key = addedName === undefined ? `freelancer|${accountId}` : `freelancer|${accountId}|${addedName}`;
  return `~01${sha256Hex(key).slice(0, 16)}`;
}

/** A UUID-shaped id (version 8, "custom") derived from `key`, for specialization profiles. */
function uuidFromKey(key: string): string {
  const h = sha256Hex(key);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function specializationIdFor(accountId: string): string {
  return uuidFromKey(`${accountId}|spec`);
}

export function addedSpecializationIdFor(freelancerId: string, profileName: string): string {
  return uuidFromKey(`${freelancerId}|spec|${profileName}`);
}

/** A realistic full name, the same for the same account every time. */
export function nameFor(accountId: string): string {
  return `${FIRST_NAMES[hashWord(accountId, 0) % FIRST_NAMES.length]} ${LAST_NAMES[hashWord(accountId, 1) % LAST_NAMES.length]}`;
}

export function profileTitleFor(freelancerId: string): string {
  return PROFILE_TITLES[hashWord(freelancerId, 2) % PROFILE_TITLES.length]!;
}

// ---------------------------------------------------------------------------
// Reading the archived document, with the tolerant readers every document reader shares.

/** The posting's status as the marketplace reports it (authenticated details first), or null when not given. */
function openingStatus(doc: Obj): string | null {
  const { auth, pub } = detailRoots(doc);
  return first([obj(obj(auth?.opening)?.job)?.status, obj(pub?.opening)?.status], str)?.toUpperCase() ?? null;
}

/** The client's minimum Job Success Score (0–100), or null when the job sets none. */
function minJobSuccessScore(doc: Obj): number | null {
  const { auth, pub } = detailRoots(doc);
  return first([obj(obj(auth?.opening)?.qualifications), obj(auth?.qualifications), obj(pub?.qualifications)], (q) => num(q?.minJobSuccessScore));
}

// ---------------------------------------------------------------------------
// Decisions.

export interface BudgetFacts {
  jobType: JobType | null;
  fixedBudget: number | null;
  hourlyMin: number | null;
  hourlyMax: number | null;
}

/**
 * Connects needed to submit: the posting's own `connectPrice` when it has one,
 * otherwise a price that grows with the budget, as on the real marketplace.
 */
export function connectsPrice(doc: Obj, budget: BudgetFacts): number {
  const listed = doc.connectPrice;
  if (typeof listed === "number" && Number.isFinite(listed) && listed >= 0) return Math.round(listed);
  if (budget.jobType === "FIXED" && budget.fixedBudget !== null) {
    const b = budget.fixedBudget;
    return b < 100 ? 4 : b < 500 ? 8 : b < 2000 ? 12 : 16;
  }
  const rate = budget.hourlyMax ?? budget.hourlyMin;
  if (budget.jobType === "HOURLY" && rate !== null) return rate < 30 ? 6 : rate < 60 ? 10 : 14;
  return UNKNOWN_BUDGET_CONNECTS;
}

/** Boost bids are whole Connects; anything else counts as no boost. */
export function boostOf(boostBids: number): number {
  return Number.isFinite(boostBids) && boostBids > 0 ? Math.floor(boostBids) : 0;
}

/** Why the job no longer takes proposals, or null when it does. */
export function unavailableReason(job: { closed: boolean; publishTimeTs: number | null; document: Obj }, nowTs: number): string | null {
  if (job.closed) return "This job is no longer available: the client closed it";
  if (job.publishTimeTs !== null && nowTs - job.publishTimeTs > MAX_JOB_AGE_MS) {
    return "This job is no longer available: it was posted more than 30 days ago";
  }
  const status = openingStatus(job.document);
  if (status !== null && status !== "ACTIVE") return `This job is no longer available (status ${status})`;
  return null;
}

export interface FreelancerFacts {
  name: string;
  country: string;
  jobSuccessScore: number;
}

/** Why this freelancer may not apply to the job, or null when they may. */
export function ineligibleReason(job: { usOnly: boolean | null; document: Obj }, freelancer: FreelancerFacts): string | null {
  if (job.usOnly === true && freelancer.country !== "US") {
    return `This job only accepts freelancers located in the United States; ${freelancer.name} is in ${freelancer.country}`;
  }
  const minJss = minJobSuccessScore(job.document);
  if (minJss !== null && minJss > freelancer.jobSuccessScore) {
    return `This job requires a Job Success Score of at least ${minJss}%; ${freelancer.name} has ${freelancer.jobSuccessScore}%`;
  }
  return null;
}

export function notEnoughConnectsMessage(needed: number, available: number): string {
  return `Needs ${needed} Connects; ${available} available`;
}

// ---------------------------------------------------------------------------
// Engagement: when the client views and replies, seeded by the application id.

export interface EngagementPlan {
  /** The client opens the proposal this long after it was submitted (5 to 120 minutes). */
  viewDelayMs: number;
  /** The client replies this long after the view (10 to 240 minutes), or never (null, about half the time). */
  replyDelayMs: number | null;
}

export function engagementPlan(applicationId: string): EngagementPlan {
  const seed = `engagement|${applicationId}`;
  const viewMinutes = 5 + (hashWord(seed, 0) % 116);
  const replies = hashWord(seed, 1) % 2 === 0;
  const replyMinutes = 10 + (hashWord(seed, 2) % 231);
  return { viewDelayMs: viewMinutes * MINUTE_MS, replyDelayMs: replies ? replyMinutes * MINUTE_MS : null };
}

export interface EngagementTimes {
  viewedAtTs: number | null;
  repliedAtTs: number | null;
}

/**
 * The timeline at `nowTs`. Times already recorded always stand (an admin may
 * have forced them earlier), so viewed and replied never go back to false;
 * a reply is timed from the actual view.
 */
export function engagementAt(plan: EngagementPlan, submittedAtTs: number, recorded: EngagementTimes, nowTs: number): EngagementTimes {
  const plannedView = submittedAtTs + plan.viewDelayMs;
  const viewedAtTs = recorded.viewedAtTs ?? (nowTs >= plannedView ? plannedView : null);
  let repliedAtTs = recorded.repliedAtTs;
  if (repliedAtTs === null && viewedAtTs !== null && plan.replyDelayMs !== null) {
    const plannedReply = viewedAtTs + plan.replyDelayMs;
    if (nowTs >= plannedReply) repliedAtTs = plannedReply;
  }
  return { viewedAtTs, repliedAtTs };
}

// ---------------------------------------------------------------------------
// The outcome model: how likely the client is to view, reply, interview and hire, and when.
// Every parameter, its value and the figure it rests on is in docs/sandbox-market.md; change both together.

/** Bumped when the model changes meaning; a stored plan keeps the version it was drawn with. */
export const OUTCOME_MODEL_VERSION = 1;

/**
 * The model's parameters: logit terms per stage. A stage's probability is σ(base + Σ terms); each stage is
 * conditional on the one before it (reply given a view, interview given a reply, hire given an interview).
 */
export const OUTCOME_MODEL = {
  /** Base logits, calibrated so a decent proposal (see docs) is viewed ~60 %, replied ~27 %, interviewed ~15 %, hired ~6 %, and an average one replied ~12 %. */
  base: { view: 0.6, replyGivenView: -1.1, interviewGivenReply: 0.1, hireGivenInterview: -0.45 },
  /** Post age: the term is −slope × log2(age / 60 min), with log2 clamped to [−2, 5] (15 minutes to 32 hours). */
  age: { viewSlope: 0.15, replySlope: 0.15, clampLow: -2, clampHigh: 5 },
  /** Fit 0–1 (profile and letter against the job's skills): weight × (fit − 0.5). */
  fit: { reply: 2.0, interview: 1.0 },
  /** Bid ÷ budget: above `overFrom` costs `over*` per unit over (at most `overCap` units); below `underFrom` costs `under` × the shortfall share. */
  bid: { overFrom: 1.1, overReply: 1.2, overInterview: 0.6, overHire: 1.5, overCap: 1.5, underFrom: 0.6, under: 0.8 },
  /** Proposals already in: −weight × log2(1 + n / 10). */
  proposals: { view: 0.35, reply: 0.15 },
  /** Boost Connects b: view + weight × (1 − e^(−b / scale)), a top slot for a bid near the scale; hire via the views it brings. */
  boost: { view: 0.7, scaleConnects: 30 },
  /** Client quality. */
  client: {
    verifiedReply: 0.25,
    unverifiedReply: -0.7,
    /** Spent at least this much: a client who hires. Spent nothing: a first-time client. */
    spentWellFrom: 1000,
    spentWellReply: 0.2,
    spentNothingReply: -0.3,
    /** Rating below `lowRatingBelow` (with reviews behind it). */
    lowRatingBelow: 4,
    lowRatingReply: -0.3,
    /** Hire rate (jobs with a hire ÷ jobs posted): weight × (rate − 0.5). */
    hireRateReply: 0.5,
    hireRateHire: 1.0,
  },
  /** Letter length in words: shorter than `shortBelow` costs up to `short`, longer than `longAbove` up to `long` (at twice that length). */
  length: { shortBelow: 80, short: 1.0, longAbove: 350, long: 0.6 },
  /** Speaks to the job: share of the job's own terms (title and skills, up to `terms`) the letter uses; weight × (share − centre). */
  specific: { reply: 1.2, centre: 0.4, terms: 6 },
  /** Near-identical to a recent letter of the same freelancer: −weight × clamp((similarity − from) / (to − from), 0, 1). */
  duplicate: { reply: 2.0, from: 0.5, to: 0.9, recentLetters: 50 },
  /** Delays in minutes, before the time scale: min + exponential with this mean, capped at min + 10 × mean. */
  delays: {
    view: { min: 5, mean: 60 },
    reply: { min: 10, mean: 120 },
    interview: { min: 30, mean: 720 },
    hire: { min: 360, mean: 2160 },
    /** After the last stage the client reached, it passes (closes the job or hires someone else). */
    lost: { min: 2880, mean: 7200 },
  },
} as const;

/** What the model reads of a proposal. Null means unknown: its term is 0. */
export interface ProposalFacts {
  /** 0–1: how much of the job's skills the profile (70 %) and the letter (30 %) cover; 0.5 when the job lists none. */
  fit: number;
  /** Submission time − the job's publish time. */
  postAgeMs: number | null;
  /** The bid ÷ the budget (hourly: rate ÷ the top of the range; fixed: bid ÷ price). */
  bidRatio: number | null;
  /** Proposals the job had when this one came in. */
  proposals: number | null;
  /** Connects bid on boost (the boost's price). */
  boostConnects: number;
  paymentVerified: boolean | null;
  clientSpent: number | null;
  clientRating: number | null;
  clientReviews: number | null;
  /** Jobs with a hire ÷ jobs posted, 0–1. */
  clientHireRate: number | null;
  letterWords: number;
  /** 0–1: share of the job's own terms the letter uses. */
  specificity: number;
  /** 0–1: the highest resemblance to one of the freelancer's recent letters (Jaccard of word-shingle sketches). */
  similarity: number;
}

export interface StageProbabilities {
  view: number;
  replyGivenView: number;
  interviewGivenReply: number;
  hireGivenInterview: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
const clampTo = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** Every stage's probability for these facts: the documented logistic model, nothing random. */
export function stageProbabilities(f: ProposalFacts): StageProbabilities {
  const m = OUTCOME_MODEL;
  const age = f.postAgeMs === null ? 0 : clampTo(Math.log2(Math.max(f.postAgeMs, 1) / (60 * MINUTE_MS)), m.age.clampLow, m.age.clampHigh);
  const fit = clampTo(f.fit, 0, 1) - 0.5;
  const over = f.bidRatio === null ? 0 : clampTo(f.bidRatio - m.bid.overFrom, 0, m.bid.overCap);
  const under = f.bidRatio === null ? 0 : clampTo((m.bid.underFrom - f.bidRatio) / m.bid.underFrom, 0, 1);
  const crowd = f.proposals === null ? 0 : Math.log2(1 + Math.max(0, f.proposals) / 10);
  const boost = 1 - Math.exp(-Math.max(0, f.boostConnects) / m.boost.scaleConnects);
  const c = m.client;
  const verified = f.paymentVerified === true ? c.verifiedReply : f.paymentVerified === false ? c.unverifiedReply : 0;
  const spent = f.clientSpent === null ? 0 : f.clientSpent >= c.spentWellFrom ? c.spentWellReply : f.clientSpent <= 0 ? c.spentNothingReply : 0;
  const rating = f.clientRating !== null && (f.clientReviews ?? 0) > 0 && f.clientRating < c.lowRatingBelow ? c.lowRatingReply : 0;
  const hireRate = f.clientHireRate === null ? 0 : clampTo(f.clientHireRate, 0, 1) - 0.5;
  const short = f.letterWords < m.length.shortBelow ? -m.length.short * ((m.length.shortBelow - f.letterWords) / m.length.shortBelow) : 0;
  const long = f.letterWords > m.length.longAbove ? -m.length.long * Math.min(1, (f.letterWords - m.length.longAbove) / m.length.longAbove) : 0;
  const specific = m.specific.reply * (clampTo(f.specificity, 0, 1) - m.specific.centre);
  const dup = -m.duplicate.reply * clampTo((f.similarity - m.duplicate.from) / (m.duplicate.to - m.duplicate.from), 0, 1);

  return {
    view: sigmoid(m.base.view - m.age.viewSlope * age - m.proposals.view * crowd + m.boost.view * boost),
    replyGivenView: sigmoid(
      m.base.replyGivenView -
        m.age.replySlope * age +
        m.fit.reply * fit -
        m.bid.overReply * over -
        m.bid.under * under -
        m.proposals.reply * crowd +
        verified +
        spent +
        rating +
        c.hireRateReply * hireRate +
        short +
        long +
        specific +
        dup,
    ),
    interviewGivenReply: sigmoid(m.base.interviewGivenReply + m.fit.interview * fit - m.bid.overInterview * over),
    hireGivenInterview: sigmoid(m.base.hireGivenInterview + c.hireRateHire * hireRate - m.bid.overHire * over),
  };
}

/**
 * A small fast PRNG (sfc32) seeded from the SHA-256 of `key`: the same key always gives the same stream, so a
 * plan is reproducible from the sandbox seed and the application id alone.
 */
export function seededRandom(key: string): () => number {
  let [a, b, c, d] = [0, 1, 2, 3].map((i) => hashWord(key, i)) as [number, number, number, number];
  return () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/** The plan drawn at submission and stored with it (sandbox_submissions.plan). Delays are already divided by the time scale. */
export interface OutcomePlan {
  model: typeof OUTCOME_MODEL_VERSION;
  timeScale: number;
  facts: ProposalFacts;
  p: StageProbabilities;
  /** From submission to the view, or null: never viewed. */
  viewDelayMs: number | null;
  /** From the view to the reply, or null: no reply. */
  replyDelayMs: number | null;
  /** From the reply to the interview, or null. */
  interviewDelayMs: number | null;
  /** From the interview to the hire, or null. */
  hireDelayMs: number | null;
  /** From the last stage reached to the client passing; null only when the plan ends in a hire. */
  lostDelayMs: number | null;
  /** The letter's word-shingle sketch, compared with the freelancer's later letters. */
  fingerprint: number[];
}

/** Draws a plan: stage decisions from uniform draws in a fixed order (so one seed moves monotonically with each factor), then the delays. */
export function drawPlan(facts: ProposalFacts, fingerprint: number[], opts: { seed: number; applicationId: string; timeScale: number }): OutcomePlan {
  const rand = seededRandom(`outcome|${opts.seed}|${opts.applicationId}`);
  const p = stageProbabilities(facts);
  const [uView, uReply, uInterview, uHire] = [rand(), rand(), rand(), rand()];
  const scale = Math.max(1, opts.timeScale);
  const delay = (d: { min: number; mean: number }) => {
    const minutes = d.min + Math.min(10 * d.mean, -d.mean * Math.log(1 - rand()));
    return Math.max(1, Math.round((minutes * MINUTE_MS) / scale));
  };
  const D = OUTCOME_MODEL.delays;
  // Delays are drawn whether or not the stage comes, so a stage's timing never depends on another stage's decision.
  const [dView, dReply, dInterview, dHire, dLost] = [delay(D.view), delay(D.reply), delay(D.interview), delay(D.hire), delay(D.lost)];
  const viewed = uView < p.view;
  const replied = viewed && uReply < p.replyGivenView;
  const interviewed = replied && uInterview < p.interviewGivenReply;
  const hired = interviewed && uHire < p.hireGivenInterview;
  return {
    model: OUTCOME_MODEL_VERSION,
    timeScale: scale,
    facts,
    p,
    viewDelayMs: viewed ? dView : null,
    replyDelayMs: replied ? dReply : null,
    interviewDelayMs: interviewed ? dInterview : null,
    hireDelayMs: hired ? dHire : null,
    lostDelayMs: hired ? null : dLost,
    fingerprint,
  };
}

/** A stored plan, or null for a submission from before the model (no plan, or one this code cannot read): it keeps the hash plan. */
export function readPlan(stored: unknown): OutcomePlan | null {
  const p = obj(stored);
  if (!p || p.model !== OUTCOME_MODEL_VERSION) return null;
  const delay = (v: unknown) => (v === null || (typeof v === "number" && Number.isFinite(v) && v >= 0) ? (v as number | null) : undefined);
  const delays = [p.viewDelayMs, p.replyDelayMs, p.interviewDelayMs, p.hireDelayMs, p.lostDelayMs].map(delay);
  if (delays.some((d) => d === undefined)) return null;
  return stored as OutcomePlan;
}

// Reading a proposal's facts.

/** Words too common in job posts and letters to say anything about a particular job. */
const STOPWORDS = new Set(
  (
    "the and for with you your our are this that from have has will can not but all any who what when where how its into about " +
    "need needed looking want help job project work team experience experienced developer expert someone freelancer looking " +
    "build building create new long term quick fix urgent asap ongoing startup senior junior level hello dear thanks regards best"
  ).split(" "),
);

const contentWords = (text: string) => tokenize(text).filter((w) => w.length >= 3 && !STOPWORDS.has(w));

/** 32-bit FNV-1a of a string: cheap and stable, for shingle sketches. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
}

const SKETCH_SIZE = 64;

/** The letter's sketch: the SKETCH_SIZE smallest hashes of its 3-word shingles (a bottom-k MinHash), sorted. */
export function letterFingerprint(letter: string): number[] {
  const words = tokenize(letter);
  const shingles = new Set<number>();
  if (words.length < 3) for (const w of words) shingles.add(fnv1a(w));
  for (let i = 0; i + 3 <= words.length; i++) shingles.add(fnv1a(`${words[i]} ${words[i + 1]} ${words[i + 2]}`));
  return [...shingles].sort((a, b) => a - b).slice(0, SKETCH_SIZE);
}

/** Resemblance of two sketches, 0–1: the bottom-k estimate of the Jaccard index of the letters' shingle sets. */
export function sketchSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const inB = new Set(b);
  const inA = new Set(a);
  const union = [...new Set([...a, ...b])].sort((x, y) => x - y).slice(0, SKETCH_SIZE);
  let both = 0;
  for (const h of union) if (inA.has(h) && inB.has(h)) both++;
  return both / union.length;
}

/** Whether every word of a skill label is among `words` ("Node.js" → node, js). */
const covers = (words: ReadonlySet<string>, label: string) => {
  const parts = tokenize(label);
  return parts.length > 0 && parts.every((p) => words.has(p));
};

export interface ProposalInput {
  job: { title: string; description: string; skills: string[]; publishTimeTs: number | null; document: Obj };
  budget: BudgetFacts;
  client: { paymentVerified: boolean | null; totalSpent: number | null; rating: number | null; reviews: number | null };
  profile: { name: string; skills: readonly string[] };
  coverLetter: string;
  bid: { hourlyRate: number | null; fixedBid: number | null; boostBids: number };
  submittedAtTs: number;
  /** Sketches of the freelancer's recent letters, newest first. */
  recentFingerprints: readonly (readonly number[])[];
}

/** Proposals the job had in (the details' client activity, else the search tile), or null when it does not say. */
function proposalsIn(doc: Obj): number | null {
  const { auth, pub } = detailRoots(doc);
  const tile = obj(obj(doc.jobTile)?.job);
  return first(
    [obj(obj(obj(auth?.opening)?.job)?.clientActivity)?.totalApplicants, obj(obj(pub?.opening)?.clientActivity)?.totalApplicants, tile?.totalApplicants],
    (v) => {
      const n = num(v);
      return n !== null && n >= 0 ? n : null;
    },
  );
}

/** The client's hire rate: jobs with a hire ÷ jobs posted, from the details' buyer, else the search tile's client. */
function clientHireRate(doc: Obj): number | null {
  const { auth, pub } = detailRoots(doc);
  const infos = [obj(obj(auth?.buyer)?.info), obj(obj(pub?.buyer)?.info)];
  const feed = obj(obj(doc.upworkHistoryData)?.client);
  const posted = first([...infos.map((i) => obj(i?.jobs)?.postedCount), feed?.totalPostedJobs], (v) => num(v));
  const hired = first([...infos.map((i) => obj(i?.stats)?.totalJobsWithHires), feed?.totalJobsWithHires, feed?.totalHires], (v) => num(v));
  if (posted === null || hired === null || posted <= 0) return null;
  return clampTo(hired / posted, 0, 1);
}

/** What the model reads of a proposal: pure, from the job document, the profile and the letter. */
export function proposalFacts(input: ProposalInput): ProposalFacts {
  const letterWords = tokenize(input.coverLetter);
  const letterSet = new Set(letterWords);
  const profileSet = new Set([...input.profile.skills.flatMap(tokenize), ...tokenize(input.profile.name)]);
  const skills = input.job.skills.filter((s) => tokenize(s).length > 0);
  const fit =
    skills.length === 0
      ? 0.5
      : 0.7 * (skills.filter((s) => covers(profileSet, s)).length / skills.length) + 0.3 * (skills.filter((s) => covers(letterSet, s)).length / skills.length);
  // The job's own terms: its skills' words and its title's content words, the ones a tailored letter picks up.
  const terms = [...new Set([...skills.flatMap(tokenize), ...contentWords(input.job.title)])];
  const wanted = Math.min(terms.length, OUTCOME_MODEL.specific.terms);
  const specificity = wanted === 0 ? 0.5 : Math.min(1, terms.filter((w) => letterSet.has(w)).length / wanted);
  const fingerprint = letterFingerprint(input.coverLetter);
  const similarity = input.recentFingerprints.reduce((best, other) => Math.max(best, sketchSimilarity(fingerprint, other)), 0);
  const b = input.budget;
  const ratio = (mine: number | null, theirs: number | null) => (mine !== null && mine > 0 && theirs !== null && theirs > 0 ? mine / theirs : null);
  const bidRatio = input.bid.hourlyRate !== null ? ratio(input.bid.hourlyRate, b.hourlyMax ?? b.hourlyMin) : ratio(input.bid.fixedBid, b.fixedBudget);
  return {
    fit: Math.round(fit * 1000) / 1000,
    postAgeMs: input.job.publishTimeTs === null ? null : Math.max(0, input.submittedAtTs - input.job.publishTimeTs),
    bidRatio: bidRatio === null ? null : Math.round(bidRatio * 1000) / 1000,
    proposals: proposalsIn(input.job.document),
    boostConnects: boostOf(input.bid.boostBids),
    paymentVerified: input.client.paymentVerified,
    clientSpent: input.client.totalSpent,
    clientRating: input.client.rating,
    clientReviews: input.client.reviews,
    clientHireRate: clientHireRate(input.job.document),
    letterWords: letterWords.length,
    specificity: Math.round(specificity * 1000) / 1000,
    similarity: Math.round(similarity * 1000) / 1000,
  };
}

/** Times a submission has reached. */
export interface OutcomeTimes extends EngagementTimes {
  interviewAtTs: number | null;
  hiredAtTs: number | null;
  lostAtTs: number | null;
}

/**
 * The timeline at `nowTs` under a model plan. As with the hash plan, recorded times stand (an admin may have forced
 * them) and each stage is timed from the actual time of the one before. The client passes (lost) after the last
 * stage it reached when the plan has no next one; a hire and a loss exclude each other, whichever was recorded first.
 */
export function outcomeAt(plan: OutcomePlan, submittedAtTs: number, recorded: OutcomeTimes, nowTs: number): OutcomeTimes {
  const reach = (prev: number | null, delay: number | null) => (prev !== null && delay !== null && nowTs >= prev + delay ? prev + delay : null);
  const viewedAtTs = recorded.viewedAtTs ?? reach(submittedAtTs, plan.viewDelayMs);
  const repliedAtTs = recorded.repliedAtTs ?? reach(viewedAtTs, plan.replyDelayMs);
  const interviewAtTs = recorded.interviewAtTs ?? reach(repliedAtTs, plan.interviewDelayMs);
  const hiredAtTs = recorded.hiredAtTs ?? (recorded.lostAtTs === null ? reach(interviewAtTs, plan.hireDelayMs) : null);
  let lostAtTs = recorded.lostAtTs;
  if (lostAtTs === null && hiredAtTs === null) {
    // The last stage reached, and whether the plan has one after it still to come.
    const [last, next] =
      interviewAtTs !== null
        ? [interviewAtTs, plan.hireDelayMs]
        : repliedAtTs !== null
          ? [repliedAtTs, plan.interviewDelayMs]
          : viewedAtTs !== null
            ? [viewedAtTs, plan.replyDelayMs]
            : [submittedAtTs, plan.viewDelayMs];
    if (next === null) lostAtTs = reach(last, plan.lostDelayMs);
  }
  return { viewedAtTs, repliedAtTs, interviewAtTs, hiredAtTs, lostAtTs };
}
