import { t } from "elysia";
import { PROMPT_CHARS_HARD_MAX } from "../../config";
import { COUNTRY_FILTER_MODES, EMAIL_FOUND_FILTERS, JOB_TYPES, PLATFORMS, US_ONLY_MODES } from "../../db/enums";
import { literalUnion, pageQuery } from "../../http/schemas";

export const Platform = literalUnion(PLATFORMS);
/** Longest channelIds list a feed may carry. */
export const MAX_FEED_CHANNELS = 20;
const Money = (description: string) => t.Nullable(t.Number({ minimum: 0, description }));

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
export const FeedJobParams = t.Object({ feedId: t.String({ maxLength: 100 }), processedJobId: t.String({ maxLength: 100 }) });
export const PatchFeedJobBody = t.Object({ read: t.Optional(t.Boolean()), starred: t.Optional(t.Boolean()) });
