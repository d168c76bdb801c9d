import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { memoryLogger } from "../../../src/lib/log";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { SourceError, type PollContext, type SourceState } from "../../../src/sources/source";
import { createMarketplaceApiSource, type MarketplaceApiSourceOptions } from "../../../src/sources/marketplace-api/source";
import { saveTokens } from "../../../src/sources/marketplace-api/token-store";
import { memoryVault, type MemoryVault } from "../../fixtures/marketplace-api/memory-vault";
import { searchReply, startFakeMarketplaceApi, type ApiRequest, type Reply } from "../../fixtures/marketplace-api/fake-api";
import scopeError from "../../fixtures/marketplace-api/graphql-missing-scope.json";

const KEY = "source-test-secret-key-0123456789";
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const api = startFakeMarketplaceApi();
afterAll(async () => {
  await api.close();
});

let vault: MemoryVault;
beforeEach(async () => {
  vault = memoryVault();
  await saveTokens(vault, KEY, { accessToken: "access", refreshToken: "refresh", expiresAt: NOW + 86_400_000 }, NOW);
  api.apiRequests.splice(0);
});

/** Job n: id 19600000000000000nn, published n minutes after 10:00 (higher n = newer). */
function node(n: number): Record<string, unknown> {
  const id = `19600000000000000${String(n).padStart(2, "0")}`;
  return {
    id,
    ciphertext: `~02${id}`,
    title: `Job number ${n}`,
    description: `Description of job ${n}`,
    publishedDateTime: new Date(Date.UTC(2026, 0, 15, 10, n)).toISOString(),
    hourlyBudgetMin: { rawValue: "30", currency: "USD", displayValue: "$30.00" },
    hourlyBudgetMax: { rawValue: "50", currency: "USD", displayValue: "$50.00" },
    client: { verificationStatus: "VERIFIED", totalReviews: 3, totalFeedback: 4.5, location: { country: "United States" } },
  };
}

/** Pages per search term, keyed by the `after` cursor ("" for the first page). */
type Pages = Record<string, Record<string, Reply>>;
function serve(pages: Pages) {
  api.onApi((req: ApiRequest) => {
    const filter = req.body.variables.marketPlaceJobFilter;
    const after = filter.pagination_eq?.after ?? "";
    return pages[filter.searchExpression_eq]?.[after] ?? searchReply([], { endCursor: null, hasNextPage: false });
  });
}
const page = (ns: number[], next: string | null): Reply => searchReply(ns.map(node), { endCursor: next, hasNextPage: next !== null });

function source(queries: string[], extra: Partial<MarketplaceApiSourceOptions> = {}) {
  return createMarketplaceApiSource({
    apiUrl: api.apiUrl,
    tokenUrl: api.tokenUrl,
    clientId: "client-1",
    clientSecret: "secret-1",
    tokenVault: vault,
    secretKey: KEY,
    queries: () => queries,
    maxPages: 2,
    minIntervalMs: 0,
    now: () => NOW,
    sleep: async () => {},
    ...extra,
  });
}
const ctx = (state: SourceState = {}): PollContext => ({ nowTs: NOW, state, fetch, log: memoryLogger() });
const titles = (docs: unknown[]) => docs.map((d) => (d as { title: string }).title);

describe("marketplace-api source", () => {
  test("is named marketplace-api and pages newest first up to maxPages", async () => {
    serve({ react: { "": page([10, 9], "c1"), c1: page([8, 7], "c2"), c2: page([6], null) } });
    const s = source(["react"]);
    expect(s.name).toBe("marketplace-api");
    const result = await s.poll(ctx());
    expect(titles(result.docs)).toEqual(["Job number 10", "Job number 9", "Job number 8", "Job number 7"]);
    expect(api.apiRequests).toHaveLength(2);
    const vars = api.apiRequests[0]!.body.variables;
    expect(vars).toEqual({
      marketPlaceJobFilter: { searchExpression_eq: "react", pagination_eq: { first: 50 } },
      searchType: "USER_JOBS_SEARCH",
      sortAttributes: [{ field: "RECENCY" }],
    });
    expect(api.apiRequests[1]!.body.variables.marketPlaceJobFilter.pagination_eq).toEqual({ first: 50, after: "c1" });
    expect(result.state?.lastSeen).toEqual({ react: { ciphertext: "~021960000000000000010", publishedAt: Date.UTC(2026, 0, 15, 10, 10) } });
    for (const doc of result.docs) {
      const r = normalizeJob(doc);
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.job).toMatchObject({ platform: "marketplace", jobType: "HOURLY", hourlyMin: 30, clientCountry: "US", paymentVerified: true });
    }
  });

  test("stops at the newest id seen last time", async () => {
    serve({ react: { "": page([10, 9], "c1"), c1: page([8, 7], null) } });
    const s = source(["react"]);
    const first = await s.poll(ctx());
    serve({ react: { "": page([12, 11, 10, 9], "c1"), c1: page([8, 7], null) } });
    api.apiRequests.splice(0);
    const second = await s.poll(ctx(first.state));
    expect(titles(second.docs)).toEqual(["Job number 12", "Job number 11"]);
    expect(api.apiRequests).toHaveLength(1); // the marker was on page one
    expect((second.state!.lastSeen as any).react.ciphertext).toBe("~021960000000000000012");

    api.apiRequests.splice(0);
    serve({ react: { "": page([12, 11], "c1"), c1: page([10], null) } });
    const third = await s.poll(ctx(second.state));
    expect(api.apiRequests).toHaveLength(1);
    expect(third.docs).toHaveLength(0);
    expect((third.state!.lastSeen as any).react.ciphertext).toBe("~021960000000000000012");
  });

  test("a marker job that disappeared: stops at the first older job", async () => {
    const state = { lastSeen: { react: { ciphertext: "~021960000000000000005", publishedAt: Date.UTC(2026, 0, 15, 10, 5) } } };
    serve({ react: { "": page([7, 6, 4], "c1"), c1: page([3, 2], null) } });
    const result = await source(["react"]).poll(ctx(state));
    expect(titles(result.docs)).toEqual(["Job number 7", "Job number 6"]);
    expect(api.apiRequests).toHaveLength(1);
  });

  test("a renewed job counts by its renewal time, so it does not end the walk early", async () => {
    const state = { lastSeen: { react: { ciphertext: "~021960000000000000005", publishedAt: Date.UTC(2026, 0, 15, 10, 5) } } };
    const renewed = { ...node(1), renewedDateTime: new Date(Date.UTC(2026, 0, 15, 10, 30)).toISOString() };
    api.onApi(() => searchReply([renewed, node(7), node(5), node(4)], { endCursor: null, hasNextPage: false }));
    const result = await source(["react"]).poll(ctx(state));
    expect(titles(result.docs)).toEqual(["Job number 1", "Job number 7"]);
    expect((result.state!.lastSeen as any).react).toEqual({ ciphertext: "~021960000000000000001", publishedAt: Date.UTC(2026, 0, 15, 10, 30) });
  });

  test("several terms: one search each, duplicates across terms returned once, stale terms dropped from state", async () => {
    serve({ react: { "": page([10, 9], null) }, typescript: { "": page([9, 8], null) } });
    const state = { lastSeen: { "old term": { ciphertext: "~021960000000000000001", publishedAt: null } } };
    const result = await source([" react ", "typescript", "react", ""]).poll(ctx(state));
    expect(titles(result.docs)).toEqual(["Job number 10", "Job number 9", "Job number 8"]);
    expect(api.apiRequests.map((r) => r.body.variables.marketPlaceJobFilter.searchExpression_eq)).toEqual(["react", "typescript"]);
    expect(Object.keys(result.state!.lastSeen as object).sort()).toEqual(["react", "typescript"]);
  });

  test("no search terms: nothing is requested", async () => {
    const result = await source([]).poll(ctx());
    expect(result.docs).toEqual([]);
    expect(api.apiRequests).toHaveLength(0);
  });

  test("not connected (no stored tokens) → SourceError", async () => {
    vault.row = null;
    serve({ react: { "": page([1], null) } });
    const err = await Promise.resolve(source(["react"]).poll(ctx())).catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toBe("not connected: run `jobpilot source connect marketplace`");
  });

  test("a missing scope surfaces as a SourceError, not an empty poll", async () => {
    api.onApi(() => ({ json: scopeError }));
    const err = await Promise.resolve(source(["react"]).poll(ctx())).catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toContain("Read marketplace Job Postings");
  });

  test("a long 429 returns what was read and asks the runner to wait", async () => {
    api.onApi((req) => {
      const q = req.body.variables.marketPlaceJobFilter.searchExpression_eq;
      return q === "react" ? page([10], null) : { status: 429, headers: { "retry-after": "300" } };
    });
    const state = { lastSeen: { vue: { ciphertext: "~021960000000000000001", publishedAt: null } } };
    const result = await source(["react", "vue"]).poll(ctx(state));
    expect(titles(result.docs)).toEqual(["Job number 10"]);
    expect(result.retryAfterMs).toBe(300_000);
    expect(Object.keys(result.state!.lastSeen as object).sort()).toEqual(["react", "vue"]);
  });

  test("5xx on every term throws so the runner backs off", async () => {
    api.onApi(() => ({ status: 503, text: "unavailable" }));
    await expect(Promise.resolve(source(["react"]).poll(ctx()))).rejects.toThrow("503");
  });

  test("pagination_eq refused with a 500: retried without it, paging off afterwards", async () => {
    api.onApi((req) => {
      const filter = req.body.variables.marketPlaceJobFilter;
      if (filter.pagination_eq !== undefined) return { status: 500, json: { errors: [{ message: "Exception occurred" }] } };
      return page([10, 9], "c1");
    });
    const s = source(["react"]);
    const result = await s.poll(ctx());
    expect(titles(result.docs)).toEqual(["Job number 10", "Job number 9"]);
    expect(api.apiRequests.map((r) => r.body.variables.marketPlaceJobFilter.pagination_eq)).toEqual([{ first: 50 }, undefined]);
    api.apiRequests.splice(0);
    await s.poll(ctx());
    expect(api.apiRequests).toHaveLength(1);
    expect(api.apiRequests[0]!.body.variables.marketPlaceJobFilter.pagination_eq).toBeUndefined();
  });
});
