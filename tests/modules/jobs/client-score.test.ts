import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { clientScore, piecewise, scoreLabel, type ClientScore } from "../../../src/modules/jobs/client-score";
import { generateJob } from "../../../src/sources/sandbox/generator";

const FIXTURES = join(import.meta.dir, "../../fixtures/jobs");
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8"));

const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);
const DAY = 86_400_000;
const isoAgo = (days: number) => new Date(NOW - days * DAY).toISOString();

interface ClientSpec {
  verified?: boolean | null;
  stats?: Record<string, unknown> | null;
  jobs?: Record<string, unknown>;
  avgRate?: number;
  contractDate?: string;
  activity?: Record<string, unknown>;
  workHistory?: unknown[];
}

/** A document with authenticated details only, shaped like the marketplace's jobAuthDetails (§1.4). */
function authDoc(c: ClientSpec): Record<string, unknown> {
  const info: Record<string, unknown> = {
    location: { country: "Canada" },
    company: { name: null, companyId: "1600000000000000001", contractDate: c.contractDate },
  };
  if (c.stats) info.stats = c.stats;
  if (c.jobs) info.jobs = c.jobs;
  if (c.avgRate !== undefined) info.avgHourlyJobsRate = { amount: c.avgRate };
  return {
    id: "1947712345678901234",
    title: "Job",
    description: "Do the work.",
    authJobDetailsResponse: {
      data: {
        jobAuthDetails: {
          opening: { job: { info: { ciphertext: "~021947712345678901234", type: "HOURLY" }, clientActivity: c.activity ?? null } },
          buyer: { enterprise: false, isPaymentMethodVerified: c.verified ?? null, info, workHistory: c.workHistory ?? [] },
        },
      },
    },
  };
}

const contract = (status: "ACTIVE" | "CLOSED", endDaysAgo: number | null, totalCharge: number, given: number | null, received: number | null) => ({
  status,
  startDate: isoAgo((endDaysAgo ?? 0) + 60),
  endDate: endDaysAgo === null ? null : isoAgo(endDaysAgo),
  totalCharge,
  feedback: given === null ? null : { score: given, comment: "ok" },
  feedbackToClient: received === null ? null : { feedbackSuppressed: false, score: received, comment: "ok" },
});

const excellent = () =>
  authDoc({
    verified: true,
    stats: {
      totalAssignments: 31,
      activeAssignmentsCount: 4,
      hoursCount: 812,
      feedbackCount: 14,
      score: 4.94,
      totalJobsWithHires: 26,
      totalCharges: { amount: 26158.39 },
    },
    jobs: { openCount: 2, postedCount: 30 },
    avgRate: 45.5,
    contractDate: "2021-05-01T00:00:00.000Z",
    activity: { lastBuyerActivity: new Date(NOW - 2 * 3_600_000).toISOString(), totalInvitedToInterview: 1, invitationsSent: 2, unansweredInvites: 0 },
    workHistory: [contract("ACTIVE", null, 245.11, null, null), contract("CLOSED", 20, 3232.89, 5, 5)],
  });

const good = () =>
  authDoc({
    verified: true,
    stats: { totalAssignments: 11, feedbackCount: 8, score: 4.7, totalJobsWithHires: 9, totalCharges: { amount: 6500 } },
    jobs: { openCount: 1, postedCount: 15 },
    avgRate: 28,
    contractDate: isoAgo(730),
    activity: { lastBuyerActivity: isoAgo(1), totalInvitedToInterview: 0, invitationsSent: 0, unansweredInvites: 0 },
  });

const risky = () =>
  authDoc({
    verified: false,
    stats: { totalAssignments: 2, feedbackCount: 14, score: 3.2, totalJobsWithHires: 2, totalCharges: { amount: 1850 } },
    jobs: { openCount: 3, postedCount: 12 },
    avgRate: 9.5,
    contractDate: isoAgo(60),
    activity: { lastBuyerActivity: isoAgo(40), totalInvitedToInterview: 0, invitationsSent: 4, unansweredInvites: 3 },
  });

/** Every invariant of the returned shape. */
function expectValid(r: ClientScore): void {
  const validScore = (s: unknown) => s === null || (typeof s === "number" && Number.isInteger(s) && s >= 0 && s <= 100);
  expect(validScore(r.score)).toBe(true);
  expect(r.label).toBe(scoreLabel(r.score));
  for (const key of ["hires", "money", "reputation", "engagement"] as const) {
    expect(validScore(r.components[key].score)).toBe(true);
    expect(r.components[key].facts.every((f) => typeof f === "string" && f.length > 0)).toBe(true);
  }
  for (const list of [r.flags, r.perks, r.facts]) expect(list.every((s) => typeof s === "string" && s.length > 0)).toBe(true);
}

describe("clientScore: realistic clients", () => {
  test("a rich, established client is Excellent with its numbers as facts and perks", () => {
    const r = clientScore(excellent(), NOW);
    expectValid(r);
    expect(r.label).toBe("Excellent");
    expect(r.score!).toBeGreaterThanOrEqual(90);
    // hires: 26/30 = 87 % → 100, shrunk (30/33) toward 50 → 95.5, +10 volume (31 contracts) → capped 100
    expect(r.components.hires.score).toBe(100);
    // money: log10($26,159) = 4.418 → 82.5, +5.9 for $45.50/h → 88
    expect(r.components.money.score).toBe(88);
    // reputation: 4.94 → 97, shrunk (14/19) toward 60 → 87
    expect(r.components.reputation.score).toBe(87);
    expect(r.components.engagement.score).toBe(100);
    expect(r.facts).toContain("Hired 26 of 30 jobs posted (87%)");
    expect(r.facts).toContain("$26,158 spent");
    expect(r.facts).toContain("Rated 4.94 from 14 reviews");
    expect(r.facts).toContain("Member since May 2021");
    expect(r.facts).toContain("Last active 2 hours ago");
    expect(r.facts).toContain("4 active contracts");
    expect(r.perks).toEqual([
      "Payment verified",
      "High spender ($26,158 spent)",
      "Repeat hires (26 of 30 jobs hired)",
      "Highly rated (4.94 from 14 reviews)",
      "Pays above $40/h on average",
    ]);
    expect(r.flags).toEqual([]);
    expect(r.facts).toEqual([...r.components.hires.facts, ...r.components.money.facts, ...r.components.reputation.facts, ...r.components.engagement.facts]);
  });

  test("a solid mid-size client is Good", () => {
    const r = clientScore(good(), NOW);
    expectValid(r);
    expect(r.components.hires.score).toBe(75);
    expect(r.components.money.score).toBe(65);
    expect(r.components.reputation.score).toBe(75);
    expect(r.components.engagement.score).toBe(79);
    expect(r.score).toBe(72);
    expect(r.label).toBe("Good");
    expect(r.facts).toContain("Hired 9 of 15 jobs posted (60%)");
    expect(r.perks).toEqual(["Payment verified"]); // 4.7 is below the 4.8 "Highly rated" bar
    expect(r.flags).toEqual([]);
  });

  test("an unverified, badly rated, inactive client is Risky with every warning", () => {
    const r = clientScore(risky(), NOW);
    expectValid(r);
    expect(r.label).toBe("Risky");
    expect(r.score!).toBeLessThan(30);
    expect(r.components.reputation.score).toBe(0); // 23 from the rating, −30 for the unverified payment
    expect(r.flags).toEqual([
      "Payment method not verified",
      "Low rating (3.2 from 14 reviews)",
      "Low hire rate (17% of 12 jobs posted)",
      "Unanswered invites (3 of 4 sent)",
      "Inactive for 40 days",
    ]);
    expect(r.perks).toEqual([]);
    expect(r.facts).toContain("Sent 4 invites, 3 unanswered");
  });

  test("unverified payment caps an otherwise excellent client at Fair", () => {
    const doc = excellent() as any;
    doc.authJobDetailsResponse.data.jobAuthDetails.buyer.isPaymentMethodVerified = false;
    const r = clientScore(doc, NOW);
    expect(r.score).toBe(64);
    expect(r.label).toBe("Fair");
    expect(r.flags).toContain("Payment method not verified");
    expect(r.perks).not.toContain("Payment verified");
  });

  test("no hires after many posts is flagged and scores the hires component near zero", () => {
    const r = clientScore(
      authDoc({ verified: true, stats: { totalJobsWithHires: 0, totalCharges: 0, feedbackCount: 0, score: 0 }, jobs: { postedCount: 12, openCount: 1 } }),
      NOW,
    );
    expect(r.flags).toContain("No hires after 12 jobs posted");
    expect(r.flags.some((f) => f.startsWith("Low hire rate"))).toBe(false);
    expect(r.components.hires.score!).toBeLessThanOrEqual(10);
    expect(r.label).toBe("Risky");
  });

  test("a brand-new client with no history has a null score and the label New client", () => {
    for (const doc of [
      fixture("marketplace-new-client"),
      fixture("marketplace-us-only"), // stats present but all zero
      authDoc({
        verified: true,
        stats: { totalAssignments: 0, feedbackCount: 0, score: 0, totalJobsWithHires: 0, totalCharges: { amount: 0 } },
        jobs: { postedCount: 1, openCount: 1 },
        contractDate: isoAgo(3),
      }),
      {},
    ]) {
      const r = clientScore(doc, NOW);
      expectValid(r);
      expect(r.score).toBeNull();
      expect(r.label).toBe("New client");
      expect(r.facts).toContain("No hiring history on record");
    }
    const verifiedNew = clientScore(fixture("marketplace-us-only"), NOW);
    expect(verifiedNew.perks).toEqual(["Payment verified"]);
    expect(verifiedNew.facts).toContain("No reviews yet");
  });

  test("missing stats sections with a verified payment: judged on what is there", () => {
    const r = clientScore(authDoc({ verified: true, jobs: { postedCount: 31, openCount: 5 }, avgRate: 63.88, contractDate: "2024-05-14T00:00:00.000Z" }), NOW);
    expectValid(r);
    expect(r.components.hires.score).toBeNull();
    expect(r.components.money.score).toBeNull();
    expect(r.components.reputation.score).toBe(50); // no rating: the mid-scale value
    expect(r.label).toBe("Fair");
    expect(r.perks).toEqual(["Payment verified", "Pays above $40/h on average"]);
    expect(r.facts).toEqual(
      expect.arrayContaining(["31 jobs posted", "Average hourly rate paid $63.88", "Payment method verified", "Member since May 2024", "5 open jobs"]),
    );

    // With a work history, spend and rating come from the listed contracts.
    const withHistory = clientScore(
      authDoc({
        verified: true,
        jobs: { postedCount: 8 },
        workHistory: [contract("CLOSED", 10, 1200, 4.9, 5), contract("CLOSED", 100, 800.5, 3.5, 4.6), "ExecutionAborted"],
      }),
      NOW,
    );
    expect(withHistory.facts).toEqual(
      expect.arrayContaining([
        "At least $2,001 spent (sum of 2 listed contracts)",
        "Rated 4.8 by freelancers over 2 listed contracts",
        "Last contract ended 10 days ago",
      ]),
    );
    expect(withHistory.score).not.toBeNull();
  });

  test("a document with only a search tile", () => {
    const r = clientScore(fixture("marketplace-hourly-tile"), NOW);
    expectValid(r);
    expect(r.components.hires.score).toBeNull();
    expect(r.components.engagement.score).toBeNull();
    expect(r.components.money.score).toBe(67); // log10($8,099) = 3.91 → 67
    expect(r.components.reputation.score).toBe(87); // 4.78 → 89, shrunk (58/63) toward 60
    expect(r.score).toBe(77);
    expect(r.label).toBe("Good");
    expect(r.facts).toEqual(["$8,098 spent", "Rated 4.78 from 58 reviews", "Payment method verified"]);
    expect(r.perks).toEqual(["Payment verified"]);
  });

  test("the repository's rich fixture prefers authenticated details over public and tile", () => {
    const r = clientScore(fixture("marketplace-rich"), NOW);
    expect(r.facts).toEqual(
      expect.arrayContaining(["Hired 26 of 40 jobs posted (65%)", "$26,158 spent", "Rated 4.94 from 14 reviews", "Member since May 2021", "2 open jobs"]),
    );
    expect(r.perks).toContain("High spender ($26,158 spent)");
    expect(r.perks).not.toContain("Pays above $40/h on average"); // $38.20
    expect(["Excellent", "Good"]).toContain(r.label);
  });

  test("ExecutionAborted values fall through to the next location or count as unknown", () => {
    const aborted = clientScore(fixture("marketplace-visitor-aborted"), NOW);
    expectValid(aborted);
    expect(aborted.score).toBeNull();
    expect(aborted.perks).toEqual([]);
    expect(aborted.flags).toEqual([]);

    const doc = {
      upworkHistoryData: {
        client: { paymentVerificationStatus: "ExecutionAborted", totalSpent: { amount: "12500.0" }, totalFeedback: "4.9", totalReviews: "20" },
      },
      jobDetailsResponse: {
        data: {
          jobPubDetails: {
            buyer: { stats: { totalCharges: "ExecutionAborted", score: { __typename: "ExecutionAborted" }, feedbackCount: "ExecutionAborted" } },
            buyerExtra: "ExecutionAborted",
          },
        },
      },
    };
    const r = clientScore(doc, NOW);
    expect(r.facts).toEqual(["$12,500 spent", "Rated 4.9 from 20 reviews"]);
    expect(r.perks).toEqual(["High spender ($12,500 spent)", "Highly rated (4.9 from 20 reviews)"]);
    expect(r.flags).not.toContain("Payment method not verified");
  });
});

describe("clientScore: the formula", () => {
  const withStats = (stats: Record<string, unknown>, extra: ClientSpec = {}) => authDoc({ verified: true, jobs: { postedCount: 20 }, ...extra, stats });

  test("piecewise interpolates and is flat beyond the ends", () => {
    const points = [
      [0, 0],
      [3, 40],
      [4, 70],
    ] as const;
    expect(piecewise(-1, points)).toBe(0);
    expect(piecewise(1.5, points)).toBe(20);
    expect(piecewise(3.5, points)).toBe(55);
    expect(piecewise(9, points)).toBe(70);
  });

  test("money anchors: $0 → 0, $1k → 40, $10k → 70, $100k+ → 100", () => {
    const money = (amount: number) => clientScore(withStats({ totalCharges: amount }), NOW).components.money.score;
    expect(money(0)).toBe(0);
    expect(money(999)).toBe(40);
    expect(money(9999)).toBe(70);
    expect(money(99_999)).toBe(100);
    expect(money(5_000_000)).toBe(100);
  });

  test("labels follow the thresholds", () => {
    expect([scoreLabel(80), scoreLabel(79), scoreLabel(65), scoreLabel(64), scoreLabel(45), scoreLabel(44), scoreLabel(0), scoreLabel(null)]).toEqual([
      "Excellent",
      "Good",
      "Good",
      "Fair",
      "Fair",
      "Risky",
      "Risky",
      "New client",
    ]);
  });

  test("more spend never lowers the money component", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e7, noNaN: true }),
        fc.double({ min: 0, max: 1e7, noNaN: true }),
        fc.option(fc.double({ min: 1, max: 200, noNaN: true })),
        (a, b, rate) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const extra = rate === null ? {} : { avgRate: rate };
          const m = (spent: number) => clientScore(withStats({ totalCharges: spent }, extra), NOW).components.money.score!;
          expect(m(hi)).toBeGreaterThanOrEqual(m(lo));
        },
      ),
      { numRuns: 200 },
    );
  });

  test("a higher rating never lowers reputation; more hires never lower the hires component", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 5, noNaN: true }),
        fc.double({ min: 1, max: 5, noNaN: true }),
        fc.integer({ min: 1, max: 500 }),
        fc.boolean(),
        (a, b, reviews, verified) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const rep = (score: number) => clientScore(authDoc({ verified, stats: { score, feedbackCount: reviews } }), NOW).components.reputation.score!;
          expect(rep(hi)).toBeGreaterThanOrEqual(rep(lo));
        },
      ),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 200 }), (posted, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const hires = (n: number) => clientScore(authDoc({ stats: { totalJobsWithHires: n }, jobs: { postedCount: posted } }), NOW).components.hires.score!;
        expect(hires(hi)).toBeGreaterThanOrEqual(hires(lo));
      }),
      { numRuns: 200 },
    );
  });

  test("few reviews are shrunk toward 60; unverified payment costs 30 points", () => {
    const rep = (score: number, feedbackCount: number, verified: boolean | null = true) =>
      clientScore(authDoc({ verified, stats: { score, feedbackCount } }), NOW).components.reputation.score;
    expect(rep(5, 1)).toBe(67); // 1/6 · 100 + 5/6 · 60
    expect(rep(5, 1000)).toBe(100);
    expect(rep(3, 1000)).toBe(0);
    expect(rep(4.5, 20, true)! - rep(4.5, 20, false)!).toBe(30);
    expect(rep(4.5, 20, null)).toBe(rep(4.5, 20, true)); // unknown payment is not a penalty
  });

  test("deterministic and does not modify its input", () => {
    const doc = excellent();
    const before = JSON.stringify(doc);
    expect(clientScore(doc, NOW)).toEqual(clientScore(doc, NOW));
    expect(JSON.stringify(doc)).toBe(before);
    // Time only from nowTs: a year later the same client has been inactive.
    expect(clientScore(doc, NOW + 365 * DAY).flags).toContain("Inactive for 365 days");
  });
});

describe("clientScore: robustness and spread", () => {
  test("never throws on arbitrary JSON and always returns a valid shape", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.oneof(fc.integer(), fc.double()), (doc, nowTs) => {
        expectValid(clientScore(doc, nowTs));
      }),
      { numRuns: 200 },
    );
  });

  test("never throws when the known paths hold arbitrary values", () => {
    const leaf = fc.oneof(
      fc.constant("ExecutionAborted"),
      fc.constant(null),
      fc.integer({ min: -10, max: 1e6 }),
      fc.double(),
      fc.constantFrom("12", "4.9", "", "VERIFIED", "UNVERIFIED", "2024-01-01T00:00:00Z"),
      fc.boolean(),
      fc.record({ amount: fc.oneof(fc.double(), fc.string()) }),
      fc.constant({ __typename: "ExecutionAborted" }),
      fc.jsonValue(),
    );
    const section = fc.dictionary(
      fc.constantFrom(
        "totalCharges",
        "score",
        "feedbackCount",
        "totalJobsWithHires",
        "totalAssignments",
        "activeAssignmentsCount",
        "hoursCount",
        "postedCount",
        "openCount",
        "contractDate",
        "lastBuyerActivity",
        "invitationsSent",
        "unansweredInvites",
        "totalInvitedToInterview",
        "status",
        "endDate",
        "totalCharge",
      ),
      leaf,
    );
    const history = fc.array(fc.oneof(section, fc.record({ feedback: section, feedbackToClient: section }), leaf), { maxLength: 5 });
    const doc = fc.record(
      {
        upworkHistoryData: fc.record({
          client: fc.dictionary(fc.constantFrom("totalSpent", "totalFeedback", "totalReviews", "paymentVerificationStatus", "hasFinancialPrivacy"), leaf),
        }),
        jobDetailsResponse: fc.record({
          data: fc.record({
            jobPubDetails: fc.record({
              buyer: fc.record({ stats: section, jobs: section, company: section, avgHourlyJobsRate: leaf }),
              buyerExtra: fc.record({ isPaymentMethodVerified: leaf }),
              opening: fc.record({ clientActivity: section }),
            }),
          }),
        }),
        authJobDetailsResponse: fc.record({
          data: fc.record({
            jobAuthDetails: fc.record({
              buyer: fc.record({
                isPaymentMethodVerified: leaf,
                info: fc.record({ stats: section, jobs: section, company: section }),
                workHistory: fc.oneof(history, leaf),
              }),
            }),
          }),
        }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(doc, (d) => expectValid(clientScore(d, NOW))),
      { numRuns: 200 },
    );
  });

  test("500 generated jobs spread over every label", () => {
    const seen = new Map<string, number>();
    for (let index = 0; index < 500; index++) {
      const r = clientScore(generateJob({ seed: 7, index, nowTs: NOW }), NOW);
      expectValid(r);
      seen.set(r.label, (seen.get(r.label) ?? 0) + 1);
    }
    for (const label of ["Excellent", "Good", "Fair", "Risky", "New client"]) expect(seen.get(label) ?? 0).toBeGreaterThan(0);
  });
});
