import { describe, expect, test } from "bun:test";
import { bidStatsOf, countsOf, proposalActivity, recordCheck, startTracking } from "../../../src/modules/jobs/activity";
import type { JobDocument } from "../../../src/sources/document";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { evolveSandboxJob } from "../../../src/sources/sandbox/evolve";
import { generateJob } from "../../../src/sources/sandbox/generator";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const N = 200;
const docs: JobDocument[] = Array.from({ length: N }, (_, index) => generateJob({ seed: 42, index, nowTs: NOW }));
/** Every 90 minutes for 7 days, plus a few early minutes where proposals move fastest. */
const TIMELINE = [0, 1, 2, 5, 10, 30, 60, ...Array.from({ length: 112 }, (_, i) => 90 * (i + 1))].map((m) => NOW + m * MIN);

const authOf = (d: JobDocument) => d.authJobDetailsResponse?.data?.jobAuthDetails as Record<string, any> | undefined;
const pubOf = (d: JobDocument) => d.jobDetailsResponse?.data?.jobPubDetails as Record<string, any> | undefined;
const statusOf = (d: JobDocument) => authOf(d)?.opening.job.status ?? pubOf(d)?.opening.status;
const publishOf = (d: JobDocument) => Date.parse(d.jobTile!.job!.publishTime!);

const KEYS = ["proposals", "interviewing", "hired", "invitesSent", "unansweredInvites"] as const;
/** Timelines computed once: for each job, the evolved documents at each TIMELINE point. */
const timelines = docs.map((d) => TIMELINE.map((t) => evolveSandboxJob(d, t)));
const atEnd = timelines.map((series) => series[series.length - 1]!);

describe("evolveSandboxJob over 7 days", () => {
  test("counts never go down, and neither does the client's last activity", () => {
    for (const series of timelines) {
      let prev = countsOf(series[0]!);
      for (const d of series.slice(1)) {
        const c = countsOf(d);
        for (const k of KEYS) if (prev[k] !== null) expect(c[k]).toBeGreaterThanOrEqual(prev[k]!);
        if (prev.lastClientActivity !== null) expect(Date.parse(c.lastClientActivity!)).toBeGreaterThanOrEqual(Date.parse(prev.lastClientActivity));
        prev = c;
      }
    }
  });

  test("counts are consistent at every point", () => {
    for (const series of timelines) {
      for (const d of series) {
        const c = countsOf(d);
        expect(d.jobTile!.job!.totalApplicants).toBe(c.proposals ?? 0);
        if (c.proposals === null || c.hired === null) continue; // unpublished, or a tile-only document
        expect(c.hired!).toBeLessThanOrEqual(c.positionsToHire!);
        expect(c.hired!).toBeLessThanOrEqual(c.interviewing!);
        expect(c.unansweredInvites!).toBeLessThanOrEqual(c.invitesSent!);
        expect(Date.parse(c.lastClientActivity!)).toBeLessThanOrEqual(d.exploredAt!);
        // Both details bodies tell the same story.
        const pub = pubOf(d)?.opening.clientActivity;
        const auth = authOf(d)?.opening.job.clientActivity;
        if (pub && auth) expect(pub).toEqual(auth);
      }
    }
  });

  test("proposals rise fast then level off, within a 5–80 ceiling", () => {
    const withDetails = atEnd.filter((d) => pubOf(d) !== undefined);
    for (const d of withDetails) {
      const p = countsOf(d).proposals!;
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThanOrEqual(80);
    }
    // Half a day in, the typical job has most of what it will get.
    const half = timelines.map((s) => countsOf(s[TIMELINE.findIndex((t) => t >= NOW + 12 * HOUR)]!).proposals ?? 0);
    const end = atEnd.map((d) => countsOf(d).proposals ?? 0);
    expect(half.reduce((a, b) => a + b, 0) / end.reduce((a, b) => a + b, 0)).toBeGreaterThan(0.75);
    expect(new Set(end).size).toBeGreaterThan(20); // per-job ceilings differ
  });

  test("some jobs hire and close, some close without hiring, some stay open", () => {
    const closed = atEnd.filter((d) => statusOf(d) === "CLOSED");
    const filled = atEnd.filter((d) => statusOf(d) !== undefined && countsOf(d).hired === countsOf(d).positionsToHire);
    const closedUnfilled = closed.filter((d) => countsOf(d).hired === 0);
    const open = atEnd.filter((d) => statusOf(d) === "ACTIVE");
    expect(filled.length).toBeGreaterThan(N * 0.2);
    expect(closedUnfilled.length).toBeGreaterThan(N * 0.05);
    expect(open.length).toBeGreaterThan(N * 0.2);
    // A job that filled every position is closed, and it closed 1–5 days after posting.
    for (const d of filled) expect(statusOf(d)).toBe("CLOSED");
    const i = atEnd.indexOf(filled[0]!);
    const closedAt = TIMELINE[timelines[i]!.findIndex((e) => statusOf(e) === "CLOSED")]!;
    expect(closedAt - publishOf(docs[i]!)).toBeGreaterThanOrEqual(DAY);
    expect(closedAt - publishOf(docs[i]!)).toBeLessThanOrEqual(5 * DAY + 90 * MIN);
    // Interviews happen somewhere, and never before the first proposals.
    expect(atEnd.some((d) => (countsOf(d).interviewing ?? 0) > 0)).toBe(true);
  });

  test("a closed job stays closed and frozen", () => {
    for (const series of timelines) {
      const first = series.findIndex((d) => statusOf(d) === "CLOSED");
      if (first === -1) continue;
      const frozen = countsOf(series[first]!);
      for (const d of series.slice(first)) {
        expect(statusOf(d)).toBe("CLOSED");
        expect(countsOf(d)).toEqual(frozen);
      }
    }
  });

  test("the tracker follows an evolving job until it stops", () => {
    const opts = { publishTimeTs: null as number | null, maxAgeMs: 7 * DAY };
    const reasons = new Set<string>();
    for (const series of timelines) {
      if (authOf(series[0]!) === undefined) continue;
      opts.publishTimeTs = publishOf(series[0]!);
      let state = startTracking(countsOf(series[0]!), TIMELINE[0]!);
      for (let k = 1; k < series.length; k++) state = recordCheck(state, countsOf(series[k]!), TIMELINE[k]!, opts);
      const history = state.history.map((p) => p.proposals ?? -1);
      expect(history).toEqual([...history].sort((a, b) => a - b));
      if (!state.active) reasons.add(state.stoppedReason!);
      const activity = proposalActivity(series[series.length - 1]!, state, TIMELINE[TIMELINE.length - 1]!)!;
      expect(activity.source).toBe("tracker");
      expect(activity.tracking!.peakProposals).toBe(activity.proposals);
    }
    // Filled jobs stop as "hired", others close, and jobs still open after 7 days hit the age limit.
    expect([...reasons].sort()).toEqual(["age limit", "hired", "job closed"]);
  });
});

describe("evolveSandboxJob basics", () => {
  test("deterministic: same (doc, nowTs) → same document; exploredAt = nowTs", () => {
    for (const d of docs.slice(0, 30)) {
      const t = NOW + 37 * HOUR + 123;
      const a = evolveSandboxJob(d, t);
      expect(JSON.stringify(evolveSandboxJob(d, t))).toBe(JSON.stringify(a));
      expect(JSON.stringify(evolveSandboxJob(structuredClone(d), t))).toBe(JSON.stringify(a));
      expect(a.exploredAt).toBe(t);
    }
  });

  test("evolving the last output again (as the tracker does) equals evolving the generated job", () => {
    for (let i = 0; i < N; i += 3) {
      let chained = docs[i]!;
      for (let k = 0; k < TIMELINE.length; k++) {
        chained = evolveSandboxJob(chained, TIMELINE[k]!);
        expect(chained).toEqual(timelines[i]![k]!);
      }
    }
  });

  test("the input document is not modified", () => {
    const d = docs[5]!;
    const before = JSON.stringify(d);
    evolveSandboxJob(d, NOW + 3 * DAY);
    expect(JSON.stringify(d)).toBe(before);
  });

  test("a fresh job (a few seconds old) still has null counts like the generator's", () => {
    const fresh = docs.filter((d) => authOf(d) !== undefined && countsOf(d).proposals === null && NOW - publishOf(d) < 60_000);
    expect(fresh.length).toBeGreaterThan(0);
    for (const d of fresh) {
      const e = evolveSandboxJob(d, NOW + 1000);
      expect(countsOf(e)).toEqual(countsOf(d));
      expect(countsOf(e).proposals).toBeNull();
      expect(e.jobTile!.job!.totalApplicants).toBe(0);
      expect(bidStatsOf(e)).toBeNull();
      // Past two minutes, the counts are published.
      expect(countsOf(evolveSandboxJob(d, publishOf(d) + 3 * MIN)).proposals).not.toBeNull();
    }
  });

  test("the generated counts are a floor from the moment they were observed", () => {
    for (const d of docs) {
      const c0 = countsOf(d);
      const c1 = countsOf(evolveSandboxJob(d, NOW));
      for (const k of KEYS) if (c0[k] !== null) expect(c1[k]).toBeGreaterThanOrEqual(c0[k]!);
    }
  });

  test("bid stats: null until someone bids, then min ≤ avg ≤ max and the range only widens", () => {
    for (const series of timelines) {
      let prev: ReturnType<typeof bidStatsOf> = null;
      for (const d of series) {
        const b = bidStatsOf(d);
        const p = countsOf(d).proposals;
        if (authOf(d) === undefined) expect(b).toBeNull();
        else if (!p) continue;
        else {
          expect(b!.currency).toBe("USD");
          expect(b!.min!).toBeLessThanOrEqual(b!.avg!);
          expect(b!.avg!).toBeLessThanOrEqual(b!.max!);
          if (prev !== null) {
            expect(b!.min!).toBeLessThanOrEqual(prev.min!);
            expect(b!.max!).toBeGreaterThanOrEqual(prev.max!);
          }
          prev = b;
        }
      }
    }
  });

  test("structure otherwise unchanged (title, ciphertext, company, …)", () => {
    const strip = (d: JobDocument) => {
      const copy = structuredClone(d) as Record<string, any>;
      delete copy.exploredAt;
      delete copy.jobTile.job.totalApplicants;
      for (const opening of [copy.jobDetailsResponse?.data.jobPubDetails.opening, copy.authJobDetailsResponse?.data.jobAuthDetails.opening.job]) {
        if (!opening) continue;
        delete opening.status;
        delete opening.clientActivity;
      }
      delete copy.authJobDetailsResponse?.data.jobAuthDetails.applicantsBidsStats;
      return copy;
    };
    for (let i = 0; i < N; i += 7) {
      const d = docs[i]!;
      const e = atEnd[i]!;
      expect(strip(e)).toEqual(strip(d));
      const n0 = normalizeJob(d);
      const n1 = normalizeJob(e);
      expect(n1.ok && n0.ok).toBe(true);
      if (n0.ok && n1.ok) {
        expect(n1.job).toEqual({ ...n0.job, exploredAt: e.exploredAt! });
        expect(n1.job.companyId).toBe(n0.job.companyId);
      }
      // The activity objects keep their keys (numberOfPositionsToHire included).
      const keys = (doc: JobDocument) => Object.keys(pubOf(doc)?.opening.clientActivity ?? {}).sort();
      expect(keys(e)).toEqual(keys(d));
    }
  });
});
