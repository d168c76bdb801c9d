import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config";
import * as rules from "../../src/marketplace/sandbox/rules";
import { normalizeJob } from "../../src/modules/jobs/normalize";
import { generateJob } from "../../src/sources/sandbox/generator";
import { makeDoc } from "../helpers/factories";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A decent proposal, the one docs/sandbox-market.md calibrates on. */
const DECENT: rules.ProposalFacts = {
  fit: 0.7,
  postAgeMs: 30 * MINUTE,
  bidRatio: 1,
  proposals: 10,
  boostConnects: 0,
  paymentVerified: true,
  clientSpent: null,
  clientRating: null,
  clientReviews: null,
  clientHireRate: null,
  letterWords: 150,
  specificity: 0.6,
  similarity: 0,
};
/** The market's average proposal in the docs: middling fit and tailoring, two hours late, 15 proposals in. */
const AVERAGE: rules.ProposalFacts = { ...DECENT, fit: 0.5, specificity: 0.4, postAgeMs: 2 * HOUR, proposals: 15 };

const p = (over: Partial<rules.ProposalFacts>) => rules.stageProbabilities({ ...DECENT, ...over });
/** P(reply) of a submission: viewed, then replied. */
const reply = (over: Partial<rules.ProposalFacts>) => {
  const s = p(over);
  return s.view * s.replyGivenView;
};

/** Stage rates over `n` plans drawn for the same facts with different application ids. */
function rates(facts: rules.ProposalFacts, n: number) {
  const count = { view: 0, reply: 0, interview: 0, hire: 0, lost: 0 };
  for (let i = 0; i < n; i++) {
    const plan = rules.drawPlan(facts, [], { seed: 7, applicationId: `app-${i}`, timeScale: 1 });
    if (plan.viewDelayMs !== null) count.view++;
    if (plan.replyDelayMs !== null) count.reply++;
    if (plan.interviewDelayMs !== null) count.interview++;
    if (plan.hireDelayMs !== null) count.hire++;
    if (plan.lostDelayMs !== null) count.lost++;
    // Each stage needs the one before it, and a plan ends in a hire or a loss, never both.
    if (plan.replyDelayMs !== null) expect(plan.viewDelayMs).not.toBeNull();
    if (plan.interviewDelayMs !== null) expect(plan.replyDelayMs).not.toBeNull();
    if (plan.hireDelayMs !== null) expect(plan.interviewDelayMs).not.toBeNull();
    expect((plan.hireDelayMs === null) !== (plan.lostDelayMs === null)).toBe(true);
  }
  return { view: count.view / n, reply: count.reply / n, interview: count.interview / n, hire: count.hire / n, lost: count.lost / n };
}

describe("the sandbox's outcome model", () => {
  test("a plan is a function of the sandbox seed and the application id: same inputs, same plan", () => {
    const a = rules.drawPlan(DECENT, [1, 2], { seed: 1, applicationId: "app-1", timeScale: 1 });
    expect(rules.drawPlan(DECENT, [1, 2], { seed: 1, applicationId: "app-1", timeScale: 1 })).toEqual(a);
    const delays = (plan: rules.OutcomePlan) => [plan.viewDelayMs, plan.replyDelayMs, plan.interviewDelayMs, plan.hireDelayMs, plan.lostDelayMs];
    const others = Array.from({ length: 20 }, (_, i) => delays(rules.drawPlan(DECENT, [], { seed: 1, applicationId: `app-${i + 2}`, timeScale: 1 })));
    expect(others.some((d) => JSON.stringify(d) !== JSON.stringify(delays(a)))).toBe(true);
    const reseeded = Array.from({ length: 20 }, (_, i) => delays(rules.drawPlan(DECENT, [], { seed: 2, applicationId: `app-${i + 2}`, timeScale: 1 })));
    expect(JSON.stringify(reseeded)).not.toBe(JSON.stringify(others));
    // The stream itself: reproducible, uniform-looking on [0, 1).
    const r1 = rules.seededRandom("k");
    const r2 = rules.seededRandom("k");
    const xs = Array.from({ length: 2000 }, () => r1());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => r2()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1);
  });

  test("each factor moves the odds the documented way", () => {
    // Fresh beats stale, at the view and at the reply.
    expect(p({ postAgeMs: 10 * MINUTE }).view).toBeGreaterThan(p({ postAgeMs: 8 * HOUR }).view);
    expect(reply({ postAgeMs: 10 * MINUTE })).toBeGreaterThan(reply({ postAgeMs: 60 * MINUTE }));
    expect(reply({ postAgeMs: 60 * MINUTE })).toBeGreaterThan(reply({ postAgeMs: 8 * HOUR }));
    // Within the first hour: 5–10 points more replies than an hour-old post gets (GigRadar's figure), at 10 minutes.
    const lift = reply({ postAgeMs: 10 * MINUTE }) - reply({ postAgeMs: 60 * MINUTE });
    expect(lift).toBeGreaterThan(0.04);
    expect(lift).toBeLessThan(0.11);
    // Fit.
    expect(reply({ fit: 0.9 })).toBeGreaterThan(reply({ fit: 0.1 }));
    expect(p({ fit: 0.9 }).interviewGivenReply).toBeGreaterThan(p({ fit: 0.1 }).interviewGivenReply);
    // A near-identical letter is replied to far less than a fresh one.
    expect(reply({ similarity: 0.95 })).toBeLessThan(reply({ similarity: 0 }) / 3);
    expect(reply({ similarity: 0.3 })).toBe(reply({ similarity: 0 }));
    // Boost: more views, growing with the Connects bid, then saturating.
    expect(p({ boostConnects: 10 }).view).toBeGreaterThan(p({ boostConnects: 0 }).view);
    expect(p({ boostConnects: 50 }).view).toBeGreaterThan(p({ boostConnects: 10 }).view);
    expect(p({ boostConnects: 500 }).view - p({ boostConnects: 100 }).view).toBeLessThan(0.02);
    // Overbidding lowers the reply, the interview and the hire; a bid at the budget does not.
    expect(reply({ bidRatio: 1.6 })).toBeLessThan(reply({ bidRatio: 1 }));
    expect(p({ bidRatio: 1.6 }).hireGivenInterview).toBeLessThan(p({ bidRatio: 1 }).hireGivenInterview);
    expect(reply({ bidRatio: 1 })).toBe(reply({ bidRatio: 0.8 }));
    expect(reply({ bidRatio: 0.3 })).toBeLessThan(reply({ bidRatio: 0.8 }));
    // Competition.
    expect(p({ proposals: 50 }).view).toBeLessThan(p({ proposals: 0 }).view);
    // Client quality.
    expect(reply({ paymentVerified: false })).toBeLessThan(reply({ paymentVerified: null }));
    expect(reply({ paymentVerified: null })).toBeLessThan(reply({ paymentVerified: true }));
    expect(reply({ clientSpent: 0 })).toBeLessThan(reply({ clientSpent: 50_000 }));
    expect(reply({ clientRating: 3.2, clientReviews: 5 })).toBeLessThan(reply({ clientRating: 4.9, clientReviews: 5 }));
    expect(p({ clientHireRate: 0.9 }).hireGivenInterview).toBeGreaterThan(p({ clientHireRate: 0.1 }).hireGivenInterview);
    // The letter: too short or too long is worse; speaking to the job's terms is better.
    expect(reply({ letterWords: 12 })).toBeLessThan(reply({ letterWords: 150 }));
    expect(reply({ letterWords: 800 })).toBeLessThan(reply({ letterWords: 150 }));
    expect(reply({ specificity: 1 })).toBeGreaterThan(reply({ specificity: 0 }));
  });

  test("calibrated near the market's figures over a few thousand draws", () => {
    const decent = rates(DECENT, 4000);
    // Agency yardsticks (GigRadar): reply 20–35 %, shortlist 10–20 %, win 5–12 %.
    expect(decent.reply).toBeGreaterThan(0.2);
    expect(decent.reply).toBeLessThan(0.35);
    expect(decent.interview / decent.reply).toBeGreaterThan(0.4);
    expect(decent.interview / decent.reply).toBeLessThan(0.7);
    expect(decent.hire / decent.interview).toBeGreaterThan(0.25);
    expect(decent.hire / decent.interview).toBeLessThan(0.5);
    expect(decent.hire + decent.lost).toBe(1);
    // The market's average (Vollna: ~15 % in 2025, 11 % in 2023).
    const average = rates(AVERAGE, 4000);
    expect(average.reply).toBeGreaterThan(0.09);
    expect(average.reply).toBeLessThan(0.18);
    // The draws follow the probabilities they were drawn from.
    const s = rules.stageProbabilities(DECENT);
    expect(decent.view).toBeCloseTo(s.view, 1);
    expect(decent.reply).toBeCloseTo(s.view * s.replyGivenView, 1);
  });

  test("delays: minimum plus an exponential, capped, and divided by the time scale", () => {
    const D = rules.OUTCOME_MODEL.delays;
    for (let i = 0; i < 500; i++) {
      const plan = rules.drawPlan(DECENT, [], { seed: 3, applicationId: `d-${i}`, timeScale: 1 });
      if (plan.viewDelayMs !== null) {
        expect(plan.viewDelayMs).toBeGreaterThanOrEqual(D.view.min * MINUTE);
        expect(plan.viewDelayMs).toBeLessThanOrEqual((D.view.min + 10 * D.view.mean) * MINUTE);
      }
      if (plan.lostDelayMs !== null) expect(plan.lostDelayMs).toBeGreaterThanOrEqual(D.lost.min * MINUTE);
      const fast = rules.drawPlan(DECENT, [], { seed: 3, applicationId: `d-${i}`, timeScale: 60 });
      // The same draw, sixty times faster: the same stages come, each in a sixtieth of the time.
      expect(fast.viewDelayMs === null).toBe(plan.viewDelayMs === null);
      expect(fast.hireDelayMs === null).toBe(plan.hireDelayMs === null);
      if (plan.viewDelayMs !== null) expect(Math.abs(fast.viewDelayMs! - plan.viewDelayMs / 60)).toBeLessThanOrEqual(1);
      expect(fast.timeScale).toBe(60);
    }
  });

  test("the timeline: each stage from the actual one before, a hire and a loss exclusive, recorded times stand", () => {
    const plan = { ...rules.drawPlan(DECENT, [], { seed: 1, applicationId: "x", timeScale: 1 }) };
    Object.assign(plan, { viewDelayMs: 10, replyDelayMs: 20, interviewDelayMs: 30, hireDelayMs: null, lostDelayMs: 100 });
    const empty = { viewedAtTs: null, repliedAtTs: null, interviewAtTs: null, hiredAtTs: null, lostAtTs: null };
    expect(rules.outcomeAt(plan, 1000, empty, 1009)).toEqual(empty);
    expect(rules.outcomeAt(plan, 1000, empty, 1060)).toEqual({ ...empty, viewedAtTs: 1010, repliedAtTs: 1030, interviewAtTs: 1060 });
    expect(rules.outcomeAt(plan, 1000, empty, 1159)).toMatchObject({ lostAtTs: null });
    expect(rules.outcomeAt(plan, 1000, empty, 1160)).toMatchObject({ lostAtTs: 1160, hiredAtTs: null });
    // A reply forced early moves what follows it.
    expect(rules.outcomeAt(plan, 1000, { ...empty, viewedAtTs: 1001, repliedAtTs: 1002 }, 1032)).toMatchObject({ interviewAtTs: 1032 });
    // A hire planned: no loss ever; a loss recorded first: no hire.
    const hires = { ...plan, hireDelayMs: 5, lostDelayMs: null };
    expect(rules.outcomeAt(hires, 1000, empty, 10_000)).toMatchObject({ hiredAtTs: 1065, lostAtTs: null });
    expect(rules.outcomeAt(hires, 1000, { ...empty, lostAtTs: 1001 }, 10_000)).toMatchObject({ hiredAtTs: null, lostAtTs: 1001, interviewAtTs: 1060 });
    // Never viewed: lost counted from the submission.
    expect(rules.outcomeAt({ ...plan, viewDelayMs: null, replyDelayMs: null, interviewDelayMs: null }, 1000, empty, 1100)).toEqual({
      ...empty,
      lostAtTs: 1100,
    });
  });

  test("a stored plan is read back; no plan, another version or a malformed one is null (the hash plan applies)", () => {
    const plan = rules.drawPlan(DECENT, [3], { seed: 1, applicationId: "y", timeScale: 1 });
    expect(rules.readPlan(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
    expect(rules.readPlan(null)).toBeNull();
    expect(rules.readPlan({ ...plan, model: 99 })).toBeNull();
    expect(rules.readPlan({ ...plan, viewDelayMs: "soon" })).toBeNull();
    expect(rules.readPlan("text")).toBeNull();
  });
});

describe("what the model reads of a proposal", () => {
  const profile = { name: rules.DEFAULT_PROFILE_NAME, skills: rules.DEFAULT_SKILLS };
  const facts = (doc: Record<string, unknown>, coverLetter: string, over: Partial<rules.ProposalInput> = {}) => {
    const n = normalizeJob(doc);
    if (!n.ok) throw new Error(n.error);
    const j = n.job;
    return rules.proposalFacts({
      job: { title: j.title, description: j.description, skills: j.skills, publishTimeTs: j.publishTimeTs, document: doc },
      budget: { jobType: j.jobType, fixedBudget: j.fixedBudget, hourlyMin: j.hourlyMin, hourlyMax: j.hourlyMax },
      client: { paymentVerified: j.paymentVerified, totalSpent: j.clientTotalSpent, rating: j.clientRating, reviews: j.clientReviews },
      profile,
      coverLetter,
      bid: { hourlyRate: 45, fixedBid: null, boostBids: 0 },
      submittedAtTs: (j.publishTimeTs ?? 0) + 20 * MINUTE,
      recentFingerprints: [],
      ...over,
    });
  };
  const letter =
    "Your React and TypeScript dashboard needs charts that stay fast with live data. I built two such dashboards last year: " +
    "one for a trading desk, with WebSocket feeds and virtualised tables, one for logistics. I would start with the data layer.";

  test("fit, tailoring, post age and bid ratio from the job, the profile and the letter", () => {
    const react = makeDoc({ title: "React TypeScript dashboard", skills: ["React", "TypeScript", "Node.js"], hourly: [30, 50] });
    const books = makeDoc({ title: "Bookkeeping in QuickBooks", skills: ["QuickBooks", "Bookkeeping", "Excel"], hourly: [30, 50] });
    const good = facts(react, letter);
    expect(good.fit).toBeCloseTo(0.7 + 0.3 * (2 / 3), 3); // the profile covers all three skills, the letter two
    expect(facts(books, letter).fit).toBe(0);
    expect(good.specificity).toBe(0.6); // react, typescript, dashboard of react, typescript, node, js, dashboard
    expect(facts(react, "Hello, I can help with this.").specificity).toBe(0);
    expect(good.postAgeMs).toBe(20 * MINUTE);
    expect(good.bidRatio).toBe(0.9);
    expect(good.letterWords).toBeGreaterThan(30);
    expect(good.paymentVerified).toBe(true);
    // A job listing no skills is of unknown fit.
    expect(facts(makeDoc({ title: "Something" }), letter).fit).toBe(0.5);
  });

  test("near-identical letters are recognised by their sketches, different ones are not", () => {
    const doc = makeDoc({ skills: ["React"] });
    const a = rules.letterFingerprint(letter);
    expect(a.length).toBeGreaterThan(10);
    expect(rules.sketchSimilarity(a, a)).toBe(1);
    const tweaked = `${letter.replace("last year", "in 2025")} Thanks!`;
    expect(rules.sketchSimilarity(rules.letterFingerprint(tweaked), a)).toBeGreaterThan(0.6);
    const other = rules.letterFingerprint(
      "I have audited Shopify stores for ten years and can cut your checkout drop-off with three small changes to the cart page.",
    );
    expect(rules.sketchSimilarity(other, a)).toBeLessThan(0.1);
    expect(facts(doc, letter, { recentFingerprints: [other, a] }).similarity).toBe(1);
    expect(facts(doc, letter, { recentFingerprints: [other] }).similarity).toBeLessThan(0.1);
  });

  test("competition, boost and client record read from a real-shaped sandbox document", () => {
    let read: rules.ProposalFacts | undefined;
    for (let index = 0; index < 50 && read?.proposals == null; index++) {
      const doc = generateJob({ seed: 1, index, nowTs: Date.parse("2026-03-01T12:00:00Z") }) as unknown as Record<string, unknown>;
      read = facts(doc, letter, { bid: { hourlyRate: 45, fixedBid: 500, boostBids: 12 } });
    }
    expect(read!.proposals).toBeNumber();
    expect(read!.boostConnects).toBe(12);
    // Most sandbox clients show their record: over a few jobs, a hire rate is read from the documents.
    const withRate = Array.from({ length: 20 }, (_, index) =>
      facts(generateJob({ seed: 1, index, nowTs: Date.parse("2026-03-01T12:00:00Z") }) as unknown as Record<string, unknown>, letter),
    ).filter((f) => f.clientHireRate !== null);
    expect(withRate.length).toBeGreaterThan(5);
    for (const f of withRate) expect(f.clientHireRate!).toBeGreaterThanOrEqual(0);
  });
});

describe("JOBPILOT_SANDBOX_TIME_SCALE", () => {
  test("defaults to 1, takes a factor of 1 or more, and refuses anything else naming the variable", () => {
    expect(loadConfig({}).sandboxTimeScale).toBe(1);
    expect(loadConfig({ JOBPILOT_SANDBOX_TIME_SCALE: "60" }).sandboxTimeScale).toBe(60);
    for (const bad of ["0.5", "0", "fast", "-3"]) {
      expect(() => loadConfig({ JOBPILOT_SANDBOX_TIME_SCALE: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ JOBPILOT_SANDBOX_TIME_SCALE: bad })).toThrow(/JOBPILOT_SANDBOX_TIME_SCALE/);
    }
  });
});
