/**
 * proposal.viewed / replied / hired: written with the stage change (one transaction), once per proposal, stage
 * and feed, to feeds with outcomeEvents on and not muted; signed and sent like job.matched, and rendered as a
 * short alert on channels (never held for a digest).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import { isPg } from "../../../src/db/client";
import { rawExec, rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { verify } from "../../../src/lib/standard-webhooks";
import type { Engagement } from "../../../src/marketplace/driver";
import { authenticate } from "../../../src/modules/accounts/service";
import { advanceFromReading, recordOutcome } from "../../../src/modules/applications/funnel";
import * as repo from "../../../src/modules/applications/repo";
import { syncEngagement } from "../../../src/modules/applications/sync.task";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { TaskWorker } from "../../../src/worker/worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { applyWorker, settledByJob } from "../../helpers/apply-worker";
import { type FakeWebhookPlatform, startFakeSlack } from "../../helpers/channel-fakes";
import { useCleanups } from "../../helpers/cleanups";
import { makeDoc } from "../../helpers/factories";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const HOUR = 3_600_000;
const PUBLIC_URL = "https://jobs.example.com";

let t: TestApp;
let deliverer: WebhookDeliverer;
let worker: TaskWorker;
let slack: FakeWebhookPlatform;
const cleanup = useCleanups();

afterEach(() => {
  reading = null;
});

/** What the faked marketplace reports on the next sync (the marketplace is outside: faked, as in funnel.test.ts). */
let reading: Engagement | null = null;

async function setup() {
  slack = await startFakeSlack();
  cleanup(() => slack.close());
  t = await createTestApp({
    clock: new ManualClock(),
    config: {
      webhookAllowPrivate: true,
      webhookTimeoutMs: 1_000,
      sandboxApplyLatencyMs: 0,
      loggedOutWindowMs: 0,
      slackWebhookOrigin: slack.origin,
      publicUrl: PUBLIC_URL,
      connectPriceUsd: 0.2,
    },
  });
  cleanup(() => t.close());
  deliverer = createDeliverer(t.deps);
  t.deps.work.subscribe(() => deliverer.notify());
  deliverer.start();
  cleanup(() => deliverer.stop());
  worker = applyWorker(t);
  cleanup(() => worker.stop());
  const a = await t.account({ credits: 10 });
  const b = await t.account({ name: "other", credits: 10 });
  return { a, b };
}

async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  cleanup(() => r.close());
  return r;
}

async function addFeed(key: string, json: Record<string, unknown>): Promise<{ id: string; secret: string | undefined }> {
  const res = await t.request("POST", "/api/v1/feeds", { key, json: { minScore: 0, ...json } });
  expect(res.status, show(res)).toBe(201);
  return { id: res.body.feed.id, secret: res.body.feed.webhookSecret };
}

async function ingest(title: string): Promise<string> {
  const doc = makeDoc({ title });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

/** The feed's entry for the job: applying with it credits the application to that feed (applications.feed_id). */
async function entryOf(key: string, feedId: string, cipher: string): Promise<string> {
  const res = await t.request("GET", `/api/v1/feeds/${feedId}/jobs?limit=100`, { key });
  const entry = (res.body.jobs as { processedJobId: string; job: { ciphertext: string } }[]).find((j) => j.job.ciphertext === cipher);
  expect(entry, show(res)).toBeDefined();
  return entry!.processedJobId;
}

/** Applies (through the sandbox, settled) and answers the queueId. */
async function applyTo(key: string, jobId: string, cipher: string): Promise<string> {
  const res = await t.request("POST", "/api/auto-apply-v2/apply", { key, json: { jobId, coverLetter: "Hello, I can help." } });
  expect(res.status, show(res)).toBe(200);
  const final = await settledByJob(t, worker, key, cipher);
  expect(final.body.applicationStatus, show(final)).toBe("applied");
  return res.body.queueId;
}

/** One engagement sync with the faked marketplace reading `reading` for every due proposal. */
async function sync(): Promise<void> {
  const sandbox = t.deps.drivers.sandbox!;
  const faked = { ...sandbox, engagement: async () => reading };
  await syncEngagement({ ...t.deps, drivers: { ...t.deps.drivers, sandbox: faked } }, {}, { isLastAttempt: false } as never);
}

const outcome = (key: string, queueId: string, json: Record<string, unknown>) => t.request("POST", `/api/v1/applications/${queueId}/outcome`, { key, json });

const rows = async (sql: string, ...args: unknown[]): Promise<any[]> =>
  (await rawMany<Record<string, unknown>>(t.deps.db, sql, sql, args)).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v])),
  );

/** Every outcome event written, in seq order, as [feedId, type, target]. */
const outcomeEvents = async () =>
  (await rows("SELECT feed_id AS f, type, target FROM events WHERE type LIKE 'proposal.%' ORDER BY seq")).map((r) => [r.f, r.type, r.target]);

/** The webhook bodies of outcome events a receiver got, each checked against the feed's secret first. */
function outcomeBodies(r: WebhookReceiver, secret: string): any[] {
  return r.received
    .filter((w) => String(w.json?.type).startsWith("proposal."))
    .map((w) => {
      // The test clock moved on by hours since the first was sent: the tolerance covers the test, not a receiver's choice.
      expect(() => verify(secret, w.headers, w.body, { nowS: t.clock.now() / 1000, toleranceS: 86_400 })).not.toThrow();
      expect(w.headers["webhook-id"]).toBe(w.json.id);
      return w.json;
    });
}

describe("outcome events", () => {
  test("viewed then replied from the sync and hired from the outcome POST: each once, signed, with the application; a channel gets a short alert", async () => {
    const { a, b } = await setup();
    const hook = await receiver();
    const theirs = await receiver();
    const channel = await t.request("POST", "/api/v1/channels", {
      key: a.apiKey,
      json: { type: "slack", name: "Sales", config: { webhookUrl: slack.webhookUrl }, mode: "digest", digestEvery: "24h" },
    });
    expect(channel.status, show(channel)).toBe(201);
    const feed = await addFeed(a.apiKey, { title: "Rust leads", outcomeEvents: true, webhookUrl: hook.url, channelIds: [channel.body.channel.id] });
    // Another account's feed holds the same job and wants outcome events: it never hears of this account's proposal.
    await addFeed(b.apiKey, { title: "theirs", outcomeEvents: true, webhookUrl: theirs.url });
    await hook.waitFor(1); // webhook.test
    await theirs.waitFor(1);
    const cipher = await ingest("Rust <b>backend</b> @everyone");
    await deliverer.idle();
    const matched = hook.received.length;
    const queueId = await applyTo(a.apiKey, await entryOf(a.apiKey, feed.id, cipher), cipher);
    const sentAt = (await repo.findApplication(t.deps.db, queueId))!.processedAtTs!;

    // Nothing new on a sync that reads nothing new.
    reading = { viewed: false, replied: false, viewedAt: null };
    await sync();
    expect(await outcomeEvents()).toEqual([]);

    // Viewed, then replied: one event each, in that order.
    t.clock.advance(HOUR);
    reading = { viewed: true, replied: false, viewedAt: t.clock.now() - 1000 };
    await sync();
    await sync(); // the same reading again: nothing new
    t.clock.advance(HOUR);
    reading = { viewed: true, replied: true, viewedAt: t.clock.now() - HOUR - 1000, repliedAt: t.clock.now() - 10 };
    await sync();
    await hook.waitFor(matched + 2);
    await deliverer.idle();
    expect(await outcomeEvents()).toEqual([
      [feed.id, "proposal.viewed", "webhook"],
      [feed.id, "proposal.viewed", channel.body.channel.id],
      [feed.id, "proposal.replied", "webhook"],
      [feed.id, "proposal.replied", channel.body.channel.id],
    ]);

    // Hired by hand, with its value; repeating the POST sends nothing (a changed value, below, neither).
    t.clock.advance(HOUR);
    const hired = await outcome(a.apiKey, queueId, { outcome: "hired", valueUsd: 1500 });
    expect(hired.status, show(hired)).toBe(200);
    expect((await outcome(a.apiKey, queueId, { outcome: "hired", valueUsd: 1500 })).status).toBe(200);
    await hook.waitFor(matched + 3);
    await deliverer.idle();
    await sync(); // a hired proposal is no longer read; were it, nothing would be new
    const bodies = outcomeBodies(hook, feed.secret!);
    expect(bodies.map((x) => x.type)).toEqual(["proposal.viewed", "proposal.replied", "proposal.hired"]);
    const viewedAt = t.clock.now() - 2 * HOUR - 1000;
    const repliedAt = t.clock.now() - HOUR - 10;
    const common = {
      jobId: cipher,
      feedId: feed.id,
      feedTitle: "Rust leads",
      processedJobId: await entryOf(a.apiKey, feed.id, cipher),
    };
    const application = {
      queueId,
      jobId: cipher,
      jobTitle: "Rust <b>backend</b> @everyone",
      freelancerId: expect.any(String),
      profileId: expect.any(String),
      sentAt: new Date(sentAt).toISOString(),
      connectsCostUsd: expect.any(Number),
    };
    expect(bodies[0]).toMatchObject({ ...common, application: { ...application, stage: "viewed", stageAt: new Date(viewedAt).toISOString(), valueUsd: null } });
    expect(bodies[1]).toMatchObject({
      ...common,
      application: { ...application, stage: "replied", stageAt: new Date(repliedAt).toISOString(), valueUsd: null },
    });
    expect(bodies[2]).toMatchObject({
      ...common,
      createdAt: new Date(t.clock.now()).toISOString(),
      application: { ...application, stage: "hired", stageAt: new Date(t.clock.now()).toISOString(), outcome: "hired", valueUsd: 1500 },
    });
    expect(new Set(bodies.map((x) => x.id)).size).toBe(3);
    expect(Object.keys(bodies[2].application).sort()).toEqual(
      ["connectsCostUsd", "freelancerId", "jobId", "jobTitle", "jobUrl", "outcome", "profileId", "queueId", "sentAt", "stage", "stageAt", "valueUsd"].sort(),
    );
    // The other account's feed got its test event and its job alert, and nothing of this proposal.
    expect(theirs.received.filter((w) => String(w.json?.type).startsWith("proposal."))).toEqual([]);

    // The channel is in digest mode (the day's digest goes at midnight UTC, hours away): its job alert is held, yet
    // each outcome goes as its own short alert, as soon as Slack's pace (1 a second) allows.
    for (let i = 0; i < 5 && slack.received.length < 3; i++) {
      t.clock.advance(1_100);
      deliverer.notify();
      await deliverer.idle();
      await Bun.sleep(5);
    }
    const texts = slack.received.map((r) => r.body.text as string);
    expect(texts).toEqual([
      "Proposal viewed: Rust &lt;b&gt;backend&lt;/b&gt; @everyone",
      "Client replied: Rust &lt;b&gt;backend&lt;/b&gt; @everyone",
      "Hired: Rust &lt;b&gt;backend&lt;/b&gt; @everyone ($1,500)",
    ]);
    const buttons = JSON.stringify(slack.received[2]!.body.blocks);
    expect(buttons).toContain(`${PUBLIC_URL}/dashboard/jobs/${encodeURIComponent(cipher)}`);
    const held = await rows("SELECT status FROM events WHERE type = 'job.matched' AND target = ?", channel.body.channel.id);
    expect(held, "the job alert waits for its digest").toEqual([{ status: "held" }]);
    // The deliveries list shows them like any event.
    const log = await t.request("GET", `/api/v1/feeds/${feed.id}/deliveries?limit=50`, { key: a.apiKey });
    expect(log.status, show(log)).toBe(200);
    expect(log.body.deliveries.filter((d: { type: string; status: string }) => d.type.startsWith("proposal.") && d.status === "delivered")).toHaveLength(6);

    // A corrected value is recorded and sends nothing more. (Done after the deliveries: a payload is built when it is
    // sent, so a correction racing the first send would make the value it carries depend on timing.)
    const corrected = await outcome(a.apiKey, queueId, { outcome: "hired", valueUsd: 1800 });
    expect(corrected.status, show(corrected)).toBe(200);
    expect(corrected.body.valueUsd).toBe(1800);
    deliverer.notify();
    await deliverer.idle();
    expect(outcomeBodies(hook, feed.secret!)).toHaveLength(3);
    expect(slack.received).toHaveLength(3);
  }, 15_000); // two accounts, a channel and three stages end to end: about 5 s on PostgreSQL

  test("a reading that turns viewed and replied on at once writes both in stage order; a driver's hire and loss follow the rules", async () => {
    const { a } = await setup();
    const hook = await receiver();
    const feed = await addFeed(a.apiKey, { title: "all", outcomeEvents: true, webhookUrl: hook.url });
    const one = await ingest("First job");
    const two = await ingest("Second job");
    const first = await applyTo(a.apiKey, one, one);
    const second = await applyTo(a.apiKey, two, two);
    t.clock.advance(HOUR);
    const at = t.clock.now() - 5000;
    // Viewed, replied, an interview and a hire in one reading: three events (there is no interview event).
    reading = { viewed: true, replied: true, viewedAt: at, repliedAt: at + 1, interviewAt: at + 2, hiredAt: at + 3 };
    await advanceFromReading(t.deps, first, reading);
    expect((await outcomeEvents()).map(([, type]) => type)).toEqual(["proposal.viewed", "proposal.replied", "proposal.hired"]);
    expect(await repo.findApplication(t.deps.db, first)).toMatchObject({ interviewAtTs: at + 2, hiredAtTs: at + 3, outcome: "hired", outcomeAtTs: at + 3 });
    // A loss read after the hire contradicts it: nothing written, nothing sent.
    await advanceFromReading(t.deps, first, { viewed: true, replied: true, viewedAt: at, lostAt: at + 9 });
    expect(await repo.findApplication(t.deps.db, first)).toMatchObject({ outcome: "hired", outcomeAtTs: at + 3 });
    // A recorded loss: a hire read afterwards is not written and fires nothing; a reply read afterwards fills its time only.
    expect((await outcome(a.apiKey, second, { outcome: "lost" })).status).toBe(200);
    await advanceFromReading(t.deps, second, { viewed: true, replied: true, viewedAt: at, repliedAt: at + 1, hiredAt: at + 2 });
    expect(await repo.findApplication(t.deps.db, second)).toMatchObject({ outcome: "lost", hiredAtTs: null, repliedAtTs: at + 1 });
    expect(await outcomeEvents()).toHaveLength(3);
    // The hire then turned lost by hand: the hire time stays, and no second hired is written.
    expect((await outcome(a.apiKey, first, { outcome: "lost" })).status).toBe(200);
    expect(await outcomeEvents()).toHaveLength(3);
    await hook.waitFor(1 + 3);
    await deliverer.idle();
    // Sent after the hire fell through: the payload says so, and the value is gone with it.
    const hiredBody = hook.received.find((w) => w.json?.type === "proposal.hired")!.json;
    expect(hiredBody).toMatchObject({ feedId: feed.id, application: { stage: "hired", stageAt: new Date(at + 3).toISOString() } });
  });

  test("two syncs of one proposal at once write its events once", async () => {
    const { a } = await setup();
    const feed = await addFeed(a.apiKey, { title: "all", outcomeEvents: true, webhookUrl: (await receiver()).url });
    const cipher = await ingest("Concurrent job");
    const queueId = await applyTo(a.apiKey, cipher, cipher);
    const seen = { viewed: true, replied: true, viewedAt: t.clock.now(), repliedAt: t.clock.now() };
    await Promise.all([advanceFromReading(t.deps, queueId, seen), advanceFromReading(t.deps, queueId, seen), advanceFromReading(t.deps, queueId, seen)]);
    expect(await outcomeEvents()).toEqual([
      [feed.id, "proposal.viewed", "webhook"],
      [feed.id, "proposal.replied", "webhook"],
    ]);
  });

  test("opt-out, muted, and the feed the job was applied from: only feeds that asked hear of it", async () => {
    const { a } = await setup();
    const [offHook, mutedHook, fromHook, otherHook] = [await receiver(), await receiver(), await receiver(), await receiver()];
    const off = await addFeed(a.apiKey, { title: "off", webhookUrl: offHook.url });
    const muted = await addFeed(a.apiKey, { title: "muted", outcomeEvents: true, notificationsMuted: true, webhookUrl: mutedHook.url });
    const from = await addFeed(a.apiKey, { title: "applied from", outcomeEvents: true, webhookUrl: fromHook.url });
    const other = await addFeed(a.apiKey, { title: "also holds it", outcomeEvents: true, webhookUrl: otherHook.url });
    expect((await t.request("GET", `/api/v1/feeds/${off.id}`, { key: a.apiKey })).body.feed.outcomeEvents).toBe(false);
    const jobs = { off: await ingest("Job A"), muted: await ingest("Job B"), from: await ingest("Job C") };
    const apps = {
      off: await applyTo(a.apiKey, await entryOf(a.apiKey, off.id, jobs.off), jobs.off),
      muted: await applyTo(a.apiKey, await entryOf(a.apiKey, muted.id, jobs.muted), jobs.muted),
      from: await applyTo(a.apiKey, await entryOf(a.apiKey, from.id, jobs.from), jobs.from),
    };
    t.clock.advance(HOUR);
    reading = { viewed: true, replied: false, viewedAt: t.clock.now() };
    await sync();
    // Applied from "off" (opted out) and "muted": nothing at all, not even to the other feeds that hold the job.
    // Applied from "applied from": that feed only, not "also holds it".
    expect(await outcomeEvents()).toEqual([[from.id, "proposal.viewed", "webhook"]]);
    expect((await repo.findApplication(t.deps.db, apps.off))!.viewed).toBe(true);

    // The feed it was applied from is deleted: the account's other feeds holding the job hear of the next stage.
    expect((await t.request("DELETE", `/api/v1/feeds/${from.id}`, { key: a.apiKey })).status).toBe(200);
    const hired = await outcome(a.apiKey, apps.from, { outcome: "hired" });
    expect(hired.status, show(hired)).toBe(200);
    expect((await outcomeEvents()).filter(([f]) => f !== from.id)).toEqual([
      [other.id, "proposal.replied", "webhook"],
      [other.id, "proposal.hired", "webhook"],
    ]);
    // Turning the opt-in on later applies to what happens from then on.
    const on = await t.request("PATCH", `/api/v1/feeds/${off.id}`, { key: a.apiKey, json: { outcomeEvents: true } });
    expect(on.body.feed.outcomeEvents, show(on)).toBe(true);
    const bad = await t.request("PATCH", `/api/v1/feeds/${off.id}`, { key: a.apiKey, json: { outcomeEvents: "yes" } });
    expect(bad.status, show(bad)).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("outcomeEvents");
    expect((await outcome(a.apiKey, apps.off, { outcome: "replied" })).status).toBe(200);
    expect((await outcome(a.apiKey, apps.muted, { outcome: "replied" })).status).toBe(200);
    expect((await outcomeEvents()).filter(([f]) => f === off.id || f === muted.id)).toEqual([[off.id, "proposal.replied", "webhook"]]);
    await deliverer.idle();
    expect(mutedHook.received.filter((w) => String(w.json?.type).startsWith("proposal."))).toEqual([]);
  }, 10_000); // three applications through the sandbox: over a second on PostgreSQL

  test("a 409 writes no event, and an outcome POST to another account's application is a 404 that writes none", async () => {
    const { a, b } = await setup();
    await addFeed(a.apiKey, { title: "all", outcomeEvents: true, webhookUrl: (await receiver()).url });
    const cipher = await ingest("Lost job");
    const queueId = await applyTo(a.apiKey, cipher, cipher);
    expect((await outcome(a.apiKey, queueId, { outcome: "lost" })).status).toBe(200);
    const refused = await outcome(a.apiKey, queueId, { outcome: "hired", valueUsd: 100 });
    expect(refused.status, show(refused)).toBe(409);
    expect((await outcome(b.apiKey, queueId, { outcome: "replied" })).status).toBe(404);
    expect(await outcomeEvents()).toEqual([]);
  });

  test("the stage and its events are one transaction: when the event cannot be written, the stage is not either", async () => {
    const { a } = await setup();
    const feed = await addFeed(a.apiKey, { title: "all", outcomeEvents: true, webhookUrl: (await receiver()).url });
    const cipher = await ingest("Crash job");
    const queueId = await applyTo(a.apiKey, cipher, cipher);
    // A fault in the outbox, as a disk error would be: every insert of an outcome event fails.
    if (isPg(t.deps.db)) {
      await rawExec(
        t.deps.db,
        "f",
        "CREATE FUNCTION jp_test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'outbox refused'; END $$ LANGUAGE plpgsql",
        [],
      );
      await rawExec(
        t.deps.db,
        "t",
        "CREATE TRIGGER jp_test_refuse BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.type LIKE 'proposal.%') EXECUTE FUNCTION jp_test_refuse()",
        [],
      );
    } else {
      await rawExec(
        t.deps.db,
        "t",
        "CREATE TRIGGER jp_test_refuse BEFORE INSERT ON events WHEN NEW.type LIKE 'proposal.%' BEGIN SELECT RAISE(ABORT, 'outbox refused'); END",
        [],
      );
    }
    const auth = (await authenticate(t.deps, a.apiKey))!;
    await expect(recordOutcome(t.deps, auth, queueId, { outcome: "hired", valueUsd: 900 })).rejects.toThrow();
    reading = { viewed: true, replied: true, viewedAt: t.clock.now(), repliedAt: t.clock.now() };
    await sync(); // the sync logs the failure and goes on
    expect(await repo.findApplication(t.deps.db, queueId)).toMatchObject({ viewed: false, replied: false, hiredAtTs: null, outcome: null });
    expect(await outcomeEvents()).toEqual([]);

    await rawExec(t.deps.db, "d", "DROP TRIGGER jp_test_refuse" + (isPg(t.deps.db) ? " ON events" : ""), []);
    await sync();
    expect(await repo.findApplication(t.deps.db, queueId)).toMatchObject({ viewed: true, replied: true });
    expect(await outcomeEvents()).toEqual([
      [feed.id, "proposal.viewed", "webhook"],
      [feed.id, "proposal.replied", "webhook"],
    ]);
  });
});
