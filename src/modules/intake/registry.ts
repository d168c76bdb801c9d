import { Cron } from "croner";
import type { Config } from "../../config";
import { parseDurations } from "../../config";
import type { Clock } from "../../lib/clock";
import type { Db } from "../../db/client";
import { createMarketplaceApiSource, SOURCE_NAME as MARKETPLACE_API_NAME } from "../../sources/marketplace-api/source";
import { createHackerNewsSource, HACKERNEWS_NAME } from "../../sources/boards/hackernews";
import { createHimalayasSource, HIMALAYAS_NAME } from "../../sources/boards/himalayas";
import { createRemoteOkSource, REMOTEOK_NAME } from "../../sources/boards/remoteok";
import { createRemotiveSource, REMOTIVE_NAME } from "../../sources/boards/remotive";
import { createWeWorkRemotelySource, WWR_NAME } from "../../sources/boards/weworkremotely";
import { createSandboxSource, SANDBOX_NAME } from "../../sources/sandbox/index";
import type { JobSource } from "../../sources/source";
import { MARKETPLACE_PROVIDER, oauthTokenVault } from "./tokens";

/** What building a source takes: the configuration, and the search terms of the feeds (handed in, read at every poll). */
export interface SourceDeps {
  config: Config;
  /** Where sources keep what must be shared across nodes (the marketplace-api OAuth tokens). */
  db: Db;
  /** Every distinct include term of the feeds that watch `platform`: what a searching source asks for. */
  searchTerms: (platform: string) => Promise<string[]>;
  /** The app's clock, for sources that read time between polls (token expiry, Retry-After dates); the system clock when absent. */
  clock?: Clock;
}

/** What every public board adapter takes from the configuration. */
function boardOptions(config: Config, name: string, intervalMs: number | undefined) {
  return { baseUrl: parseNamedList(config.sourceBaseUrls)[name], intervalMs, userAgent: config.sourceUserAgent };
}

/** Poll intervals of the public boards when JOBPILOT_SOURCE_INTERVALS says nothing: well inside each board's published limits. */
export const DEFAULT_INTERVALS: Record<string, number> = {
  [REMOTEOK_NAME]: 60 * 60_000,
  [WWR_NAME]: 30 * 60_000,
  // Remotive asks for at most a few requests a day.
  [REMOTIVE_NAME]: 6 * 60 * 60_000,
  [HIMALAYAS_NAME]: 60 * 60_000,
  [HACKERNEWS_NAME]: 60 * 60_000,
};

/** Every source `JOBPILOT_SOURCES` may name, with what it is (for errors, `source list` and the README). */
export const SOURCE_CATALOG: Record<string, { platform: string; description: string; build: (deps: SourceDeps, intervalMs: number | undefined) => JobSource }> =
  {
    [SANDBOX_NAME]: {
      platform: "marketplace",
      description: "built-in simulated marketplace",
      build: ({ config }, intervalMs) => {
        const source = createSandboxSource({ seed: config.sandboxSeed, jobsPerMinute: config.sandboxJobsPerMinute });
        return intervalMs ? { ...source, intervalMs } : source;
      },
    },
    [REMOTEOK_NAME]: {
      platform: "web",
      description: "Remote OK public JSON feed (newest ~100 jobs)",
      build: ({ config }, intervalMs) => createRemoteOkSource(boardOptions(config, REMOTEOK_NAME, intervalMs)),
    },
    [WWR_NAME]: {
      platform: "web",
      description: "We Work Remotely RSS, per category (JOBPILOT_WWR_CATEGORIES)",
      build: ({ config }, intervalMs) =>
        createWeWorkRemotelySource({
          ...boardOptions(config, WWR_NAME, intervalMs),
          categories: config.wwrCategories ? config.wwrCategories.split(",") : ["all"],
        }),
    },
    [REMOTIVE_NAME]: {
      platform: "web",
      description: "Remotive public API (JOBPILOT_REMOTIVE_CATEGORY; at most every 6h, its terms)",
      build: ({ config }, intervalMs) => createRemotiveSource({ ...boardOptions(config, REMOTIVE_NAME, intervalMs), category: config.remotiveCategory }),
    },
    [HIMALAYAS_NAME]: {
      platform: "web",
      description: "Himalayas public jobs API (cursor paging)",
      build: ({ config }, intervalMs) => createHimalayasSource(boardOptions(config, HIMALAYAS_NAME, intervalMs)),
    },
    [HACKERNEWS_NAME]: {
      platform: "web",
      description: 'Hacker News "Who is hiring?" via the Algolia API, one job per top-level comment',
      build: ({ config }, intervalMs) => createHackerNewsSource(boardOptions(config, HACKERNEWS_NAME, intervalMs)),
    },
    [MARKETPLACE_API_NAME]: {
      platform: "marketplace",
      description: "the marketplace's official GraphQL API (needs `jobpilot source connect marketplace`)",
      build: (deps, intervalMs) => {
        const { config, clock } = deps;
        const marketplace = marketplaceApiOptions(config, deps.db);
        const extra = config.marketplaceQueries
          .split(",")
          .map((q) => q.trim())
          .filter(Boolean);
        const source = createMarketplaceApiSource({
          ...marketplace,
          intervalMs,
          queries: async () => [...new Set([...(await deps.searchTerms("marketplace")), ...extra])],
          now: clock ? () => clock.now() : undefined,
        });
        // An explicit interval wins; otherwise the cron schedule decides (checked here so a bad pattern stops start-up).
        if (intervalMs) return source;
        try {
          new Cron(config.marketplaceApiCron, { paused: true });
        } catch (err) {
          throw new Error(`Invalid JOBPILOT_MARKETPLACE_API_CRON: ${(err as Error).message}`);
        }
        return { ...source, cron: config.marketplaceApiCron };
      },
    },
  };

/**
 * The source a job came from, by name, for re-reading it (the tracker): the
 * polled one when JOBPILOT_SOURCES names it, else one built from the catalog,
 * so jobs of a source no longer polled are still watched; undefined for a name
 * the catalog does not know ("push", "capture") or cannot build (missing settings).
 */
export function sourceLookup(deps: SourceDeps, polled: readonly JobSource[]): (name: string) => JobSource | undefined {
  const known = new Map<string, JobSource | undefined>(polled.map((s) => [s.name, s]));
  return (name) => {
    if (!known.has(name)) {
      let built: JobSource | undefined;
      try {
        built = Object.hasOwn(SOURCE_CATALOG, name) ? SOURCE_CATALOG[name]!.build(deps, DEFAULT_INTERVALS[name]) : undefined;
      } catch {
        built = undefined;
      }
      known.set(name, built);
    }
    return known.get(name);
  };
}

/** What the marketplace API client needs from the configuration, or a message naming what is missing. */
export function marketplaceApiSettings(config: Config) {
  const missing = (
    [
      ["JOBPILOT_MARKETPLACE_CLIENT_ID", config.marketplaceClientId],
      ["JOBPILOT_MARKETPLACE_CLIENT_SECRET", config.marketplaceClientSecret],
      ["JOBPILOT_SECRET_KEY", config.secretKey],
    ] as const
  )
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length) throw new Error(`The marketplace-api source needs ${missing.join(", ")} (see README, "The marketplace's official API")`);
  return {
    apiUrl: config.marketplaceApiUrl,
    tokenUrl: config.marketplaceTokenUrl,
    clientId: config.marketplaceClientId!,
    clientSecret: config.marketplaceClientSecret!,
    secretKey: config.secretKey!,
  };
}

/** marketplaceApiSettings with the database row the tokens live in: what the marketplace API client takes. */
export function marketplaceApiOptions(config: Config, db: Db) {
  return { ...marketplaceApiSettings(config), tokenVault: oauthTokenVault(db, MARKETPLACE_PROVIDER) };
}

/** marketplaceApiOptions, or null when the API is not configured (outside the marketplace-api source it is optional). */
export function optionalMarketplaceApiOptions(config: Config, db: Db): ReturnType<typeof marketplaceApiOptions> | null {
  try {
    return marketplaceApiOptions(config, db);
  } catch {
    return null;
  }
}

/** `a=x,b=y` → { a: "x", b: "y" } (the config schema has checked the shape). */
function parseNamedList(list: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of list.split(",").filter(Boolean)) {
    const at = part.indexOf("=");
    out[part.slice(0, at)] = part.slice(at + 1);
  }
  return out;
}

/** `remoteok=2h,hackernews=30m` → per-source intervals in ms. */
export function parseSourceIntervals(list: string): Record<string, number> {
  return Object.fromEntries(Object.entries(parseNamedList(list)).map(([name, duration]) => [name, parseDurations(duration)[0]!]));
}

export function configuredSourceNames(config: Config): string[] {
  return config.sources === "none" ? [] : [...new Set(config.sources.split(","))];
}

/** The sources named in JOBPILOT_SOURCES, built from the configuration; an unknown name or missing setting is a clear start-up error. */
export function configuredSources(deps: SourceDeps): JobSource[] {
  const intervals = parseSourceIntervals(deps.config.sourceIntervals);
  for (const [setting, list] of [
    ["JOBPILOT_SOURCE_INTERVALS", intervals],
    ["JOBPILOT_SOURCE_BASE_URLS", parseNamedList(deps.config.sourceBaseUrls)],
  ] as const) {
    for (const name of Object.keys(list)) {
      if (!SOURCE_CATALOG[name]) throw new Error(`Invalid ${setting}: unknown source "${name}" (available: ${Object.keys(SOURCE_CATALOG).join(", ")})`);
    }
  }
  return configuredSourceNames(deps.config).map((name) => {
    const entry = SOURCE_CATALOG[name];
    if (!entry) throw new Error(`Invalid JOBPILOT_SOURCES: unknown source "${name}" (available: ${Object.keys(SOURCE_CATALOG).join(", ")}, none)`);
    return entry.build(deps, intervals[name] ?? DEFAULT_INTERVALS[name]);
  });
}
