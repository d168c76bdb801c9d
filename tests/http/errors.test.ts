import { afterEach, describe, expect, test } from "bun:test";
import { AppError } from "../../src/errors";
import { createTestApp, show, type TestApp } from "../helpers/app";

let t: TestApp;
afterEach(() => t?.close());

async function setup(config = {}) {
  t = await createTestApp({ config });
  return (await t.account()).apiKey;
}

const validFeed = { title: "Go backends", minScore: 5 };

describe("error shapes", () => {
  test("malformed JSON is a 400 that says so", async () => {
    const key = await setup();
    const res = await t.request("POST", "/api/v1/feeds", { key, body: '{"title": "x",', headers: { "content-type": "application/json" } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body).toEqual({ error: "Malformed JSON body" });
  });

  test.each(["[]", "null", '"text"', "1", "true"])("a body that is not an object (%s) is a 400", async (body) => {
    const key = await setup();
    const res = await t.request("POST", "/api/v1/feeds", { key, body, headers: { "content-type": "application/json" } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.details).toContain("Request body must be a JSON object");
  });

  test("a missing body is a 400, an empty JSON body too", async () => {
    const key = await setup();
    const none = await t.request("POST", "/api/auto-apply-v2/apply", { key });
    expect(none.status, show(none)).toBe(400);
    expect(none.body.error).toBe("Invalid body: Request body must be a JSON object");
    const empty = await t.request("POST", "/api/auto-apply-v2/apply", { key, body: "", headers: { "content-type": "application/json" } });
    expect(empty.status, show(empty)).toBe(400);
  });

  test.each([
    ["text/plain", 415],
    ["application/x-www-form-urlencoded", 415],
    ["application/json; charset=utf-16", 415],
    ["application/json; charset=utf-8", 201],
    ["application/merge-patch+json", 201],
  ])("content type %s → %d", async (contentType, status) => {
    const key = await setup();
    const res = await t.request("POST", "/api/v1/feeds", { key, body: JSON.stringify(validFeed), headers: { "content-type": contentType } });
    expect(res.status, show(res)).toBe(status);
    if (status >= 400) expect(typeof res.body.error).toBe("string");
    else expect(res.body.feed.title).toBe(validFeed.title);
  });

  test("invalid UTF-8 is a 400", async () => {
    const key = await setup();
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const res = await t.request("POST", "/api/v1/feeds", { key, body: bytes, headers: { "content-type": "application/json" } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error).toMatch(/UTF-8/);
  });

  test("a body over the limit is a 413, declared or streamed, and the app keeps serving", async () => {
    const key = await setup({ maxBodyBytes: 4096 });
    const big = JSON.stringify({ ...validFeed, profilePrompt: "x".repeat(5000) });
    const declared = await t.request("POST", "/api/v1/feeds", { key, body: big, headers: { "content-type": "application/json" } });
    expect(declared.status, show(declared)).toBe(413);
    expect(declared.body.error).toMatch(/larger than 4096 bytes/);

    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode("x".repeat(1000)));
        c.close();
      },
    });
    const streamed = await t.app.handle(
      new Request("http://localhost/api/v1/feeds", { method: "POST", body: stream, headers: { "x-api-key": key, "content-type": "application/json" } }),
    );
    expect(streamed.status).toBe(413);
    const after = await t.request("GET", "/api/v1/account", { key });
    expect(after.status).toBe(200);
  });

  test("deeply nested JSON and __proto__ keys are rejected or ignored, never a 5xx or pollution", async () => {
    const key = await setup();
    const deep = '{"title":' + "[".repeat(5000) + "]".repeat(5000) + ',"minScore":1}';
    const res = await t.request("POST", "/api/v1/feeds", { key, body: deep, headers: { "content-type": "application/json" } });
    expect(res.status, show(res)).toBe(400);
    const proto = await t.request("POST", "/api/v1/feeds", {
      key,
      body: '{"title":"x","minScore":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
      headers: { "content-type": "application/json" },
    });
    expect(proto.status, show(proto)).toBe(201); // the keys are ordinary data, never a prototype
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("validation errors name each failing field", async () => {
    const key = await setup();
    const res = await t.request("POST", "/api/auto-apply-v2/apply", { key, json: { jobId: 5, proposal: { boostBids: 1.5, timeline: "soon" } } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        "jobId must be a string of 1 to 2048 characters",
        "coverLetter is required",
        "proposal.boostBids must be an integer between 0 and 1000",
        "proposal.timeline must be one of Less than 1 month, 1 to 3 months, 3 to 6 months, More than 6 months",
      ]),
    );
    expect(res.body.error).toContain("coverLetter is required");
  });

  test("feed validation uses the spec's exact shape", async () => {
    const key = await setup();
    const res = await t.request("POST", "/api/v1/feeds", { key, json: { title: "x", minScore: 11, platforms: [] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      details: ["minScore must be a number between 0 and 10", "platforms must be a non-empty array"],
    });
  });

  test("query parameters are validated with their names", async () => {
    const key = await setup();
    for (const q of ["limit=0", "limit=201", "limit=abc", "offset=-1", "status=done"]) {
      const res = await t.request("GET", `/api/auto-apply-v2/applied-jobs?${q}`, { key });
      expect(res.status, `${q}: ${show(res)}`).toBe(400);
      expect(res.body.error).toContain(q.split("=")[0]);
    }
    const missing = await t.request("GET", "/api/jobs/by-ciphertext", { key });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain("cipher is required");
  });

  test("every list's limit and offset has a maximum: beyond it a 400 naming the field, never a 500", async () => {
    const key = await setup();
    const feed = await t.request("POST", "/api/v1/feeds", { key, json: validFeed });
    expect(feed.status, show(feed)).toBe(201);
    const lists = ["/api/auto-apply-v2/applied-jobs", `/api/v1/feeds/${feed.body.feed.id}/jobs`, `/api/v1/feeds/${feed.body.feed.id}/deliveries`];
    for (const path of lists) {
      for (const q of ["offset=9223372036854775808", "offset=1000001", "offset=1e20", "limit=9223372036854775808", "limit=201", "limit=1e20"]) {
        const res = await t.request("GET", `${path}?${q}`, { key });
        expect(res.status, `${path}?${q}: ${show(res)}`).toBe(400);
        const field = q.split("=")[0]!;
        // Feed routes carry the message in details (the spec's feed shape), the others in error itself.
        expect([res.body.error, ...(res.body.details ?? [])].join("; "), `${path}?${q}`).toContain(
          field === "offset" ? "offset must be an integer between 0 and 1000000" : "limit must be an integer between 1 and 200",
        );
      }
      const last = await t.request("GET", `${path}?offset=1000000&limit=200`, { key });
      expect(last.status, `${path}: ${show(last)}`).toBe(200);
      expect(last.body).toMatchObject({ total: 0, limit: 200, offset: 1000000 });
    }
  });

  test("an unknown route is a 404 and a wrong method a 405 with Allow", async () => {
    const key = await setup();
    const unknown = await t.request("GET", "/nowhere");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "No route for GET /nowhere" });
    const apiUnknown = await t.request("GET", "/api/v1/nowhere", { key });
    expect(apiUnknown.status).toBe(404);
    const wrong = await t.request("PUT", "/api/v1/feeds", { key });
    expect(wrong.status, show(wrong)).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, POST");
    const wrongParam = await t.request("POST", "/api/v1/feeds/123", { key });
    expect(wrongParam.status).toBe(405);
    expect(wrongParam.headers.get("allow")).toBe("GET, PATCH, DELETE");
  });

  test("a bug is a generic 500 with a logged request id and no internals", async () => {
    const key = await setup();
    t.app.get("/api/v1/test-bug", () => {
      throw new Error("secret internal detail at /srv/app.ts:42");
    });
    const res = await t.request("GET", "/api/v1/test-bug", { key });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal server error" });
    const reqId = res.headers.get("x-request-id");
    expect(reqId).toBeTruthy();
    const logged = t.log.records().find((r) => r.msg === "unhandled error");
    expect(logged).toMatchObject({ reqId, level: "error", path: "/api/v1/test-bug" });
    expect(JSON.stringify(logged)).toContain("secret internal detail");
  });

  test("a server error thrown as an AppError answers its status in words, and its message goes to the log with the request id", async () => {
    const key = await setup();
    const cases = [
      ["internal", 500, "Internal server error"],
      ["unavailable", 503, "Service unavailable"],
    ] as const;
    // Routes first: the app compiles its router on the first request. Test-only, so not in the API document.
    for (const [code] of cases) {
      t.app.get(
        `/api/v1/test-${code}`,
        () => {
          throw new AppError(code, `archived job ~01secret does not normalize at /srv/app.ts:42 (${code})`, { internal: "extra" });
        },
        { detail: { hide: true } },
      );
    }
    for (const [code, status, generic] of cases) {
      const res = await t.request("GET", `/api/v1/test-${code}`, { key });
      expect(res.status, show(res)).toBe(status);
      expect(res.body).toEqual({ error: generic });
      const reqId = res.headers.get("x-request-id");
      const logged = t.log.records().find((r) => r.reqId === reqId && r.level === "error");
      expect(logged, `${code}: ${JSON.stringify(t.log.records().slice(-2))}`).toMatchObject({ status, path: `/api/v1/test-${code}` });
      expect(JSON.stringify(logged)).toContain(`does not normalize at /srv/app.ts:42 (${code})`);
    }
  });

  test("a database failure is a 500 too, not a crash", async () => {
    const key = await setup();
    t.deps.db.$client.close();
    const res = await t.request("GET", "/api/v1/account", { key });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal server error" });
    const health = await t.request("GET", "/healthz");
    expect(health.status).toBe(503);
    t = await createTestApp(); // the afterEach closes this one instead
  });

  test("every response carries an x-request-id, echoing a sane one from the client", async () => {
    const key = await setup();
    for (const [method, path, k] of [
      ["GET", "/healthz", null],
      ["GET", "/api/v1/account", key],
      ["GET", "/api/v1/account", null],
      ["GET", "/nowhere", null],
      ["GET", "/docs/json", null],
      ["GET", "/api/v1/feeds", key],
    ] as const) {
      const res = await t.request(method, path, { key: k });
      expect(res.headers.get("x-request-id"), `${method} ${path}`).toMatch(/^[a-z0-9]{16,}$/);
    }
    const echoed = await t.request("GET", "/healthz", { headers: { "x-request-id": "client-123.abc" } });
    expect(echoed.headers.get("x-request-id")).toBe("client-123.abc");
    const replaced = await t.request("GET", "/healthz", { headers: { "x-request-id": "bad id\twith spaces" } });
    expect(replaced.headers.get("x-request-id")).not.toBe("bad id\twith spaces");
  });
});
