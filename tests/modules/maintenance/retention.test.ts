import { afterEach, describe, expect, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import { newId } from "../../../src/lib/ids";
import { rawMany } from "../../../src/db/query";
import { authenticate } from "../../../src/modules/accounts/service";
import { audit } from "../../../src/modules/automation/governor";
import { insertSession } from "../../../src/modules/dashboard/repo";
import { signInWithKey } from "../../../src/modules/dashboard/service";
import { insertEvent } from "../../../src/modules/feeds/outbox";
import { deleteSettledEvents } from "../../../src/modules/feeds/retention";
import * as feeds from "../../../src/modules/feeds/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { pruneFeedEntriesBatch, pruneOldRows } from "../../../src/modules/maintenance/service";
import { runRetention } from "../../../src/modules/maintenance/retention.task";
import { pruneSessions } from "../../../src/modules/dashboard/sessions.task";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import type { TaskWorker } from "../../../src/worker/worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { applyWorker } from "../../helpers/apply-worker";
import { makeDoc } from "../../helpers/factories";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const DAY = 24 * 60 * 60 * 1000;

let t: TestApp;
let receiver: WebhookReceiver | undefined;
let deliverer: WebhookDeliverer | undefined;
let worker: TaskWorker | undefined;
afterEach(async () => {
  await deliverer?.stop();
  await worker?.stop();
  deliverer = undefined;
  worker = undefined;
  await receiver?.close();
  await t?.close();
});

/** Plain SQL on the app's database, either dialect; PostgreSQL's bigint (and count) strings come back as numbers. */
const rows = async (sql: string, ...args: unknown[]): Promise<any[]> =>
  (await rawMany<Record<string, unknown>>(t.deps.db, sql, sql, args)).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v])),
  );
const countOf = async (table: string) => (await rows(`SELECT count(*) AS n FROM ${table}`))[0].n as number;

async function ingest(title: string): Promise<string> {
  t.clock.advance(1); // entries in the order ingested
  const doc = makeDoc({ title, fixed: 500 });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

/** Moves the clock so due deliveries run, until every event with a webhook has settled. */
async function deliverAll() {
  for (let i = 0; i < 200; i++) {
    await deliverer!.idle();
    const open = await rows("SELECT count(*) AS n FROM events WHERE status IN ('pending', 'retrying')");
    if (open[0].n === 0) return;
    t.clock.advance(100);
    deliverer!.notify();
    await Bun.sleep(1);
  }
  throw new Error("events still pending");
}

/**
 * An installation 100 days old: a feed with a webhook (its test event and job.matched events delivered, each
 * with an attempt), a feed without one (with the no_endpoint events older versions wrote), a starred entry, an applied one, an event still
 * to send, an expired dashboard session; then a day of recent activity.
 */
async function history() {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ config: { webhookAllowPrivate: true, webhookTimeoutMs: 300, sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const a = await t.account({ credits: 5 });
  const auth = (await authenticate(t.deps, a.apiKey))!;
  deliverer = createDeliverer(t.deps);
  worker = applyWorker(t);
  t.deps.work.subscribe(() => deliverer?.notify());
  deliverer.start();

  const hooked = await feeds.createFeed(t.deps, auth, { title: "hooked", minScore: 0, includes: ["Rust"], webhookUrl: receiver.url });
  const plain = await feeds.createFeed(t.deps, auth, { title: "plain", minScore: 0, includes: ["Rust"] });
  // Versions before matches without a target stopped writing events wrote a no_endpoint one for each of the
  // plain feed's matches; a database may still hold them, and retention deletes them like any settled event.
  const ingestOld = async (title: string) => {
    const cipher = await ingest(title);
    const [entry] = await rows("SELECT id FROM feed_jobs WHERE feed_id = ? AND job_ciphertext = ?", plain.id, cipher);
    await insertEvent(t.deps.db, {
      id: `evt_${newId()}`,
      type: "job.matched",
      accountId: a.accountId,
      feedId: plain.id,
      target: "webhook",
      feedJobId: entry.id,
      jobCiphertext: cipher,
      createdAtTs: t.clock.now(),
      status: "no_endpoint",
      nextAttemptAtTs: null,
    });
    return cipher;
  };
  const oldJobs = { starred: await ingestOld("Rust starred"), applied: await ingestOld("Rust applied"), plain: await ingestOld("Rust plain") };
  await deliverAll();
  const entryOf = async (feedId: string, cipher: string) =>
    (await rows("SELECT id FROM feed_jobs WHERE feed_id = ? AND job_ciphertext = ?", feedId, cipher))[0].id as string;
  await feeds.patchFeedJob(t.deps, auth, hooked.id, await entryOf(hooked.id, oldJobs.starred), { starred: true });
  const applied = await t.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId: oldJobs.applied, coverLetter: "Hello" } });
  expect(applied.status, show(applied)).toBe(200);
  for (let i = 0; i < 500 && (await rows("SELECT status FROM applications"))[0].status === "processing"; i++) {
    t.clock.advance(10);
    worker.notify();
    await Bun.sleep(2);
  }
  expect((await rows("SELECT status FROM applications"))[0].status).toBe("applied");
  // An event still to send: the deliverer stops before it sees it (and stays stopped).
  await deliverer.stop();
  const waiting = await ingestOld("Rust waiting");
  const oldNow = t.clock.now();

  t.clock.advance(100 * DAY);
  const recent = await ingest("Rust recent");
  await signInWithKey(t.deps, a.apiKey);
  // A session signed in 100 days ago (inserted directly: signing in drops expired sessions itself).
  await insertSession(t.deps.db, {
    id: "old-session",
    accountId: a.accountId,
    keyId: a.keyId,
    memberId: null,
    csrfToken: "csrf",
    createdAtTs: oldNow,
    expiresAtTs: oldNow + 30 * DAY,
    lastSeenAtTs: oldNow,
  });
  return { auth, hooked, plain, oldJobs, waiting, recent, entryOf };
}

describe("retention", () => {
  test("deletes settled events with their attempts and old feed entries; keeps applications, credits, the archive, starred and applied entries, and events still to send", async () => {
    const h = await history();
    const before = {
      events: await rows("SELECT status, count(*) AS n FROM events GROUP BY status ORDER BY status"),
      attempts: await countOf("webhook_attempts"),
      applications: await rows("SELECT * FROM applications"),
      ledger: await rows("SELECT * FROM credit_ledger ORDER BY id"),
      accounts: await rows("SELECT id, credits_balance FROM accounts ORDER BY id"),
      jobs: await countOf("jobs"),
      sessions: await countOf("dashboard_sessions"),
    };
    expect(before.attempts).toBeGreaterThan(0);
    expect(before.sessions).toBe(2);

    const result = await pruneOldRows(t.deps, { retentionDays: 90, batchSize: 2, pauseMs: 0 });

    const left = await rows("SELECT e.status, e.job_ciphertext, e.type, e.created_at_ts FROM events e ORDER BY seq");
    // Old: the test event and 3 job.matched of the hooked feed (delivered), 3 no_endpoint of the plain feed; the
    // waiting job's two events (pending on the hooked feed, no_endpoint on the plain one). Recent: one more (this
    // version writes none for the plain feed, which has no target).
    expect(left.filter((e) => e.created_at_ts < t.clock.now() - 90 * DAY).map((e) => [e.status, e.job_ciphertext])).toEqual([["pending", h.waiting]]);
    expect(left.filter((e) => e.job_ciphertext === h.recent).map((e) => e.status)).toEqual(["pending"]);
    expect(result.events).toBe(8);
    // Attempts went with their events (the recent event is not sent yet: it has none).
    expect(await countOf("webhook_attempts")).toBe(0);

    const entries = await rows("SELECT feed_id, job_ciphertext FROM feed_jobs");
    const has = (feedId: string, cipher: string) => entries.some((e) => e.feed_id === feedId && e.job_ciphertext === cipher);
    expect(has(h.hooked.id, h.oldJobs.starred), "starred").toBe(true);
    expect(has(h.plain.id, h.oldJobs.starred), "the other feed's entry of the starred job").toBe(false);
    expect(has(h.hooked.id, h.oldJobs.applied) && has(h.plain.id, h.oldJobs.applied), "applied: both feeds' entries").toBe(true);
    expect(has(h.hooked.id, h.oldJobs.plain) || has(h.plain.id, h.oldJobs.plain), "old, nothing needs it").toBe(false);
    expect(has(h.hooked.id, h.waiting), "its event is still to send").toBe(true);
    expect(has(h.plain.id, h.waiting), "no event to send in this feed").toBe(false);
    expect(has(h.hooked.id, h.recent) && has(h.plain.id, h.recent)).toBe(true);
    expect(result.feedEntries).toBe(4);

    // Sessions are the dashboard's to prune (its own hourly task), not retention's.
    expect(await countOf("dashboard_sessions")).toBe(before.sessions);
    // Never touched: applications, the ledger and balances, the archive.
    expect(await rows("SELECT * FROM applications")).toEqual(before.applications);
    expect(await rows("SELECT * FROM credit_ledger ORDER BY id")).toEqual(before.ledger);
    expect(await rows("SELECT id, credits_balance FROM accounts ORDER BY id")).toEqual(before.accounts);
    expect(await countOf("jobs")).toBe(before.jobs);

    // A second run finds nothing more.
    expect(await pruneOldRows(t.deps, { retentionDays: 90, batchSize: 2, pauseMs: 0 })).toEqual({ events: 0, feedEntries: 0, companionTasks: 0 });
  }, 30_000);

  test("0 days keeps everything, and the scheduled task reads JOBPILOT_RETENTION_DAYS", async () => {
    await history();
    const counts = async () => ({ events: await countOf("events"), entries: await countOf("feed_jobs"), sessions: await countOf("dashboard_sessions") });
    const before = await counts();
    expect(await pruneOldRows(t.deps, { retentionDays: 0 })).toEqual({ events: 0, feedEntries: 0, companionTasks: 0 });
    t.deps.config.retentionDays = 0;
    await runRetention(t.deps);
    expect(await counts()).toEqual(before);
    // 200 days: the history is younger than that, so it all stays.
    t.deps.config.retentionDays = 200;
    await runRetention(t.deps);
    expect(await counts()).toEqual(before);
    // An expired session is of no use at any age: the dashboard's own task deletes it, whatever the retention.
    t.deps.config.retentionDays = 0;
    await pruneSessions(t.deps);
    expect(await counts()).toEqual({ ...before, sessions: before.sessions - 1 });
    t.deps.config.retentionDays = 200;
    t.deps.config.retentionDays = 90;
    await runRetention(t.deps);
    const after = await counts();
    expect(after.events).toBeLessThan(before.events);
    expect(after.entries).toBeLessThan(before.entries);
    expect(t.log.records().some((l) => l.msg === "retention: old rows deleted")).toBe(true);
  }, 30_000);

  test("entries of one ingest batch share a match time: the walk passes the applied ones among them and deletes the rest, whatever the batch size", async () => {
    for (const batchSize of [1, 2, 500]) {
      t = await createTestApp({});
      const a = await t.account({ credits: 5 });
      const auth = (await authenticate(t.deps, a.apiKey))!;
      await feeds.createFeed(t.deps, auth, { title: "plain", minScore: 0, includes: ["Elixir"] });
      const docs = Array.from({ length: 6 }, (_, i) => makeDoc({ title: `Elixir ${i}`, fixed: 500 }));
      await ingestDocuments(t.deps, docs, { source: "test" });
      const ciphers = docs.map((d) => (d.jobTile as { job: { ciphertext: string } }).job.ciphertext);
      expect(new Set((await rows("SELECT matched_at_ts FROM feed_jobs")).map((r) => r.matched_at_ts)).size).toBe(1);
      // Applied for (still processing: no worker runs) — kept like any application.
      for (const jobId of [ciphers[1], ciphers[4]]) {
        const res = await t.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId, coverLetter: "Hello" } });
        expect(res.status, show(res)).toBe(200);
      }
      t.clock.advance(100 * DAY);
      const result = await pruneOldRows(t.deps, { retentionDays: 90, batchSize, pauseMs: 0 });
      expect(result.feedEntries, `batch ${batchSize}`).toBe(4);
      expect((await rows("SELECT job_ciphertext FROM feed_jobs")).map((r) => r.job_ciphertext).sort()).toEqual([ciphers[1], ciphers[4]].sort());
      await t.close();
    }
    t = undefined as unknown as TestApp;
  }, 30_000);

  test("each batch deletes at most its limit, and a walk over protected rows still ends", async () => {
    const h = await history();
    const olderThanTs = t.clock.now() - 90 * DAY;
    const settledOld = async () =>
      (await rows("SELECT count(*) AS n FROM events WHERE created_at_ts < ? AND status NOT IN ('pending', 'retrying')", olderThanTs))[0].n as number;
    const start = await settledOld();
    expect(start).toBe(8);
    const first = await deleteSettledEvents(t.deps.db, { olderThanTs, afterSeq: 0, beforeSeq: null, limit: 3 });
    expect(first).toHaveLength(3);
    expect(await settledOld()).toBe(5);
    // After the cursor only; a bound below the old events finds none.
    expect(await deleteSettledEvents(t.deps.db, { olderThanTs, afterSeq: first[2]!, beforeSeq: first[2]! + 1, limit: 3 })).toEqual([]);

    const plainEntries = async () => (await rows("SELECT count(*) AS n FROM feed_jobs WHERE feed_id = ?", h.plain.id))[0].n as number;
    const entriesBefore = await plainEntries();
    // The plain feed's oldest entries: starred job's (free), applied job's (kept), plain job's (free), waiting job's (free).
    const one = await pruneFeedEntriesBatch(t.deps.db, h.plain.id, olderThanTs, null, 1);
    expect(one.deleted).toBe(1);
    expect(one.next).not.toBeNull();
    expect(await plainEntries()).toBe(entriesBefore - 1);
    // The applied job's entry is next: looked at, kept, and the walk moves past it.
    const two = await pruneFeedEntriesBatch(t.deps.db, h.plain.id, olderThanTs, one.next, 1);
    expect(two.deleted).toBe(0);
    expect(two.next).not.toBeNull();
    let cursor = two.next;
    let steps = 0;
    while (cursor && steps++ < 10) cursor = (await pruneFeedEntriesBatch(t.deps.db, h.plain.id, olderThanTs, cursor, 1)).next;
    expect(cursor).toBeNull();
    expect(await plainEntries()).toBe(entriesBefore - 3);
  }, 30_000);
});

describe("the automation audit log's own 90 days", () => {
  test("entries older than 90 days go at the hourly retention run, whatever JOBPILOT_RETENTION_DAYS; younger ones stay", async () => {
    t = await createTestApp();
    const { accountId, apiKey } = await t.account();
    const now = t.clock.now();
    for (const [age, action] of [
      [91 * DAY, "old"],
      [89 * DAY, "young"],
      [0, "now"],
    ] as const) {
      await audit(t.deps.db, { accountId, freelancerId: null, applicationId: null, action, rule: "test", detail: "", atTs: now - age });
    }
    t.deps.config.retentionDays = 0; // keeps every event and entry; the audit log is pruned anyway
    await runRetention(t.deps);
    const res = await t.request("GET", "/api/v1/audit", { key: apiKey });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.entries.map((e: { action: string }) => e.action)).toEqual(["now", "young"]);
    expect(res.body.total).toBe(2);
  });
});
