import { t } from "elysia";
import { queryInt } from "../../http/schemas";

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
