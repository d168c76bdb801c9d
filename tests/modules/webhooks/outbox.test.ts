import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Db } from "../../../src/db/client";
import { tx } from "../../../src/db/client";
import { closePgDatabase, openPgAsDb } from "../../../src/db/client-pg";
import { rawExec, rawMany } from "../../../src/db/query";
import * as outbox from "../../../src/modules/feeds/outbox";
import * as feedsRepo from "../../../src/modules/feeds/repo";
import * as repo from "../../../src/modules/webhooks/repo";
import { openTestDb, type TestDb } from "../../helpers/db";
import { createMigratedPgDatabase, describePg, type TestPgDatabase } from "../../helpers/postgres";

// The outbox and the delivery records against the real migrated schema, on the suite's backend (SQLite, or
// PostgreSQL in the suite's PostgreSQL pass); the cluster-wide claim below on PostgreSQL always when it is there.

const T0 = Date.UTC(2026, 0, 15, 12);
const HOUR = 3_600_000;

async function seedAccount(db: Db, id = "acct-1"): Promise<void> {
  await rawExec(db, "test.account", "INSERT INTO accounts (id, name, kind, created_at_ts) VALUES (?, ?, ?, ?)", [id, "A", "solo", T0]);
}

async function seedFeed(db: Db, id: string, accountId = "acct-1"): Promise<feedsRepo.FeedRow> {
  return feedsRepo.insertFeed(db, {
    id,
    accountId,
    title: `feed ${id}`,
    minScore: 0,
    includes: [],
    excludes: [],
    excludedCountries: [],
    includedCountries: [],
    jobTypes: [],
    webhookUrl: "https://hooks.example/x",
    webhookSecret: "whsec_test",
    createdAtTs: T0,
    updatedAtTs: T0,
  });
}

let n = 0;
async function addEvent(db: Db, feedId: string, at: number, job: string | null = `job-${n}`): Promise<string> {
  const id = `evt_${++n}`;
  await outbox.insertEvent(db, {
    id,
    type: "job.matched",
    accountId: "acct-1",
    feedId,
    target: "webhook",
    feedJobId: null,
    jobCiphertext: job,
    createdAtTs: at,
    status: "pending",
    nextAttemptAtTs: at,
  });
  return id;
}

const delivered = { status: "delivered" as const, nextAttemptAtTs: null };
const attemptAt = (ts: number) => ({ startedAtTs: ts, durationMs: 5, statusCode: 200, error: null });

describe("outbox and delivery records", () => {
  let t: TestDb;
  let db: Db;
  beforeEach(async () => {
    t = await openTestDb();
    db = t.db;
    await seedAccount(db);
    await seedFeed(db, "f1");
    await seedFeed(db, "f2");
  });
  afterEach(() => t.close());

  test("due events oldest first; a pick takes the oldest of each feed that is not busy, and nothing not yet due", async () => {
    await addEvent(db, "f1", T0);
    await addEvent(db, "f2", T0 + 1);
    await addEvent(db, "f1", T0 + 2);
    await addEvent(db, "f2", T0 + 10_000);
    const due = await outbox.dueEvents(db, T0 + 5, 10);
    expect(due.map((d) => d.feedId)).toEqual(["f1", "f2", "f1"]);
    expect(typeof due[0]!.seq).toBe("number");
    const picked = (await outbox.pickDueEvents(db, T0 + 5, 10, 10, new Set())).events;
    expect(picked.map((e) => [e.feedId, e.createdAtTs])).toEqual([
      ["f1", T0],
      ["f2", T0 + 1],
    ]);
    expect((await outbox.pickDueEvents(db, T0 + 5, 10, 10, new Set(["f1"]))).events.map((e) => e.feedId)).toEqual(["f2"]);
    const claimed = await outbox.claimDueEvents(db, T0 + 5, 10, 1, new Set(), 60_000);
    expect(claimed.events.map((e) => e.createdAtTs)).toEqual([T0]);
  });

  test("de-duplication: a job delivered to a feed within the window is seen for that feed only", async () => {
    await addEvent(db, "f1", T0, "job-x");
    const [first] = (await outbox.pickDueEvents(db, T0, 10, 10, new Set())).events;
    await repo.recordAttempt(db, first!, attemptAt(T0), delivered);
    const againId = await addEvent(db, "f1", T0 + HOUR, "job-x");
    const otherFeedId = await addEvent(db, "f2", T0 + HOUR, "job-x");
    const again = (await outbox.findEvent(db, "f1", againId))!;
    const otherFeed = (await outbox.findEvent(db, "f2", otherFeedId))!;
    expect(await outbox.deliveredRecently(db, again, T0 + HOUR - 24 * HOUR)).toBe(true);
    expect(await outbox.deliveredRecently(db, again, T0 + 25 * HOUR - 24 * HOUR)).toBe(false);
    expect(await outbox.deliveredRecently(db, otherFeed, T0 + HOUR - 24 * HOUR)).toBe(false);
    // The event itself never counts as its own earlier delivery.
    expect(await outbox.deliveredRecently(db, (await outbox.findEventBySeq(db, first!.seq))!, T0 - HOUR)).toBe(false);
  });

  test("an attempt and the event's new state are booked together; the history lists them", async () => {
    const id = await addEvent(db, "f1", T0);
    const [e] = (await outbox.pickDueEvents(db, T0, 10, 10, new Set())).events;
    await repo.recordAttempt(
      db,
      e!,
      { startedAtTs: T0, durationMs: 7, statusCode: 500, error: "HTTP 500" },
      { status: "retrying", nextAttemptAtTs: T0 + 30_000 },
    );
    expect(await outbox.dueEvents(db, T0 + 29_999, 10)).toEqual([]);
    const retried = (await outbox.findEvent(db, "f1", id))!;
    expect(retried).toMatchObject({ status: "retrying", attempts: 1, nextAttemptAtTs: T0 + 30_000, lastStatusCode: 500, lastError: "HTTP 500" });
    await repo.recordAttempt(db, retried, attemptAt(T0 + 30_000), delivered);
    const listed = await outbox.listEvents(db, "f1", { limit: 10, offset: 0 });
    expect(listed.total).toBe(1);
    expect(listed.items[0]).toMatchObject({ id, status: "delivered", attempts: 2, deliveredAtTs: T0 + 30_005, nextAttemptAtTs: null });
    expect((await repo.attemptsOf(db, [e!.seq])).map((a) => [a.attempt, a.statusCode, a.startedAtTs])).toEqual([
      [1, 500, T0],
      [2, 200, T0 + 30_000],
    ]);
    expect(await outbox.listEvents(db, "f1", { limit: 10, offset: 0, status: "failed" })).toEqual({ items: [], total: 0 });
  });

  test("endpoint health: a final failure starts the streak, past the limit disables once, a success clears it", async () => {
    expect(await feedsRepo.noteDeliveryOutcome(db, "f1", false, T0, 24 * HOUR, "HTTP 500")).toBe("failing");
    expect(await feedsRepo.noteDeliveryOutcome(db, "f1", false, T0 + HOUR, 24 * HOUR, "HTTP 500")).toBe("failing");
    expect(await feedsRepo.noteDeliveryOutcome(db, "f1", false, T0 + 24 * HOUR, 24 * HOUR, "HTTP 502")).toBe("disabled");
    const disabled = (await feedsRepo.findFeedById(db, "f1"))!;
    expect(disabled.webhookFailingSinceTs).toBe(T0);
    expect(disabled.webhookDisabledAtTs).toBe(T0 + 24 * HOUR);
    expect(disabled.webhookDisabledReason).toContain("last: HTTP 502");
    expect((await feedsRepo.feedsWithWebhookProblems(db, "acct-1")).map((p) => p.feedId)).toEqual(["f1"]);
    expect(await feedsRepo.noteDeliveryOutcome(db, "f2", true, T0, 24 * HOUR, "")).toBe("ok");
    expect(await feedsRepo.noteDeliveryOutcome(db, "nope", false, T0, 24 * HOUR, "x")).toBe("ok");
  });

  test("feed entries: one per job and feed; counts per bucket; best scores", async () => {
    for (const job of ["j1", "j2"])
      await rawExec(
        db,
        "test.job",
        `INSERT INTO jobs (ciphertext, platform, title, url, email_found, source, document, first_seen_at_ts, explored_at_ts, updated_at_ts)
         VALUES (?, 'marketplace', 'A job', 'https://example.com/j', ?, 'test', '{}', ?, ?, ?)`,
        [job, false, T0, T0, T0],
      );
    const entry = (id: string, feedId: string, job: string, score: number, at: number) =>
      feedsRepo.insertFeedEntry(db, {
        id,
        feedId,
        accountId: "acct-1",
        jobCiphertext: job,
        matchingScore: score,
        scoreSource: "default",
        scoreReason: null,
        matchedAtTs: at,
      });
    expect(await entry("e1", "f1", "j1", 3, T0)).toBe(true);
    expect(await entry("e2", "f1", "j1", 9, T0)).toBe(false);
    expect(await entry("e3", "f1", "j2", 7.5, T0 + 2 * HOUR)).toBe(true);
    expect(await entry("e4", "f2", "j1", 8, T0 + HOUR)).toBe(true);
    const counts = await feedsRepo.entryCountsPerFeed(db, "acct-1", T0, HOUR);
    expect(counts.map((c) => [c.feedId, c.bucket, c.count]).sort()).toEqual([
      ["f1", 0, 1],
      ["f1", 2, 1],
      ["f2", 1, 1],
    ]);
    expect(await feedsRepo.entryCountsPerFeed(db, "acct-1", T0 + 10 * HOUR, HOUR)).toEqual(
      expect.arrayContaining([expect.objectContaining({ feedId: "f1", bucket: null, count: 0 })]),
    );
    expect(await feedsRepo.bestScoresOfJobs(db, "acct-1", ["j1", "j2", "j3"])).toEqual(
      new Map([
        ["j1", 8],
        ["j2", 7.5],
      ]),
    );
    expect(await feedsRepo.entryScores(db, ["e1", "e3", "gone"])).toEqual(
      new Map([
        ["e1", 3],
        ["e3", 7.5],
      ]),
    );
    expect(await feedsRepo.findFeedJob(db, "f1", "e3")).toMatchObject({ jobCiphertext: "j2", matchingScore: 7.5, read: false });
    expect(await feedsRepo.countFeeds(db, "acct-1")).toBe(2);
    expect(await feedsRepo.deleteFeed(db, "acct-1", "f1")).toBe(true);
    expect(await feedsRepo.matchesOfJob(db, "acct-1", "j1")).toHaveLength(1);
  });
});

describePg("two nodes sharing one outbox", () => {
  let pg: TestPgDatabase;
  let nodes: Db[];
  beforeAll(async () => {
    pg = await createMigratedPgDatabase();
    nodes = [openPgAsDb(pg.url, { max: 4 }), openPgAsDb(pg.url, { max: 4 })];
  });
  afterAll(async () => {
    for (const db of nodes) await closePgDatabase(db);
    await pg.drop();
  });

  test("each feed's events go out one at a time, in order, each at least once, whichever node sends them", async () => {
    const [a, b] = nodes as [Db, Db];
    await seedAccount(a);
    const feedIds = ["fa", "fb", "fc"];
    for (const id of feedIds) await seedFeed(a, id);
    const expected = new Map<string, string[]>(feedIds.map((f) => [f, []]));
    for (let i = 0; i < 30; i++) for (const f of feedIds) expected.get(f)!.push(await addEvent(i % 2 ? a : b, f, T0 + i));

    const received = new Map<string, string[]>(feedIds.map((f) => [f, []]));
    const inFlight = new Map<string, number>();
    let overlaps = 0;
    const sentBy = [0, 0];
    async function node(db: Db, index: number): Promise<void> {
      const busy = new Set<string>();
      const running = new Set<Promise<void>>();
      const deadline = performance.now() + 20_000;
      while (performance.now() < deadline) {
        const claimed = await outbox.claimDueEvents(db, T0 + 1_000, 64, 4 - running.size, busy, 60_000);
        for (const e of claimed.events) {
          busy.add(e.feedId);
          const work = (async () => {
            if ((inFlight.get(e.feedId) ?? 0) > 0) overlaps++;
            inFlight.set(e.feedId, (inFlight.get(e.feedId) ?? 0) + 1);
            received.get(e.feedId)!.push(e.id);
            sentBy[index]!++;
            await Bun.sleep(Math.random() * 3);
            inFlight.set(e.feedId, inFlight.get(e.feedId)! - 1);
            await repo.recordAttempt(db, e, attemptAt(T0 + 1_000), delivered);
            await outbox.releaseFeeds(db, [e.feedId], claimed.leaseUntilTs!);
          })().finally(() => {
            busy.delete(e.feedId);
            running.delete(work);
          });
          running.add(work);
        }
        if (running.size === 0 && (await outbox.dueEvents(db, T0 + 1_000, 1)).length === 0) return;
        await (running.size > 0 ? Promise.race(running) : Bun.sleep(1));
      }
      throw new Error("the outbox did not drain");
    }
    await Promise.all([node(a, 0), node(b, 1)]);

    expect(overlaps).toBe(0);
    for (const f of feedIds) {
      // At least once and in order: what arrived, with repeats folded, is exactly the feed's events in match order.
      const folded = received.get(f)!.filter((id, i, all) => all.indexOf(id) === i);
      expect(folded).toEqual(expected.get(f)!);
      expect(received.get(f)!.every((id, i, all) => i === 0 || expected.get(f)!.indexOf(id) >= expected.get(f)!.indexOf(all[i - 1]!))).toBe(true);
    }
    expect(sentBy[0]! > 0 && sentBy[1]! > 0).toBe(true);
  }, 30_000);

  test("an event is not sent while a transaction holding an older event of its feed is still open", async () => {
    const [a, b] = nodes as [Db, Db];
    await seedAccount(a, "acct-late");
    await seedFeed(a, "f-late", "acct-late");
    const claim = async () => {
      const claimed = await outbox.claimDueEvents(a, T0 + 1_000, 64, 4, new Set(), 60_000);
      if (claimed.leaseUntilTs !== null) await outbox.releaseFeeds(a, [...new Set(claimed.events.map((e) => e.feedId))], claimed.leaseUntilTs);
      return claimed.events.filter((e) => e.feedId === "f-late").map((e) => e.id);
    };
    // T1 (node a) writes the feed's older event and stays open; T2 (node b) writes a newer one and commits.
    let finishT1!: () => void;
    const t1Open = new Promise<void>((resolve) => {
      finishT1 = resolve;
    });
    let older!: string;
    let t1Wrote!: () => void;
    const t1HasWritten = new Promise<void>((resolve) => {
      t1Wrote = resolve;
    });
    const t1 = tx(a, async (t) => {
      older = await addEvent(t, "f-late", T0);
      t1Wrote();
      await t1Open;
    });
    let newer: string;
    try {
      await t1HasWritten;
      newer = await tx(b, (t) => addEvent(t, "f-late", T0));
      const seqs = await rawMany<{ id: string }>(b, "test.seqs", "SELECT id FROM events WHERE feed_id = ?", ["f-late"]);
      expect(seqs.map((r) => r.id)).toEqual([newer]); // T1's event is not visible yet
      // Only the newer event is visible, but sending it now would put it before the older one: nothing goes out.
      expect(await claim()).toEqual([]);
    } finally {
      finishT1();
      await t1;
    }
    expect(Number((await outbox.findEvent(a, "f-late", older))!.seq)).toBeLessThan(Number((await outbox.findEvent(a, "f-late", newer))!.seq));
    // Once T1 is committed, the older event goes first (after every transaction older than the check has ended:
    // other sessions on the shared test server may hold that back a little).
    let first: string[] = [];
    for (const deadline = performance.now() + 10_000; first.length === 0 && performance.now() < deadline; ) {
      first = await claim();
      if (first.length === 0) await Bun.sleep(20);
    }
    expect(first).toEqual([older]);
  }, 30_000);
});
