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
    doc: "Delays before each webhook retry, counted from the failed attempt (comma-separated, units ms/s/m/h).",
  },
  webhookTimeoutMs: {
    env: "JOBPILOT_WEBHOOK_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 50, maximum: 120_000 }),
    default: 10_000,
    doc: "A webhook receiver must answer 2xx within this time.",
  },
  webhookConcurrency: {
    env: "JOBPILOT_WEBHOOK_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 1024 }),
    default: 64,
    doc: "Webhook deliveries in flight at once across feeds (one at a time per feed).",
  },
  webhookAllowPrivate: {
    env: "JOBPILOT_WEBHOOK_ALLOW_PRIVATE",
    flag: undefined,
    schema: T.Boolean(),
    default: false,
    doc: "Allow webhook URLs on private, loopback and other non-public addresses (e.g. a local automation server).",
  },
  webhookAllowlist: {
    env: "JOBPILOT_WEBHOOK_ALLOWLIST",
    flag: undefined,
    schema: T.String(),
    default: "",
    doc: "Comma-separated hosts (`hooks.lan`, `*.internal`) and CIDRs (`10.0.0.0/8`) allowed even though private.",
  },
  webhookDisableAfterMs: {
    env: "JOBPILOT_WEBHOOK_DISABLE_AFTER_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 60_000 }),
    default: 86_400_000,
    doc: "A webhook endpoint whose every delivery failed for this long is disabled (re-saving the URL re-enables it).",
  },
  webhookRotationWindowMs: {
    env: "JOBPILOT_WEBHOOK_ROTATION_WINDOW_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0 }),
    default: 86_400_000,
    doc: "After a signing-secret rotation, how long deliveries carry signatures with both the old and the new secret.",
  },
} as const satisfies Record<string, Setting>;
