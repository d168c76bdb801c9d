import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { and, count, eq } from "drizzle-orm";
import type { Db } from "../../../src/db/client";
import { exec, many, one, tables } from "../../../src/db/query";
import { tx } from "../../../src/db/client";
import { isUniqueViolation } from "../../../src/db/query";
import * as repo from "../../../src/modules/applications/repo";
import { openTestDb, type TestDb } from "../../helpers/db";

// The applications table's invariants at the repository level, on the suite's backend (SQLite, or
// PostgreSQL in its pass): one live application per account and job (the partial unique index behind the
// 409), settled once, one ledger row per application, also when two connections race.

let t: TestDb;
let db: Db;
beforeEach(async () => {
  t = await openTestDb();
  db = t.db;
  const { accounts, jobs } = tables(db);
  await exec(db, db.insert(accounts).values({ id: ACCOUNT, name: "repo test", kind: "solo", creditsBalance: 100, createdAtTs: NOW }));
  for (const c of ["~01a", "~01b", "~01c", "~01d", "~01e", "~01f"])
    await exec(
      db,
      db.insert(jobs).values({
        ciphertext: c,
        platform: "marketplace",
        title: `Job ${c}`,
        url: `https://www.upwork.com/jobs/${c}`,
        emailFound: false,
        source: "test",
        document: {},
        firstSeenAtTs: NOW,
        exploredAtTs: NOW,
        updatedAtTs: NOW,
      }),
    );
});
afterEach(() => t.close());

const ACCOUNT = "acct-apps-repo";
const NOW = Date.parse("2026-02-01T10:00:00.000Z");
let seq = 0;

function application(jobCiphertext: string, over: Partial<repo.ApplicationInsert> = {}): repo.ApplicationInsert {
  return {
    id: `app-${++seq}`,
    accountId: ACCOUNT,
    jobCiphertext,
    processedJobId: null,
    driver: "sandbox",
    freelancerId: "fl",
    profileId: "pr",
    status: "processing",
    phase: "queued",
    creditHeld: true,
    coverLetter: "Hi",
    hourlyRate: null,
    fixedBid: 100,
    timeline: "1 to 3 months",
    answers: [],
    autoFill: false,
    explicitPositions: [],
    appliedAtTs: NOW,
    ...over,
  };
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the statement to fail");
}

async function liveRows(jobCiphertext: string): Promise<number> {
  const { applications: a } = tables(db);
  const rows = await many(
    db,
    db
      .select({ status: a.status })
      .from(a)
      .where(and(eq(a.accountId, ACCOUNT), eq(a.jobCiphertext, jobCiphertext))),
  );
  return rows.filter((r) => r.status === "processing" || r.status === "applied").length;
}

/** The apply service's transaction, reduced to this table: refuse a live one, else insert; a unique violation is the same refusal. */
async function applyOnce(on: Db, jobCiphertext: string): Promise<"queued" | "conflict"> {
  try {
    return await tx(on, async (tx) => {
      if (await repo.liveApplication(tx, ACCOUNT, jobCiphertext)) return "conflict";
      await repo.insertApplication(tx, application(jobCiphertext));
      return "queued";
    });
  } catch (err) {
    if (isUniqueViolation(err)) return "conflict";
    throw err;
  }
}

/** The submit task's final transaction, with the charge booked as accounts does: settle, then one ledger row under the application id. */
async function finishApplied(on: Db, id: string): Promise<boolean> {
  return tx(on, async (tx) => {
    if (!(await repo.settle(tx, { id, accountId: ACCOUNT }, { status: "applied", message: "ok" }, NOW))) return false;
    const { creditLedger } = tables(tx);
    await exec(tx, tx.insert(creditLedger).values({ accountId: ACCOUNT, delta: -1, reason: "charge", ref: id, note: "test", createdAtTs: NOW }));
    return true;
  });
}

async function charges(ref: string): Promise<number> {
  const { creditLedger: l } = tables(db);
  return (
    (
      await one(
        db,
        db
          .select({ n: count() })
          .from(l)
          .where(and(eq(l.reason, "charge"), eq(l.ref, ref))),
      )
    )?.n ?? 0
  );
}

describe("one live application per account and job", () => {
  test("a second processing or applied application is a unique violation; failed ones do not count", async () => {
    const first = application("~01a");
    await repo.insertApplication(db, first);
    const second = repo.insertApplication(db, application("~01a"));
    expect(isUniqueViolation(await failure(second))).toBe(true);
    await repo.insertApplication(db, application("~01a", { status: "failed", phase: "done", creditHeld: false }));
    expect(await repo.liveApplication(db, ACCOUNT, "~01a")).toMatchObject({ id: first.id });

    expect(await repo.settle(db, first, { status: "not_available", message: "closed" }, NOW)).toBe(true);
    expect(await repo.liveApplication(db, ACCOUNT, "~01a")).toBeUndefined();
    const retry = application("~01a");
    await repo.insertApplication(db, retry);
    expect((await repo.latestForJob(db, ACCOUNT, "~01a"))?.id).toBe(retry.id);
    expect(await liveRows("~01a")).toBe(1);
  });

  test("applies for one job racing from two connections: exactly one is queued", async () => {
    const other = t.another();
    for (const job of ["~01b", "~01c", "~01d"]) {
      const results = await Promise.all([db, other, db, other].map((on) => applyOnce(on, job)));
      expect(results.filter((r) => r === "queued")).toHaveLength(1);
      expect(await liveRows(job)).toBe(1);
    }
  });
});

describe("settling", () => {
  test("settles once: the second settle changes nothing, and the charge is booked once", async () => {
    const app = application("~01e");
    await repo.insertApplication(db, app);
    expect(await finishApplied(db, app.id)).toBe(true);
    expect(await finishApplied(db, app.id)).toBe(false);
    expect(await repo.findApplication(db, app.id)).toMatchObject({
      status: "applied",
      phase: "done",
      creditHeld: false,
      processedAtTs: NOW,
      errorMessage: null,
    });
    expect(await charges(app.id)).toBe(1);
  });

  test("a second ledger charge for the same application is refused by the unique index", async () => {
    const { creditLedger } = tables(db);
    const row = { accountId: ACCOUNT, delta: -1, reason: "charge", ref: "app-x", note: null, createdAtTs: NOW };
    await exec(db, db.insert(creditLedger).values(row));
    expect(isUniqueViolation(await failure(exec(db, db.insert(creditLedger).values(row))))).toBe(true);
    expect(await charges("app-x")).toBe(1);
  });

  test("two connections finishing the same application at once: settled and charged exactly once", async () => {
    const other = t.another();
    for (let round = 0; round < 5; round++) {
      const app = application(["~01a", "~01b", "~01c", "~01d", "~01e"][round]!);
      await repo.insertApplication(db, app);
      const results = await Promise.all([db, other, db, other].map((on) => finishApplied(on, app.id)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await charges(app.id)).toBe(1);
    }
  });
});

describe("engagement and counts", () => {
  test("viewed and replied only turn on; viewedAt keeps the first time seen; logged-out time is kept once", async () => {
    const app = application("~01f", { status: "applied", phase: "done", creditHeld: false });
    await repo.insertApplication(db, app);
    expect((await repo.dueForSync(db, 10)).map((a) => a.id)).toEqual([app.id]);
    await repo.recordEngagement(db, app.id, { viewed: false, replied: false, viewedAt: null }, NOW + 1);
    expect(await repo.findApplication(db, app.id)).toMatchObject({ viewed: false, replied: false, viewedAtTs: null, lastCheckedAtTs: NOW + 1 });
    await repo.recordEngagement(db, app.id, { viewed: true, replied: false, viewedAt: NOW + 5 }, NOW + 10);
    await repo.recordEngagement(db, app.id, { viewed: false, replied: false, viewedAt: null }, NOW + 20);
    expect(await repo.findApplication(db, app.id)).toMatchObject({ viewed: true, replied: false, viewedAtTs: NOW + 5, lastCheckedAtTs: NOW + 20 });
    await repo.recordEngagement(db, app.id, { viewed: false, replied: true, viewedAt: null }, NOW + 30);
    expect(await repo.findApplication(db, app.id)).toMatchObject({ viewed: true, replied: true, viewedAtTs: NOW + 5 });
    // Viewed and replied but open: a driver may still report an interview, a hire or a loss. Once hired, no more.
    expect((await repo.dueForSync(db, 10)).map((a) => a.id)).toEqual([app.id]);
    await repo.recordEngagement(db, app.id, { viewed: false, replied: false, viewedAt: null, hiredAt: NOW + 35 }, NOW + 36);
    expect(await repo.findApplication(db, app.id)).toMatchObject({ hiredAtTs: NOW + 35, outcome: "hired", outcomeAtTs: NOW + 35, repliedAtTs: NOW + 30 });
    expect(await repo.dueForSync(db, 10)).toEqual([]);

    await repo.markLoggedOutSince(db, app.id, NOW + 40);
    await repo.markLoggedOutSince(db, app.id, NOW + 50);
    expect((await repo.findAccountApplication(db, ACCOUNT, app.id))?.loggedOutSinceTs).toBe(NOW + 40);
    expect(await repo.findAccountApplication(db, "someone-else", app.id)).toBeUndefined();
  });

  test("status counts per day and week come back as numbers", async () => {
    await repo.insertApplication(db, application("~01a", { appliedAtTs: NOW - 3 * 86_400_000 }));
    await repo.insertApplication(db, application("~01b", { appliedAtTs: NOW }));
    await repo.insertApplication(db, application("~01c", { status: "failed", phase: "done", creditHeld: false, appliedAtTs: NOW }));
    await repo.insertApplication(db, application("~01d", { appliedAtTs: NOW - 30 * 86_400_000 }));
    const counts = await repo.statusCountsSince(db, ACCOUNT, NOW - 7 * 86_400_000, NOW - 3_600_000);
    expect(counts.sort((a, b) => a.status.localeCompare(b.status))).toEqual([
      { status: "failed", today: 1, week: 1 },
      { status: "processing", today: 1, week: 2 },
    ]);
    await repo.markSubmitting(db, "app-missing", []);
  });
});
