/**
 * The five operations a remote submitter performs for jobpilot — the user's
 * bridge endpoint (marketplace/bridge) or the browser companion extension
 * (marketplace/companion) — and the answers it gives. Both drivers build the
 * same bodies and read the same answers here, so a submitter written for one
 * understands the other.
 */
import { t, type Static } from "elysia";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { FINAL_STATUSES, JOB_TYPES, PROFILE_TYPES } from "../../db/enums";
import { literalUnion } from "../../http/schemas";
import { isOneOf } from "../../lib/one-of";
import type { Engagement, FinalStatus, Freelancer, SubmitOutcome, SubmitRequest } from "../driver";

export const FinalStatusSchema = literalUnion(FINAL_STATUSES);

const MAX_MESSAGE_CHARS = 1000;

// ---- The operations (what jobpilot sends) ----

export const SubmitOperation = t.Object({
  type: t.Literal("proposal.submit"),
  applicationId: t.String({ description: "Our queue id: the idempotency key; never submit twice for one applicationId" }),
  accountId: t.String(),
  freelancerId: t.String(),
  profileId: t.String(),
  job: t.Object({
    ciphertext: t.String(),
    url: t.String(),
    title: t.String(),
    jobType: t.Union([literalUnion(JOB_TYPES), t.Null()]),
  }),
  coverLetter: t.String(),
  bid: t.Object({
    hourlyRate: t.Union([t.Number(), t.Null()]),
    fixedBid: t.Union([t.Number(), t.Null()]),
    timeline: t.String(),
    boostBids: t.Integer({ minimum: 0 }),
  }),
  answers: t.Array(t.Object({ position: t.Integer({ minimum: 0 }), answer: t.String() }), { description: "Screening answers by position" }),
});
export type SubmitOperation = Static<typeof SubmitOperation>;

export const LookupOperation = t.Object({ type: t.Literal("proposal.lookup"), applicationId: t.String(), accountId: t.String() });
export const EngagementOperation = t.Object({ type: t.Literal("proposal.engagement"), applicationId: t.String(), accountId: t.String() });
export const FreelancersOperation = t.Object({ type: t.Literal("freelancers.list"), accountId: t.String() });
export const ReconnectOperation = t.Object({ type: t.Literal("session.reconnect"), accountId: t.String() });

export const OPERATION_TYPES = ["proposal.submit", "proposal.lookup", "proposal.engagement", "freelancers.list", "session.reconnect"] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];

/** proposal.submit: everything the form needs. The archived document stays here; the submitter reads the page. */
export function submitOperation(req: SubmitRequest): SubmitOperation {
  return {
    type: "proposal.submit",
    applicationId: req.applicationId,
    accountId: req.accountId,
    freelancerId: req.freelancerId,
    profileId: req.profileId,
    job: { ciphertext: req.job.ciphertext, url: req.job.url, title: req.job.title, jobType: req.job.jobType },
    coverLetter: req.coverLetter,
    bid: req.bid,
    answers: req.answers,
  };
}

export const lookupOperation = (applicationId: string, accountId: string) => ({ type: "proposal.lookup" as const, applicationId, accountId });
export const engagementOperation = (applicationId: string, accountId: string) => ({ type: "proposal.engagement" as const, applicationId, accountId });
export const freelancersOperation = (accountId: string) => ({ type: "freelancers.list" as const, accountId });
export const reconnectOperation = (accountId: string) => ({ type: "session.reconnect" as const, accountId });

// ---- The answers (what the submitter sends back). Extra fields are allowed and ignored. ----

export const OutcomeReply = t.Object({ status: FinalStatusSchema, message: t.Optional(t.String()) });

/**
 * What an applied submission cost, as the submitter read it off the page: optional, and both capped well above any
 * real proposal so a typo cannot make the funnel's Connects cost absurd. The bridge callback and the companion's
 * submitted outcome carry these two fields; the sandbox reports them itself.
 */
// TypeBox's own integer: Elysia's t.Integer also takes a numeric string, which a count in JSON must not be.
const connectsCount = (description: string) => t.Optional(Type.Integer({ minimum: 0, maximum: 1000, description }));
export const ReportedConnects = {
  connectsRequired: connectsCount("applied only: the Connects submitting the proposal took (the job's price), when the page showed it"),
  boostConnects: connectsCount("applied only: the Connects bid on boost; 0 when left out and connectsRequired is given"),
};
const ReportedConnectsSchema = t.Object(ReportedConnects);

/** The most Connects a balance report may say: far above any freelancer's or agency's real balance, so a typo is refused. */
export const MAX_CONNECTS_BALANCE = 100_000;
/**
 * The freelancer's available Connects after the attempt, as the submitter read them (any status: a refusal for want of
 * Connects says the balance too). Optional; kept as the freelancer's balance, which the governor checks.
 */
export const ReportedBalance = {
  connectsAvailable: t.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_CONNECTS_BALANCE,
      description: "The freelancer's available Connects after this attempt, when the page showed them",
    }),
  ),
};
const ReportedBalanceSchema = t.Object(ReportedBalance);

/** A reply's connectsAvailable when it is a usable count (else undefined: a bad balance must not cost a proposal its status). */
export function reportedBalance(body: unknown): number | undefined {
  return Value.Check(ReportedBalanceSchema, body) ? (body as Static<typeof ReportedBalanceSchema>).connectsAvailable : undefined;
}

/**
 * The Connects of a reply with those fields: none without connectsRequired (the cost is unknown, the funnel says
 * null), a boost left out counting as none. Only an applied outcome is charged Connects, so only it keeps them.
 */
export function reportedConnects(status: FinalStatus, body: { connectsRequired?: number; boostConnects?: number }): SubmitOutcome["connects"] {
  if (status !== "applied" || body.connectsRequired === undefined) return undefined;
  return { required: body.connectsRequired, boost: body.boostConnects ?? 0 };
}
/**
 * The "my proposals" list an engagement answer was read from: every job it shows a sent proposal for.
 * The server checks the outcomes it charged on the submitter's word against it (modules/applications/sync.task.ts).
 */
export const ProposalsListReply = t.Object({
  readAt: t.Integer({ minimum: 0, description: "Unix ms when the read of the page began (a proposal sent during the read may be missing)" }),
  url: t.String({ minLength: 1, maxLength: 2048, pattern: "^https?://", description: "The page read: only jobs of its site are checked against it" }),
  jobs: t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 5000, description: "The job ciphertext of every proposal the page shows as sent" }),
});
export type ProposalsListReply = Static<typeof ProposalsListReply>;

export const EngagementReply = t.Object({
  viewed: t.Boolean(),
  replied: t.Boolean(),
  viewedAt: t.Optional(t.Union([t.Integer({ minimum: 0 }), t.Null()])),
  proposals: t.Optional(ProposalsListReply),
});
const FreelancerReply = t.Object({
  id: t.String({ minLength: 1 }),
  name: t.String(),
  avatarUrl: t.Union([t.String(), t.Null()]),
  baseHourlyRate: t.Union([t.Number({ minimum: 0 }), t.Null()]),
  profiles: t.Array(
    t.Object({
      type: literalUnion(PROFILE_TYPES),
      name: t.String(),
      hourlyRate: t.Union([t.Number({ minimum: 0 }), t.Null()]),
      currency: t.String({ minLength: 1 }),
      profileId: t.String({ minLength: 1 }),
    }),
  ),
});
export const FreelancersReply = t.Object({ freelancers: t.Array(FreelancerReply) });
export const ReconnectReply = t.Object({ ok: t.Boolean() });

export function isFinalStatus(value: unknown): value is FinalStatus {
  return isOneOf(FINAL_STATUSES, value);
}

const DEFAULT_MESSAGES: Record<FinalStatus, string> = {
  applied: "The proposal was submitted",
  failed: "The submitter could not submit the proposal",
  not_available: "The job is no longer available",
  not_eligible: "The freelancer is not eligible for this job",
  not_enough_connects: "Not enough Connects to submit this proposal",
  logged_out: "The submitter's marketplace session is logged out",
};

/** A status plus the submitter's sentence (trimmed and capped), or the default sentence for that status. */
export function toOutcome(status: FinalStatus, message: unknown): SubmitOutcome {
  const text = typeof message === "string" ? message.trim().slice(0, MAX_MESSAGE_CHARS) : "";
  return { status, message: text || DEFAULT_MESSAGES[status] };
}

/**
 * A submitter's {status, message} answer. Connects it gives are kept when they pass the callback's own checks and
 * left out otherwise: a reply is not a request we can refuse, and a bad count must not cost a proposal its status.
 */
export function parseOutcome(body: unknown): SubmitOutcome | null {
  if (!Value.Check(OutcomeReply, body)) return null;
  const reply = body as Static<typeof OutcomeReply>;
  const outcome = toOutcome(reply.status, reply.message);
  const connects = Value.Check(ReportedConnectsSchema, body) ? reportedConnects(reply.status, body as Static<typeof ReportedConnectsSchema>) : undefined;
  const connectsAvailable = reportedBalance(body);
  return { ...outcome, ...(connects ? { connects } : {}), ...(connectsAvailable === undefined ? {} : { connectsAvailable }) };
}

export function parseEngagement(body: unknown): Engagement | null {
  if (!Value.Check(EngagementReply, body)) return null;
  const reply = body as Static<typeof EngagementReply>;
  return { viewed: reply.viewed, replied: reply.replied, viewedAt: reply.viewed ? (reply.viewedAt ?? null) : null };
}

/** The proposals list of a stored engagement answer, or null when it has none (an older submitter, or no read was made). */
export function parseProposalsList(body: unknown): ProposalsListReply | null {
  const list = (body as { proposals?: unknown } | null)?.proposals;
  return list !== undefined && Value.Check(ProposalsListReply, list) ? (list as ProposalsListReply) : null;
}

export function parseReconnect(body: unknown): boolean {
  return Value.Check(ReconnectReply, body) && (body as Static<typeof ReconnectReply>).ok;
}

/**
 * A freelancers answer, copied field by field so nothing the submitter added
 * leaks into our API responses; a wrong shape throws naming the first bad field.
 */
export function parseFreelancers(body: unknown, source: string): Freelancer[] {
  if (!Value.Check(FreelancersReply, body)) {
    const first = Value.Errors(FreelancersReply, body).First();
    const where = first ? ` (${first.path || "body"}: ${first.message})` : "";
    throw new Error(`The ${source}'s freelancers list is not in the expected shape${where}`);
  }
  return (body as Static<typeof FreelancersReply>).freelancers.map((f) => ({
    id: f.id,
    name: f.name,
    avatarUrl: f.avatarUrl,
    baseHourlyRate: f.baseHourlyRate,
    profiles: f.profiles.map((p) => ({ type: p.type, name: p.name, hourlyRate: p.hourlyRate, currency: p.currency, profileId: p.profileId })),
  }));
}
