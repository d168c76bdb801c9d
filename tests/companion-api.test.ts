import { afterEach, describe, expect, test } from "bun:test";
import { createPairingCode } from "../src/modules/companion/service";
import { sourceStatuses } from "../src/modules/dashboard/overview";
import { generateJob } from "../src/sources/sandbox/generator";
import { createTestApp, show, type TestApp } from "./helpers/app";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("browser companion API", () => {
  test("a pairing code gives the companion its own key once; a used, wrong or expired code is a 404", async () => {
    t = await createTestApp();
    const acc = await t.account();
    const { code } = await createPairingCode(t.deps, acc.accountId);
    const paired = await t.request("POST", "/api/v1/companion/pair", { json: { code: code.toLowerCase() } });
    expect(paired.status, show(paired)).toBe(201);
    const body = paired.body as { accountId: string; apiKey: string };
    expect(body.accountId).toBe(acc.accountId);
    const who = await t.request("GET", "/api/v1/account", { key: body.apiKey });
    expect((who.body as any).key.label).toBe("browser companion");
    expect((await t.request("POST", "/api/v1/companion/pair", { json: { code } })).status).toBe(404);
    expect((await t.request("POST", "/api/v1/companion/pair", { json: { code: "AAAA-BBBB-CCCC" } })).status).toBe(404);
    const late = await createPairingCode(t.deps, acc.accountId);
    t.clock.advance(10 * 60_000 + 1);
    expect((await t.request("POST", "/api/v1/companion/pair", { json: { code: late.code } })).status).toBe(404);
    expect((await t.request("POST", "/api/v1/companion/pair", { json: {} })).status).toBe(400);
  });

  test("captured jobs go through the normaliser and de-duplication; bad ones are named by index; the feed gets the new ones", async () => {
    t = await createTestApp();
    const acc = await t.account();
    const feed = await t.request("POST", "/api/v1/feeds", { key: acc.apiKey, json: { title: "All", minScore: 0 } });
    expect(feed.status, show(feed)).toBe(201);
    const docs = [0, 1].map((index) => generateJob({ seed: 7, index, nowTs: t!.clock.now() }));
    const jobs = [docs[0], { title: "no ciphertext", description: "x" }, { ...docs[1], platform: "web" }, docs[1]];
    const res = await t.request("POST", "/api/v1/capture/jobs", { key: acc.apiKey, json: { pageUrl: "https://www.upwork.com/nx/search/jobs/", jobs } });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ received: 4, inserted: 2, updated: 0, rejected: 2, matched: 2 });
    expect((res.body as any).errors.map((e: { at: number }) => e.at)).toEqual([1, 2]);
    const again = await t.request("POST", "/api/v1/capture/jobs", { key: acc.apiKey, json: { pageUrl: "https://www.upwork.com/jobs/x", jobs: [docs[0]] } });
    expect(again.body).toMatchObject({ inserted: 0, updated: 1, matched: 0 });
    expect((await t.request("POST", "/api/v1/capture/jobs", { key: acc.apiKey, json: { pageUrl: "ftp://x", jobs: [docs[0]] } })).status).toBe(400);
    expect((await t.request("POST", "/api/v1/capture/jobs", { key: acc.apiKey, json: { pageUrl: "https://x", jobs: [] } })).status).toBe(400);
    expect((await t.request("POST", "/api/v1/capture/jobs", { json: { pageUrl: "https://x", jobs: [docs[0]] } })).status).toBe(401);
  });

  test('a login page reported by the companion is its source\'s "needs you" until the next capture', async () => {
    t = await createTestApp();
    const acc = await t.account();
    const companion = async () => (await sourceStatuses(t!.deps.db, t!.deps.config, acc.accountId)).find((s) => s.name === "browser companion");
    expect(await companion()).toBeUndefined();
    const res = await t.request("POST", "/api/v1/capture/status", { key: acc.apiKey, json: { watch: "paused", needsYou: "login" } });
    expect(res.status, show(res)).toBe(200);
    expect((await companion())?.lastError).toStartWith("needs you: the marketplace shows its login page");
    const other = await t.account({ name: "Someone else" });
    expect((await sourceStatuses(t.deps.db, t.deps.config, other.accountId)).find((s) => s.name === "browser companion")).toBeUndefined();
    await t.request("POST", "/api/v1/capture/jobs", {
      key: acc.apiKey,
      json: { pageUrl: "https://www.upwork.com/nx/search/jobs/", jobs: [generateJob({ seed: 1, index: 0, nowTs: t.clock.now() })] },
    });
    expect((await companion())?.lastError).toBeNull();
    expect((await t.request("POST", "/api/v1/capture/status", { key: acc.apiKey, json: { watch: "sleeping" } })).status).toBe(400);
  });
});

describe("browser companion CORS", () => {
  test("the companion's routes answer the extension's preflight without a key", async () => {
    t = await createTestApp();
    for (const path of ["/api/v1/capture/jobs", "/api/v1/capture/status", "/api/v1/companion/pair"]) {
      const res = await t.request("OPTIONS", path, { headers: { origin: "chrome-extension://abc", "access-control-request-method": "POST" } });
      expect(res.status, `${path}: ${show(res)}`).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
  });
});
