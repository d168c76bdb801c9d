import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import type { Db } from "../../src/db/client";
import { one, tables } from "../../src/db/query";
import type { SubmitRequest } from "../../src/marketplace/driver";
import { ensureOwnFreelancer, receiveSubmission as receive, type SandboxPorts } from "../../src/marketplace/sandbox/driver";
import { normalizeJob } from "../../src/modules/jobs/normalize";
import * as repo from "../../src/marketplace/sandbox/repo";
import * as rules from "../../src/marketplace/sandbox/rules";
import { newId } from "../../src/lib/ids";
import { openTestDb, type TestDb } from "../helpers/db";
import { makeDoc } from "../helpers/factories";

// The sandbox's invariants at the repository level, on the suite's backend (SQLite, or PostgreSQL in its
// pass): an applied proposal reaches a job once per freelancer, Connects are spent once and never go
// below zero, also when two connections submit at the same time.

let t: TestDb;
let db: Db;
beforeEach(async () => {
  t = await openTestDb();
  db = t.db;
});
afterEach(() => t.close());

const PUBLISHED = Date.parse("2026-01-15T11:59:00.000Z"); // makeDoc's publish time
const NOW = PUBLISHED + 60 * 60_000;
const ACCOUNT = "acct-sandbox-repo";
const FREELANCER = rules.freelancerIdFor(ACCOUNT);

/** receiveSubmission on connection `on` at NOW, with the jobs feature's normaliser (accounts are not asked here). */
const ports = { normalizeJob } as SandboxPorts;
const receiveSubmission = (on: Db, req: SubmitRequest, kind: "solo" | "agency", nowTs: number) =>
  receive({ db: on, clock: { now: () => nowTs }, sandboxPorts: ports }, req, kind);

function fixedJob(): SubmitRequest["job"] {
  const document = makeDoc({ fixed: 500 }); // 12 Connects
  const ciphertext = (document.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  return { ciphertext, url: `https://example.test/${ciphertext}`, title: "A job", jobType: "FIXED", document, publishTimeTs: PUBLISHED, usOnly: null };
}

function request(job: SubmitRequest["job"], applicationId = newId()): SubmitRequest {
  return {
    applicationId,
    accountId: ACCOUNT,
    freelancerId: FREELANCER,
    profileId: FREELANCER,
    job,
    coverLetter: "Hello",
    bid: { hourlyRate: null, fixedBid: 500, timeline: "Less than 1 month", boostBids: 0 },
    answers: [],
  };
}

async function connects(): Promise<number> {
  return (await repo.findFreelancer(db, FREELANCER))!.connects;
}

async function appliedRows(jobCiphertext: string): Promise<number> {
  const { sandboxSubmissions: s } = tables(db);
  const row = await one(db, db.select({ n: count() }).from(s).where(eq(s.jobCiphertext, jobCiphertext)));
  return Number(row?.n ?? 0);
}

function submission(applicationId: string, jobCiphertext: string) {
  return {
    applicationId,
    accountId: ACCOUNT,
    freelancerId: FREELANCER,
    jobCiphertext,
    status: "applied" as const,
    message: "submitted",
    connectsSpent: 12,
    submittedAtTs: NOW,
  };
}

describe("sandbox repository", () => {
  test("a second applied submission of the freelancer to the job does not go in; other statuses are not limited", async () => {
    expect(await repo.insertAppliedSubmission(db, submission("a1", "job-1"))).toBe(true);
    expect(await repo.insertAppliedSubmission(db, submission("a2", "job-1"))).toBe(false);
    await repo.insertSubmission(db, { ...submission("a3", "job-1"), status: "failed", connectsSpent: 0 });
    expect(await repo.insertAppliedSubmission(db, submission("a4", "job-2"))).toBe(true);
    expect(await repo.findSubmission(db, "a2")).toBeUndefined();
    expect((await repo.findSubmission(db, "a1"))?.status).toBe("applied");
    expect(await appliedRows("job-1")).toBe(2);
  });

  test("spendConnects takes exactly the amount and never goes below zero", async () => {
    await ensureOwnFreelancer(db, ACCOUNT, NOW);
    await repo.setConnects(db, FREELANCER, 10);
    expect(await repo.spendConnects(db, FREELANCER, 12)).toBe(false);
    expect(await connects()).toBe(10);
    expect(await repo.spendConnects(db, FREELANCER, 10)).toBe(true);
    expect(await connects()).toBe(0);
    expect(await repo.spendConnects(db, FREELANCER, 1)).toBe(false);
    expect(await connects()).toBe(0);
  });

  test("engagement times are recorded once: a later call never moves one", async () => {
    await repo.insertAppliedSubmission(db, submission("e1", "job-e"));
    expect(await repo.recordEngagement(db, "e1", { viewedAtTs: NOW + 1, repliedAtTs: null })).toMatchObject({ viewedAtTs: NOW + 1, repliedAtTs: null });
    expect(await repo.recordEngagement(db, "e1", { viewedAtTs: NOW + 5, repliedAtTs: NOW + 6 })).toMatchObject({ viewedAtTs: NOW + 1, repliedAtTs: NOW + 6 });
    expect(await repo.recordEngagement(db, "missing", { viewedAtTs: NOW, repliedAtTs: null })).toBeUndefined();
  });

  test("sessions and closed jobs: upsert keeps one row per account, closing twice keeps the first time", async () => {
    expect(await repo.upsertSession(db, { accountId: ACCOUNT, valid: false, restorable: true, updatedAtTs: 1 })).toEqual({
      accountId: ACCOUNT,
      valid: false,
      restorable: true,
      updatedAtTs: 1,
    });
    expect(await repo.upsertSession(db, { accountId: ACCOUNT, valid: true, restorable: false, updatedAtTs: 2 })).toMatchObject({ valid: true, updatedAtTs: 2 });
    expect(await repo.findSession(db, ACCOUNT)).toMatchObject({ valid: true, restorable: false });
    await repo.closeJob(db, "c1", 5);
    await repo.closeJob(db, "c1", 9);
    expect(await repo.isJobClosed(db, "c1")).toBe(true);
    expect(await repo.isJobClosed(db, "c2")).toBe(false);
    expect(await repo.closedAmong(db, ["c1", "c2"])).toEqual(new Set(["c1"]));
  });
});

describe("receiveSubmission", () => {
  test("a repeat of an application returns its first outcome and spends nothing more", async () => {
    const req = request(fixedJob());
    const first = await receiveSubmission(db, req, "solo", NOW);
    expect(first).toMatchObject({ status: "applied" });
    expect(await connects()).toBe(rules.DEFAULT_CONNECTS - 12);
    expect(await receiveSubmission(db, req, "solo", NOW)).toEqual(first);
    expect(await connects()).toBe(rules.DEFAULT_CONNECTS - 12);
  });

  test("the same application submitted from two connections at once: one decision, Connects spent once", async () => {
    const other = t.another();
    await ensureOwnFreelancer(db, ACCOUNT, NOW);
    for (let round = 0; round < 5; round++) {
      const req = request(fixedJob());
      const before = await connects();
      const outcomes = await Promise.all([
        receiveSubmission(db, req, "solo", NOW),
        receiveSubmission(other, req, "solo", NOW),
        receiveSubmission(db, req, "solo", NOW),
        receiveSubmission(other, req, "solo", NOW),
      ]);
      for (const o of outcomes) expect(o).toEqual(outcomes[0]!);
      expect(outcomes[0]!.status).toBe("applied");
      expect(await connects()).toBe(before - 12);
      expect(await appliedRows(req.job.ciphertext)).toBe(1);
    }
  });

  test("different applications of the freelancer to one job from two connections at once: one applied, Connects spent once", async () => {
    const other = t.another();
    await ensureOwnFreelancer(db, ACCOUNT, NOW);
    for (let round = 0; round < 5; round++) {
      const job = fixedJob();
      const before = await connects();
      const outcomes = await Promise.all([0, 1, 2, 3].map((i) => receiveSubmission(i % 2 ? other : db, request(job), "solo", NOW)));
      expect(outcomes.filter((o) => o.status === "applied")).toHaveLength(1);
      for (const o of outcomes.filter((o) => o.status !== "applied")) {
        const { connectsAvailable, ...rest } = o;
        expect(rest).toEqual({ status: "failed", message: "Already applied to this job with this freelancer" });
        // The balance as that refusal read it: before or after the one spend, never anything else.
        expect([before, before - 12]).toContain(connectsAvailable!);
      }
      expect(await connects()).toBe(before - 12);
      const { sandboxSubmissions: s } = tables(db);
      const applied = await one(db, db.select({ n: count() }).from(s).where(eq(s.status, "applied")));
      expect(Number(applied?.n)).toBe(round + 1);
    }
  });

  test("Connects for one submission only, two connections racing for the last of them: never below zero", async () => {
    const other = t.another();
    await ensureOwnFreelancer(db, ACCOUNT, NOW);
    await repo.setConnects(db, FREELANCER, 12);
    const outcomes = await Promise.all([0, 1, 2, 3].map((i) => receiveSubmission(i % 2 ? other : db, request(fixedJob()), "solo", NOW)));
    expect(outcomes.filter((o) => o.status === "applied")).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === "not_enough_connects")).toHaveLength(3);
    expect(await connects()).toBe(0);
  });
});
