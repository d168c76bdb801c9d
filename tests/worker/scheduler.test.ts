import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Cron, scheduledJobs } from "croner";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { tasks } from "../../src/db/schema";
import { ManualClock } from "../../src/lib/clock";
import { memoryLogger } from "../../src/lib/log";
import { startScheduler, type Schedule } from "../../src/worker/scheduler";
import { claimTasks, completeTask, countTasks } from "../../src/worker/tasks";

// Cron only enqueues: a tick adds the schedule's task (one pending at most) and wakes the worker; the work itself
// is the worker's. Ticks are fired by hand through croner's registry of named schedules, except one real tick.

let db: Db;
let clock: ManualClock;
const stops: (() => void)[] = [];
beforeEach(() => {
  db = openDatabase(":memory:");
  migrate(db.$client);
  clock = new ManualClock();
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  closeDatabase(db);
});

let seq = 0;
/** Starts the scheduler with uniquely named schedules (croner refuses a name already taken) that never fire on their own. */
function start(kinds: string[], deps: { db?: Db; log?: ReturnType<typeof memoryLogger> } = {}) {
  const log = deps.log ?? memoryLogger();
  let wakes = 0;
  const schedules: Schedule[] = kinds.map((kind) => ({ name: `test-${kind}-${++seq}`, pattern: "0 0 1 1 *", kind }));
  const scheduler = startScheduler({ db: deps.db ?? db, clock, log, wake: () => void wakes++ }, schedules);
  stops.push(() => scheduler.stop());
  const crons = schedules.map((s) => scheduledJobs.find((c) => c.name === s.name)!);
  return { scheduler, crons, log, wakes: () => wakes };
}

const allTasks = () => db.select().from(tasks).all();

describe("startScheduler", () => {
  test("a real tick enqueues the schedule's task at the clock's time and wakes the worker", async () => {
    let wakes = 0;
    const name = `test-every-second-${++seq}`;
    const scheduler = startScheduler({ db, clock, log: memoryLogger(), wake: () => void wakes++ }, [{ name, pattern: "* * * * * *", kind: "sync" }]);
    stops.push(() => scheduler.stop());
    const started = performance.now();
    while (allTasks().length === 0 && performance.now() - started < 2_500) await Bun.sleep(10);
    expect(allTasks()).toEqual([
      expect.objectContaining({ kind: "sync", payload: {}, status: "queued", runAtTs: clock.now(), maxAttempts: 1, attempts: 0, createdAtTs: clock.now() }),
    ]);
    expect(wakes).toBe(1);
  });

  test("a tick adds nothing while the schedule's task is queued or running, and again once it is done", async () => {
    const { crons, wakes } = start(["sync"]);
    const [cron] = crons as [Cron];
    await cron.trigger();
    await cron.trigger();
    expect(await countTasks(db)).toEqual({ queued: 1 });
    const [task] = await claimTasks(db, ["sync"], 1, clock.now(), 60_000);
    await cron.trigger();
    expect(await countTasks(db)).toEqual({ running: 1 });
    await completeTask(db, task!);
    clock.advance(60_000);
    await cron.trigger();
    expect(allTasks()).toEqual([expect.objectContaining({ kind: "sync", runAtTs: clock.now() })]);
    expect(wakes()).toBe(2);
  });

  test("each schedule enqueues its own kind, the others' pending tasks do not hold it back", async () => {
    const { crons } = start(["sync", "track"]);
    await crons[0]!.trigger();
    await crons[1]!.trigger();
    expect(
      allTasks()
        .map((t) => t.kind)
        .sort(),
    ).toEqual(["sync", "track"]);
  });

  test("ticks are protected from overlapping, and a failing tick is logged rather than thrown", async () => {
    const broken = new Proxy({} as Db, {
      get: () => () => {
        throw new Error("database is closed");
      },
    });
    const { crons, log, wakes } = start(["sync"], { db: broken });
    expect(crons[0]!.options.protect).toBe(true);
    await crons[0]!.trigger();
    expect(log.records()).toEqual([expect.objectContaining({ level: "error", msg: "schedule failed", schedule: crons[0]!.name })]);
    expect(wakes()).toBe(0);
  });

  test("stop() ends every schedule", () => {
    const { scheduler, crons } = start(["sync", "track"]);
    expect(crons.every((c) => c.isRunning())).toBe(true);
    scheduler.stop();
    expect(crons.every((c) => c.isStopped())).toBe(true);
    expect(scheduledJobs.filter((c) => crons.includes(c))).toEqual([]);
  });
});
