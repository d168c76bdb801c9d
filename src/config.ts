import { Type as T, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { LOG_LEVELS } from "./lib/log";
import { MARKETPLACE_DRIVERS } from "./db/enums";

/** The longest feed prompt any account may be allowed (the request schema's own bound). */
export const PROMPT_CHARS_HARD_MAX = 100_000;

/**
 * Every setting, in one place. Each has an environment variable, optionally a
 * command-line flag (flags win over the environment), a default and a schema.
 * The README's configuration table is written from this list.
 */
export const SETTINGS = {
  port: {
    env: "PORT",
    flag: "port",
    schema: T.Integer({ minimum: 0, maximum: 65535 }),
    default: 3000,
    doc: "TCP port of the HTTP server (0 picks a free one).",
  },
  host: {
    env: "HOST",
    flag: "host",
    schema: T.String({ minLength: 1 }),
    default: "127.0.0.1",
    doc: "Address to listen on. Use 0.0.0.0 to accept connections from other machines.",
  },
  dbPath: {
    env: "JOBPILOT_DB",
    flag: "db",
    schema: T.String({ minLength: 1 }),
    default: "./data/jobpilot.db",
    doc: "SQLite database file (its directory is created if missing); `:memory:` for a throw-away database.",
  },
  adminToken: {
    env: "JOBPILOT_ADMIN_TOKEN",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 16 })),
    default: undefined,
    doc: "Bearer token for the /admin routes (at least 16 characters). Unset: the admin routes answer 404.",
  },
  logLevel: {
    env: "LOG_LEVEL",
    flag: "log-level",
    schema: T.Union(LOG_LEVELS.map((l) => T.Literal(l))),
    default: "info",
    doc: "debug, info, warn or error.",
  },
  logFormat: {
    env: "LOG_FORMAT",
    flag: undefined,
    schema: T.Union([T.Literal("json"), T.Literal("pretty")]),
    default: "json",
    doc: "json (one object per line) or pretty.",
  },
  sqliteSynchronous: {
    env: "JOBPILOT_SQLITE_SYNCHRONOUS",
    flag: undefined,
    schema: T.Union([T.Literal("FULL"), T.Literal("NORMAL")]),
    default: "FULL",
    doc: "FULL survives power loss (credits, applications); NORMAL is faster and can lose the last commits on power loss.",
  },
  maxBodyBytes: {
    env: "JOBPILOT_MAX_BODY_BYTES",
    flag: undefined,
    schema: T.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 }),
    default: 1024 * 1024,
    doc: "Largest accepted request body; larger bodies get 413.",
  },
  shutdownTimeoutMs: {
    env: "JOBPILOT_SHUTDOWN_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 600_000 }),
    default: 10_000,
    doc: "How long SIGTERM/SIGINT waits for in-flight requests and background work before closing.",
  },
  firstRunCredits: {
    env: "JOBPILOT_FIRST_RUN_CREDITS",
    flag: undefined,
    schema: T.Integer({ minimum: 0 }),
    default: 10,
    doc: "Credits given to the account `serve` creates on an empty database.",
  },
  sources: {
    env: "JOBPILOT_SOURCES",
    flag: undefined,
    schema: T.String({ pattern: "^(none|[a-z0-9-]+(,[a-z0-9-]+)*)$" }),
    default: "sandbox",
    doc: "Comma-separated job sources polled by `serve`: `sandbox` (the built-in simulated marketplace), `marketplace-api` (the marketplace's official API, see `jobpilot source connect`), `remoteok`, `weworkremotely`, `remotive`, `himalayas`, `hackernews` (public job boards), or `none` (push ingestion and capture only).",
  },
  sourceIntervals: {
    env: "JOBPILOT_SOURCE_INTERVALS",
    flag: undefined,
    schema: T.String({ pattern: "^([a-z-]+=\\d+(ms|s|m|h)(,[a-z-]+=\\d+(ms|s|m|h))*)?$" }),
    default: "",
    doc: "Poll interval per source, overriding the defaults (remoteok 1h, weworkremotely 30m, remotive 6h, himalayas 1h, hackernews 1h, marketplace-api 5m), e.g. `remoteok=2h,hackernews=30m`.",
  },
  sourceBaseUrls: {
    env: "JOBPILOT_SOURCE_BASE_URLS",
    flag: undefined,
    schema: T.String({ pattern: "^([a-z-]+=https?://[^,\\s]+(,[a-z-]+=https?://[^,\\s]+)*)?$" }),
    default: "",
    doc: "Where a public board is reached instead of its public address (a mirror, a caching proxy, a test server), e.g. `remoteok=http://127.0.0.1:8080`.",
  },
  wwrCategories: {
    env: "JOBPILOT_WWR_CATEGORIES",
    flag: undefined,
    schema: T.String({ pattern: "^([a-z0-9-]+(,[a-z0-9-]+)*)?$" }),
    default: "",
    doc: "We Work Remotely category feeds to poll (e.g. `remote-programming-jobs,remote-design-jobs`); empty = the all-jobs feed.",
  },
  remotiveCategory: {
    env: "JOBPILOT_REMOTIVE_CATEGORY",
    flag: undefined,
    schema: T.String({ pattern: "^[a-z0-9-]*$" }),
    default: "software-dev",
    doc: "Remotive category to poll (empty = every category).",
  },
  sourceUserAgent: {
    env: "JOBPILOT_SOURCE_USER_AGENT",
    flag: undefined,
    schema: T.String({ minLength: 1 }),
    default: "jobpilot (self-hosted job feed; +https://github.com/jobpilot)",
    doc: "User-Agent sent to public job boards (some refuse requests without one).",
  },
  secretKey: {
    env: "JOBPILOT_SECRET_KEY",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 16 })),
    default: undefined,
    doc: "Key (16+ characters, e.g. `openssl rand -base64 32`) that encrypts stored marketplace OAuth tokens; required by `marketplace-api`.",
  },
  marketplaceClientId: {
    env: "JOBPILOT_MARKETPLACE_CLIENT_ID",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 1 })),
    default: undefined,
    doc: "OAuth2 client id of your marketplace API key (marketplace-api source).",
  },
  marketplaceClientSecret: {
    env: "JOBPILOT_MARKETPLACE_CLIENT_SECRET",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 1 })),
    default: undefined,
    doc: "OAuth2 client secret of your marketplace API key.",
  },
  marketplaceRedirectUri: {
    env: "JOBPILOT_MARKETPLACE_REDIRECT_URI",
    flag: undefined,
    schema: T.String({ pattern: "^https?://" }),
    default: "http://127.0.0.1:3000/admin/oauth/callback",
    doc: "Redirect URI registered with your marketplace API key: this server's `/admin/oauth/callback` (or any page whose `code` you paste into `jobpilot source connect`).",
  },
  marketplaceAuthorizeUrl: {
    env: "JOBPILOT_MARKETPLACE_AUTHORIZE_URL",
    flag: undefined,
    schema: T.String({ pattern: "^https?://" }),
    default: "https://www.upwork.com/ab/account-security/oauth2/authorize",
    doc: "The marketplace's OAuth2 authorize page.",
  },
  marketplaceTokenUrl: {
    env: "JOBPILOT_MARKETPLACE_TOKEN_URL",
    flag: undefined,
    schema: T.String({ pattern: "^https?://" }),
    default: "https://www.upwork.com/api/v3/oauth2/token",
    doc: "The marketplace's OAuth2 token endpoint.",
  },
  marketplaceApiUrl: {
    env: "JOBPILOT_MARKETPLACE_API_URL",
    flag: undefined,
    schema: T.String({ pattern: "^https?://" }),
    default: "https://api.upwork.com/graphql",
    doc: "The marketplace's official GraphQL endpoint.",
  },
  marketplaceApiCron: {
    env: "JOBPILOT_MARKETPLACE_API_CRON",
    flag: undefined,
    schema: T.String({ minLength: 9 }),
    default: "*/5 * * * *",
    doc: "When the marketplace-api source searches for new jobs (cron pattern).",
  },
  marketplaceQueries: {
    env: "JOBPILOT_MARKETPLACE_QUERIES",
    flag: undefined,
    schema: T.String(),
    default: "",
    doc: "Extra search terms for the marketplace-api source (comma-separated), on top of the `includes` of every feed.",
  },
  sandboxJobsPerMinute: {
    env: "JOBPILOT_SANDBOX_JOBS_PER_MINUTE",
    flag: undefined,
    schema: T.Number({ minimum: 0.01, maximum: 6000 }),
    default: 4,
    doc: "How many jobs the sandbox marketplace posts per minute.",
  },
  sandboxSeed: {
    env: "JOBPILOT_SANDBOX_SEED",
    flag: undefined,
    schema: T.Integer({ minimum: 0 }),
    default: 1,
    doc: "Seed of the sandbox marketplace: the same seed and clock give the same jobs.",
  },
  openaiApiKey: {
    env: "OPENAI_API_KEY",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 1 })),
    default: undefined,
    doc: "API key of an OpenAI-compatible model server. Unset: jobs are scored by the local scorer.",
  },
  openaiBaseUrl: {
    env: "OPENAI_BASE_URL",
    flag: undefined,
    schema: T.Optional(T.String({ pattern: "^https?://" })),
    default: undefined,
    doc: "Base URL of the model server (e.g. http://127.0.0.1:8080/v1 for llama.cpp, Ollama or vLLM). Unset: OpenAI's API.",
  },
  scoringModel: {
    env: "JOBPILOT_SCORING_MODEL",
    flag: undefined,
    schema: T.String({ minLength: 1 }),
    default: "gpt-5-nano",
    doc: "Model that scores jobs against a feed's profilePrompt.",
  },
  proposalModel: {
    env: "JOBPILOT_PROPOSAL_MODEL",
    flag: undefined,
    schema: T.String({ minLength: 1 }),
    default: "gpt-5-mini",
    doc: "Model that writes proposals and screening answers.",
  },
  aiTimeoutMs: {
    env: "JOBPILOT_AI_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 100, maximum: 600_000 }),
    default: 60_000,
    doc: "Timeout of one model request (proposals: ×1.5 at medium effort, ×2 at high).",
  },
  aiMaxRetries: {
    env: "JOBPILOT_AI_MAX_RETRIES",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 10 }),
    default: 2,
    doc: "Retries of a model request on 429, 5xx and network errors (backoff with jitter, Retry-After honoured).",
  },
  aiConcurrency: {
    env: "JOBPILOT_AI_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 256 }),
    default: 4,
    doc: "Model requests in flight at once.",
  },
  aiReasoningEffort: {
    env: "JOBPILOT_AI_REASONING_EFFORT",
    flag: undefined,
    schema: T.Boolean(),
    default: true,
    doc: "Send `reasoning_effort` to the model; set false for servers whose models reject it.",
  },
  marketplaceDriver: {
    env: "JOBPILOT_MARKETPLACE_DRIVER",
    flag: undefined,
    schema: T.Union(MARKETPLACE_DRIVERS.map((d) => T.Literal(d))),
    default: "sandbox",
    doc: "How proposals reach the marketplace for accounts without their own setting: sandbox (the simulated marketplace) or bridge (your own submitter, see README).",
  },
  sandboxApplyLatencyMs: {
    env: "JOBPILOT_SANDBOX_APPLY_LATENCY_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 600_000 }),
    default: 1500,
    doc: "How long the sandbox marketplace takes to process a submission.",
  },
  loggedOutWindowMs: {
    env: "JOBPILOT_LOGGED_OUT_WINDOW_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 86_400_000 }),
    default: 300_000,
    doc: "How long a submission keeps retrying (status processing) while the marketplace session is being restored before it ends logged_out.",
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
    doc: "Shared secret that signs bridge requests and callbacks (Standard Webhooks, e.g. whsec_… or 24+ random characters).",
  },
  bridgeTimeoutMs: {
    env: "JOBPILOT_BRIDGE_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 100, maximum: 3_600_000 }),
    default: 120_000,
    doc: "How long the bridge driver waits for an outcome (in the response or the callback) before retrying.",
  },
  applyConcurrency: {
    env: "JOBPILOT_APPLY_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 256 }),
    default: 8,
    doc: "Applications submitted at once, in all.",
  },
  applyConcurrencyPerAccount: {
    env: "JOBPILOT_APPLY_CONCURRENCY_PER_ACCOUNT",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 256 }),
    default: 2,
    doc: "Applications of one account submitted at once.",
  },
  syncCron: {
    env: "JOBPILOT_SYNC_CRON",
    flag: undefined,
    schema: T.String({ minLength: 9 }),
    default: "*/5 * * * *",
    doc: "When applied proposals are checked for client views and replies (cron pattern).",
  },
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
  trackerCron: {
    env: "JOBPILOT_TRACKER_CRON",
    flag: undefined,
    schema: T.String({ minLength: 9 }),
    default: "*/10 * * * *",
    doc: "When the proposal-activity tracker re-reads the jobs it watches (cron pattern).",
  },
  trackerBudget: {
    env: "JOBPILOT_TRACKER_BUDGET",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 100_000 }),
    default: 200,
    doc: "Most jobs the tracker re-reads per run.",
  },
  trackerMaxAgeDays: {
    env: "JOBPILOT_TRACKER_MAX_AGE_DAYS",
    flag: undefined,
    schema: T.Number({ minimum: 0.01, maximum: 365 }),
    default: 14,
    doc: "The tracker stops watching a job this many days after it was published.",
  },
  maxFeedsPerAccount: {
    env: "JOBPILOT_MAX_FEEDS_PER_ACCOUNT",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 1_000_000 }),
    default: 200,
    doc: "Most feeds one account may have (`jobpilot account limits --feeds` sets it per account).",
  },
  maxApiKeysPerAccount: {
    env: "JOBPILOT_MAX_API_KEYS_PER_ACCOUNT",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 1_000_000 }),
    default: 50,
    doc: "Most active (unrevoked) API keys one account may have (`jobpilot account limits --api-keys` sets it per account).",
  },
  maxPromptChars: {
    env: "JOBPILOT_MAX_PROMPT_CHARS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: PROMPT_CHARS_HARD_MAX }),
    default: 20_000,
    doc: "Longest profilePrompt and proposalGenerationPrompt of a feed, in characters (`jobpilot account limits --prompt-chars` sets it per account, up to 100000).",
  },
  localAiThreads: {
    env: "JOBPILOT_LOCAL_AI_THREADS",
    flag: undefined,
    schema: T.Optional(T.Integer({ minimum: 0, maximum: 64 })),
    default: undefined,
    doc: "Threads that run the local scorer and writer (used without a model) off the thread that answers HTTP; unset: the number of cores minus one, between 1 and 4; 0 runs them on the server's thread.",
  },
  workerConcurrency: {
    env: "JOBPILOT_WORKER_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 256 }),
    default: 8,
    doc: "Background tasks (scoring, …) run at once.",
  },
} as const satisfies Record<string, { env: string; flag: string | undefined; schema: TSchema; default: unknown; doc: string }>;

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
  if (type === "boolean") return raw === "true" || raw === "1" ? true : raw === "false" || raw === "0" ? false : raw;
  return raw;
}

function describe(schema: TSchema): string {
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
        key === "adminToken" || key === "openaiApiKey" || key === "bridgeSecret" || key === "secretKey" || key === "marketplaceClientSecret"
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
