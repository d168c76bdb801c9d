/**
 * Background work: the proposal-activity tracker, the threads of the local scorer and writer, and the task workers.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import type { Setting } from "./setting";

/** The proposal-activity tracker: when it runs, how much it re-reads, how long it watches a job. */
export const TRACKER_SETTINGS = {
  trackerCron: {
    env: "JOBPILOT_TRACKER_CRON",
    flag: undefined,
    schema: T.String({ minLength: 9 }),
    default: "*/10 * * * *",
    doc: "When the proposal-activity tracker re-reads the jobs it watches (cron pattern).",
  },
  trackerBudget: {
    env: "JOBPILOT_TRACKER_BUDGET",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 100_000 }),
    default: 200,
    doc: "Most jobs the tracker re-reads per run.",
  },
  trackerMaxAgeDays: {
    env: "JOBPILOT_TRACKER_MAX_AGE_DAYS",
    flag: undefined,
    schema: T.Number({ minimum: 0.01, maximum: 365 }),
    default: 14,
    doc: "The tracker stops watching a job this many days after it was published.",
  },
} as const satisfies Record<string, Setting>;

/** How much runs at once off the HTTP thread. */
export const THREAD_SETTINGS = {
  localAiThreads: {
    env: "JOBPILOT_LOCAL_AI_THREADS",
    flag: undefined,
    schema: T.Optional(T.Integer({ minimum: 0, maximum: 64 })),
    default: undefined,
    doc: "Threads that run the local scorer and writer (used without a model) off the thread that answers HTTP; unset: the number of cores minus one, between 1 and 4; 0 runs them on the server's thread.",
  },
  workerConcurrency: {
    env: "JOBPILOT_WORKER_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 256 }),
    default: 8,
    doc: "Background tasks (scoring, …) run at once.",
  },
  taskLeaseMs: {
    env: "JOBPILOT_TASK_LEASE_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 5000, maximum: 24 * 60 * 60_000 }),
    default: 5 * 60_000,
    doc: "How long a claimed background task is its node's: a running node renews the lease of the tasks in hand; the tasks of a node that died go back to the queue once their lease runs out and another node takes them up (on PostgreSQL; on SQLite a restart requeues them at once).",
  },
} as const satisfies Record<string, Setting>;
