import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { createDeliverer } from "../../../src/cli/serve";
import { rawExec, rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { isEnvelope } from "../../../src/lib/secret-box";
import { generateSecret } from "../../../src/lib/standard-webhooks";
import * as feedsRepo from "../../../src/modules/feeds/repo";
import { openWebhook, sealClearWebhooks, sealValue } from "../../../src/modules/feeds/webhook-seal";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { createTestApp, show, TEST_SECRET_KEY, type TestApp } from "../../helpers/app";
import { useCleanups } from "../../helpers/cleanups";
import { makeDoc } from "../../helpers/factories";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const OTHER_KEY = "another-secret-key-fedcba9876543210";

const cleanup = useCleanups();

/** A test app on a clock in real time, so the standardwebhooks package's own timestamp check passes. */
async function setup(opts: { secretKey?: string | null; config?: Record<string, unknown> } = {}) {
  const app = await createTestApp({ clock: new ManualClock(Date.now()), secretKey: opts.secretKey, config: { webhookAllowPrivate: true, ...opts.config } });
  cleanup(() => app.close());
  const { apiKey, accountId } = await app.account();
  return { app, apiKey, accountId };
}

async function startReceiver(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  cleanup(() => receiver.close());
  return receiver;
}

/** The outbox deliverer on the app's deps as they are now (so with the key they hold now), woken by its writes. */
function startDeliverer(app: TestApp): WebhookDeliverer {
  const deliverer = createDeliverer(app.deps);
  app.deps.work.subscribe(() => deliverer.notify());
  deliverer.start();
  cleanup(() => deliverer.stop());
  return deliverer;
}

interface StoredWebhook {
  id: string;
  webhook_url: string | null;
  webhook_secret: string | null;
  webhook_previous_secret: string | null;
}

async function stored(app: TestApp, feedId: string): Promise<StoredWebhook> {
  const sql = "SELECT id, webhook_url, webhook_secret, webhook_previous_secret FROM feeds WHERE id = ?";
  const [row] = await rawMany<StoredWebhook>(app.deps.db, sql, sql, [feedId]);
  return row!;
}

/** The stored row as the repository's type, for openWebhook. */
const asRow = (s: StoredWebhook) => ({ webhookUrl: s.webhook_url, webhookSecret: s.webhook_secret, webhookPreviousSecret: s.webhook_previous_secret });

/** Every stored webhook value is an envelope, and none of `clear` appears anywhere in the row. */
function expectSealed(row: StoredWebhook, ...clear: string[]) {
  for (const value of [row.webhook_url, row.webhook_secret, row.webhook_previous_secret]) if (value !== null) expect(isEnvelope(value), value).toBe(true);
  const text = JSON.stringify(row);
  for (const c of clear) expect(text).not.toContain(c);
}

describe("feed webhook URLs and secrets at rest", () => {
  test("create, PATCH and rotate-secret store the URL and secrets sealed; the API answers show them as before", async () => {
    const { app, apiKey } = await setup();
    const url = "https://hooks.example.com/jobpilot/a1b2c3d4";
    const created = await app.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "sealed", minScore: 0, webhookUrl: url } });
    expect(created.status, show(created)).toBe(201);
    const feed = created.body.feed;
    expect(feed.webhookUrl).toBe(url);
    const secret = feed.webhookSecret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    expectSealed(await stored(app, feed.id), url, secret, secret.slice("whsec_".length));

    // Read back: the URL in clear, the secret masked as before.
    const got = await app.request("GET", `/api/v1/feeds/${feed.id}`, { key: apiKey });
    expect(got.body.feed).toMatchObject({ webhookUrl: url, webhookSecret: `whsec_…${secret.slice(-4)}` });
    const listed = await app.request("GET", "/api/v1/feeds", { key: apiKey });
    expect(listed.body.feeds[0]).toMatchObject({ webhookUrl: url, webhookSecret: `whsec_…${secret.slice(-4)}` });

    const url2 = "https://hooks.example.com/jobpilot/e5f6a7b8";
    const patched = await app.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: apiKey, json: { webhookUrl: url2 } });
    expect(patched.status, show(patched)).toBe(200);
    // The same secret signs for the new URL: it is not shown again.
    expect(patched.body.feed).toMatchObject({ webhookUrl: url2, webhookSecret: `whsec_…${secret.slice(-4)}` });
    expectSealed(await stored(app, feed.id), url, url2, secret);
    // Saving the same URL again is no change (compared opened, though every seal differs): no new test event.
    const before = (await rawMany<{ n: number }>(app.deps.db, "c", "SELECT count(*) AS n FROM events", []))[0]!.n;
    const same = await app.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: apiKey, json: { webhookUrl: url2, title: "renamed" } });
    expect(same.status, show(same)).toBe(200);
    expect((await rawMany<{ n: number }>(app.deps.db, "c", "SELECT count(*) AS n FROM events", []))[0]!.n).toEqual(before);

    const rotated = await app.request("POST", `/api/v1/feeds/${feed.id}/webhook/rotate-secret`, { key: apiKey });
    expect(rotated.status, show(rotated)).toBe(200);
    const secret2 = rotated.body.feed.webhookSecret as string;
    expect(secret2).toMatch(/^whsec_/);
    expect(secret2).not.toBe(secret);
    const row = await stored(app, feed.id);
    expect(row.webhook_previous_secret).not.toBeNull();
    expectSealed(row, url2, secret, secret2);
    // The key opens exactly what was saved.
    expect(await openWebhook(TEST_SECRET_KEY, asRow(row))).toEqual({ webhookUrl: url2, webhookSecret: secret2, webhookPreviousSecret: secret });
    const deliveries = await app.request("GET", `/api/v1/feeds/${feed.id}/deliveries`, { key: apiKey });
    expect(deliveries.status, show(deliveries)).toBe(200);
    expect(deliveries.body.endpoint.url).toBe(url2);
  });

  test("deliveries are signed with the sealed secrets and verify with the standardwebhooks package, through a rotation too", async () => {
    const { app, apiKey } = await setup({ config: { webhookRotationWindowMs: 60_000 } });
    const receiver = await startReceiver();
    startDeliverer(app);
    const created = await app.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "signed", minScore: 0, webhookUrl: receiver.url } });
    const feed = created.body.feed;
    const secret = feed.webhookSecret as string;
    expectSealed(await stored(app, feed.id), receiver.url, secret);
    await receiver.waitFor(1);
    const hook = receiver.received[0]!;
    expect(hook.json.type).toBe("webhook.test");
    expect(new Webhook(secret).verify(hook.body, hook.headers)).toMatchObject({ type: "webhook.test", feedId: feed.id });

    const rotated = await app.request("POST", `/api/v1/feeds/${feed.id}/webhook/rotate-secret`, { key: apiKey });
    const secret2 = rotated.body.feed.webhookSecret as string;
    expectSealed(await stored(app, feed.id), receiver.url, secret, secret2);
    app.clock.advance(1000);
    await ingestDocuments(app.deps, [makeDoc({ title: "Sealed and signed" })], { source: "test" });
    await receiver.waitFor(2);
    const matched = receiver.received[1]!;
    expect(matched.json.type).toBe("job.matched");
    // Both secrets sign during the rotation window, each verifies on its own.
    for (const s of [secret, secret2]) expect(new Webhook(s).verify(matched.body, matched.headers)).toMatchObject({ type: "job.matched" });
    expect(() => new Webhook(generateSecret()).verify(matched.body, matched.headers)).toThrow();
  });

  test("the sealing step seals clear rows exactly once, leaves sealed values alone, and never overwrites a write made meanwhile", async () => {
    const { app, apiKey, accountId } = await setup();
    // Feed ids are UUIDs (a route refuses anything else); named here for the reader.
    const ids: Record<string, string> = Object.fromEntries(["f-clear", "f-mixed", "f-sealed", "f-none", "f-raced"].map((n) => [n, crypto.randomUUID()]));
    const insert = async (name: string, url: string | null, secret: string | null, previous: string | null) => {
      const sql = `INSERT INTO feeds (id, account_id, title, min_score, includes, excludes, excluded_countries, included_countries, job_types, webhook_url, webhook_secret, webhook_previous_secret, webhook_previous_until_ts, created_at_ts, updated_at_ts)
        VALUES (?, ?, ?, 0, '[]', '[]', '[]', '[]', '[]', ?, ?, ?, ?, 0, 0)`;
      await rawExec(app.deps.db, sql, sql, [ids[name], accountId, `feed ${name}`, url, secret, previous, previous === null ? null : app.clock.now() + 60_000]);
    };
    // Rows as an earlier version wrote them: all clear; one half sealed (a crash midway cannot leave that, a
    // key set later can); one sealed already; one without a webhook.
    const clear = { url: "https://hooks.example.com/old/1111", secret: generateSecret(), previous: generateSecret() };
    const mixed = { url: "https://hooks.example.com/old/2222", secret: generateSecret() };
    const sealedUrl = await sealValue(TEST_SECRET_KEY, "webhookUrl", "https://hooks.example.com/old/3333");
    const sealedSecret = await sealValue(TEST_SECRET_KEY, "webhookSecret", generateSecret());
    const mixedUrl = await sealValue(TEST_SECRET_KEY, "webhookUrl", mixed.url);
    await insert("f-clear", clear.url, clear.secret, clear.previous);
    await insert("f-mixed", mixedUrl, mixed.secret, null);
    await insert("f-sealed", sealedUrl, sealedSecret, null);
    await insert("f-none", null, null, null);
    // Clear rows read as they are until sealed: the API shows them.
    const before = await app.request("GET", `/api/v1/feeds/${ids["f-clear"]}`, { key: apiKey });
    expect(before.body.feed.webhookUrl, show(before)).toBe(clear.url);

    const deps = { db: app.deps.db, secretKey: TEST_SECRET_KEY, log: app.log };
    expect(await sealClearWebhooks(deps)).toBe(2);
    const first = Object.fromEntries(
      await Promise.all(["f-clear", "f-mixed", "f-sealed", "f-none"].map(async (name) => [name, await stored(app, ids[name]!)])),
    );
    expectSealed(first["f-clear"], clear.url, clear.secret, clear.previous);
    expectSealed(first["f-mixed"], mixed.url, mixed.secret);
    // What was sealed already is left byte for byte.
    expect(first["f-mixed"].webhook_url).toBe(mixedUrl);
    expect(first["f-sealed"]).toMatchObject({ webhook_url: sealedUrl, webhook_secret: sealedSecret });
    expect(first["f-none"]).toMatchObject({ webhook_url: null, webhook_secret: null, webhook_previous_secret: null });
    expect(await openWebhook(TEST_SECRET_KEY, asRow(first["f-clear"]))).toEqual({
      webhookUrl: clear.url,
      webhookSecret: clear.secret,
      webhookPreviousSecret: clear.previous,
    });
    expect((await openWebhook(TEST_SECRET_KEY, asRow(first["f-mixed"]))).webhookSecret).toBe(mixed.secret);

    // Run again (the next start, or a second node): nothing is clear, nothing changes.
    expect(await sealClearWebhooks(deps)).toBe(0);
    for (const name of Object.keys(first)) expect(await stored(app, ids[name]!)).toEqual(first[name]);
    expect(app.log.records().filter((r) => r.msg === "sealed the feed webhook URLs and secrets stored in clear")).toHaveLength(1);
    const after = await app.request("GET", `/api/v1/feeds/${ids["f-clear"]}`, { key: apiKey });
    expect(after.body.feed).toMatchObject({ webhookUrl: clear.url, webhookSecret: `whsec_…${clear.secret.slice(-4)}` });

    // A save between the step's read and its write wins: the stale replacement changes nothing.
    await insert("f-raced", "https://hooks.example.com/old/4444", generateSecret(), null);
    const [read] = await feedsRepo.feedsWithClearWebhooks(app.deps.db);
    await rawExec(app.deps.db, "u", "UPDATE feeds SET webhook_url = ? WHERE id = ?", ["https://hooks.example.com/new/5555", ids["f-raced"]]);
    const stale = { webhookUrl: read!.webhookUrl, webhookSecret: read!.webhookSecret, webhookPreviousSecret: read!.webhookPreviousSecret };
    expect(
      await feedsRepo.replaceWebhookValues(app.deps.db, ids["f-raced"]!, stale, { webhookUrl: "x", webhookSecret: "y", webhookPreviousSecret: null }),
    ).toBe(false);
    expect((await stored(app, ids["f-raced"]!)).webhook_url).toBe("https://hooks.example.com/new/5555");
  });

  test("without a secret key the values are stored in clear and keep working; the step warns naming the setting, and seals them once a key is set", async () => {
    const { app, apiKey } = await setup({ secretKey: null });
    const receiver = await startReceiver();
    const created = await app.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "no key", minScore: 0, webhookUrl: receiver.url } });
    expect(created.status, show(created)).toBe(201);
    const secret = created.body.feed.webhookSecret as string;
    expect(await stored(app, created.body.feed.id)).toMatchObject({ webhook_url: receiver.url, webhook_secret: secret });
    startDeliverer(app);
    await receiver.waitFor(1);
    expect(new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers)).toMatchObject({ type: "webhook.test" });

    expect(await sealClearWebhooks({ db: app.deps.db, secretKey: null, log: app.log })).toBe(0);
    const warning = app.log.records().find((r) => String(r.msg).includes("JOBPILOT_SECRET_KEY is not set: feed webhook URLs"));
    expect(warning, app.log.lines.join("\n")).toMatchObject({ level: "warn", feeds: 1 });
    expect((await stored(app, created.body.feed.id)).webhook_url).toBe(receiver.url);

    expect(await sealClearWebhooks({ db: app.deps.db, secretKey: TEST_SECRET_KEY, log: app.log })).toBe(1);
    expectSealed(await stored(app, created.body.feed.id), receiver.url, secret);
  });

  test("a key that cannot open them: deliveries fail saying so, the feed still reads (without them), and saving the URL again gives a new secret that signs", async () => {
    const { app, apiKey } = await setup();
    const receiver = await startReceiver();
    const created = await app.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "lost key", minScore: 0, webhookUrl: receiver.url } });
    const feedId = created.body.feed.id as string;
    // As if restarted with another JOBPILOT_SECRET_KEY (or a lost key file): the deliverer starts with it.
    (app.deps as { secretKey: string | null }).secretKey = OTHER_KEY;
    const deliverer = startDeliverer(app);
    await deliverer.idle();
    expect(receiver.received).toHaveLength(0);
    const failed = await app.request("GET", `/api/v1/feeds/${feedId}/deliveries`, { key: apiKey });
    expect(failed.status, show(failed)).toBe(200);
    expect(failed.body.endpoint.url).toBeNull();
    expect(failed.body.deliveries[0]).toMatchObject({ type: "webhook.test", status: "failed" });
    expect(failed.body.deliveries[0].attempts[0].error).toContain("the secret key is not the one they were saved with");
    expect(failed.body.deliveries[0].attempts[0].error).not.toContain(receiver.url);

    const got = await app.request("GET", `/api/v1/feeds/${feedId}`, { key: apiKey });
    expect(got.status, show(got)).toBe(200);
    expect(got.body.feed).not.toHaveProperty("webhookUrl");
    expect(got.body.feed).not.toHaveProperty("webhookSecret");
    expect(got.body.feed.webhookLastError).toContain("cannot be decrypted");

    const resaved = await app.request("PATCH", `/api/v1/feeds/${feedId}`, { key: apiKey, json: { webhookUrl: receiver.url } });
    expect(resaved.status, show(resaved)).toBe(200);
    const secret = resaved.body.feed.webhookSecret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    await receiver.waitFor(1);
    expect(new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers)).toMatchObject({ type: "webhook.test" });
    expect(await openWebhook(OTHER_KEY, asRow(await stored(app, feedId)))).toEqual({
      webhookUrl: receiver.url,
      webhookSecret: secret,
      webhookPreviousSecret: null,
    });
  });
});
