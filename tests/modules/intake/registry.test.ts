import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { configuredSources, DEFAULT_INTERVALS, parseSourceIntervals, SOURCE_CATALOG } from "../../../src/modules/intake/registry";
import { memoryLogger } from "../../../src/lib/log";
import { openTestDb, type TestDb } from "../../helpers/db";

const MARKETPLACE_ENV = {
  JOBPILOT_MARKETPLACE_CLIENT_ID: "client-id",
  JOBPILOT_MARKETPLACE_CLIENT_SECRET: "client-secret",
  JOBPILOT_SECRET_KEY: "a-secret-key-of-32-characters-xx",
};
const ALL = Object.keys(SOURCE_CATALOG);
/** Building a source reads nothing from the database; the marketplace-api source only keeps it for its tokens. */
let t: TestDb;
beforeAll(async () => {
  t = await openTestDb();
});
afterAll(() => t.close());

function build(env: Record<string, string>) {
  return configuredSources({ config: loadConfig(env), db: t.db, searchTerms: async () => [] });
}

describe("parseSourceIntervals", () => {
  test("parses named durations", () => {
    expect(parseSourceIntervals("")).toEqual({});
    expect(parseSourceIntervals("remoteok=2h,hackernews=30m,sandbox=500ms,himalayas=90s")).toEqual({
      remoteok: 7_200_000,
      hackernews: 1_800_000,
      sandbox: 500,
      himalayas: 90_000,
    });
  });
});

describe("configuredSources", () => {
  test("the catalog knows the documented sources", () => {
    expect(ALL.sort()).toEqual(["hackernews", "himalayas", "marketplace-api", "remoteok", "remotive", "sandbox", "weworkremotely"]);
    for (const entry of Object.values(SOURCE_CATALOG)) {
      expect(["web", "marketplace"]).toContain(entry.platform);
      expect(entry.description.length).toBeGreaterThan(0);
    }
  });

  test("every catalog name builds, named as asked, with a positive interval and a poll function", () => {
    const sources = build({ JOBPILOT_SOURCES: ALL.join(","), ...MARKETPLACE_ENV });
    expect(sources.map((s) => s.name)).toEqual(ALL);
    for (const s of sources) {
      expect(s.intervalMs).toBeGreaterThan(0);
      expect(typeof s.poll).toBe("function");
    }
    for (const [name, ms] of Object.entries(DEFAULT_INTERVALS)) expect(sources.find((s) => s.name === name)!.intervalMs).toBe(ms);
    // Without an explicit interval the marketplace API follows its cron pattern.
    expect(sources.find((s) => s.name === "marketplace-api")!.cron).toBe("*/5 * * * *");
  });

  test("each name builds on its own too", () => {
    for (const name of ALL) {
      const sources = build({ JOBPILOT_SOURCES: name, ...MARKETPLACE_ENV });
      expect(sources.map((s) => s.name)).toEqual([name]);
    }
  });

  test("duplicate names build once; the default is the sandbox", () => {
    expect(build({ JOBPILOT_SOURCES: "remoteok,remoteok" }).map((s) => s.name)).toEqual(["remoteok"]);
    expect(build({}).map((s) => s.name)).toEqual(["sandbox"]);
  });

  test("none: no sources", () => {
    expect(build({ JOBPILOT_SOURCES: "none" })).toEqual([]);
  });

  test("an unknown source name is an error naming JOBPILOT_SOURCES and the available ones", () => {
    expect(() => build({ JOBPILOT_SOURCES: "remoteok,indeed" })).toThrow(/Invalid JOBPILOT_SOURCES: unknown source "indeed" \(available: .*remoteok.*, none\)/);
  });

  test("an unknown name in JOBPILOT_SOURCE_INTERVALS is an error naming the variable", () => {
    expect(() => build({ JOBPILOT_SOURCES: "remoteok", JOBPILOT_SOURCE_INTERVALS: "remoteok=2h,indeed=1h" })).toThrow(
      /Invalid JOBPILOT_SOURCE_INTERVALS: unknown source "indeed"/,
    );
    // Even when the unknown name is not an enabled source, and even with JOBPILOT_SOURCES=none.
    expect(() => build({ JOBPILOT_SOURCES: "none", JOBPILOT_SOURCE_INTERVALS: "indeed=1h" })).toThrow(/JOBPILOT_SOURCE_INTERVALS/);
  });

  test("an unknown name in JOBPILOT_SOURCE_BASE_URLS is an error naming the variable", () => {
    expect(() => build({ JOBPILOT_SOURCES: "remoteok", JOBPILOT_SOURCE_BASE_URLS: "indeed=http://127.0.0.1:9" })).toThrow(
      /Invalid JOBPILOT_SOURCE_BASE_URLS: unknown source "indeed"/,
    );
  });

  test("marketplace-api without its settings names exactly the missing variables", () => {
    const all = "JOBPILOT_MARKETPLACE_CLIENT_ID, JOBPILOT_MARKETPLACE_CLIENT_SECRET, JOBPILOT_SECRET_KEY";
    expect(() => build({ JOBPILOT_SOURCES: "marketplace-api" })).toThrow(`The marketplace-api source needs ${all}`);
    const missingSecret = () => build({ JOBPILOT_SOURCES: "marketplace-api", ...MARKETPLACE_ENV, JOBPILOT_SECRET_KEY: "" });
    expect(missingSecret).toThrow(/needs JOBPILOT_SECRET_KEY \(/);
    const missingClient = () =>
      build({ JOBPILOT_SOURCES: "marketplace-api", JOBPILOT_SECRET_KEY: MARKETPLACE_ENV.JOBPILOT_SECRET_KEY, JOBPILOT_MARKETPLACE_CLIENT_SECRET: "s" });
    expect(missingClient).toThrow(/needs JOBPILOT_MARKETPLACE_CLIENT_ID \(/);
    const missingClientSecret = () => build({ JOBPILOT_SOURCES: "marketplace-api", ...MARKETPLACE_ENV, JOBPILOT_MARKETPLACE_CLIENT_SECRET: "" });
    expect(missingClientSecret).toThrow(/needs JOBPILOT_MARKETPLACE_CLIENT_SECRET \(/);
  });

  test("an invalid JOBPILOT_MARKETPLACE_API_CRON is an error naming it", () => {
    expect(() => build({ JOBPILOT_SOURCES: "marketplace-api", ...MARKETPLACE_ENV, JOBPILOT_MARKETPLACE_API_CRON: "not a cron pattern" })).toThrow(
      /Invalid JOBPILOT_MARKETPLACE_API_CRON/,
    );
    // A valid one is used as the source's schedule.
    const [source] = build({ JOBPILOT_SOURCES: "marketplace-api", ...MARKETPLACE_ENV, JOBPILOT_MARKETPLACE_API_CRON: "0 */2 * * *" });
    expect(source!.cron).toBe("0 */2 * * *");
  });

  test("intervals override the defaults; an explicit marketplace-api interval replaces its cron", () => {
    const sources = build({
      JOBPILOT_SOURCES: "hackernews,himalayas,sandbox,marketplace-api,remoteok",
      JOBPILOT_SOURCE_INTERVALS: "hackernews=2h,himalayas=90m,sandbox=5s,marketplace-api=10m",
      ...MARKETPLACE_ENV,
    });
    const by = Object.fromEntries(sources.map((s) => [s.name, s]));
    expect(by.hackernews!.intervalMs).toBe(2 * 3_600_000);
    expect(by.himalayas!.intervalMs).toBe(90 * 60_000);
    expect(by.sandbox!.intervalMs).toBe(5_000);
    expect(by["marketplace-api"]!.intervalMs).toBe(10 * 60_000);
    expect(by["marketplace-api"]!.cron).toBeUndefined();
    // Not overridden: the default.
    expect(by.remoteok!.intervalMs).toBe(DEFAULT_INTERVALS.remoteok!);
  });

  describe("against a local board", () => {
    async function pathsPolled(env: Record<string, string>) {
      const paths: string[] = [];
      const server = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch(req) {
          paths.push(new URL(req.url).pathname);
          return new Response(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>`, {
            headers: { "content-type": "application/rss+xml" },
          });
        },
      });
      try {
        const [source] = build({ JOBPILOT_SOURCES: "weworkremotely", JOBPILOT_SOURCE_BASE_URLS: `weworkremotely=http://127.0.0.1:${server.port}`, ...env });
        await source!.poll({ nowTs: Date.now(), state: {}, fetch, log: memoryLogger() });
      } finally {
        await server.stop(true);
      }
      return paths;
    }

    test("We Work Remotely with no categories polls the all-jobs feed, at the configured base URL", async () => {
      expect(await pathsPolled({})).toEqual(["/remote-jobs.rss"]);
    });

    test("We Work Remotely with categories polls each category feed", async () => {
      expect(await pathsPolled({ JOBPILOT_WWR_CATEGORIES: "remote-programming-jobs,remote-design-jobs" })).toEqual([
        "/categories/remote-programming-jobs.rss",
        "/categories/remote-design-jobs.rss",
      ]);
    });
  });
});
