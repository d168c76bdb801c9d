import { afterEach, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { exec, many, one, rawExec, tables } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { authenticate, getAccount } from "../../../src/modules/accounts/service";
import * as feeds from "../../../src/modules/feeds/service";
import { SUBMIT_TASK } from "../../../src/modules/applications/service";
import { submitApplication } from "../../../src/modules/applications/submit.task";
import { syncEngagement } from "../../../src/modules/applications/sync.task";
import { scoreFeedMatch } from "../../../src/modules/scoring/service";
import { TaskWorker } from "../../../src/worker/worker";
import { applyWorker } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { amountsIn } from "../../helpers/money";

let t: TestApp;
let worker: TaskWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
});

const ADMIN = { authorization: "Bearer admin-token-0123456789" };
const APPLY = "/api/auto-apply-v2/apply";

async function setup(opts: { credits?: number; config?: Record<string, unknown>; start?: boolean } = {}) {
  t = await createTestApp({ config: { adminToken: "admin-token-0123456789", sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, ...opts.config } });
  const a = await t.account({ credits: opts.credits ?? 5 });
  const b = await t.account({ name: "other", credits: 5 });
  worker = applyWorker(t, { start: opts.start });
  return { a, b };
}

async function job(over: Parameters<typeof makeDoc>[0] = {}): Promise<string> {
  const doc = makeDoc(over);
  await ingestDocuments(t.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const db = () => t.deps.db;
const T = () => tables(t.deps.db);
const stored = (id: string) => one(db(), db().select().from(T().applications).where(eq(T().applications.id, id)));

const apply = (key: string, json: Record<string, unknown>) => t.request("POST", APPLY, { key, json });
const status = (key: string, q: string) => t.request("GET", `/api/auto-apply-v2/status?${q}`, { key });
const credits = async (accountId: string) => {
  const a = await getAccount(t.deps, accountId);
  return { available: a.credits, held: a.creditsHeld };
};

/** Waits until the application leaves `processing`, moving the test clock so retries come due. */
async function settled(key: string, queueId: string) {
  const until = performance.now() + 5000;
  for (;;) {
    const res = await status(key, `queueId=${queueId}`);
    if (res.body.applicationStatus !== "processing" || performance.now() > until) return res.body;
    t.clock.advance(10);
    worker!.notify();
    await Bun.sleep(2);
  }
}

describe("apply", async () => {
  test("queues at once, holds a credit, applies through the sandbox and charges exactly one credit", async () => {
    const { a } = await setup({ credits: 3 });
    const cipher = await job({ fixed: 750 });
    const res = await apply(a.apiKey, { jobId: cipher, coverLetter: "Hello, I can help." });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ success: true, creditsRemaining: 2 });
    expect(res.body.queueId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.message).toContain("deducted only when the application succeeds");
    const final = await settled(a.apiKey, res.body.queueId);
    expect(final).toMatchObject({ applicationStatus: "applied", jobId: cipher, queueId: res.body.queueId, errorMessage: null, proposalStatus: null });
    expect(final.processedAt).toBeGreaterThanOrEqual(final.appliedAt);
    expect(await credits(a.accountId)).toEqual({ available: 2, held: 0 });
    const ledger = await many(
      db(),
      db()
        .select({ delta: T().creditLedger.delta, reason: T().creditLedger.reason, ref: T().creditLedger.ref })
        .from(T().creditLedger)
        .where(eq(T().creditLedger.reason, "charge")),
    );
    expect(ledger).toEqual([{ delta: -1, reason: "charge", ref: res.body.queueId }]);
    const stored = await one(
      db(),
      db().select({ f: T().applications.fixedBid, h: T().applications.hourlyRate, timeline: T().applications.timeline }).from(T().applications),
    );
    expect(stored).toEqual({ f: 750, h: null, timeline: "1 to 3 months" });
  });

  test("bid defaults: fixed → budget else 100; hourly → low end else 30; explicit values win", async () => {
    const { a } = await setup({ credits: 10, start: false });
    const rows: Record<string, unknown>[] = [];
    for (const [over, proposal] of [
      [{ fixed: 1200 }, undefined],
      [{ jobType: "HOURLY", hourly: [25, 60] }, undefined],
      [{ jobType: "HOURLY", hourly: [0, 0] }, undefined],
      [{ fixed: 500 }, { fixedBid: 450, timeline: "Less than 1 month", boostBids: 3 }],
    ] as const) {
      const res = await apply(a.apiKey, { jobId: await job(over as never), coverLetter: "Hi", proposal });
      expect(res.status, show(res)).toBe(200);
      const app = (await stored(res.body.queueId))!;
      rows.push({ f: app.fixedBid, h: app.hourlyRate, timeline: app.timeline, b: app.boostBids });
    }
    expect(rows).toEqual([
      { f: 1200, h: null, timeline: "1 to 3 months", b: 0 },
      { f: null, h: 25, timeline: "1 to 3 months", b: 0 },
      { f: null, h: 30, timeline: "1 to 3 months", b: 0 },
      { f: 450, h: null, timeline: "Less than 1 month", b: 3 },
    ]);
  });

  test("402 when no credit is free, with the spec's body; 20 parallel applies with 5 credits hold exactly 5", async () => {
    const { a } = await setup({ credits: 5, start: false });
    const ciphers = await Promise.all(Array.from({ length: 20 }, () => job()));
    const results = await Promise.all(ciphers.map((c) => apply(a.apiKey, { jobId: c, coverLetter: "Hi" })));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    expect(refused[0]!.body).toEqual({ error: "Insufficient auto-apply credits", creditsRemaining: 0, needsCredits: true });
    expect(await credits(a.accountId)).toEqual({ available: 0, held: 5 });
    worker!.start();
    for (const r of ok) expect((await settled(a.apiKey, r.body.queueId)).applicationStatus).toBe("applied");
    expect(await credits(a.accountId)).toEqual({ available: 0, held: 0 });
    const charges = await one(db(), db().select({ n: count() }).from(T().creditLedger).where(eq(T().creditLedger.reason, "charge")));
    expect(charges?.n).toBe(5);
  });

  test("parallel applies for one job (separate connections on PostgreSQL): one queued, the rest 409, one credit held", async () => {
    const { a } = await setup({ credits: 5, start: false });
    for (let round = 0; round < 3; round++) {
      const cipher = await job();
      const results = await Promise.all(Array.from({ length: 4 }, () => apply(a.apiKey, { jobId: cipher, coverLetter: "Hi" })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.error).toContain("already applied");
      expect(await credits(a.accountId)).toEqual({ available: 4 - round, held: round + 1 });
    }
    const live = await one(db(), db().select({ n: count() }).from(T().applications).where(eq(T().applications.status, "processing")));
    expect(live?.n).toBe(3);
  });

  test("409 while processing or applied; a final failure allows a new attempt and costs nothing", async () => {
    const { a } = await setup({ credits: 5, start: false });
    const cipher = await job();
    const first = await apply(a.apiKey, { jobId: cipher, coverLetter: "Hi" });
    const again = await apply(a.apiKey, { jobId: cipher, coverLetter: "Hi" });
    expect(again.status).toBe(409);
    expect(again.body.error).toContain("already applied");
    // close the job on the sandbox: the queued application ends not_available
    await t.request("POST", `/admin/sandbox/jobs/${encodeURIComponent(cipher)}/close`, { headers: ADMIN, json: {} });
    worker!.start();
    expect((await settled(a.apiKey, first.body.queueId)).applicationStatus).toBe("not_available");
    expect(await credits(a.accountId)).toEqual({ available: 5, held: 0 });
    const retry = await apply(a.apiKey, { jobId: cipher, coverLetter: "Hi again" });
    expect(retry.status, show(retry)).toBe(200);
    const other = await job();
    const applied = await apply(a.apiKey, { jobId: other, coverLetter: "Hi" });
    await settled(a.apiKey, applied.body.queueId);
    expect((await apply(a.apiKey, { jobId: other, coverLetter: "Hi" })).status).toBe(409);
  });

  test("every sandbox outcome through the API, none of them charged", async () => {
    const { a } = await setup({ credits: 10 });
    const freelancer = (await t.request("GET", "/api/auto-apply-v2/freelancers", { key: a.apiKey })).body.freelancers[0];
    // not_enough_connects: no Connects left
    await t.request("POST", `/admin/sandbox/freelancers/${encodeURIComponent(freelancer.id)}/connects`, { headers: ADMIN, json: { connects: 0 } });
    const poor = await apply(a.apiKey, { jobId: await job(), coverLetter: "Hi" });
    const poorFinal = await settled(a.apiKey, poor.body.queueId);
    expect(poorFinal.applicationStatus).toBe("not_enough_connects");
    expect(poorFinal.errorMessage).toContain("Connects");
    await t.request("POST", `/admin/sandbox/freelancers/${encodeURIComponent(freelancer.id)}/connects`, { headers: ADMIN, json: { connects: 100 } });
    // logged_out, not restorable: ends logged_out (window 0 in this test)
    await t.request("POST", `/admin/sandbox/accounts/${a.accountId}/session`, { headers: ADMIN, json: { valid: false, restorable: false } });
    const out = await apply(a.apiKey, { jobId: await job(), coverLetter: "Hi" });
    expect((await settled(a.apiKey, out.body.queueId)).applicationStatus).toBe("logged_out");
    await t.request("POST", `/admin/sandbox/accounts/${a.accountId}/session`, { headers: ADMIN, json: { valid: true } });
    // not_eligible: the job wants a higher job success score than the freelancer has
    const picky = makeDoc();
    (picky.jobDetailsResponse as any).data.jobPubDetails.qualifications.minJobSuccessScore = 99;
    await ingestDocuments(t.deps, [picky], { source: "test" });
    const eligible = await apply(a.apiKey, { jobId: (picky.jobTile as any).job.ciphertext, coverLetter: "Hi" });
    expect((await settled(a.apiKey, eligible.body.queueId)).applicationStatus).toBe("not_eligible");
    expect(await credits(a.accountId)).toEqual({ available: 10, held: 0 });
  });

  test("a session that can be restored keeps the application processing and then applies", async () => {
    const { a } = await setup({ credits: 2, config: { loggedOutWindowMs: 60_000 } });
    await t.request("POST", `/admin/sandbox/accounts/${a.accountId}/session`, { headers: ADMIN, json: { valid: false, restorable: true } });
    const res = await apply(a.apiKey, { jobId: await job(), coverLetter: "Hi" });
    expect((await settled(a.apiKey, res.body.queueId)).applicationStatus).toBe("applied");
    expect(await credits(a.accountId)).toEqual({ available: 1, held: 0 });
  });

  test("screening questions: unanswered ones fail clearly without autofill; autofill drafts them", async () => {
    const { a } = await setup({ credits: 5 });
    // The second is one the writer can answer from the posting (a start date would be left to fill in and held: fill-in-hold.test.ts).
    const cipher = await job({ questions: ["Have you used React?", "How would you approach this project?"] });
    const bad = await apply(a.apiKey, { jobId: cipher, coverLetter: "Hi", questionAnswers: [{ position: 5, answer: "x" }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("questionAnswers[0].position 5 is not a screening question");
    const partial = await apply(a.apiKey, { jobId: cipher, coverLetter: "Hi", questionAnswers: [{ position: 0, answer: "Yes, for six years." }] });
    const failed = await settled(a.apiKey, partial.body.queueId);
    expect(failed.applicationStatus).toBe("failed");
    expect(failed.errorMessage).toContain("position 1 has no answer");
    const filled = await apply(a.apiKey, {
      jobId: cipher,
      coverLetter: "Hi",
      autoFillOtherQuestions: true,
      questionAnswers: [{ position: 0, answer: "Yes, for six years." }],
    });
    expect((await settled(a.apiKey, filled.body.queueId)).applicationStatus).toBe("applied");
    const answers = (await stored(filled.body.queueId))!.answers;
    expect(answers.map((x: any) => x.position)).toEqual([0, 1]);
    expect(answers[0]!.answer).toBe("Yes, for six years."); // explicit answers win
    expect(answers[1]!.answer.length).toBeGreaterThan(10);
    expect(await credits(a.accountId)).toEqual({ available: 4, held: 0 });
  });

  test("autofill: a rate question is answered with the application's bid, never the profile's rate", async () => {
    const { a } = await setup({ credits: 5 });
    const cipher = await job({ hourly: [50, 80], questions: ["What is your hourly rate?", "What would you charge for this?"] });
    const res = await apply(a.apiKey, { jobId: cipher, coverLetter: "Hi", autoFillOtherQuestions: true, proposal: { hourlyRate: 65 } });
    expect((await settled(a.apiKey, res.body.queueId)).applicationStatus).toBe("applied");
    const app = (await stored(res.body.queueId))!;
    expect(app.hourlyRate).toBe(65);
    for (const { answer } of app.answers) expect(amountsIn(answer), answer).toEqual([65]);
  });

  test("input errors: 400 naming the field, 404 for unknown jobs or another account's processed job", async () => {
    const { a, b } = await setup({ start: false });
    const cipher = await job();
    for (const [body, fragment] of [
      [{ coverLetter: "Hi" }, "jobId is required"],
      [{ jobId: cipher }, "coverLetter is required"],
      [{ jobId: cipher, coverLetter: "Hi", proposal: { timeline: "soon" } }, "proposal.timeline must be one of"],
      [{ jobId: cipher, coverLetter: "Hi", proposal: { boostBids: -1 } }, "proposal.boostBids"],
      [{ jobId: cipher, coverLetter: "Hi", proposal: { hourlyRate: -5 } }, "proposal.hourlyRate"],
      [{ jobId: "bogus", coverLetter: "Hi" }, "jobId must be a job ciphertext"],
      [{ jobId: cipher, coverLetter: "Hi", profileId: "nope" }, "profileId is not one of this account's profiles"],
      [{ jobId: cipher, coverLetter: "Hi", questionAnswers: [{ position: 1.5, answer: "x" }] }, "questionAnswers[0].position"],
    ] as const) {
      const res = await apply(a.apiKey, body as Record<string, unknown>);
      expect(res.status, `${JSON.stringify(body)}: ${show(res)}`).toBe(400);
      expect(res.body.error).toContain(fragment);
    }
    expect((await apply(a.apiKey, { jobId: "~020000000000000000404", coverLetter: "Hi" })).status).toBe(404);
    const feed = await feeds.createFeed(t.deps, (await authenticate(t.deps, a.apiKey))!, { title: "all", minScore: 0 });
    t.clock.advance(1000);
    await job();
    const processed = (await t.request("GET", `/api/v1/feeds/${feed.id}/jobs`, { key: a.apiKey })).body.jobs[0].processedJobId;
    expect((await apply(b.apiKey, { jobId: processed, coverLetter: "Hi" })).status).toBe(404);
    expect((await apply(a.apiKey, { jobId: processed, coverLetter: "Hi" })).status).toBe(200);
    expect((await credits(a.accountId)).held).toBe(1); // only the accepted one holds a credit
  });
});

describe("status, applied jobs, freelancers, legacy", async () => {
  test("status by queueId or jobId; exactly one; another account's is 404", async () => {
    const { a, b } = await setup();
    const cipher = await job();
    const res = await apply(a.apiKey, { jobId: cipher, coverLetter: "Hi" });
    await settled(a.apiKey, res.body.queueId);
    const byJob = await status(a.apiKey, `jobId=${encodeURIComponent(cipher)}`);
    expect(byJob.status).toBe(200);
    expect(byJob.body.queueId).toBe(res.body.queueId);
    expect((await status(a.apiKey, `jobId=${encodeURIComponent(`https://www.upwork.com/jobs/x_${cipher}`)}`)).body.queueId).toBe(res.body.queueId);
    expect((await status(a.apiKey, "")).status).toBe(400);
    expect((await status(a.apiKey, `queueId=${res.body.queueId}&jobId=${encodeURIComponent(cipher)}`)).status).toBe(400);
    expect((await status(b.apiKey, `queueId=${res.body.queueId}`)).status).toBe(404);
    expect((await status(b.apiKey, `jobId=${encodeURIComponent(cipher)}`)).status).toBe(404);
    expect((await status(a.apiKey, "queueId=nope")).status).toBe(404);
  });

  test("an application named by ciphertext or URL links the caller's newest matching processed job", async () => {
    const { a, b } = await setup({ credits: 5 });
    const auth = (await authenticate(t.deps, a.apiKey))!;
    const before = await job({ title: "Archived before any feed" }); // matches no feed: feeds see only newer jobs
    const older = await feeds.createFeed(t.deps, auth, { title: "everything", minScore: 0 });
    const newer = await feeds.createFeed(t.deps, auth, { title: "scored", minScore: 0, profilePrompt: "Any software work at all" });
    await feeds.createFeed(t.deps, (await authenticate(t.deps, b.apiKey))!, {
      title: "another account",
      minScore: 0,
      profilePrompt: "Any software work at all",
    });
    t.clock.advance(1000);
    const named = { cipher: await job({ title: "Named by ciphertext" }), url: await job({ title: "Named by URL" }) };
    // The empty-prompt feed takes the jobs at once; the prompt feeds when the scorer runs, 5 s later.
    t.clock.advance(5000);
    const scorer = new TaskWorker(t.deps, { concurrency: 1, retryBaseMs: 1, retryMaxMs: 1, handlers: { score: (p, c) => scoreFeedMatch(t.deps, p, c) } });
    scorer.start();
    await scorer.drain();
    await scorer.stop();
    const entries = async (feedId: string) => (await t.request("GET", `/api/v1/feeds/${feedId}/jobs`, { key: a.apiKey })).body.jobs as any[];
    const newest = new Map((await entries(newer.id)).map((e) => [e.job.ciphertext, e.processedJobId]));
    expect(newest.size).toBe(2);
    expect((await entries(older.id)).map((e) => e.processedJobId)).not.toContain(newest.get(named.cipher));

    const queued = new Map<string, string>();
    for (const [cipher, jobId] of [
      [named.cipher, named.cipher],
      [named.url, `https://marketplace.example/jobs/Title_${named.url}/?ref=feed`],
      [before, before],
    ] as const) {
      const res = await apply(a.apiKey, { jobId, coverLetter: "Hi" });
      expect(res.status, show(res)).toBe(200);
      queued.set(cipher, res.body.queueId);
      await settled(a.apiKey, res.body.queueId);
    }
    const listed = new Map(
      ((await t.request("GET", "/api/auto-apply-v2/applied-jobs", { key: a.apiKey })).body.jobs as any[]).map((j) => [j.jobId, j.processedJobId]),
    );
    for (const cipher of [named.cipher, named.url]) {
      expect((await status(a.apiKey, `queueId=${queued.get(cipher)}`)).body.processedJobId, cipher).toBe(newest.get(cipher));
      expect(listed.get(cipher)).toBe(newest.get(cipher));
    }
    expect((await status(a.apiKey, `queueId=${queued.get(before)}`)).body.processedJobId).toBeNull();
    expect(listed.get(before)).toBeNull();
  });

  test("engagement sync fills proposalStatus; viewed and replied never go back", async () => {
    const { a } = await setup();
    const res = await apply(a.apiKey, { jobId: await job(), coverLetter: "Hi" });
    await settled(a.apiKey, res.body.queueId);
    await syncEngagement(t.deps, {}, { taskId: 0, attempt: 1, isLastAttempt: true });
    const first = (await status(a.apiKey, `queueId=${res.body.queueId}`)).body.proposalStatus;
    expect(first).toMatchObject({ viewed: false, replied: false, viewedAt: null, lastCheckedAt: t.clock.now() });
    await t.request("POST", `/admin/sandbox/submissions/${res.body.queueId}/reply`, { headers: ADMIN, json: {} });
    t.clock.advance(60_000);
    await syncEngagement(t.deps, {}, { taskId: 0, attempt: 1, isLastAttempt: true });
    const second = (await status(a.apiKey, `queueId=${res.body.queueId}`)).body.proposalStatus;
    expect(second).toMatchObject({ viewed: true, replied: true, lastCheckedAt: t.clock.now() });
    expect(second.viewedAt).toBeGreaterThan(0);
  });

  test("with the marketplace API connected, real submissions take engagement from it; viewedAt is the first sync that saw it", async () => {
    const { a } = await setup();
    const cipher = await job();
    const sandboxCipher = await job({ title: "Sandbox one" });
    const res = await apply(a.apiKey, { jobId: cipher, coverLetter: "Hi" });
    const other = await apply(a.apiKey, { jobId: sandboxCipher, coverLetter: "Hi" });
    await settled(a.apiKey, res.body.queueId);
    await settled(a.apiKey, other.body.queueId);
    // As if it had gone through the bridge to the real marketplace.
    await exec(db(), db().update(T().applications).set({ driver: "bridge" }).where(eq(T().applications.id, res.body.queueId)));
    const asked: string[][] = [];
    let answer: Record<string, { viewed: boolean; replied: boolean }> | Error = { [cipher]: { viewed: true, replied: false } };
    const tracker = {
      name: "fake-api",
      async engagementByJob(ciphers: string[]) {
        asked.push(ciphers);
        if (answer instanceof Error) throw answer;
        return new Map(Object.entries(answer));
      },
    };
    const ctx = { taskId: 0, attempt: 1, isLastAttempt: true };
    const firstSeen = t.clock.now();
    await syncEngagement(t.deps, {}, ctx, tracker);
    expect(asked).toEqual([[cipher]]); // the sandbox submission is never looked up there
    let ps = (await status(a.apiKey, `queueId=${res.body.queueId}`)).body.proposalStatus;
    expect(ps).toMatchObject({ viewed: true, replied: false, viewedAt: firstSeen });

    // An API failure neither throws nor undoes anything (the bridge driver, unconfigured here, is asked and fails too).
    t.clock.advance(60_000);
    answer = new Error("re-authorise needed");
    await syncEngagement(t.deps, {}, ctx, tracker);
    expect(asked).toHaveLength(2);
    expect((await status(a.apiKey, `queueId=${res.body.queueId}`)).body.proposalStatus).toMatchObject({ viewed: true, replied: false, viewedAt: firstSeen });

    t.clock.advance(60_000);
    answer = { [cipher]: { viewed: true, replied: true } };
    await syncEngagement(t.deps, {}, ctx, tracker);
    ps = (await status(a.apiKey, `queueId=${res.body.queueId}`)).body.proposalStatus;
    expect(ps).toMatchObject({ viewed: true, replied: true, viewedAt: firstSeen });
  });

  test("applied-jobs: newest first, every field, status filter, paging edges", async () => {
    const { a } = await setup({ credits: 10 });
    const feed = await feeds.createFeed(t.deps, (await authenticate(t.deps, a.apiKey))!, { title: "all", minScore: 0 });
    t.clock.advance(1000);
    const ciphers = [await job({ title: "First" }), await job({ title: "Second" }), await job({ title: "Third" })];
    const queued: string[] = [];
    for (const c of ciphers) {
      t.clock.advance(1000);
      const r = await apply(a.apiKey, { jobId: c, coverLetter: `Letter for ${c}` });
      queued.push(r.body.queueId);
      await settled(a.apiKey, r.body.queueId);
    }
    const list = await t.request("GET", "/api/auto-apply-v2/applied-jobs?limit=2", { key: a.apiKey });
    expect(list.status, show(list)).toBe(200);
    expect(list.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(list.body.jobs.map((j: any) => j.title)).toEqual(["Third", "Second"]);
    expect(list.body.jobs[0]).toMatchObject({
      jobId: ciphers[2],
      queueId: queued[2],
      platform: "marketplace",
      applicationStatus: "applied",
      matchingScore: 5,
      coverLetter: `Letter for ${ciphers[2]}`,
      errorMessage: null,
    });
    expect(list.body.jobs[0].url).toContain(ciphers[2]);
    expect((await t.request("GET", "/api/auto-apply-v2/applied-jobs?offset=3", { key: a.apiKey })).body.jobs).toEqual([]);
    expect((await t.request("GET", "/api/auto-apply-v2/applied-jobs?status=failed", { key: a.apiKey })).body.total).toBe(0);
    expect((await t.request("GET", "/api/auto-apply-v2/applied-jobs?limit=200", { key: a.apiKey })).body.jobs).toHaveLength(3);
    for (const q of ["limit=0", "limit=201", "offset=-1", "limit=abc", "status=nope"]) {
      expect((await t.request("GET", `/api/auto-apply-v2/applied-jobs?${q}`, { key: a.apiKey })).status, q).toBe(400);
    }
    // Each applied job links the feed entry that took it.
    const entries = (await many(db(), db().select({ id: T().feedJobs.id }).from(T().feedJobs).where(eq(T().feedJobs.feedId, feed.id)))).map((r) => r.id);
    const all = await t.request("GET", "/api/auto-apply-v2/applied-jobs", { key: a.apiKey });
    expect(all.body.jobs.map((j: any) => entries.includes(j.processedJobId))).toEqual([true, true, true]);
  });

  test("applied-jobs score: the feed entry applied from, else the account's best entry for the job, else null", async () => {
    const { a, b } = await setup({ credits: 10 });
    const authA = (await authenticate(t.deps, a.apiKey))!;
    const low = await feeds.createFeed(t.deps, authA, { title: "low", minScore: 0 });
    const high = await feeds.createFeed(t.deps, authA, { title: "high", minScore: 0 });
    await feeds.createFeed(t.deps, (await authenticate(t.deps, b.apiKey))!, { title: "other account", minScore: 0 });
    t.clock.advance(1000);
    const [byEntry, byCipher] = [await job({ title: "By entry" }), await job({ title: "By ciphertext" })];
    // Distinct scores per feed; the other account's entries score highest and must never show.
    await rawExec(db(), "test.scores", "UPDATE feed_jobs SET matching_score = CASE feed_id WHEN ? THEN 3 WHEN ? THEN 8 ELSE 10 END", [low.id, high.id]);
    const lowEntry = (await feeds.listFeedJobs(t.deps, authA, low.id, {})).jobs.find((j) => j.job.ciphertext === byEntry)!;
    const viaEntry = await apply(a.apiKey, { jobId: lowEntry.processedJobId, coverLetter: "From the low feed" });
    const viaCipher = await apply(a.apiKey, { jobId: byCipher, coverLetter: "By ciphertext" });
    for (const r of [viaEntry, viaCipher]) {
      expect(r.status, show(r)).toBe(200);
      await settled(a.apiKey, r.body.queueId);
    }
    const scoreOf = async () => {
      const list = await t.request("GET", "/api/auto-apply-v2/applied-jobs", { key: a.apiKey });
      expect(list.status, show(list)).toBe(200);
      return Object.fromEntries(list.body.jobs.map((j: any) => [j.title, j.matchingScore]));
    };
    expect(await scoreOf()).toEqual({ "By entry": 3, "By ciphertext": 8 });
    // The entry applied from is gone with its feed: the best remaining entry answers; with no entry left, null.
    await feeds.deleteFeed(t.deps, authA, low.id);
    expect(await scoreOf()).toEqual({ "By entry": 8, "By ciphertext": 8 });
    await feeds.deleteFeed(t.deps, authA, high.id);
    expect(await scoreOf()).toEqual({ "By entry": null, "By ciphertext": null });
  });

  test("freelancers on both paths; the profileIds are what apply accepts", async () => {
    const { a } = await setup();
    const v2 = await t.request("GET", "/api/auto-apply-v2/freelancers", { key: a.apiKey });
    const v1 = await t.request("GET", "/api/auto-apply/external/freelancers", { key: a.apiKey });
    expect(v2.status).toBe(200);
    expect(v1.body).toEqual(v2.body);
    const [f] = v2.body.freelancers;
    expect(f.profiles.map((p: any) => p.type).sort()).toEqual(["default", "specialization"]);
    const spec = f.profiles.find((p: any) => p.type === "specialization");
    const res = await apply(a.apiKey, { jobId: await job(), coverLetter: "Hi", profileId: spec.profileId });
    expect(res.status, show(res)).toBe(200);
    expect((await one(db(), db().select({ p: T().applications.profileId }).from(T().applications)))?.p).toBe(spec.profileId);
  });

  test("the deprecated endpoint maps applicationOptions and says it is deprecated", async () => {
    const { a } = await setup();
    const res = await t.request("POST", "/api/auto-apply/external", {
      key: a.apiKey,
      json: { jobId: await job({ fixed: 300 }), coverLetter: "Hi", applicationOptions: { fixedBid: 280, timeline: "Less than 1 month" } },
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ success: true });
    expect(res.headers.get("deprecation")).toBe("true");
    const row = await one(db(), db().select({ f: T().applications.fixedBid, timeline: T().applications.timeline }).from(T().applications));
    expect(row).toEqual({ f: 280, timeline: "Less than 1 month" });
    expect((await settled(a.apiKey, res.body.queueId)).applicationStatus).toBe("applied");
  });
});

describe("queue wake-up", async () => {
  test("a new application is picked up by a woken worker, not by polling (poll interval 1 hour)", async () => {
    await setup({ start: false });
    await worker!.stop();
    worker = new TaskWorker(t.deps, { concurrency: 2, pollMs: 3_600_000, handlers: { [SUBMIT_TASK]: (p, c) => submitApplication(t.deps, p, c) } });
    t.deps.work.subscribe(() => worker!.notify());
    worker.start();
    await Bun.sleep(20); // the first round ran and found nothing; the next poll is an hour away
    const key = (await t.account({ credits: 1 })).apiKey;
    const res = await apply(key, { jobId: await job(), coverLetter: "Hi" });
    const until = performance.now() + 3000;
    let state = "processing";
    while (state === "processing" && performance.now() < until) {
      await Bun.sleep(5);
      state = (await status(key, `queueId=${res.body.queueId}`)).body.applicationStatus;
    }
    expect(state).toBe("applied");
  });
});
