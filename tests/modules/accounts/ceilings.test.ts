import { afterEach, describe, expect, test } from "bun:test";
import * as accounts from "../../../src/modules/accounts/service";
import * as feeds from "../../../src/modules/feeds/service";
import type { Config } from "../../../src/config";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { rawMany } from "../../../src/db/query";

const ADMIN = "admin-token-0123456789";
let t: TestApp;
afterEach(() => t?.close());

async function setup(config: Partial<Config> = {}) {
  t = await createTestApp({ config: { adminToken: ADMIN, ...config } });
  const a = await t.account({ name: "A" });
  const feed = (body: Record<string, unknown>, key = a.apiKey) => t.request("POST", "/api/v1/feeds", { key, json: { title: "f", minScore: 0, ...body } });
  const newKey = (accountId = a.accountId) =>
    t.request("POST", `/admin/accounts/${accountId}/keys`, { headers: { authorization: `Bearer ${ADMIN}` }, json: { label: "more" } });
  const count = (table: string, accountId = a.accountId) =>
    rawMany<{ n: unknown }>(t.deps.db, `test.count.${table}`, `SELECT count(*) AS n FROM ${table} WHERE account_id = ?`, [accountId]).then((rows) =>
      Number(rows[0]!.n),
    );
  return { a, feed, newKey, count };
}

describe("feeds per account", () => {
  test("the default ceiling is 200 feeds: the 201st is a 409 naming the limit and nothing is created", async () => {
    const { a, feed, count } = await setup();
    const auth = (await accounts.authenticate(t.deps, a.apiKey))!;
    for (let i = 0; i < 200; i++) await feeds.createFeed(t.deps, auth, { title: `f${i}`, minScore: 0 });
    const res = await feed({ title: "one too many" });
    expect(res.status, show(res)).toBe(409);
    expect(Object.keys(res.body)).toEqual(["error"]);
    expect(res.body.error).toContain("200 feeds");
    expect(res.body.error).toContain("maxFeeds");
    expect(await count("feeds")).toBe(200);
  });

  test("JOBPILOT_MAX_FEEDS_PER_ACCOUNT sets the default; an account's own ceiling wins; other accounts are not affected", async () => {
    const { a, feed, count } = await setup({ maxFeedsPerAccount: 2 });
    const b = await t.account({ name: "B" });
    for (let i = 0; i < 2; i++) expect((await feed({})).status).toBe(201);
    expect((await feed({})).status).toBe(409);
    expect((await feed({}, b.apiKey)).status).toBe(201);

    await accounts.setCeilings(t.deps, a.accountId, { feeds: 3 });
    expect((await feed({})).status).toBe(201);
    const refused = await feed({});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("3 feeds");
    expect(await count("feeds")).toBe(3);

    // Deleting one makes room again; back to the default, the account is over it and cannot add more.
    const id = (await t.request("GET", "/api/v1/feeds", { key: a.apiKey })).body.feeds[0].id;
    expect((await t.request("DELETE", `/api/v1/feeds/${id}`, { key: a.apiKey })).status).toBe(200);
    expect((await feed({})).status).toBe(201);
    await accounts.setCeilings(t.deps, a.accountId, { feeds: null });
    expect((await feed({})).status).toBe(409);
  });
});

describe("API keys per account", () => {
  test("the default ceiling is 50 active keys; revoked keys do not count", async () => {
    const { a, newKey, count } = await setup();
    for (let i = 0; i < 49; i++) await accounts.createKey(t.deps, a.accountId, `k${i}`); // with the account's first key: 50
    const res = await newKey();
    expect(res.status, show(res)).toBe(409);
    expect(Object.keys(res.body)).toEqual(["error"]);
    expect(res.body.error).toContain("50 active API keys");
    expect(res.body.error).toContain("maxApiKeys");
    expect(await count("api_keys")).toBe(50);
    await accounts.revokeKey(t.deps, a.keyId);
    expect((await newKey()).status).toBe(201);
    expect((await newKey()).status).toBe(409);
  });

  test("JOBPILOT_MAX_API_KEYS_PER_ACCOUNT and an account's own ceiling apply to every way of making a key", async () => {
    const { a, newKey } = await setup({ maxApiKeysPerAccount: 2 });
    expect((await newKey()).status).toBe(201);
    expect((await newKey()).status).toBe(409);
    expect(() => accounts.createKey(t.deps, a.accountId, "cli")).toThrow("2 active API keys");
    await accounts.setCeilings(t.deps, a.accountId, { apiKeys: 3 });
    expect((await newKey()).status).toBe(201);
    expect((await newKey()).status).toBe(409);
  });
});

describe("prompt length", () => {
  test("profilePrompt and proposalGenerationPrompt longer than the ceiling are a 400 naming the field, on create and on PATCH", async () => {
    const { a, feed, count } = await setup({ maxPromptChars: 100 });
    const created = await feed({ profilePrompt: "p".repeat(100), proposalGenerationPrompt: "g".repeat(100) });
    expect(created.status, show(created)).toBe(201);
    const long = await feed({ profilePrompt: "p".repeat(101), proposalGenerationPrompt: "g".repeat(101) });
    expect(long.status).toBe(400);
    expect(long.body.details).toEqual([
      "profilePrompt must be at most 100 characters (101 given)",
      "proposalGenerationPrompt must be at most 100 characters (101 given)",
    ]);
    const patched = await t.request("PATCH", `/api/v1/feeds/${created.body.feed.id}`, { key: a.apiKey, json: { proposalGenerationPrompt: "g".repeat(150) } });
    expect(patched.status).toBe(400);
    expect(patched.body.details).toEqual(["proposalGenerationPrompt must be at most 100 characters (150 given)"]);
    expect(await count("feeds")).toBe(1);

    await accounts.setCeilings(t.deps, a.accountId, { promptChars: 200 });
    expect((await feed({ profilePrompt: "p".repeat(200) })).status).toBe(201);
  });

  test("the default is 20,000 characters, and an account may be allowed up to 100,000", async () => {
    const { a, feed } = await setup();
    expect((await feed({ profilePrompt: "p".repeat(20_000) })).status).toBe(201);
    const over = await feed({ profilePrompt: "p".repeat(20_001) });
    expect(over.status).toBe(400);
    expect(over.body.details).toEqual(["profilePrompt must be at most 20000 characters (20001 given)"]);
    await accounts.setCeilings(t.deps, a.accountId, { promptChars: 100_000 });
    expect((await feed({ profilePrompt: "p".repeat(100_000) })).status).toBe(201);
    expect((await feed({ profilePrompt: "p".repeat(100_001) })).status).toBe(400);
    await expect(accounts.setCeilings(t.deps, a.accountId, { promptChars: 100_001 })).rejects.toThrow("promptChars");
  });
});
