import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { buildClientRecord, type ClientJobsRecord, type CompanyDocument } from "../../../src/modules/clients/record";
import { ClientJobsRecordSchema } from "../../../src/modules/clients/schema";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { generateJob } from "../../../src/sources/sandbox/generator";

const COMPANY = "1600000000000000009";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);
const iso = (ts: number) => new Date(ts).toISOString();
const cipher = (n: number) => `~0219000000000000000${String(n).padStart(2, "0")}`;
const idOf = (n: number) => cipher(n).slice(3);

type Doc = Record<string, any>;

/** A search-tile-only document of job n, published `ageMs` before NOW. */
function tileDoc(n: number, ageMs: number, client: Doc = { companyOrgUid: COMPANY }): Doc {
  return {
    id: idOf(n),
    title: `Job ${n}`,
    description: `Work for job ${n}.`,
    jobTile: {
      job: { id: idOf(n), ciphertext: cipher(n), jobType: "HOURLY", publishTime: iso(NOW - ageMs), hourlyBudgetMin: "20.0", hourlyBudgetMax: "40.0" },
    },
    upworkHistoryData: { client },
  };
}
const withPublic = (doc: Doc, buyer: Doc, extra: Doc = {}): Doc => ({
  ...doc,
  jobDetailsResponse: {
    data: { jobPubDetails: { opening: { status: "ACTIVE", info: { ciphertext: doc.jobTile.job.ciphertext, type: "HOURLY" } }, buyer, ...extra } },
  },
});
const withAuth = (doc: Doc, buyer: Doc): Doc => ({
  ...doc,
  authJobDetailsResponse: {
    data: { jobAuthDetails: { opening: { job: { status: "ACTIVE", info: { ciphertext: doc.jobTile.job.ciphertext, type: "HOURLY" } } }, buyer } },
  },
});
const at = (document: unknown, exploredAtTs: number, closed = false): CompanyDocument => ({ document, exploredAtTs, closed });

function history(n: number, contractor: string, start: number, end: number | null, charge: number, extra: Doc = {}): Doc {
  return {
    status: end === null ? "ACTIVE" : "CLOSED",
    startDate: iso(start),
    endDate: end === null ? null : iso(end),
    totalCharge: charge,
    totalHours: 10,
    jobInfo: {
      title: `Past job ${n}`,
      id: n < 0 ? null : idOf(n),
      access: n < 0 ? "PRIVATE" : "PUBLIC_INDEX",
      type: "HOURLY",
      ciphertext: n < 0 ? null : cipher(n),
    },
    contractorInfo: { contractorName: contractor, accessType: "PUBLIC_INDEX", ciphertext: `~01${contractor.replace(/\W/g, "").toLowerCase()}` },
    rate: { amount: 30 },
    feedback: null,
    feedbackToClient: null,
    ...extra,
  };
}

function valid(record: ClientJobsRecord | null): ClientJobsRecord {
  expect(record).not.toBeNull();
  const errors = [...Value.Errors(ClientJobsRecordSchema, record)].map((e) => `${e.path}: ${e.message}`);
  expect(errors).toEqual([]);
  expect(Value.Check(ClientJobsRecordSchema, record)).toBe(true);
  return record!;
}

// Three documents of different freshness: a tile-only one (newest), a visitor public one, and an authenticated one (oldest).
const oldestAuth = at(
  withAuth(tileDoc(1, 3 * DAY), {
    isPaymentMethodVerified: false,
    info: {
      location: { city: "Vaughan", country: "Canada", countryTimezone: "UTC-05:00 America/Toronto" },
      stats: { totalAssignments: 28, score: 4.8, totalCharges: { amount: 25000.5 }, feedbackCount: 12, totalJobsWithHires: 24, hoursCount: 583.5 },
      company: { name: null, companyId: COMPANY, contractDate: "2022-03-17T00:00:00.000Z", profile: { industry: "Tech", size: 2 } },
      jobs: {
        openCount: 2,
        postedCount: 38,
        openJobs: [
          { id: idOf(1), ciphertext: cipher(1), title: "Job 1", type: "HOURLY", isPtcPrivate: false },
          { id: idOf(8), ciphertext: cipher(8), title: "Stale", type: "FIXED" },
        ],
      },
      avgHourlyJobsRate: { amount: "34.71" },
    },
    workHistory: [
      history(50, "David V.", NOW - 100 * DAY, null, 245.11),
      history(51, "Ana K.", NOW - 400 * DAY, NOW - 300 * DAY, 3232.89, {
        feedback: { score: 5, comment: "Great" },
        feedbackToClient: { feedbackSuppressed: false, score: 4.9, comment: "Clear brief" },
      }),
      history(-1, "Li W.", NOW - 200 * DAY, NOW - 150 * DAY, 500),
    ],
  }),
  NOW - 2 * DAY,
  true, // the sandbox closed job 1
);
const middlePublic = at(
  withPublic(
    tileDoc(2, DAY),
    {
      location: { city: "Toronto", country: "Canada", countryTimezone: "ExecutionAborted" },
      stats: { totalAssignments: 30, score: 4.93, totalCharges: "ExecutionAborted", feedbackCount: 13, totalJobsWithHires: 25, hoursCount: 810.5 },
      company: { name: "Maple Works", companyId: COMPANY, contractDate: "2022-03-17T00:00:00.000Z" },
      jobs: {
        openCount: 3,
        postedCount: 40,
        openJobs: [
          { id: idOf(2), ciphertext: cipher(2), title: "Job 2", type: "HOURLY", isPtcPrivate: false },
          { id: idOf(1), ciphertext: cipher(1), title: "Job 1", type: "HOURLY", isPtcPrivate: false },
          { id: idOf(9), ciphertext: cipher(9), title: "Listed only", type: "FIXED", isPtcPrivate: true },
        ],
      },
      avgHourlyJobsRate: { __typename: "ExecutionAborted" },
    },
    { buyerExtra: { isPaymentMethodVerified: true } },
  ),
  NOW - DAY,
);
const newestTile = at(
  tileDoc(3, HOUR, {
    companyOrgUid: COMPANY,
    country: "CAN",
    totalFeedback: 2.1,
    totalReviews: 99,
    totalSpent: { amount: "1.0" },
    paymentVerificationStatus: "UNVERIFIED",
  }),
  NOW - 10 * 60_000,
);

describe("buildClientRecord", () => {
  test("empty input gives null", () => {
    expect(buildClientRecord(COMPANY, [], NOW)).toBeNull();
  });

  test("three documents: buyer fields come from the freshest details that can read them", () => {
    const r = valid(buildClientRecord(COMPANY, [oldestAuth, newestTile, middlePublic], NOW));
    expect(r.companyId).toBe(COMPANY);
    expect(r.lastSyncedAt).toBe(NOW - 10 * 60_000);
    expect(r.buyer).toEqual({
      // name hidden in the auth body and absent from the tile: the public body has it
      company: { name: "Maple Works", companyId: COMPANY, contractDate: "2022-03-17T00:00:00.000Z" },
      // city from the fresher public body; the time zone was aborted there, so the older auth body supplies it
      location: { city: "Toronto", country: "Canada", countryTimezone: "UTC-05:00 America/Toronto" },
      stats: { totalAssignments: 30, score: 4.93, totalCharges: { amount: 25000.5 }, feedbackCount: 13, totalJobsWithHires: 25, hoursCount: 810.5 },
      avgHourlyJobsRate: { amount: 34.71 },
      postedCount: 40,
      openCount: 3,
      paymentVerified: true, // the public body (fresher) wins over the auth body's false; the tile's UNVERIFIED is a last resort only
    });
    expect(r.stats).toEqual({
      jobsPosted: 40,
      hires: 25,
      hireRate: 0.625,
      totalSpent: 25000.5,
      avgHourlyRatePaid: 34.71,
      avgFeedback: 4.93,
      openJobs: 3,
      reviews: 13,
    });
  });

  test("openJobs: closed job excluded, newest first, plus never-archived jobs of the freshest list", () => {
    const r = valid(buildClientRecord(COMPANY, [middlePublic, oldestAuth, newestTile], NOW));
    expect(r.openJobs.map((j) => j.ciphertext)).toEqual([cipher(3), cipher(2), cipher(9)]);
    const [job3, job2, listed] = r.openJobs;
    expect(job3).toEqual({
      id: idOf(3),
      ciphertext: cipher(3),
      title: "Job 3",
      type: "HOURLY",
      publishTime: iso(NOW - HOUR),
      budget: { hourlyMin: 20, hourlyMax: 40, fixedAmount: null, currency: null },
      isPtcPrivate: null,
    });
    expect(job2!.isPtcPrivate).toBe(false); // enriched from the list
    expect(listed).toEqual({
      id: idOf(9),
      ciphertext: cipher(9),
      title: "Listed only",
      type: "FIXED",
      publishTime: null,
      budget: { hourlyMin: null, hourlyMax: null, fixedAmount: null, currency: null },
      isPtcPrivate: true,
    });
    // job 8 is only in the older auth list: the freshest list no longer has it
    expect(r.openJobs.some((j) => j.ciphertext === cipher(8))).toBe(false);
  });

  test("a job whose opening status is no longer ACTIVE is not open, even when a list still shows it", () => {
    const doc = withPublic(tileDoc(4, HOUR), { company: { companyId: COMPANY }, jobs: { openJobs: [{ id: idOf(4), ciphertext: cipher(4) }] } });
    doc.jobDetailsResponse.data.jobPubDetails.opening.status = "CLOSED";
    const r = valid(buildClientRecord(COMPANY, [at(doc, NOW)], NOW));
    expect(r.openJobs).toEqual([]);
    expect(r.stats.openJobs).toBe(0);
  });

  test("work history: all documents merged, de-duplicated, open contracts first then newest start", () => {
    const r = valid(buildClientRecord(COMPANY, [oldestAuth, newestTile, middlePublic], NOW));
    expect(r.workHistory.map((e) => e.title)).toEqual(["Past job 50", "Past job -1", "Past job 51"]);
    expect(r.workHistory[2]).toEqual({
      title: "Past job 51",
      status: "CLOSED",
      startDate: iso(NOW - 400 * DAY),
      endDate: iso(NOW - 300 * DAY),
      totalCharge: 3232.89,
      totalHours: 10,
      rate: 30,
      contractorName: "Ana K.",
      jobCiphertext: cipher(51),
      feedbackGiven: { score: 5, comment: "Great" },
      feedbackReceived: { score: 4.9, comment: "Clear brief" },
    });

    // A newer auth document repeats the contracts: job 50 has since closed and billed more; the private one recurs by title + start.
    const newer = at(
      withAuth(tileDoc(5, HOUR), {
        info: { company: { companyId: COMPANY } },
        workHistory: [
          history(50, "David V.", NOW - 100 * DAY, NOW - 5 * DAY, 900),
          history(-1, "Li W.", NOW - 200 * DAY, NOW - 150 * DAY, 500),
          history(52, "Sam O.", NOW - 20 * DAY, null, "120.5" as unknown as number),
          history(50, "Maria P.", NOW - 90 * DAY, null, 60), // a second hire on job 50: another contract
        ],
      }),
      NOW,
    );
    const merged = valid(buildClientRecord(COMPANY, [oldestAuth, newer, middlePublic], NOW));
    expect(merged.workHistory.map((e) => [e.title, e.contractorName, e.status])).toEqual([
      ["Past job 52", "Sam O.", "ACTIVE"],
      ["Past job 50", "Maria P.", "ACTIVE"],
      ["Past job 50", "David V.", "CLOSED"],
      ["Past job -1", "Li W.", "CLOSED"],
      ["Past job 51", "Ana K.", "CLOSED"],
    ]);
    expect(merged.workHistory[0]!.totalCharge).toBe(120.5);
    expect(merged.workHistory[2]!.totalCharge).toBe(900); // the fresher copy wins
  });

  test("buyer sections missing from the freshest document fall back to older ones", () => {
    const older = at(
      withPublic(tileDoc(6, 2 * DAY), {
        location: { city: "Lyon", country: "France", countryTimezone: "UTC+01:00 Europe/Paris" },
        stats: { score: 4.5, feedbackCount: 3, totalJobsWithHires: 4, totalCharges: 1200 },
        company: { name: "Old Name", companyId: COMPANY },
        jobs: { postedCount: 8, openCount: 1 },
        avgHourlyJobsRate: { amount: 22 },
      }),
      NOW - 5 * DAY,
    );
    // The freshest only carries company and jobs sections.
    const fresher = at(withPublic(tileDoc(7, HOUR), { company: { name: "New Name", companyId: COMPANY }, jobs: { postedCount: 10 } }), NOW);
    const r = valid(buildClientRecord(COMPANY, [fresher, older], NOW));
    expect(r.buyer.company.name).toBe("New Name");
    expect(r.buyer.location).toEqual({ city: "Lyon", country: "France", countryTimezone: "UTC+01:00 Europe/Paris" });
    expect(r.buyer.stats.totalCharges.amount).toBe(1200); // bare number accepted
    expect(r.buyer.postedCount).toBe(10);
    expect(r.buyer.openCount).toBe(1);
    expect(r.stats.hireRate).toBe(0.4);
    expect(r.stats.avgHourlyRatePaid).toBe(22);
  });

  test("a tile-only company still gets what the tile says", () => {
    const r = valid(buildClientRecord(COMPANY, [newestTile], NOW));
    expect(r.buyer.location.country).toBe("CAN");
    expect(r.buyer.stats.score).toBe(2.1);
    expect(r.buyer.stats.totalCharges.amount).toBe(1);
    expect(r.buyer.paymentVerified).toBe(false);
    expect(r.buyer.postedCount).toBeNull();
    expect(r.stats.hireRate).toBeNull();
  });

  test("brand-new company: no stats means nulls, hireRate null, unrated", () => {
    const fresh = at(
      withPublic(tileDoc(10, 60_000), { company: { companyId: COMPANY, name: null }, jobs: { postedCount: 1, openCount: 1, openJobs: [] } }),
      NOW,
    );
    const r = valid(buildClientRecord(COMPANY, [fresh], NOW));
    expect(r.buyer.stats).toEqual({
      totalAssignments: null,
      score: null,
      totalCharges: { amount: null },
      feedbackCount: null,
      totalJobsWithHires: null,
      hoursCount: null,
    });
    expect(r.stats).toEqual({
      jobsPosted: 1,
      hires: null,
      hireRate: null,
      totalSpent: null,
      avgHourlyRatePaid: null,
      avgFeedback: null,
      openJobs: 1,
      reviews: null,
    });
    expect(r.workHistory).toEqual([]);

    // Zero jobs posted gives no rate either; a 0 score with no reviews is "unrated", not an average of 0.
    const zero = at(
      withPublic(tileDoc(11, 60_000), {
        company: { companyId: COMPANY },
        stats: { score: 0, feedbackCount: 0, totalJobsWithHires: 0 },
        jobs: { postedCount: 0 },
      }),
      NOW,
    );
    const z = valid(buildClientRecord(COMPANY, [zero], NOW));
    expect(z.stats.hireRate).toBeNull();
    expect(z.buyer.stats.score).toBe(0);
    expect(z.stats.avgFeedback).toBeNull();
  });

  test("ExecutionAborted anywhere reads as unknown", () => {
    const aborted = { __typename: "ExecutionAborted" };
    const doc = withPublic(
      tileDoc(12, HOUR),
      {
        location: aborted,
        stats: {
          totalAssignments: "ExecutionAborted",
          score: aborted,
          totalCharges: { amount: "ExecutionAborted" },
          feedbackCount: { extensions: { code: "ExecutionAborted" } },
          totalJobsWithHires: "",
          hoursCount: "12.5",
        },
        company: { name: "ExecutionAborted", companyId: COMPANY, contractDate: "ExecutionAborted" },
        jobs: "ExecutionAborted",
        avgHourlyJobsRate: "ExecutionAborted",
      },
      { buyerExtra: { isPaymentMethodVerified: "ExecutionAborted" } },
    );
    const r = valid(buildClientRecord(COMPANY, [at(doc, NOW)], NOW));
    expect(r.buyer.location).toEqual({ city: null, country: null, countryTimezone: null });
    expect(r.buyer.stats).toEqual({
      totalAssignments: null,
      score: null,
      totalCharges: { amount: null },
      feedbackCount: null,
      totalJobsWithHires: null,
      hoursCount: 12.5,
    });
    expect(r.buyer.company).toEqual({ name: null, companyId: COMPANY, contractDate: null });
    expect(r.buyer.paymentVerified).toBeNull();
    expect(r.buyer.postedCount).toBeNull();
    expect(r.stats.avgHourlyRatePaid).toBeNull();
    expect(r.openJobs.map((j) => j.ciphertext)).toEqual([cipher(12)]);
  });

  test("the result does not depend on input order, and other companies' documents are ignored", () => {
    const docs = [oldestAuth, middlePublic, newestTile];
    const a = buildClientRecord(COMPANY, docs, NOW);
    expect(buildClientRecord(COMPANY, [...docs].reverse(), NOW)).toEqual(a);
    const stranger = at(withPublic(tileDoc(20, 60_000), { company: { companyId: "1700000000000000000", name: "Someone Else" } }), NOW + HOUR);
    expect(buildClientRecord(COMPANY, [stranger, ...docs], NOW)).toEqual(a);
    expect(buildClientRecord(COMPANY, [stranger], NOW)).toBeNull();
  });

  test("garbage documents still give a valid record", () => {
    const r = valid(
      buildClientRecord(
        COMPANY,
        [at(null, Number.NaN), at("x", NOW), at({ authJobDetailsResponse: { data: { jobAuthDetails: { buyer: { workHistory: [null, 1, {}] } } } } }, NOW)],
        NOW + 1,
      ),
    );
    expect(r.lastSyncedAt).toBe(NOW);
    expect(r.openJobs).toEqual([]);
    expect(r.workHistory).toEqual([]);
    expect(r.buyer.company.companyId).toBe(COMPANY);
  });
});

describe("buildClientRecord over sandbox documents", () => {
  test("300 generated jobs grouped by company: valid records, sorted open jobs, de-duplicated history", () => {
    const base = Date.UTC(2026, 2, 10, 1, 0, 0); // same day throughout, so each company's history is identical across its jobs
    const groups = new Map<string, CompanyDocument[]>();
    const authHistory = new Map<string, number>();
    for (let index = 0; index < 300; index++) {
      const nowTs = base + index * 60_000;
      const document = generateJob({ seed: 42, index, nowTs });
      const norm = normalizeJob(document);
      if (!norm.ok || norm.job.companyId === null) continue;
      const id = norm.job.companyId;
      const list = groups.get(id) ?? [];
      list.push({ document, exploredAtTs: nowTs, closed: index % 7 === 0 });
      groups.set(id, list);
      const wh = (document.authJobDetailsResponse?.data?.jobAuthDetails as any)?.buyer?.workHistory;
      if (Array.isArray(wh)) authHistory.set(id, wh.length);
    }
    expect(groups.size).toBeGreaterThan(20);
    expect([...groups.values()].some((g) => g.length >= 3)).toBe(true);

    for (const [companyId, docs] of groups) {
      const r = valid(buildClientRecord(companyId, docs, base + DAY / 2));
      expect(r.companyId).toBe(companyId);
      expect(r.buyer.company.companyId).toBe(companyId);
      expect(r.lastSyncedAt).toBe(Math.max(...docs.map((d) => d.exploredAtTs)));

      const times = r.openJobs.map((j) => j.publishTime);
      const dated = times.filter((t): t is string => t !== null);
      expect(dated).toEqual([...dated].sort().reverse());
      expect(times.slice(dated.length).every((t) => t === null)).toBe(true); // undated list entries last
      const closed = new Set(docs.filter((d) => d.closed).map((d) => (d.document as any).jobTile.job.ciphertext));
      const open = new Set(docs.filter((d) => !d.closed).map((d) => (d.document as any).jobTile.job.ciphertext));
      for (const j of r.openJobs) expect(closed.has(j.ciphertext)).toBe(false);
      for (const c of open) if (!closed.has(c)) expect(r.openJobs.some((j) => j.ciphertext === c)).toBe(true);
      const keys = r.openJobs.map((j) => j.ciphertext ?? j.id);
      expect(new Set(keys).size).toBe(keys.length);

      // Every auth document carries the same history, so the merge must equal one copy of it.
      const historyKeys = r.workHistory.map((e) => `${e.jobCiphertext ?? `${e.title}|${e.startDate}`}|${e.contractorName}`);
      expect(new Set(historyKeys).size).toBe(historyKeys.length);
      if (authHistory.has(companyId)) expect(r.workHistory.length).toBe(authHistory.get(companyId)!);
      const firstClosed = r.workHistory.findIndex((e) => e.endDate !== null);
      if (firstClosed >= 0) expect(r.workHistory.slice(firstClosed).every((e) => e.endDate !== null)).toBe(true);

      if (r.stats.hireRate !== null) {
        expect(r.stats.hireRate).toBeGreaterThanOrEqual(0);
        expect(r.stats.hireRate).toBeLessThanOrEqual(1);
      }
      expect(r.stats.openJobs).toBe(r.openJobs.length);
    }
  });
});
