/**
 * The body jobpilot POSTs to a feed's webhook URL: one job per request, JSON.
 * This schema is the single description of that body: payload.ts builds values
 * of this type and the OpenAPI page shows it, so every field carries a
 * `description` written for the person implementing the receiver. It lives
 * with the outbox (feeds owns it): the deliverer POSTs it, and each
 * notification channel renders it as its platform's message.
 *
 * Every job, whatever its platform, has the same envelope: fields a source
 * cannot fill are null (or an empty array), never missing, so receivers need
 * no per-platform parsing.
 */
import { JobSignalSchema } from "../jobs/model";
import { t } from "elysia";
import { APPLICATION_OUTCOMES, JOB_TYPES, PLATFORMS } from "../../db/enums";
import { literalUnion } from "../../http/schemas";
import { JOB_MATCHED_EVENT, OUTCOME_EVENT_TYPES, WEBHOOK_TEST_EVENT } from "./admit";
import type { AutomationPayload } from "./outbox-payload-automation";

/** Longest description sent; longer ones are cut and end with " …". */
export const WEBHOOK_DESCRIPTION_MAX_CHARS = 50_000;

const IsoTime = (description: string) => t.String({ format: "date-time", description });
const NullableNumber = (description: string) => t.Nullable(t.Number({ description }));

export const WebhookBudgetSchema = t.Object(
  {
    hourlyMin: NullableNumber("Lowest hourly rate the client offers (hourly jobs); null when not given or not an hourly job."),
    hourlyMax: NullableNumber("Highest hourly rate the client offers (hourly jobs); null when not given or not an hourly job."),
    fixedAmount: NullableNumber("Total budget of a fixed-price job; null when not given or not a fixed-price job."),
    currency: t.Nullable(t.String({ description: "ISO 4217 code of the amounts above, e.g. USD; null when the source does not say." })),
  },
  { description: "What the client offers to pay. All amounts null when the job has no budget (typical for web and professional-network jobs)." },
);

export const WebhookScreeningQuestionSchema = t.Object(
  {
    position: t.Integer({
      minimum: 0,
      description: "0-based position of the question on the job; pass it unchanged as `position` in apply's `questionAnswers`.",
    }),
    question: t.String({ description: "The question text as the client wrote it." }),
  },
  { description: "A screening question the client asks applicants." },
);

export const WebhookClientScoreSchema = t.Object(
  {
    score: t.Nullable(t.Number({ minimum: 0, maximum: 100, description: "0 to 100; null for a new client with no history." })),
    label: t.String({ description: 'Short verdict in words, e.g. "strong" or "new client".' }),
  },
  { description: "jobpilot's judgement of the client." },
);

export const WebhookClientSchema = t.Object(
  {
    company: t.Object(
      { companyId: t.Nullable(t.String({ description: "The client's company id (same value as the top-level `companyId`); null when unknown." })) },
      { description: "The client's company." },
    ),
    country: t.Nullable(t.String({ minLength: 2, maxLength: 2, description: "Client country as an ISO 3166-1 alpha-2 code, e.g. US; null when unknown." })),
    countryName: t.Nullable(t.String({ description: "English name of `country`, e.g. United States; null when unknown." })),
    totalSpent: NullableNumber("Total the client has spent on the platform so far; null when hidden or unknown."),
    paymentVerified: t.Nullable(t.Boolean({ description: "true: payment method verified; false: reported unverified; null: the status could not be read." })),
    rating: t.Nullable(t.Number({ minimum: 0, maximum: 5, description: "Average feedback the client has received, 0 to 5; null when unrated or unknown." })),
    reviews: t.Nullable(t.Integer({ minimum: 0, description: "Number of reviews behind `rating`; null when unknown." })),
    hasStats: t.Boolean({ description: "Whether any client statistics (rating, reviews, spend) were available at all." }),
    clientScore: t.Nullable(WebhookClientScoreSchema, {
      description:
        "jobpilot's client score of the job's document, as clientScore.score and .label of GET /api/v1/jobs/{ciphertext}; null only when it cannot be computed.",
    }),
  },
  { description: "The client who posted the job. Fields the source does not provide are null." },
);

export const WebhookPayloadSchema = t.Object(
  {
    type: literalUnion([JOB_MATCHED_EVENT, WEBHOOK_TEST_EVENT] as const, {
      description:
        "`job.matched`: a new job entered the feed. `webhook.test`: sent when the webhook URL is saved and on POST /api/v1/feeds/{feedId}/webhook/test (never to a muted feed), carrying an archived sample job; do not apply to it.",
    }),
    id: t.String({ description: "Unique event id (evt_…), also sent as the `webhook-id` header; use it to drop redeliveries." }),
    createdAt: IsoTime("When the event was created (ISO 8601, UTC)."),
    jobId: t.String({
      description:
        "The job's ciphertext; pass it unchanged as `jobId` to apply. Same value as `ciphertext`. Web jobs cannot be applied to through jobpilot: use `url`.",
    }),
    feedId: t.String({ description: "Id of the feed the job matched." }),
    jobListenerId: t.String({
      description: "Same as `feedId` (the name used in duplicate suppression: one event per jobId and jobListenerId within 24 hours).",
    }),
    feedTitle: t.String({ description: "The feed's display name." }),
    processedJobId: t.Nullable(t.String({ description: "Id of this job's entry in the feed (also accepted by apply as `jobId`); null for `webhook.test`." })),
    matchingScore: t.Number({
      minimum: 0,
      maximum: 10,
      description: "How well the job fits the feed's profile, 0 to 10; 5 when the feed has no profile prompt.",
    }),
    scoreReason: t.Nullable(t.String({ description: "One-line explanation of the score; null when none was given." })),
    matchedAt: IsoTime("When the job entered the feed (ISO 8601, UTC)."),
    platform: literalUnion(PLATFORMS, {
      description: "Where the job is posted: marketplace, professional_network or web.",
    }),
    source: t.String({ description: "Which jobpilot source delivered the job, e.g. sandbox, push, remoteok." }),
    ciphertext: t.String({
      description: "Stable job id (starts with ~). For marketplace jobs the marketplace's own id; for others derived from the source's id or URL.",
    }),
    url: t.String({ description: "Link to the job posting; empty string when the source gave none." }),
    title: t.String({ description: "Job title." }),
    description: t.String({
      maxLength: WEBHOOK_DESCRIPTION_MAX_CHARS,
      description:
        'Job description as plain text. Cut to at most 50,000 characters (ending with " …") so the request stays small; the full text is available from GET /api/jobs/by-ciphertext.',
    }),
    skills: t.Array(t.String(), { description: "Skill names from the posting, in the source's order; empty when none were listed." }),
    jobType: t.Nullable(literalUnion(JOB_TYPES, { description: "HOURLY or FIXED; null when unknown (typical outside the marketplace)." })),
    budget: WebhookBudgetSchema,
    publishTime: t.Nullable(IsoTime("When the client published the job (ISO 8601, UTC); null when unknown.")),
    screeningQuestions: t.Array(WebhookScreeningQuestionSchema, {
      description: "Questions to answer when applying; empty when there are none or they were not captured.",
    }),
    contactEmails: t.Array(t.String(), { description: "E-mail addresses found in the posting, lower-cased; empty when none." }),
    companyId: t.Nullable(
      t.String({ description: "The client's company id; use it with GET /api/clients/{companyId}/jobs. Same as `client.company.companyId`." }),
    ),
    client: WebhookClientSchema,
    signals: t.Optional(
      t.Array(JobSignalSchema, {
        description:
          "(extension) The job's signals, when it carries any (repost, ghost, scam, low-budget; the feed's signalRules warn of them): each with its words in `say`, a repost with the earlier job.",
      }),
    ),
    favoured: t.Optional(
      t.Literal(true, {
        description:
          "(extension) true when the job's client (`companyId`) is on the feed's account's favoured list (GET /api/v1/client-lists) as the event is sent; absent otherwise, never false.",
      }),
    ),
  },
  {
    title: "WebhookPayload",
    description: "Body of the POST sent to a feed's webhook URL: one event about one job.",
  },
);

export type WebhookPayload = typeof WebhookPayloadSchema.static;

/** The funnel stages an outcome event can announce. */
export const OUTCOME_STAGES = ["viewed", "replied", "hired"] as const;

export const OutcomeApplicationSchema = t.Object(
  {
    queueId: t.String({ description: "The application (apply's queueId); GET /api/v1/applications/{queueId}/funnel reads its whole funnel." }),
    jobId: t.String({ description: "The job's ciphertext, as in job.matched." }),
    jobTitle: t.String({ description: "The job's title as archived." }),
    jobUrl: t.String({ description: "Link to the job posting; empty string when the source gave none." }),
    freelancerId: t.String({ description: "The freelancer the proposal was sent as." }),
    profileId: t.String({ description: "The freelancer's profile it was sent with." }),
    sentAt: IsoTime("When the proposal was sent (ISO 8601, UTC)."),
    stage: literalUnion(OUTCOME_STAGES, { description: "The stage this event announces: viewed, replied or hired (the `type` without `proposal.`)." }),
    stageAt: IsoTime(
      "When the proposal reached that stage (ISO 8601, UTC): the driver's time when it knows it, else when jobpilot saw it or the time you recorded.",
    ),
    outcome: t.Nullable(
      literalUnion(APPLICATION_OUTCOMES, {
        description: "The recorded outcome when the event is sent: hired, lost (e.g. a hire that fell through) or withdrawn; null while the proposal is open.",
      }),
    ),
    valueUsd: t.Nullable(
      t.Number({
        minimum: 0,
        description: "proposal.hired only: the contract value in USD as recorded; null on the other events, or when no value was given.",
      }),
    ),
    connectsCostUsd: t.Nullable(
      t.Number({
        minimum: 0,
        description: "What the Connects spent on the proposal cost (JOBPILOT_CONNECT_PRICE_USD each); null when the driver did not say.",
      }),
    ),
  },
  { description: "The application the event is about, read when the event is sent." },
);

export const OutcomePayloadSchema = t.Object(
  {
    type: literalUnion(OUTCOME_EVENT_TYPES, {
      description:
        "`proposal.viewed`: the client opened the proposal. `proposal.replied`: the client answered. `proposal.hired`: you were hired. Each is sent once per proposal and feed, only to feeds with outcomeEvents on.",
    }),
    id: t.String({ description: "Unique event id (evt_…), also sent as the `webhook-id` header; use it to drop redeliveries." }),
    createdAt: IsoTime("When the event was created: the moment jobpilot recorded the stage (ISO 8601, UTC)."),
    jobId: t.String({ description: "The job's ciphertext (same as application.jobId)." }),
    feedId: t.String({ description: "The feed that hears of it: the one the job was applied from, else one whose entries hold the job." }),
    feedTitle: t.String({ description: "The feed's display name." }),
    processedJobId: t.Nullable(t.String({ description: "The job's entry in this feed, when it has one." })),
    application: OutcomeApplicationSchema,
  },
  {
    title: "OutcomePayload",
    description: "Body of the POST sent to a feed's webhook URL when a proposal to one of its jobs was viewed, replied to or hired.",
  },
);

export type OutcomePayload = typeof OutcomePayloadSchema.static;

/** Any body the outbox sends: a job's (job.matched, webhook.test), a proposal's (proposal.*) or automation's (outbox-payload-automation.ts). */
export type EventPayload = WebhookPayload | OutcomePayload | AutomationPayload;

export function isOutcomePayload(payload: EventPayload): payload is OutcomePayload {
  return "application" in payload && "stage" in payload.application;
}
