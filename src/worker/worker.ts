import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/log";
import { PoolLoop } from "./loop";
import { claimTasks, completeTask, countTasks, deferTask, failTask, renewLeases, requeueAllRunning, requeueExpired, retryDelayMs, type TaskRow } from "./tasks";

/** The lease of a claimed task when the caller names none (JOBPILOT_TASK_LEASE_MS's default). */
export const DEFAULT_TASK_LEASE_MS = 5 * 60_000;

export interface TaskContext {
  taskId: number;
  attempt: number;
  /** True on the task's last allowed attempt: a handler may choose a fallback instead of failing for good. */
  isLastAttempt: boolean;
}

export type TaskHandler = (payload: any, ctx: TaskContext) => unknown | Promise<unknown>;

export interface WorkerOptions {
  /** Its loop's name (logs, /readyz); default "tasks". */
  name?: string;
  handlers: Record<string, TaskHandler>;
  concurrency: number;
  /**
   * How long a claimed task is this worker's (JOBPILOT_TASK_LEASE_MS). The worker renews the leases of the
   * tasks in hand every third of it, and requeues other workers' expired leases (a node that died) at least
   * every quarter of it, so their tasks run again, reconciled like after a restart.
   */
  leaseMs?: number;
  /** How often the queue is looked at when nothing wakes the worker (other processes, e.g. `jobpilot ingest`, can enqueue). */
  pollMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** At most `limit` tasks with the same key run at once (e.g. per account); extra ones wait their turn. */
  perKey?: { key: (payload: any) => string; limit: number };
}

/**
 * Runs queued tasks with bounded concurrency. Enqueuers call notify() after
 * their transaction commits, so new work starts at once instead of at the next
 * poll. stop() stops claiming and waits for the tasks in hand.
 */
export class TaskWorker extends PoolLoop {
  private readonly runningByKey = new Map<string, number>();
  private lastExpiryCheck = 0;
  private lastRenewal = 0;
  /** The ids of the tasks in hand, whose leases this worker keeps renewing. */
  private readonly inHand = new Set<number>();
  private starting: Promise<void> | null = null;

  constructor(
    private readonly deps: { db: Db; clock: Clock; log: Logger },
    private readonly opts: WorkerOptions,
  ) {
    super(opts.name ?? "tasks", opts.pollMs ?? 1000, deps.log);
  }

  /** Requeues what a previous process left running, then starts claiming (stop() waits for both). */
  override start(): void {
    this.starting ??= requeueAllRunning(this.deps.db, this.deps.clock.now()).then(
      (requeued) => {
        if (requeued > 0) this.deps.log.warn("requeued tasks left running by a previous process", { count: requeued });
        super.start();
      },
      (err) => this.deps.log.error("task worker could not start", { err: err as Error }),
    );
  }

  override async stop(): Promise<void> {
    await this.starting;
    this.starting = null;
    await super.stop();
  }

  /** Resolves when nothing is queued or running (tests and benchmarks). */
  drain(timeoutMs = 10_000): Promise<void> {
    return this.waitIdle(
      async () => {
        const counts = await countTasks(this.deps.db);
        return !counts.queued && !counts.running;
      },
      timeoutMs,
      "tasks",
    );
  }

  protected async round(): Promise<void> {
    const now = this.deps.clock.now();
    const leaseMs = this.opts.leaseMs ?? DEFAULT_TASK_LEASE_MS;
    if (now - this.lastExpiryCheck > Math.min(30_000, leaseMs / 4)) {
      this.lastExpiryCheck = now;
      const requeued = await requeueExpired(this.deps.db, now);
      if (requeued > 0) this.deps.log.warn("requeued tasks whose lease ran out (their worker stopped)", { count: requeued });
    }
    if (this.inHand.size > 0 && now - this.lastRenewal > leaseMs / 3) {
      this.lastRenewal = now;
      await renewLeases(this.deps.db, [...this.inHand], now + leaseMs, now);
    }
    const free = this.opts.concurrency - this.inFlight.size;
    const claimed = await claimTasks(this.deps.db, Object.keys(this.opts.handlers), free, now, leaseMs);
    let deferred = false;
    for (const task of claimed) {
      const key = this.opts.perKey?.key(task.payload);
      if (key !== undefined) {
        const n = this.runningByKey.get(key) ?? 0;
        if (n >= this.opts.perKey!.limit) {
          await deferTask(this.deps.db, task.id, now + 25, now);
          deferred = true;
          continue;
        }
        this.runningByKey.set(key, n + 1);
      }
      if (this.inHand.size === 0) this.lastRenewal = now;
      this.inHand.add(task.id);
      this.track(this.run(task), () => {
        this.inHand.delete(task.id);
        if (key === undefined) return;
        const left = (this.runningByKey.get(key) ?? 1) - 1;
        if (left > 0) this.runningByKey.set(key, left);
        else this.runningByKey.delete(key);
      });
    }
    // Deferred tasks are due again in 25 ms; make sure the loop looks before its idle interval.
    if (deferred) setTimeout(() => this.loop.notify(), 30);
  }

  private async run(task: TaskRow): Promise<void> {
    const handler = this.opts.handlers[task.kind]!;
    const started = performance.now();
    try {
      await handler(task.payload, { taskId: task.id, attempt: task.attempts, isLastAttempt: task.attempts >= task.maxAttempts });
      await completeTask(this.deps.db, task.id);
      this.deps.log.debug("task done", { task: task.id, kind: task.kind, ms: Math.round(performance.now() - started) });
    } catch (err) {
      const now = this.deps.clock.now();
      const delay = retryDelayMs(task.attempts, this.opts.retryBaseMs ?? 5_000, this.opts.retryMaxMs ?? 10 * 60_000);
      const outcome = await failTask(this.deps.db, task, (err as Error)?.message ?? String(err), now, now + delay);
      this.deps.log[outcome === "failed" ? "error" : "warn"]("task failed", {
        task: task.id,
        kind: task.kind,
        attempt: task.attempts,
        outcome,
        err: err as Error,
      });
    }
  }
}
