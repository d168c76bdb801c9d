import { Cron } from "croner";
import { tx, type Db } from "../db/client";
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
          // The look and the insert in one transaction, so a tick adds at most one.
          const added = await tx(deps.db, async (db) => {
            if (await hasPendingTask(db, s.kind)) return false;
            await enqueueTask(db, s.kind, {}, deps.clock.now(), { maxAttempts: 1 });
            return true;
          });
          if (added) deps.wake();
        },
      ),
  );
  return {
    stop: () => {
      for (const cron of crons) cron.stop();
    },
  };
}
