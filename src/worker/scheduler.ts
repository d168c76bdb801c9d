import { Cron } from "croner";
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/log";
import { enqueueTask, hasPendingTask } from "./tasks";

export interface Schedule {
  name: string;
  /** Cron pattern (croner syntax, e.g. "*\/5 * * * *"). */
  pattern: string;
  /** The task kind to enqueue; at most one is pending at a time. */
  kind: string;
}

/**
 * Cron only enqueues: each tick adds the schedule's task unless one is already
 * waiting, and the worker does the work with the queue's durability and
 * retries. `protect` keeps a slow tick from overlapping the next.
 */
export function startScheduler(deps: { db: Db; clock: Clock; log: Logger; wake: () => void }, schedules: Schedule[]): { stop(): void } {
  const crons = schedules.map(
    (s) =>
      new Cron(
        s.pattern,
        { name: s.name, protect: true, catch: (err) => deps.log.error("schedule failed", { schedule: s.name, err: err as Error }) },
        async () => {
          if (await hasPendingTask(deps.db, s.kind)) return;
          enqueueTask(deps.db, s.kind, {}, deps.clock.now(), { maxAttempts: 1 });
          deps.wake();
        },
      ),
  );
  return {
    stop: () => {
      for (const cron of crons) cron.stop();
    },
  };
}
