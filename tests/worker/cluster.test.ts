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
import { claimTasks, completeTask, enqueueTask, requeueExpired, type TaskRow } from "../../src/worker/tasks";
import { DEFAULT_TASK_LEASE_MS, TaskWorker } from "../../src/worker/worker";
import { THREAD_SETTINGS } from "../../src/settings/background";
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

  /** A node's worker; `leaseMs: null` gives it none, so it runs on the default as `serve` does without the setting. */
  function startWorker(handler: (attempt: number) => unknown, leaseMs: number | null = LEASE, log = memoryLogger()): TaskWorker {
    const worker = new TaskWorker(
      { db, clock, log },
      { concurrency: 2, leaseMs: leaseMs ?? undefined, pollMs: 5, handlers: { k: (_p, ctx) => handler(ctx.attempt) } },
    );
    workers.push(worker);
    worker.start();
    return worker;
  }

  /**
   * `nodes` workers and one task whose handler runs until release(), as a submission waiting minutes for a
   * person's review does; resolves once it started. `runs` are its attempts, `runner` the node running it.
   */
  async function startHeldTask(nodes: number, leaseMs: number | null = LEASE, log = memoryLogger()) {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = { id: 0, runs: [] as number[], runner: -1, workers: [] as TaskWorker[], release };
    for (let node = 0; node < nodes; node++)
      held.workers.push(
        startWorker(
          async (attempt) => {
            held.runs.push(attempt);
            held.runner = node;
            await gate;
          },
          leaseMs,
          log,
        ),
      );
    await Bun.sleep(30);
    held.id = await enqueueTask(db, "k", {}, clock.now());
    await until(() => held.runs.length === 1, "the task to start");
    return held;
  }

  /** After release(): the held task is done, and it ran once. */
  async function doneAfterOneRun(held: { id: number; runs: number[] }): Promise<void> {
    await until(async () => (await row(held.id)) === undefined, "the task to be done");
    expect(held.runs).toEqual([1]);
  }

  /** Moves the clock `stepMs` at a time, with a few real milliseconds per step for the loops and heartbeats, until `done`; the time moved. */
  async function runClock(stepMs: number, maxMs: number, done: () => boolean | Promise<boolean> = () => false): Promise<number> {
    let elapsed = 0;
    while (!(await done()) && elapsed < maxMs) {
      clock.advance(stepMs);
      elapsed += stepMs;
      await Bun.sleep(15);
    }
    return elapsed;
  }

  /** The dead node: claimed a task under `leaseMs` and then nothing more (a SIGKILL right after a renewal). */
  const claimAndDie = (leaseMs: number): Promise<number> =>
    tx(db, async (d) => {
      const taskId = await enqueueTask(d, "k", {}, clock.now());
      await claimTasks(d, ["k"], 1, clock.now(), leaseMs);
      return taskId;
    });

  test("a task claimed by a node that died runs again on another once its lease is over, as its next attempt", async () => {
    const attempts: number[] = [];
    startWorker((attempt) => void attempts.push(attempt));
    await Bun.sleep(30); // the live node has started (and requeued what a previous process of its own left)
    const id = await claimAndDie(LEASE);
    clock.advance(LEASE / 2);
    await Bun.sleep(60);
    expect(attempts).toEqual([]);
    expect((await row(id))?.status).toBe("running");
    clock.advance(LEASE / 2 + 1);
    await until(() => attempts.length > 0, "the reclaimed task");
    expect(attempts).toEqual([2]);
    await until(async () => (await row(id)) === undefined, "the task to be done");
  });

  test("with the default lease a dead node's task runs again on another within 30 s (applications settle in 30–90 s)", async () => {
    expect(DEFAULT_TASK_LEASE_MS).toBe(THREAD_SETTINGS.taskLeaseMs.default); // what `serve` runs with, unset
    const attempts: number[] = [];
    startWorker((attempt) => void attempts.push(attempt), null);
    await Bun.sleep(30);
    const id = await claimAndDie(DEFAULT_TASK_LEASE_MS);
    const resumedAfterMs = await runClock(1_000, 10 * 60_000, () => attempts.length > 0);
    expect(attempts).toEqual([2]);
    expect(resumedAfterMs, `resumed ${resumedAfterMs} ms after the node died`).toBeLessThanOrEqual(30_000);
    await until(async () => (await row(id)) === undefined, "the task to be done");
  });

  test("a node renews the leases of the tasks in hand, so a long task is never taken by another node", async () => {
    // Two nodes: whichever claims the task keeps it; the other requeues expired leases every round.
    const held = await startHeldTask(2);
    try {
      for (let i = 0; i < 4; i++) {
        clock.advance(LEASE * 0.4);
        await Bun.sleep(60);
      }
      expect(held.runs).toEqual([1]);
      expect((await row(held.id))?.leaseUntilTs).toBeGreaterThan(clock.now());
    } finally {
      held.release();
    }
    await doneAfterOneRun(held);
  });

  test("with the default lease a task that runs for minutes keeps it while its node lives", async () => {
    const held = await startHeldTask(2, null);
    try {
      // Five minutes in 2.5 s steps: the 15 s lease would run out twenty times over without the heartbeat.
      let shortestLeftMs = Number.POSITIVE_INFINITY;
      await runClock(2_500, 5 * 60_000, async () => {
        shortestLeftMs = Math.min(shortestLeftMs, (await row(held.id))!.leaseUntilTs! - clock.now());
        return false;
      });
      expect(held.runs).toEqual([1]);
      expect(shortestLeftMs).toBeGreaterThan(0);
    } finally {
      held.release();
    }
    await doneAfterOneRun(held);
  });

  test("while stop() waits for a long task the heartbeat goes on, so no other node takes the task mid-run", async () => {
    const held = await startHeldTask(2);
    // The node running it is told to stop (SIGTERM): it claims nothing more and waits for the task in hand.
    const stopped = held.workers[held.runner]!.stop();
    try {
      await runClock(LEASE * 0.3, LEASE * 3);
      expect(held.runs).toEqual([1]);
      expect((await row(held.id))?.leaseUntilTs).toBeGreaterThan(clock.now());
    } finally {
      held.release();
    }
    await stopped;
    await doneAfterOneRun(held);
  });

  test("a node that lost a task's lease to another node stops renewing it, and its late end leaves the new claim alone", async () => {
    const log = memoryLogger();
    const held = await startHeldTask(1, LEASE, log);
    const logged = (msg: string) => () => log.records().some((r) => r.msg === msg);
    // This node stalled past its lease: another node, whose clock is past it, requeued the task and claimed it.
    const later = clock.now() + LEASE + 1;
    const [taken] = await tx(db, async (d) => {
      await requeueExpired(d, later);
      return claimTasks(d, ["k"], 1, later, LEASE);
    });
    expect(taken?.attempts).toBe(2);
    clock.advance(LEASE / 2); // the stalled node's next renewal is due
    await until(logged("lost the lease of a task still running here; another node has claimed it"), "the lost lease to be noticed");
    held.release();
    await until(logged("task done after another node claimed it; its row is that node's"), "the late end");
    // The row is the other node's claim, untouched: not deleted, not renewed by this node.
    expect(await row(held.id)).toMatchObject({ status: "running", attempts: 2, leaseUntilTs: later + LEASE });
    expect(held.runs).toEqual([1]);
  });

  test("a task requeued while its node still runs it is carried on by that run, not started twice there", async () => {
    const held = await startHeldTask(1);
    // Its lease ran out unrenewed (the node stalled) and it went back to the queue; nobody else claimed it.
    await requeueExpired(db, clock.now() + LEASE + 1);
    clock.advance(LEASE / 2);
    await Bun.sleep(60);
    expect(held.runs).toEqual([1]);
    expect((await row(held.id))?.status).toBe("running");
    held.release();
    await doneAfterOneRun(held);
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
        for (const task of await many(a.db, a.db.select().from(tables(a.db).tasks))) await completeTask(a.db, task);
        if (await runTick(nodes[i % 2]!, s, tickTs)) added[s.kind]!++;
      }
    }
    expect(added).toEqual({ sync: ticks, track: ticks });
  });
});
