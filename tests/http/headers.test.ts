import { afterEach, describe, expect, test } from "bun:test";
import { setRateLimits } from "../../src/modules/accounts/service";
import { createTestApp, show, type TestApp } from "../helpers/app";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const MCP_HEADERS = { accept: "application/json, text/event-stream" };

describe("headers every answer carries", () => {
  test("X-Content-Type-Options: nosniff on JSON, HTML, the reference, /healthz, errors and /mcp", async () => {
    t = await createTestApp({ config: { maxBodyBytes: 4096 } });
    const a = await t.account();
    const answers = {
      "JSON API answer": await t.request("GET", "/api/v1/feeds", { key: a.apiKey }),
      "dashboard page (HTML)": await t.request("GET", "/dashboard/sign-in"),
      "/docs": await t.request("GET", "/docs"),
      "/docs/json": await t.request("GET", "/docs/json"),
      "/healthz": await t.request("GET", "/healthz"),
      "404": await t.request("GET", "/nowhere"),
      "405": await t.request("PUT", "/healthz"),
      "401": await t.request("GET", "/api/v1/feeds"),
      "413": await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "x".repeat(5000), minScore: 1 } }),
      "414": await t.request("GET", `/api/v1/feeds?q=${"x".repeat(9000)}`, { key: a.apiKey }),
      "431": await t.request("GET", "/api/v1/feeds", { key: a.apiKey, headers: { "x-padding": "x".repeat(70_000) } }),
      "/mcp": await t.request("POST", "/mcp", { key: a.apiKey, headers: MCP_HEADERS, json: { jsonrpc: "2.0", id: 1, method: "ping" } }),
    };
    const statuses = Object.fromEntries(Object.entries(answers).map(([name, res]) => [name, res.status]));
    expect(statuses).toEqual({
      "JSON API answer": 200,
      "dashboard page (HTML)": 200,
      "/docs": 200,
      "/docs/json": 200,
      "/healthz": 200,
      "404": 404,
      "405": 405,
      "401": 401,
      "413": 413,
      "414": 414,
      "431": 431,
      "/mcp": 200,
    });
    for (const [name, res] of Object.entries(answers)) expect(res.headers.get("x-content-type-options"), `${name}: ${show(res)}`).toBe("nosniff");
  });

  test("a 429 carries nosniff with its rate-limit headers", async () => {
    t = await createTestApp();
    const a = await t.account();
    await setRateLimits(t.deps, a.accountId, { overrides: { "feeds.minute": 1 } });
    expect((await t.request("GET", "/api/v1/feeds", { key: a.apiKey })).status).toBe(200);
    const over = await t.request("GET", "/api/v1/feeds", { key: a.apiKey });
    expect(over.status, show(over)).toBe(429);
    expect(over.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("the API reference cannot be framed", () => {
  test("/docs and /docs/json say DENY and frame-ancestors 'none'", async () => {
    t = await createTestApp();
    for (const path of ["/docs", "/docs/json"]) {
      const res = await t.request("GET", path);
      expect(res.status, show(res)).toBe(200);
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("content-security-policy"), path).toBe("frame-ancestors 'none'");
    }
  });
});
