import { afterEach, describe, expect, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import { rawMany } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import {
  type FakeNtfy,
  type FakeSmtp,
  type FakeTelegram,
  type FakeWebhookPlatform,
  startFakeDiscord,
  startFakeNtfy,
  startFakeSlack,
  startFakeSmtp,
  startFakeTelegram,
} from "../../helpers/channel-fakes";
import { makeDoc } from "../../helpers/factories";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

// Matches reaching notification channels through the outbox: one event per target, paced per platform,
// retried when the platform says when, de-duplicated per target; and the /test route. The platforms are
// local fakes; the clock is the test's, moved by hand.

const BOT_TOKEN = "123456789:AAFsecretSECRETsecretSECRETsecret0042";
const CHAT_ID = 4242;

let t: TestApp;
let deliverer: WebhookDeliverer | undefined;
let fakes: { telegram: FakeTelegram; slack: FakeWebhookPlatform; discord: FakeWebhookPlatform; ntfy: FakeNtfy; smtp: FakeSmtp; receiver: WebhookReceiver };

afterEach(async () => {
  await deliverer?.stop();
  deliverer = undefined;
  await Promise.all(Object.values(fakes ?? {}).map((f) => f.close()));
  await t?.close();
});

async function setup(config: Record<string, unknown> = {}) {
  const [telegram, slack, discord, ntfy, smtp, receiver] = await Promise.all([
    startFakeTelegram(),
    startFakeSlack(),
    startFakeDiscord(),
    startFakeNtfy(),
    startFakeSmtp(),
    startWebhookReceiver(),
  ]);
  fakes = { telegram, slack, discord, ntfy, smtp, receiver };
  t = await createTestApp({
    config: {
      webhookAllowPrivate: true, // ntfy, SMTP and the webhook receiver are on 127.0.0.1
      webhookTimeoutMs: 2_000,
      telegramApiUrl: telegram.url,
      slackWebhookOrigin: slack.origin,
      discordWebhookOrigin: discord.origin,
      publicUrl: "https://jobs.example.com",
      ...config,
    },
  });
  const { apiKey } = await t.account();
  deliverer = createDeliverer(t.deps);
  t.deps.work.subscribe(() => deliverer?.notify());
  deliverer.start();
  return { key: apiKey };
}

const CONFIGS = () => ({
  telegram: { botToken: BOT_TOKEN, chatId: CHAT_ID },
  slack: { webhookUrl: fakes.slack.webhookUrl },
  discord: { webhookUrl: fakes.discord.webhookUrl },
  ntfy: { serverUrl: fakes.ntfy.url, topic: "jobpilot-test" },
  email: { smtpUrl: fakes.smtp.smtpUrl("alerts@example.com", "pw"), from: "jobpilot <alerts@example.com>", to: "me@example.com" },
});
type Kind = keyof ReturnType<typeof CONFIGS>;

async function addChannel(key: string, type: Kind, name: string = type): Promise<string> {
  const res = await t.request("POST", "/api/v1/channels", { key, json: { type, name, config: CONFIGS()[type] } });
  expect(res.status, show(res)).toBe(201);
  return res.body.channel.id;
}

async function addFeed(key: string, json: Record<string, unknown>): Promise<string> {
  const res = await t.request("POST", "/api/v1/feeds", { key, json: { title: "alerts", minScore: 0, ...json } });
  expect(res.status, show(res)).toBe(201);
  return res.body.feed.id;
}

const rows = async (sql: string, ...args: unknown[]): Promise<any[]> =>
  (await rawMany<Record<string, unknown>>(t.deps.db, sql, sql, args)).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v])),
  );

const cipherOf = (doc: Record<string, unknown>) => (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
const sent = () => fakes.telegram.callsTo("sendMessage");

describe("channel delivery", () => {
  test("a match reaches the webhook and every channel of the feed, each as its own event in the deliveries", async () => {
    const { key } = await setup();
    const ids = {} as Record<Kind, string>;
    for (const kind of Object.keys(CONFIGS()) as Kind[]) ids[kind] = await addChannel(key, kind, `My ${kind}`);
    const other = await addChannel(key, "slack", "not on the feed");
    const feedId = await addFeed(key, { webhookUrl: fakes.receiver.url, channelIds: Object.values(ids) });
    await fakes.receiver.waitFor(1); // the webhook's test event: to the webhook only
    await deliverer!.idle();
    t.clock.advance(1000);
    const doc = makeDoc({ title: "Rust <b>backend</b> @everyone", skills: ["Rust", "PostgreSQL"] });
    await ingestDocuments(t.deps, [doc], { source: "test" });
    await deliverer!.idle();

    const cipher = cipherOf(doc);
    const dashboardLink = `https://jobs.example.com/dashboard/jobs/${encodeURIComponent(cipher)}`;
    expect(fakes.receiver.received.map((r) => r.json.type)).toEqual(["webhook.test", "job.matched"]);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.token).toBe(BOT_TOKEN);
    expect(sent()[0]!.body).toMatchObject({ chat_id: String(CHAT_ID), parse_mode: "HTML" });
    expect(sent()[0]!.body.text).toContain("Rust &lt;b&gt;backend&lt;/b&gt;");
    expect(sent()[0]!.body.text).toContain(dashboardLink);
    expect(fakes.slack.received).toHaveLength(1); // the other Slack channel is not on the feed
    expect(JSON.stringify(fakes.slack.received[0]!.body)).toContain(dashboardLink);
    expect(fakes.discord.received).toHaveLength(1);
    expect(fakes.discord.received[0]!.body.allowed_mentions).toEqual({ parse: [] });
    expect(fakes.ntfy.received).toHaveLength(1);
    expect(fakes.ntfy.received[0]!.body).toMatchObject({ topic: "jobpilot-test" });
    await fakes.smtp.waitFor(1);
    expect(fakes.smtp.messages[0]!).toMatchObject({ to: ["me@example.com"], user: "alerts@example.com" });
    expect(fakes.smtp.messages[0]!.subject).toContain("Rust <b>backend</b>");

    const deliveries = await t.request("GET", `/api/v1/feeds/${feedId}/deliveries`, { key });
    expect(deliveries.status, show(deliveries)).toBe(200);
    // Newest first: the channels in the feed's order, after the webhook, reversed.
    const matched = deliveries.body.deliveries.filter((d: { type: string }) => d.type === "job.matched").reverse();
    expect(matched.map((d: { target: unknown }) => d.target)).toEqual([
      "webhook",
      ...(Object.keys(ids) as Kind[]).map((kind) => ({ channelId: ids[kind], type: kind, name: `My ${kind}` })),
    ]);
    for (const d of matched) expect(d, JSON.stringify(d)).toMatchObject({ status: "delivered", jobId: cipher, attempts: [{ attempt: 1, error: null }] });
    const channels = (await t.request("GET", "/api/v1/channels", { key })).body.channels;
    for (const c of channels) expect(c.lastDeliveryAt === null, c.name).toBe(c.id === other);
  });

  test("de-duplication is per target: a job the webhook delivered still reaches a channel; the channel gets it once in 24 h", async () => {
    const { key } = await setup();
    const feedId = await addFeed(key, { webhookUrl: fakes.receiver.url });
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    await deliverer!.idle();
    const first = (await rows("SELECT * FROM events WHERE type = 'job.matched'"))[0];
    expect(first).toMatchObject({ target: "webhook", status: "delivered" });
    const tg = await addChannel(key, "telegram");
    await t.request("PATCH", `/api/v1/feeds/${feedId}`, { key, json: { channelIds: [tg] } });
    // More events for the same (job, feed), as a re-match would write them.
    const again = (id: string, target: string) =>
      rows(
        "INSERT INTO events (id, type, account_id, feed_id, target, feed_job_id, job_ciphertext, created_at_ts, status, next_attempt_at_ts) VALUES (?, 'job.matched', ?, ?, ?, ?, ?, ?, 'pending', ?)",
        id,
        first.account_id,
        feedId,
        target,
        first.feed_job_id,
        first.job_ciphertext,
        t.clock.now(),
        t.clock.now(),
      );
    t.clock.advance(3_600_000);
    await again("evt_tg_1", tg);
    await again("evt_hook_2", "webhook");
    deliverer!.notify();
    await deliverer!.idle();
    expect(await rows("SELECT id, status FROM events WHERE id IN ('evt_tg_1', 'evt_hook_2') ORDER BY seq")).toEqual([
      { id: "evt_tg_1", status: "delivered" },
      { id: "evt_hook_2", status: "suppressed" },
    ]);
    t.clock.advance(3_600_000);
    await again("evt_tg_2", tg);
    deliverer!.notify();
    await deliverer!.idle();
    expect(await rows("SELECT status, last_error FROM events WHERE id = 'evt_tg_2'")).toEqual([
      { status: "suppressed", last_error: "This job already notified this channel of this feed within 24 hours" },
    ]);
    expect(sent()).toHaveLength(1);
  });

  for (const kind of ["telegram", "discord", "slack"] as const) {
    test(`${kind}: a 429 is retried after the delay the platform asked for (not the schedule's), and the channel waits meanwhile`, async () => {
      const { key } = await setup();
      const fake = kind === "telegram" ? fakes.telegram : fakes[kind];
      const count = () => (kind === "telegram" ? sent().length : fakes[kind].received.length);
      const tooMany = kind === "telegram" ? fakes.telegram.tooManyRequests(7) : fakes[kind].tooManyRequests(7);
      if (kind === "telegram") fakes.telegram.enqueueFor("sendMessage", tooMany);
      else fake.enqueue(tooMany);
      const channelId = await addChannel(key, kind);
      await addFeed(key, { channelIds: [channelId] });
      t.clock.advance(1000);
      const failedAt = t.clock.now();
      await ingestDocuments(t.deps, [makeDoc({ title: "first" }), makeDoc({ title: "second" })], { source: "test" });
      await deliverer!.idle();
      expect(count()).toBe(1);
      const [head, next] = await rows("SELECT status, attempts, next_attempt_at_ts, last_status_code FROM events WHERE target != 'webhook' ORDER BY seq");
      // JOBPILOT_WEBHOOK_RETRY_SCHEDULE would say 30 s; the platform said 7.
      expect(head).toEqual({ status: "retrying", attempts: 1, next_attempt_at_ts: failedAt + 7_000, last_status_code: 429 });
      expect(next).toMatchObject({ status: "pending", attempts: 0 });
      t.clock.advance(6_900);
      deliverer!.notify();
      await deliverer!.idle();
      expect(count()).toBe(1); // neither the retry nor the next alert went early
      t.clock.advance(100);
      deliverer!.notify();
      await deliverer!.idle();
      for (let i = 0; i < 5 && count() < 3; i++) {
        t.clock.advance(1_000);
        deliverer!.notify();
        await deliverer!.idle();
      }
      expect((await rows("SELECT status, attempts FROM events WHERE target != 'webhook' ORDER BY seq")).map((r) => [r.status, r.attempts])).toEqual([
        ["delivered", 2],
        ["delivered", 1],
      ]);
      // In order: the retried alert first.
      const texts = kind === "telegram" ? sent().map((c) => c.body.text) : fakes[kind].received.map((r) => JSON.stringify(r.body));
      expect(texts[1]).toContain("first");
      expect(texts[2]).toContain("second");
      const channel = (await t.request("GET", `/api/v1/channels/${channelId}`, { key })).body.channel;
      expect(channel).toMatchObject({ lastError: null });
    });
  }

  test("a burst of 200 matches: all delivered to each channel, in match order, never faster than the platform allows; the webhook is not held back", async () => {
    const { key } = await setup();
    const tg = await addChannel(key, "telegram");
    const discord = await addChannel(key, "discord");
    const slack = await addChannel(key, "slack");
    await addFeed(key, { webhookUrl: fakes.receiver.url, channelIds: [tg, discord, slack] });
    await fakes.receiver.waitFor(1);
    await deliverer!.idle();
    t.clock.advance(1000);
    const start = t.clock.now();
    const docs = Array.from({ length: 200 }, (_, i) => makeDoc({ title: `Job ${String(i).padStart(3, "0")}` }));
    await ingestDocuments(t.deps, docs, { source: "test" });
    // The clock moves in steps; whatever a platform receives during a step is stamped with the step's time.
    const stamps: Record<"telegram" | "discord" | "slack", number[]> = { telegram: [], discord: [], slack: [] };
    const counts = () => ({ telegram: sent().length, discord: fakes.discord.received.length, slack: fakes.slack.received.length });
    for (let step = 0; step < 1_000; step++) {
      // Generous: on PostgreSQL a feed's 200 webhook events go one lease round trip at a time.
      await deliverer!.idle(60_000);
      const now = counts();
      for (const k of Object.keys(stamps) as (keyof typeof stamps)[]) while (stamps[k].length < now[k]) stamps[k].push(t.clock.now());
      if (step === 0) expect(fakes.receiver.received.length).toBe(201); // every webhook POST went at once
      if (Object.values(now).every((n) => n >= 200)) break;
      t.clock.advance(500);
      deliverer!.notify();
    }
    const titles = (texts: string[]) => texts.map((text) => /Job \d{3}/.exec(text)?.[0]);
    const expected = docs.map((_, i) => `Job ${String(i).padStart(3, "0")}`);
    expect(titles(sent().map((c) => c.body.text))).toEqual(expected);
    expect(titles(fakes.discord.received.map((r) => r.body.embeds[0].title))).toEqual(expected);
    expect(titles(fakes.slack.received.map((r) => JSON.stringify(r.body)))).toEqual(expected);
    /** The most sends within any window of `perMs`. */
    const most = (times: number[], perMs: number) => Math.max(...times.map((from) => times.filter((x) => x >= from && x < from + perMs).length));
    expect(most(stamps.telegram, 1_000)).toBe(1);
    expect(most(stamps.slack, 1_000)).toBe(1);
    expect(most(stamps.discord, 2_000)).toBeLessThanOrEqual(5);
    expect(most(stamps.discord, 60_000)).toBeLessThanOrEqual(30);
    // And no slower than that: Telegram and Slack one a second, Discord 30 a minute.
    expect(stamps.telegram.at(-1)! - start).toBeLessThanOrEqual(200_000);
    expect(stamps.discord.at(-1)! - start).toBeLessThanOrEqual(7 * 60_000);
    expect(await rows("SELECT status, count(*) AS n FROM events WHERE type = 'job.matched' GROUP BY status")).toEqual([{ status: "delivered", n: 800 }]);
    expect(await rows("SELECT count(*) AS n FROM webhook_attempts WHERE status_code = 429")).toEqual([{ n: 0 }]);
  }, 180_000);

  test("a channel taken off the feed, or deleted, gets nothing more: its events still due are skipped with the reason", async () => {
    const { key } = await setup();
    const tg = await addChannel(key, "telegram");
    const slack = await addChannel(key, "slack");
    const feedId = await addFeed(key, { channelIds: [tg, slack] });
    await deliverer!.stop(); // hold deliveries while the events wait
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    await t.request("PATCH", `/api/v1/feeds/${feedId}`, { key, json: { channelIds: [slack] } });
    await t.request("DELETE", `/api/v1/channels/${slack}`, { key });
    deliverer = createDeliverer(t.deps);
    deliverer.start();
    await deliverer.idle();
    // The feed has no webhook: its channels' two events are the outbox's only rows.
    expect(await rows("SELECT status, last_error FROM events ORDER BY seq")).toEqual([
      { status: "skipped", last_error: "The channel is no longer on this feed" },
      { status: "skipped", last_error: "The channel was deleted" },
    ]);
    expect(sent()).toHaveLength(0);
    expect(fakes.slack.received).toHaveLength(0);
  });

  test("a refusal that retrying cannot mend fails at once, and the channel shows why", async () => {
    const { key } = await setup();
    fakes.telegram.enqueueFor("sendMessage", { status: 400, json: { ok: false, error_code: 400, description: "Bad Request: chat not found" } });
    const tg = await addChannel(key, "telegram");
    await addFeed(key, { channelIds: [tg] });
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    await deliverer!.idle();
    expect(await rows("SELECT status, attempts FROM events WHERE target != 'webhook'")).toEqual([{ status: "failed", attempts: 1 }]);
    const channel = (await t.request("GET", `/api/v1/channels/${tg}`, { key })).body.channel;
    expect(channel.lastError).toContain("chat not found");
    expect(channel.lastError).not.toContain(BOT_TOKEN);
    for (const line of t.log.lines) expect(line).not.toContain(BOT_TOKEN);
  });
});

describe("POST /api/v1/channels/{id}/test", () => {
  test("each kind gets the sample alert now, and the answer is the outcome", async () => {
    const { key } = await setup();
    for (const kind of Object.keys(CONFIGS()) as Kind[]) {
      const id = await addChannel(key, kind);
      const res = await t.request("POST", `/api/v1/channels/${id}/test`, { key });
      expect(res.status, `${kind}: ${show(res)}`).toBe(200);
      expect(res.body, kind).toMatchObject({ ok: true, error: null, retryAfterMs: null });
      const channel = (await t.request("GET", `/api/v1/channels/${id}`, { key })).body.channel;
      expect(channel.lastDeliveryAt, kind).not.toBeNull();
    }
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.body.text).toContain("Test alert for telegram");
    expect(fakes.slack.received).toHaveLength(1);
    expect(fakes.discord.received).toHaveLength(1);
    expect(fakes.ntfy.received).toHaveLength(1);
    await fakes.smtp.waitFor(1);
    // Nothing went through the outbox: a test is not an event of any feed.
    expect(await rows("SELECT count(*) AS n FROM events")).toEqual([{ n: 0 }]);
  });

  test("a platform's refusal is the answer (ok false, its status and words); a second test within the platform's pace is a 429 with Retry-After", async () => {
    const { key } = await setup();
    const id = await addChannel(key, "telegram");
    fakes.telegram.enqueueFor("sendMessage", { status: 403, json: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" } });
    const refused = await t.request("POST", `/api/v1/channels/${id}/test`, { key });
    expect(refused.status, show(refused)).toBe(200);
    expect(refused.body).toMatchObject({ ok: false, statusCode: 403 });
    expect(refused.body.error).toContain("bot was blocked");
    expect((await t.request("GET", `/api/v1/channels/${id}`, { key })).body.channel.lastError).toContain("bot was blocked");
    const tooSoon = await t.request("POST", `/api/v1/channels/${id}/test`, { key });
    expect(tooSoon.status, show(tooSoon)).toBe(429);
    expect(tooSoon.headers.get("retry-after")).toBe("1");
    t.clock.advance(1000);
    const again = await t.request("POST", `/api/v1/channels/${id}/test`, { key });
    expect(again.body, show(again)).toMatchObject({ ok: true });
    expect((await t.request("GET", `/api/v1/channels/${id}`, { key })).body.channel.lastError).toBeNull();
  });
});
