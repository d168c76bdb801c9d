import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock";
import { SourceError } from "../../../src/sources/source";
import {
  createMarketplaceClient,
  JOB_POSTINGS_SCOPE,
  MissingScopeError,
  RateLimitedError,
  type MarketplaceClientOptions,
} from "../../../src/sources/marketplace-api/client";
import { loadTokens, saveTokens } from "../../../src/sources/marketplace-api/token-store";
import { startFakeMarketplaceApi, tokenReply } from "../../fixtures/marketplace-api/fake-api";
import scopeError from "../../fixtures/marketplace-api/graphql-missing-scope.json";
import { memoryVault, type MemoryVault } from "../../fixtures/marketplace-api/memory-vault";

const KEY = "client-test-secret-key-0123456789";
const api = startFakeMarketplaceApi();
afterAll(async () => {
  await api.close();
});

let clock: ManualClock;
let vault: MemoryVault;
let sleeps: number[];

beforeEach(() => {
  clock = new ManualClock();
  vault = memoryVault();
  sleeps = [];
  api.tokenRequests.splice(0);
  api.apiRequests.splice(0);
  api.onToken(() => tokenReply("access-new", "refresh-new", 86400));
});

function client(extra: Partial<MarketplaceClientOptions> = {}) {
  return createMarketplaceClient({
    apiUrl: api.apiUrl,
    tokenUrl: api.tokenUrl,
    clientId: "client-1",
    clientSecret: "secret-1",
    tokenVault: vault,
    secretKey: KEY,
    now: () => clock.now(),
    sleep: async (ms) => void sleeps.push(ms),
    minIntervalMs: 0,
    ...extra,
  });
}

const ok = { json: { data: { hello: "world" } } };
const connect = (expiresInMs: number, access = "access-old") =>
  saveTokens(vault, KEY, { accessToken: access, refreshToken: "refresh-old", expiresAt: clock.now() + expiresInMs }, clock.now());

describe("authorisation", () => {
  test("sends the stored access token as Bearer and returns data", async () => {
    await connect(3_600_000);
    api.onApi(() => ok);
    expect(await client().query("{ hello }")).toEqual({ hello: "world" });
    expect(api.apiRequests[0]!.authorization).toBe("Bearer access-old");
    expect(api.apiRequests[0]!.body).toEqual({ query: "{ hello }", variables: {} });
    expect(api.tokenRequests).toHaveLength(0);
  });

  test("no stored tokens → SourceError: not connected", async () => {
    const err = await client()
      .query("{ hello }")
      .catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toBe("not connected: run `jobpilot source connect marketplace`");
    expect(api.apiRequests).toHaveLength(0);
  });

  test("a token about to expire is refreshed first, saved, and used", async () => {
    await connect(60_000); // inside the 5-minute margin
    api.onApi(() => ok);
    await client().query("{ hello }");
    expect(api.tokenRequests).toHaveLength(1);
    expect(api.tokenRequests[0]!.get("refresh_token")).toBe("refresh-old");
    expect(api.apiRequests.map((r) => r.authorization)).toEqual(["Bearer access-new"]);
    expect(await loadTokens(vault, KEY)).toEqual({ accessToken: "access-new", refreshToken: "refresh-new", expiresAt: clock.now() + 86_400_000 });
  });

  test("concurrent requests share one refresh", async () => {
    await connect(1_000);
    api.onApi(() => ok);
    const c = client();
    await Promise.all([c.query("{ a }"), c.query("{ b }"), c.query("{ c }")]);
    expect(api.tokenRequests).toHaveLength(1);
  });

  test("401 → refresh once → retry with the new token", async () => {
    await connect(3_600_000);
    api.onApi((req) => (req.authorization === "Bearer access-old" ? { status: 401, text: "Unauthorized" } : ok));
    expect(await client().query("{ hello }")).toEqual({ hello: "world" });
    expect(api.tokenRequests).toHaveLength(1);
    expect(api.apiRequests.map((r) => r.authorization)).toEqual(["Bearer access-old", "Bearer access-new"]);
  });

  test("401 again after the refresh → SourceError: re-authorise (no refresh loop)", async () => {
    await connect(3_600_000);
    api.onApi(() => ({ status: 401, text: "Unauthorized" }));
    const err = await client()
      .query("{ hello }")
      .catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toContain("re-authorise needed");
    expect(api.tokenRequests).toHaveLength(1);
    expect(api.apiRequests).toHaveLength(2);
  });

  test("a revoked refresh token (invalid_grant) → SourceError: re-authorise", async () => {
    await connect(10_000);
    api.onToken(() => ({ status: 400, json: { error: "invalid_grant", error_description: "Refresh token is invalid" } }));
    const err = await client()
      .query("{ hello }")
      .catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toContain("re-authorise needed: run `jobpilot source connect marketplace`");
    expect(api.apiRequests).toHaveLength(0);
  });

  test("tokens written by `source connect` meanwhile are picked up instead of refreshing", async () => {
    await connect(10 * 60_000);
    const c = client();
    api.onApi(() => ok);
    await c.query("{ a }"); // reads and caches the old pair
    clock.advance(6 * 60_000); // now inside the refresh margin
    await saveTokens(vault, KEY, { accessToken: "access-connected", refreshToken: "refresh-connected", expiresAt: clock.now() + 86_400_000 }, clock.now());
    await c.query("{ b }");
    expect(api.tokenRequests).toHaveLength(0);
    expect(api.apiRequests.map((r) => r.authorization)).toEqual(["Bearer access-old", "Bearer access-connected"]);
  });

  test("two clients on one store (two nodes) refreshing at once: one token request, both use the new pair", async () => {
    await connect(1_000);
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    api.onToken(async () => {
      await held;
      return tokenReply("access-new", "refresh-new", 86400);
    });
    api.onApi(() => ok);
    const both = Promise.all([client({ refreshLeasePollMs: 5 }).query("{ a }"), client({ refreshLeasePollMs: 5 }).query("{ b }")]);
    await Bun.sleep(30);
    answer();
    await both;
    expect(api.tokenRequests).toHaveLength(1);
    expect(api.apiRequests.map((r) => r.authorization)).toEqual(["Bearer access-new", "Bearer access-new"]);
    expect(await loadTokens(vault, KEY)).toMatchObject({ accessToken: "access-new", refreshToken: "refresh-new" });
  });

  test("a refreshed pair whose write fails is still used (the old refresh token is spent)", async () => {
    await connect(1_000);
    api.onApi(() => ok);
    const c = client();
    vault.replace = async () => {
      throw new Error("database is locked");
    };
    const err = await c.query("{ a }").catch((e) => e);
    expect(err.message).toBe("database is locked");
    await c.query("{ b }");
    expect(api.tokenRequests).toHaveLength(1);
    expect(api.apiRequests.map((r) => r.authorization)).toEqual(["Bearer access-new"]);
  });
});

describe("rate limits and failures", () => {
  test("429 with Retry-After: waits that long, then retries", async () => {
    await connect(3_600_000);
    let n = 0;
    api.onApi(() => (n++ === 0 ? { status: 429, headers: { "retry-after": "2" }, text: "slow down" } : ok));
    expect(await client().query("{ hello }")).toEqual({ hello: "world" });
    expect(sleeps).toContain(2000);
    expect(api.apiRequests).toHaveLength(2);
  });

  test("429 asking for longer than the in-place limit → RateLimitedError with the wait", async () => {
    await connect(3_600_000);
    api.onApi(() => ({ status: 429, headers: { "retry-after": "120" } }));
    const err = await client()
      .query("{ hello }")
      .catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.retryAfterMs).toBe(120_000);
    expect(api.apiRequests).toHaveLength(1);
  });

  test("429 that persists gives up after the retries", async () => {
    await connect(3_600_000);
    api.onApi(() => ({ status: 429, headers: { "retry-after": "1" } }));
    await expect(client({ rateLimitRetries: 2 }).query("{ hello }")).rejects.toBeInstanceOf(RateLimitedError);
    expect(api.apiRequests).toHaveLength(3);
  });

  test("5xx throws a transient Error (not a SourceError)", async () => {
    await connect(3_600_000);
    api.onApi(() => ({ status: 502, text: "<html><title>Bad gateway</title></html>" }));
    const err = await client()
      .query("{ hello }")
      .catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(SourceError);
    expect(err.message).toContain("502");
  });

  test("ExecutionAborted with HTTP 200 → SourceError naming the scope and the refused fields", async () => {
    await connect(3_600_000);
    api.onApi(() => ({ json: scopeError }));
    const err = await client()
      .query("{ marketplaceJobPostingsSearch { totalCount } }", {}, { scope: JOB_POSTINGS_SCOPE })
      .catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err).toBeInstanceOf(MissingScopeError);
    expect(err.message).toContain('"Read marketplace Job Postings" scope');
    expect(err.message).toContain("Money.rawValue");
    expect(err.message).toContain("jobpilot source connect marketplace");
    // request() (partial answers allowed) must not swallow it either.
    await expect(client().request("{ x }", {}, { scope: JOB_POSTINGS_SCOPE })).rejects.toBeInstanceOf(MissingScopeError);
  });

  test("other GraphQL errors with HTTP 200 throw from query(), never an empty result", async () => {
    await connect(3_600_000);
    api.onApi(() => ({ json: { data: null, errors: [{ message: "Exception occurred" }] } }));
    await expect(client().query("{ hello }")).rejects.toThrow("Exception occurred");
  });

  test("an unparsable 200 body throws", async () => {
    await connect(3_600_000);
    api.onApi(() => ({ text: "<html>maintenance</html>" }));
    await expect(client().query("{ hello }")).rejects.toThrow("unparsable");
  });

  test("the spacer keeps request starts apart", async () => {
    await connect(3_600_000);
    api.onApi(() => ok);
    // The spacer reserves start slots minIntervalMs apart and sleeps until its slot. With a sleep that only records
    // (a long interval, so all three callers certainly arrive within one slot), the slots can be checked exactly.
    const scheduled: number[] = [];
    const before = performance.now();
    const c = client({ minIntervalMs: 10_000, sleep: async (ms) => void scheduled.push(performance.now() + ms) });
    await Promise.all([c.query("{ a }"), c.query("{ b }"), c.query("{ c }")]);
    expect(scheduled).toHaveLength(2); // the first request goes at once
    scheduled.sort((x, y) => x - y);
    // (The spacer and the recording sleep each read the clock, microseconds apart, hence the small tolerance.)
    expect(scheduled[0]! - before).toBeGreaterThan(9_995);
    expect(Math.abs(scheduled[1]! - scheduled[0]! - 10_000)).toBeLessThan(5);
  });
});
