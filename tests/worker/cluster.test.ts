import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { tx, type Db } from "../../src/db/client";
import { many, tables } from "../../src/db/query";
import { ManualClock } from "../../src/lib/clock";
import { memoryLogger } from "../../src/lib/log";
import { closePgDatabase, openPgAsDb } from "../../src/db/client-pg";
import { Signal } from "../../src/lib/signal";
import { claimTick, holdLease, leaseGate, listenForWork, nodeWake, tickOf } from "../../src/worker/cluster";
import { Loop } from "../../src/worker/loop";
import { runTick, type Schedule, type SchedulerDeps } from "../../src/worker/scheduler";
import { claimTasks, completeTask, enqueueTask, type TaskRow } from "../../src/worker/tasks";
import { TaskWorker } from "../../src/worker/worker";
import { openTestDb, type TestDb } from "../helpers/db";
import { createMigratedPgDatabase, describePg, type TestPgDatabase } from "../helpers/postgres";

// Several nodes on one database: leases of claimed tasks, schedule ticks and loop leases in cluster_claims, and
// (PostgreSQL) wake-ups by NOTIFY. Time moves only when a test moves it, except for the short waits on the loops.

const LEASE = 10_000;

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 2_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

describe("task leases between nodes", () => {
  let t: TestDb;
  let db: Db;
  let clock: ManualClock;
  const workers: TaskWorker[] = [];
  beforeEach(async () => {
    t = await openTestDb();
    db = t.db;
    clock = new ManualClock();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await t.close();
  });
  /** The task's row, or undefined once it is done. */
  const row = async (id: number): Promise<TaskRow | undefined> => (await many(db, db.select().from(tables(db).tasks))).find((r) => r.id === id);

  function startWorker(handler: (attempt: number) => unknown): TaskWorker {
    const worker = new TaskWorker(
      { db, clock, log: memoryLogger() },
      { concurrency: 2, leaseMs: LEASE, pollMs: 5, handlers: { k: (_p, ctx) => handler(ctx.attempt) } },
    );
    workers.push(worker);
    worker.start();
    return worker;
  }

  test("a task claimed by a node that died runs again on another once its lease is over, as its next attempt", async () => {
    const attempts: number[] = [];
    startWorker((attempt) => void attempts.push(attempt));
    await Bun.sleep(30); // the live node has started (and requeued what a previous process of its own left)
    // The dead node: claimed the task and then nothing more.
    const id = await tx(db, async (d) => {
      const taskId = await enqueueTask(d, "k", {}, clock.now());
      await claimTasks(d, ["k"], 1, clock.now(), LEASE);
      return taskId;
    });
    clock.advance(LEASE / 2);
    await Bun.sleep(60);
    expect(attempts).toEqual([]);
    expect((await row(id))?.status).toBe("running");
    clock.advance(LEASE / 2 + 1);
    await until(() => attempts.length > 0, "the reclaimed task");
    expect(attempts).toEqual([2]);
    await until(async () => (await row(id)) === undefined, "the task to be done");
  });

  test("a node renews the leases of the tasks in hand, so a long task is never taken by another node", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runs: number[] = [];
    // Two nodes: whichever claims the task keeps it; the other requeues expired leases every round.
    for (let node = 0; node < 2; node++)
      startWorker(async (attempt) => {
        runs.push(attempt);
        await gate;
      });
    await Bun.sleep(30);
    const id = await enqueueTask(db, "k", {}, clock.now());
    await until(() => runs.length === 1, "the task to start");
    try {
      for (let i = 0; i < 4; i++) {
        clock.advance(LEASE * 0.4);
        await Bun.sleep(60);
      }
      expect(runs).toEqual([1]);
      expect((await row(id))?.leaseUntilTs).toBeGreaterThan(clock.now());
    } finally {
      release();
    }
    await until(async () => (await row(id)) === undefined, "the task to be done");
    expect(runs).toEqual([1]);
  });
});

describe("cluster claims", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await openTestDb();
  });
  afterEach(() => t.close());

  test("a tick is run by the first node to record it, and never again", async () => {
    expect(await claimTick(t.db, "schedule:sync", 1_000, "a")).toBe(true);
    expect(await claimTick(t.db, "schedule:sync", 1_000, "b")).toBe(false);
    expect(await claimTick(t.db, "schedule:sync", 500, "b")).toBe(false);
    expect(await claimTick(t.db, "schedule:other", 1_000, "b")).toBe(true);
    expect(await claimTick(t.db, "schedule:sync", 2_000, "b")).toBe(true);
    expect(await claimTick(t.db, "schedule:sync", 2_000, "a")).toBe(false);
  });

  test("a lease is its holder's until it runs out or is released; the holder renews it", async () => {
    expect(await holdLease(t.db, "loop:source:x", "a", 0, 1_000)).toBe(true);
    expect(await holdLease(t.db, "loop:source:x", "b", 500, 1_000)).toBe(false);
    expect(await holdLease(t.db, "loop:source:x", "a", 900, 1_000)).toBe(true);
    expect(await holdLease(t.db, "loop:source:x", "b", 1_500, 1_000)).toBe(false);
    expect(await holdLease(t.db, "loop:source:x", "b", 2_000, 1_000)).toBe(true);
    expect(await holdLease(t.db, "loop:source:x", "a", 2_100, 1_000)).toBe(false);
    const clock = new ManualClock(2_200);
    const b = leaseGate({ db: t.db, clock }, "loop:source:x", "b", 1_000);
    const a = leaseGate({ db: t.db, clock }, "loop:source:x", "a", 1_000);
    expect(await b.open()).toBe(true);
    expect(await a.open()).toBe(false);
    await b.release();
    expect(await a.open()).toBe(true);
    expect(await b.open()).toBe(false);
  });

  test("a gated loop runs its rounds only on the node holding the lease", async () => {
    const clock = new ManualClock();
    const rounds = { a: 0, b: 0 };
    const loops = (["a", "b"] as const).map((node) =>
      new Loop({ name: "source:x", intervalMs: 5, log: memoryLogger(), run: () => void rounds[node]++ }).onlyWhen(
        leaseGate({ db: t.db, clock }, "loop:source:x", node, 60_000).open,
      ),
    );
    for (const loop of loops) loop.start();
    await until(() => rounds.a + rounds.b >= 10, "rounds");
    await Promise.all(loops.map((l) => l.stop()));
    expect(Math.min(rounds.a, rounds.b)).toBe(0);
  });

  test("every node names the same tick for a cron firing a little early or late", () => {
    const tick = Date.UTC(2026, 0, 15, 12, 0, 0);
    expect(tickOf("*/5 * * * *", tick - 20)).toBe(tick);
    expect(tickOf("*/5 * * * *", tick + 1_500)).toBe(tick);
    expect(tickOf("* * * * * *", tick + 300)).toBe(tick);
  });
});

/** One node of the cluster: its own pool on the shared database, its wake-up channel and wake(), as createDeps builds them. */
interface Node {
  db: Db;
  clock: ManualClock;
  log: ReturnType<typeof memoryLogger>;
  nodeId: string;
  work: Signal;
  wake(): void;
  sent(): Promise<void>;
}

function openNode(url: string): Node {
  const db = openPgAsDb(url, { max: 4 });
  const log = memoryLogger();
  const work = new Signal();
  const nodeId = crypto.randomUUID();
  return { db, clock: new ManualClock(), log, nodeId, work, ...nodeWake(db, work, nodeId, log) };
}

describePg("several nodes on one PostgreSQL database", () => {
  let pg: TestPgDatabase;
  let a: Node;
  let b: Node;
  beforeEach(async () => {
    pg = await createMigratedPgDatabase();
    a = openNode(pg.url);
    b = openNode(pg.url);
  });
  afterEach(async () => {
    for (const node of [a, b]) {
      await node.sent();
      await closePgDatabase(node.db);
    }
    await pg.drop();
  });

  test("work queued and woken on one node is claimed at once by another (NOTIFY), not at its next poll", async () => {
    const done: number[] = [];
    const worker = new TaskWorker(b, { concurrency: 1, pollMs: 60_000, handlers: { k: (p: { n: number }) => void done.push(p.n) } });
    const unsubscribe = b.work.subscribe(() => worker.notify());
    const listener = await listenForWork(b.db, b.nodeId, () => b.work.notify());
    worker.start();
    try {
      await Bun.sleep(50); // its first round is over: from now on only a wake-up makes it look before a minute
      for (const n of [1, 2]) {
        await enqueueTask(a.db, "k", { n }, a.clock.now());
        a.wake();
        await until(() => done.includes(n), `task ${n} on the other node`);
      }
    } finally {
      await listener.stop();
      unsubscribe();
      await worker.stop();
    }
  });

  test("a burst of wake-ups sends a couple of NOTIFYs, not one each; a node ignores its own", async () => {
    let received = 0;
    let own = 0;
    const listener = await listenForWork(b.db, b.nodeId, () => void received++);
    const ownListener = await listenForWork(a.db, a.nodeId, () => void own++);
    try {
      await Bun.sleep(20);
      received = 0;
      own = 0;
      for (let i = 0; i < 1_000; i++) a.wake();
      await a.sent();
      await until(() => received > 0, "a notification");
      await Bun.sleep(100);
      expect(received).toBeLessThanOrEqual(2);
      expect(own).toBe(0);
    } finally {
      await listener.stop();
      await ownListener.stop();
    }
  });

  test("each schedule's task is enqueued once per tick across the nodes", async () => {
    const schedules: Schedule[] = [
      { name: "engagement-sync", pattern: "* * * * * *", kind: "sync" },
      { name: "proposal-activity-tracker", pattern: "* * * * * *", kind: "track" },
    ];
    const nodes: SchedulerDeps[] = [a, b];
    const added: Record<string, number> = { sync: 0, track: 0 };
    const ticks = 5;
    for (let i = 0; i < ticks; i++) {
      const tickTs = 1_000_000 + i * 1_000;
      for (const s of schedules) {
        // Both nodes fire the tick together, and a late one fires it again after the task is already done.
        const results = await Promise.all(nodes.map((n) => runTick(n, s, tickTs)));
        added[s.kind]! += results.filter(Boolean).length;
        for (const task of await many(a.db, a.db.select().from(tables(a.db).tasks))) await completeTask(a.db, task.id);
        if (await runTick(nodes[i % 2]!, s, tickTs)) added[s.kind]!++;
      }
    }
    expect(added).toEqual({ sync: ticks, track: ticks });
  });
});
