import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDeliverer } from "../../../src/cli/serve";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { closeWindow, endedWindows } from "../../../src/modules/feeds/outbox-digests";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { type FakeTelegram, startFakeTelegram } from "../../helpers/channel-fakes";
import { makeDoc } from "../../helpers/factories";
import { createMigratedPgDatabase, PG_BACKEND, type TestPgDatabase } from "../../helpers/postgres";

// Digest mode and quiet hours through the real deliverer: alerts held, one message when the window (or the
// quiet hours) end, the digest a durable event of its own. The clock is the test's; Telegram is a local fake.

const BOT_TOKEN = "123456789:AAFdigestDIGESTdigestDIGESTdigest042";
const BERLIN_NIGHTS = { from: "22:00", to: "07:00", timeZone: "Europe/Berlin" };

let t: TestApp | undefined;
let deliverer: WebhookDeliverer | undefined;
let telegram: FakeTelegram | undefined;

afterEach(async () => {
  await deliverer?.stop();
  deliverer = undefined;
  await t?.close();
  t = undefined;
  await telegram?.close();
  telegram = undefined;
});

const config = () => ({ telegramApiUrl: telegram!.url, publicUrl: "https://jobs.example.com", webhookTimeoutMs: 2_000 });

async function open(clock: ManualClock, where: { dbPath?: string; databaseUrl?: string } = {}): Promise<TestApp> {
  t = await createTestApp({
    clock,
    dbPath: where.dbPath,
    config: { ...config(), ...(where.databaseUrl ? { databaseUrl: where.databaseUrl, databasePoolSize: 4 } : {}) },
  });
  deliverer = createDeliverer(t.deps);
  t.deps.work.subscribe(() => deliverer?.notify());
  deliverer.start();
  return t;
}

async function setup(startIso: string, channel: Record<string, unknown>) {
  telegram = await startFakeTelegram();
  const app = await open(new ManualClock(Date.parse(startIso)));
  const { apiKey: key } = await app.account();
  const created = await app.request("POST", "/api/v1/channels", {
    key,
    json: { type: "telegram", name: "phone", config: { botToken: BOT_TOKEN, chatId: 77 }, ...channel },
  });
  expect(created.status, show(created)).toBe(201);
  const feed = await app.request("POST", "/api/v1/feeds", { key, json: { title: "alerts", minScore: 0, channelIds: [created.body.channel.id] } });
  expect(feed.status, show(feed)).toBe(201);
  return { app, key, channelId: created.body.channel.id as string, feedId: feed.body.feed.id as string };
}

const sent = () => telegram!.callsTo("sendMessage").map((c) => c.body.text as string);

const rows = async (sql: string, ...args: unknown[]): Promise<any[]> =>
  (await rawMany<Record<string, unknown>>(t!.deps.db, sql, sql, args)).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v])),
  );

async function ingest(...titles: string[]): Promise<string[]> {
  const docs = titles.map((title) => makeDoc({ title }));
  await ingestDocuments(t!.deps, docs, { source: "test" });
  await settle();
  return docs.map((d) => (d.jobTile as { job: { ciphertext: string } }).job.ciphertext);
}

/** Lets the deliverer do everything due at the clock's time. */
async function settle(): Promise<void> {
  deliverer!.notify();
  await deliverer!.idle();
}

async function moveTo(isoTime: string): Promise<void> {
  t!.clock.set(Date.parse(isoTime));
  await settle();
}

const channelEvents = () =>
  rows("SELECT id, type, status, next_attempt_at_ts, digest_seq, job_ciphertext FROM events WHERE target != 'webhook' AND type != 'webhook.test' ORDER BY seq");

describe("digest mode", () => {
  test("the window's matches are held, then one message at its end: the top 10 by score and 'and 2 more' with a link to the feed", async () => {
    const { app, key, feedId } = await setup("2026-01-15T12:01:00Z", { mode: "digest", digestEvery: "15m" });
    const titles = Array.from({ length: 12 }, (_, i) => `Digest job ${String(i).padStart(2, "0")}`);
    const ciphers = await ingest(...titles);
    // The scorer's say, by hand: job i scores i / 2 (so 11 is the best, 0 and 1 the two left out).
    for (const [i, cipher] of ciphers.entries()) await rows("UPDATE feed_jobs SET matching_score = ? WHERE job_ciphertext = ?", i / 2, cipher);
    expect(sent()).toEqual([]);
    expect((await channelEvents()).map((e) => [e.status, e.next_attempt_at_ts])).toEqual(titles.map(() => ["held", Date.parse("2026-01-15T12:15:00Z")]));

    await moveTo("2026-01-15T12:14:59.999Z");
    expect(sent()).toEqual([]);
    await moveTo("2026-01-15T12:15:00Z");
    expect(sent()).toHaveLength(1);
    const text = sent()[0]!;
    expect(text).toStartWith("<b>12 new jobs — alerts</b>");
    const shown = titles.map((title) => text.indexOf(title));
    expect(shown.slice(0, 2)).toEqual([-1, -1]);
    // Best first.
    for (let i = 2; i < 11; i++) expect(shown[i + 1]!, titles[i]).toBeLessThan(shown[i]!);
    expect(text).toContain(`and 2 more — <a href="https://jobs.example.com/dashboard/feeds/${feedId}">open jobpilot</a>`);

    const events = await channelEvents();
    const digest = events.find((e) => e.type === "channel.digest")!;
    expect(digest).toMatchObject({ status: "delivered", digest_seq: null });
    const deliveries = await app.request("GET", `/api/v1/feeds/${feedId}/deliveries`, { key });
    expect(deliveries.status, show(deliveries)).toBe(200);
    const listed = deliveries.body.deliveries as any[];
    const digestEntry = listed.find((d) => d.type === "channel.digest");
    expect(digestEntry).toMatchObject({
      eventId: digest.id,
      status: "delivered",
      jobId: null,
      digestSize: 12,
      digestEventId: null,
      attempts: [{ attempt: 1, error: null }],
    });
    const alerts = listed.filter((d) => d.type === "job.matched");
    expect(alerts).toHaveLength(12);
    for (const a of alerts) {
      expect(a).toMatchObject({ status: "delivered", digestEventId: digest.id, deliveredAt: digestEntry.deliveredAt, attempts: [] });
      expect(a.digestSize).toBeUndefined();
    }
    // Nothing more: the digest went once.
    await moveTo("2026-01-15T12:45:00Z");
    expect(sent()).toHaveLength(1);
  });

  test("window boundaries: a match on the boundary opens the next window; a window of one job sends its ordinary alert", async () => {
    await setup("2026-01-15T12:14:59Z", { mode: "digest", digestEvery: "15m" });
    await ingest("Before the boundary");
    t!.clock.set(Date.parse("2026-01-15T12:15:00Z"));
    // Matched at the same moment the first window ends: it belongs to the next.
    await ingest("On the boundary");
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toContain("Before the boundary");
    expect(sent()[0]).not.toContain("On the boundary");
    expect(sent()[0]).not.toContain("new jobs"); // one job: its full alert
    expect(sent()[0]).toContain("Match:");
    await moveTo("2026-01-15T12:29:59Z");
    expect(sent()).toHaveLength(1);
    await moveTo("2026-01-15T12:30:00Z");
    expect(sent()).toHaveLength(2);
    expect(sent()[1]).toContain("On the boundary");
  });

  test("24 h de-duplication: the same job twice in a window is held once; once a digest delivered it, it is not alerted again", async () => {
    const { app, key, channelId } = await setup("2026-01-15T12:01:00Z", { mode: "digest", digestEvery: "15m" });
    const [cipher] = await ingest("Seen twice");
    const again = async (id: string) => {
      const [first] = await rows(
        "SELECT account_id, feed_id, target, feed_job_id FROM events WHERE type = 'job.matched' AND target != 'webhook' ORDER BY seq LIMIT 1",
      );
      await rows(
        "INSERT INTO events (id, type, account_id, feed_id, target, feed_job_id, job_ciphertext, created_at_ts, status, next_attempt_at_ts) VALUES (?, 'job.matched', ?, ?, ?, ?, ?, ?, 'pending', ?)",
        id,
        first.account_id,
        first.feed_id,
        first.target,
        first.feed_job_id,
        cipher,
        t!.clock.now(),
        t!.clock.now(),
      );
      await settle();
    };
    await again("evt_dup_1");
    expect(await rows("SELECT status, last_error FROM events WHERE id = 'evt_dup_1'")).toEqual([
      { status: "suppressed", last_error: "This job already notified this channel of this feed within 24 hours" },
    ]);
    await moveTo("2026-01-15T12:15:00Z");
    expect(sent()).toHaveLength(1);
    // An instant channel now: the job went out in the digest 2 h ago, so it is not sent again.
    const patched = await app.request("PATCH", `/api/v1/channels/${channelId}`, { key, json: { mode: "instant" } });
    expect(patched.status, show(patched)).toBe(200);
    t!.clock.advance(2 * 3_600_000);
    await again("evt_dup_2");
    expect((await rows("SELECT status FROM events WHERE id = 'evt_dup_2'"))[0].status).toBe("suppressed");
    expect(sent()).toHaveLength(1);
  });

  test("a digest the platform turns away is retried when it says, its alerts waiting in_digest; a refusal for good fails them with it", async () => {
    const { app, key, feedId } = await setup("2026-01-15T12:01:00Z", { mode: "digest", digestEvery: "15m" });
    await ingest("Retry me A", "Retry me B");
    telegram!.enqueueFor("sendMessage", telegram!.tooManyRequests(7));
    await moveTo("2026-01-15T12:15:00Z");
    expect(telegram!.callsTo("sendMessage")).toHaveLength(1);
    const waiting = await app.request("GET", `/api/v1/feeds/${feedId}/deliveries?status=in_digest`, { key });
    expect(waiting.status, show(waiting)).toBe(200);
    expect(waiting.body.deliveries).toHaveLength(2);
    expect((await channelEvents()).find((e) => e.type === "channel.digest")).toMatchObject({
      status: "retrying",
      next_attempt_at_ts: Date.parse("2026-01-15T12:15:07Z"),
    });
    // A member cannot be retried by itself: the digest carries it.
    const member = waiting.body.deliveries[0].eventId;
    const refused = await app.request("POST", `/api/v1/feeds/${feedId}/deliveries/${member}/retry`, { key });
    expect(refused.status, show(refused)).toBe(409);
    await moveTo("2026-01-15T12:15:07Z");
    expect(sent()).toHaveLength(2);
    expect(sent()[1]).toContain("2 new jobs");
    expect((await channelEvents()).map((e) => e.status)).toEqual(["delivered", "delivered", "delivered"]);

    // The next window: Telegram refuses for good (the bot was blocked).
    await ingest("Refused C", "Refused D");
    telegram!.enqueueFor("sendMessage", { status: 403, json: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" } });
    await moveTo("2026-01-15T12:30:00Z");
    const last = (await channelEvents()).slice(3);
    expect(last.map((e) => [e.type, e.status])).toEqual([
      ["job.matched", "failed"],
      ["job.matched", "failed"],
      ["channel.digest", "failed"],
    ]);
    const failed = await rows("SELECT last_error FROM events WHERE status = 'failed' AND type = 'job.matched'");
    for (const f of failed) expect(f.last_error).toStartWith("Its digest failed: Telegram HTTP 403");
  });

  test("alerts held for a channel deleted meanwhile are skipped with the deletion: no digest is made of them", async () => {
    const { app, key, channelId } = await setup("2026-01-15T12:01:00Z", { mode: "digest", digestEvery: "15m" });
    await ingest("Orphan A", "Orphan B");
    const deleted = await app.request("DELETE", `/api/v1/channels/${channelId}`, { key });
    expect(deleted.status, show(deleted)).toBe(200);
    // Ended by the deletion itself (feeds/outbox.ts dropEvents), not when their window closes.
    expect((await channelEvents()).map((e) => e.status)).toEqual(["skipped", "skipped"]);
    await moveTo("2026-01-15T12:15:00Z");
    expect(sent()).toEqual([]);
    expect((await channelEvents()).map((e) => e.status)).toEqual(["skipped", "skipped"]);
  });
});

describe("quiet hours", () => {
  test("across midnight: alerts inside them are held and go as one digest when they end; outside them at once", async () => {
    // 21:30 in Berlin (UTC+1 in January).
    await setup("2026-01-15T20:30:00Z", { quietHours: BERLIN_NIGHTS });
    await ingest("Evening job");
    expect(sent()).toHaveLength(1);
    await moveTo("2026-01-15T21:30:00Z"); // 22:30
    await ingest("Late job");
    await moveTo("2026-01-16T01:00:00Z"); // 02:00
    await ingest("Night job");
    expect(sent()).toHaveLength(1);
    expect((await channelEvents()).slice(1).map((e) => [e.status, e.next_attempt_at_ts])).toEqual([
      ["held", Date.parse("2026-01-16T06:00:00Z")],
      ["held", Date.parse("2026-01-16T06:00:00Z")],
    ]);
    await moveTo("2026-01-16T05:59:59Z");
    expect(sent()).toHaveLength(1);
    await moveTo("2026-01-16T06:00:00Z"); // 07:00
    expect(sent()).toHaveLength(2);
    expect(sent()[1]).toStartWith("<b>2 new jobs — alerts</b>");
    expect(sent()[1]).toContain("Late job");
    expect(sent()[1]).toContain("Night job");
    await moveTo("2026-01-16T06:01:00Z");
    await ingest("Morning job");
    expect(sent()).toHaveLength(3);
    expect(sent()[2]).toContain("Morning job");
  });

  test("the night the clocks go forward: the held alerts go at 07:00 summer time, 05:00 UTC", async () => {
    await setup("2026-03-28T21:30:00Z", { quietHours: BERLIN_NIGHTS }); // 22:30 CET
    await ingest("Spring A", "Spring B");
    await moveTo("2026-03-29T04:59:59Z"); // 06:59:59 CEST
    expect(sent()).toEqual([]);
    await moveTo("2026-03-29T05:00:00Z");
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toStartWith("<b>2 new jobs — alerts</b>");
  });

  test("a digest channel: windows that end inside quiet hours make one digest at their end", async () => {
    await setup("2026-01-15T20:30:00Z", { mode: "digest", digestEvery: "1h", quietHours: BERLIN_NIGHTS }); // 21:30 Berlin
    await ingest("Hour one");
    await moveTo("2026-01-15T23:30:00Z");
    await ingest("Hour three");
    await moveTo("2026-01-16T05:59:59Z");
    expect(sent()).toEqual([]);
    await moveTo("2026-01-16T06:00:00Z");
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toContain("Hour one");
    expect(sent()[0]).toContain("Hour three");
  });
});

describe("digest durability", () => {
  /** A database two app instances open in turn: a SQLite file, or (on the PostgreSQL pass) one database. */
  async function sharedDatabase(): Promise<{ where: { dbPath?: string; databaseUrl?: string }; drop(): Promise<void> }> {
    if (PG_BACKEND) {
      const pg: TestPgDatabase = await createMigratedPgDatabase();
      return { where: { databaseUrl: pg.url }, drop: () => pg.drop() };
    }
    const dir = mkdtempSync(join(tmpdir(), "jp-digest-"));
    return { where: { dbPath: join(dir, "digest.db") }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }

  async function restart(clock: ManualClock, where: { dbPath?: string; databaseUrl?: string }): Promise<void> {
    await deliverer!.stop();
    deliverer = undefined;
    await t!.close();
    t = undefined;
    await open(clock, where);
  }

  for (const when of ["after its window closed", "before its window closed"] as const) {
    test(`stopped between the window's end and the send (${when}): after a restart the digest goes exactly once`, async () => {
      const shared = await sharedDatabase();
      try {
        telegram = await startFakeTelegram();
        const clock = new ManualClock(Date.parse("2026-01-15T12:01:00Z"));
        await open(clock, shared.where);
        const { apiKey: key } = await t!.account();
        const channel = await t!.request("POST", "/api/v1/channels", {
          key,
          json: { type: "telegram", name: "phone", config: { botToken: BOT_TOKEN, chatId: 77 }, mode: "digest", digestEvery: "15m" },
        });
        expect(channel.status, show(channel)).toBe(201);
        const feed = await t!.request("POST", "/api/v1/feeds", { key, json: { title: "alerts", minScore: 0, channelIds: [channel.body.channel.id] } });
        expect(feed.status, show(feed)).toBe(201);
        await ingest("Durable A", "Durable B", "Durable C");
        // The deliverer stops before the window ends; then the window ends.
        await deliverer!.stop();
        clock.set(Date.parse("2026-01-15T12:15:00Z"));
        if (when === "after its window closed") {
          const ended = await endedWindows(t!.deps.db, clock.now(), 10);
          expect(ended).toHaveLength(1);
          expect(await closeWindow(t!.deps.db, ended[0]!.feedId, ended[0]!.target, clock.now())).toBeNumber();
          // Closing twice closes nothing more.
          expect(await closeWindow(t!.deps.db, ended[0]!.feedId, ended[0]!.target, clock.now())).toBeNull();
        }
        expect(sent()).toEqual([]);
        await restart(clock, shared.where);
        await settle();
        expect(sent()).toHaveLength(1);
        expect(sent()[0]).toStartWith("<b>3 new jobs — alerts</b>");
        await restart(clock, shared.where);
        clock.advance(3_600_000);
        await settle();
        expect(sent()).toHaveLength(1);
        expect((await channelEvents()).map((e) => e.status)).toEqual(["delivered", "delivered", "delivered", "delivered"]);
      } finally {
        await deliverer?.stop();
        deliverer = undefined;
        await t?.close();
        t = undefined;
        await shared.drop();
      }
    });
  }
});
