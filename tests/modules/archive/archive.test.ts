import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { authenticate } from "../../../src/modules/accounts/service";
import * as feeds from "../../../src/modules/feeds/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { sourceLookup } from "../../../src/modules/intake/registry";
import { trackJobs } from "../../../src/modules/intake/track.task";
import { closeJob } from "../../../src/marketplace/sandbox/repo";
import { generateJob } from "../../../src/sources/sandbox/generator";
import type { TaskWorker } from "../../../src/worker/worker";
import { applyWorker, settledByJob } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
let worker: TaskWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
});

async function setup(config: Record<string, unknown> = {}) {
  t = await createTestApp({ config });
  const a = await t.account({ name: "A", credits: 3 });
  const b = await t.account({ name: "B" });
  return { a, b, authA: (await authenticate(t.deps, a.apiKey))!, authB: (await authenticate(t.deps, b.apiKey))! };
}

const byCipher = (key: string, cipher: string) => t.request("GET", `/api/jobs/by-ciphertext?cipher=${encodeURIComponent(cipher)}`, { key });

describe("GET /api/jobs/by-ciphertext", () => {
  test("400 without cipher or without ~, 404 when not archived", async () => {
    const { a } = await setup();
    expect((await t.request("GET", "/api/jobs/by-ciphertext", { key: a.apiKey })).status).toBe(400);
    const noTilde = await t.request("GET", "/api/jobs/by-ciphertext?cipher=021234", { key: a.apiKey });
    expect(noTilde.status).toBe(400);
    expect(noTilde.body.error).toContain("starting with ~");
    const missing = await byCipher(a.apiKey, "~029999999999999999999");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: "No archived job with this ciphertext" });
  });

  test("the document as stored plus the spec's computed fields; matches are the caller's only, with the caller's application", async () => {
    const { a, b, authA, authB } = await setup();
    const feedA = await feeds.createFeed(t.deps, authA, { title: "A all", minScore: 0 });
    await feeds.createFeed(t.deps, authB, { title: "B all", minScore: 0 });
    t.clock.advance(1000);
    const doc = generateJob({ seed: 5, index: 3, nowTs: t.clock.now() });
    await ingestDocuments(t.deps, [doc], { source: "sandbox" });
    const cipher = (doc.jobTile as any).job.ciphertext as string;
    const res = await byCipher(a.apiKey, cipher);
    expect(res.status, show(res)).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({
      id: doc.id,
      title: doc.title,
      description: doc.description,
      jobTile: { job: { ciphertext: cipher, jobType: (doc.jobTile as any).job.jobType } },
    });
    expect(body.jobDetailsResponse).toEqual(doc.jobDetailsResponse); // sections kept as stored
    expect(typeof body.exploredAt).toBe("number");
    expect(body.clientScore).toMatchObject({
      label: expect.any(String),
      components: { hires: expect.any(Object), money: expect.any(Object), reputation: expect.any(Object), engagement: expect.any(Object) },
    });
    expect(body.matches).toHaveLength(1);
    expect(body.matches[0]).toMatchObject({ feedId: feedA.id, matchingScore: 5, read: false, starredAt: null, application: null });
    expect(body.matches[0].matchedAt).toBe(new Date(t.clock.now()).toISOString());
    // B sees its own match, never A's
    const forB = (await byCipher(b.apiKey, cipher)).body;
    expect(forB.matches).toHaveLength(1);
    expect(forB.matches[0].feedId).not.toBe(feedA.id);
    // A's application shows on A's matches
    const applied = await t.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId: cipher, coverLetter: "Hi" } });
    expect(applied.status, show(applied)).toBe(200);
    const after = (await byCipher(a.apiKey, cipher)).body;
    expect(after.matches[0].application).toMatchObject({ status: "processing", proposal: { viewedByClient: false, inConversation: false, outcome: null } });
    expect((await byCipher(b.apiKey, cipher)).body.matches[0].application).toBeNull();
  });

  /** A job matched into A's feed and applied to through the sandbox, settled: A, the job and the status answer. */
  async function sentFromFeed() {
    const { a, authA } = await setup({ sandboxApplyLatencyMs: 0 });
    worker = applyWorker(t);
    await feeds.createFeed(t.deps, authA, { title: "A all", minScore: 0 });
    t.clock.advance(1000);
    const doc = makeDoc({ fixed: 500 });
    await ingestDocuments(t.deps, [doc], { source: "test" });
    const cipher = (doc.jobTile as any).job.ciphertext as string;
    await t.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId: cipher, coverLetter: "Hi" } });
    const status = (await settledByJob(t, worker, a.apiKey, cipher)).body;
    expect(status.applicationStatus).toBe("applied");
    return { a, cipher, status };
  }

  test("the application's proposal says inConversation, outcome and outcomeAt from its funnel", async () => {
    const { a, cipher, status } = await sentFromFeed();
    const proposal = async () => (await byCipher(a.apiKey, cipher)).body.matches[0].application.proposal;
    expect(await proposal()).toMatchObject({ inConversation: false, outcome: null, outcomeAt: null });
    const record = (json: Record<string, unknown>) => t.request("POST", `/api/v1/applications/${status.queueId}/outcome`, { key: a.apiKey, json });
    expect((await record({ outcome: "replied" })).status).toBe(200);
    expect(await proposal()).toMatchObject({ inConversation: true, outcome: null, outcomeAt: null });
    t.clock.advance(5000);
    expect((await record({ outcome: "hired", valueUsd: 500 })).status).toBe(200);
    expect(await proposal()).toMatchObject({ inConversation: true, outcome: "hired", outcomeAt: t.clock.now() });
  });

  test("a proposal with no reply for JOBPILOT_NO_REPLY_DAYS has outcome no_reply in the archive", async () => {
    const { a, cipher, status } = await sentFromFeed();
    const sentAt = status.processedAt as number;
    t.clock.set(sentAt + t.deps.config.noReplyDays * 86_400_000);
    expect((await byCipher(a.apiKey, cipher)).body.matches[0].application.proposal).toMatchObject({
      inConversation: false,
      outcome: "no_reply",
      outcomeAt: t.clock.now(),
    });
  });

  test("the /api/v1 and /api/v2 forwards give byte-identical bodies", async () => {
    const { a } = await setup();
    const doc = makeDoc();
    await ingestDocuments(t.deps, [doc], { source: "test" });
    const cipher = (doc.jobTile as any).job.ciphertext as string;
    const bodies = await Promise.all(
      [`/api/jobs/by-ciphertext?cipher=%7E${cipher.slice(1)}`, `/api/v1/jobs/%7E${cipher.slice(1)}`, `/api/v2/jobs/${cipher}`].map((p) =>
        t.request("GET", p, { key: a.apiKey }),
      ),
    );
    for (const r of bodies) expect(r.status, show(r)).toBe(200);
    expect(bodies[1]!.text).toBe(bodies[0]!.text);
    expect(bodies[2]!.text).toBe(bodies[0]!.text);
  });

  test("proposal activity: scrape counts for an unwatched job; the tracker's history for a watched one", async () => {
    const { a, authA } = await setup();
    const plain = generateJob({ seed: 9, index: 1, nowTs: t.clock.now() - 3 * 3_600_000 });
    await ingestDocuments(t.deps, [plain], { source: "sandbox" });
    const scrape = (await byCipher(a.apiKey, (plain.jobTile as any).job.ciphertext)).body.proposalActivity;
    if (scrape) expect(scrape.source).toBe("scrape");

    await feeds.createFeed(t.deps, authA, { title: "all", minScore: 0 });
    t.clock.advance(1000);
    const watched = generateJob({ seed: 9, index: 2, nowTs: t.clock.now() });
    await ingestDocuments(t.deps, [watched], { source: "sandbox" });
    const cipher = (watched.jobTile as any).job.ciphertext as string;
    const first = (await byCipher(a.apiKey, cipher)).body.proposalActivity;
    expect(first.source).toBe("tracker");
    expect(first.tracking).toMatchObject({ active: true, checks: 1 });
    // the tracker re-reads the sandbox job over two days: counts move, checks add up, history records changes
    // No source is polled here: the tracker builds the sandbox from the catalog to re-read its job.
    const findSource = sourceLookup({ config: t.deps.config, db: t.deps.db, searchTerms: async () => [] }, []);
    for (let i = 0; i < 12; i++) {
      t.clock.advance(4 * 3_600_000);
      await trackJobs(t.deps, findSource);
    }
    const later = (await byCipher(a.apiKey, cipher)).body.proposalActivity;
    expect(later.tracking.checks).toBeGreaterThan(1);
    expect(later.history.length).toBeGreaterThan(1);
    expect(later.proposals).toBeGreaterThan(0);
    for (let i = 1; i < later.history.length; i++) expect(later.history[i].at).toBeGreaterThan(later.history[i - 1].at);
  });
});

describe("GET /api/clients/{companyId}/jobs", () => {
  /** Archives 60 sandbox jobs and returns the company with the most of them. */
  async function archiveSandboxJobs(): Promise<string> {
    const docs = Array.from({ length: 60 }, (_, i) => generateJob({ seed: 11, index: i, nowTs: t.clock.now() }));
    await ingestDocuments(t.deps, docs, { source: "sandbox" });
    const sql = "SELECT company_id AS c, count(*) AS n FROM jobs WHERE company_id IS NOT NULL GROUP BY company_id ORDER BY n DESC, c LIMIT 1";
    return (await rawMany<{ c: string }>(t.deps.db, sql, sql, []))[0]!.c;
  }

  test("the record of a company from its archived jobs; forwards identical; unknown company 404", async () => {
    const { a } = await setup();
    const companyId = await archiveSandboxJobs();
    const res = await t.request("GET", `/api/clients/${companyId}/jobs`, { key: a.apiKey });
    expect(res.status, show(res)).toBe(200);
    const record = JSON.parse(res.text);
    expect(record.companyId).toBe(companyId);
    expect(Array.isArray(record.openJobs) && Array.isArray(record.workHistory)).toBe(true);
    expect(record.openJobs.length).toBeGreaterThan(0);
    expect(record.stats.openJobs).toBe(record.openJobs.length);
    expect(record.buyer.company.companyId).toBe(companyId);
    for (const p of [`/api/v1/clients/${companyId}/jobs`, `/api/v2/clients/${companyId}/jobs`]) {
      expect((await t.request("GET", p, { key: a.apiKey })).text).toBe(res.text);
    }
    expect((await t.request("GET", "/api/clients/000/jobs", { key: a.apiKey })).status).toBe(404);
  });

  test("a job the sandbox marketplace closed is no longer among the company's open jobs", async () => {
    const { a } = await setup();
    const companyId = await archiveSandboxJobs();
    const openCiphers = async () => {
      const res = await t.request("GET", `/api/clients/${companyId}/jobs`, { key: a.apiKey });
      expect(res.status, show(res)).toBe(200);
      return (res.body.openJobs as { ciphertext: string | null }[]).map((j) => j.ciphertext);
    };
    const before = await openCiphers();
    const sql = "SELECT ciphertext FROM jobs WHERE company_id = ?";
    const archived = new Set((await rawMany<{ ciphertext: string }>(t.deps.db, sql, sql, [companyId])).map((r) => r.ciphertext));
    const closing = before.find((c) => c !== null && archived.has(c))!;
    expect(closing).toBeString();
    await closeJob(t.deps.db, closing, t.clock.now());
    expect(await openCiphers()).toEqual(before.filter((c) => c !== closing));
  });
});
