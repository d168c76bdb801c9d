/**
 * connects.low and budget.low (automation/alerts.ts), end to end in process: the real app, deliverer and task
 * worker (sandbox marketplace, governor on) against a local webhook receiver. Each alert goes once per period —
 * the balance's until it is back at or above its threshold, a budget's once per period key — to the feed of the
 * application that spent the Connects, else to the account's draft- and auto-mode feeds.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { applyWorker, settledByJob } from "../../helpers/apply-worker";
import { useCleanups } from "../../helpers/cleanups";
import { makeDoc } from "../../helpers/factories";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { until } from "../../helpers/poll";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

/** Tuesday 1 December 2026, 10:00 UTC. */
const TUESDAY = Date.UTC(2026, 11, 1, 10, 0);
/** The Connects the test jobs list (connectPrice): what the governor expects and the sandbox charges. */
const PRICE = 16;

// In-process delivery and worker: a few seconds on a busy machine, more on PostgreSQL.
setDefaultTimeout(20_000);
const cleanup = useCleanups();
let t: TestApp;

async function setup() {
  t = await createTestApp({
    clock: new ManualClock(TUESDAY),
    config: {
      governor: true,
      webhookAllowPrivate: true,
      webhookTimeoutMs: 1_000,
      sandboxApplyLatencyMs: 0,
      loggedOutWindowMs: 0,
      publicUrl: "https://jobs.example.com",
    },
  });
  cleanup(() => t.close());
  const deliverer = createDeliverer(t.deps);
  t.deps.work.subscribe(() => deliverer.notify());
  deliverer.start();
  cleanup(() => deliverer.stop());
  const worker = applyWorker(t);
  cleanup(() => worker.stop());
  const a = await t.account({ credits: 50 });
  await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
  const freelancerId = freelancerIdFor(a.accountId);
  await setConnects(t.deps.db, freelancerId, 1_000);
  return { ...a, freelancerId, worker, deliverer };
}

async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  cleanup(() => r.close());
  return r;
}

async function addFeed(key: string, json: Record<string, unknown>, applyMode?: "draft" | "auto"): Promise<string> {
  const res = await t.request("POST", "/api/v1/feeds", { key, json: { minScore: 0, ...json } });
  expect(res.status, show(res)).toBe(201);
  const id = res.body.feed.id as string;
  if (applyMode) {
    const mode = await t.request("PUT", `/api/v1/automation/feeds/${id}`, { key, json: { applyMode } });
    expect(mode.status, show(mode)).toBe(200);
  }
  return id;
}

const alertsOf = (r: WebhookReceiver, type: string) => r.received.filter((w) => w.json?.type === type).map((w) => w.json);

async function setBalance(key: string, freelancerId: string, available: number): Promise<void> {
  const res = await t.request("PUT", "/api/v1/automation/connects", { key, json: { freelancerId, available } });
  expect(res.status, show(res)).toBe(200);
}

/** Waits for the receiver to have `n` events of the type (a delivery after a commit is not instant, on PostgreSQL least). */
const arrived = (r: WebhookReceiver, type: string, n: number) => until(() => alertsOf(r, type).length >= n, `${n} ${type}`);

/** Waits until the deliverer has nothing left to send, so "no second alert" is a fact, not a race. */
const settle = (d: { idle(): Promise<void> }) => d.idle();

async function applyTo(key: string, worker: ReturnType<typeof applyWorker>, title: string): Promise<string> {
  const base = makeDoc({ title, skills: ["Rust"], publishTime: new Date(t.clock.now() - 60_000).toISOString() });
  const doc = { ...base, connectPrice: PRICE };
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const cipher = (base.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  const res = await t.request("POST", "/api/auto-apply-v2/apply", { key, json: { jobId: cipher, coverLetter: `Hello, about ${title}: I can help.` } });
  expect(res.status, show(res)).toBe(200);
  const final = await settledByJob(t, worker, key, cipher);
  return final.body.applicationStatus;
}

describe("connects.low", () => {
  test("once while the balance is low, again after it was back above; to the draft and auto feeds only, in plain words", async () => {
    const { apiKey, freelancerId, deliverer } = await setup();
    const draftHook = await receiver();
    const autoHook = await receiver();
    const alertHook = await receiver();
    await setBalance(apiKey, freelancerId, 500); // auto mode wants a budget and working hours first
    const limits = await t.request("PATCH", "/api/v1/automation", {
      key: apiKey,
      json: { connectsPerMonth: 10_000, workingHours: { timeZone: "UTC", days: [0, 1, 2, 3, 4, 5, 6], start: "00:00", end: "23:59" } },
    });
    expect(limits.status, show(limits)).toBe(200);
    const draftFeed = await addFeed(apiKey, { title: "Drafts", webhookUrl: draftHook.url }, "draft");
    const autoFeed = await addFeed(apiKey, { title: "Auto", webhookUrl: autoHook.url }, "auto");
    await addFeed(apiKey, { title: "Alerts only", webhookUrl: alertHook.url });
    await Promise.all([draftHook.waitFor(1), autoHook.waitFor(1), alertHook.waitFor(1)]); // webhook.test each

    await setBalance(apiKey, freelancerId, 12);
    await draftHook.waitFor(2);
    await autoHook.waitFor(2);
    const [first] = alertsOf(draftHook, "connects.low");
    expect(first).toMatchObject({
      type: "connects.low",
      feedId: draftFeed,
      feedTitle: "Drafts",
      jobId: null,
      balance: { freelancerId, available: 12, threshold: 30, estimated: false },
    });
    expect(first.balance.freelancerName).toBeString();
    expect(alertsOf(autoHook, "connects.low")).toMatchObject([{ feedId: autoFeed, balance: { available: 12 } }]);

    // Still low: no second alert. Back above, then low again: one more.
    await setBalance(apiKey, freelancerId, 10);
    await setBalance(apiKey, freelancerId, 29);
    await settle(deliverer);
    expect(alertsOf(draftHook, "connects.low")).toHaveLength(1);
    await setBalance(apiKey, freelancerId, 30);
    await setBalance(apiKey, freelancerId, 8);
    await draftHook.waitFor(3);
    await settle(deliverer);
    expect(alertsOf(draftHook, "connects.low").map((a) => a.balance.available)).toEqual([12, 8]);
    expect(alertsOf(autoHook, "connects.low").map((a) => a.balance.available)).toEqual([12, 8]);
    // A feed in alert mode spends no Connects: it hears of none of this.
    expect(alertsOf(alertHook, "connects.low")).toEqual([]);

    // The deliveries list names no feed entry for an alert (its row keeps the alert's facts instead).
    const deliveries = await t.request("GET", `/api/v1/feeds/${draftFeed}/deliveries`, { key: apiKey });
    expect(deliveries.status, show(deliveries)).toBe(200);
    const rows = deliveries.body.deliveries.filter((d: { type: string }) => d.type === "connects.low");
    expect(rows).toHaveLength(2);
    expect(rows.every((d: { processedJobId: unknown; status: string }) => d.processedJobId === null && d.status === "delivered")).toBe(true);
  });

  test("a submission that leaves the freelancer under the threshold alerts once, on the feed it was applied from", async () => {
    const { apiKey, freelancerId, worker, deliverer } = await setup();
    const hook = await receiver();
    const otherHook = await receiver();
    const feed = await addFeed(apiKey, { title: "Rust", includes: ["rust"], webhookUrl: hook.url });
    await addFeed(apiKey, { title: "Other drafts", includes: ["golang"], webhookUrl: otherHook.url }, "draft");
    await Promise.all([hook.waitFor(1), otherHook.waitFor(1)]);
    await setConnects(t.deps.db, freelancerId, 40);

    expect(await applyTo(apiKey, worker, "Rust service one")).toBe("applied"); // 40 − 16 = 24 < 30
    await arrived(hook, "connects.low", 1);
    await settle(deliverer);
    const alerts = alertsOf(hook, "connects.low");
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ feedId: feed, balance: { freelancerId, available: 40 - PRICE, threshold: 30 } });
    expect(alerts[0].jobId).toStartWith("~");
    // The application's feed carries it: the account's draft feed does not hear of it as well.
    expect(alertsOf(otherHook, "connects.low")).toEqual([]);

    t.clock.advance(60 * 60_000); // past the governor's pacing
    expect(await applyTo(apiKey, worker, "Rust service two")).toBe("applied"); // 24 − 16 = 8: still low, no second alert
    await settle(deliverer);
    expect(alertsOf(hook, "connects.low")).toHaveLength(1);
  });
});

describe("budget.low", () => {
  test("once per period key: again in the next week, not twice in one", async () => {
    const { apiKey, freelancerId, worker, deliverer } = await setup();
    const hook = await receiver();
    const feed = await addFeed(apiKey, { title: "Rust", includes: ["rust"], webhookUrl: hook.url });
    await hook.waitFor(1);
    const patched = await t.request("PATCH", "/api/v1/automation", { key: apiKey, json: { connectsPerWeek: 30, lowBudgetBelow: 20 } });
    expect(patched.status, show(patched)).toBe(200);

    expect(await applyTo(apiKey, worker, "Rust week one")).toBe("applied"); // 16 of 30 spent: 14 left < 20
    await arrived(hook, "budget.low", 1);
    await settle(deliverer);
    const [first, ...more] = alertsOf(hook, "budget.low");
    expect(more).toEqual([]);
    expect(first).toMatchObject({
      type: "budget.low",
      feedId: feed,
      budget: { scope: "account", freelancerId, period: "week", periodKey: "2026-11-W30", cap: 30, spent: PRICE, left: 30 - PRICE, threshold: 20 },
    });
    expect(Date.parse(first.budget.from)).toBe(Date.UTC(2026, 10, 30));
    expect(Date.parse(first.budget.to)).toBe(Date.UTC(2026, 11, 7));

    // Checked again in the same week (a balance set by hand checks the budgets too): claimed already, nothing sent.
    await setBalance(apiKey, freelancerId, 900);
    t.clock.advance(60 * 60_000);
    expect(await applyTo(apiKey, worker, "Rust week one again")).toBe("not_enough_connects"); // 16 + 16 > 30: refused
    await settle(deliverer);
    expect(alertsOf(hook, "budget.low")).toHaveLength(1);

    // Next Monday: a new period, a new alert.
    t.clock.set(Date.UTC(2026, 11, 7, 10, 0));
    expect(await applyTo(apiKey, worker, "Rust week two")).toBe("applied");
    await arrived(hook, "budget.low", 2);
    await settle(deliverer);
    expect(alertsOf(hook, "budget.low").map((a) => a.budget.periodKey)).toEqual(["2026-11-W30", "2026-12-W7"]);
  });
});

describe("application.held from the governor", () => {
  test("a letter held as too similar announces itself once, with its letter and why; one approved before it went sends nothing", async () => {
    const { apiKey, worker, deliverer } = await setup();
    const hook = await receiver();
    const feed = await addFeed(apiKey, { title: "Rust", includes: ["rust"], webhookUrl: hook.url });
    await hook.waitFor(1);
    const letter = (title: string) => `Hello, I can help with ${title}: I have built Rust services like this for years and ship them tested.`;
    const applyWith = async (title: string, coverLetter: string) => {
      const base = makeDoc({ title, skills: ["Rust"], publishTime: new Date(t.clock.now() - 60_000).toISOString() });
      await ingestDocuments(t.deps, [{ ...base, connectPrice: PRICE }], { source: "test" });
      const cipher = (base.jobTile as { job: { ciphertext: string } }).job.ciphertext;
      const res = await t.request("POST", "/api/auto-apply-v2/apply", { key: apiKey, json: { jobId: cipher, coverLetter } });
      expect(res.status, show(res)).toBe(200);
      return { cipher, queueId: res.body.queueId as string };
    };
    const sent = await applyWith("Rust service A", letter("the Rust service"));
    expect((await settledByJob(t, worker, apiKey, sent.cipher)).body.applicationStatus).toBe("applied");

    // The same letter again: held by the similarity guard, and announced.
    t.clock.advance(60 * 60_000);
    const same = await applyWith("Rust service B", letter("the Rust service"));
    await until(async () => (await t.request("GET", "/api/v1/applications/held", { key: apiKey })).body.applications.length === 1, "the hold");
    await arrived(hook, "application.held", 1);
    await settle(deliverer);
    const events = hook.received.filter((w) => w.json?.type === "application.held").map((w) => w.json);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      feedId: feed,
      jobId: same.cipher,
      application: { queueId: same.queueId, kind: "similar", coverLetter: letter("the Rust service"), reviewUrl: "https://jobs.example.com/dashboard/review" },
    });
    expect(events[0].application.why).toContain("% like one this freelancer sent");
    expect(events[0].application.job).toMatchObject({ ciphertext: same.cipher, title: "Rust service B" });

    // Held again and approved before its event goes (the webhook answering 500, then retried): the retry sends nothing.
    t.clock.advance(60 * 60_000);
    hook.setFallback({ status: 500 });
    const third = await applyWith("Rust service C", letter("the Rust service"));
    await until(async () => (await t.request("GET", "/api/v1/applications/held", { key: apiKey })).body.applications.length === 2, "the second hold");
    const heldStatuses = async () =>
      (await rawMany<{ status: string }>(t.deps.db, "t.held", "SELECT status FROM events WHERE type = 'application.held' ORDER BY seq", [])).map(
        (r) => r.status,
      );
    await until(async () => (await heldStatuses())[1] === "retrying", "the failed first attempt");
    const approved = await t.request("POST", `/api/v1/applications/${third.queueId}/approve`, { key: apiKey, json: {} });
    expect(approved.status, show(approved)).toBe(200);
    hook.setFallback({ status: 200 });
    t.clock.advance(10 * 60_000); // past the first retry's delay
    deliverer.notify();
    await until(async () => (await heldStatuses())[1] !== "retrying", "the retry");
    const listed = await t.request("GET", `/api/v1/feeds/${feed}/deliveries`, { key: apiKey });
    expect(listed.status, show(listed)).toBe(200);
    const held = listed.body.deliveries.filter((d: { type: string }) => d.type === "application.held");
    expect(hook.received.filter((w) => w.json?.type === "application.held")).toHaveLength(2); // no second attempt went
    expect(held.map((d: { status: string; lastError: string | null }) => [d.status, d.lastError])).toEqual([
      ["skipped", "The application is no longer waiting for review (approved, discarded or gone)"],
      ["delivered", null],
    ]);
  });
});
