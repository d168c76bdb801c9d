import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/log";
import { PoolLoop } from "./loop";
import { claimTasks, completeTask, countTasks, deferTask, failTask, renewLeases, requeueAllRunning, requeueExpired, retryDelayMs, type TaskRow } from "./tasks";

/**
 * The lease of a claimed task when the caller names none: JOBPILOT_TASK_LEASE_MS's default (settings/ imports
 * db/, which this folder imports, so the setting cannot be read from here; a test keeps the two equal). Short,
 * so a dead node's tasks run again elsewhere within seconds; a live node keeps a long task however long it
 * runs through the heartbeat below.
 */
export const DEFAULT_TASK_LEASE_MS = 15_000;

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
  /**
   * How often the queue is looked at when nothing wakes the worker (other processes, e.g. `jobpilot ingest`,
   * can enqueue), and how often the heartbeat asks whether the leases in hand are due for renewal.
   */
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
  /** The tasks in hand by id, each as this worker's latest claim on it (whose leases the heartbeat renews). */
  private readonly inHand = new Map<number, TaskRow>();
  /** Tasks in hand whose claim another node took over: no longer renewed, still running here until they end. */
  private readonly lost = new Set<number>();
  private lastRenewal = 0;
  private renewing: Promise<void> | null = null;
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;
  private starting: Promise<void> | null = null;

  constructor(
    private readonly deps: { db: Db; clock: Clock; log: Logger },
    private readonly opts: WorkerOptions,
  ) {
    super(opts.name ?? "tasks", opts.pollMs ?? 1000, deps.log);
  }

  private get leaseMs(): number {
    return this.opts.leaseMs ?? DEFAULT_TASK_LEASE_MS;
  }

  /** Requeues what a previous process left running, then starts claiming (stop() waits for both). */
  override start(): void {
    this.starting ??= requeueAllRunning(this.deps.db, this.deps.clock.now()).then(
      (requeued) => {
        if (requeued > 0) this.deps.log.warn("requeued tasks left running by a previous process", { count: requeued });
        super.start();
        // The heartbeat has its own timer, not the loop's rounds: a round waiting out a failure backoff (up to
        // 30 s), or the loop already stopped while stop() waits for the tasks in hand, must not let a lease of
        // a few seconds run out under a task that is still running here.
        const tickMs = Math.max(1, Math.min(this.opts.pollMs ?? 1000, this.leaseMs / 3));
        this.heartbeatTimer ??= setInterval(() => void this.renewDue(), tickMs);
      },
      (err) => this.deps.log.error("task worker could not start", { err: err as Error }),
    );
  }

  /** Stops claiming, waits for the tasks in hand (their leases still renewed meanwhile), then stops the heartbeat. */
  override async stop(): Promise<void> {
    await this.starting;
    this.starting = null;
    await super.stop();
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    await this.renewing;
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

  /** One heartbeat: renews the leases in hand once a third of the lease went by since the last renewal. */
  private renewDue(): void {
    const now = this.deps.clock.now();
    if (this.renewing || this.inHand.size === 0 || now - this.lastRenewal < this.leaseMs / 3) return;
    const previous = this.lastRenewal;
    this.lastRenewal = now;
    const held = [...this.inHand.values()].filter((task) => !this.lost.has(task.id));
    if (held.length === 0) return;
    this.renewing = renewLeases(this.deps.db, held, now + this.leaseMs, now)
      .then(
        (ids) => {
          const renewed = new Set(ids);
          for (const task of held) {
            if (renewed.has(task.id) || this.inHand.get(task.id) !== task) continue;
            // Its lease ran out before this renewal (the node stalled) and another node claimed it since: that
            // node runs it now. Stop renewing; the run here ends without touching the row (see TaskClaim). The
            // submit task bears a second run: it finds the application `submitting` and asks the driver by the
            // application id before sending (the sandbox and the bridge deduplicate by it); the credit settles once.
            this.lost.add(task.id);
            this.deps.log.error("lost the lease of a task still running here; another node has claimed it", { task: task.id, kind: task.kind });
          }
        },
        (err) => {
          // Due again at the next tick: two more tries before the lease runs out.
          this.lastRenewal = previous;
          this.deps.log.warn("could not renew the leases of the tasks in hand", { count: held.length, err: err as Error });
        },
      )
      .finally(() => {
        this.renewing = null;
      });
  }

  protected async round(): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.lastExpiryCheck > Math.min(30_000, this.leaseMs / 4)) {
      this.lastExpiryCheck = now;
      const requeued = await requeueExpired(this.deps.db, now);
      if (requeued > 0) this.deps.log.warn("requeued tasks whose lease ran out (their worker stopped)", { count: requeued });
    }
    const free = this.opts.concurrency - this.inFlight.size;
    const claimed = await claimTasks(this.deps.db, Object.keys(this.opts.handlers), free, now, this.leaseMs);
    let deferred = false;
    for (const task of claimed) {
      if (this.inHand.has(task.id)) {
        // Still running here after its lease ran out (this node stalled) and it was requeued, or lost to a node
        // that died in turn: the fresh claim is the same work, so the run in hand carries it on under the new
        // claim rather than a second run starting beside it.
        this.inHand.set(task.id, task);
        this.lost.delete(task.id);
        continue;
      }
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
      // Just claimed under a full lease: the first renewal is due a third of a lease from now.
      if (this.inHand.size === 0) this.lastRenewal = now;
      this.inHand.set(task.id, task);
      this.track(this.run(task), () => {
        this.inHand.delete(task.id);
        this.lost.delete(task.id);
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
    // The claim the run ends under: the latest one made here (the first, or a fresh claim adopted above).
    const claim = () => this.inHand.get(task.id) ?? task;
    try {
      await handler(task.payload, { taskId: task.id, attempt: task.attempts, isLastAttempt: task.attempts >= task.maxAttempts });
      if (await completeTask(this.deps.db, claim())) {
        this.deps.log.debug("task done", { task: task.id, kind: task.kind, ms: Math.round(performance.now() - started) });
      } else {
        this.deps.log.warn("task done after another node claimed it; its row is that node's", { task: task.id, kind: task.kind });
      }
    } catch (err) {
      const now = this.deps.clock.now();
      const current = claim();
      const delay = retryDelayMs(current.attempts, this.opts.retryBaseMs ?? 5_000, this.opts.retryMaxMs ?? 10 * 60_000);
      const outcome = await failTask(this.deps.db, current, (err as Error)?.message ?? String(err), now, now + delay);
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
