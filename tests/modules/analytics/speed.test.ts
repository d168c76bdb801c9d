import { describe, expect, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { authenticate } from "../../../src/modules/accounts/service";
import * as feeds from "../../../src/modules/feeds/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { TaskWorker } from "../../../src/worker/worker";
import { ManualClock } from "../../../src/lib/clock";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { applyWorker, settledByJob } from "../../helpers/apply-worker";
import { useCleanups } from "../../helpers/cleanups";
import { makeDoc } from "../../helpers/factories";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const SPEED = "/api/v1/analytics/speed";
const MIN = 60_000;

let t: TestApp;
let receiver: WebhookReceiver;
let deliverer: WebhookDeliverer;
let worker: TaskWorker;
const cleanup = useCleanups();

async function setup() {
  receiver = await startWebhookReceiver();
  cleanup(() => receiver.close());
  t = await createTestApp({
    clock: new ManualClock(),
    config: { webhookAllowPrivate: true, webhookTimeoutMs: 300, sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 },
  });
  cleanup(() => t.close());
  const a = await t.account({ credits: 5 });
  const b = await t.account({ name: "other", credits: 5 });
  deliverer = createDeliverer(t.deps);
  t.deps.work.subscribe(() => deliverer.notify());
  deliverer.start();
  cleanup(() => deliverer.stop());
  worker = applyWorker(t);
  cleanup(() => worker.stop());
  return { a, b, auth: (await authenticate(t.deps, a.apiKey))!, authB: (await authenticate(t.deps, b.apiKey))! };
}

/** Ingests one document published `agoMs` before the clock's now; its ciphertext. */
async function ingest(agoMs: number, over: { source?: string; title?: string } = {}): Promise<string> {
  const doc = makeDoc({ title: over.title, publishTime: new Date(t.clock.now() - agoMs).toISOString() });
  await ingestDocuments(t.deps, [doc], { source: over.source ?? "alpha" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const speed = (key: string, query = "") => t.request("GET", `${SPEED}${query}`, { key });
const one = (ms: number) => ({ count: 1, p50Ms: ms, p90Ms: ms, p99Ms: ms });
const none = { count: 0, p50Ms: null, p90Ms: null, p99Ms: null };

describe("speed to lead", () => {
  test("a job ingested, scored, alerted to a webhook, drafted and applied at known times gives each stage's time after publish", async () => {
    const { a, b, auth } = await setup();
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1); // the webhook.test event: no job's alert
    const publishTs = t.clock.now() - 3 * MIN;
    const cipher = await ingest(3 * MIN);
    await receiver.waitFor(2);
    await deliverer.idle();
    const deliveries = await t.request("GET", `/api/v1/feeds/${feed.id}/deliveries`, { key: a.apiKey });
    const matched = deliveries.body.deliveries.find((d: { type: string }) => d.type === "job.matched");
    expect(matched?.deliveredAt, show(deliveries)).toBeNumber();

    t.clock.advance(2 * MIN);
    const drafted = await t.request("POST", "/api/auto-apply-v2/generate-proposal", { key: a.apiKey, json: { jobId: cipher } });
    expect(drafted.status, show(drafted)).toBe(200);
    // A second letter later changes nothing: the first draft is the stage.
    t.clock.advance(MIN);
    await t.request("POST", "/api/auto-apply-v2/generate-proposal", { key: a.apiKey, json: { jobId: cipher } });

    t.clock.advance(MIN);
    const applied = await t.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId: cipher, coverLetter: "Hello, I can help." } });
    expect(applied.status, show(applied)).toBe(200);
    const settled = await settledByJob(t, worker, a.apiKey, cipher);
    expect(settled.body.applicationStatus, show(settled)).toBe("applied");

    const res = await speed(a.apiKey);
    expect(res.status, show(res)).toBe(200);
    const alertedMs = matched.deliveredAt - publishTs;
    expect(res.body).toEqual({
      jobs: 1,
      withoutPublishTime: 0,
      stages: {
        firstSeen: one(3 * MIN),
        scored: one(3 * MIN), // no profilePrompt: scored (score 5) as it was archived
        alerted: one(alertedMs),
        drafted: one(5 * MIN),
        submitted: one(settled.body.processedAt - publishTs),
      },
      alertedByTarget: [{ target: "webhook", ...one(alertedMs) }],
    });
    expect(settled.body.processedAt - publishTs).toBeGreaterThanOrEqual(7 * MIN);
    // /metrics has the submitted stage too, by the job's source (7 minutes after publish: the 600 s bucket).
    const text = await t.deps.metrics.render();
    expect(text).toContain('jobpilot_speed_to_lead_seconds_bucket{le="300",stage="submitted",source="alpha"} 0');
    expect(text).toContain('jobpilot_speed_to_lead_seconds_bucket{le="600",stage="submitted",source="alpha"} 1');

    // Another account sees none of it.
    const other = await speed(b.apiKey);
    expect(other.body, show(other)).toMatchObject({ jobs: 0, stages: { firstSeen: none, submitted: none }, alertedByTarget: [] });
  });

  test("percentiles are nearest-rank over the jobs in scope; feedId, source and from/to narrow them", async () => {
    const { a, auth } = await setup();
    await feeds.createFeed(t.deps, auth, { title: "all", minScore: 0, webhookUrl: receiver.url });
    const rust = await feeds.createFeed(t.deps, auth, { title: "rust", minScore: 0, includes: ["rust"], webhookUrl: `${receiver.url}?rust` });
    await receiver.waitFor(2);
    const nowTs = t.clock.now();
    // Ten alpha jobs seen 1..10 minutes after publish, two beta "Rust" jobs seen 20 and 30 minutes after.
    for (let i = 1; i <= 10; i++) await ingest(i * MIN);
    await ingest(20 * MIN, { source: "beta", title: "Rust service" });
    await ingest(30 * MIN, { source: "beta", title: "Rust CLI" });
    await receiver.waitFor(2 + 12 + 2);
    await deliverer.idle();

    const all = await speed(a.apiKey);
    expect(all.status, show(all)).toBe(200);
    expect(all.body.jobs).toBe(12);
    // Sorted: 1..10, 20, 30 minutes: rank ceil(0.5·12)=6 → 6 min, ceil(0.9·12)=11 → 20 min, ceil(0.99·12)=12 → 30 min.
    expect(all.body.stages.firstSeen).toEqual({ count: 12, p50Ms: 6 * MIN, p90Ms: 20 * MIN, p99Ms: 30 * MIN });
    expect(all.body.stages.alerted.count).toBe(12);
    expect(all.body.stages.submitted).toEqual(none);

    const beta = await speed(a.apiKey, "?source=beta");
    expect(beta.body.stages.firstSeen, show(beta)).toEqual({ count: 2, p50Ms: 20 * MIN, p90Ms: 30 * MIN, p99Ms: 30 * MIN });
    const inRust = await speed(a.apiKey, `?feedId=${rust.id}`);
    expect(inRust.body.jobs, show(inRust)).toBe(2);
    expect(inRust.body.alertedByTarget.map((x: { target: string; count: number }) => [x.target, x.count])).toEqual([["webhook", 2]]);
    // from inclusive, to exclusive, on the publish time: jobs published 3, 4 and 5 minutes before now.
    const window = await speed(a.apiKey, `?from=${nowTs - 5 * MIN}&to=${nowTs - 2 * MIN}`);
    expect(window.body.stages.firstSeen, show(window)).toEqual({ count: 3, p50Ms: 4 * MIN, p90Ms: 5 * MIN, p99Ms: 5 * MIN });
  });

  test("bad parameters are a 400 naming the field; another account's feed is a 404; no key is a 401", async () => {
    const { a, authB } = await setup();
    const theirs = await feeds.createFeed(t.deps, authB, { title: "theirs", minScore: 0 });
    for (const [query, field] of [
      ["?from=soon", "from"],
      ["?to=-1", "to"],
      ["?from=10&to=10", "from"],
      ["?source=", "source"],
      [`?feedId=${"x".repeat(101)}`, "feedId"],
    ] as const) {
      const res = await speed(a.apiKey, query);
      expect(res.status, `${query}: ${show(res)}`).toBe(400);
      expect(res.body.error, query).toContain(field);
    }
    const foreign = await speed(a.apiKey, `?feedId=${theirs.id}`);
    expect(foreign.status, show(foreign)).toBe(404);
    expect(foreign.body.error).toBe("Feed not found");
    expect((await speed("")).status).toBe(401);
  });

  test("/metrics histograms publish → first seen and → alerted by source", async () => {
    const { auth } = await setup();
    await feeds.createFeed(t.deps, auth, { title: "all", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1);
    await ingest(2 * MIN);
    await ingest(10 * MIN, { source: "beta" });
    await receiver.waitFor(3);
    await deliverer.idle();
    const text = await t.deps.metrics.render();
    expect(text).toContain('jobpilot_speed_to_lead_seconds_bucket{le="120",stage="first_seen",source="alpha"} 1');
    expect(text).toContain('jobpilot_speed_to_lead_seconds_bucket{le="600",stage="first_seen",source="beta"} 1');
    expect(text).toContain('jobpilot_speed_to_lead_seconds_bucket{le="300",stage="first_seen",source="beta"} 0');
    expect(text).toContain('jobpilot_speed_to_lead_seconds_count{stage="alerted",source="alpha"} 1');
    expect(text).toContain('jobpilot_speed_to_lead_seconds_count{stage="alerted",source="beta"} 1');
    // The webhook.test event is no job's alert: two deliveries observed, not three.
    expect(text).not.toContain('source="sample"');
  });
});
