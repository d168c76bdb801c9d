import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newOAuthState, OAUTH_STATE_TTL_MS, startMarketplaceConnect } from "../../../src/modules/intake/connect";
import { findOAuthToken } from "../../../src/modules/intake/token-repo";
import { LEGACY_TOKEN_FILE, MARKETPLACE_PROVIDER, oauthTokenVault } from "../../../src/modules/intake/tokens";
import { loadTokens } from "../../../src/sources/marketplace-api/token-store";
import { startFakeMarketplaceApi, tokenReply, type FakeMarketplaceApi } from "../../fixtures/marketplace-api/fake-api";
import { createTestApp, show, type TestApp } from "../../helpers/app";

const SECRET_KEY = "callback-test-secret-key-0123";
const PATH = "/admin/oauth/callback";

let fake: FakeMarketplaceApi;
let t: TestApp;
let dbPath: string;

beforeAll(() => {
  fake = startFakeMarketplaceApi();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => t?.close());

async function app(configured = true) {
  dbPath = join(mkdtempSync(join(tmpdir(), "jp-oauth-cb-")), "jobpilot.db");
  t = await createTestApp({
    dbPath,
    config: {
      adminToken: "admin-token-for-tests-0123456789",
      marketplaceClientId: configured ? "cb-client" : undefined,
      marketplaceClientSecret: "cb-secret",
      secretKey: SECRET_KEY,
      marketplaceTokenUrl: fake.tokenUrl,
      marketplaceRedirectUri: "http://127.0.0.1:3000/admin/oauth/callback",
    },
  });
  return t;
}

/** Whether the database holds marketplace tokens. */
const stored = async () => (await findOAuthToken(t.deps.db, MARKETPLACE_PROVIDER)) !== undefined;

const query = (params: Record<string, string>) => `${PATH}?${new URLSearchParams(params)}`;

describe("newOAuthState", () => {
  test("is random and URL-safe", () => {
    const a = newOAuthState();
    expect(a).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(newOAuthState()).not.toBe(a);
  });
});

describe("GET /admin/oauth/callback", () => {
  test("a pending state succeeds once, without the admin token: HTML page, encrypted tokens stored in the database", async () => {
    fake.onToken((form) => (form.get("code") === "the-code" ? tokenReply("access-a", "refresh-a", 3600) : { status: 400, json: { error: "invalid_grant" } }));
    await app();
    const { state } = await startMarketplaceConnect(t.deps);
    const before = fake.tokenRequests.length;
    const res = await t.request("GET", query({ code: "the-code", state }));
    expect(res.status, show(res)).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain("<h1>Connected</h1>");
    expect(fake.tokenRequests.length).toBe(before + 1);
    expect(Object.fromEntries(fake.tokenRequests[before]!)).toMatchObject({
      grant_type: "authorization_code",
      code: "the-code",
      client_id: "cb-client",
      client_secret: "cb-secret",
      redirect_uri: "http://127.0.0.1:3000/admin/oauth/callback",
    });
    const row = await findOAuthToken(t.deps.db, MARKETPLACE_PROVIDER);
    expect(row!.ciphertext).not.toContain("refresh-a");
    expect(existsSync(join(dbPath, "..", LEGACY_TOKEN_FILE))).toBe(false);
    const tokens = await loadTokens(oauthTokenVault(t.deps.db), SECRET_KEY);
    expect(tokens).toEqual({ accessToken: "access-a", refreshToken: "refresh-a", expiresAt: t.clock.now() + 3600 * 1000 });

    // The state is single-use: the same redirect again is refused without reaching the token endpoint.
    const again = await t.request("GET", query({ code: "the-code", state }));
    expect(again.status, show(again)).toBe(400);
    expect(again.body.error).toContain("Unknown, used or expired state");
    expect(fake.tokenRequests.length).toBe(before + 1);
  });

  test("an unknown state is refused (400) and nothing is traded or written", async () => {
    fake.onToken(() => tokenReply("x", "y"));
    await app();
    await startMarketplaceConnect(t.deps);
    const before = fake.tokenRequests.length;
    const res = await t.request("GET", query({ code: "c", state: "not-a-state-we-gave-out" }));
    expect(res.status, show(res)).toBe(400);
    expect(res.body).toEqual({ error: expect.stringContaining("Unknown, used or expired state") });
    expect(fake.tokenRequests.length).toBe(before);
    expect(await stored()).toBe(false);
  });

  test("an expired state is refused (400); one just inside the TTL works", async () => {
    fake.onToken(() => tokenReply("fresh", "fresh-r"));
    await app();
    const expired = await startMarketplaceConnect(t.deps);
    t.clock.advance(OAUTH_STATE_TTL_MS + 1);
    const res = await t.request("GET", query({ code: "c", state: expired.state }));
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error).toContain("expired");
    expect(await stored()).toBe(false);

    const fresh = await startMarketplaceConnect(t.deps);
    expect(fresh.expiresAtTs).toBe(t.clock.now() + OAUTH_STATE_TTL_MS);
    t.clock.advance(OAUTH_STATE_TTL_MS - 1);
    const ok = await t.request("GET", query({ code: "c", state: fresh.state }));
    expect(ok.status, show(ok)).toBe(200);
    expect(await stored()).toBe(true);
  });

  test("exactly at the TTL the state has expired", async () => {
    fake.onToken(() => tokenReply("x", "y"));
    await app();
    const { state } = await startMarketplaceConnect(t.deps);
    t.clock.advance(OAUTH_STATE_TTL_MS);
    expect((await t.request("GET", query({ code: "c", state }))).status).toBe(400);
  });

  test("a missing code or state is 400 with { error }, and does not use up the state", async () => {
    fake.onToken(() => tokenReply("later", "later-r"));
    await app();
    const { state } = await startMarketplaceConnect(t.deps);
    const noCode = await t.request("GET", query({ state }));
    expect(noCode.status, show(noCode)).toBe(400);
    expect(noCode.body).toEqual({ error: "code and state are required" });
    const noState = await t.request("GET", query({ code: "c" }));
    expect(noState.status).toBe(400);
    expect(noState.body).toEqual({ error: "code and state are required" });
    const nothing = await t.request("GET", PATH);
    expect(nothing.status).toBe(400);
    expect(await stored()).toBe(false);
    // The state is still good.
    expect((await t.request("GET", query({ code: "c", state }))).status).toBe(200);
  });

  test("error=access_denied is 400 with the marketplace's reason", async () => {
    await app();
    const { state } = await startMarketplaceConnect(t.deps);
    const res = await t.request("GET", query({ error: "access_denied", error_description: "The user denied access", state }));
    expect(res.status, show(res)).toBe(400);
    expect(res.body).toEqual({ error: "The marketplace refused the authorisation: The user denied access" });
    const bare = await t.request("GET", query({ error: "access_denied" }));
    expect(bare.status).toBe(400);
    expect(bare.body.error).toContain("access_denied");
    expect(await stored()).toBe(false);
  });

  test("the token endpoint refusing the code is 400 with its message; nothing is written", async () => {
    fake.onToken(() => ({ status: 400, json: { error: "invalid_grant", error_description: "Code has expired" } }));
    await app();
    const { state } = await startMarketplaceConnect(t.deps);
    const res = await t.request("GET", query({ code: "stale", state }));
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error).toContain("the authorisation code was refused");
    expect(res.body.error).toContain("invalid_grant: Code has expired");
    expect(await stored()).toBe(false);
  });

  test("the token endpoint failing (5xx) is 503, not a client error", async () => {
    fake.onToken(() => ({ status: 502, text: "bad gateway" }));
    await app();
    const { state } = await startMarketplaceConnect(t.deps);
    const res = await t.request("GET", query({ code: "c", state }));
    expect(res.status, show(res)).toBe(503);
    expect(res.body.error).toContain("Could not reach the marketplace");
    expect(await stored()).toBe(false);
  });

  test("other /admin paths still need the admin token", async () => {
    await app();
    const res = await t.request("GET", "/admin/oauth/callbackx");
    expect(res.status).toBe(401);
  });

  test("without a client id the route does not exist: an /admin path like any other (401 without the token, 404 with it)", async () => {
    await app(false);
    const anonymous = await t.request("GET", query({ code: "c", state: "s" }));
    expect(anonymous.status, show(anonymous)).toBe(401);
    const res = await t.request("GET", query({ code: "c", state: "s" }), { headers: { authorization: "Bearer admin-token-for-tests-0123456789" } });
    expect(res.status, show(res)).toBe(404);
  });
});
