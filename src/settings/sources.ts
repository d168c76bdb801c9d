/**
 * Job sources: which ones `serve` polls and how often, the public boards' addresses and categories,
 * the marketplace API's OAuth client and search, and the sandbox marketplace's job stream.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import type { Setting } from "./setting";

export const SOURCE_SETTINGS = {
  sources: {
    env: "JOBPILOT_SOURCES",
    flag: undefined,
    schema: T.String({ pattern: "^(none|[a-z0-9-]+(,[a-z0-9-]+)*)$" }),
    default: "sandbox",
    doc: "Comma-separated job sources `serve` polls (the names in docs/job-sources.md: `sandbox`, the built-in simulated marketplace; `marketplace-api`, the marketplace's official API; the public boards), or `none` (push ingestion and capture only).",
  },
  sourceIntervals: {
    env: "JOBPILOT_SOURCE_INTERVALS",
    flag: undefined,
    schema: T.String({ pattern: "^([a-z-]+=\\d+(ms|s|m|h)(,[a-z-]+=\\d+(ms|s|m|h))*)?$" }),
    default: "",
    doc: "Poll interval per source over its default schedule (docs/job-sources.md), e.g. `remoteok=2h,hackernews=30m`; for `marketplace-api` it replaces `JOBPILOT_MARKETPLACE_API_CRON`. Intervals below a board's floor (Remotive 6 h, the other boards 5 min; their terms) are raised to it.",
  },
  sourceBaseUrls: {
    env: "JOBPILOT_SOURCE_BASE_URLS",
    flag: undefined,
    schema: T.String({ pattern: "^([a-z-]+=https?://[^,\\s]+(,[a-z-]+=https?://[^,\\s]+)*)?$" }),
    default: "",
    doc: "Reach a public board at another address (a mirror, a caching proxy, a test server), e.g. `remoteok=http://127.0.0.1:8080`.",
  },
  wwrCategories: {
    env: "JOBPILOT_WWR_CATEGORIES",
    flag: undefined,
    schema: T.String({ pattern: "^([a-z0-9-]+(,[a-z0-9-]+)*)?$" }),
    default: "",
    doc: "We Work Remotely category feeds to poll, e.g. `remote-programming-jobs,remote-design-jobs`; empty: the all-jobs feed.",
  },
  remotiveCategory: {
    env: "JOBPILOT_REMOTIVE_CATEGORY",
    flag: undefined,
    schema: T.String({ pattern: "^[a-z0-9-]*$" }),
    default: "software-dev",
    doc: "Remotive category to poll (empty: every category).",
  },
  sourceUserAgent: {
    env: "JOBPILOT_SOURCE_USER_AGENT",
    flag: undefined,
    schema: T.String({ minLength: 1 }),
    default: "jobpilot (self-hosted job feed; +https://github.com/jobpilot)",
    doc: "User-Agent sent to the public job boards (some refuse requests without one).",
  },
  secretKey: {
    env: "JOBPILOT_SECRET_KEY",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 16 })),
    default: undefined,
    doc: "Key (16+ characters, e.g. `openssl rand -base64 32`) encrypting stored secrets: the marketplace OAuth tokens (required by `marketplace-api`) and notification channel settings. Unset, `serve` on SQLite generates `jobpilot-secret.key` (mode 0600) beside the database for channels; on PostgreSQL channels need it set, the same on every node. Keep it: without it the secrets cannot be read.",
  },
  marketplaceClientId: {
    env: "JOBPILOT_MARKETPLACE_CLIENT_ID",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 1 })),
    default: undefined,
    doc: "OAuth2 client id of your marketplace API key (the `marketplace-api` source). Set, it also mounts `GET /admin/oauth/callback`.",
  },
  marketplaceClientSecret: {
    env: "JOBPILOT_MARKETPLACE_CLIENT_SECRET",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 1 })),
    default: undefined,
    doc: "OAuth2 client secret of that key.",
  },
  marketplaceRedirectUri: {
    env: "JOBPILOT_MARKETPLACE_REDIRECT_URI",
    flag: undefined,
    schema: T.String({ pattern: "^https?://" }),
    default: "http://127.0.0.1:3000/admin/oauth/callback",
    doc: "Redirect URI registered with the key: this server's `/admin/oauth/callback`, or any page whose `code` you paste into `jobpilot source connect marketplace`.",
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
    doc: "When the `marketplace-api` source searches for new jobs (cron pattern), unless `JOBPILOT_SOURCE_INTERVALS` names it.",
  },
  marketplaceQueries: {
    env: "JOBPILOT_MARKETPLACE_QUERIES",
    flag: undefined,
    schema: T.String(),
    default: "",
    doc: "Extra search terms for the `marketplace-api` source (comma-separated), on top of the `includes` of every feed.",
  },
  sandboxJobsPerMinute: {
    env: "JOBPILOT_SANDBOX_JOBS_PER_MINUTE",
    flag: undefined,
    schema: T.Number({ minimum: 0.01, maximum: 6000 }),
    default: 4,
    doc: "How many jobs the sandbox marketplace posts per minute (its website shows the same stream).",
  },
  sandboxSeed: {
    env: "JOBPILOT_SANDBOX_SEED",
    flag: undefined,
    schema: T.Integer({ minimum: 0 }),
    default: 1,
    doc: "Seed of the sandbox marketplace: the same seed and clock give the same jobs.",
  },
} as const satisfies Record<string, Setting>;
