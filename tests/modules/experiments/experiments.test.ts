import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { listSubmissionsOfAccount, setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor, seededRandom } from "../../../src/marketplace/sandbox/rules";
import { authenticate, setRateLimits } from "../../../src/modules/accounts/service";
import { promoteWinner } from "../../../src/modules/experiments/service";
import { syncEngagement } from "../../../src/modules/applications/sync.task";
import { findAccountApplication } from "../../../src/modules/applications/repo";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { TaskWorker } from "../../../src/worker/worker";
import { applyWorker, settledByJob } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { createMigratedPgDatabase, PG_BACKEND } from "../../helpers/postgres";

let t: TestApp;
let worker: TaskWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
});

const EXPERIMENTS = "/api/v1/experiments";
const DRAFT = "/api/auto-apply-v2/generate-proposal";
const APPLY = "/api/auto-apply-v2/apply";

async function setup(opts: { dbPath?: string; databaseUrl?: string } = {}) {
  t = await createTestApp({
    dbPath: opts.dbPath,
    config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}) },
  });
  const a = await t.account({ credits: 100 });
  const b = await t.account({ name: "other", credits: 5 });
  // Boosted arms spend Connects: enough for every test's proposals.
  await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
  await setConnects(t.deps.db, freelancerIdFor(a.accountId), 100_000);
  return { a, b };
}

/** Archives a fixed-price job (budget 750 USD); its ciphertext. */
async function job(over: { title?: string; fixed?: number } = {}): Promise<string> {
  const doc = makeDoc({ fixed: over.fixed ?? 750, title: over.title });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const create = (key: string, json: Record<string, unknown>) => t.request("POST", EXPERIMENTS, { key, json });

const TWO_LETTERS = {
  name: "short vs long",
  arms: [
    { name: "short", prompt: "Write three sentences at most." },
    { name: "long", prompt: "Write a detailed letter of five paragraphs." },
  ],
};

describe("experiments: create, validate, list, stop", () => {
  test("created with its arms (the first is the control), listed, read and stopped; another account's is a 404", async () => {
    const { a, b } = await setup();
    const res = await create(a.apiKey, TWO_LETTERS);
    expect(res.status, show(res)).toBe(201);
    const e = res.body.experiment;
    expect(e).toMatchObject({ name: "short vs long", objective: "replies", allocation: "equal", state: "running", feedId: null, stoppedAt: null });
    expect(e.arms.map((x: { name: string; position: number }) => [x.position, x.name])).toEqual([
      [0, "short"],
      [1, "long"],
    ]);

    const list = await t.request("GET", EXPERIMENTS, { key: a.apiKey });
    expect(list.body.experiments.map((x: { id: string }) => x.id)).toEqual([e.id]);
    expect((await t.request("GET", EXPERIMENTS, { key: b.apiKey })).body.experiments).toEqual([]);

    const read = await t.request("GET", `${EXPERIMENTS}/${e.id}`, { key: a.apiKey });
    expect(read.status, show(read)).toBe(200);
    expect(read.body.decision).toBe("running");
    expect(read.body.experiment.arms.map((x: { sent: number; ci95: number[] }) => [x.sent, x.ci95])).toEqual([
      [0, [0, 1]],
      [0, [0, 1]],
    ]);

    expect((await t.request("GET", `${EXPERIMENTS}/${e.id}`, { key: b.apiKey })).status).toBe(404);
    expect((await t.request("POST", `${EXPERIMENTS}/${e.id}/stop`, { key: b.apiKey })).status).toBe(404);
    const stopped = await t.request("POST", `${EXPERIMENTS}/${e.id}/stop`, { key: a.apiKey });
    expect(stopped.status, show(stopped)).toBe(200);
    expect(stopped.body.experiment.state).toBe("stopped");
    expect(stopped.body.experiment.stoppedAt).toBe(t.clock.now());
    expect((await t.request("GET", `${EXPERIMENTS}/${e.id}`, { key: a.apiKey })).body.decision).toBe("stopped");
    // A stopped experiment takes no new job.
    const draft = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: await job(), experimentId: e.id } });
    expect(draft.status, show(draft)).toBe(409);
    expect(draft.body.error).toContain("experimentId");
  });

  test("every bad input is a 4xx naming the field, and writes nothing", async () => {
    const { a, b } = await setup();
    const bFeed = await t.request("POST", "/api/v1/feeds", { key: b.apiKey, json: { title: "theirs", minScore: 0 } });
    expect(bFeed.status, show(bFeed)).toBe(201);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ name: "x", arms: [{ name: "only" }] }, 400, "arms"],
      [{ name: "x", arms: [1, 2, 3, 4, 5].map((i) => ({ name: `a${i}` })) }, 400, "arms"],
      [{ name: "x", arms: [{ name: "A" }, { name: "a " }] }, 400, "arms[1].name"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B", hourlyRate: 2 }] }, 400, "hourlyRate"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B", fixedBid: 2_000_000 }] }, 400, "fixedBid"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B", boostBids: 1001 }] }, 400, "boostBids"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B", bidMultiplier: 1.2, fixedBid: 100 }] }, 400, "arms[1].bidMultiplier"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B", bidMultiplier: 0 }] }, 400, "bidMultiplier"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B" }], objective: "clicks" }, 400, "objective"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B", prompt: "p", template: "t" }] }, 400, "arms[1].template"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B", sendDelayMinutes: 20_000 }] }, 400, "sendDelayMinutes"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B" }], allocation: "greedy" }, 400, "allocation"],
      [{ name: " ", arms: [{ name: "A" }, { name: "B" }] }, 400, "name"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B" }], feedId: bFeed.body.feed.id }, 404, "feedId"],
      [{ name: "x", arms: [{ name: "A" }, { name: "B" }], freelancerId: "not-mine" }, 404, "freelancerId"],
    ];
    for (const [json, status, field] of cases) {
      const res = await create(a.apiKey, json);
      expect(res.status, `${JSON.stringify(json)} → ${show(res)}`).toBe(status);
      expect(res.body.error, show(res)).toContain(field);
    }
    expect((await t.request("GET", EXPERIMENTS, { key: a.apiKey })).body.experiments).toEqual([]);
    const unknown = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: await job(), experimentId: "nope" } });
    expect(unknown.status, show(unknown)).toBe(404);
    const typed = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobTitle: "t", jobDescription: "d", experimentId: "nope" } });
    expect(typed.status, show(typed)).toBe(400);
    expect(typed.body.error).toContain("experimentId");
  });
});

describe("experiments: assignment", () => {
  test("a job keeps its arm: on redraft, on apply without the experiment named, and after a restart on the same database", async () => {
    // One database both processes open: a SQLite file, or a PostgreSQL database the test app does not drop on close.
    const pg = PG_BACKEND ? await createMigratedPgDatabase() : undefined;
    const databaseUrl = pg?.url;
    const dbPath = pg ? undefined : join(mkdtempSync(join(tmpdir(), "jp-exp-")), "exp.db");
    const { a } = await setup({ dbPath, databaseUrl });
    const e = (await create(a.apiKey, TWO_LETTERS)).body.experiment;
    const jobs = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => job({ title: `Job ${i}` })));
    const first = new Map<string, string>();
    for (const cipher of jobs) {
      const d = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: cipher, experimentId: e.id } });
      expect(d.status, show(d)).toBe(200);
      expect(d.body.experiment.id).toBe(e.id);
      first.set(cipher, d.body.experiment.armId);
      const again = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: cipher, experimentId: e.id } });
      expect(again.body.experiment.armId).toBe(d.body.experiment.armId);
    }
    const clock = t.clock;
    await t.close();
    t = await createTestApp({ dbPath, clock, config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, ...(databaseUrl ? { databaseUrl } : {}) } });
    worker = applyWorker(t);
    for (const cipher of jobs) {
      const d = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: cipher } });
      expect(d.body.experiment?.armId, show(d)).toBe(first.get(cipher)!);
      const res = await t.request("POST", APPLY, { key: a.apiKey, json: { jobId: cipher, coverLetter: d.body.proposal } });
      expect(res.status, show(res)).toBe(200);
      expect(res.body.experiment).toEqual({
        id: e.id,
        armId: first.get(cipher)!,
        armName: e.arms.find((x: { id: string }) => x.id === first.get(cipher))!.name,
      });
      const app = (await findAccountApplication(t.deps.db, a.accountId, res.body.queueId))!;
      expect([app.experimentId, app.armId, app.editedByHand]).toEqual([e.id, first.get(cipher)!, false]);
    }
    const results = await t.request("GET", `${EXPERIMENTS}/${e.id}`, { key: a.apiKey });
    expect(results.body.experiment.arms.reduce((s: number, x: { assigned: number }) => s + x.assigned, 0)).toBe(6);
    await worker.stop();
    worker = undefined;
    await t.close();
    t = undefined as unknown as TestApp; // closed: afterEach has nothing left to close
    await pg?.drop();
  }, 20_000);

  test("a feed's experiment assigns the feed's jobs without being named (by the feed given, or the job's match); the arm's template is the letter", async () => {
    const { a } = await setup();
    const feed = await t.request("POST", "/api/v1/feeds", {
      key: a.apiKey,
      json: { title: "mine", minScore: 0, includes: ["zebrafish"], proposalGenerationPrompt: "feed prompt" },
    });
    expect(feed.status, show(feed)).toBe(201);
    const e = (
      await create(a.apiKey, {
        name: "templates",
        feedId: feed.body.feed.id,
        arms: [
          { name: "A", template: "Letter A for {{title}}." },
          { name: "B", template: "Letter B for {{title}}." },
        ],
      })
    ).body.experiment;
    const named = await job({ title: "Zebrafish tracker" });
    const d = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: named, feedId: feed.body.feed.id } });
    expect(d.status, show(d)).toBe(200);
    expect(d.body.experiment.id).toBe(e.id);
    expect(d.body.proposal).toBe(`Letter ${d.body.experiment.armName} for Zebrafish tracker.`);
    // The dashboard's job page names no feed: the job's match into the feed puts it in the experiment.
    const matched = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: await job({ title: "Zebrafish pond" }) } });
    expect(matched.body.experiment?.id, show(matched)).toBe(e.id);
    // A job outside the feed, never assigned, is in no experiment.
    const other = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: await job({ title: "Bookkeeping" }) } });
    expect(other.status, show(other)).toBe(200);
    expect(other.body.experiment).toBeUndefined();
  });

  test("an experiment with no feed takes the account's jobs from every feed, after the feed's own; another account's never", async () => {
    const { a, b } = await setup();
    const feed = await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "fish", minScore: 0, includes: ["zebrafish"] } });
    expect(feed.status, show(feed)).toBe(201);
    // Created first, so "oldest first" alone would put it ahead: the feed's own experiment still gets the feed's jobs.
    const everywhere = (await create(a.apiKey, { ...TWO_LETTERS, name: "everywhere" })).body.experiment;
    const fishOnly = (await create(a.apiKey, { ...TWO_LETTERS, name: "fish only", feedId: feed.body.feed.id })).body.experiment;
    const othersOwn = (await create(b.apiKey, { ...TWO_LETTERS, name: "b's" })).body.experiment;
    const fish = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: await job({ title: "Zebrafish counter" }) } });
    expect(fish.body.experiment?.id, show(fish)).toBe(fishOnly.id);
    // A job no feed matched, drafted and applied as usual, is the account-wide experiment's.
    const plain = await job({ title: "Bookkeeping" });
    const d = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: plain } });
    expect(d.body.experiment?.id, show(d)).toBe(everywhere.id);
    const applied = await t.request("POST", APPLY, { key: a.apiKey, json: { jobId: await job({ title: "Invoices" }), coverLetter: "Hello there." } });
    expect(applied.status, show(applied)).toBe(200);
    expect(applied.body.experiment?.id).toBe(everywhere.id);
    expect(
      (await t.request("GET", `${EXPERIMENTS}/${othersOwn.id}`, { key: b.apiKey })).body.experiment.arms.map((x: { assigned: number }) => x.assigned),
    ).toEqual([0, 0]);
    // Stopped, it takes no new job; the job it already has keeps its arm.
    expect((await t.request("POST", `${EXPERIMENTS}/${everywhere.id}/stop`, { key: a.apiKey })).status).toBe(200);
    const after = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: await job({ title: "Payroll" }) } });
    expect(after.body.experiment, show(after)).toBeUndefined();
  });

  test("the arm's bid and boost go out; a letter edited beyond the threshold is marked; a letter arm sent without its draft counts as edited", async () => {
    const { a } = await setup();
    worker = applyWorker(t);
    const e = (
      await create(a.apiKey, {
        name: "bids",
        arms: [
          { name: "control", boostBids: 0 },
          { name: "boosted", bidMultiplier: 1.5, boostBids: 3, sendDelayMinutes: 0 },
        ],
      })
    ).body.experiment;
    const [control, boosted] = e.arms.map((x: { id: string }) => x.id);
    const seen = new Set<string>();
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const cipher = await job();
      const letter = "Hello, I have built many dashboards like this one and can start this week with a clear plan.";
      const res = await t.request("POST", APPLY, {
        key: a.apiKey,
        json: { jobId: cipher, coverLetter: letter, experimentId: e.id, proposal: { boostBids: 7 } },
      });
      expect(res.status, show(res)).toBe(200);
      const app = (await findAccountApplication(t.deps.db, a.accountId, res.body.queueId))!;
      seen.add(app.armId!);
      if (app.armId === boosted) expect([app.fixedBid, app.boostBids]).toEqual([1125, 3]);
      else expect([app.armId, app.fixedBid, app.boostBids]).toEqual([control, 750, 0]);
      // No letter was drafted and no arm varies the letter: nothing to compare.
      expect(app.editedByHand).toBeNull();
    }
    expect(seen.size).toBe(2);

    const letters = (await create(a.apiKey, TWO_LETTERS)).body.experiment;
    const kept = await job();
    const edited = await job();
    const undrafted = await job();
    const d1 = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: kept, experimentId: letters.id } });
    const d2 = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: edited, experimentId: letters.id } });
    const sentKept = await t.request("POST", APPLY, { key: a.apiKey, json: { jobId: kept, coverLetter: `${d1.body.proposal} Thanks!` } });
    const sentEdited = await t.request("POST", APPLY, {
      key: a.apiKey,
      json: { jobId: edited, coverLetter: `I rewrote this: ${d2.body.proposal.split(" ").reverse().join(" ")}` },
    });
    const sentUndrafted = await t.request("POST", APPLY, {
      key: a.apiKey,
      json: { jobId: undrafted, coverLetter: "My own letter.", experimentId: letters.id },
    });
    const marks = await Promise.all(
      [sentKept, sentEdited, sentUndrafted].map(async (r) => {
        expect(r.status, show(r)).toBe(200);
        return (await findAccountApplication(t.deps.db, a.accountId, r.body.queueId))!.editedByHand;
      }),
    );
    expect(marks).toEqual([false, true, true]);
  }, 20_000);
});

describe("experiments: allocation, send delay and promotion", () => {
  test("thompson allocation assigns every job once, reproducibly on redraft", async () => {
    const { a } = await setup();
    const e = (await create(a.apiKey, { ...TWO_LETTERS, allocation: "thompson" })).body.experiment;
    expect(e.allocation).toBe("thompson");
    for (let i = 0; i < 4; i++) {
      const cipher = await job();
      const d = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: cipher, experimentId: e.id } });
      expect(d.status, show(d)).toBe(200);
      const again = await t.request("POST", DRAFT, { key: a.apiKey, json: { jobId: cipher } });
      expect(again.body.experiment).toEqual(d.body.experiment);
    }
    const res = await t.request("GET", `${EXPERIMENTS}/${e.id}`, { key: a.apiKey });
    expect(res.body.experiment.arms.reduce((s: number, x: { assigned: number }) => s + x.assigned, 0)).toBe(4);
  });

  test("a send-delay arm holds the submission back by its delay", async () => {
    const { a } = await setup();
    worker = applyWorker(t);
    const e = (await create(a.apiKey, { name: "speed", arms: [{ name: "now" }, { name: "later", sendDelayMinutes: 30 }] })).body.experiment;
    const later = e.arms[1].id;
    for (let i = 0; i < 40; i++) {
      const cipher = await job();
      const res = await t.request("POST", APPLY, { key: a.apiKey, json: { jobId: cipher, coverLetter: "Hello, I can help.", experimentId: e.id } });
      expect(res.status, show(res)).toBe(200);
      if (res.body.experiment.armId !== later) continue;
      // The worker is awake and idle-polling; the task is simply not due yet.
      worker.notify();
      await Bun.sleep(100);
      expect((await findAccountApplication(t.deps.db, a.accountId, res.body.queueId))!.phase).toBe("queued");
      const waiting = await t.request("GET", `/api/auto-apply-v2/status?queueId=${res.body.queueId}`, { key: a.apiKey });
      expect(waiting.body.applicationStatus, show(waiting)).toBe("processing");
      t.clock.advance(30 * 60_000);
      const final = await settledByJob(t, worker, a.apiKey, cipher);
      expect(final.body.applicationStatus, show(final)).toBe("applied");
      return;
    }
    throw new Error("no job was assigned the delayed arm in 40 draws");
  }, 20_000);

  test("promoting an arm makes its prompt the feed's proposal prompt", async () => {
    const { a, b } = await setup();
    const feed = (await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "mine", minScore: 0 } })).body.feed;
    const e = (await create(a.apiKey, { ...TWO_LETTERS, feedId: feed.id })).body.experiment;
    const auth = (await authenticate(t.deps, a.apiKey))!;
    // No winner yet: the arm must be named.
    await expect(promoteWinner(t.deps, auth, e.id)).rejects.toThrow("armId");
    expect(await promoteWinner(t.deps, auth, e.id, e.arms[1].id)).toEqual({ feedId: feed.id, armId: e.arms[1].id });
    const read = await t.request("GET", `/api/v1/feeds/${feed.id}`, { key: a.apiKey });
    expect(read.body.feed.proposalGenerationPrompt).toBe(TWO_LETTERS.arms[1]!.prompt);
    await expect(promoteWinner(t.deps, (await authenticate(t.deps, b.apiKey))!, e.id, e.arms[1].id)).rejects.toThrow("not found");
  });
});

describe("experiments: results", () => {
  test("per-arm counts from recorded outcomes, rates with intervals, lift against the control and the decision", async () => {
    const { a } = await setup();
    worker = applyWorker(t);
    const e = (
      await create(a.apiKey, {
        name: "boost",
        arms: [
          { name: "holdout", boostBids: 0 },
          { name: "boost", boostBids: 2 },
        ],
      })
    ).body.experiment;
    const byArm = new Map<string, string[]>();
    for (let i = 0; i < 12; i++) {
      const cipher = await job();
      const res = await t.request("POST", APPLY, { key: a.apiKey, json: { jobId: cipher, coverLetter: "Hello, I can help.", experimentId: e.id } });
      expect(res.status, show(res)).toBe(200);
      const final = await settledByJob(t, worker, a.apiKey, cipher);
      expect(final.body.applicationStatus, show(final)).toBe("applied");
      byArm.set(res.body.experiment.armId, [...(byArm.get(res.body.experiment.armId) ?? []), res.body.queueId]);
    }
    // One reply per arm, one interview in the second (an interview implies a reply).
    const ids = e.arms.map((x: { id: string }) => x.id) as string[];
    const replied = new Map<string, number>();
    for (const [i, armId] of ids.entries()) {
      const queue = byArm.get(armId) ?? [];
      const picks = queue.slice(0, i === 0 ? 1 : 2);
      for (const [j, queueId] of picks.entries()) {
        const res = await t.request("POST", `/api/v1/applications/${queueId}/outcome`, { key: a.apiKey, json: { outcome: j === 0 ? "replied" : "interview" } });
        expect(res.status, show(res)).toBe(200);
      }
      replied.set(armId, picks.length);
    }
    const res = await t.request("GET", `${EXPERIMENTS}/${e.id}`, { key: a.apiKey });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.decision).toBe("running"); // far below the minimum per arm
    expect(typeof res.body.reason).toBe("string");
    for (const arm of res.body.experiment.arms) {
      const sent = byArm.get(arm.id)?.length ?? 0;
      expect([arm.sent, arm.assigned, arm.successes, arm.excludedEdited], show(res)).toEqual([sent, sent, Math.min(replied.get(arm.id)!, sent), 0]);
      expect(arm.trials).toBe(sent);
      if (sent > 0) expect(arm.rate).toBeCloseTo(arm.successes / sent, 10);
      expect(arm.ci95[0]).toBeLessThanOrEqual(arm.rate ?? 0);
      expect(arm.ci95[1]).toBeGreaterThanOrEqual(arm.rate ?? 1);
    }
    const [control, treated] = res.body.experiment.arms;
    expect(control.lift).toBeNull();
    if (control.sent > 0 && treated.sent > 0) {
      expect(treated.lift.absolute).toBeCloseTo(treated.rate - control.rate, 10);
      expect(treated.lift.ci95[0]).toBeLessThanOrEqual(treated.lift.absolute);
      expect(treated.lift.ci95[1]).toBeGreaterThanOrEqual(treated.lift.absolute);
    }

    // The interviews objective counts only the interview.
    const interviews = (await create(a.apiKey, { name: "i", objective: "interviews", arms: [{ name: "x" }, { name: "y" }] })).body.experiment;
    const r2 = await t.request("GET", `${EXPERIMENTS}/${interviews.id}`, { key: a.apiKey });
    expect(r2.body.experiment.arms.map((x: { sent: number }) => x.sent)).toEqual([0, 0]);
  }, 30_000);
});

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
];

describe("experiments: a known difference in the sandbox's outcome model", () => {
  test("bidding 2.5× the budget against bidding the budget: the results put the budget arm ahead with a negative lift", async () => {
    // The sandbox's model (marketplace/sandbox/rules.ts) costs a reply 1.2 logits per unit of bid ÷ budget above 1.1:
    // at 2.5× that is about −1.7, from roughly one reply in five to one in twenty-five. The experiment never sees
    // the model, only the outcomes the engagement sync reads back.
    // 200 a side: at 150 the always-valid interval still held zero in about one run in ten (35 % against 17 %).
    const N = 400;
    t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, sandboxTimeScale: 10_000 } });
    const a = await t.account({ credits: N + 10 });
    await setRateLimits(t.deps, a.accountId, { overrides: { "apply.minute": N + 10, "apply.day": N + 10 } });
    await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
    await setConnects(t.deps.db, freelancerIdFor(a.accountId), 1_000_000);
    worker = applyWorker(t, { concurrency: 4 });
    const e = (await create(a.apiKey, { name: "bid", arms: [{ name: "budget" }, { name: "overbid", bidMultiplier: 2.5 }] })).body.experiment;

    const docs = Array.from({ length: N }, (_, i) =>
      makeDoc({
        title: `React dashboard for client ${i}`,
        skills: ["React", "TypeScript"],
        fixed: 750,
        publishTime: new Date(t.clock.now() - 20 * 60_000).toISOString(),
      }),
    );
    await ingestDocuments(t.deps, docs, { source: "test" });
    for (const [i, doc] of docs.entries()) {
      const rand = seededRandom(`experiment-letter|${i}`);
      const picked = [...SENTENCES].sort(() => rand() - 0.5).slice(0, 6);
      const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
      const coverLetter = `Hello, I read your post about a React dashboard closely and I work with React and TypeScript every day. ${picked.join(" ")} Best regards.`;
      const res = await t.request("POST", APPLY, { key: a.apiKey, json: { jobId: cipher, coverLetter, experimentId: e.id } });
      expect(res.status, show(res)).toBe(200);
    }
    // 400 applies on PostgreSQL under a full CI took over 20 s (7.8 s idle): a wait bound, not a speed test.
    await worker.drain(60_000);
    t.clock.advance(24 * 3_600_000);
    for (let round = 0; round < 20; round++) {
      const submissions = await listSubmissionsOfAccount(t.deps.db, a.accountId, N + 10);
      expect(submissions.length).toBe(N);
      if (submissions.every((s) => s.hiredAtTs !== null || s.lostAtTs !== null)) break;
      await syncEngagement(t.deps, {}, { taskId: 0, attempt: 1, isLastAttempt: true });
      t.clock.advance(1000);
    }

    const res = await t.request("GET", `${EXPERIMENTS}/${e.id}`, { key: a.apiKey });
    expect(res.status, show(res)).toBe(200);
    const [budget, overbid] = res.body.experiment.arms;
    expect(budget.sent + overbid.sent).toBe(N);
    // Equal allocation: each arm gets about half (a 400-coin toss lands outside 150–250 about once in 10^6).
    expect(budget.sent, show(res)).toBeGreaterThan(150);
    expect(overbid.sent, show(res)).toBeGreaterThan(150);
    expect(budget.rate, show(res)).toBeGreaterThan(overbid.rate);
    expect(overbid.lift.absolute, show(res)).toBeLessThan(0);
    // About 35–40 % against 17 % at 200 a side: past what the always-valid test needs (docs/experiments.md's table).
    expect(res.body.decision, show(res)).toBe(`winner:${budget.id}`);
  }, 90_000);
});
