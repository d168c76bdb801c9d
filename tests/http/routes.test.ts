import { afterEach, describe, expect, test } from "bun:test";
import { HEALTH_CACHE_MS } from "../../src/modules/monitoring/health";
import { createTestApp, show, type TestApp } from "../helpers/app";

let t: TestApp;
afterEach(() => t?.close());

/**
 * Every endpoint of the spec, with a valid request, and the status it answers
 * for these ids (unknown ones give 404, as the spec says).
 */
const SPEC_ENDPOINTS: { method: string; path: string; openapi: string; json?: unknown; answers?: number }[] = [
  { method: "GET", path: "/api/v1/feeds", openapi: "/api/v1/feeds", answers: 200 },
  { method: "POST", path: "/api/v1/feeds", openapi: "/api/v1/feeds", json: { title: "Go", minScore: 5 }, answers: 201 },
  { method: "GET", path: "/api/v1/feeds/f1", openapi: "/api/v1/feeds/{feedId}", answers: 404 },
  { method: "PATCH", path: "/api/v1/feeds/f1", openapi: "/api/v1/feeds/{feedId}", json: { minScore: 4 }, answers: 404 },
  { method: "DELETE", path: "/api/v1/feeds/f1", openapi: "/api/v1/feeds/{feedId}", answers: 404 },
  { method: "POST", path: "/api/auto-apply-v2/apply", openapi: "/api/auto-apply-v2/apply", json: { jobId: "~01", coverLetter: "Hi" }, answers: 404 },
  { method: "GET", path: "/api/auto-apply-v2/status?queueId=q1", openapi: "/api/auto-apply-v2/status", answers: 404 },
  { method: "GET", path: "/api/auto-apply-v2/applied-jobs", openapi: "/api/auto-apply-v2/applied-jobs", answers: 200 },
  { method: "POST", path: "/api/auto-apply-v2/generate-proposal", openapi: "/api/auto-apply-v2/generate-proposal", json: { jobId: "~01" }, answers: 404 },
  { method: "GET", path: "/api/auto-apply-v2/freelancers", openapi: "/api/auto-apply-v2/freelancers", answers: 200 },
  { method: "GET", path: "/api/auto-apply/external/freelancers", openapi: "/api/auto-apply/external/freelancers", answers: 200 },
  { method: "GET", path: "/api/jobs/by-ciphertext?cipher=%7E01", openapi: "/api/jobs/by-ciphertext", answers: 404 },
  { method: "GET", path: "/api/v1/jobs/~01", openapi: "/api/v1/jobs/{ciphertext}", answers: 404 },
  { method: "GET", path: "/api/v2/jobs/~01", openapi: "/api/v2/jobs/{ciphertext}", answers: 404 },
  { method: "GET", path: "/api/clients/123/jobs", openapi: "/api/clients/{companyId}/jobs", answers: 404 },
  { method: "GET", path: "/api/v1/clients/123/jobs", openapi: "/api/v1/clients/{companyId}/jobs", answers: 404 },
  { method: "GET", path: "/api/v2/clients/123/jobs", openapi: "/api/v2/clients/{companyId}/jobs", answers: 404 },
  { method: "POST", path: "/api/auto-apply/external", openapi: "/api/auto-apply/external", json: { jobId: "~01", coverLetter: "Hi" }, answers: 404 },
];

describe("route table", () => {
  test("every spec endpoint is registered; the ones whose issue is open honestly answer 501", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    for (const e of SPEC_ENDPOINTS) {
      const res = await t.request(e.method, e.path, { key: apiKey, json: e.json });
      expect(res.status, `${e.method} ${e.path}: ${show(res)}`).toBe(e.answers ?? 501);
      if (res.status === 501) expect(res.body).toEqual({ error: "Not implemented yet" });
      // the route exists; the resource does not
      if (res.status === 404) expect(res.body.error).toMatch(/^(Feed|Job|Application) not found$|^No archived job/);
    }
  });

  test("health needs no key and reports version and database", async () => {
    t = await createTestApp();
    const res = await t.request("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "ok", version: expect.any(String), database: { status: "ok" } });
  });

  test("health reuses a healthy database answer for HEALTH_CACHE_MS, and reports a broken database after it", async () => {
    t = await createTestApp();
    expect((await t.request("GET", "/healthz")).status).toBe(200);
    const db = t.deps.db;
    t.deps.db = new Proxy(db, {
      get() {
        throw new Error("database unavailable");
      },
    });
    try {
      const cached = await t.request("GET", "/healthz");
      expect(cached.status).toBe(200);
      await Bun.sleep(HEALTH_CACHE_MS + 10);
      const broken = await t.request("GET", "/healthz");
      expect(broken.status).toBe(503);
      expect(broken.body.database).toEqual({ status: "error", error: "database unavailable" });
    } finally {
      t.deps.db = db;
    }
    expect((await t.request("GET", "/healthz")).status).toBe(200);
  });
});

describe("OpenAPI", () => {
  test("the description is version 2.0.0 with every spec path, the x-api-key scheme and error shapes", async () => {
    t = await createTestApp();
    const res = await t.request("GET", "/docs/json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.info.version).toBe("2.0.0");
    expect(doc.components.securitySchemes.apiKey).toEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "x-api-key" }));
    expect(doc.security).toEqual([{ apiKey: [] }]);
    for (const e of SPEC_ENDPOINTS) {
      const op = doc.paths[e.openapi]?.[e.method.toLowerCase()];
      expect(op, `${e.method} ${e.openapi} missing`).toBeDefined();
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["401", "429", "500"]));
      expect(op.responses["401"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    }
    expect(doc.components.schemas.Error).toMatchObject({ type: "object", required: ["error"], properties: { error: { type: "string" } } });
    expect(doc.paths["/api/auto-apply/external"].post.deprecated).toBe(true);
    expect(doc.paths["/api/auto-apply-v2/apply"].post.responses["402"]).toBeDefined();
    expect(doc.paths["/healthz"].get.security).toEqual([]);
  });

  test("every request body it advertises is application/json, the only type the API accepts", async () => {
    t = await createTestApp({ config: { adminToken: "admin-token" } });
    const doc = (await t.request("GET", "/docs/json")).body;
    type Operations = Record<string, { requestBody?: { content: Record<string, unknown> } }>;
    const advertised: string[] = [];
    for (const [path, operations] of [...Object.entries<Operations>(doc.paths), ...Object.entries<Operations>(doc.webhooks ?? {})]) {
      for (const [method, op] of Object.entries(operations)) {
        for (const type of Object.keys(op.requestBody?.content ?? {})) advertised.push(`${method.toUpperCase()} ${path} ${type}`);
      }
    }
    expect(advertised).toContain("POST /api/v1/feeds application/json");
    expect(advertised).toContain("POST /api/auto-apply-v2/apply application/json");
    expect(advertised.filter((a) => !a.endsWith(" application/json"))).toEqual([]);
  });

  test("the interactive page is served at /docs", async () => {
    t = await createTestApp();
    const res = await t.request("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain("docs/json");
    // no CDN: the page's script is served by jobpilot itself
    expect(res.text).not.toContain("cdn.jsdelivr.net");
    const script = /<script src="([^"]+)"/.exec(res.text)?.[1];
    expect(script).toBe("/docs/assets/scalar.js");
    const asset = await t.app.handle(new Request(`http://localhost${script}`));
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("javascript");
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
