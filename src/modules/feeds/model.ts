import { t } from "elysia";
import { PROMPT_CHARS_HARD_MAX } from "../../config";
import { COUNTRY_FILTER_MODES, EMAIL_FOUND_FILTERS, JOB_TYPES, PLATFORMS, US_ONLY_MODES } from "../../db/enums";
import { literalUnion, pageQuery } from "../../http/schemas";
import { JobSignalSchema } from "../jobs/model";
import type { SignalId } from "../jobs/signals";
import { SIGNAL_ACTIONS } from "./signal-rules";

export const Platform = literalUnion(PLATFORMS);
/** Longest channelIds list a feed may carry. */
export const MAX_FEED_CHANNELS = 20;
const Money = (description: string) => t.Nullable(t.Number({ minimum: 0, description }));

const SignalAction = literalUnion(SIGNAL_ACTIONS);
/** One optional action per signal (every SIGNAL_IDS entry: the `satisfies` fails the build on one left out). */
const signalRuleFields = {
  repost: t.Optional(SignalAction),
  ghost: t.Optional(SignalAction),
  scam: t.Optional(SignalAction),
  "low-budget": t.Optional(SignalAction),
} satisfies Record<SignalId, unknown>;

/** The writable fields of a feed, exactly as the spec's Feed table (plus the `webhookUrl` extension). */
export const feedWritableFields = {
  title: t.String({ minLength: 1, maxLength: 200, description: "Display name." }),
  profilePrompt: t.String({
    maxLength: PROMPT_CHARS_HARD_MAX,
    description:
      "Plain-language description of the ideal job; each matching job is scored 0–10 against it. Empty: no scoring, every match gets 5. At most 20,000 characters unless the operator set another limit (JOBPILOT_MAX_PROMPT_CHARS, or per account).",
  }),
  minScore: t.Number({ minimum: 0, maximum: 10, description: "Jobs at or above it enter the feed and notify." }),
  includes: t.Array(t.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 200,
    description:
      "Keywords; a job must contain at least one. Case-insensitive whole words or phrases (`go` does not match `good`; `react native` is a phrase); a trailing `*` makes the last word a prefix (`develop*`). Text = title + description + skills.",
  }),
  excludes: t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 200, description: "Keywords (same syntax as includes); any hit drops the job." }),
  minHourlyRate: Money("Minimum hourly rate (hourly jobs). null clears."),
  minFixedPrice: Money("Minimum fixed budget (fixed-price jobs). null clears."),
  clientMinSpent: Money("Minimum total the client has spent. null clears."),
  countryFilterMode: literalUnion(COUNTRY_FILTER_MODES),
  excludedCountries: t.Array(t.String({ minLength: 1, maxLength: 100 }), {
    maxItems: 300,
    description: "Client countries dropped in exclude mode: English names, ISO-2 or ISO-3 codes.",
  }),
  includedCountries: t.Array(t.String({ minLength: 1, maxLength: 100 }), {
    maxItems: 300,
    description: "Client countries kept in include mode (a job whose client country is unknown is dropped). Empty = no filter.",
  }),
  platforms: t.Array(Platform, { minItems: 1, description: "Omitted: all platforms." }),
  proposalGenerationPrompt: t.String({
    maxLength: PROMPT_CHARS_HARD_MAX,
    description: "At most 20,000 characters unless the operator set another limit (JOBPILOT_MAX_PROMPT_CHARS, or per account).",
  }),
  notificationsMuted: t.Boolean({ description: "Matched and scored, but no notifications." }),
  outcomeEvents: t.Boolean({
    description:
      "(extension) Default false. true: the feed's webhook and channels also get proposal.viewed, proposal.replied and proposal.hired when a proposal to one of its jobs reaches that stage (nothing while notificationsMuted).",
  }),
  signalRules: t.Object(signalRuleFields, {
    additionalProperties: false,
    description:
      "(extension) What the feed does with each signal a job carries (repost, ghost, scam, low-budget; docs: Signals): drop keeps the job out (listed in GET /api/v1/feeds/{feedId}/filtered with the reason), warn lets it in with the flag. A signal not named warns. Default {}.",
  }),
  alertFavoured: t.Boolean({
    description:
      "(extension) Default true: a favoured client's job that passes the filters enters the feed and alerts whatever its score (GET /api/v1/client-lists).",
  }),
  emailFound: literalUnion(EMAIL_FOUND_FILTERS),
  jobTypes: t.Array(literalUnion(JOB_TYPES), { description: "Marketplace only. [] = no filter." }),
  usOnlyMode: literalUnion(US_ONLY_MODES, { description: "Marketplace only." }),
  paymentVerifiedOnly: t.Boolean({ description: "Marketplace only." }),
  clientMinRating: t.Nullable(t.Number({ minimum: 0, maximum: 5, description: "Marketplace only." })),
  clientMinReviews: t.Nullable(t.Integer({ minimum: 0, description: "Marketplace only." })),
  webhookUrl: t.Nullable(t.String({ maxLength: 2048, description: "(extension) http(s) URL that receives a POST for each job entering the feed." })),
  channelIds: t.Array(t.String({ minLength: 1, maxLength: 100 }), {
    maxItems: MAX_FEED_CHANNELS,
    description:
      "(extension) Notification channels (ids from /api/v1/channels) that get an alert for each job entering the feed, besides the webhook. Your own channels only; [] clears. Always present in responses.",
  }),
};

const { title, minScore, ...rest } = feedWritableFields;

export const PatchFeedBody = t.Partial(t.Object(feedWritableFields), { title: "FeedPatch" });
export const CreateFeedBody = t.Object({ title, minScore, ...t.Partial(t.Object(rest)).properties }, { title: "FeedCreate" });

export const Feed = t.Object(
  {
    id: t.String({ format: "uuid" }),
    createdAtTs: t.Integer({ description: "Unix ms" }),
    ...PatchFeedBody.properties,
    webhookSecret: t.Optional(
      t.String({
        description: "(extension) Standard Webhooks signing secret: in full in the response that creates or rotates it, masked (whsec_…abcd) afterwards",
      }),
    ),
    webhookDisabledAtTs: t.Optional(t.Integer({ description: "(extension) Unix ms when the endpoint was disabled after failing for 24 h" })),
    webhookDisabledReason: t.Optional(t.Nullable(t.String())),
    webhookLastError: t.Optional(
      t.String({ description: "(extension) While the endpoint is failing: why its newest failed event failed, e.g. a blocked address and how to allow it" }),
    ),
  },
  { title: "Feed", additionalProperties: true },
);
export type Feed = typeof Feed.static;

export const FeedParams = t.Object({ feedId: t.String({ maxLength: 100 }) });
export const FeedEnvelope = t.Object({ feed: Feed });
export const FeedList = t.Object({ feeds: t.Array(Feed) });
export const FeedDeleted = t.Object({ deleted: t.Literal(true), feedId: t.String() });

export const FeedJobsQuery = t.Object({
  ...pageQuery(),
  minScore: t.Optional(t.Number({ minimum: 0, maximum: 10, error: "minScore must be a number between 0 and 10" })),
  unread: t.Optional(t.Boolean({ error: "unread must be true or false" })),
});

export const FeedJobItem = t.Object(
  {
    processedJobId: t.String({ format: "uuid" }),
    matchingScore: t.Number(),
    scoreSource: t.String({ description: "default (empty prompt), ai, local or cache" }),
    scoreReason: t.Nullable(t.String()),
    matchedAt: t.String({ description: "ISO 8601" }),
    read: t.Boolean(),
    starredAt: t.Nullable(t.Integer({ description: "Unix ms" })),
    favoured: t.Optional(t.Boolean({ description: "(extension) The job's client is on the account's favoured list (GET /api/v1/client-lists)" })),
    signals: t.Optional(
      t.Array(JobSignalSchema, { description: "(extension) The job's signals (repost, ghost, scam, low-budget) as flags: the feed warns of them" }),
    ),
    job: t.Object({
      ciphertext: t.String(),
      title: t.String(),
      url: t.String(),
      platform: Platform,
      source: t.String({
        description: "Where jobpilot got the job: sandbox, marketplace-api, remoteok, weworkremotely, remotive, himalayas, hackernews, capture, push…",
      }),
      jobType: t.Nullable(t.String()),
      hourlyMin: t.Nullable(t.Number()),
      hourlyMax: t.Nullable(t.Number()),
      fixedBudget: t.Nullable(t.Number()),
      clientCountry: t.Nullable(t.String()),
      publishTime: t.Nullable(t.String()),
    }),
  },
  { title: "FeedJob" },
);
export type FeedJobItem = typeof FeedJobItem.static;

export const FeedJobsResponse = t.Object({ jobs: t.Array(FeedJobItem), total: t.Integer(), limit: t.Integer(), offset: t.Integer() });
/** A job the feed kept out (issue 45; feeds/filtered.ts): its summary as the feed's jobs list gives it, and why. */
export const FilteredJobItem = t.Object(
  {
    job: FeedJobItem.properties.job,
    companyId: t.Nullable(t.String({ description: "The client's company id (for PUT/DELETE /api/v1/client-lists/{companyId}); null when unknown" })),
    filter: t.String({
      description: "blocked-client (the client is on the account's blocked list) or signal:<id> (a signal the feed drops: repost, ghost, scam, low-budget)",
    }),
    reason: t.String({ description: "Why, in words (a blocked client's reason included)" }),
    at: t.String({ description: "ISO 8601, when the job was kept out" }),
  },
  { title: "FilteredJob" },
);
export type FilteredJobItem = typeof FilteredJobItem.static;
export const FilteredJobsQuery = t.Object({ ...pageQuery() });
export const FilteredJobsResponse = t.Object({ jobs: t.Array(FilteredJobItem), total: t.Integer(), limit: t.Integer(), offset: t.Integer() });

export const FeedJobParams = t.Object({ feedId: t.String({ maxLength: 100 }), processedJobId: t.String({ maxLength: 100 }) });
export const PatchFeedJobBody = t.Object({ read: t.Optional(t.Boolean()), starred: t.Optional(t.Boolean()) });

/** The feed preview's windows, in days (issue 45). */
export const PREVIEW_DAYS = [1, 7, 30] as const;

/** POST /api/v1/feeds/preview: a feed-creation body, and how far back to look. */
export const FeedPreviewBody = t.Object(
  {
    ...CreateFeedBody.properties,
    // An integer checked for 1, 7 or 30 by the preview (a union of number literals is no valid OpenAPI enum).
    days: t.Optional(t.Integer({ minimum: 1, maximum: 30, description: "(preview) How many days back to look: 1, 7 or 30. Default 7." })),
  },
  { title: "FeedPreviewRequest" },
);

export const FeedPreviewJob = t.Object(
  {
    job: FeedJobItem.properties.job,
    firstSeenAt: t.String({ description: "ISO 8601, when jobpilot first saw the job (the window is on this time)" }),
    matchingScore: t.Number(),
    scoreSource: t.String({ description: "default (empty prompt: every job scores 5) or local (the local scorer; the preview never calls a model)" }),
    scoreReason: t.Nullable(t.String()),
    favoured: t.Boolean({ description: "The client is on the account's favoured list" }),
    flags: t.Array(t.Object({ id: t.String(), say: t.String() }), {
      description: "The job's signals (repost, ghost, scam, low-budget) the feed does not drop",
    }),
  },
  { title: "FeedPreviewJob" },
);

export const FeedPreview = t.Object(
  {
    days: t.Integer(),
    from: t.String({ description: "ISO 8601: the window's start (jobs first seen from then until now)" }),
    total: t.Integer({ description: "Archived jobs first seen in the window: every one is counted once, in droppedBy, in matched or in unscored" }),
    droppedBy: t.Record(t.String(), t.Integer(), {
      description:
        "Jobs dropped, by the first filter that dropped them, tried in this order: platforms, emailFound, excludedCountries or includedCountries, minHourlyRate, minFixedPrice, clientMinSpent, jobTypes, usOnlyMode, paymentVerifiedOnly, clientMinRating, clientMinReviews, includes, excludes, blocked-client, signal:<id>, minScore (of the scored jobs only). Filters that dropped none are left out.",
    }),
    passed: t.Integer({ description: "Jobs through every filter before the score" }),
    scored: t.Integer({
      description: "Of those, how many were scored: the newest, up to scoredMax (all of them with an empty prompt). The histogram counts these.",
    }),
    scoredMax: t.Integer(),
    matched: t.Integer({ description: "Scored jobs at or above minScore: what the feed would have caught of them" }),
    unscored: t.Integer({ description: "passed − scored: older jobs through the filters that were not scored" }),
    scoreHistogram: t.Array(t.Object({ from: t.Number(), to: t.Number(), count: t.Integer() }), {
      description: "The scored jobs in ten buckets: [0, 1), [1, 2) … [9, 10] (a 10 counts in the last)",
    }),
    jobs: t.Array(FeedPreviewJob, { description: "The matched jobs, newest first, at most 50" }),
  },
  { title: "FeedPreview" },
);
export type FeedPreview = typeof FeedPreview.static;
