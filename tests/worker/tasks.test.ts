import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { tx, type Db } from "../../src/db/client";
import { one, tables } from "../../src/db/query";
import { openTestDb, type TestDb } from "../helpers/db";
import { PG_BACKEND } from "../helpers/postgres";
import { ManualClock } from "../../src/lib/clock";
import {
  claimTasks,
  completeTask,
  countTasks,
  deferTask,
  enqueueTask,
  failTask,
  hasPendingTask,
  renewLeases,
  requeueAllRunning,
  requeueExpired,
  retryDelayMs,
  type TaskRow,
} from "../../src/worker/tasks";

// The queue's state transitions against the real migrated schema; time only moves when the test moves it.

let t: TestDb;
let db: Db;
let clock: ManualClock;
beforeEach(async () => {
  t = await openTestDb();
  db = t.db;
  clock = new ManualClock();
});
afterEach(() => t.close());

const row = (id: number): Promise<TaskRow | undefined> =>
  one(
    db,
    db
      .select()
      .from(tables(db).tasks)
      .where(eq(tables(db).tasks.id, id)),
  );
const LEASE = 60_000;

describe("enqueueTask", () => {
  test("adds a queued task due now with five attempts, unless told otherwise", async () => {
    const now = clock.now();
    const id = await enqueueTask(db, "score", { feedId: "f1", nested: { n: 1 } }, now);
    expect(await row(id)).toEqual({
      id,
      kind: "score",
      payload: { feedId: "f1", nested: { n: 1 } },
      status: "queued",
      runAtTs: now,
      attempts: 0,
      maxAttempts: 5,
      leaseUntilTs: null,
      lastError: null,
      createdAtTs: now,
      updatedAtTs: now,
    });
    const later = await enqueueTask(db, "sync", {}, now, { runAtTs: now + 5_000, maxAttempts: 1 });
    expect(await row(later)).toMatchObject({ runAtTs: now + 5_000, maxAttempts: 1, createdAtTs: now });
    expect(later).toBeGreaterThan(id);
  });

  test("inside a transaction that rolls back, no task is left", async () => {
    const work = tx(db, async (t) => {
      await enqueueTask(t, "score", {}, clock.now());
      throw new Error("the work that needed the task failed");
    });
    await expect(work).rejects.toThrow("the work that needed the task failed");
    expect(await countTasks(db)).toEqual({});
  });
});

describe("claimTasks", () => {
  test("claims due tasks of the given kinds, oldest due first, up to the limit", async () => {
    const now = clock.now();
    const late = await enqueueTask(db, "a", {}, now, { runAtTs: now - 1_000 });
    const early = await enqueueTask(db, "a", {}, now, { runAtTs: now - 5_000 });
    const sameTimeFirst = await enqueueTask(db, "b", {}, now, { runAtTs: now - 1_000 });
    await enqueueTask(db, "a", {}, now, { runAtTs: now + 1 }); // not due yet
    await enqueueTask(db, "other", {}, now, { runAtTs: now - 9_000 }); // a kind nobody asked for

    const claimed = await claimTasks(db, ["a", "b"], 2, now, LEASE);
    expect(claimed.map((t) => t.id)).toEqual([early, late]);
    expect((await claimTasks(db, ["a", "b"], 10, now, LEASE)).map((t) => t.id)).toEqual([sameTimeFirst]);
    expect(await claimTasks(db, ["a", "b"], 10, now, LEASE)).toEqual([]);
  });

  test("a claimed task is running under a lease, with the attempt counted, and is not claimed twice", async () => {
    const now = clock.now();
    const id = await enqueueTask(db, "a", {}, now);
    clock.advance(250);
    const [task] = await claimTasks(db, ["a"], 5, clock.now(), LEASE);
    expect(task).toMatchObject({ id, status: "running", attempts: 1, leaseUntilTs: clock.now() + LEASE, updatedAtTs: clock.now() });
    expect(await row(id)).toEqual(task);
    expect(await claimTasks(db, ["a"], 5, clock.now() + 2 * LEASE, LEASE)).toEqual([]);
  });

  test("no limit or no kinds claims nothing", async () => {
    await enqueueTask(db, "a", {}, clock.now());
    expect(await claimTasks(db, ["a"], 0, clock.now(), LEASE)).toEqual([]);
    expect(await claimTasks(db, [], 5, clock.now(), LEASE)).toEqual([]);
    expect(await countTasks(db)).toEqual({ queued: 1 });
  });
});

describe("completeTask and failTask", () => {
  test("a done task leaves no row", async () => {
    const id = await enqueueTask(db, "a", {}, clock.now());
    const [task] = await claimTasks(db, ["a"], 1, clock.now(), LEASE);
    expect(await completeTask(db, task!)).toBe(true);
    expect(await row(id)).toBeUndefined();
    expect(await countTasks(db)).toEqual({});
  });

  test("a failed attempt with attempts left is queued again at the retry time, its error kept", async () => {
    const id = await enqueueTask(db, "a", {}, clock.now(), { maxAttempts: 2 });
    const [task] = await claimTasks(db, ["a"], 1, clock.now(), LEASE);
    clock.advance(100);
    expect(await failTask(db, task!, "upstream said 503", clock.now(), clock.now() + 5_000)).toBe("retry");
    expect(await row(id)).toMatchObject({
      status: "queued",
      runAtTs: clock.now() + 5_000,
      leaseUntilTs: null,
      attempts: 1,
      lastError: "upstream said 503",
      updatedAtTs: clock.now(),
    });
    expect(await claimTasks(db, ["a"], 1, clock.now() + 4_999, LEASE)).toEqual([]);
    expect((await claimTasks(db, ["a"], 1, clock.now() + 5_000, LEASE)).map((t) => t.attempts)).toEqual([2]);
  });

  test("the last attempt failing marks the task failed for good and keeps it for inspection", async () => {
    const now = clock.now();
    const id = await enqueueTask(db, "a", {}, now, { maxAttempts: 1 });
    const [task] = await claimTasks(db, ["a"], 1, now, LEASE);
    expect(await failTask(db, task!, "x".repeat(5_000), now, now + 5_000)).toBe("failed");
    const failed = (await row(id))!;
    expect(failed).toMatchObject({ status: "failed", runAtTs: now, leaseUntilTs: null, attempts: 1 });
    expect(failed.lastError).toHaveLength(2_000);
    expect(await claimTasks(db, ["a"], 1, now + 10 * LEASE, LEASE)).toEqual([]);
    expect(await countTasks(db)).toEqual({ failed: 1 });
  });
});

describe("stale tasks", () => {
  test("requeueExpired puts back only running tasks whose lease is over, attempts still counted", async () => {
    const now = clock.now();
    const expired = await enqueueTask(db, "a", {}, now);
    await claimTasks(db, ["a"], 1, now, LEASE);
    const fresh = await enqueueTask(db, "a", {}, now);
    await claimTasks(db, ["a"], 1, now + 1_000, LEASE);
    const queued = await enqueueTask(db, "a", {}, now, { runAtTs: now + 10 * LEASE });

    expect(await requeueExpired(db, now + LEASE - 1)).toBe(0);
    expect(await requeueExpired(db, now + LEASE)).toBe(1);
    expect(await row(expired)).toMatchObject({ status: "queued", leaseUntilTs: null, attempts: 1, updatedAtTs: now + LEASE });
    expect(await row(fresh)).toMatchObject({ status: "running", leaseUntilTs: now + 1_000 + LEASE });
    expect(await row(queued)).toMatchObject({ status: "queued", updatedAtTs: now });
  });

  test("requeueAllRunning (at start) puts back every running task on SQLite, whatever its lease; on PostgreSQL none (other nodes own them)", async () => {
    const now = clock.now();
    const ids = [await enqueueTask(db, "a", {}, now), await enqueueTask(db, "b", {}, now)];
    await enqueueTask(db, "c", {}, now);
    await claimTasks(db, ["a", "b"], 2, now, LEASE);
    if (PG_BACKEND) {
      // Several nodes share the queue: a starting node must not take another's running work; leases decide.
      expect(await requeueAllRunning(db, now + 1)).toBe(0);
      expect(await countTasks(db)).toEqual({ queued: 1, running: 2 });
      return;
    }
    expect(await requeueAllRunning(db, now + 1)).toBe(2);
    for (const id of ids) expect(await row(id)).toMatchObject({ status: "queued", leaseUntilTs: null, attempts: 1 });
    expect(await countTasks(db)).toEqual({ queued: 3 });
    expect(await requeueAllRunning(db, now + 2)).toBe(0);
  });
});

describe("claims fence a node that lost its lease", () => {
  test("once another node claimed the task again, the old claim completes, fails and renews nothing", async () => {
    const now = clock.now();
    const id = await enqueueTask(db, "a", {}, now);
    const [stale] = await claimTasks(db, ["a"], 1, now, LEASE);
    expect(await requeueExpired(db, now + LEASE)).toBe(1);
    const [fresh] = await claimTasks(db, ["a"], 1, now + LEASE, LEASE);
    expect(fresh!.attempts).toBe(2);

    expect(await renewLeases(db, [stale!], now + 5 * LEASE, now + LEASE + 1)).toEqual([]);
    expect(await completeTask(db, stale!)).toBe(false);
    expect(await failTask(db, stale!, "late", now + LEASE + 2, now + LEASE + 3)).toBe("lost");
    expect(await row(id)).toMatchObject({ status: "running", attempts: 2, leaseUntilTs: now + 2 * LEASE, lastError: null });

    expect(await renewLeases(db, [fresh!], now + 3 * LEASE, now + LEASE + 1)).toEqual([id]);
    expect(await row(id)).toMatchObject({ status: "running", leaseUntilTs: now + 3 * LEASE });
    expect(await completeTask(db, fresh!)).toBe(true);
    expect(await row(id)).toBeUndefined();
  });

  test("a claim requeued when its lease ran out, and not claimed since, is taken back by its renewal", async () => {
    const now = clock.now();
    const id = await enqueueTask(db, "a", {}, now);
    const [task] = await claimTasks(db, ["a"], 1, now, LEASE);
    await requeueExpired(db, now + LEASE);
    expect(await renewLeases(db, [task!], now + 2 * LEASE, now + LEASE)).toEqual([id]);
    expect(await row(id)).toMatchObject({ status: "running", attempts: 1, leaseUntilTs: now + 2 * LEASE });
    // Held again, so no other node claims it.
    expect(await claimTasks(db, ["a"], 5, now + LEASE, LEASE)).toEqual([]);
  });

  test("renewal leaves failed and done tasks alone", async () => {
    const now = clock.now();
    const id = await enqueueTask(db, "a", {}, now, { maxAttempts: 1 });
    const [task] = await claimTasks(db, ["a"], 1, now, LEASE);
    expect(await failTask(db, task!, "boom", now, now)).toBe("failed");
    expect(await renewLeases(db, [task!], now + LEASE, now)).toEqual([]);
    expect(await row(id)).toMatchObject({ status: "failed", leaseUntilTs: null });
    expect(await renewLeases(db, [], now + LEASE, now)).toEqual([]);
  });
});

describe("deferTask, hasPendingTask, countTasks", () => {
  test("a deferred task waits until its new time and the claim does not count as an attempt", async () => {
    const now = clock.now();
    const id = await enqueueTask(db, "a", {}, now);
    await claimTasks(db, ["a"], 1, now, LEASE);
    await deferTask(db, id, now + 25, now);
    expect(await row(id)).toMatchObject({ status: "queued", runAtTs: now + 25, leaseUntilTs: null, attempts: 0 });
    expect(await claimTasks(db, ["a"], 1, now + 24, LEASE)).toEqual([]);
    expect((await claimTasks(db, ["a"], 1, now + 25, LEASE)).map((t) => t.attempts)).toEqual([1]);
  });

  test("a task of the kind is pending while queued or running, not once failed or done", async () => {
    const now = clock.now();
    expect(await hasPendingTask(db, "sync")).toBe(false);
    const id = await enqueueTask(db, "sync", {}, now, { runAtTs: now + 60_000, maxAttempts: 1 });
    expect(await hasPendingTask(db, "sync")).toBe(true);
    expect(await hasPendingTask(db, "track")).toBe(false);
    const [task] = await claimTasks(db, ["sync"], 1, now + 60_000, LEASE);
    expect(await hasPendingTask(db, "sync")).toBe(true);
    await failTask(db, task!, "boom", now, now);
    expect(await hasPendingTask(db, "sync")).toBe(false);
    await enqueueTask(db, "sync", {}, now);
    const [next] = await claimTasks(db, ["sync"], 1, now, LEASE);
    await completeTask(db, next!);
    expect(await hasPendingTask(db, "sync")).toBe(false);
    expect((await row(id))?.status).toBe("failed");
  });

  test("countTasks counts by status", async () => {
    const now = clock.now();
    for (let i = 0; i < 3; i++) await enqueueTask(db, "a", {}, now);
    await enqueueTask(db, "b", {}, now, { maxAttempts: 1 });
    const [b] = await claimTasks(db, ["b"], 1, now, LEASE);
    await failTask(db, b!, "boom", now, now);
    await claimTasks(db, ["a"], 1, now, LEASE);
    expect(await countTasks(db)).toEqual({ queued: 2, running: 1, failed: 1 });
  });
});

test("retryDelayMs doubles from the base per failed attempt, up to the cap", () => {
  expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(n, 1_000, 10_000))).toEqual([1_000, 1_000, 2_000, 4_000, 8_000, 10_000]);
  expect(retryDelayMs(100, 1_000, 10_000)).toBe(10_000);
});
