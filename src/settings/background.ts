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
    doc: "Most jobs the tracker re-reads per run (least recently checked first).",
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
    doc: "Worker threads that run the local scorer and writer (used without a model), so scoring a large batch never holds up HTTP requests. Unset: the number of cores minus one, between 1 and 4; `0` runs them on the server's own thread.",
  },
  workerConcurrency: {
    env: "JOBPILOT_WORKER_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 256 }),
    default: 8,
    doc: "Background tasks (scoring, engagement sync, tracking) run at once.",
  },
  taskLeaseMs: {
    env: "JOBPILOT_TASK_LEASE_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 5000, maximum: 24 * 60 * 60_000 }),
    // Short so failover beats the spec's polling guidance (applications settle in 30–90 s; clients give up
    // after 5 minutes): a dead node's tasks come back lease + a quarter of it after its last renewal at most.
    default: 15_000,
    doc: "How long a claimed background task is its node's (PostgreSQL). A running node renews the leases of the tasks in hand every third of it for as long as they run (a submission waiting minutes for a person's review keeps its lease); when a node dies, its tasks go back to the queue once their lease runs out and another node takes them up. The default of 15 s brings a dead node's in-flight applications back within about 20 s, inside the 30–90 s an application takes to settle; a longer lease only delays that. Nodes' clocks must agree to well within it (NTP). On SQLite a restart requeues them at once.",
  },
} as const satisfies Record<string, Setting>;
