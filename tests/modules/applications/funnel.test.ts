import { afterEach, describe, expect, test } from "bun:test";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { findFreelancer } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import { settle } from "../../../src/modules/applications/repo";
import { syncEngagement } from "../../../src/modules/applications/sync.task";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
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

const DAY = 86_400_000;

async function setup(config: Record<string, unknown> = {}) {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, ...config } });
  const a = await t.account({ credits: 5 });
  const b = await t.account({ name: "other", credits: 5 });
  worker = applyWorker(t);
  return { a, b };
}

/** A job whose posting lists its Connects price, applied to through the sandbox and settled; its queueId. */
async function sent(key: string, opts: { connectPrice?: number; boostBids?: number } = {}): Promise<string> {
  const doc = makeDoc({ fixed: 750 });
  if (opts.connectPrice !== undefined) doc.connectPrice = opts.connectPrice;
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  const res = await t.request("POST", "/api/auto-apply-v2/apply", {
    key,
    json: { jobId: cipher, coverLetter: "Hello, I can help.", proposal: { boostBids: opts.boostBids ?? 0 } },
  });
  expect(res.status, show(res)).toBe(200);
  const final = await settledByJob(t, worker!, key, cipher);
  expect(final.body.applicationStatus, show(final)).toBe("applied");
  return res.body.queueId;
}

const outcome = (key: string, queueId: string, json: Record<string, unknown>) => t.request("POST", `/api/v1/applications/${queueId}/outcome`, { key, json });
const funnel = (key: string, queueId: string) => t.request("GET", `/api/v1/applications/${queueId}/funnel`, { key });

describe("the funnel of a proposal", () => {
  test("sent with the sandbox's Connects (price + boost) recorded once, and their cost at JOBPILOT_CONNECT_PRICE_USD", async () => {
    const { a } = await setup({ connectPriceUsd: 0.2 });
    await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
    const before = (await findFreelancer(t.deps.db, freelancerIdFor(a.accountId)))!.connects;
    const queueId = await sent(a.apiKey, { connectPrice: 9, boostBids: 4 });
    const after = (await findFreelancer(t.deps.db, freelancerIdFor(a.accountId)))!.connects;
    expect(before - after).toBe(13);
    const res = await funnel(a.apiKey, queueId);
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({
      queueId,
      applicationStatus: "applied",
      stages: { viewed: null, replied: null, interview: null, hired: null },
      inConversation: false,
      outcome: null,
      outcomeAt: null,
      valueUsd: null,
      connectsRequired: 9,
      boostConnects: 4,
      connectsCostUsd: 2.6,
      note: null,
    });
    expect(res.body.stages.sent).toBeGreaterThan(0);
    // A second settle (a repeated or retried one) matches nothing: the Connects stay as first written.
    const app = { id: queueId, accountId: a.accountId };
    expect(await settle(t.deps.db, app, { status: "applied", message: "again", connects: { required: 50, boost: 50 } }, t.clock.now())).toBe(false);
    expect((await funnel(a.apiKey, queueId)).body).toMatchObject({ connectsRequired: 9, boostConnects: 4 });
  });

  test("replied → interview → hired by hand, each with its time; later stages fill the earlier ones", async () => {
    const { a } = await setup();
    const queueId = await sent(a.apiKey);
    const sentAt = (await funnel(a.apiKey, queueId)).body.stages.sent as number;
    t.clock.advance(DAY);
    const replied = await outcome(a.apiKey, queueId, { outcome: "replied", at: sentAt + 1000, note: "asked for samples" });
    expect(replied.status, show(replied)).toBe(200);
    expect(replied.body).toMatchObject({
      stages: { sent: sentAt, viewed: sentAt + 1000, replied: sentAt + 1000, interview: null, hired: null },
      inConversation: true,
      outcome: null,
      note: "asked for samples",
    });
    const interview = await outcome(a.apiKey, queueId, { outcome: "interview" });
    expect(interview.body.stages.interview, show(interview)).toBe(t.clock.now());
    t.clock.advance(1000);
    const hired = await outcome(a.apiKey, queueId, { outcome: "hired", valueUsd: 1200 });
    expect(hired.status, show(hired)).toBe(200);
    expect(hired.body).toMatchObject({
      stages: { replied: sentAt + 1000, interview: t.clock.now() - 1000, hired: t.clock.now() },
      outcome: "hired",
      outcomeAt: t.clock.now(),
      valueUsd: 1200,
      note: "asked for samples",
    });
    // GET reads back exactly what the last POST answered with.
    expect((await funnel(a.apiKey, queueId)).body).toEqual(hired.body);
  });

  test("400 naming the field for a bad outcome, value or time", async () => {
    const { a } = await setup();
    const queueId = await sent(a.apiKey);
    const sentAt = (await funnel(a.apiKey, queueId)).body.stages.sent as number;
    const cases: [Record<string, unknown>, string][] = [
      [{ outcome: "ghosted" }, "outcome"],
      [{}, "outcome"],
      [{ outcome: "hired", valueUsd: -5 }, "valueUsd"],
      [{ outcome: "hired", valueUsd: "lots" }, "valueUsd"],
      [{ outcome: "lost", valueUsd: 100 }, "valueUsd"],
      [{ outcome: "replied", at: t.clock.now() + 60_000 }, "at"],
      [{ outcome: "replied", at: sentAt - 1 }, "at"],
      [{ outcome: "replied", at: "yesterday" }, "at"],
      [{ outcome: "replied", note: "x".repeat(2001) }, "note"],
    ];
    for (const [json, field] of cases) {
      const res = await outcome(a.apiKey, queueId, json);
      expect(res.status, `${JSON.stringify(json)}: ${show(res)}`).toBe(400);
      expect(res.body.error, JSON.stringify(json)).toContain(field);
    }
    expect((await funnel(a.apiKey, queueId)).body).toMatchObject({ outcome: null, stages: { replied: null } });
  });

  test("404 with the same body for another account's application and an unknown one", async () => {
    const { a, b } = await setup();
    const queueId = await sent(a.apiKey);
    const theirs = await outcome(b.apiKey, queueId, { outcome: "hired" });
    const unknown = await outcome(b.apiKey, "00000000-0000-4000-8000-000000000000", { outcome: "hired" });
    expect(theirs.status, show(theirs)).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
    expect(unknown.status).toBe(404);
    expect((await funnel(b.apiKey, queueId)).status).toBe(404);
    expect((await funnel(a.apiKey, queueId)).body.outcome).toBeNull();
  });

  test("409 for an application never sent", async () => {
    const { a } = await setup();
    const doc = makeDoc({ fixed: 750 });
    await ingestDocuments(t.deps, [doc], { source: "test" });
    const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
    // More boost than any Connects balance: the sandbox answers not_enough_connects.
    const res = await t.request("POST", "/api/auto-apply-v2/apply", {
      key: a.apiKey,
      json: { jobId: cipher, coverLetter: "Hi", proposal: { boostBids: 1000 } },
    });
    const final = await settledByJob(t, worker!, a.apiKey, cipher);
    expect(final.body.applicationStatus).toBe("not_enough_connects");
    const refused = await outcome(a.apiKey, res.body.queueId, { outcome: "replied" });
    expect(refused.status, show(refused)).toBe(409);
    expect(refused.body.error).toContain("never sent");
    expect((await funnel(a.apiKey, res.body.queueId)).body).toMatchObject({ stages: { sent: null }, outcome: null, connectsRequired: null });
  });

  test("stages only move forward: backwards is 409, a repeat is harmless, hired may still become lost, lost is final", async () => {
    const { a } = await setup();
    const queueId = await sent(a.apiKey);
    expect((await outcome(a.apiKey, queueId, { outcome: "interview" })).status).toBe(200);
    const back = await outcome(a.apiKey, queueId, { outcome: "replied" });
    expect(back.status, show(back)).toBe(409);
    expect(back.body.error).toContain("backwards");
    const again = await outcome(a.apiKey, queueId, { outcome: "interview", note: "second call" });
    expect(again.status, show(again)).toBe(200);
    expect(again.body.note).toBe("second call");

    t.clock.advance(1000);
    expect((await outcome(a.apiKey, queueId, { outcome: "hired", valueUsd: 500 })).body.valueUsd).toBe(500);
    expect((await outcome(a.apiKey, queueId, { outcome: "withdrawn" })).status).toBe(409);
    t.clock.advance(1000);
    const fellThrough = await outcome(a.apiKey, queueId, { outcome: "lost" });
    expect(fellThrough.status, show(fellThrough)).toBe(200);
    expect(fellThrough.body).toMatchObject({ outcome: "lost", outcomeAt: t.clock.now(), valueUsd: null, stages: { hired: t.clock.now() - 1000 } });
    for (const next of ["hired", "replied", "interview", "withdrawn"]) {
      const res = await outcome(a.apiKey, queueId, { outcome: next });
      expect(res.status, `${next}: ${show(res)}`).toBe(409);
    }
    expect((await funnel(a.apiKey, queueId)).body.outcome).toBe("lost");
  });

  test("a later driver reading never erases a recorded outcome, but fills in times it lacks", async () => {
    const { a } = await setup();
    const queueId = await sent(a.apiKey);
    t.clock.advance(DAY);
    expect((await outcome(a.apiKey, queueId, { outcome: "lost" })).status).toBe(200);
    const viewedAt = t.clock.now() - 1000;
    t.clock.advance(DAY);
    // The marketplace (faked: it is outside) reports a view and a reply after the person recorded the loss.
    const sandbox = t.deps.drivers.sandbox!;
    const reading = { ...sandbox, engagement: async () => ({ viewed: true, replied: true, viewedAt, repliedAt: viewedAt + 10 }) };
    await syncEngagement({ ...t.deps, drivers: { ...t.deps.drivers, sandbox: reading } }, {}, { isLastAttempt: false } as never);
    const after = (await funnel(a.apiKey, queueId)).body;
    expect(after).toMatchObject({ outcome: "lost", outcomeAt: t.clock.now() - DAY, stages: { viewed: viewedAt, replied: viewedAt + 10 } });
    // And a reading recorded before the person's word keeps its time when the person records the same stage.
    const second = await sent(a.apiKey);
    await syncEngagement({ ...t.deps, drivers: { ...t.deps.drivers, sandbox: reading } }, {}, { isLastAttempt: false } as never);
    const byHand = await outcome(a.apiKey, second, { outcome: "replied" });
    expect(byHand.body.stages.replied, show(byHand)).toBe(viewedAt + 10);
  });

  test("no reply within JOBPILOT_NO_REPLY_DAYS reads as no_reply; a reply recorded later moves it on", async () => {
    const { a } = await setup({ noReplyDays: 3 });
    const queueId = await sent(a.apiKey);
    const sentAt = (await funnel(a.apiKey, queueId)).body.stages.sent as number;
    t.clock.set(sentAt + 3 * DAY - 1);
    expect((await funnel(a.apiKey, queueId)).body).toMatchObject({ outcome: null, outcomeAt: null });
    t.clock.set(sentAt + 3 * DAY);
    expect((await funnel(a.apiKey, queueId)).body).toMatchObject({ outcome: "no_reply", outcomeAt: sentAt + 3 * DAY });
    const late = await outcome(a.apiKey, queueId, { outcome: "replied" });
    expect(late.status, show(late)).toBe(200);
    expect(late.body).toMatchObject({ outcome: null, inConversation: true });
  });
});
