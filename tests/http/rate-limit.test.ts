import { afterEach, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../src/lib/clock";
import { RateLimiter } from "../../src/http/rate-limiter";
import { BUCKETS, RATE_LIMITS, type Bucket } from "../../src/http/rate-limit-table";
import { createPolicyResolver } from "../../src/http/route-policy";
import { dayCountStore } from "../../src/modules/accounts/repo";
import * as accounts from "../../src/modules/accounts/service";
import { createTestApp, show, type TestApp } from "../helpers/app";

let t: TestApp;
afterEach(() => t?.close());

/** The bucket an authenticated request is metered in: its route's, else `default` (as the rate-limit plugin does). */
const bucketResolver = (app: TestApp) => {
  const policyOf = createPolicyResolver(() => app.app.routes);
  return (method: string, path: string): Bucket | undefined => (path.startsWith("/api/") ? (policyOf(method, path)?.rateLimit ?? "default") : undefined);
};

// 12:00:30 UTC on some day: half a minute into a minute window.
const T0 = Date.UTC(2026, 0, 15, 12, 0, 30);
const rl = (res: { headers: Headers }) => ({
  limit: Number(res.headers.get("x-ratelimit-limit")),
  remaining: Number(res.headers.get("x-ratelimit-remaining")),
  reset: Number(res.headers.get("x-ratelimit-reset")),
});

describe("rate limits", () => {
  test("every authenticated response carries the headers and remaining drops by one per request", async () => {
    t = await createTestApp({ clock: new ManualClock(T0) });
    const { apiKey } = await t.account();
    const first = await t.request("GET", "/api/auto-apply-v2/status?queueId=q1", { key: apiKey });
    expect(rl(first)).toEqual({ limit: 300, remaining: 299, reset: Date.UTC(2026, 0, 15, 12, 1, 0) / 1000 });
    const second = await t.request("GET", "/api/auto-apply-v2/status?queueId=q1&jobId=x", { key: apiKey });
    expect(rl(second).remaining).toBe(298);
    // error responses are metered and carry the headers too
    const notFound = await t.request("GET", "/api/v1/nowhere", { key: apiKey });
    expect(notFound.status).toBe(404);
    expect(rl(notFound)).toMatchObject({ limit: 120, remaining: 119 });
  });

  test("past the limit: 429 with Retry-After to the window's end; waiting that long is enough", async () => {
    const clock = new ManualClock(T0);
    t = await createTestApp({ clock });
    const { apiKey, accountId } = await t.account();
    await accounts.setRateLimits(t.deps, accountId, { overrides: { "status.minute": 5 } });
    for (let i = 0; i < 5; i++) expect((await t.request("GET", "/api/auto-apply-v2/status?queueId=q", { key: apiKey })).status).toBe(404);
    const limited = await t.request("GET", "/api/auto-apply-v2/status?queueId=q", { key: apiKey });
    expect(limited.status, show(limited)).toBe(429);
    expect(limited.body).toEqual({ error: "Rate limit exceeded; retry in 30 s" });
    expect(limited.headers.get("retry-after")).toBe("30");
    expect(rl(limited)).toEqual({ limit: 5, remaining: 0, reset: (T0 + 30_000) / 1000 });
    expect(Number(limited.headers.get("retry-after"))).toBe(rl(limited).reset - Math.floor(clock.now() / 1000));
    // refused requests are not counted: more 429s do not push the reset further
    for (let i = 0; i < 3; i++) expect((await t.request("GET", "/api/auto-apply-v2/status?queueId=q", { key: apiKey })).status).toBe(429);
    clock.advance(29_500);
    const almost = await t.request("GET", "/api/auto-apply-v2/status?queueId=q", { key: apiKey });
    expect(almost.headers.get("retry-after")).toBe("1"); // never 0
    clock.advance(500);
    const after = await t.request("GET", "/api/auto-apply-v2/status?queueId=q", { key: apiKey });
    expect(after.status).toBe(404);
    expect(rl(after).remaining).toBe(4);
  });

  test("with a minute and a day window the tighter one is shown, and the day refuses even when the minute has room", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 0, 0, 0));
    t = await createTestApp({ clock });
    const { apiKey } = await t.account();
    const apply = () => t.request("POST", "/api/auto-apply-v2/apply", { key: apiKey, json: {} });
    for (let i = 1; i <= 999; i++) {
      if (i % 60 === 0) clock.advance(60_000); // stay under 60/minute
      const res = await apply();
      expect(res.status).toBe(400);
    }
    clock.advance(60_000);
    const last = await apply();
    expect(rl(last)).toEqual({ limit: 1000, remaining: 0, reset: Date.UTC(2026, 0, 16) / 1000 });
    const refused = await apply();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBe(Math.ceil((Date.UTC(2026, 0, 16) - clock.now()) / 1000));
    expect(rl(refused)).toEqual({ limit: 1000, remaining: 0, reset: Date.UTC(2026, 0, 16) / 1000 });
  });

  test("a minute window refuses before the day when it frees first, and the later reset wins when both are full", async () => {
    const clock = new ManualClock(T0);
    const app = await createTestApp({ clock });
    const limiter = new RateLimiter(dayCountStore(app.deps.db), clock);
    const limits = { minute: 2, day: 3 };
    expect(await limiter.check("k", "apply", limits)).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(await limiter.check("k", "apply", limits)).toMatchObject({ allowed: true, limit: 2, remaining: 0 });
    expect(await limiter.check("k", "apply", limits)).toMatchObject({ allowed: false, retryAfterS: 30 });
    clock.advance(30_000);
    expect(await limiter.check("k", "apply", limits)).toMatchObject({ allowed: true, limit: 3, remaining: 0 });
    expect(await limiter.check("k", "apply", limits)).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    await app.close();
  });

  test("each key has its own counters, even on the same account", async () => {
    t = await createTestApp({ clock: new ManualClock(T0) });
    const { apiKey, accountId } = await t.account();
    const other = (await accounts.createKey(t.deps, accountId, "second")).apiKey;
    for (let i = 0; i < 3; i++) await t.request("GET", "/api/auto-apply-v2/freelancers", { key: apiKey });
    const mine = await t.request("GET", "/api/auto-apply-v2/freelancers", { key: apiKey });
    const theirs = await t.request("GET", "/api/auto-apply-v2/freelancers", { key: other });
    expect(rl(mine).remaining).toBe(26);
    expect(rl(theirs).remaining).toBe(29);
  });

  test("forwarding paths share the bucket of the path they forward to", async () => {
    t = await createTestApp({ clock: new ManualClock(T0) });
    const { apiKey } = await t.account();
    await t.request("GET", "/api/jobs/by-ciphertext?cipher=%7E01", { key: apiKey });
    await t.request("GET", "/api/v1/jobs/~01", { key: apiKey });
    const third = await t.request("GET", "/api/v2/jobs/~01", { key: apiKey });
    expect(rl(third)).toMatchObject({ limit: 60, remaining: 57 });
    await t.request("GET", "/api/auto-apply-v2/freelancers", { key: apiKey });
    const legacyPath = await t.request("GET", "/api/auto-apply/external/freelancers", { key: apiKey });
    expect(rl(legacyPath)).toMatchObject({ limit: 30, remaining: 28 });
  });

  test("daily counts survive closing and re-opening the database", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "jp-rl-")), "rl.db");
    const clock = new ManualClock(T0);
    t = await createTestApp({ clock, dbPath });
    const { apiKey, accountId } = await t.account();
    await accounts.setRateLimits(t.deps, accountId, { overrides: { "generateProposal.day": 12 } });
    for (let i = 0; i < 10; i++) await t.request("POST", "/api/auto-apply-v2/generate-proposal", { key: apiKey, json: {} });
    await t.close();

    clock.advance(120_000); // a fresh minute window, same day
    t = await createTestApp({ clock, dbPath });
    const eleventh = await t.request("POST", "/api/auto-apply-v2/generate-proposal", { key: apiKey, json: {} });
    expect(rl(eleventh)).toMatchObject({ limit: 12, remaining: 1 });
    await t.request("POST", "/api/auto-apply-v2/generate-proposal", { key: apiKey, json: {} });
    const refused = await t.request("POST", "/api/auto-apply-v2/generate-proposal", { key: apiKey, json: {} });
    expect(refused.status).toBe(429);
  });

  test("an account multiplier raises every limit; overrides set exact numbers", async () => {
    t = await createTestApp({ clock: new ManualClock(T0) });
    const { apiKey, accountId } = await t.account();
    await accounts.setRateLimits(t.deps, accountId, { multiplier: 2, overrides: { "appliedJobs.minute": 7 } });
    expect(rl(await t.request("GET", "/api/auto-apply-v2/status?queueId=q", { key: apiKey })).limit).toBe(600);
    expect(rl(await t.request("GET", "/api/auto-apply-v2/applied-jobs", { key: apiKey })).limit).toBe(7);
  });

  test("every spec endpoint resolves to the bucket of the spec's Limits table", async () => {
    t = await createTestApp();
    const resolve = bucketResolver(t);
    const cases: [string, string, string][] = [
      ["POST", "/api/auto-apply-v2/apply", "apply"],
      ["POST", "/api/auto-apply/external", "apply"],
      ["GET", "/api/auto-apply-v2/status", "status"],
      ["GET", "/api/auto-apply-v2/applied-jobs", "appliedJobs"],
      ["POST", "/api/auto-apply-v2/generate-proposal", "generateProposal"],
      ["GET", "/api/auto-apply-v2/freelancers", "freelancers"],
      ["GET", "/api/auto-apply/external/freelancers", "freelancers"],
      ["GET", "/api/jobs/by-ciphertext", "jobs"],
      ["GET", "/api/v1/jobs/~abc", "jobs"],
      ["GET", "/api/v2/jobs/~abc", "jobs"],
      ["GET", "/api/clients/123/jobs", "clients"],
      ["GET", "/api/v1/clients/123/jobs", "clients"],
      ["GET", "/api/v2/clients/123/jobs", "clients"],
      ["GET", "/api/v1/feeds", "feeds"],
      ["PATCH", "/api/v1/feeds/f1", "feeds"],
      ["GET", "/api/v1/feeds/f1/jobs", "feeds"],
      ["GET", "/api/v1/account", "default"],
    ];
    for (const [method, path, bucket] of cases) expect(resolve(method, path), `${method} ${path}`).toBe(bucket as never);
    expect(RATE_LIMITS.apply).toMatchObject({ minute: 60, day: 1000 });
    expect(RATE_LIMITS.status).toMatchObject({ minute: 300 });
    expect(RATE_LIMITS.generateProposal).toMatchObject({ minute: 30, day: 500 });
    expect(RATE_LIMITS.freelancers).toMatchObject({ minute: 30 });
  });

  test("a slashed path cannot spend a second allowance: exhausting generate-proposal also refuses it with a trailing slash", async () => {
    t = await createTestApp({ clock: new ManualClock(T0) });
    const { apiKey } = await t.account();
    for (let i = 0; i < 30; i++) await t.request("POST", "/api/auto-apply-v2/generate-proposal", { key: apiKey, json: {} });
    for (const path of ["/api/auto-apply-v2/generate-proposal", "/api/auto-apply-v2/generate-proposal/"]) {
      const res = await t.request("POST", path, { key: apiKey, json: {} });
      expect(res.status, `${path}: ${show(res)}`).toBe(429);
      expect(rl(res)).toMatchObject({ limit: 30, remaining: 0 });
    }
  });

  test("every metered route: its trailing-slash, double-slash, other-case and HEAD forms are refused with it or not served at all", async () => {
    t = await createTestApp({ clock: new ManualClock(T0) });
    const resolve = bucketResolver(t);
    // Every route the app serves under /api that a specific bucket meters, with its params filled in.
    const metered = t.app.routes
      .filter((r) => r.path.startsWith("/api/") && r.method !== "HEAD")
      .map((r) => ({ method: r.method, path: r.path.replace(/:[^/]+/g, "~01abc") }))
      .map((r) => ({ ...r, bucket: resolve(r.method, r.path) }))
      .filter((r): r is typeof r & { bucket: Exclude<Bucket, "default"> } => r.bucket !== undefined && r.bucket !== "default");
    expect(new Set(metered.map((r) => r.bucket))).toEqual(new Set(BUCKETS.filter((b) => b !== "default")));
    for (const { method, path, bucket } of metered) {
      const { apiKey, accountId } = await t.account();
      await accounts.setRateLimits(t.deps, accountId, { overrides: { [`${bucket}.minute`]: 1 } });
      const send = (m: string, p: string) => t.request(m, p, { key: apiKey, json: m === "GET" || m === "HEAD" ? undefined : {} });
      expect((await send(method, path)).status, `${method} ${path}`).not.toBe(429);
      expect((await send(method, path)).status, `${method} ${path}`).toBe(429);
      const segments = path.split("/"); // ["", "api", ...]
      const variants = [
        path + "/",
        path + "//",
        path.replace("/api/", "/api//"),
        segments.slice(0, -1).join("/") + "//" + segments.at(-1),
        path.replace("/api/", "/API/"),
        ["", "api", segments[2]!.toUpperCase(), ...segments.slice(3)].join("/"),
        ["", "api", ...segments.slice(2, -1), segments.at(-1)!.toUpperCase()].join("/"),
      ];
      for (const variant of variants) {
        const res = await send(method, variant);
        // Not served: no route at that path (404), or none for that method there (405: "/api/v1/feeds/PREVIEW" is a
        // feed id, which POST is not allowed on): either way nothing runs, so no limit is side-stepped.
        const notServed =
          (res.status === 404 && String(res.body?.error).startsWith("No route for")) ||
          (res.status === 405 && String(res.body?.error).startsWith(`Method ${method} is not allowed`));
        expect(res.status === 429 || notServed, `${method} ${variant} (${bucket}): ${show(res)}`).toBe(true);
      }
      if (method === "GET") {
        const head = await send("HEAD", path);
        expect(head.status, `HEAD ${path} (${bucket})`).toBe(429);
      }
    }
  });

  test("property: in any fixed window no more than the limit is accepted, and never more than 2× in any rolling minute", async () => {
    const clock = new ManualClock(T0);
    t = await createTestApp({ clock });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5 * 60_000 }), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 20 }),
        async (offsets, limit) => {
          // A fresh limiter and key per run, on one database (on PostgreSQL a database per run is slow to make).
          const limiter = new RateLimiter(dayCountStore(t.deps.db), clock);
          const key = `k${++run}`;
          const accepted: number[] = [];
          for (const at of [...offsets].sort((a, b) => a - b)) {
            clock.set(T0 + at);
            if ((await limiter.check(key, "status", { minute: limit })).allowed) accepted.push(T0 + at);
          }
          await limiter.flush();
          const perWindow = new Map<number, number>();
          for (const ts of accepted) perWindow.set(Math.floor(ts / 60_000), (perWindow.get(Math.floor(ts / 60_000)) ?? 0) + 1);
          for (const n of perWindow.values()) if (n > limit) return false;
          for (const ts of accepted) if (accepted.filter((x) => x >= ts && x < ts + 60_000).length > 2 * limit) return false;
          return true;
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("the limiter's decision", () => {
  // In memory: no day count to read back, so each decision is the limiter's rules alone.
  const memoryOnly = { load: async () => 0, save: async () => {} };
  const minuteEnd = (now: number) => (now - (now % 60_000) + 60_000) / 1000;
  const dayEnd = (now: number) => (now - (now % 86_400_000) + 86_400_000) / 1000;

  test("equal room left in both windows shows the minute, which frees first", async () => {
    const clock = new ManualClock(T0);
    const limiter = new RateLimiter(memoryOnly, clock);
    expect(await limiter.check("k", "default", { minute: 3, day: 3 })).toEqual({ allowed: true, limit: 3, remaining: 2, resetTs: minuteEnd(T0) });
    expect(limiter.checkNow("k", "default", { minute: 3, day: 5 })).toEqual({ allowed: true, limit: 3, remaining: 1, resetTs: minuteEnd(T0) });
    expect(limiter.checkNow("k", "default", { minute: 9, day: 3 })).toEqual({ allowed: true, limit: 3, remaining: 0, resetTs: dayEnd(T0) });
  });

  test("in a day's last minute both windows end together: a refusal reports the minute's limit", async () => {
    const lastMinute = Date.UTC(2026, 0, 15, 23, 59, 10);
    const limiter = new RateLimiter(memoryOnly, new ManualClock(lastMinute));
    for (let i = 0; i < 3; i++) await limiter.check("k", "default", { minute: 9, day: 9 });
    // Both used up: the minute's limit (2), not the day's (3).
    expect(limiter.checkNow("k", "default", { minute: 2, day: 3 })).toEqual({
      allowed: false,
      limit: 2,
      remaining: 0,
      resetTs: dayEnd(lastMinute),
      retryAfterS: 50,
    });
    expect(limiter.checkNow("k", "default", { minute: 7, day: 3 })).toMatchObject({ allowed: false, limit: 3 });
    expect(limiter.checkNow("k", "default", { minute: 3, day: 7 })).toMatchObject({ allowed: false, limit: 3 });
  });

  test("several units at once are admitted together or not at all, and a refusal counts none of them", async () => {
    const clock = new ManualClock(T0);
    const limiter = new RateLimiter(memoryOnly, clock);
    const limits = { minute: 5, day: 100 };
    expect(await limiter.check("k", "default", limits, 3)).toEqual({ allowed: true, limit: 5, remaining: 2, resetTs: minuteEnd(T0) });
    // Three more do not fit in the two left: refused, and what remains is told as it is (two), not zero.
    expect(limiter.checkNow("k", "default", limits, 3)).toEqual({ allowed: false, limit: 5, remaining: 2, resetTs: minuteEnd(T0), retryAfterS: 30 });
    // Nothing was counted: two single requests still fit, then the window is used up.
    expect(limiter.checkNow("k", "default", limits, 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.checkNow("k", "default", limits)).toMatchObject({ allowed: false, remaining: 0 });
    // The day counted every unit admitted: 5 of 100.
    clock.advance(60_000);
    expect(limiter.checkNow("k", "default", { minute: 200, day: 100 }, 90)).toMatchObject({ allowed: true, limit: 100, remaining: 5 });
    expect(limiter.checkNow("k", "default", { minute: 200, day: 100 }, 6)).toMatchObject({ allowed: false, limit: 100, remaining: 5 });
  });

  test("one window alone is counted and shown alone; no window at all admits everything", async () => {
    const clock = new ManualClock(T0);
    const limiter = new RateLimiter(memoryOnly, clock);
    expect(await limiter.check("m", "status", { minute: 2 })).toEqual({ allowed: true, limit: 2, remaining: 1, resetTs: minuteEnd(T0) });
    expect(await limiter.check("d", "default", { day: 2 })).toEqual({ allowed: true, limit: 2, remaining: 1, resetTs: dayEnd(T0) });
    expect(limiter.checkNow("d", "default", { day: 2 })).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.checkNow("d", "default", { day: 2 })).toMatchObject({ allowed: false, retryAfterS: (dayEnd(T0) * 1000 - T0) / 1000 });
    expect(await limiter.check("n", "default", {})).toEqual({ allowed: true, limit: 0, remaining: 0, resetTs: Math.ceil(T0 / 1000) });
    // The next minute starts from zero; the day goes on counting.
    clock.advance(60_000);
    expect(limiter.checkNow("m", "status", { minute: 2 })).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.checkNow("d", "default", { day: 2 })).toMatchObject({ allowed: false });
  });
});
