import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { listSubmissionsOfAccount, setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor, seededRandom } from "../../../src/marketplace/sandbox/rules";
import { setRateLimits } from "../../../src/modules/accounts/service";
import { SUBMIT_TASK } from "../../../src/modules/applications/service";
import { submitApplication } from "../../../src/modules/applications/submit.task";
import { syncEngagement } from "../../../src/modules/applications/sync.task";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { SCORE_TASK, scoreFeedMatch } from "../../../src/modules/scoring/service";
import { TaskWorker } from "../../../src/worker/worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { useCleanups } from "../../helpers/cleanups";
import { makeDoc } from "../../helpers/factories";

// The sandbox knows the truth (docs/sandbox-market.md): fresher proposals and better-fitting jobs get more replies.
// Analytics never sees the model, only the outcomes the engagement sync reads back, so this checks the whole loop:
// ingest → feed scoring → apply → sandbox plan → sync → funnel analytics recovers what the model put in.

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Publish ages at submission: three under 15 minutes, three over 6 hours, two between. */
const AGES = [3 * MIN, 8 * MIN, 12 * MIN, 30 * MIN, 3 * HOUR, 8 * HOUR, 14 * HOUR, 22 * HOUR];
/** Applications: two job families (fitting the freelancer's profile and not) × the ages, many times over. */
const N = 400;

const cleanup = useCleanups();

/** Sentences a freelancer might write, picked per letter so no two letters are near-identical. */
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
  "Fixed milestones or hourly both work for me.",
  "I can start this week and keep going after the first phase if it suits you.",
  "Accuracy matters more to me than speed, but I am not slow.",
  "I document every handover with a short video walkthrough.",
  "Questions I would ask first: who uses this, and what does done look like?",
  "I have five years of remote work behind me, mostly with small teams.",
  "Reliable communication is the part clients mention most in my reviews.",
  "I would flag risks early rather than surprise you at the deadline.",
  "Your description is clear, which makes a precise estimate possible.",
  "I enjoy projects where the details matter.",
  "My rate includes revisions until the milestone is accepted.",
  "I can work within your existing tools and conventions.",
  "A small paid trial task is fine with me if you prefer.",
  "I have worked with agencies and directly with founders.",
  "Performance and maintainability are the two things I optimise for.",
];

function letterFor(i: number, title: string, skills: string[]): string {
  const rand = seededRandom(`recovery-letter|${i}`);
  const picked = [...SENTENCES].sort(() => rand() - 0.5).slice(0, 6);
  return `Hello, I read your post "${title}" closely. I work with ${skills.join(", ")} every day. ${picked.join(" ")} Best regards.`;
}

async function setup() {
  const t = await createTestApp({
    clock: new ManualClock(),
    // A ten-thousandfold clock: the client's slowest move (a few days) lands within minutes of the manual clock.
    config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, sandboxTimeScale: 10_000 },
  });
  cleanup(() => t.close());
  const a = await t.account({ credits: N + 10 });
  // An operator's per-account limit (`account limits --set apply.minute=…`): the run applies N times in one minute.
  await setRateLimits(t.deps, a.accountId, { overrides: { "apply.minute": N + 10, "apply.day": N + 10 } });
  await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
  await setConnects(t.deps.db, freelancerIdFor(a.accountId), 1_000_000);
  // What `serve` runs: scoring of new matches and submissions.
  const worker = new TaskWorker(t.deps, {
    concurrency: 4,
    retryBaseMs: 1,
    retryMaxMs: 5,
    handlers: { [SCORE_TASK]: (p, c) => scoreFeedMatch(t.deps, p, c), [SUBMIT_TASK]: (p, c) => submitApplication(t.deps, p, c) },
  });
  t.deps.work.subscribe(() => worker.notify());
  worker.start();
  cleanup(() => worker.stop());
  return { t, a, worker };
}

/**
 * Runs the engagement sync, as its schedule would, until the sandbox has reported every proposal's end (each plan
 * ends in a hire or a loss): the sync writes each reading it takes, so by then the applications hold them all.
 */
async function syncUntilSettled(t: TestApp, accountId: string): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const submissions = await listSubmissionsOfAccount(t.deps.db, accountId, N + 10);
    expect(submissions.length).toBe(N);
    if (submissions.every((s) => s.hiredAtTs !== null || s.lostAtTs !== null)) return;
    await syncEngagement(t.deps, {}, { taskId: 0, attempt: 1, isLastAttempt: true });
    t.clock.advance(1000);
  }
  throw new Error("engagement never settled");
}

interface Group {
  key: string;
  sent: number;
  replied: number;
  replyRate: number | null;
  enough: boolean;
}
const pooled = (groups: Group[], keys: string[]) => {
  const gs = groups.filter((g) => keys.includes(g.key));
  const sent = gs.reduce((s, g) => s + g.sent, 0);
  return { sent, rate: gs.reduce((s, g) => s + g.replied, 0) / sent };
};

describe("analytics recover the sandbox's known truth", () => {
  test("a few hundred simulated applications: proposals sent within 15 minutes reply more than after 6 hours, high score bands more than low ones", async () => {
    const { t, a, worker } = await setup();
    const feed = await t.request("POST", "/api/v1/feeds", {
      key: a.apiKey,
      json: { title: "Web apps", profilePrompt: "React, TypeScript and Node.js developer building web dashboards", minScore: 0 },
    });
    expect(feed.status, show(feed)).toBe(201);

    const jobs: { cipher: string; letter: string }[] = [];
    const docs: Record<string, unknown>[] = [];
    for (let i = 0; i < N; i++) {
      const fits = i % 2 === 0;
      const age = AGES[Math.floor(i / 2) % AGES.length]!;
      const client = `client ${i}`;
      const [title, skills, description] = fits
        ? [`React TypeScript dashboard for ${client}`, ["React", "TypeScript", "Node.js"], "Build a React and TypeScript dashboard on a Node.js API."]
        : [`QuickBooks bookkeeping for ${client}`, ["QuickBooks", "Bookkeeping", "Excel"], "Monthly bookkeeping and bank reconciliation in QuickBooks."];
      const doc = makeDoc({ title, skills, description, hourly: [35, 60], publishTime: new Date(t.clock.now() - age).toISOString() });
      docs.push(doc);
      jobs.push({ cipher: (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext, letter: letterFor(i, title, skills) });
    }
    const ingested = await ingestDocuments(t.deps, docs, { source: "test" });
    expect(ingested.inserted).toBe(N);
    await worker.drain(15_000); // every match scored by the local scorer

    for (const job of jobs) {
      const res = await t.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId: job.cipher, coverLetter: job.letter } });
      expect(res.status, show(res)).toBe(200);
    }
    await worker.drain(15_000); // every submission decided (the clock stands still: post ages are exact)

    t.clock.advance(24 * HOUR);
    await syncUntilSettled(t, a.accountId);

    const byAge = await t.request("GET", "/api/v1/analytics/funnel?groupBy=postAge", { key: a.apiKey });
    expect(byAge.status, show(byAge)).toBe(200);
    const ages: Group[] = byAge.body.groups;
    expect(byAge.body.total.sent).toBe(N);
    const fresh = ages.find((g) => g.key === "<15m")!;
    const stale = ages.find((g) => g.key === ">6h")!;
    expect(fresh.sent, show(byAge)).toBe((N * 3) / 8);
    expect(stale.sent, show(byAge)).toBe((N * 3) / 8);
    expect(fresh.enough && stale.enough).toBe(true);
    expect(fresh.replyRate!, show(byAge)).toBeGreaterThan(stale.replyRate!);

    const byScore = await t.request("GET", "/api/v1/analytics/funnel?groupBy=scoreBand", { key: a.apiKey });
    expect(byScore.status, show(byScore)).toBe(200);
    const bands: Group[] = byScore.body.groups;
    const high = pooled(bands, ["7-8", "9-10"]);
    const low = pooled(bands, ["0-2", "3-4"]);
    // The local scorer put each family in its own bands: half the proposals on each side.
    expect(high.sent, show(byScore)).toBe(N / 2);
    expect(low.sent, show(byScore)).toBe(N / 2);
    expect(high.rate, show(byScore)).toBeGreaterThan(low.rate);
  }, 60_000);
});
