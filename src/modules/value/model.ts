import { t } from "elysia";
import { literalUnion, queryInt } from "../../http/schemas";

/** The most boost Connects a query may name: the marketplace's top slots go for ~100, so 1000 is far past any real bid. */
export const MAX_BOOST_CONNECTS = 1000;

export const ValueQuery = t.Object({
  freelancerId: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 200,
      error: "freelancerId must be a freelancer id of 1 to 200 characters",
      description: "Calibrate on the proposals sent as this freelancer only; without it, on every proposal of the account.",
    }),
  ),
  boostConnects: t.Optional(
    queryInt("boostConnects", { minimum: 0, maximum: MAX_BOOST_CONNECTS, description: "Boost Connects to add to the cost (default 0)." }),
  ),
});
export type ValueQuery = typeof ValueQuery.static;

/** Named `ciphertext` because /api/v1/jobs/:ciphertext holds that place in the router; a feed entry's UUID is accepted too. */
export const ValueParams = t.Object({
  ciphertext: t.String({ minLength: 1, maxLength: 2048, description: "The job's ciphertext (~…) or the UUID of its entry in one of your feeds." }),
});

/** Where the job's value came from: its fixed budget, its hourly bid × the hours estimate, or why it is unknown. */
export const VALUE_SOURCES = ["fixed", "hourly", "no_budget", "not_usd", "not_marketplace"] as const;
export type ValueSource = (typeof VALUE_SOURCES)[number];

const From = literalUnion(["prior", "ledger"] as const, {
  description: "prior: fewer outcomes in the band than the prior's pseudo-count, so the market figure weighs more; ledger: your own outcomes weigh more.",
});

export const ExpectedValueSchema = t.Object(
  {
    pReply: t.Number({
      minimum: 0,
      maximum: 1,
      description: "Chance the client replies, from your sent proposals in the job's score band blended with the market prior.",
    }),
    pHireGivenReply: t.Number({ minimum: 0, maximum: 1, description: "Chance of a hire once the client replied, likewise." }),
    valueUsd: t.Nullable(t.Number({ minimum: 0, description: "What the job is worth if you are hired (USD); null when the job names no budget in USD." })),
    expectedUsd: t.Nullable(t.Number({ minimum: 0, description: "pReply × pHireGivenReply × valueUsd, to the cent; null when valueUsd is." })),
    connects: t.Integer({
      minimum: 0,
      description: "Connects applying takes: the job's own figure when its document says, else the default; plus boostConnects.",
    }),
    costUsd: t.Number({ minimum: 0, description: "connects × JOBPILOT_CONNECT_PRICE_USD, to the cent." }),
    worthIt: t.Nullable(t.Boolean({ description: "expectedUsd ≥ costUsd; null when the value is unknown." })),
    basis: t.Object(
      {
        scoreBand: t.String({ description: "The job's score band (0-2, 3-4, 5-6, 7-8, 9-10, unscored), of its best match in your feeds." }),
        score: t.Nullable(t.Number({ description: "The match score the band is of; null when the job is in none of your feeds." })),
        freelancerId: t.Nullable(t.String({ description: "The freelancer calibrated on; null: the whole account." })),
        replyFrom: From,
        sentInBand: t.Integer({ minimum: 0, description: "Your sent proposals in the band." }),
        repliedInBand: t.Integer({ minimum: 0, description: "Of those, how many the client replied to." }),
        hireFrom: From,
        hiresInBand: t.Integer({ minimum: 0, description: "Of the replied ones, how many ended in a hire." }),
        valueFrom: literalUnion(VALUE_SOURCES, {
          description: "fixed: the fixed budget; hourly: the hourly bid × hoursEstimate; no_budget, not_usd, not_marketplace: why valueUsd is null.",
        }),
        hourlyRate: t.Nullable(t.Number({ description: "The hourly bid valued (apply's default bid); null for a fixed job." })),
        hoursEstimate: t.Nullable(t.Number({ description: "Hours of work assumed from the job's duration and workload; null for a fixed job." })),
        connectsFrom: literalUnion(["job", "default"] as const, { description: "job: the Connects the job's document states; default: none stated." }),
        boostConnects: t.Integer({ minimum: 0 }),
      },
      { description: "What the figures rest on (docs/expected-value.md)." },
    ),
    words: t.String({ description: 'The figures in plain words, as cards and alerts show them: "worth ~$3.10; costs $2.40 in Connects".' }),
  },
  { title: "ExpectedValue" },
);
export type ExpectedValue = typeof ExpectedValueSchema.static;
