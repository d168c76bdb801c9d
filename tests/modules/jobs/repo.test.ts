import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { tx, type Db } from "../../../src/db/client";
import { rawExec, rawMany } from "../../../src/db/query";
import {
  documentsOfCompany,
  dueTracking,
  findJob,
  findJobMeta,
  findTracking,
  insertJob,
  insertTrackingIfAbsent,
  jobSummaries,
  saveTracking,
  textsOf,
  updateJob,
  type JobInsert,
} from "../../../src/modules/jobs/repo";
import { openTestDb, type TestDb } from "../../helpers/db";

// The archive's repository on the suite's backend (SQLite, or PostgreSQL in its pass): rows come back as written.

let t: TestDb;
let db: Db;
beforeEach(async () => {
  t = await openTestDb();
  db = t.db;
});
afterEach(() => t.close());

const T0 = Date.UTC(2026, 10, 1, 12);

function job(n: number, over: Partial<JobInsert> = {}): JobInsert {
  return {
    ciphertext: `~0${n}`,
    jobUid: `uid-${n}`,
    platform: "web",
    title: `Job ${n}`,
    url: `https://example.com/${n}`,
    jobType: "HOURLY",
    hourlyMin: 25.5,
    hourlyMax: 60,
    fixedBudget: null,
    clientCountry: "DE",
    clientTotalSpent: 12_345.67,
    paymentVerified: true,
    clientRating: 4.9,
    clientReviews: 12,
    usOnly: false,
    emailFound: false,
    publishTimeTs: T0 - 60_000,
    companyId: "co-1",
    signals: [{ id: "scam", rule: "off-platform", say: "Scam risk: asks to talk off the platform" }],
    matchFields: { title: `Job ${n}`, description: "Über die Arbeit", skills: ["TypeScript", "C#"] },
    source: "sandbox",
    // Key order and spelling kept exactly, nested values included.
    document: { zeta: 1, alpha: { b: [1, "two", null], a: true }, title: `Job ${n}`, "ü key": "ü" },
    firstSeenAtTs: T0,
    exploredAtTs: T0 - 1000,
    updatedAtTs: T0,
    ...over,
  };
}

describe("jobs", () => {
  test("insertJob then findJob / findJobMeta give the row back as written; nulls and booleans included", async () => {
    expect(await findJob(db, "~01")).toBeUndefined();
    expect(await findJobMeta(db, "~01")).toBeUndefined();
    const row = job(1);
    await insertJob(db, row);
    const found = await findJob(db, "~01");
    const { matchFields, ...stored } = row;
    expect(found).toEqual(stored as typeof found);
    // The match fields are kept beside the row, in job_texts.
    expect((await textsOf(db, ["~01"])).get("~01")).toEqual(matchFields);
    expect(Object.keys(found!.document)).toEqual(["zeta", "alpha", "title", "ü key"]);
    expect(await findJobMeta(db, "~01")).toEqual({ exploredAtTs: T0 - 1000 });

    const sparse = job(2, {
      jobUid: null,
      jobType: null,
      hourlyMin: null,
      hourlyMax: null,
      fixedBudget: 500,
      paymentVerified: null,
      usOnly: true,
      emailFound: true,
      publishTimeTs: null,
      companyId: null,
    });
    await insertJob(db, sparse);
    const { matchFields: _m, ...sparseStored } = sparse;
    expect(await findJob(db, "~02")).toEqual(sparseStored as never);
  });

  test("updateJob replaces every column but the key, first-seen time and signals (computed once, when new)", async () => {
    await insertJob(db, job(1));
    const {
      ciphertext: _c,
      firstSeenAtTs: _f,
      ...changes
    } = job(1, {
      title: "Renamed",
      paymentVerified: false,
      usOnly: null,
      emailFound: true,
      hourlyMin: null,
      matchFields: { title: "Renamed", description: "", skills: [] },
      document: { fresh: true },
      exploredAtTs: T0 + 5000,
      updatedAtTs: T0 + 9000,
    });
    await updateJob(db, "~01", changes);
    const { matchFields, ...columns } = changes;
    expect(await findJob(db, "~01")).toEqual({ ...columns, ciphertext: "~01", firstSeenAtTs: T0 } as never);
    expect((await textsOf(db, ["~01"])).get("~01")).toEqual(matchFields);
    // A job archived before job_texts existed gets its match fields on its first refresh.
    await rawExec(db, "test.dropText", "DELETE FROM job_texts WHERE job_ciphertext = ?", ["~01"]);
    await updateJob(db, "~01", { ...changes, matchFields: { title: "Again", description: "d", skills: ["Go"] } });
    const again = await rawMany<{ first_seen_at_ts: number | string }>(db, "test.text", "SELECT first_seen_at_ts FROM job_texts WHERE job_ciphertext = ?", [
      "~01",
    ]);
    expect(again.map((r) => Number(r.first_seen_at_ts))).toEqual([T0]);
    expect((await textsOf(db, ["~01"])).get("~01")).toEqual({ title: "Again", description: "d", skills: ["Go"] });
    await updateJob(db, "~09", changes); // unknown: nothing happens
    expect(await findJob(db, "~09")).toBeUndefined();
  });

  test("a second insert of the same ciphertext is refused; the look and the insert run in a transaction", async () => {
    await tx(db, async (d) => {
      if (!(await findJobMeta(d, "~01"))) await insertJob(d, job(1));
    });
    await expect(insertJob(db, job(1))).rejects.toThrow();
    expect((await findJob(db, "~01"))!.title).toBe("Job 1");
  });

  test("jobSummaries and documentsOfCompany", async () => {
    await insertJob(db, job(1));
    await insertJob(db, job(2, { companyId: "co-2" }));
    await insertJob(db, job(3));
    expect(await jobSummaries(db, [])).toEqual(new Map());
    const summaries = await jobSummaries(db, ["~01", "~02", "~01", "~99"]);
    expect([...summaries.keys()].sort()).toEqual(["~01", "~02"]);
    expect(summaries.get("~02")).toEqual({
      ciphertext: "~02",
      title: "Job 2",
      url: "https://example.com/2",
      platform: "web",
      source: "sandbox",
      jobType: "HOURLY",
      hourlyMin: 25.5,
      hourlyMax: 60,
      fixedBudget: null,
      clientCountry: "DE",
      publishTimeTs: T0 - 60_000,
      companyId: "co-2",
    });
    const docs = await documentsOfCompany(db, "co-1");
    expect(docs.map((d) => d.ciphertext).sort()).toEqual(["~01", "~03"]);
    expect(docs[0]!.document).toEqual(job(1).document);
    expect(docs[0]!.exploredAtTs).toBe(T0 - 1000);
    expect(await documentsOfCompany(db, "nobody")).toEqual([]);
  });
});

describe("job tracking", () => {
  test("watched once; saved state comes back; due ones oldest first, only the active ones", async () => {
    for (const n of [1, 2, 3]) await insertJob(db, job(n, { source: `src-${n}` }));
    await insertTrackingIfAbsent(db, { jobCiphertext: "~01", active: true, state: { checks: 0 }, lastCheckedAtTs: T0 + 300 });
    await insertTrackingIfAbsent(db, { jobCiphertext: "~01", active: false, state: { other: 1 }, lastCheckedAtTs: 0 }); // already watched
    await insertTrackingIfAbsent(db, { jobCiphertext: "~02", active: true, state: {}, lastCheckedAtTs: T0 + 100 });
    await insertTrackingIfAbsent(db, { jobCiphertext: "~03", active: true, state: {}, lastCheckedAtTs: T0 + 200 });
    expect(await findTracking(db, "~01")).toEqual({ jobCiphertext: "~01", active: true, state: { checks: 0 }, lastCheckedAtTs: T0 + 300 });
    expect(await findTracking(db, "~09")).toBeUndefined();

    expect(await dueTracking(db, T0 + 1000, 10)).toEqual([
      { jobCiphertext: "~02", source: "src-2" },
      { jobCiphertext: "~03", source: "src-3" },
      { jobCiphertext: "~01", source: "src-1" },
    ]);
    expect(await dueTracking(db, T0 + 250, 10)).toHaveLength(2);
    expect(await dueTracking(db, T0 + 1000, 1)).toEqual([{ jobCiphertext: "~02", source: "src-2" }]);

    await saveTracking(db, "~02", { checks: 1, history: [{ at: T0, n: 3 }] }, false, T0 + 500);
    expect(await findTracking(db, "~02")).toEqual({
      jobCiphertext: "~02",
      active: false,
      state: { checks: 1, history: [{ at: T0, n: 3 }] },
      lastCheckedAtTs: T0 + 500,
    });
    expect((await dueTracking(db, T0 + 1000, 10)).map((r) => r.jobCiphertext)).toEqual(["~03", "~01"]);
  });
});
