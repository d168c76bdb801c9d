import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { answerAtHand, atHandRoutes, type AtHand } from "../../src/http/at-hand";
import type { Caller } from "../../src/http/context";
import { RateLimiter } from "../../src/http/rate-limiter";
import { routePolicy, type RoutePolicy } from "../../src/http/route-policy";
import { ManualClock } from "../../src/lib/clock";
import { memoryLogger } from "../../src/lib/log";
import { Metrics } from "../../src/metrics";
import * as accounts from "../../src/modules/accounts/service";
import { createTestApp, type TestApp } from "../helpers/app";
import { PG_BACKEND } from "../helpers/postgres";

// 12:00:30 UTC on some day: half a minute into a minute window.
const T0 = Date.UTC(2026, 0, 15, 12, 0, 30);
// In memory: no day count to read back (the limiter's own tests cover its store).
const memoryOnly = { load: async () => 0, save: async () => {} };

type Handler = (request: Request) => Response | Promise<Response>;

/**
 * One route declaring `atHand` on a small app, with a real limiter, metrics and log: the key "good" is a caller
 * known now, "cold" one that must be read first (undefined), anything else none (null). The route's own handler
 * (`viaApp`) records what it is handed and answers "app".
 */
function setup(opts: { answer?: AtHand; overrides?: Record<string, number> } = {}) {
  const limiter = new RateLimiter(memoryOnly, new ManualClock(T0));
  const metrics = new Metrics({ enabled: true, version: "test", backend: "sqlite" });
  const log = memoryLogger("info");
  const caller: Caller = { keyId: "key-1", accountId: "account-1", rateLimitMultiplier: 1, rateLimitOverrides: opts.overrides ?? null };
  const handedOn: Request[] = [];
  const app = new Elysia()
    .use(routePolicy)
    .use(answerAtHand)
    .get("/api/v1/thing", () => ({ from: "app" }), { policy: { rateLimit: "feeds" }, atHand: opts.answer ?? (() => ({ from: "hand" })) });
  const routes = atHandRoutes(
    app.routes,
    { rateLimiter: limiter, metrics, log },
    (presented) => (presented === "good" ? caller : presented === "cold" ? undefined : null),
    () => (request) => {
      handedOn.push(request);
      return Promise.resolve(new Response("app"));
    },
  );
  const limits = limiter.limitsFor("feeds", 1, caller.rateLimitOverrides);
  return {
    handle: routes["/api/v1/thing"]!.GET,
    limiter,
    metrics,
    log,
    handedOn,
    // What the rate-limit plugin does first for a key: read its count (and count the request).
    firstRequest: () => limiter.check(caller.keyId, "feeds", limits),
  };
}

const get = (headers: Record<string, string> = {}, target = "/api/v1/thing", method = "GET") => new Request(`http://localhost${target}`, { method, headers });

describe("routes answered at hand (http/at-hand.ts)", () => {
  test("a plain GET with a known key and its answer in memory is answered at once: counted once, with the app's headers, metrics and access line", async () => {
    const s = setup({ overrides: { "feeds.minute": 5, "feeds.day": 100 } });
    await s.firstRequest();
    const answered = s.handle(get({ "x-api-key": "good", "x-request-id": "req-1" }));
    expect(answered).toBeInstanceOf(Response);
    const res = answered as Response;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ from: "hand" });
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(res.headers.get("x-request-id")).toBe("req-1");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    // The minute is the tighter window: 5, of which the first request and this one are used.
    expect(res.headers.get("x-ratelimit-limit")).toBe("5");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("3");
    expect(res.headers.get("x-ratelimit-reset")).toBe(String((T0 - (T0 % 60_000) + 60_000) / 1000));
    // A caller's id that is not sane is replaced, as the app replaces it.
    const made = s.handle(get({ "x-api-key": "good", "x-request-id": "bad id!" })) as Response;
    expect(made.headers.get("x-request-id")).toMatch(/^[a-z0-9]{16}$/);
    // HEAD (Bun's router serves it with the GET handler) is counted under its own method.
    expect(s.handle(get({ "x-api-key": "good" }, "/api/v1/thing", "HEAD"))).toBeInstanceOf(Response);
    expect(s.handedOn).toHaveLength(0);
    const metrics = await s.metrics.render();
    expect(metrics).toMatch(/jobpilot_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/thing",status="200"\} 2\b/);
    expect(metrics).toMatch(/jobpilot_http_request_duration_seconds_count\{method="HEAD",route="\/api\/v1\/thing",status="200"\} 1\b/);
    const line = s.log.records().find((r) => r.msg === "request" && r.reqId === "req-1");
    expect(line).toMatchObject({ method: "GET", path: "/api/v1/thing", status: 200, accountId: "account-1" });
    expect(typeof line?.ms).toBe("number");
  });

  test("anything else goes to the app untouched and is not counted here", async () => {
    const s = setup({ overrides: { "feeds.minute": 5, "feeds.day": 100 } });
    // Before the limiter has read the key's count, the app's own check reads it.
    const beforeCount = get({ "x-api-key": "good" });
    expect(s.handle(beforeCount)).toBeInstanceOf(Promise);
    await s.firstRequest();
    const others: [string, Request][] = [
      ["no key", get()],
      ["a key no caller has", get({ "x-api-key": "bad" })],
      ["a key to read from the database first", get({ "x-api-key": "cold" })],
      ["a declared body", get({ "x-api-key": "good", "content-length": "2" })],
      ["a URL over the limit", get({ "x-api-key": "good" }, `/api/v1/thing?q=${"x".repeat(9000)}`)],
    ];
    for (const [what, request] of others) {
      const answered = s.handle(request);
      expect(answered, what).toBeInstanceOf(Promise);
      expect(await (await answered).text(), what).toBe("app");
    }
    expect(s.handedOn).toEqual([beforeCount, ...others.map(([, request]) => request)]);
    // None of them was counted: the next answer at hand is the second request of the minute.
    const next = s.handle(get({ "x-api-key": "good" })) as Response;
    expect(next.headers.get("x-ratelimit-remaining")).toBe("3");
    expect(await s.metrics.render()).toMatch(/jobpilot_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/thing",status="200"\} 1\b/);
  });

  test("an answer not in memory and a refusal go to the app, which counts (or refuses) the request itself", async () => {
    let inMemory = false;
    const s = setup({ answer: () => (inMemory ? { from: "hand" } : undefined), overrides: { "feeds.minute": 2, "feeds.day": 100 } });
    await s.firstRequest();
    // Not in memory: handed on before the limiter counts it (the app counts it once, as it counts every request).
    expect(s.handle(get({ "x-api-key": "good" }))).toBeInstanceOf(Promise);
    inMemory = true;
    expect((s.handle(get({ "x-api-key": "good" })) as Response).headers.get("x-ratelimit-remaining")).toBe("0");
    // The minute is used up: the app answers the 429 (a refusal counts nothing, so its check refuses the same way).
    const refused = get({ "x-api-key": "good" });
    expect(s.handle(refused)).toBeInstanceOf(Promise);
    expect(s.handedOn.at(-1)).toBe(refused);
    expect(s.limiter.checkNow("key-1", "feeds", { minute: 2, day: 100 })).toMatchObject({ allowed: false, remaining: 0 });
  });

  test("a route that cannot be answered at hand is refused when the app is built", () => {
    const build = (method: "get" | "post", path: string, policy?: RoutePolicy) => () => {
      const app = new Elysia().use(routePolicy).use(answerAtHand);
      const options = { atHand: () => ({}), ...(policy ? { policy } : {}) };
      const routed = method === "get" ? app.get(path, () => ({}), options) : app.post(path, () => ({}), options);
      return atHandRoutes(
        routed.routes,
        {
          rateLimiter: new RateLimiter(memoryOnly, new ManualClock(T0)),
          metrics: new Metrics({ enabled: false, version: "t", backend: "sqlite" }),
          log: memoryLogger(),
        },
        () => null,
        () => () => new Response(),
      );
    };
    expect(build("get", "/api/v1/thing")).not.toThrow();
    expect(build("post", "/api/v1/thing")).toThrow(/only a GET \/api route without path parameters/);
    expect(build("get", "/api/v1/things/:id")).toThrow(/only a GET \/api route without path parameters/);
    expect(build("get", "/dashboard/thing")).toThrow(/only a GET \/api route/);
    for (const policy of [{ public: true }, { anyOrigin: true }, { apiKey: true }, { successor: "/api/v2/thing" }] as RoutePolicy[]) {
      expect(build("get", "/api/v1/thing", policy), JSON.stringify(policy)).toThrow(/its policy adds headers or another way in/);
    }
  });
});

describe("GET /api/v1/account answered at hand", () => {
  let t: TestApp;
  afterEach(() => t?.close());

  const accountRoute = (app: TestApp) => (app.app.config.serve as { routes: Record<string, { GET: Handler }> }).routes["/api/v1/account"]!.GET;
  const request = (key: string, id: string) => new Request("http://localhost/api/v1/account", { headers: { "x-api-key": key, "x-request-id": id } });

  test("the listening server's answer at hand is the app's answer, byte for byte, counted once; a revoked key goes to the app (401)", async () => {
    t = await createTestApp();
    const a = await t.account();
    const handler = accountRoute(t);
    // The answer is at hand while the read caches are known current (a few ms after the app's last read of the
    // database), so each try follows an answer by the app.
    let viaApp: Awaited<ReturnType<TestApp["request"]>> | undefined;
    let atHand: Response | undefined;
    for (let i = 0; i < 50 && !atHand; i++) {
      viaApp = await t.request("GET", "/api/v1/account", { key: a.apiKey, headers: { "x-request-id": "via-app" } });
      expect(viaApp.status).toBe(200);
      const answered = handler(request(a.apiKey, "at-hand"));
      if (answered instanceof Response) atHand = answered;
      else expect((await answered).status).toBe(200);
    }
    if (PG_BACKEND) {
      // On PostgreSQL accounts are not held in memory (another node may change one), so the app answers every time.
      expect(atHand).toBeUndefined();
    } else {
      expect(atHand, "never answered at hand in 50 tries").toBeDefined();
      const res = atHand!;
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(viaApp!.text);
      expect([...res.headers.keys()].sort()).toEqual([...viaApp!.headers.keys()].sort());
      for (const name of ["content-type", "x-ratelimit-limit", "x-ratelimit-reset"]) expect(res.headers.get(name), name).toBe(viaApp!.headers.get(name));
      expect(Number(res.headers.get("x-ratelimit-remaining"))).toBe(Number(viaApp!.headers.get("x-ratelimit-remaining")) - 1);
      expect(res.headers.get("x-request-id")).toBe("at-hand");
    }
    await accounts.revokeKey(t.deps, a.keyId);
    const revoked = handler(request(a.apiKey, "revoked"));
    expect(revoked).toBeInstanceOf(Promise);
    expect((await revoked).status).toBe(401);
  });
});
