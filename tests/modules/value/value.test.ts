import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { authenticate } from "../../../src/modules/accounts/service";
import { matchesOfJob } from "../../../src/modules/feeds/repo";
import * as feeds from "../../../src/modules/feeds/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { ManualClock } from "../../../src/lib/clock";
import { DEFAULT_CONNECTS_REQUIRED as DEFAULT_CONNECTS } from "../../../src/lib/connects";
import {
  expectedValue,
  expectedValues,
  FULL_TIME_FACTOR,
  HOURS_BY_DURATION,
  jobDocFacts,
  MAX_HOURS,
  PRIOR_HIRE_GIVEN_REPLY,
  PRIOR_PROPOSALS,
  PRIOR_REPLIES,
  PRIOR_REPLY_RATE,
  readLedger,
  type ValueJob,
} from "../../../src/modules/value/service";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { insertSentApplication } from "../../helpers/applications";
import { useCleanups } from "../../helpers/cleanups";
import { makeDoc } from "../../helpers/factories";

const FIXED: ValueJob = {
  platform: "marketplace",
  jobType: "FIXED",
  fixedBudget: 500,
  hourlyMin: null,
  hourlyMax: null,
  currency: "USD",
  engagementWeeks: null,
  engagementLabel: null,
};
const HOURLY: ValueJob = { ...FIXED, jobType: "HOURLY", fixedBudget: null, hourlyMin: 40, hourlyMax: 80 };
const NO_FACTS = { connectsRequired: null, fullTime: null };
const NONE = { sent: 0, replied: 0, hires: 0 };
const base = { facts: NO_FACTS, score: 8, counts: NONE, connectPriceUsd: 0.15 };

describe("expectedValue (pure)", () => {
  test("with no outcomes the prior alone decides, and the default Connects price the cost", () => {
    const v = expectedValue({ ...base, job: FIXED });
    expect(v.pReply).toBeCloseTo(PRIOR_REPLY_RATE, 10);
    expect(v.pHireGivenReply).toBeCloseTo(PRIOR_HIRE_GIVEN_REPLY, 10);
    expect(v.valueUsd).toBe(500);
    expect(v.expectedUsd).toBe(22.5); // 0.15 × 0.3 × 500
    expect(v.connects).toBe(DEFAULT_CONNECTS);
    expect(v.costUsd).toBe(2.4);
    expect(v.worthIt).toBe(true);
    expect(v.basis).toMatchObject({ replyFrom: "prior", hireFrom: "prior", sentInBand: 0, scoreBand: "7-8", valueFrom: "fixed", connectsFrom: "default" });
    expect(v.words).toBe("worth ~$22.50; costs $2.40 in Connects");
  });

  test("with many outcomes the ledger dominates the prior", () => {
    // 200 sent, 2 replies: the data says 1 %, the prior 15 %; 200 proposals outweigh 20 pseudo-proposals.
    const v = expectedValue({ ...base, job: { ...FIXED, fixedBudget: 300 }, counts: { sent: 200, replied: 2, hires: 0 } });
    expect(v.pReply).toBeCloseTo((PRIOR_REPLY_RATE * PRIOR_PROPOSALS + 2) / (PRIOR_PROPOSALS + 200), 10);
    expect(v.pReply).toBeLessThan(0.03);
    expect(v.basis.replyFrom).toBe("ledger");
    expect(v.basis.hireFrom).toBe("prior"); // 2 replies are fewer than the hire prior's pseudo-replies
    expect(v.worthIt).toBe(false); // 5/220 × 3/12 × $300 ≈ $1.70 against $2.40
    expect(v.words).toBe("worth ~$1.70; costs $2.40 in Connects");
    const many = expectedValue({ ...base, job: FIXED, counts: { sent: 400, replied: 100, hires: 50 } });
    expect(many.pReply).toBeCloseTo((3 + 100) / 420, 10);
    expect(many.pHireGivenReply).toBeCloseTo((PRIOR_HIRE_GIVEN_REPLY * PRIOR_REPLIES + 50) / (PRIOR_REPLIES + 100), 10);
    expect(many.basis.hireFrom).toBe("ledger");
  });

  test("a few outcomes move the estimate only a little", () => {
    const v = expectedValue({ ...base, job: FIXED, counts: { sent: 3, replied: 3, hires: 0 } });
    expect(v.basis.replyFrom).toBe("prior");
    expect(v.pReply).toBeCloseTo(6 / 23, 10);
  });

  test("hourly: apply's default bid × the hours of the job's duration, doubled full-time, capped", () => {
    const short = expectedValue({ ...base, job: HOURLY });
    expect(short.basis).toMatchObject({ valueFrom: "hourly", hourlyRate: 40, hoursEstimate: HOURS_BY_DURATION["Less than 1 month"] });
    expect(short.valueUsd).toBe(40 * 20);
    const medium = expectedValue({ ...base, job: { ...HOURLY, engagementWeeks: 8 }, facts: { connectsRequired: 12, fullTime: true } });
    expect(medium.basis.hoursEstimate).toBe(HOURS_BY_DURATION["1 to 3 months"] * FULL_TIME_FACTOR);
    expect(medium.connects).toBe(12);
    expect(medium.basis.connectsFrom).toBe("job");
    const long = expectedValue({ ...base, job: { ...HOURLY, engagementLabel: "More than 6 months" }, facts: { connectsRequired: null, fullTime: true } });
    expect(long.basis.hoursEstimate).toBe(MAX_HOURS);
  });

  test("boost Connects add to the cost", () => {
    const v = expectedValue({ ...base, job: FIXED, facts: { connectsRequired: 8, fullTime: null }, boostConnects: 50 });
    expect(v.connects).toBe(58);
    expect(v.costUsd).toBe(8.7);
    expect(v.words).toBe("worth ~$22.50; costs $8.70 in Connects");
  });

  test("no budget: the value is unknown and said so, never NaN", () => {
    for (const job of [
      { ...FIXED, fixedBudget: null },
      { ...FIXED, fixedBudget: 0 },
      { ...HOURLY, hourlyMin: null, hourlyMax: null },
    ]) {
      const v = expectedValue({ ...base, job });
      expect(v.valueUsd).toBeNull();
      expect(v.expectedUsd).toBeNull();
      expect(v.worthIt).toBeNull();
      expect(v.basis.valueFrom).toBe("no_budget");
      expect(v.words).toBe("worth unknown (no budget); costs $2.40 in Connects");
      expect(JSON.stringify(v)).not.toContain("NaN");
    }
    expect(expectedValue({ ...base, job: { ...FIXED, currency: "EUR" } }).words).toBe("worth unknown (budget not in USD); costs $2.40 in Connects");
    const web = expectedValue({ ...base, job: { ...FIXED, platform: "web" } });
    expect(web).toMatchObject({ connects: 0, costUsd: 0, valueUsd: null, words: "worth unknown (not a marketplace job); no Connects" });
  });

  test("an unscored job bands as unscored; large amounts are whole dollars", () => {
    const v = expectedValue({ ...base, job: { ...FIXED, fixedBudget: 40_000 }, score: null });
    expect(v.basis.scoreBand).toBe("unscored");
    expect(v.words).toBe("worth ~$1,800; costs $2.40 in Connects");
  });

  test("the document's Connects and workload are read wherever the source put them", () => {
    expect(jobDocFacts({ connectPrice: 12 })).toEqual({ connectsRequired: 12, fullTime: null });
    expect(jobDocFacts({ jobTile: { job: { connectPrice: "8", hourlyEngagementType: "FULL_TIME" } } })).toEqual({ connectsRequired: 8, fullTime: true });
    expect(jobDocFacts({ searchJobCard: { connectsRequired: 4 }, workload: "Less than 30 hrs/week" })).toEqual({ connectsRequired: 4, fullTime: false });
    expect(jobDocFacts({ connectPrice: 0, connectsRequired: "nonsense" })).toEqual(NO_FACTS);
  });
});

describe("docs/expected-value.md", () => {
  const page = readFileSync(join(import.meta.dir, "../../../docs/expected-value.md"), "utf8");
  test("states the figures the code holds", () => {
    expect(page).toContain(`${PRIOR_REPLY_RATE * 100} %`);
    expect(page).toContain(`${PRIOR_PROPOSALS} pseudo-proposals`);
    expect(page).toContain(`${PRIOR_HIRE_GIVEN_REPLY}`);
    expect(page).toContain(`${PRIOR_REPLIES} pseudo-replies`);
    expect(page).toContain(`${DEFAULT_CONNECTS} Connects`);
    expect(page).toContain(`${MAX_HOURS} hours`);
    expect(page).toContain(`× ${FULL_TIME_FACTOR}`);
    for (const [duration, hours] of Object.entries(HOURS_BY_DURATION)) expect(page).toContain(`| ${duration} | ${hours} |`);
  });
});

describe("GET /api/v1/jobs/{ciphertext}/value", () => {
  const cleanup = useCleanups();
  let t: TestApp;

  async function setup() {
    t = await createTestApp({ clock: new ManualClock(Date.UTC(2026, 1, 1)), config: { connectPriceUsd: 0.15 } });
    cleanup(() => t.close());
    const a = await t.account({ credits: 5 });
    const b = await t.account({ name: "other", credits: 5 });
    const auth = (await authenticate(t.deps, a.apiKey))!;
    const authB = (await authenticate(t.deps, b.apiKey))!;
    // No profile prompt: every match scores 5 (band 5-6).
    const feed = await feeds.createFeed(t.deps, auth, { title: "Widgets", minScore: 0, includes: ["widget"] });
    await feeds.createFeed(t.deps, authB, { title: "B widgets", minScore: 0, includes: ["widget"] });
    const doc: Record<string, unknown> = { ...makeDoc({ title: "Widget shop", fixed: 1000 }), connectPrice: 10 };
    await ingestDocuments(t.deps, [doc], { source: "push" });
    const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
    const entryA = (await matchesOfJob(t.deps.db, a.accountId, cipher)).find((m) => m.feedId === feed.id)!.id;
    const entryB = (await matchesOfJob(t.deps.db, b.accountId, cipher))[0]!.id;
    return { a, b, auth, cipher, entryA, entryB };
  }

  /** Archived jobs no feed takes, one per proposal (an account has one live application per job). */
  async function otherJobs(n: number): Promise<string[]> {
    const docs = Array.from({ length: n }, () => makeDoc({ title: "Unrelated" }));
    await ingestDocuments(t.deps, docs, { source: "push" });
    return docs.map((d) => (d.jobTile as { job: { ciphertext: string } }).job.ciphertext);
  }

  test("the caller's job: 200 with the prior, then the ledger's band once it has outcomes", async () => {
    const { a, b, cipher, entryA } = await setup();
    const first = await t.request("GET", `/api/v1/jobs/${entryA}/value`, { key: a.apiKey });
    expect(first.status, show(first)).toBe(200);
    expect(first.body).toMatchObject({
      valueUsd: 1000,
      expectedUsd: 45,
      connects: 10,
      costUsd: 1.5,
      worthIt: true,
      basis: { scoreBand: "5-6", score: 5, replyFrom: "prior", sentInBand: 0, connectsFrom: "job" },
      words: "worth ~$45.00; costs $1.50 in Connects",
    });
    // 30 sent in band 5-6, none replied; another account's proposals and another band's never count.
    const others = await otherJobs(37);
    for (let i = 0; i < 30; i++) await insertSentApplication(t, a.accountId, others[i]!, { freelancerId: i < 20 ? "fl-1" : "fl-2" });
    await insertSentApplication(t, a.accountId, others[30]!, { score: 9, replied: true });
    await insertSentApplication(t, a.accountId, others[31]!, { status: "failed", processedAtTs: null });
    for (let i = 32; i < 37; i++) await insertSentApplication(t, b.accountId, others[i]!, { replied: true });
    const after = await t.request("GET", `/api/v1/jobs/${encodeURIComponent(cipher)}/value?boostConnects=20`, { key: a.apiKey });
    expect(after.status, show(after)).toBe(200);
    expect(after.body.basis).toMatchObject({ replyFrom: "ledger", sentInBand: 30, repliedInBand: 0, boostConnects: 20 });
    expect(after.body.pReply).toBeCloseTo(3 / 50, 10);
    expect(after.body.connects).toBe(30);
    const one = await t.request("GET", `/api/v1/jobs/${entryA}/value?freelancerId=fl-2`, { key: a.apiKey });
    expect(one.status, show(one)).toBe(200);
    expect(one.body.basis).toMatchObject({ freelancerId: "fl-2", sentInBand: 10, replyFrom: "prior" });
  });

  test("another account's feed entry is a 404; an unknown job too", async () => {
    const { a, entryB } = await setup();
    const res = await t.request("GET", `/api/v1/jobs/${entryB}/value`, { key: a.apiKey });
    expect(res.status, show(res)).toBe(404);
    expect((await t.request("GET", "/api/v1/jobs/~0299999999/value", { key: a.apiKey })).status).toBe(404);
  });

  test("bad query values are a 400 naming the field", async () => {
    const { a, entryA } = await setup();
    for (const [query, field] of [
      ["boostConnects=-1", "boostConnects"],
      ["boostConnects=abc", "boostConnects"],
      ["boostConnects=100000", "boostConnects"],
      ["freelancerId=", "freelancerId"],
    ] as const) {
      const res = await t.request("GET", `/api/v1/jobs/${entryA}/value?${query}`, { key: a.apiKey });
      expect(res.status, `${query}: ${show(res)}`).toBe(400);
      expect(res.body.error, query).toContain(field);
    }
    const bad = await t.request("GET", "/api/v1/jobs/not-a-job/value", { key: a.apiKey });
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.body.error).toContain("ciphertext");
  });

  test("the batch form reads the ledger once for a page of jobs, in the order given", async () => {
    const { auth, cipher } = await setup();
    const docs = [makeDoc({ title: "Widget one", fixed: 200 }), makeDoc({ title: "Other thing", hourly: [50, 90] })];
    await ingestDocuments(t.deps, docs, { source: "push" });
    const { normalizeJob } = await import("../../../src/modules/jobs/normalize");
    const jobs = [...docs, { jobTile: { job: { ciphertext: cipher } } }].map((d, i) => {
      const n = normalizeJob(i < 2 ? d : { ...makeDoc({ fixed: 1000 }) });
      if (!n.ok) throw new Error(n.error);
      return { ciphertext: i < 2 ? n.job.ciphertext : cipher, job: n.job, document: d };
    });
    const ledger = await readLedger(t.deps.db, auth.accountId);
    const values = await expectedValues(t.deps, auth, jobs, { ledger });
    expect(values.map((v) => v.basis.scoreBand)).toEqual(["5-6", "unscored", "5-6"]);
    expect(values.map((v) => v.valueUsd)).toEqual([200, 50 * 20, 1000]);
  });
});
