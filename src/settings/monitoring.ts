/**
 * Monitoring: the Prometheus endpoint and `jobpilot doctor`'s clock check.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import type { Setting } from "./setting";

export const MONITORING_SETTINGS = {
  metricsEnabled: {
    env: "JOBPILOT_METRICS",
    flag: undefined,
    schema: T.Boolean(),
    default: true,
    doc: "Serve Prometheus metrics at `GET /metrics` and time every request for them; `false`: no `/metrics` (404) and nothing observed per request.",
  },
  metricsToken: {
    env: "JOBPILOT_METRICS_TOKEN",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 16 })),
    default: undefined,
    doc: "Bearer token for `GET /metrics` (at least 16 characters). Unset: `/metrics` answers only requests made directly from this machine (loopback, no proxy headers).",
  },
  timeCheckUrl: {
    env: "JOBPILOT_TIME_CHECK_URL",
    flag: undefined,
    schema: T.Optional(T.String({ pattern: "^https?://" })),
    default: undefined,
    doc: "A server whose `Date` header `jobpilot doctor` compares this machine's clock with; unset: the model server's, when one is configured.",
  },
} as const satisfies Record<string, Setting>;
