import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { booleanText } from "./lib/boolean-text";
import { AI_SETTINGS } from "./settings/ai";
import { CLIENT_SETTINGS } from "./settings/client";
import { APPLY_SETTINGS } from "./settings/apply";
import { THREAD_SETTINGS, TRACKER_SETTINGS } from "./settings/background";
import { CHANNEL_SETTINGS } from "./settings/channels";
import { LIMIT_SETTINGS } from "./settings/limits";
import { MONITORING_SETTINGS } from "./settings/monitoring";
import { MAINTENANCE_SETTINGS } from "./settings/maintenance";
import { SERVER_SETTINGS } from "./settings/server";
import type { Setting } from "./settings/setting";
import { SOURCE_SETTINGS } from "./settings/sources";
import { WEBHOOK_SETTINGS } from "./settings/webhooks";

export { PROMPT_CHARS_HARD_MAX } from "./settings/limits";

/**
 * Every setting, in one list. Each has an environment variable, optionally a
 * command-line flag (flags win over the environment), a default and a schema.
 * docs/configuration.md is generated from this list (scripts/gen-docs.ts). The definitions
 * live in src/settings/, one file per concern; the order here is the order
 * they are checked in.
 */
export const SETTINGS = {
  ...SERVER_SETTINGS,
  ...SOURCE_SETTINGS,
  ...AI_SETTINGS,
  ...APPLY_SETTINGS,
  ...WEBHOOK_SETTINGS,
  ...CHANNEL_SETTINGS,
  ...TRACKER_SETTINGS,
  ...LIMIT_SETTINGS,
  ...THREAD_SETTINGS,
  ...MONITORING_SETTINGS,
  ...MAINTENANCE_SETTINGS,
  ...CLIENT_SETTINGS,
} as const satisfies Record<string, Setting>;

type Settings = typeof SETTINGS;
export type Config = { -readonly [K in keyof Settings]: Static<Settings[K]["schema"]> };

export class ConfigError extends Error {}

/** Numbers and booleans arrive as strings from env and argv. */
function coerce(schema: TSchema, raw: string): unknown {
  const type = (schema as { type?: string }).type;
  if (type === "integer" || type === "number") {
    const trimmed = raw.trim();
    return trimmed === "" ? raw : Number(trimmed);
  }
  if (type === "boolean") return booleanText(raw) ?? raw;
  return raw;
}

/** What a setting accepts, in words: the start-up error's "expected …" and the Accepts column of docs/configuration.md. */
export function describe(schema: TSchema): string {
  const s = schema as Record<string, unknown> & { anyOf?: { const?: unknown }[] };
  if (s.anyOf) return "one of " + s.anyOf.map((x) => String(x.const)).join(", ");
  if (s.type === "integer") {
    const range = s.maximum !== undefined ? ` between ${s.minimum} and ${s.maximum}` : s.minimum !== undefined ? ` >= ${s.minimum}` : "";
    return `an integer${range}`;
  }
  if (s.type === "number") return `a number between ${s.minimum} and ${s.maximum}`;
  if (s.type === "boolean") return "true or false";
  if (s.type === "string" && s.pattern) return `a value matching ${s.pattern}`;
  if (s.type === "string") return s.minLength && Number(s.minLength) > 1 ? `a string of at least ${s.minLength} characters` : "a non-empty string";
  return "a valid value";
}

/**
 * Defaults < environment < flags. Fails fast with a message naming the variable
 * (or flag) that is wrong, so a typo in a unit file is found at start.
 */
export function loadConfig(env: Record<string, string | undefined>, flags: Record<string, string | undefined> = {}): Config {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Settings[keyof Settings]][]) {
    let value: unknown = setting.default;
    let source: string | undefined;
    const fromEnv = env[setting.env];
    if (fromEnv !== undefined && fromEnv !== "") {
      value = coerce(setting.schema, fromEnv);
      source = setting.env;
    }
    const fromFlag = setting.flag ? flags[setting.flag] : undefined;
    if (setting.flag && fromFlag !== undefined) {
      value = coerce(setting.schema, fromFlag);
      source = `--${setting.flag}`;
    }
    if (source && !Value.Check(setting.schema, value)) {
      const shown =
        key === "adminToken" ||
        key === "openaiApiKey" ||
        key === "bridgeSecret" ||
        key === "secretKey" ||
        key === "marketplaceClientSecret" ||
        key === "metricsToken" ||
        key === "serverApiKey"
          ? "(hidden)"
          : JSON.stringify(source === setting.env ? fromEnv : fromFlag);
      throw new ConfigError(`Invalid ${source}: expected ${describe(setting.schema)}, got ${shown}`);
    }
    out[key] = value;
  }
  return out as Config;
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** "30s,2m,10m" → [30000, 120000, 600000]. The config schema has already checked the format. */
export function parseDurations(list: string): number[] {
  return list.split(",").map((part) => {
    const m = /^(\d+)(ms|s|m|h)$/.exec(part.trim())!;
    return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  });
}
