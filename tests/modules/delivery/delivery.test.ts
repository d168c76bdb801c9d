import { afterEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDeliverer } from "../../../src/cli/serve";
import { rawMany } from "../../../src/db/query";
import { verify } from "../../../src/lib/standard-webhooks";
import { authenticate } from "../../../src/modules/accounts/service";
import * as feeds from "../../../src/modules/feeds/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

let t: TestApp;
let receiver: WebhookReceiver;
let deliverer: WebhookDeliverer | undefined;
afterEach(async () => {
  await deliverer?.stop();
  deliverer = undefined;
  await receiver?.close();
  await t?.close();
});

async function setup(config: Record<string, unknown> = {}, opts: { dbPath?: string; dns?: Record<string, string[]> } = {}) {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ config: { webhookAllowPrivate: true, webhookTimeoutMs: 300, ...config }, dbPath: opts.dbPath, dns: opts.dns });
  const { apiKey } = await t.account();
  const auth = (await authenticate(t.deps, apiKey))!;
  deliverer = createDeliverer(t.deps);
  t.deps.work.subscribe(() => deliverer?.notify());
  deliverer.start();
  return { apiKey, auth };
}

/** Plain SQL on the app's database, either dialect; PostgreSQL's bigint (and count) strings come back as numbers. */
const rows = async (sql: string, ...args: unknown[]): Promise<any[]> =>
  (await rawMany<Record<string, unknown>>(t.deps.db, sql, sql, args)).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v])),
  );
/** Moves the test clock in steps so due retries run, until `n` requests arrived or the clock moved `maxMs`. */
async function runClock(n: number, stepMs: number, maxMs: number) {
  let moved = 0;
  while (receiver.received.length < n && moved < maxMs) {
    await deliverer!.idle();
    t.clock.advance(stepMs);
    moved += stepMs;
    deliverer!.notify();
    await Bun.sleep(1);
  }
  await deliverer!.idle();
}

describe("webhook delivery", () => {
  test("saving a URL sends a signed test event; a match sends job.matched; both verify with the standardwebhooks package", async () => {
    const { auth, apiKey } = await setup();
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    expect(feed.webhookSecret).toMatch(/^whsec_/);
    await receiver.waitFor(1);
    expect(receiver.received[0]!.json).toMatchObject({ type: "webhook.test", feedId: feed.id, jobListenerId: feed.id });
    // Both kinds carry the archive's client score of their job, reduced to {score, label}.
    const sampleScore = await t.request("GET", `/api/v1/jobs/${receiver.received[0]!.json.ciphertext}`, { key: apiKey });
    expect(receiver.received[0]!.json.client.clientScore).toEqual({ score: sampleScore.body.clientScore.score, label: sampleScore.body.clientScore.label });
    t.clock.advance(1000);
    const doc = makeDoc({ title: "Go service", questions: ["Have you used Go?"], companyId: "1777000000000000001" });
    await ingestDocuments(t.deps, [doc], { source: "test" });
    await receiver.waitFor(2);
    const hook = receiver.received[1]!;
    const cipher = (doc.jobTile as any).job.ciphertext;
    expect(hook.json).toMatchObject({
      type: "job.matched",
      jobId: cipher,
      ciphertext: cipher,
      feedId: feed.id,
      jobListenerId: feed.id,
      matchingScore: 5,
      companyId: "1777000000000000001",
      client: { company: { companyId: "1777000000000000001" } },
      screeningQuestions: [{ position: 0, question: "Have you used Go?" }],
    });
    const jobScore = (await t.request("GET", `/api/v1/jobs/${cipher}`, { key: apiKey })).body.clientScore;
    expect(hook.json.client.clientScore).toEqual({ score: jobScore.score, label: jobScore.label });
    expect(hook.headers["webhook-id"]).toBe(hook.json.id);
    // our verifier and the reference implementation both accept it
    const secret = feed.webhookSecret!;
    expect(verify(secret, hook.headers, hook.body, { nowS: t.clock.now() / 1000 }).msgId).toBe(hook.json.id);
    expect(() => new Webhook(secret).verify(hook.body, hook.headers)).toThrow(/timestamp/i); // the test clock is in January: too old for a real-time check
    const real = { ...hook.headers };
    expect(real["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    await deliverer!.idle();
    const status = await rows("SELECT type, status, attempts FROM events ORDER BY seq");
    expect(status).toEqual([
      { type: "webhook.test", status: "delivered", attempts: 1 },
      { type: "job.matched", status: "delivered", attempts: 1 },
    ]);
  });

  test("the default policy refuses loopback and private URLs at save time", async () => {
    const { auth } = await setup({ webhookAllowPrivate: false });
    for (const url of [receiver.url, "http://10.0.0.5/hook", "http://[::1]:8080/x", "http://2130706433/"]) {
      await expect(feeds.createFeed(t.deps, auth, { title: "x", minScore: 0, webhookUrl: url })).rejects.toMatchObject({ status: 400 });
    }
    const res = await t.request("POST", "/api/v1/feeds", { key: (await t.account()).apiKey, json: { title: "x", minScore: 0, webhookUrl: receiver.url } });
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toMatch(/^webhookUrl is not allowed: .*loopback/);
    // People with a receiver on their LAN learn which setting allows it.
    expect(res.body.details[0]).toContain("JOBPILOT_WEBHOOK_ALLOW_PRIVATE=true");
    expect(res.body.details[0]).toContain("JOBPILOT_WEBHOOK_ALLOWLIST");
    // A refusal that no setting lifts does not point at one.
    const ftp = await t.request("POST", "/api/v1/feeds", {
      key: (await t.account()).apiKey,
      json: { title: "x", minScore: 0, webhookUrl: "ftp://example.com/x" },
    });
    expect(ftp.body.details[0], show(ftp)).not.toContain("JOBPILOT_WEBHOOK");
    expect(receiver.received).toHaveLength(0);
  });

  test("a host that now resolves to a blocked address fails at once: one attempt, no retries, the reason on the delivery and the feed", async () => {
    // Public when the URL is saved, loopback when it is delivered (a DNS change, or a rebinding attempt).
    const dns: Record<string, string[]> = { "hooks.example": ["93.184.215.14"] };
    const { auth, apiKey } = await setup({ webhookAllowPrivate: false }, { dns });
    await deliverer!.stop();
    const port = new URL(receiver.url).port;
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: `http://hooks.example:${port}/hook` });
    dns["hooks.example"] = ["127.0.0.1"];
    deliverer = createDeliverer(t.deps);
    deliverer.start();
    await runClock(2, 5_000, 20 * 60_000);
    expect(receiver.received).toHaveLength(0);
    expect(await rows("SELECT status, attempts, next_attempt_at_ts AS next FROM events")).toEqual([{ status: "failed", attempts: 1, next: null }]);
    const list = await t.request("GET", `/api/v1/feeds/${feed.id}/deliveries`, { key: apiKey });
    expect(list.status, show(list)).toBe(200);
    const [delivery] = list.body.deliveries;
    expect(delivery).toMatchObject({ status: "failed", nextAttemptAt: null });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ statusCode: null });
    expect(delivery.attempts[0].error).toMatch(/^blocked: hooks\.example resolves to 127\.0\.0\.1, which is not a public address \(loopback\)/);
    expect(delivery.attempts[0].error).toContain("JOBPILOT_WEBHOOK_ALLOW_PRIVATE=true");
    expect(delivery.lastError).toBe(delivery.attempts[0].error);
    const got = await t.request("GET", `/api/v1/feeds/${feed.id}`, { key: apiKey });
    expect(got.body.feed.webhookLastError, show(got)).toBe(delivery.lastError);
  });

  test("an always-failing receiver sees exactly 4 attempts at 0, +30 s, +2 min 30 s, +12 min 30 s, with one webhook-id", async () => {
    const { auth } = await setup();
    receiver.setFallback({ status: 500 });
    const t0 = t.clock.now();
    await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await runClock(10, 5_000, 20 * 60_000);
    expect(receiver.received).toHaveLength(4);
    const ids = new Set(receiver.received.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    const attempts = await rows("SELECT started_at_ts AS at, status_code AS code FROM webhook_attempts ORDER BY id");
    const offsets = attempts.map((a) => a.at - t0);
    // each retry is due 30 s, 2 min and 10 min after the previous failure (the clock moves in 5 s steps)
    expect(offsets[0]).toBe(0);
    expect(offsets[1]! - offsets[0]!).toBeGreaterThanOrEqual(30_000);
    expect(offsets[1]! - offsets[0]!).toBeLessThan(35_000);
    expect(offsets[2]! - offsets[1]!).toBeGreaterThanOrEqual(120_000);
    expect(offsets[2]! - offsets[1]!).toBeLessThan(125_000);
    expect(offsets[3]! - offsets[2]!).toBeGreaterThanOrEqual(600_000);
    expect(offsets[3]! - offsets[2]!).toBeLessThan(605_000);
    expect(await rows("SELECT status, attempts FROM events")).toEqual([{ status: "failed", attempts: 4 }]);
  });

  test("success on the 3rd attempt stops the retries; Retry-After is honoured within [delay, 2×delay]", async () => {
    const { auth } = await setup({ webhookRetrySchedule: "10s,20s,30s" });
    receiver.enqueue({ status: 503, headers: { "retry-after": "15" } }, { status: 429, headers: { "retry-after": "3600" } });
    const t0 = t.clock.now();
    await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await runClock(3, 1_000, 120_000);
    await runClock(4, 1_000, 60_000);
    expect(receiver.received).toHaveLength(3);
    const at = (await rows("SELECT started_at_ts AS at FROM webhook_attempts ORDER BY id")).map((r) => r.at - t0);
    expect(at[1]).toBeGreaterThanOrEqual(15_000); // asked 15 s, between 10 and 20: honoured
    expect(at[1]).toBeLessThan(17_000);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(40_000); // asked an hour: capped at 2 × 20 s
    expect(at[2]! - at[1]!).toBeLessThan(42_000);
    expect(await rows("SELECT status FROM events")).toEqual([{ status: "delivered" }]);
  });

  test("a hang past the timeout and a redirect are failures; the redirect target is never contacted", async () => {
    const { auth } = await setup();
    const target = await startWebhookReceiver("/target");
    try {
      receiver.enqueue({ status: 200, delayMs: 800 }, { status: 302, redirectTo: target.url });
      await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
      await runClock(2, 5_000, 60_000);
      const attempts = await rows("SELECT status_code AS code, error FROM webhook_attempts ORDER BY id");
      expect(attempts[0]).toEqual({ code: null, error: "no answer within 300 ms" });
      expect(attempts[1]).toEqual({ code: 302, error: "HTTP 302 (redirects are not followed)" });
      expect(target.received).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  test("per feed, events arrive in match order (100 matches)", async () => {
    const { auth } = await setup();
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1);
    t.clock.advance(1000);
    const docs = Array.from({ length: 100 }, (_, i) => makeDoc({ title: `Job ${i}` }));
    for (const d of docs) await ingestDocuments(t.deps, [d], { source: "test" });
    await receiver.waitFor(101);
    const titles = receiver.received.slice(1).map((r) => r.json.title);
    expect(titles).toEqual(docs.map((d) => d.title));
    expect(new Set(receiver.received.map((r) => r.json.feedId))).toEqual(new Set([feed.id]));
  });

  test("a failing event's retries do not hold back the feed's next events", async () => {
    const { auth } = await setup();
    receiver.enqueue({ status: 200 }, { status: 500 });
    await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1);
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc({ title: "fails first" })], { source: "test" });
    await receiver.waitFor(2);
    await ingestDocuments(t.deps, [makeDoc({ title: "next one" })], { source: "test" });
    await receiver.waitFor(3);
    await deliverer!.idle(); // the receiver has it; let the deliverer record it
    expect(receiver.received.map((r) => r.json.title).slice(1)).toEqual(["fails first", "next one"]);
    expect((await rows("SELECT status FROM events WHERE type = 'job.matched' ORDER BY seq")).map((r) => r.status)).toEqual(["retrying", "delivered"]);
  });

  test("de-duplication: the same job and feed notify at most once in 24 h", async () => {
    const { auth } = await setup();
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1);
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    await receiver.waitFor(2);
    await deliverer!.idle();
    const first = (await rows("SELECT * FROM events WHERE type = 'job.matched'"))[0];
    expect(first.delivered_at_ts).toBeGreaterThan(0);
    // A second event for the same (jobId, jobListenerId), as a re-match would write it.
    const again = (id: string, at: number) =>
      rows(
        "INSERT INTO events (id, type, account_id, feed_id, feed_job_id, job_ciphertext, created_at_ts, status, next_attempt_at_ts) VALUES (?, 'job.matched', ?, ?, ?, ?, ?, 'pending', ?)",
        id,
        first.account_id,
        feed.id,
        first.feed_job_id,
        first.job_ciphertext,
        at,
        at,
      );
    t.clock.set(first.delivered_at_ts + 24 * 3_600_000 - 1000);
    await again("evt_again_1", t.clock.now());
    deliverer!.notify();
    await deliverer!.idle();
    expect(await rows("SELECT status FROM events WHERE id = 'evt_again_1'")).toEqual([{ status: "suppressed" }]);
    t.clock.set(first.delivered_at_ts + 24 * 3_600_000 + 1000);
    await again("evt_again_2", t.clock.now());
    deliverer!.notify();
    await receiver.waitFor(3);
    expect(receiver.received[2]!.headers["webhook-id"]).toBe("evt_again_2");
  });

  test("muted feeds send nothing; a deleted feed's pending events are dropped", async () => {
    const { auth } = await setup();
    receiver.setFallback({ status: 500 });
    const muted = await feeds.createFeed(t.deps, auth, { title: "muted", minScore: 0, webhookUrl: receiver.url, notificationsMuted: true });
    const doomed = await feeds.createFeed(t.deps, auth, { title: "doomed", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1); // the doomed feed's test event (then retrying); the muted feed gets none
    await deliverer!.stop(); // hold deliveries while the match is written and the feed deleted
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    expect((await rows("SELECT f.title FROM events e JOIN feeds f ON f.id = e.feed_id WHERE e.type = 'job.matched'")).map((r) => r.title)).toEqual(["doomed"]);
    await feeds.deleteFeed(t.deps, auth, doomed.id);
    expect(await rows("SELECT count(*) AS n FROM events WHERE feed_id = ?", doomed.id)).toEqual([{ n: 0 }]);
    deliverer = createDeliverer(t.deps);
    deliverer.start();
    const before = receiver.received.length;
    await runClock(before + 5, 60_000, 30 * 60_000);
    expect(receiver.received.filter((r) => r.json.feedId === doomed.id && r.json.type === "job.matched")).toHaveLength(0);
    expect(receiver.received.filter((r) => r.json.feedId === muted.id)).toHaveLength(0);
  });

  test("test webhook: 409 on a muted feed with nothing sent; otherwise 202 and a sample job that the archive API resolves", async () => {
    const { auth, apiKey } = await setup();
    const muted = await feeds.createFeed(t.deps, auth, { title: "muted", minScore: 0, webhookUrl: receiver.url, notificationsMuted: true });
    const refused = await t.request("POST", `/api/v1/feeds/${muted.id}/webhook/test`, { key: apiKey });
    expect(refused.status, show(refused)).toBe(409);
    expect(refused.body.error).toMatch(/muted.*notificationsMuted/i);
    await deliverer!.idle();
    expect(receiver.received).toHaveLength(0);
    expect(await rows("SELECT count(*) AS n FROM events WHERE feed_id = ?", muted.id)).toEqual([{ n: 0 }]);

    // Muting after a test was queued still sends nothing.
    await deliverer!.stop();
    const later = await feeds.createFeed(t.deps, auth, { title: "muted later", minScore: 0, webhookUrl: receiver.url });
    await feeds.patchFeed(t.deps, auth, later.id, { notificationsMuted: true });
    deliverer = createDeliverer(t.deps);
    deliverer.start();
    await deliverer.idle();
    expect(receiver.received).toHaveLength(0);
    expect(await rows("SELECT status, last_error AS error FROM events WHERE feed_id = ?", later.id)).toEqual([
      { status: "skipped", error: "Notifications are muted on this feed" },
    ]);
    const [skipped] = await rows("SELECT id FROM events WHERE feed_id = ?", later.id);
    const resend = await t.request("POST", `/api/v1/feeds/${later.id}/deliveries/${skipped.id}/retry`, { key: apiKey });
    expect(resend.status, show(resend)).toBe(409);
    expect(resend.body.error).toBe(refused.body.error);

    const plain = await feeds.createFeed(t.deps, auth, { title: "plain", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1);
    const sent = await t.request("POST", `/api/v1/feeds/${plain.id}/webhook/test`, { key: apiKey });
    expect(sent.status, show(sent)).toBe(202);
    expect(sent.body).toEqual({ queued: true, eventId: expect.stringMatching(/^evt_/) });
    await receiver.waitFor(2);
    const hook = receiver.received[1]!.json;
    expect(hook).toMatchObject({ type: "webhook.test", id: sent.body.eventId, feedId: plain.id });
    // The sample job is archived: a receiver that looks it up, as it would a matched job, finds it.
    const other = (await t.account({ name: "other" })).apiKey;
    for (const key of [apiKey, other]) {
      const job = await t.request("GET", `/api/v1/jobs/${encodeURIComponent(hook.jobId)}`, { key });
      expect(job.status, show(job)).toBe(200);
      expect(job.body.jobTile.job.ciphertext).toBe(hook.jobId);
      expect(job.body.title).toBe(hook.title);
    }
    expect(hook.url).toStartWith("https://marketplace.example/");
    // ... but it never enters a feed, though every feed here matches everything.
    expect(await rows("SELECT count(*) AS n FROM feed_jobs")).toEqual([{ n: 0 }]);

    const noUrl = await feeds.createFeed(t.deps, auth, { title: "no url", minScore: 0 });
    expect((await t.request("POST", `/api/v1/feeds/${noUrl.id}/webhook/test`, { key: apiKey })).status).toBe(400);
    expect((await t.request("POST", `/api/v1/feeds/${plain.id}/webhook/test`, { key: other })).status).toBe(404);
  });

  test("an endpoint failing for 24 h is disabled with a reason; saving the URL again re-enables it", async () => {
    const { auth, apiKey } = await setup({ webhookRetrySchedule: "1s" });
    receiver.setFallback({ status: 500 });
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await runClock(2, 1_000, 10_000); // the test event fails for good: failing since now
    t.clock.advance(25 * 3_600_000);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    await runClock(4, 1_000, 10_000);
    const got = (await t.request("GET", `/api/v1/feeds/${feed.id}`, { key: apiKey })).body.feed;
    expect(got.webhookDisabledReason).toContain("every delivery failed for 24 hours");
    const list = await t.request("GET", `/api/v1/feeds/${feed.id}/deliveries`, { key: apiKey });
    expect(list.body.endpoint.disabledReason).toContain("24 hours");
    // while disabled, new matches are not sent
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    await deliverer!.idle();
    const sent = receiver.received.length;
    receiver.setFallback({ status: 200 });
    const resaved = await t.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: apiKey, json: { webhookUrl: receiver.url } });
    expect(resaved.status, show(resaved)).toBe(200);
    expect(resaved.body.feed).not.toHaveProperty("webhookDisabledReason");
    await receiver.waitFor(sent + 1);
    expect(receiver.received.at(-1)!.json.type).toBe("webhook.test");
  });

  test("rotating the secret: both signatures for the rotation window, then only the new one", async () => {
    const { auth, apiKey } = await setup({ webhookRotationWindowMs: 60_000 });
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1);
    const rotated = await t.request("POST", `/api/v1/feeds/${feed.id}/webhook/rotate-secret`, { key: apiKey });
    expect(rotated.status, show(rotated)).toBe(200);
    const fresh = rotated.body.feed.webhookSecret as string;
    expect(fresh).not.toBe(feed.webhookSecret);
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    await receiver.waitFor(2);
    const during = receiver.received[1]!;
    expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const s of [fresh, feed.webhookSecret!]) expect(() => verify(s, during.headers, during.body, { nowS: t.clock.now() / 1000 })).not.toThrow();
    t.clock.advance(120_000);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    await receiver.waitFor(3);
    const after = receiver.received[2]!;
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(() => verify(feed.webhookSecret!, after.headers, after.body, { nowS: t.clock.now() / 1000 })).toThrow();
  });

  test("deliveries API: history with attempts, filter by status, resend a failed event now", async () => {
    const { auth, apiKey } = await setup({ webhookRetrySchedule: "1s" });
    receiver.enqueue({ status: 500 }, { status: 500 });
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await runClock(2, 1_000, 10_000);
    const failed = await t.request("GET", `/api/v1/feeds/${feed.id}/deliveries?status=failed`, { key: apiKey });
    expect(failed.status, show(failed)).toBe(200);
    expect(failed.body.total).toBe(1);
    const d = failed.body.deliveries[0];
    expect(d).toMatchObject({ type: "webhook.test", status: "failed" });
    expect(d.attempts.map((a: any) => a.statusCode)).toEqual([500, 500]);
    const retry = await t.request("POST", `/api/v1/feeds/${feed.id}/deliveries/${d.eventId}/retry`, { key: apiKey });
    expect(retry.status, show(retry)).toBe(202);
    await receiver.waitFor(3);
    await deliverer!.idle();
    const after = await t.request("GET", `/api/v1/feeds/${feed.id}/deliveries`, { key: apiKey });
    expect(after.body.deliveries[0]).toMatchObject({ status: "delivered" });
    expect(after.body.deliveries[0].attempts).toHaveLength(3);
    expect((await t.request("POST", `/api/v1/feeds/${feed.id}/deliveries/${d.eventId}/retry`, { key: apiKey })).status).toBe(409);
    const other = (await t.account({ name: "other" })).apiKey;
    expect((await t.request("GET", `/api/v1/feeds/${feed.id}/deliveries`, { key: other })).status).toBe(404);
  });

  test("an event committed before a crash is delivered after a restart", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "jp-hooks-")), "hooks.db");
    const { auth } = await setup({}, { dbPath });
    await deliverer!.stop(); // the process "dies" before delivering anything
    deliverer = undefined;
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc({ title: "survives" })], { source: "test" });
    const clock = t.clock;
    await t.close();
    t = await createTestApp({ config: { webhookAllowPrivate: true }, dbPath, clock });
    deliverer = createDeliverer(t.deps);
    deliverer.start();
    await receiver.waitFor(2);
    expect(receiver.received.map((r) => r.json.type)).toEqual(["webhook.test", "job.matched"]);
    expect(receiver.received[1]!.json.title).toBe("survives");
    expect(receiver.received[1]!.json.feedId).toBe(feed.id);
  });
});
