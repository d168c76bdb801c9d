/**
 * Webhook delivery: retries, timeouts, concurrency, which addresses a webhook may reach, when a failing endpoint is disabled, secret rotation.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import type { Setting } from "./setting";

export const WEBHOOK_SETTINGS = {
  webhookRetrySchedule: {
    env: "JOBPILOT_WEBHOOK_RETRY_SCHEDULE",
    flag: undefined,
    schema: T.String({ pattern: "^\\d+(ms|s|m|h)(,\\d+(ms|s|m|h))*$" }),
    default: "30s,2m,10m",
    doc: "Delays before each retry of a webhook or channel alert, counted from the failed attempt (comma-separated, units ms/s/m/h); their number is the number of retries. A platform's own delay (429 `Retry-After` and the like) wins when it gives one.",
  },
  webhookTimeoutMs: {
    env: "JOBPILOT_WEBHOOK_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 50, maximum: 120_000 }),
    default: 10_000,
    doc: "A webhook receiver must answer 2xx within this time. On PostgreSQL a node holds a feed's delivery lease for 3 times this.",
  },
  webhookConcurrency: {
    env: "JOBPILOT_WEBHOOK_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 1024 }),
    default: 64,
    doc: "Deliveries (webhooks and channel alerts) in flight at once across all accounts (one at a time per webhook or (feed, channel)).",
  },
  webhookAccountConcurrency: {
    env: "JOBPILOT_WEBHOOK_ACCOUNT_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 1024 }),
    default: 0,
    doc: "Deliveries (webhooks and channel alerts) one account may have in flight at once; 0: a quarter of JOBPILOT_WEBHOOK_CONCURRENCY (at least 1), so one account's backlog or slow receivers leave the other slots to the rest.",
  },
  webhookAllowPrivate: {
    env: "JOBPILOT_WEBHOOK_ALLOW_PRIVATE",
    flag: undefined,
    schema: T.Boolean(),
    default: false,
    doc: "Allow webhook URLs (and channel servers) on private, loopback and other non-public addresses, turning the address filter off; only where every webhook URL is yours.",
  },
  webhookAllowlist: {
    env: "JOBPILOT_WEBHOOK_ALLOWLIST",
    flag: undefined,
    schema: T.String(),
    default: "",
    doc: "Comma-separated hosts (`hooks.lan`, `*.internal`) and CIDRs (`10.0.0.0/8`, `fd00::/8`) allowed even though private; a listed hostname is allowed whatever it resolves to.",
  },
  webhookDisableAfterMs: {
    env: "JOBPILOT_WEBHOOK_DISABLE_AFTER_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 60_000 }),
    default: 86_400_000,
    doc: "A webhook endpoint whose every delivery failed for this long is disabled (saving the URL again re-enables it).",
  },
  webhookRotationWindowMs: {
    env: "JOBPILOT_WEBHOOK_ROTATION_WINDOW_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0 }),
    default: 86_400_000,
    doc: "After a signing-secret rotation, how long deliveries carry signatures with both the old and the new secret.",
  },
} as const satisfies Record<string, Setting>;
