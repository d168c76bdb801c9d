/**
 * The sandbox marketplace's rules as pure functions: identities, Connects
 * prices, availability, eligibility and the client's engagement timeline.
 * Everything is derived from hashes of stable inputs (account id, application
 * id), never from randomness, so the same inputs and the same clock always
 * give the same answer — tests and demos can rely on it.
 */
import type { JobType } from "../../db/enums";
import { sha256Hex } from "../../lib/hash";
import { detailRoots, first, num, obj, str, type Obj } from "../../lib/json-readers";

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
