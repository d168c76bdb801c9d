/**
 * Applying: how proposals reach the marketplace (the sandbox, bridge or browser companion driver), how many go at once, and when sent ones are synced.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import { MARKETPLACE_DRIVERS } from "../db/enums";
import type { Setting } from "./setting";

export const APPLY_SETTINGS = {
  marketplaceDriver: {
    env: "JOBPILOT_MARKETPLACE_DRIVER",
    flag: undefined,
    schema: T.Optional(T.Union(MARKETPLACE_DRIVERS.map((d) => T.Literal(d)))),
    default: undefined,
    doc: "How proposals reach the marketplace for accounts without their own setting (`jobpilot account driver`): `sandbox` (the simulated marketplace), `bridge` (your own submitter) or `companion` (the browser companion extension). Unset: `companion` for accounts whose paired browser companion has connected (polled since it paired), `sandbox` for the others. Jobs of the built-in sandbox source always go to `sandbox`.",
  },
  sandboxApplyLatencyMs: {
    env: "JOBPILOT_SANDBOX_APPLY_LATENCY_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 600_000 }),
    default: 1500,
    doc: "How long the sandbox marketplace takes to process a submission.",
  },
  sandboxTimeScale: {
    env: "JOBPILOT_SANDBOX_TIME_SCALE",
    flag: undefined,
    schema: T.Number({ minimum: 1, maximum: 1_000_000 }),
    default: 1,
    doc: "How much faster than real time the sandbox marketplace's clients act: their delays to view, reply, interview, hire or pass are divided by it (60: a 60-minute delay takes 1 minute), so tests and demos see outcomes in seconds. Fixed per proposal when it is submitted. The model is in docs/sandbox-market.md.",
  },
  loggedOutWindowMs: {
    env: "JOBPILOT_LOGGED_OUT_WINDOW_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 86_400_000 }),
    default: 300_000,
    doc: "How long a submission keeps retrying (still `processing`) while the marketplace session is restored, or the browser companion is offline, before it ends `logged_out`, uncharged.",
  },
  bridgeUrl: {
    env: "JOBPILOT_BRIDGE_URL",
    flag: undefined,
    schema: T.Optional(T.String({ pattern: "^https?://" })),
    default: undefined,
    doc: "Where the bridge driver POSTs signed submissions (your own submitter).",
  },
  bridgeSecret: {
    env: "JOBPILOT_BRIDGE_SECRET",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 24 })),
    default: undefined,
    doc: "Shared secret signing bridge requests and callbacks (Standard Webhooks): a `whsec_…` secret, or 24+ random characters used as their UTF-8 bytes.",
  },
  bridgeTimeoutMs: {
    env: "JOBPILOT_BRIDGE_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 100, maximum: 3_600_000 }),
    default: 120_000,
    doc: "How long the bridge driver waits for an outcome (in the answer or the callback) before retrying.",
  },
  companionTimeoutMs: {
    env: "JOBPILOT_COMPANION_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 100, maximum: 3_600_000 }),
    default: 120_000,
    doc: "How long a task handed to the browser companion may go unanswered before it is retried (a submission through `proposal.lookup` first, so it is never sent twice).",
  },
  companionReviewTimeoutMs: {
    env: "JOBPILOT_COMPANION_REVIEW_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 100, maximum: 86_400_000 }),
    default: 1_800_000,
    doc: 'Review mode: how long a filled form waits for your click before the application ends `failed` ("not reviewed"), uncharged.',
  },
  companionMinGapMs: {
    env: "JOBPILOT_COMPANION_MIN_GAP_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 3_600_000 }),
    default: 30_000,
    doc: "Minimum time between the end of one browser companion submission and the start of the next, per account (they also go one at a time).",
  },
  applyConcurrency: {
    env: "JOBPILOT_APPLY_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 256 }),
    default: 8,
    doc: "Applications submitted at once, in all (a companion submission waiting for review holds one).",
  },
  applyConcurrencyPerAccount: {
    env: "JOBPILOT_APPLY_CONCURRENCY_PER_ACCOUNT",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 256 }),
    default: 2,
    doc: "Applications of one account submitted at once.",
  },
  governor: {
    env: "JOBPILOT_GOVERNOR",
    flag: undefined,
    schema: T.Boolean(),
    default: true,
    doc: "The account-safety governor (docs/automation.md): caps, pacing, working hours, Connects budgets and the letter similarity guard on every submission. `false` lets everything through at once — for tests against the sandbox only, never with a real marketplace account.",
  },
  connectPriceUsd: {
    env: "JOBPILOT_CONNECT_PRICE_USD",
    flag: undefined,
    schema: T.Number({ minimum: 0, maximum: 100 }),
    default: 0.15,
    doc: "What one Connect costs you in USD: the price a proposal's Connects (to submit plus boost) are counted at in its funnel (`connectsCostUsd`).",
  },
  noReplyDays: {
    env: "JOBPILOT_NO_REPLY_DAYS",
    flag: undefined,
    schema: T.Number({ minimum: 0.01, maximum: 365 }),
    default: 14,
    doc: "Days after it was sent that a proposal with no reply and no recorded outcome counts as `no_reply` (worked out when the funnel is read, so changing it applies to every proposal at once; a later reply still moves it on).",
  },
  syncCron: {
    env: "JOBPILOT_SYNC_CRON",
    flag: undefined,
    schema: T.String({ minLength: 9 }),
    default: "*/5 * * * *",
    doc: "When applied proposals are checked for client views and replies (cron pattern).",
  },
} as const satisfies Record<string, Setting>;
