import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  bidStatsOf,
  competitionOf,
  countsOf,
  proposalActivity,
  recordCheck,
  startTracking,
  type ActivityCounts,
  type TrackingState,
} from "../../../src/modules/jobs/activity";

const FIXTURES = join(import.meta.dir, "../../fixtures/jobs");
const fixture = (name: string): Record<string, any> => JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8"));

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);
const iso = (ts: number) => new Date(ts).toISOString();

const NULL_COUNTS: ActivityCounts = {
  proposals: null,
  interviewing: null,
  hired: null,
  invitesSent: null,
  unansweredInvites: null,
  positionsToHire: null,
  lastClientActivity: null,
  openingStatus: null,
};
const counts = (over: Partial<ActivityCounts> = {}): ActivityCounts => ({
  ...NULL_COUNTS,
  proposals: 0,
  interviewing: 0,
  hired: 0,
  invitesSent: 0,
  unansweredInvites: 0,
  positionsToHire: 1,
  openingStatus: "ACTIVE",
  ...over,
});
const doc = (extra: Record<string, unknown>) => ({
  id: "1",
  title: "Job",
  description: "Work.",
  jobTile: { job: { ciphertext: "~021900000000000000001" } },
  ...extra,
});
const authActivity = (clientActivity: unknown, extra: Record<string, unknown> = {}) => ({
  authJobDetailsResponse: { data: { jobAuthDetails: { opening: { job: { status: "ACTIVE", clientActivity } }, ...extra } } },
});
const pubActivity = (clientActivity: unknown) => ({ jobDetailsResponse: { data: { jobPubDetails: { opening: { status: "ACTIVE", clientActivity } } } } });

describe("countsOf", () => {
  test("rich fixture: auth details first, public details fill what auth lacks", () => {
    expect(countsOf(fixture("marketplace-rich"))).toEqual({
      proposals: 10, // auth says 10, public 9, tile 9
      interviewing: 1,
      hired: 0,
      invitesSent: 2,
      unansweredInvites: 0,
      positionsToHire: 1,
      lastClientActivity: "2026-03-02T15:00:00.000Z", // only the public body has it
      openingStatus: "ACTIVE",
    });
  });

  test("new-client fixture: a just-posted job has null counts, not zeros", () => {
    expect(countsOf(fixture("marketplace-new-client"))).toEqual({ ...NULL_COUNTS, positionsToHire: 1 });
  });

  test("tile-only job: proposals from totalApplicants, nothing else invented", () => {
    const rich = fixture("marketplace-rich");
    expect(countsOf({ ...doc({}), jobTile: rich.jobTile })).toEqual({ ...NULL_COUNTS, proposals: 9 });
    expect(countsOf(fixture("marketplace-hourly-tile"))).toEqual(NULL_COUNTS);
  });

  test("an explicit null in the details wins over the tile's 0", () => {
    const d = { ...doc(authActivity({ totalApplicants: null })), jobTile: { job: { totalApplicants: 0 } } };
    expect(countsOf(d).proposals).toBeNull();
  });

  test("ExecutionAborted and absent keys fall through; numeric strings are read; junk is dropped", () => {
    const d = doc({
      ...authActivity({ totalApplicants: "ExecutionAborted", totalHired: "2", invitationsSent: -1, lastBuyerActivity: 1772460000 }),
      ...pubActivity({ totalApplicants: 7, invitationsSent: 3, totalInvitedToInterview: 1.5 }),
    });
    const c = countsOf(d);
    expect(c.proposals).toBe(7);
    expect(c.hired).toBe(2);
    expect(c.invitesSent).toBe(3);
    expect(c.interviewing).toBeNull();
    expect(c.lastClientActivity).toBe(iso(1772460000 * 1000));
  });

  test("opening status from auth, else public, upper-cased", () => {
    const d = doc({ jobDetailsResponse: { data: { jobPubDetails: { opening: { status: "closed" } } } } });
    expect(countsOf(d).openingStatus).toBe("CLOSED");
    expect(countsOf("not a document")).toEqual(NULL_COUNTS);
  });
});

describe("bidStatsOf", () => {
  test("present", () => {
    expect(bidStatsOf(fixture("marketplace-rich"))).toEqual({ avg: 36.5, min: 15, max: 70, currency: "USD" });
  });
  test("all amounts null or no stats → null", () => {
    expect(bidStatsOf(fixture("marketplace-new-client"))).toBeNull();
    expect(bidStatsOf(fixture("marketplace-hourly-tile"))).toBeNull();
  });
  test("partial amounts and string amounts", () => {
    const d = doc(
      authActivity({}, { applicantsBidsStats: { avgRateBid: { amount: "20.5", currencyCode: "eur" }, minRateBid: null, maxRateBid: { amount: null } } }),
    );
    expect(bidStatsOf(d)).toEqual({ avg: 20.5, min: null, max: null, currency: "EUR" });
  });
});

describe("competitionOf", () => {
  const at = (hours: number) => T0 - hours * HOUR;
  test("null proposals → null", () => expect(competitionOf(null, at(1), T0)).toBeNull());
  test("absolute floors", () => {
    expect(competitionOf(4, T0 - MIN, T0)).toBe("low"); // 4 in a minute is still few
    expect(competitionOf(0, null, T0)).toBe("low");
    expect(competitionOf(50, at(1000), T0)).toBe("high");
    expect(competitionOf(49, at(1000), T0)).toBe("medium");
  });
  test("pace edges: 10/h high, 2/h medium", () => {
    expect(competitionOf(20, at(2), T0)).toBe("high");
    expect(competitionOf(20, at(2) - 1, T0)).toBe("medium");
    expect(competitionOf(10, at(5), T0)).toBe("medium");
    expect(competitionOf(10, at(5) - 1, T0)).toBe("low");
  });
  test("age floor of half an hour", () => {
    expect(competitionOf(5, T0 - MIN, T0)).toBe("high"); // 5 / 0.5 h = 10/h
    expect(competitionOf(5, T0 + HOUR, T0)).toBe("high"); // a publish time in the future counts as just posted
  });
  test("slow but crowded → medium from 20; unknown age uses counts only", () => {
    expect(competitionOf(19, at(100), T0)).toBe("low");
    expect(competitionOf(20, at(100), T0)).toBe("medium");
    expect(competitionOf(19, null, T0)).toBe("low");
    expect(competitionOf(20, null, T0)).toBe("medium");
  });
});

describe("tracker", () => {
  const opts = { publishTimeTs: T0 - 10 * MIN, maxAgeMs: 72 * HOUR };
  const run = (steps: [minutes: number, c: ActivityCounts][], start = counts({ proposals: 2 })) => {
    let s = startTracking(start, T0);
    for (const [m, c] of steps) s = recordCheck(s, c, T0 + m * MIN, opts);
    return s;
  };

  test("start: one point, one check", () => {
    const s = startTracking(counts({ proposals: 3 }), T0);
    expect(s).toMatchObject({
      active: true,
      stoppedReason: null,
      openingStatus: "ACTIVE",
      startedAt: iso(T0),
      lastCheckedAt: iso(T0),
      checks: 1,
      proposalsLastHour: null,
      proposalsAtStart: 3,
      peakProposals: 3,
    });
    expect(s.history).toEqual([{ at: iso(T0), proposals: 3, interviewing: 0, hired: 0 }]);
  });

  test("no point when nothing changed; invites and activity alone are no change", () => {
    const s = run([
      [10, counts({ proposals: 2, invitesSent: 4, lastClientActivity: iso(T0) })],
      [20, counts({ proposals: 2 })],
    ]);
    expect(s.history).toHaveLength(1);
    expect(s.checks).toBe(3);
    expect(s.lastCheckedAt).toBe(iso(T0 + 20 * MIN));
  });

  test("points when counts change; peak is the max seen", () => {
    const s = run([
      [10, counts({ proposals: 5 })],
      [20, counts({ proposals: 5, interviewing: 1 })],
      [30, counts({ proposals: 4, interviewing: 1 })],
    ]);
    expect(s.history.map((p) => [p.proposals, p.interviewing])).toEqual([
      [2, 0],
      [5, 0],
      [5, 1],
      [4, 1],
    ]);
    expect(s.history[3]!.at).toBe(iso(T0 + 30 * MIN));
    expect(s.peakProposals).toBe(5);
  });

  test("a null reading keeps the last known value and adds no point", () => {
    const s = run([
      [10, counts({ proposals: 5 })],
      [20, { ...counts(), proposals: null, interviewing: null, hired: null }],
    ]);
    expect(s.history).toHaveLength(2);
    expect(s.peakProposals).toBe(5);
  });

  test("null at start (unpublished), then published", () => {
    const s = run([[5, counts({ proposals: 1 })]], { ...NULL_COUNTS, positionsToHire: 1, openingStatus: "ACTIVE" });
    expect(s.proposalsAtStart).toBeNull();
    expect(s.history.map((p) => p.proposals)).toEqual([null, 1]);
    expect(s.peakProposals).toBe(1);
  });

  test("proposalsLastHour across the 1-hour boundary", () => {
    // points: T0 → 2, +30 min → 6, +50 min → 9
    let s = run([
      [30, counts({ proposals: 6 })],
      [50, counts({ proposals: 9 })],
    ]);
    expect(s.proposalsLastHour).toBeNull(); // nothing an hour old yet
    s = recordCheck(s, counts({ proposals: 9 }), T0 + 60 * MIN, opts);
    expect(s.proposalsLastHour).toBe(7); // the T0 point is exactly one hour old
    s = recordCheck(s, counts({ proposals: 10 }), T0 + 89 * MIN, opts);
    expect(s.proposalsLastHour).toBe(8); // the +30 point is 59 min old; T0's value (2) held an hour ago
    s = recordCheck(s, counts({ proposals: 10 }), T0 + 90 * MIN, opts);
    expect(s.proposalsLastHour).toBe(4); // now the +30 point (6) is an hour old
    s = recordCheck(s, counts({ proposals: 10 }), T0 + 200 * MIN, opts);
    expect(s.proposalsLastHour).toBe(0);
  });

  test("proposalsLastHour is null when the old value is unknown", () => {
    let s = startTracking({ ...NULL_COUNTS, openingStatus: "ACTIVE" }, T0);
    s = recordCheck(s, counts({ proposals: 3 }), T0 + 61 * MIN, opts);
    expect(s.proposalsLastHour).toBeNull();
  });

  test("stops when the job closes, and a stopped state is returned unchanged", () => {
    const s = run([[10, counts({ proposals: 4, openingStatus: "CLOSED" })]]);
    expect(s).toMatchObject({ active: false, stoppedReason: "job closed", openingStatus: "CLOSED", checks: 2 });
    expect(s.history.at(-1)!.proposals).toBe(4); // the last observation is still recorded
    expect(recordCheck(s, counts({ proposals: 40 }), T0 + HOUR, opts)).toBe(s);
  });

  test("stops when every position is filled", () => {
    const one = run([[10, counts({ proposals: 4, interviewing: 2, hired: 1 })]]);
    expect(one).toMatchObject({ active: false, stoppedReason: "hired" });
    const two = run([[10, counts({ proposals: 4, hired: 1, positionsToHire: 2 })]]);
    expect(two.active).toBe(true);
    expect(recordCheck(two, counts({ proposals: 4, hired: 2, positionsToHire: 2 }), T0 + 20 * MIN, opts)).toMatchObject({
      active: false,
      stoppedReason: "hired",
    });
    // Filling the last position closes the job at the same time; the hire is the reason.
    expect(run([[10, counts({ hired: 1, openingStatus: "CLOSED" })]]).stoppedReason).toBe("hired");
  });

  test("stops at the age limit (strictly older than maxAgeMs)", () => {
    const limit = opts.publishTimeTs + opts.maxAgeMs;
    let s = startTracking(counts({ proposals: 2 }), T0);
    s = recordCheck(s, counts({ proposals: 2 }), limit, opts);
    expect(s.active).toBe(true);
    s = recordCheck(s, counts({ proposals: 2 }), limit + 1, opts);
    expect(s).toMatchObject({ active: false, stoppedReason: "age limit" });
    // Without a publish time, the tracking start stands in for it.
    const noPublish = recordCheck(startTracking(counts(), T0), counts(), T0 + 2 * HOUR, { publishTimeTs: null, maxAgeMs: HOUR });
    expect(noPublish.stoppedReason).toBe("age limit");
  });

  test("a job closed or filled at start starts stopped", () => {
    expect(startTracking(counts({ openingStatus: "CLOSED" }), T0)).toMatchObject({ active: false, stoppedReason: "job closed" });
    expect(startTracking(counts({ hired: 1 }), T0)).toMatchObject({ active: false, stoppedReason: "hired" });
  });

  test("recordCheck does not modify its input", () => {
    const s = startTracking(counts({ proposals: 1 }), T0);
    const before = JSON.stringify(s);
    recordCheck(s, counts({ proposals: 2, openingStatus: "CLOSED" }), T0 + MIN, opts);
    expect(JSON.stringify(s)).toBe(before);
  });
});

describe("proposalActivity", () => {
  const rich = fixture("marketplace-rich");
  const publish = Date.parse("2026-03-02T14:05:11.000Z");

  test("scrape: the document's counts, competition and bid stats", () => {
    const a = proposalActivity(rich, null, publish + HOUR)!;
    expect(a).toEqual({
      source: "scrape",
      proposals: 10,
      interviewing: 1,
      hired: 0,
      invitesSent: 2,
      unansweredInvites: 0,
      positionsToHire: 1,
      lastClientActivity: "2026-03-02T15:00:00.000Z",
      competition: "high", // 10 in one hour
      bidStats: { avg: 36.5, min: 15, max: 70, currency: "USD" },
    });
    expect(proposalActivity(rich, null, publish + 10 * HOUR)!.competition).toBe("low");
  });

  test("tracker: tracking without history, history separately; newer tracker counts win", () => {
    const start = countsOf(rich);
    let tracking: TrackingState = startTracking(start, rich.exploredAt + MIN);
    tracking = recordCheck(tracking, { ...start, proposals: 14 }, rich.exploredAt + 30 * MIN, { publishTimeTs: publish, maxAgeMs: 72 * HOUR });
    const a = proposalActivity(rich, tracking, rich.exploredAt + 30 * MIN)!;
    expect(a.source).toBe("tracker");
    expect(a.proposals).toBe(14);
    expect(a.invitesSent).toBe(2);
    expect(a.tracking).toEqual({
      active: true,
      stoppedReason: null,
      openingStatus: "ACTIVE",
      startedAt: rich.exploredAt + MIN,
      lastCheckedAt: rich.exploredAt + 30 * MIN,
      checks: 2,
      proposalsLastHour: null,
      proposalsAtStart: 10,
      peakProposals: 14,
    });
    expect("history" in a.tracking!).toBe(false);
    expect(a.history!.map((p) => p.proposals)).toEqual([10, 14]);
    // A document scraped after the tracker's last check is the latest word.
    expect(proposalActivity({ ...rich, exploredAt: rich.exploredAt + HOUR }, tracking, rich.exploredAt + HOUR)!.proposals).toBe(10);
  });

  test("new client: activity with null counts, null competition", () => {
    const a = proposalActivity(fixture("marketplace-new-client"), null, Date.parse("2026-03-06T12:01:00.000Z"))!;
    expect(a).toMatchObject({ source: "scrape", proposals: null, hired: null, positionsToHire: 1, competition: null, bidStats: null });
  });

  test("null when the document carries no activity data", () => {
    expect(proposalActivity(fixture("marketplace-hourly-tile"), null, T0)).toBeNull();
    expect(proposalActivity(fixture("marketplace-fixed-public"), null, T0)).toBeNull();
    expect(proposalActivity(fixture("marketplace-hourly-tile"), startTracking(NULL_COUNTS, T0), T0)!.source).toBe("tracker");
  });
});
