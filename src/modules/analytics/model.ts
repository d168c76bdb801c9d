import { t } from "elysia";
import { literalUnion, queryInt } from "../../http/schemas";

export const SpeedQuery = t.Object({
  feedId: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Only this feed's entries, alerts and the applications to its jobs." })),
  source: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Only jobs archived from this source (sandbox, push, capture, …)." })),
  from: t.Optional(queryInt("from", { minimum: 0, description: "Unix ms: only jobs published at or after this time." })),
  to: t.Optional(queryInt("to", { minimum: 0, description: "Unix ms: only jobs published before this time." })),
});
export type SpeedQuery = typeof SpeedQuery.static;

const Ms = t.Nullable(t.Integer({ description: "Milliseconds after the job's publish time; null when count is 0" }));

export const StageSpeed = t.Object(
  {
    count: t.Integer({ description: "Jobs this stage's percentiles are computed over (those that reached it)" }),
    p50Ms: Ms,
    p90Ms: Ms,
    p99Ms: Ms,
  },
  { title: "StageSpeed" },
);
export type StageSpeed = typeof StageSpeed.static;

export const SpeedResponse = t.Object(
  {
    jobs: t.Integer({ description: "Jobs the account was alerted about or applied to, within the filters, that have a publish time" }),
    withoutPublishTime: t.Integer({ description: "Jobs within feedId and source left out because their document has no publish time" }),
    stages: t.Object({
      firstSeen: StageSpeed,
      scored: StageSpeed,
      alerted: StageSpeed,
      drafted: StageSpeed,
      submitted: StageSpeed,
    }),
    alertedByTarget: t.Array(
      t.Object({
        target: t.String({ description: '"webhook" or a notification channel\'s id' }),
        ...StageSpeed.properties,
      }),
      { description: "The alerted stage per target, busiest first" },
    ),
  },
  { title: "SpeedToLeadResponse" },
);
export type SpeedResponse = typeof SpeedResponse.static;

/** The dimensions the funnel can be split by, written once for the schema and the SQL. */
export const FUNNEL_GROUP_BY = ["feed", "freelancer", "member", "source", "scoreBand", "postAge", "bidRatio", "boost", "weekday"] as const;
export type FunnelGroupBy = (typeof FUNNEL_GROUP_BY)[number];

export const FunnelQuery = t.Object({
  groupBy: t.Optional(
    literalUnion(FUNNEL_GROUP_BY, {
      description: "Split the funnel by this dimension; without it only the total is given.",
    }),
  ),
  feedId: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Only applications made from (or attributed to) this feed of the caller." })),
  from: t.Optional(queryInt("from", { minimum: 0, description: "Unix ms: only proposals sent at or after this time." })),
  to: t.Optional(queryInt("to", { minimum: 0, description: "Unix ms: only proposals sent before this time." })),
  tz: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "IANA time zone for groupBy=weekday (default UTC), e.g. Europe/Berlin." })),
});
export type FunnelQuery = typeof FunnelQuery.static;

export const LedgerQuery = t.Object({
  feedId: FunnelQuery.properties.feedId,
  from: FunnelQuery.properties.from,
  to: FunnelQuery.properties.to,
});
export type LedgerQuery = typeof LedgerQuery.static;

const Rate = t.Nullable(t.Number({ description: "Share of sent, 0–1; null when fewer than 10 were sent (enough is false)" }));
const Ci95 = t.Nullable(t.Array(t.Number(), { minItems: 2, maxItems: 2, description: "Wilson 95 % score interval [low, high]; null with the rate" }));
const Usd = t.Nullable(t.Number({ description: "USD, to the cent; null when it cannot be computed" }));

export const FunnelGroup = t.Object(
  {
    key: t.String({
      description:
        "The bucket: a feed, freelancer or member id (none: an API key of no member, or automation), a source, a band (e.g. 7-8), a weekday (mon…sun), or total",
    }),
    label: t.Optional(t.String({ description: "A readable name: the feed's title, the freelancer's or member's name" })),
    sent: t.Integer({ description: "Proposals sent (applications with status applied)" }),
    viewed: t.Integer({ description: "Of those, viewed by the client (a reply, interview or hire implies viewed)" }),
    replied: t.Integer({ description: "Of those, replied to (an interview or hire implies a reply)" }),
    interviews: t.Integer({ description: "Of those, that reached an interview (a hire implies one)" }),
    hires: t.Integer({ description: "Of those, hired at some point (a hire later lost still counts)" }),
    replyRate: Rate,
    replyRateCi95: Ci95,
    hireRate: Rate,
    hireRateCi95: Ci95,
    connectsSpent: t.Integer({ description: "Connects spent: connectsRequired + boostConnects, over the proposals that reported it" }),
    costUsd: t.Number({ description: "connectsSpent × JOBPILOT_CONNECT_PRICE_USD, to the cent" }),
    costPerReplyUsd: Usd,
    costPerHireUsd: Usd,
    valueUsd: t.Number({ description: "Sum of the recorded hire values (a hire later lost has none)" }),
    enough: t.Boolean({ description: "At least 10 sent: rates are given only then" }),
    medianReplyMs: t.Optional(
      t.Nullable(
        t.Integer({
          description:
            "groupBy=member only: the median time from sending to the client's first reply (nearest rank, ms) over the replies with a time; null when none",
        }),
      ),
    ),
  },
  { title: "FunnelGroup" },
);
export type FunnelGroup = typeof FunnelGroup.static;

export const MinScoreSuggestion = t.Object(
  {
    minScore: t.Integer({ minimum: 0, maximum: 10, description: "The minScore the data supports" }),
    reason: t.String({ description: "Why, in a sentence with the figures" }),
  },
  { title: "MinScoreSuggestion" },
);
export type MinScoreSuggestion = typeof MinScoreSuggestion.static;

export const FunnelResponse = t.Object(
  {
    groups: t.Array(FunnelGroup, { description: "One per bucket with at least one proposal (empty without groupBy)" }),
    total: FunnelGroup,
    suggestion: t.Optional(
      t.Nullable(MinScoreSuggestion, { description: "groupBy=scoreBand only: a minScore to raise to, or null when the data does not support one" }),
    ),
  },
  { title: "FunnelAnalyticsResponse" },
);
export type FunnelResponse = typeof FunnelResponse.static;
