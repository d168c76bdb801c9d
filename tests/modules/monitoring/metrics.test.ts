import { describe, expect, test } from "bun:test";
import { useCleanups } from "../../helpers/cleanups";
import { createDeliverer } from "../../../src/cli/serve";
import type { Config } from "../../../src/config";
import { PG_BACKEND } from "../../helpers/postgres";
import { authenticate } from "../../../src/modules/accounts/service";
import * as feeds from "../../../src/modules/feeds/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { pollSource } from "../../../src/modules/intake/runner";
import { SCORE_TASK, scoreFeedMatch } from "../../../src/modules/scoring/service";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import type { JobSource } from "../../../src/sources/source";
import { TaskWorker } from "../../../src/worker/worker";
import { applyWorker } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { startFakeOpenAi, type FakeOpenAi } from "../../helpers/fake-openai";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const TOKEN = "metrics-token-0123456789";
const ADMIN = "admin-token-0123456789";

const later = useCleanups();

async function setup(config: Partial<Config> = {}) {
  const t = await createTestApp({ config: { metricsToken: TOKEN, adminToken: ADMIN, ...config } });
  later(() => t.close());
  return t;
}

/** The score tasks' worker, as `serve` runs it. */
function startScorer(app: TestApp): TaskWorker {
  const scorer = new TaskWorker(app.deps, { handlers: { [SCORE_TASK]: (p, c) => scoreFeedMatch(app.deps, p, c) }, concurrency: 2 });
  scorer.start();
  later(() => scorer.stop());
  return scorer;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (`name{a="x",b="y"} value`); comments skipped. */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample with this name and (at least) these labels; undefined when none. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

async function scrape(app: TestApp): Promise<Sample[]> {
  // Requests are observed after their response is handed over (a scheduled callback): let those run first.
  await new Promise((resolve) => setImmediate(resolve));
  const res = await app.request("GET", "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status, show(res)).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
  return parse(res.text);
}

describe("GET /metrics", () => {
  test("HTTP requests are labelled by route pattern and status, never by the raw path", async () => {
    const app = await setup();
    const { apiKey } = await app.account();
    for (const id of ["feed-one-id", "feed-two-id"]) expect((await app.request("GET", `/api/v1/feeds/${id}`, { key: apiKey })).status).toBe(404);
    expect((await app.request("GET", "/api/v1/feeds", { key: apiKey })).status).toBe(200);
    expect((await app.request("GET", "/api/v1/feeds")).status).toBe(401);
    expect((await app.request("GET", "/no/such/path-123")).status).toBe(404);
    const samples = await scrape(app);
    const count = (route: string, status: string, method = "GET") => value(samples, "jobpilot_http_request_duration_seconds_count", { method, route, status });
    expect(count("/api/v1/feeds/:feedId", "404")).toBe(2);
    expect(count("/api/v1/feeds", "200")).toBe(1);
    expect(count("/api/v1/feeds", "401")).toBe(1);
    expect(count("(unmatched)", "404")).toBe(1);
    // The histogram: every request lands in the +Inf bucket, and the latencies add up to something.
    expect(value(samples, "jobpilot_http_request_duration_seconds_bucket", { route: "/api/v1/feeds/:feedId", status: "404", le: "+Inf" })).toBe(2);
    expect(value(samples, "jobpilot_http_request_duration_seconds_sum", { route: "/api/v1/feeds/:feedId", status: "404" })).toBeGreaterThan(0);
    const routes = new Set(samples.filter((s) => s.labels.route).map((s) => s.labels.route));
    for (const raw of ["feed-one-id", "feed-two-id", "path-123"]) expect([...routes].some((r) => r!.includes(raw))).toBe(false);
  });

  test("counts ingested jobs by source, feed matches, applications by final status and the queue by task kind", async () => {
    const app = await setup({ sandboxApplyLatencyMs: 0 });
    const { apiKey } = await app.account({ credits: 3 });
    const auth = (await authenticate(app.deps, apiKey))!;
    await feeds.createFeed(app.deps, auth, { title: "everything", minScore: 0 });
    await feeds.createFeed(app.deps, auth, { title: "scored", minScore: 0, profilePrompt: "Go backend work" });
    const docs = [makeDoc({ title: "one" }), makeDoc({ title: "two" })];
    const queuedAt = app.clock.now();
    const pushed = await app.request("POST", "/admin/jobs", { json: docs, headers: { authorization: `Bearer ${ADMIN}` } });
    expect(pushed.status, show(pushed)).toBe(200);
    await app.request("POST", "/admin/jobs", { json: [docs[0], { title: "no id" }], headers: { authorization: `Bearer ${ADMIN}` } });
    // Applied through the sandbox by the submit worker.
    const worker = applyWorker(app);
    later(() => worker.stop());
    const cipher = (docs[1]!.jobTile as { job: { ciphertext: string } }).job.ciphertext;
    const applied = await app.request("POST", "/api/auto-apply-v2/apply", { key: apiKey, json: { jobId: cipher, coverLetter: "Hello there." } });
    expect(applied.status, show(applied)).toBe(200);
    for (let i = 0; i < 500; i++) {
      const res = await app.request("GET", `/api/auto-apply-v2/status?queueId=${applied.body.queueId}`, { key: apiKey });
      if (res.body.applicationStatus !== "processing") break;
      app.clock.advance(10);
      await Bun.sleep(2);
    }
    // The application's status is final before its worker has ended the submit task (a separate commit):
    // stopped here, the worker finishes that first, so the scrape sees no submit task left.
    await worker.stop();
    // Two score tasks wait (no scoring worker here), queued when the jobs came in.
    app.clock.advance(30_000);
    const samples = await scrape(app);
    expect(value(samples, "jobpilot_jobs_ingested_total", { source: "push", outcome: "new" })).toBe(2);
    expect(value(samples, "jobpilot_jobs_ingested_total", { source: "push", outcome: "known" })).toBe(1);
    expect(value(samples, "jobpilot_jobs_ingested_total", { source: "push", outcome: "rejected" })).toBe(1);
    expect(value(samples, "jobpilot_feed_matches_total", { score_source: "default" })).toBe(2);
    expect(value(samples, "jobpilot_applications_total", { status: "applied" })).toBe(1);
    expect(value(samples, "jobpilot_tasks", { kind: SCORE_TASK, state: "queued" })).toBe(2);
    expect(value(samples, "jobpilot_task_oldest_age_seconds", { kind: SCORE_TASK })).toBe((app.clock.now() - queuedAt) / 1000);
    expect(value(samples, "jobpilot_tasks", { kind: "apply.submit" })).toBeUndefined();
    expect(value(samples, "jobpilot_database_size_bytes")).toBeGreaterThan(0);
    // The process's memory, as process.memoryUsage() reads it at the scrape.
    const memory = process.memoryUsage();
    const near = (name: string, labels: Record<string, string>, now: number) => {
      const seen = value(samples, name, labels)!;
      expect(seen, name).toBeGreaterThan(0);
      expect(Math.abs(seen - now) / now, `${name} ${seen} vs ${now}`).toBeLessThan(0.5);
    };
    near("process_resident_memory_bytes", {}, memory.rss);
    near("jobpilot_js_heap_bytes", { state: "total" }, memory.heapTotal);
    // Not compared with total: Bun's heapUsed counts cells the engine's heap size does not, and can exceed it.
    expect(value(samples, "jobpilot_js_heap_bytes", { state: "used" })).toBeGreaterThan(0);
    expect(value(samples, "jobpilot_js_external_bytes")).toBeGreaterThanOrEqual(0);
    if (PG_BACKEND) {
      expect(value(samples, "jobpilot_postgres_pool_max_connections")).toBe(4);
      expect(value(samples, "jobpilot_sqlite_wal_bytes")).toBeUndefined();
    } else {
      expect(value(samples, "jobpilot_sqlite_wal_bytes")).toBe(0); // :memory: has no WAL file
      expect(value(samples, "jobpilot_postgres_pool_max_connections")).toBeUndefined();
    }
    expect(value(samples, "jobpilot_build_info", { version: app.deps.version })).toBe(1);
    // Scored with the local scorer, the queue is empty again and the scorings are counted.
    await startScorer(app).drain();
    const after = await scrape(app);
    expect(value(after, "jobpilot_tasks", { kind: SCORE_TASK, state: "queued" })).toBeUndefined();
    expect(value(after, "jobpilot_task_oldest_age_seconds", { kind: SCORE_TASK })).toBeUndefined();
    expect(value(after, "jobpilot_scorings_total", { score_source: "local" })).toBe(2);
    expect(value(after, "jobpilot_feed_matches_total", { score_source: "local" })).toBe(2);
  });

  test("counts model calls and their tokens", async () => {
    const fake: FakeOpenAi = await startFakeOpenAi();
    later(() => fake.close());
    fake.setFallback(() => ({ content: JSON.stringify({ score: 8, reason: "fit" }), usage: { prompt_tokens: 120, completion_tokens: 7 } }));
    const app = await setup({ openaiApiKey: "sk-test", openaiBaseUrl: fake.url, aiMaxRetries: 0 });
    const { apiKey } = await app.account();
    const auth = (await authenticate(app.deps, apiKey))!;
    await feeds.createFeed(app.deps, auth, { title: "scored", minScore: 0, profilePrompt: "Go backend work" });
    await ingestDocuments(app.deps, [makeDoc(), makeDoc()], { source: "test" });
    await startScorer(app).drain();
    const samples = await scrape(app);
    expect(value(samples, "jobpilot_model_calls_total", { purpose: "scoring", outcome: "ok" })).toBe(2);
    expect(value(samples, "jobpilot_model_tokens_total", { purpose: "scoring", type: "prompt" })).toBe(240);
    expect(value(samples, "jobpilot_model_tokens_total", { purpose: "scoring", type: "completion" })).toBe(14);
    expect(value(samples, "jobpilot_scorings_total", { score_source: "ai" })).toBe(2);
    expect(value(samples, "jobpilot_feed_matches_total", { score_source: "ai" })).toBe(2);
  });

  test("counts webhook deliveries by outcome with their latency, and source polls by outcome", async () => {
    const receiver: WebhookReceiver = await startWebhookReceiver();
    later(() => receiver.close());
    const app = await setup({ webhookAllowPrivate: true, webhookTimeoutMs: 500 });
    const { apiKey } = await app.account();
    const auth = (await authenticate(app.deps, apiKey))!;
    const deliverer: WebhookDeliverer = createDeliverer(app.deps);
    app.deps.work.subscribe(() => deliverer.notify());
    deliverer.start();
    later(() => deliverer.stop());
    await feeds.createFeed(app.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1); // the test event saving a URL sends
    await ingestDocuments(app.deps, [makeDoc()], { source: "test" });
    await receiver.waitFor(2);
    await deliverer.idle();
    receiver.setFallback({ status: 500 });
    await ingestDocuments(app.deps, [makeDoc()], { source: "test" });
    await receiver.waitFor(3);
    await deliverer.idle();
    const good: JobSource = { name: "good", intervalMs: 1000, poll: async () => ({ docs: [makeDoc()] }) };
    const bad: JobSource = {
      name: "bad",
      intervalMs: 1000,
      poll: async () => {
        throw new Error("board down");
      },
    };
    await pollSource(app.deps, good);
    await pollSource(app.deps, bad);
    await pollSource(app.deps, bad);
    // The good source's job matches the feed too: its webhook attempt (a 500) must be booked before the scrape,
    // or the receiver has seen an attempt the counters do not show yet.
    await deliverer.idle();
    const samples = await scrape(app);
    expect(value(samples, "jobpilot_deliveries_total", { kind: "webhook", outcome: "delivered" })).toBe(2);
    // Every answer after the switch was a 500: each one a failed attempt to be retried.
    expect(receiver.received.length).toBeGreaterThanOrEqual(3);
    expect(value(samples, "jobpilot_deliveries_total", { kind: "webhook", outcome: "retry" })).toBe(receiver.received.length - 2);
    expect(value(samples, "jobpilot_delivery_duration_seconds_count", { kind: "webhook", outcome: "delivered" })).toBe(2);
    expect(value(samples, "jobpilot_delivery_duration_seconds_sum", { kind: "webhook", outcome: "delivered" })).toBeGreaterThan(0);
    expect(value(samples, "jobpilot_source_polls_total", { source: "good", outcome: "ok" })).toBe(1);
    expect(value(samples, "jobpilot_source_polls_total", { source: "bad", outcome: "error" })).toBe(2);
    expect(value(samples, "jobpilot_jobs_ingested_total", { source: "good", outcome: "new" })).toBe(1);
  });

  test("with JOBPILOT_METRICS_TOKEN set, only that bearer token reads it (401 otherwise)", async () => {
    const app = await setup();
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong-token-0123456789" }, { authorization: TOKEN }];
    for (const headers of attempts) {
      const res = await app.request("GET", "/metrics", { headers });
      expect(res.status, show(res)).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect(res.body.error).toContain("JOBPILOT_METRICS_TOKEN");
      expect(res.text).not.toContain("jobpilot_");
    }
    await scrape(app);
  });

  test("without a token: refused (403) unless the request comes straight from loopback", async () => {
    const app = await setup({ metricsToken: undefined });
    // app.handle: no socket, no peer address: not known to be local.
    const inProcess = await app.request("GET", "/metrics");
    expect(inProcess.status, show(inProcess)).toBe(403);
    expect(inProcess.body.error).toContain("JOBPILOT_METRICS_TOKEN");
    app.app.listen({ hostname: "127.0.0.1", port: 0 });
    later(() => app.app.stop(true));
    const url = `http://127.0.0.1:${app.app.server!.port}/metrics`;
    const local = await fetch(url);
    expect(local.status).toBe(200);
    expect(await local.text()).toContain("jobpilot_http_request_duration_seconds");
    // A reverse proxy on this machine connects from loopback too: its forwarding headers give it away.
    for (const header of ["x-forwarded-for", "forwarded", "x-real-ip"]) {
      const proxied = await fetch(url, { headers: { [header]: header === "forwarded" ? "for=203.0.113.5" : "203.0.113.5" } });
      expect(proxied.status, header).toBe(403);
    }
  });

  test("JOBPILOT_METRICS=false: no /metrics route and no request is observed", async () => {
    const app = await setup({ metricsEnabled: false });
    expect((await app.request("GET", "/healthz")).status).toBe(200);
    const res = await app.request("GET", "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    expect(await app.deps.metrics.render()).not.toContain("jobpilot_http_request_duration_seconds_count");
  });

  test("each app has its own registry: one app's requests never show in another's metrics", async () => {
    const first = await setup();
    await first.request("GET", "/healthz");
    const other = await setup();
    const samples = await scrape(other);
    expect(value(samples, "jobpilot_http_request_duration_seconds_count", { route: "/healthz" })).toBeUndefined();
  });
});
