import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { closeDeps, createDeps } from "../../../src/deps";
import { memoryLogger } from "../../../src/lib/log";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import * as feeds from "../../../src/modules/feeds/service";
import { authenticate } from "../../../src/modules/accounts/service";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { PG_BACKEND } from "../../helpers/postgres";

let t: TestApp;
afterEach(() => t?.close());

// Reads through the runners so the file runs on either backend (PostgreSQL's count and bigint come back as strings).
const rows = <T>(sql: string) => rawMany<T>(t.deps.db, sql, sql, []);
const count = async (sql: string) => Number((await rows<{ n: number | string }>(sql))[0]!.n);

// A webhook no test here delivers to (no deliverer runs): a match writes an outbox event only for a feed with a target.
const HOOK = "http://127.0.0.1:9/hook";

async function setup(config = {}) {
  t = await createTestApp({ config: { webhookAllowPrivate: true, ...config } });
  const { apiKey } = await t.account();
  const auth = (await authenticate(t.deps, apiKey))!;
  const feed = (body: Record<string, unknown>) => feeds.createFeed(t.deps, auth, { title: "f", minScore: 0, ...body });
  return { apiKey, auth, feed };
}

describe("ingestion", async () => {
  test("counts documents, rejects bad ones with their position and reason, and keeps the rest", async () => {
    await setup();
    const result = await ingestDocuments(t.deps, [makeDoc(), { title: "no description" }, "text", makeDoc({ ciphertext: "nope" }), makeDoc()], {
      source: "test",
    });
    expect(result).toMatchObject({ received: 5, inserted: 2, updated: 0, rejected: 3 });
    expect(result.errors.map((e) => e.at)).toEqual([1, 2, 3]);
    for (const e of result.errors) expect(e.error.length).toBeGreaterThan(5);
    expect(await count("SELECT count(*) AS n FROM jobs")).toBe(2);
  });

  test("a new job enters a prompt-less feed with score 5 and writes one outbox event in the same commit", async () => {
    const { feed } = await setup();
    const open = await feed({ minScore: 5, webhookUrl: HOOK });
    const muted = await feed({ notificationsMuted: true, webhookUrl: HOOK });
    const plain = await feed({ minScore: 5 });
    const tooHigh = await feed({ minScore: 4, includes: ["nothing-matches-this"] });
    t.clock.advance(1000);
    const result = await ingestDocuments(t.deps, [makeDoc({ title: "Build a dashboard" })], { source: "test" });
    expect(result).toMatchObject({ inserted: 1, matched: 3, scoring: 0 });
    const entries = await rows<any>("SELECT feed_id, matching_score, score_source FROM feed_jobs ORDER BY feed_id");
    expect(entries.map((r) => r.feed_id).sort()).toEqual([open.id, muted.id, plain.id].sort());
    expect(entries.every((r) => r.matching_score === 5 && r.score_source === "default")).toBe(true);
    const events = await rows<any>("SELECT feed_id, type, feed_job_id FROM events WHERE type = 'job.matched'");
    // The muted feed is matched but not notified; the plain one (no webhook, no channel) has nothing to notify.
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ feed_id: open.id, type: "job.matched" });
    expect(entries.some((r) => r.feed_id === tooHigh.id)).toBe(false); // minScore above the default score: not entered
  });

  test("a feed with a prompt gets a scoring task instead, and the workers are woken", async () => {
    const { feed } = await setup();
    await feed({ profilePrompt: "Dashboards in React", minScore: 6 });
    let woken = 0;
    t.deps.work.subscribe(() => woken++);
    t.clock.advance(1000);
    const result = await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    expect(result).toMatchObject({ inserted: 1, matched: 0, scoring: 1 });
    expect(await count("SELECT count(*) AS n FROM tasks WHERE kind = 'score' AND status = 'queued'")).toBe(1);
    expect(woken).toBe(1);
  });

  test("one batch: events in match order (jobs, then each job's feeds); a ciphertext met again in the batch is a known job", async () => {
    const { feed } = await setup();
    const a = await feed({ webhookUrl: HOOK });
    const b = await feed({ webhookUrl: HOOK });
    t.clock.advance(1000);
    const T = Date.UTC(2026, 0, 15, 12);
    const first = makeDoc({ title: "First", exploredAt: T + 1000 });
    const second = makeDoc({ title: "Second" });
    const result = await ingestDocuments(t.deps, [first, second, { ...first, title: "First, newer", exploredAt: T + 2000 }], { source: "test" });
    expect(result).toMatchObject({ received: 3, inserted: 2, updated: 1, matched: 4 });
    const order = [a.id, b.id].sort(); // the index returns a job's feeds in its own order; the events keep it per job
    const events = await rows<{ feed_id: string; title: string }>(
      "SELECT e.feed_id, j.title FROM events e JOIN jobs j ON j.ciphertext = e.job_ciphertext WHERE e.type = 'job.matched' ORDER BY e.seq",
    );
    expect(events.map((e) => e.title)).toEqual(["First, newer", "First, newer", "Second", "Second"]);
    expect([events[0]!.feed_id, events[1]!.feed_id].sort()).toEqual(order);
    expect(await count("SELECT count(*) AS n FROM feed_jobs")).toBe(4);
    expect(await count("SELECT count(*) AS n FROM job_tracking")).toBe(2);
    expect((await rows<{ title: string }>("SELECT title FROM jobs ORDER BY title")).map((r) => r.title)).toEqual(["First, newer", "Second"]);
  });

  test("a known ciphertext refreshes the archive but never matches or notifies again; the freshest document wins", async () => {
    const { feed } = await setup();
    await feed({ webhookUrl: HOOK });
    t.clock.advance(1000);
    const T = Date.UTC(2026, 0, 15, 12);
    const doc = makeDoc({ title: "Original", exploredAt: T + 2000 });
    await ingestDocuments(t.deps, [doc], { source: "test" });
    const again = await ingestDocuments(t.deps, [{ ...doc, title: "Newer", exploredAt: T + 3000 }], { source: "test" });
    expect(again).toMatchObject({ inserted: 0, updated: 1, matched: 0, scoring: 0 });
    const older = await ingestDocuments(t.deps, [{ ...doc, title: "Older", exploredAt: T + 1000 }], { source: "test" });
    expect(older).toMatchObject({ inserted: 0, updated: 1 });
    const stored = await rows<{ title: string; e: number | string }>("SELECT title, explored_at_ts AS e FROM jobs");
    expect(stored.map((r) => ({ title: r.title, e: Number(r.e) }))).toEqual([{ title: "Newer", e: T + 3000 }]);
    expect(await count("SELECT count(*) AS n FROM feed_jobs")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM events WHERE type = 'job.matched'")).toBe(1);
  });

  test("no backfill: a feed created after a job was first seen never gets it", async () => {
    const { feed } = await setup();
    const doc = makeDoc();
    await ingestDocuments(t.deps, [doc], { source: "test" });
    t.clock.advance(1000);
    const late = await feed({});
    await ingestDocuments(t.deps, [doc], { source: "test" });
    expect(await count(`SELECT count(*) AS n FROM feed_jobs WHERE feed_id = '${late.id}'`)).toBe(0);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    expect(await count(`SELECT count(*) AS n FROM feed_jobs WHERE feed_id = '${late.id}'`)).toBe(1);
  });

  test("each account's matching feeds get the job; filters apply", async () => {
    await setup();
    const other = (await authenticate(t.deps, (await t.account({ name: "other" })).apiKey))!;
    const mine = (await authenticate(t.deps, (await t.account({ name: "mine" })).apiKey))!;
    await feeds.createFeed(t.deps, mine, { title: "go", minScore: 0, includes: ["go"] });
    await feeds.createFeed(t.deps, other, { title: "go too", minScore: 0, includes: ["golang", "go"], excludedCountries: ["India"] });
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc({ title: "Go microservice", country: "India" }), makeDoc({ title: "A good plan" })], { source: "test" });
    const entries = await rows<{ a: string }>("SELECT account_id AS a FROM feed_jobs");
    expect(entries.map((r) => r.a)).toEqual([mine.accountId]);
  });

  test("POST /admin/jobs ingests one document or an array, needs the admin token, and reports counts", async () => {
    await setup({ adminToken: "admin-token-0123456789" });
    const headers = { authorization: "Bearer admin-token-0123456789" };
    expect((await t.request("POST", "/admin/jobs", { json: makeDoc() })).status).toBe(401);
    const one = await t.request("POST", "/admin/jobs", { headers, json: makeDoc() });
    expect(one.status, show(one)).toBe(200);
    expect(one.body).toMatchObject({ received: 1, inserted: 1, rejected: 0, errors: [] });
    const many = await t.request("POST", "/admin/jobs", { headers, json: [makeDoc(), { nope: true }] });
    expect(many.body).toMatchObject({ received: 2, inserted: 1, rejected: 1 });
    expect(many.body.errors[0].at).toBe(1);
    const notObject = await t.request("POST", "/admin/jobs", { headers, json: "x" });
    expect(notObject.status).toBe(400);
  });

  test("a job url that is not http or https is archived as null, the reason reported, and the job still goes in", async () => {
    await setup({ adminToken: "admin-token-0123456789" });
    const headers = { authorization: "Bearer admin-token-0123456789" };
    const web = { platform: "web", id: "board-1", title: "Web job", description: "Do it.", url: "javascript:alert(document.cookie)" };
    const market: Record<string, unknown> = { ...makeDoc(), url: "data:text/html,<script>alert(1)</script>" };
    const fine = { platform: "web", id: "board-2", title: "Fine job", description: "Do it.", url: "https://boards.example/jobs/2" };
    const res = await t.request("POST", "/admin/jobs", { headers, json: [web, fine, market] });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ received: 3, inserted: 3, rejected: 0, errors: [] });
    expect(res.body.notes).toEqual([
      { at: 0, note: expect.stringMatching(/^url dropped: only http and https links are kept \(got a javascript: link\)$/) },
      { at: 2, note: expect.stringMatching(/^url dropped: .*\(got a data: link\)$/) },
    ]);
    const jobRows = await rows<{ title: string; url: string; document: string }>("SELECT title, url, document FROM jobs");
    const stored = Object.fromEntries(jobRows.map((r) => [r.title, { url: r.url, documentUrl: JSON.parse(r.document).url }]));
    expect(stored["Web job"]).toEqual({ url: "", documentUrl: null });
    expect(stored["Fine job"]).toEqual({ url: "https://boards.example/jobs/2", documentUrl: "https://boards.example/jobs/2" });
    expect(stored[market.title as string]!.documentUrl).toBeNull();
    expect(stored[market.title as string]!.url).toStartWith("https://www.upwork.com/jobs/~");
    // The archive serves the cleaned document.
    const archived = await t.request("GET", `/api/v1/jobs/${encodeURIComponent((market.jobTile as { job: { ciphertext: string } }).job.ciphertext)}`, {
      key: (await t.account()).apiKey,
    });
    expect(archived.status, show(archived)).toBe(200);
    expect(JSON.stringify(archived.body)).not.toContain("data:text/html");
  });
});

describe("two nodes ingesting at once", () => {
  // Skipped on SQLite, run on PostgreSQL: SQLite has one process per file, and two connections of one process to
  // a file would wait on each other's write lock synchronously.
  test.skipIf(!PG_BACKEND)(
    "the same documents through two nodes: every job archived, matched and notified once, neither batch fails",
    async () => {
      const N = 30;
      const { feed } = await setup();
      await feed({ webhookUrl: HOOK });
      t.clock.advance(1000);
      // A second node on the same database: it loads the feed on its first ingest, as a node does.
      const nodeB = (await createDeps(t.deps.config, { clock: t.clock, log: memoryLogger() })).deps;
      try {
        const docs = Array.from({ length: N }, () => makeDoc());
        const [a, b] = await Promise.all([ingestDocuments(t.deps, docs, { source: "test" }), ingestDocuments(nodeB, [...docs].reverse(), { source: "test" })]);
        expect(a.inserted + b.inserted).toBe(N);
        expect(a.updated + b.updated).toBe(N);
        expect(a.matched + b.matched).toBe(N);
        expect(await count("SELECT count(*) AS n FROM jobs")).toBe(N);
        expect(await count("SELECT count(*) AS n FROM feed_jobs")).toBe(N);
        expect(await count("SELECT count(*) AS n FROM events WHERE type = 'job.matched'")).toBe(N);
      } finally {
        await closeDeps(nodeB);
      }
    },
    30_000,
  ); // conflicting transactions wait for PostgreSQL's deadlock detection (1 s) before one is retried
});
