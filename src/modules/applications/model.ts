import { ClaimSchema } from "../proposals/model";
import { t } from "elysia";
import { APPLICATION_STATUSES, OUTCOME_CHECKS, type Platform } from "../../db/enums";
import { literalUnion, pageQuery } from "../../http/schemas";
import { BID_LIMITS } from "../../lib/bid-limits";
import { AssignedArm } from "../experiments/model";

export const ApplicationStatus = literalUnion(APPLICATION_STATUSES, { title: "ApplicationStatus" });

/** The marketplace's project-length choices, exactly as its apply form writes them. */
export const TIMELINES = ["Less than 1 month", "1 to 3 months", "3 to 6 months", "More than 6 months"] as const;
export const Timeline = literalUnion(TIMELINES);
export type Timeline = typeof Timeline.static;

export const Proposal = t.Object(
  {
    hourlyRate: t.Optional(t.Number({ ...BID_LIMITS.hourlyRate, description: "USD per hour; hourly jobs only. 3–999." })),
    fixedBid: t.Optional(t.Number({ ...BID_LIMITS.fixedBid, description: "USD; fixed-price jobs only. 5–1,000,000." })),
    timeline: t.Optional(Timeline),
    boostBids: t.Optional(t.Integer({ ...BID_LIMITS.boostBids, description: "Additional Connects to boost visibility. 0–1,000." })),
  },
  { title: "Proposal" },
);

export const QuestionAnswer = t.Object(
  { position: t.Integer({ minimum: 0, description: "0-indexed, from the job payload" }), answer: t.String({ maxLength: 5000 }) },
  { title: "QuestionAnswer" },
);

export const ApplyBody = t.Object(
  {
    jobId: t.String({ minLength: 1, maxLength: 2048, description: "Ciphertext (~…), full job URL, or processed job UUID." }),
    coverLetter: t.String({ minLength: 1, maxLength: 50_000 }),
    profileId: t.Optional(t.String({ maxLength: 200 })),
    autoFillOtherQuestions: t.Optional(t.Boolean({ default: false })),
    questionAnswers: t.Optional(t.Array(QuestionAnswer, { maxItems: 100 })),
    proposal: t.Optional(Proposal),
    experimentId: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 100,
        description:
          "Extension: send under this experiment's arm for the job (its bid, boost and send delay replace the proposal's). Without it, a job drafted under an experiment, or applied to from a feed with a running experiment, goes out under its arm. The response's experiment names the arm.",
      }),
    ),
  },
  { title: "ApplyRequest" },
);

export const ApplyResponse = t.Object(
  {
    success: t.Boolean(),
    queueId: t.String(),
    creditsRemaining: t.Optional(t.Integer()),
    message: t.Optional(t.String()),
    experiment: t.Optional(t.Object(AssignedArm.properties, { description: "Extension: the experiment arm the proposal goes out under." })),
  },
  { title: "ApplyResponse" },
);

export const InsufficientCreditsError = t.Object(
  { error: t.String(), creditsRemaining: t.Integer(), needsCredits: t.Boolean() },
  { title: "InsufficientCreditsError" },
);

export const StatusQuery = t.Object({
  queueId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  jobId: t.Optional(t.String({ minLength: 1, maxLength: 2048 })),
});

export const ProposalStatus = t.Object(
  {
    viewed: t.Boolean(),
    replied: t.Boolean(),
    viewedAt: t.Nullable(t.Integer({ description: "Unix ms" })),
    lastCheckedAt: t.Integer({ description: "Unix ms" }),
  },
  { title: "ProposalStatus" },
);

/** jobpilot's extension of the spec's StatusResponse: the reported outcome checked against the marketplace's own list. */
export const OutcomeCheck = t.Object(
  {
    result: literalUnion(OUTCOME_CHECKS, {
      description:
        'confirmed: "my proposals" agrees with the reported outcome. not_listed: charged as applied, but the list does not show the job. listed_not_applied: reported not applied (not charged), but the list shows the job.',
    }),
    flagged: t.Boolean({ description: "true unless confirmed: a person should look at the proposal on the marketplace; nothing was refunded or charged" }),
    checkedAt: t.Integer({ description: "Unix ms" }),
    message: t.String({ description: "The check in a sentence" }),
  },
  {
    title: "OutcomeCheck",
    description:
      'Extension field (browser companion driver only): present once the outcome has been checked against the next "my proposals" list the companion read.',
  },
);

const NullableString = t.Nullable(t.String());
const NullableMs = t.Nullable(t.Integer({ description: "Unix ms" }));

/**
 * Extension fields: who an application went out as and the people behind it. A name is the member's (removed
 * members keep theirs); null means an API key of no member, or automation (a feed's draft or auto mode).
 */
const PeopleFields = {
  freelancerId: t.Optional(t.String({ description: "Extension: the freelancer it went out as" })),
  profileId: t.Optional(t.Nullable(t.String({ description: "Extension: the freelancer's profile it went out as" }))),
  draftedBy: t.Optional(t.Nullable(t.String({ description: "Extension: the member who drafted it; null: an API key of no member, or automation" }))),
  approvedBy: t.Optional(t.Nullable(t.String({ description: "Extension: the member who approved it; null: nobody had to" }))),
  sentBy: t.Optional(
    t.Nullable(
      t.String({ description: "Extension: the member who sent it (the approver for an approved draft); null: an API key of no member, or automation" }),
    ),
  ),
};

export const StatusResponse = t.Object(
  {
    jobId: NullableString,
    processedJobId: NullableString,
    applicationStatus: t.Nullable(ApplicationStatus),
    applicationStatusMessage: NullableString,
    queueId: NullableString,
    appliedAt: NullableMs,
    processedAt: NullableMs,
    errorMessage: NullableString,
    proposalStatus: t.Nullable(ProposalStatus),
    outcomeCheck: t.Optional(OutcomeCheck),
    ...PeopleFields,
  },
  { title: "StatusResponse" },
);

export const AppliedJob = t.Object(
  {
    jobId: NullableString,
    processedJobId: NullableString,
    title: NullableString,
    url: NullableString,
    platform: literalUnion(["marketplace", "professional_network"] as const satisfies readonly Platform[]),
    applicationStatus: t.Nullable(ApplicationStatus),
    applicationStatusMessage: NullableString,
    matchingScore: t.Nullable(t.Number()),
    queueId: NullableString,
    appliedAt: NullableMs,
    processedAt: NullableMs,
    createdAt: NullableMs,
    errorMessage: NullableString,
    coverLetter: NullableString,
    ...PeopleFields,
  },
  { title: "AppliedJob" },
);

export const AppliedJobsQuery = t.Object({
  ...pageQuery(),
  status: t.Optional(ApplicationStatus),
});

export const AppliedJobsResponse = t.Object(
  { jobs: t.Array(AppliedJob), total: t.Integer(), limit: t.Integer(), offset: t.Integer() },
  { title: "AppliedJobsResponse" },
);

/** The deprecated v1 apply body: `applicationOptions` carries what `proposal` carries in v2. */
export const LegacyApplyBody = t.Object(
  {
    jobId: t.String({ minLength: 1, maxLength: 2048 }),
    coverLetter: t.String({ minLength: 1, maxLength: 50_000 }),
    applicationOptions: t.Optional(Proposal),
    autoFillOtherQuestions: t.Optional(t.Boolean({ default: false })),
  },
  { title: "LegacyApplyRequest" },
);

/** What a person can record of a sent proposal (no_reply is never recorded: it is the absence of a reply, see noReplyDays). */
export const RECORDABLE_OUTCOMES = ["replied", "interview", "hired", "lost", "withdrawn"] as const;
export type RecordableOutcome = (typeof RECORDABLE_OUTCOMES)[number];

export const ApplicationParams = t.Object({ queueId: t.String({ minLength: 1, maxLength: 200, description: "The application's queueId (from apply)" }) });

export const OutcomeBody = t.Object(
  {
    outcome: literalUnion(RECORDABLE_OUTCOMES, {
      description:
        "replied (the client answered), interview, hired, lost (the client hired someone else, declined or closed the job) or withdrawn (you withdrew)",
    }),
    valueUsd: t.Optional(
      t.Number({ minimum: 0, maximum: 100_000_000, description: "hired only: the contract's value in USD (hourly rate × expected hours, or the fixed price)" }),
    ),
    at: t.Optional(
      t.Integer({ minimum: 0, description: "When it happened (Unix ms); now when omitted. Not in the future, not before the proposal was sent." }),
    ),
    note: t.Optional(t.String({ maxLength: 2000, description: "Your own words on it; replaces the note recorded before" })),
  },
  { title: "OutcomeRequest" },
);
export type OutcomeBody = typeof OutcomeBody.static;

const StageTime = (description: string) => t.Nullable(t.Integer({ description: `${description} (Unix ms); null until reached` }));

export const ApplicationFunnel = t.Object(
  {
    queueId: t.String(),
    applicationStatus: ApplicationStatus,
    stages: t.Object({
      sent: StageTime("When the marketplace took the proposal; null unless applicationStatus is applied"),
      viewed: StageTime("When the client first viewed it"),
      replied: StageTime("When the client first replied"),
      interview: StageTime("When an interview was recorded"),
      hired: StageTime("When the hire was recorded (kept if the contract later ended lost)"),
    }),
    inConversation: t.Boolean({ description: "The client replied (or the proposal went further)" }),
    // One flat union with null: a nullable enum wrapped around a described union loses its null in the OpenAPI document.
    outcome: t.Union([t.Literal("hired"), t.Literal("lost"), t.Literal("withdrawn"), t.Literal("no_reply"), t.Null()], {
      description: "How it ended: recorded by you, or no_reply once JOBPILOT_NO_REPLY_DAYS passed after sending with no reply; null while open",
    }),
    outcomeAt: NullableMs,
    valueUsd: t.Nullable(t.Number({ description: "The contract value in USD recorded with hired" })),
    connectsRequired: t.Nullable(
      t.Integer({ description: "Connects the proposal cost to submit, as the marketplace driver reported; null when it cannot tell" }),
    ),
    boostConnects: t.Nullable(t.Integer({ description: "Boost Connects actually spent; null when the driver cannot tell" })),
    connectsCostUsd: t.Nullable(t.Number({ description: "(connectsRequired + boostConnects) × JOBPILOT_CONNECT_PRICE_USD, in USD; null when unknown" })),
    note: NullableString,
  },
  {
    title: "ApplicationFunnel",
    description:
      "One proposal's funnel: sent → viewed → replied → interview → hired, or lost / withdrawn / no_reply. Stage times only go from null to a time; an outcome you record is never overwritten by a marketplace reading.",
  },
);
export type ApplicationFunnel = typeof ApplicationFunnel.static;

export const HeldQuery = t.Object(pageQuery());

export const HeldApplication = t.Object(
  {
    queueId: t.String(),
    jobCiphertext: t.String(),
    jobTitle: NullableString,
    jobUrl: NullableString,
    feedId: NullableString,
    freelancerId: t.String(),
    profileId: NullableString,
    origin: t.String({ description: "person, draft (a feed's draft mode) or auto (a feed's auto mode)" }),
    coverLetter: t.String(),
    queuedAt: t.Integer({ description: "When it was queued (Unix ms)" }),
    kind: t.Union(
      [t.Literal("draft"), t.Literal("similar"), t.Literal("budget"), t.Literal("approval"), t.Literal("returned"), t.Literal("claims"), t.Literal("fill-in")],
      {
        description:
          'draft: a draft-mode letter waiting for approval; similar: too like a letter sent in the last 30 days; budget: would break a Connects budget; approval: a member without the send permission asks for approval; returned: sent back to its drafter with a comment; claims: auto mode\'s letter has claims the portfolio does not back; fill-in: screening answers drafted for it leave something only the freelancer knows as a "[your …]" slot (approve with questionAnswers filled in)',
      },
    ),
    why: t.String({ description: "Why it waits, in words" }),
    draftedById: NullableString,
    draftedBy: t.Nullable(t.String({ description: "The member who drafted it; null: an API key of no member, or automation" })),
    approvedBy: t.Nullable(t.String({ description: "The member who approved it (set once approved)" })),
    reviewComment: t.Nullable(t.String({ description: "The approver's comment when it was sent back" })),
    answers: t.Array(t.Object({ position: t.Integer(), question: t.Nullable(t.String()), answer: t.String() }), {
      description: "The screening answers it would send, with their questions",
    }),
    hourlyRate: t.Nullable(t.Number({ description: "The bid, USD per hour (hourly jobs)" })),
    fixedBid: t.Nullable(t.Number({ description: "The bid, USD (fixed-price jobs)" })),
    jobBudget: t.Nullable(t.String({ description: "The client's budget in words" })),
    jobDescription: t.Nullable(t.String({ description: "The job's description as archived" })),
    claims: t.Array(ClaimSchema, { description: "What the claim check flagged in this letter when it was written (empty once a person rewrote it)" }),
    similarTo: t.Nullable(
      t.Object({
        queueId: t.String(),
        coverLetter: t.String(),
        sentAt: NullableMs,
        similarity: t.Number({ description: "3-word shingle Jaccard similarity, 0–1" }),
      }),
    ),
  },
  { title: "HeldApplication" },
);

export const HeldList = t.Object({ applications: t.Array(HeldApplication), total: t.Integer() }, { title: "HeldApplications" });

export const ApproveBody = t.Object(
  {
    coverLetter: t.Optional(t.String({ minLength: 1, maxLength: 50_000, description: "The letter as you rewrote it; the held letter when omitted" })),
    questionAnswers: t.Optional(
      t.Array(QuestionAnswer, {
        maxItems: 100,
        description:
          'Screening answers as you filled them in, by position; the held answers are kept for the positions you leave out. 400 while the letter or any answer still has a "[your …]" slot.',
      }),
    ),
  },
  { title: "ApproveRequest", additionalProperties: false },
);

export const ReviewResult = t.Object(
  { queueId: t.String(), applicationStatus: ApplicationStatus, held: t.Boolean({ description: "Still waiting for review" }) },
  { title: "ReviewResult" },
);

export const SendBackBody = t.Object(
  { comment: t.String({ minLength: 1, maxLength: 2000, description: "What the drafter should change; they see it with the draft" }) },
  { title: "SendBackRequest", additionalProperties: false },
);

export const RequestAgainBody = t.Object(
  { coverLetter: t.Optional(t.String({ minLength: 1, maxLength: 50_000, description: "The letter as you rewrote it; the returned letter when omitted" })) },
  { title: "RequestApprovalAgainRequest", additionalProperties: false },
);

export const ClaimParams = t.Object({
  ciphertext: t.String({ minLength: 1, maxLength: 2048, description: "The job: ciphertext (~…), full job URL, or a feed entry's UUID" }),
});

export const ClaimView = t.Object(
  {
    jobCiphertext: t.String(),
    memberId: t.String(),
    memberName: t.String(),
    claimedAt: t.Integer({ description: "Unix ms" }),
    expiresAt: t.Integer({ description: "Unix ms: the claim ends then unless its holder keeps drafting" }),
    mine: t.Boolean({ description: "The claim is the caller's own" }),
  },
  { title: "JobClaim" },
);

export const ClaimResult = t.Object(
  { claim: t.Nullable(ClaimView, { description: "null for an API key of no member: only members claim jobs" }) },
  { title: "JobClaimResult" },
);

export const ReleaseResult = t.Object({ released: t.Boolean({ description: "false when the job had no live claim" }) }, { title: "JobClaimRelease" });
