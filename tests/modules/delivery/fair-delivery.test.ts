import { afterEach, describe, expect, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import type { Db } from "../../../src/db/client";
import { tx } from "../../../src/db/client";
import { rawExec, rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { admitJobs, type AdmitFeed } from "../../../src/modules/feeds/admit";
import * as outbox from "../../../src/modules/feeds/outbox";
import { accountHeads, fairCandidates, newFairCursor } from "../../../src/modules/feeds/outbox-fair";
import { DOCTOR_CHECKS } from "../../../src/modules/monitoring/doctor";
import { renderMetrics } from "../../../src/modules/monitoring/service";
import { accountConcurrency, BREAKER_FAILURES, type WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { startFakeSlack, type FakeWebhookPlatform } from "../../helpers/channel-fakes";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

// Fair delivery (issue 38): the pick's order and bound, the per-account caps, the webhook breaker, dropping a
// deleted channel's or a muted feed's events in one statement, the fan-out ceiling, and the outbox's age on
// /readyz, /metrics and in the doctor. On the suite's backend (SQLite, or PostgreSQL in its PostgreSQL pass).

let t: TestApp;
let deliverer: WebhookDeliverer | undefined;
let receiver: WebhookReceiver | undefined;
let slack: FakeWebhookPlatform | undefined;
afterEach(async () => {
  await deliverer?.stop();
  deliverer = undefined;
  await receiver?.close();
  receiver = undefined;
  await slack?.close();
  slack = undefined;
  await t?.close();
});

const rows = async (sql: string, ...args: unknown[]): Promise<any[]> =>
  (await rawMany<Record<string, unknown>>(t.deps.db, sql, sql, args)).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v])),
  );

async function feedRow(db: Db, id: string, accountId: string): Promise<void> {
  await rawExec(
    db,
    "test.feed",
    `INSERT INTO feeds (id, account_id, title, min_score, includes, excludes, excluded_countries, included_countries, job_types, webhook_url, webhook_secret, created_at_ts, updated_at_ts)
     VALUES (?, ?, ?, 0, '[]', '[]', '[]', '[]', '[]', 'https://hooks.example/x', 'whsec_test', 0, 0)`,
    [id, accountId, `feed ${id}`],
  );
}

let n = 0;
async function event(db: Db, accountId: string, feedId: string, at: number, target = "webhook"): Promise<number> {
  return outbox.insertEventReturningSeq(db, {
    id: `evt_fair_${++n}`,
    type: "job.matched",
    accountId,
    feedId,
    target,
    feedJobId: null,
    jobCiphertext: `job-${n}`,
    createdAtTs: at,
    status: "pending",
    nextAttemptAtTs: at,
  });
}

const T0 = Date.UTC(2026, 0, 15, 12);

describe("the fair pick", () => {
  test("a victim's one event is picked in the same round as an attacker's backlog of 40 targets × 10 events, and each account's targets come round in turn", async () => {
    t = await createTestApp();
    const { db } = t.deps;
    const attacker = await t.account({ name: "attacker" });
    const victim = await t.account({ name: "victim" });
    for (let f = 0; f < 40; f++) await feedRow(db, `fa${String(f).padStart(2, "0")}`, attacker.accountId);
    await feedRow(db, "fv", victim.accountId);
    for (let i = 0; i < 10; i++) for (let f = 0; f < 40; f++) await event(db, attacker.accountId, `fa${String(f).padStart(2, "0")}`, T0 + i);
    const victimSeq = await event(db, victim.accountId, "fv", T0 + 100);
    // Two slots, a budget of 5 seeks per account: the old oldest-first scan gave both slots to the attacker.
    const cursor = newFairCursor();
    const opts = { cursor, roomOf: () => 16, isSkipped: () => false, seeksPerAccount: 5 };
    const first = await fairCandidates(db, T0 + 200, 2, opts);
    expect(first.map((c) => c.accountId).sort()).toEqual([attacker.accountId, victim.accountId].sort());
    expect(first.find((c) => c.accountId === victim.accountId)!.seq).toBe(victimSeq);
    // The attacker's turns walk its targets from where the last one stopped: 40 targets in 40 picks of one.
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      for (const c of await fairCandidates(db, T0 + 200, 2, { ...opts, isSkipped: (feedId) => feedId === "fv" })) seen.add(c.feedId);
    }
    expect(seen.size).toBe(40);
  });

  test("an account with no room gets no turn; a skipped target (busy, paused, breaker open) costs a seek, not a scan of its backlog", async () => {
    t = await createTestApp();
    const { db } = t.deps;
    const a = await t.account({ name: "a" });
    const b = await t.account({ name: "b" });
    await feedRow(db, "f-a", a.accountId);
    await feedRow(db, "f-b", b.accountId);
    for (let i = 0; i < 200; i++) await event(db, a.accountId, "f-a", T0 + i, "ch-paused");
    await event(db, a.accountId, "f-a", T0 + 300);
    await event(db, b.accountId, "f-b", T0 + 301);
    const full = await fairCandidates(db, T0 + 1_000, 8, {
      cursor: newFairCursor(),
      roomOf: (id) => (id === b.accountId ? 0 : 4),
      isSkipped: (_f, target) => target === "ch-paused",
      seeksPerAccount: 3,
    });
    // a: its paused channel is passed after one seek and its webhook goes; b is at its cap.
    expect(full.map((c) => [c.accountId, c.target])).toEqual([[a.accountId, "webhook"]]);
    expect((await accountHeads(db)).map((h) => [h.accountId, h.oldestDueTs]).sort()).toEqual(
      [
        [a.accountId, T0],
        [b.accountId, T0 + 301],
      ].sort(),
    );
  });
});

describe("per-account caps", () => {
  test("an account's share is a quarter of the slots unless set; its slow webhooks hold at most that many", async () => {
    expect(accountConcurrency(64, 0)).toBe(16);
    expect(accountConcurrency(3, 0)).toBe(1);
    expect(accountConcurrency(64, 5)).toBe(5);
    expect(accountConcurrency(4, 9)).toBe(4);

    receiver = await startWebhookReceiver();
    let inFlight = 0;
    let most = 0;
    const slow = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch() {
        most = Math.max(most, ++inFlight);
        await Bun.sleep(250);
        inFlight--;
        return new Response("ok");
      },
    });
    try {
      t = await createTestApp({ config: { webhookAllowPrivate: true, webhookTimeoutMs: 2_000, webhookConcurrency: 8 } });
      const attacker = await t.account({ name: "attacker" });
      for (let i = 0; i < 8; i++) {
        const res = await t.request("POST", "/api/v1/feeds", {
          key: attacker.apiKey,
          json: { title: `slow ${i}`, minScore: 0, webhookUrl: `http://127.0.0.1:${slow.port}/h` },
        });
        expect(res.status, show(res)).toBe(201);
      }
      deliverer = createDeliverer(t.deps);
      deliverer.start();
      await deliverer.idle(10_000);
      // Eight test events on eight feeds, two at a time (a quarter of eight slots), not eight at once.
      expect(most).toBe(2);
    } finally {
      slow.stop(true);
    }
  });

  test("past the pending cap a match's events are written skipped, with the reason, and the deliverer never sees them", async () => {
    t = await createTestApp();
    const { db } = t.deps;
    const a = await t.account({ name: "a" });
    await feedRow(db, "f-cap", a.accountId);
    const feed: AdmitFeed = { id: "f-cap", accountId: a.accountId, notificationsMuted: false, hasWebhook: true, channelIds: ["c1", "c2"], applyMode: "alert" };
    await rawExec(
      db,
      "test.job",
      "INSERT INTO jobs (ciphertext, platform, title, url, email_found, source, document, first_seen_at_ts, explored_at_ts, updated_at_ts) VALUES (?, 'upwork', 't', 'u', false, 'test', '{}', 0, 0, 0)",
      ["~cap1"],
    );
    await rawExec(
      db,
      "test.job",
      "INSERT INTO jobs (ciphertext, platform, title, url, email_found, source, document, first_seen_at_ts, explored_at_ts, updated_at_ts) VALUES (?, 'upwork', 't', 'u', false, 'test', '{}', 0, 0, 0)",
      ["~cap2"],
    );
    const job = (c: string) => ({ jobCiphertext: c, document: {}, score: 5, scoreSource: "default", scoreReason: null, nowTs: T0 });
    await tx(db, (d) =>
      admitJobs(
        d,
        [
          { feeds: [feed], job: job("~cap1") },
          { feeds: [feed], job: job("~cap2") },
        ],
        { maxPendingPerAccount: 4 },
      ),
    );
    const states = await rows(
      "SELECT status, last_error AS why, count(*) AS n FROM events WHERE feed_id = 'f-cap' GROUP BY status, last_error ORDER BY status",
    );
    expect(states).toEqual([
      { status: "pending", why: null, n: 4 },
      { status: "skipped", why: "Not sent: the per-account backlog cap (4) was reached", n: 2 },
    ]);
    expect(await outbox.pendingOfAccount(db, a.accountId, 3)).toBe(3);
  });
});

describe("the webhook breaker", () => {
  test(`after ${BREAKER_FAILURES} timeouts in a row the webhook is paused for the first retry delay; one probe then, and an answer closes it`, async () => {
    receiver = await startWebhookReceiver();
    receiver.setFallback({ status: 200, delayMs: 400 });
    const clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { webhookAllowPrivate: true, webhookTimeoutMs: 150, webhookRetrySchedule: "30s,2m" } });
    const a = await t.account();
    const created = await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "slow", minScore: 0, webhookUrl: receiver.url } });
    expect(created.status, show(created)).toBe(201);
    for (let i = 0; i < 5; i++) await t.request("POST", `/api/v1/feeds/${created.body.feed.id}/webhook/test`, { key: a.apiKey });
    deliverer = createDeliverer(t.deps);
    deliverer.start();
    await deliverer.idle(10_000);
    // Six events due (the save's test and five more); three timeouts, then nothing until the pause ends.
    expect(receiver.received.length).toBe(BREAKER_FAILURES);
    expect(deliverer.isBreakerOpen(created.body.feed.id)).toBe(true);
    const waiting = await rows("SELECT status, count(*) AS n FROM events WHERE feed_id = ? GROUP BY status ORDER BY status", created.body.feed.id);
    expect(waiting).toEqual([
      { status: "pending", n: 3 },
      { status: "retrying", n: 3 },
    ]);
    clock.advance(30_000);
    deliverer.notify();
    await receiver.waitFor(BREAKER_FAILURES + 1);
    await deliverer.idle(10_000);
    // Half-open: one probe, and its timeout opens the breaker again at once.
    expect(receiver.received.length).toBe(BREAKER_FAILURES + 1);
    receiver.setFallback({ status: 200 });
    clock.advance(30_000);
    deliverer.notify();
    await deliverer.idle(10_000);
    expect(deliverer.isBreakerOpen(created.body.feed.id)).toBe(false);
    expect(await rows("SELECT status, count(*) AS n FROM events WHERE feed_id = ? AND status != 'delivered' GROUP BY status", created.body.feed.id)).toEqual(
      [],
    );
    // The same webhook-id on a retry as on its first attempt (at-least-once).
    const ids = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(new Set(ids).size).toBeLessThan(ids.length);
  }, 30_000);
});

describe("dropping at once", () => {
  async function setupWithChannel() {
    slack = await startFakeSlack();
    t = await createTestApp({ config: { slackWebhookOrigin: slack.origin, maxChannelLinksPerAccount: 3 } });
    const a = await t.account();
    const ch = await t.request("POST", "/api/v1/channels", { key: a.apiKey, json: { type: "slack", name: "s", config: { webhookUrl: slack.webhookUrl } } });
    expect(ch.status, show(ch)).toBe(201);
    const feed = await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "f", minScore: 0, channelIds: [ch.body.channel.id] } });
    expect(feed.status, show(feed)).toBe(201);
    for (let i = 0; i < 5; i++) await event(t.deps.db, a.accountId, feed.body.feed.id, T0 + i, ch.body.channel.id);
    await event(t.deps.db, a.accountId, feed.body.feed.id, T0, "webhook");
    return { key: a.apiKey, channelId: ch.body.channel.id as string, feedId: feed.body.feed.id as string };
  }
  const pendingOf = (feedId: string) =>
    rows("SELECT target, count(*) AS n FROM events WHERE feed_id = ? AND status IN ('pending', 'retrying') GROUP BY target", feedId);

  test("deleting a channel ends its queued events in the same request, with the reason", async () => {
    const { key, channelId, feedId } = await setupWithChannel();
    expect((await t.request("DELETE", `/api/v1/channels/${channelId}`, { key })).status).toBe(200);
    expect(await pendingOf(feedId)).toEqual([{ target: "webhook", n: 1 }]);
    expect(await rows("SELECT DISTINCT last_error AS why FROM events WHERE target = ?", channelId)).toEqual([{ why: outbox.DROPPED_CHANNEL_DELETED }]);
  });

  test("taking a channel off a feed, or muting the feed, ends what was queued for it", async () => {
    const { key, channelId, feedId } = await setupWithChannel();
    expect((await t.request("PATCH", `/api/v1/feeds/${feedId}`, { key, json: { channelIds: [] } })).status).toBe(200);
    expect(await pendingOf(feedId)).toEqual([{ target: "webhook", n: 1 }]);
    expect(await rows("SELECT DISTINCT last_error AS why FROM events WHERE target = ?", channelId)).toEqual([{ why: outbox.DROPPED_CHANNEL_REMOVED }]);
    expect((await t.request("PATCH", `/api/v1/feeds/${feedId}`, { key, json: { notificationsMuted: true } })).status).toBe(200);
    expect(await pendingOf(feedId)).toEqual([]);
  });

  test("the fan-out ceiling: a link past JOBPILOT_MAX_CHANNEL_LINKS_PER_ACCOUNT is a 400 naming channelIds; fewer links always save", async () => {
    const { key, channelId, feedId } = await setupWithChannel();
    const more = await t.request("POST", "/api/v1/channels", { key, json: { type: "slack", name: "s2", config: { webhookUrl: `${slack!.webhookUrl}2` } } });
    const two = [channelId, more.body.channel.id];
    expect((await t.request("PATCH", `/api/v1/feeds/${feedId}`, { key, json: { channelIds: two } })).status).toBe(200);
    const over = await t.request("POST", "/api/v1/feeds", { key, json: { title: "g", minScore: 0, channelIds: two } });
    expect(over.status, show(over)).toBe(400);
    expect(over.body.details[0]).toContain("channelIds would link this account's feeds to channels 4 times; the most is 3");
    expect(await rows("SELECT count(*) AS n FROM feeds WHERE title = 'g'")).toEqual([{ n: 0 }]);
    const one = await t.request("POST", "/api/v1/feeds", { key, json: { title: "g", minScore: 0, channelIds: [channelId] } });
    expect(one.status, show(one)).toBe(201);
  });
});

describe("the outbox's age on /readyz, /metrics and in the doctor", () => {
  test("per account on the gauge, a summary on /readyz, a WARN past five minutes", async () => {
    const clock = new ManualClock(T0);
    t = await createTestApp({ clock });
    const a = await t.account({ name: "a" });
    await feedRow(t.deps.db, "f-age", a.accountId);
    await event(t.deps.db, a.accountId, "f-age", T0 - 600_000);
    const ready = await t.request("GET", "/readyz");
    expect(ready.body.checks.outbox, show(ready)).toEqual({ accountsWaiting: 1, oldestDueAgeS: 600, medianOldestDueAgeS: 600 });
    expect(await renderMetrics(t.deps)).toContain(`jobpilot_outbox_oldest_due_age_seconds{account="${a.accountId}"} 600`);
    const check = DOCTOR_CHECKS.find((c) => c.name === "outbox")!;
    const findings = await check.run({ config: t.deps.config, db: t.deps.db, clock, fetch, timeoutMs: 1000 });
    expect(findings.map((f) => [f.status, f.detail])).toEqual([["WARN", `account ${a.accountId}: its oldest due alert has waited 10 min`]]);
  });
});
