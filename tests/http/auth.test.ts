import { afterEach, describe, expect, test } from "bun:test";
import * as accounts from "../../src/modules/accounts/service";
import { generateApiKey } from "../../src/modules/accounts/api-key";
import { createTestApp, show, type TestApp } from "../helpers/app";

let t: TestApp;
afterEach(() => t?.close());

const UNAUTHORIZED = { error: "Missing or invalid API key (send it in the x-api-key header)" };

describe("x-api-key authentication", () => {
  test("a valid key reaches the route and the caller's account", async () => {
    t = await createTestApp();
    const { apiKey, accountId } = await t.account({ name: "Acme", credits: 4 });
    const res = await t.request("GET", "/api/v1/account", { key: apiKey });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.account).toMatchObject({ id: accountId, name: "Acme", credits: 4 });
    expect(res.body.key.prefix).toBe(apiKey.slice(0, 12));
    expect(res.text.includes(apiKey)).toBe(false);
  });

  test.each([
    ["missing", null],
    ["empty", ""],
    ["malformed", "hello"],
    ["well-formed but unknown", generateApiKey()],
  ])("a %s key gets 401 with the same body", async (_label, key) => {
    t = await createTestApp();
    await t.account();
    const res = await t.request("GET", "/api/v1/account", { key: key ?? undefined, headers: key === "" ? { "x-api-key": "" } : {} });
    expect(res.status, show(res)).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });

  test("a revoked key gets 401 at once, identical to an unknown key", async () => {
    t = await createTestApp();
    const { accountId } = await t.account();
    const { key, apiKey } = await accounts.createKey(t.deps, accountId, "to revoke");
    expect((await t.request("GET", "/api/v1/account", { key: apiKey })).status).toBe(200);
    await accounts.revokeKey(t.deps, key.id);
    const res = await t.request("GET", "/api/v1/account", { key: apiKey });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  test("auth comes before body validation and before 404", async () => {
    t = await createTestApp();
    const bad = await t.request("POST", "/api/v1/feeds", { body: "{not json", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(401);
    const unknown = await t.request("GET", "/api/does-not-exist");
    expect(unknown.status).toBe(401);
  });

  test("every spec endpoint requires the key", async () => {
    t = await createTestApp();
    const paths: [string, string][] = [
      ["GET", "/api/v1/feeds"],
      ["POST", "/api/v1/feeds"],
      ["GET", "/api/v1/feeds/abc"],
      ["PATCH", "/api/v1/feeds/abc"],
      ["DELETE", "/api/v1/feeds/abc"],
      ["POST", "/api/auto-apply-v2/apply"],
      ["GET", "/api/auto-apply-v2/status?queueId=x"],
      ["GET", "/api/auto-apply-v2/applied-jobs"],
      ["POST", "/api/auto-apply-v2/generate-proposal"],
      ["GET", "/api/auto-apply-v2/freelancers"],
      ["GET", "/api/auto-apply/external/freelancers"],
      ["GET", "/api/jobs/by-ciphertext?cipher=%7E01"],
      ["GET", "/api/v1/jobs/~01"],
      ["GET", "/api/v2/jobs/~01"],
      ["GET", "/api/clients/123/jobs"],
      ["GET", "/api/v1/clients/123/jobs"],
      ["GET", "/api/v2/clients/123/jobs"],
      ["POST", "/api/auto-apply/external"],
    ];
    for (const [method, path] of paths) {
      const res = await t.request(method, path);
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(401);
    }
  });

  test("lastUsedAt is recorded (written behind, on flush)", async () => {
    t = await createTestApp();
    const { apiKey, accountId, keyId } = await t.account();
    expect((await accounts.listKeys(t.deps, accountId))[0]!.lastUsedAtTs).toBeNull();
    await t.request("GET", "/api/v1/account", { key: apiKey });
    await t.deps.keyUsage.flush();
    const key = (await accounts.listKeys(t.deps, accountId)).find((k) => k.id === keyId)!;
    expect(key.lastUsedAtTs).toBe(t.clock.now());
  });

  test("API keys never appear in the logs", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    await t.request("GET", "/api/v1/account", { key: apiKey });
    await t.request("GET", "/api/v1/account", { key: apiKey.slice(0, -1) + "x" });
    await Bun.sleep(1); // access lines are written after the response
    expect(t.log.lines.length).toBeGreaterThan(0);
    expect(t.log.lines.some((l) => l.includes(apiKey.slice(8, 30)))).toBe(false);
  });

  test("admin routes answer 404 when no admin token is configured", async () => {
    t = await createTestApp();
    const res = await t.request("GET", "/admin/accounts", { headers: { authorization: "Bearer whatever-long-enough" } });
    expect(res.status).toBe(404);
  });

  test("admin routes need the bearer token and manage accounts", async () => {
    const token = "admin-token-0123456789";
    t = await createTestApp({ config: { adminToken: token } });
    expect((await t.request("GET", "/admin/accounts")).status).toBe(401);
    expect((await t.request("GET", "/admin/accounts", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    const auth = { authorization: `Bearer ${token}` };
    const created = await t.request("POST", "/admin/accounts", { headers: auth, json: { name: "Agency", kind: "agency", credits: 2 } });
    expect(created.status, show(created)).toBe(201);
    expect(created.body.apiKey).toMatch(/^jp_live_/);
    const who = await t.request("GET", "/api/v1/account", { key: created.body.apiKey });
    expect(who.body.account).toMatchObject({ name: "Agency", kind: "agency", credits: 2 });
    const granted = await t.request("POST", `/admin/accounts/${created.body.account.id}/credits`, { headers: auth, json: { amount: 3 } });
    expect(granted.body).toEqual({ balance: 5 });
    const list = await t.request("GET", "/admin/accounts", { headers: auth });
    expect(list.body.accounts).toHaveLength(1);
    const revoked = await t.request("DELETE", `/admin/keys/${created.body.key.id}`, { headers: auth });
    expect(revoked.status, show(revoked)).toBe(200);
    expect((await t.request("GET", "/api/v1/account", { key: created.body.apiKey })).status).toBe(401);
  });
});
