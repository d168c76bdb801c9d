import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { eq } from "drizzle-orm";
import { exec, tables } from "../../../src/db/query";
import { sha256Hex } from "../../../src/lib/hash";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { listSubmissionsOfAccount, setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor, readPlan, seededRandom, stageProbabilities, type ProposalFacts } from "../../../src/marketplace/sandbox/rules";
import { setRateLimits } from "../../../src/modules/accounts/service";
import { syncEngagement } from "../../../src/modules/applications/sync.task";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { TaskWorker } from "../../../src/worker/worker";
import { applyWorker } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

// Issue 41's proof "a boost holdout recovers the sandbox's true boost effect within its interval". The sandbox's
// outcome model (marketplace/sandbox/rules.ts, docs/sandbox-market.md) lets boost Connects b raise only the chance of a
// view, by 0.7 × (1 − e^(−b/30)) logits; a reply needs a view, so the true effect on replies per proposal is, for each
// proposal, P(view | boosted) × P(reply | view) − P(view | not boosted) × P(reply | view). The experiment never sees
// the model, only the outcomes the engagement sync reads back; the test computes the truth from the model's own
// stageProbabilities over the facts stored with the exact proposals sent, and checks that the results' intervals hold it.

let t: TestApp | undefined;
let worker: TaskWorker | undefined;
let restoreIds: (() => void) | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
  t = undefined;
  restoreIds?.();
  restoreIds = undefined;
});

const N = 300;
/** Three times the model's boost scale: 95 % of the largest view bonus boost can buy. */
const BOOST = 90;
/** Proposals already in each job: log2(1 + 50/10) ≈ 2.6 costs about 0.9 logits of views, so a boost has views to win. */
const APPLICANTS = 50;
const SANDBOX_SEED = 41;

/** Sentences a freelancer might write, picked per letter so no two letters are near-identical (the sandbox punishes copies). */
const SENTENCES = [
  "I have shipped similar work for clients in logistics, retail and finance.",
  "My first step would be a short call to agree on scope and milestones.",
  "I write tests as I go, so changes stay safe after handover.",
  "You will get a working preview within the first week.",
  "I keep a written log of decisions so nothing depends on my memory.",
  "Clear weekly updates are part of how I work.",
  "I am available for a few hours of overlap with your time zone every day.",
  "Happy to share two recent examples that match your description.",
  "I usually start by reading the existing code or files before proposing changes.",
  "I can start this week and keep going after the first phase if it suits you.",
  "I document every handover with a short video walkthrough.",
  "Reliable communication is the part clients mention most in my reviews.",
  "I would flag risks early rather than surprise you at the deadline.",
  "Performance and maintainability are the two things I optimise for.",
  "Fixed milestones or hourly both work for me.",
  "Questions I would ask first: who uses this, and what does done look like?",
  "I can work within your existing tools and conventions.",
  "A small paid trial task is fine with me if you prefer.",
];

/**
 * Ids as a seeded counter instead of Bun.randomUUIDv7, for this test only: the sandbox draws each proposal's outcome
 * from the sandbox seed and the application's id, so random ids would make every run a fresh sample and the 95 %
 * interval would miss the truth in about one run in twenty. The ids keep v7's shape and order (a counter where the
 * timestamp goes); randomness is the outside world here, faked like the clock.
 */
function seedIds(): () => void {
  let n = 0;
  // newId calls it with no arguments: the string overload is the only one to stand in for.
  const seeded = () => {
    const c = (0x019000000000 + ++n).toString(16).padStart(12, "0");
    const h = sha256Hex(`boost-holdout|${n}`);
    return `${c.slice(0, 8)}-${c.slice(8, 12)}-7${h.slice(0, 3)}-8${h.slice(3, 6)}-${h.slice(6, 18)}`;
  };
  const spy = spyOn(Bun, "randomUUIDv7").mockImplementation(seeded as typeof Bun.randomUUIDv7);
  return () => spy.mockRestore();
}

/** P(reply) per proposal under the model: a reply needs a view (interviews and hires come after a reply). */
const pReply = (f: ProposalFacts) => {
  const p = stageProbabilities(f);
  return p.view * p.replyGivenView;
};

describe("experiments: a boost holdout in the sandbox's outcome model", () => {
  test("0 against 90 boost Connects over 300 proposals: the true effect lies within the lift's ci95 and alwaysValid95", async () => {
    restoreIds = seedIds();
    t = await createTestApp({
      // A ten-thousandfold clock: the client's slowest move (a few days) lands within minutes of the manual clock.
      config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, sandboxTimeScale: 10_000, sandboxSeed: SANDBOX_SEED },
    });
    const app = t;
    const a = await app.account({ credits: N + 10 });
    await setRateLimits(app.deps, a.accountId, { overrides: { "apply.minute": N + 10, "apply.day": N + 10 } });
    await ensureOwnFreelancer(app.deps.db, a.accountId, app.clock.now());
    await setConnects(app.deps.db, freelancerIdFor(a.accountId), 1_000_000);
    const created = await app.request("POST", "/api/v1/experiments", {
      key: a.apiKey,
      json: {
        name: "boost holdout",
        arms: [
          { name: "holdout", boostBids: 0 },
          { name: "boosted", boostBids: BOOST },
        ],
      },
    });
    expect(created.status, show(created)).toBe(201);
    const e = created.body.experiment;
    // The API draws the experiment's assignment seed at random (it is not a request field): fixed here, before any
    // job is assigned, so which job gets which arm is the same every run.
    const { experiments } = tables(app.deps.db);
    expect(await exec(app.deps.db, app.deps.db.update(experiments).set({ seed: "boost-holdout" }).where(eq(experiments.id, e.id)))).toBe(1);

    const docs = Array.from({ length: N }, (_, i) => {
      const doc = makeDoc({
        // Named ciphertexts: makeDoc's counter is shared with whatever test file ran before in this process.
        ciphertext: `~0241${String(i).padStart(16, "0")}`,
        title: `React dashboard for client ${i}`,
        skills: ["React", "TypeScript"],
        fixed: 750,
        publishTime: new Date(app.clock.now() - 20 * 60_000).toISOString(),
      });
      (doc.jobTile as { job: Record<string, unknown> }).job.totalApplicants = APPLICANTS;
      return doc;
    });
    expect((await ingestDocuments(app.deps, docs, { source: "test" })).inserted).toBe(N);

    // Every application is queued before the worker starts, so ids are made in one order; one submission at a time,
    // so each letter is compared with the same recent letters (the duplicate term) every run.
    worker = applyWorker(app, { concurrency: 1, start: false });
    const armOfJob = new Map<string, string>();
    for (const [i, doc] of docs.entries()) {
      const rand = seededRandom(`boost-letter|${i}`);
      const picked = [...SENTENCES].sort(() => rand() - 0.5).slice(0, 6);
      const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
      const coverLetter = `Hello, I read your post about a React dashboard closely and I work with React and TypeScript every day. ${picked.join(" ")} Best regards.`;
      const res = await app.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId: cipher, coverLetter, experimentId: e.id } });
      expect(res.status, show(res)).toBe(200);
      armOfJob.set(cipher, res.body.experiment.armId);
    }
    worker.start();
    await worker.drain(30_000);

    app.clock.advance(24 * 3_600_000);
    let submissions = await listSubmissionsOfAccount(app.deps.db, a.accountId, N + 10);
    for (let round = 0; round < 20; round++) {
      expect(submissions.length).toBe(N);
      if (submissions.every((s) => s.hiredAtTs !== null || s.lostAtTs !== null)) break;
      await syncEngagement(app.deps, {}, { taskId: 0, attempt: 1, isLastAttempt: true });
      app.clock.advance(1000);
      submissions = await listSubmissionsOfAccount(app.deps.db, a.accountId, N + 10);
    }
    expect(submissions.every((s) => s.hiredAtTs !== null || s.lostAtTs !== null)).toBe(true);

    // The truth, from the model itself, over the facts stored with each proposal sent: the same proposal boosted
    // and not, whichever arm it was in.
    const [holdoutId, boostedId] = e.arms.map((x: { id: string }) => x.id) as [string, string];
    let effect = 0;
    for (const s of submissions) {
      const plan = readPlan(s.plan);
      expect(plan, s.applicationId).not.toBeNull();
      // The arm's boost is what went out: the plan's facts record the Connects bid on boost.
      expect(plan!.facts.boostConnects).toBe(armOfJob.get(s.jobCiphertext) === boostedId ? BOOST : 0);
      effect += pReply({ ...plan!.facts, boostConnects: BOOST }) - pReply({ ...plan!.facts, boostConnects: 0 });
    }
    effect /= N;

    const res = await app.request("GET", `/api/v1/experiments/${e.id}`, { key: a.apiKey });
    expect(res.status, show(res)).toBe(200);
    const [holdout, boosted] = res.body.experiment.arms;
    expect([holdout.id, boosted.id]).toEqual([holdoutId, boostedId]);
    expect(holdout.sent + boosted.sent).toBe(N);
    // Equal allocation: about half each (a 300-coin toss lands outside 110–190 about once in 10^5); 143 / 157 here.
    expect(holdout.sent, show(res)).toBeGreaterThan(110);
    expect(boosted.sent, show(res)).toBeGreaterThan(110);
    const figures = `true effect ${effect.toFixed(4)}; lift ${JSON.stringify(boosted.lift)}; rates ${holdout.rate} / ${boosted.rate}`;
    // The model's effect is material, not a zero any interval would hold: about 9 points of replies.
    // Seeded, this run is the same every time and on both databases: true effect 0.0925, measured 38 of 143 against
    // 59 of 157 replies, lift 0.110 with ci95 [0.004, 0.212] and alwaysValid95 [-0.092, 0.312]. Other seeds
    // (SANDBOX_SEED and the experiment's seed changed together) are fresh samples: the one-look ci95 is meant to
    // miss the truth about one time in twenty, the always-valid range (about twice as wide) far less often; over
    // seeds 1–26 the ci95 missed it 3 times, always-valid95 never. Hence the fixed seeds: CI must not fail by chance.
    expect(effect, figures).toBeGreaterThan(0.07);
    expect(boosted.lift.absolute, figures).toBeCloseTo(boosted.rate - holdout.rate, 10);
    expect(boosted.lift.ci95[0], figures).toBeLessThanOrEqual(effect);
    expect(boosted.lift.ci95[1], figures).toBeGreaterThanOrEqual(effect);
    expect(boosted.lift.alwaysValid95[0], figures).toBeLessThanOrEqual(effect);
    expect(boosted.lift.alwaysValid95[1], figures).toBeGreaterThanOrEqual(effect);
  }, 30_000);
});
