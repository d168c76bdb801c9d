import { Cron } from "croner";
import { isPg, tx, type Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/log";
import { claimTick, tickOf } from "./cluster";
import { MIN_STALE_MS, type Beating } from "./liveness";
import { enqueueTask, hasPendingTask } from "./tasks";

export interface Schedule {
  name: string;
  /** Cron pattern (croner syntax, e.g. "*\/5 * * * *"). */
  pattern: string;
  /** The task kind to enqueue; at most one is pending at a time. */
  kind: string;
}

export interface SchedulerDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  wake: () => void;
  /** This node, among the nodes sharing one PostgreSQL database (recorded with the ticks it ran). */
  nodeId?: string;
}

/**
 * One tick of a schedule: adds its task unless one is already waiting or running, the look and the insert in
 * one transaction so a tick adds at most one. On PostgreSQL, where several nodes fire the same tick, only
 * the node that records the tick first in cluster_claims goes on to add it.
 * Returns whether it added the task.
 */
export async function runTick(deps: SchedulerDeps, schedule: Schedule, tickTs: number): Promise<boolean> {
  // The claim commits on its own (one statement; the nodes that lose it wait for the winner's row and find it
  // there), so only one node goes on to the transaction below. A node that dies in between loses that tick.
  if (isPg(deps.db) && !(await claimTick(deps.db, `schedule:${schedule.name}`, tickTs, deps.nodeId ?? "node"))) return false;
  const added = await tx(deps.db, async (db) => {
    if (await hasPendingTask(db, schedule.kind)) return false;
    await enqueueTask(db, schedule.kind, {}, deps.clock.now(), { maxAttempts: 1 });
    return true;
  });
  if (added) deps.wake();
  return added;
}

/**
 * Cron only enqueues: each tick adds the schedule's task unless one is already
 * waiting, and the worker does the work with the queue's durability and
 * retries. `protect` keeps a slow tick from overlapping the next. On
 * PostgreSQL each tick runs on one node of the cluster (runTick).
 * Each schedule is also a heartbeat for /readyz: it is stuck when its next run
 * after the last tick is well past (a tick that never ends makes `protect`
 * skip every later one).
 */
export function startScheduler(deps: SchedulerDeps, schedules: Schedule[]): { stop(): void; heartbeats: Beating[] } {
  const started = schedules.map((s) => {
    const last = { at: performance.now(), wallTs: Date.now() };
    const cron = new Cron(
      s.pattern,
      { name: s.name, protect: true, catch: (err) => deps.log.error("schedule failed", { schedule: s.name, err: err as Error }) },
      async () => {
        try {
          await runTick(deps, s, tickOf(s.pattern, Date.now()));
        } finally {
          Object.assign(last, { at: performance.now(), wallTs: Date.now() });
        }
      },
    );
    const heartbeat: Beating = {
      name: `schedule:${s.name}`,
      heartbeat: () => {
        const dueTs = cron.nextRun(new Date(last.wallTs))?.getTime() ?? last.wallTs;
        return { running: !cron.isStopped(), lastTickAt: last.at, staleAfterMs: dueTs - last.wallTs + MIN_STALE_MS };
      },
    };
    return { cron, heartbeat };
  });
  return {
    stop: () => {
      for (const { cron } of started) cron.stop();
    },
    heartbeats: started.map((s) => s.heartbeat),
  };
}
