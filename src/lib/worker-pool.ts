/**
 * A fixed-size pool of Bun Workers that run jobs from one FIFO queue, one job
 * per worker at a time, so CPU-heavy work leaves the thread that answers HTTP.
 * Jobs and results cross threads by structured clone (plain data only).
 *
 * - Workers start on first use and up to `size`: a command that never runs a
 *   job never starts a thread.
 * - A job that throws in the worker rejects with its message; the worker goes on.
 * - A worker that dies (an uncaught error, process.exit) rejects the job it
 *   held and is replaced by the next job that needs a worker; the queue goes on.
 * - Idle workers are unref'd, so they never keep the process alive alone.
 * - terminate() stops every worker and rejects what is queued or running.
 */

/** The message a worker receives, and the ones it answers with. */
interface JobMessage<Job> {
  id: number;
  job: Job;
}
type ResultMessage<Result> = { id: number; ok: true; result: Result } | { id: number; ok: false; error: string };

interface Pending<Job, Result> {
  id: number;
  job: Job;
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
}

interface Slot<Job, Result> {
  worker: Worker;
  current: Pending<Job, Result> | null;
  dead: boolean;
}

export class WorkerPoolClosedError extends Error {
  constructor() {
    super("the worker pool was terminated");
  }
}

export class WorkerCrashError extends Error {}

export interface WorkerPoolOptions {
  /** Most workers at once (at least 1). */
  size: number;
  /** The worker script; it calls serveJobs(). */
  url: string | URL;
  /** Told when a worker died (after its job was rejected); for logging. */
  onCrash?: (error: WorkerCrashError) => void;
}

export class WorkerPool<Job, Result> {
  private readonly slots: Slot<Job, Result>[] = [];
  private readonly queue: Pending<Job, Result>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: WorkerPoolOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw new Error(`worker pool size must be a whole number of at least 1, got ${opts.size}`);
  }

  /** Jobs waiting for a free worker, and workers started. */
  get stats(): { queued: number; workers: number; busy: number } {
    return { queued: this.queue.length, workers: this.slots.length, busy: this.slots.filter((s) => s.current).length };
  }

  run(job: Job): Promise<Result> {
    if (this.closed) return Promise.reject(new WorkerPoolClosedError());
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, resolve, reject });
      this.pump();
    });
  }

  /** Stops every worker at once; queued and running jobs reject. Idempotent. */
  terminate(): void {
    if (this.closed) return;
    this.closed = true;
    const error = new WorkerPoolClosedError();
    for (const slot of this.slots.splice(0)) {
      slot.dead = true;
      slot.worker.terminate();
      slot.current?.reject(error);
    }
    for (const pending of this.queue.splice(0)) pending.reject(error);
  }

  /** Hands queued jobs to idle workers, starting workers up to the size. */
  private pump(): void {
    while (!this.closed && this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.current);
      if (!slot) {
        if (this.slots.length >= this.opts.size) return;
        slot = this.spawn();
      }
      const pending = this.queue.shift()!;
      slot.current = pending;
      slot.worker.ref();
      slot.worker.postMessage({ id: pending.id, job: pending.job } satisfies JobMessage<Job>);
    }
  }

  private spawn(): Slot<Job, Result> {
    const worker = new Worker(this.opts.url);
    const slot: Slot<Job, Result> = { worker, current: null, dead: false };
    worker.addEventListener("message", (event: MessageEvent<ResultMessage<Result>>) => {
      const message = event.data;
      const pending = slot.current;
      if (slot.dead || !pending || message.id !== pending.id) return;
      slot.current = null;
      worker.unref();
      if (message.ok) pending.resolve(message.result);
      else pending.reject(new Error(message.error));
      this.pump();
    });
    // An uncaught error is reported as `error` and then `close`; process.exit only as `close`.
    worker.addEventListener("error", (event: ErrorEvent) => this.died(slot, event.message || "uncaught error"));
    worker.addEventListener("close", (event: Event) => this.died(slot, `exited with code ${(event as CloseEvent).code ?? "unknown"}`));
    this.slots.push(slot);
    return slot;
  }

  private died(slot: Slot<Job, Result>, why: string): void {
    if (slot.dead) return;
    slot.dead = true;
    slot.worker.terminate();
    this.slots.splice(this.slots.indexOf(slot), 1);
    const error = new WorkerCrashError(`worker died: ${why}`);
    slot.current?.reject(error);
    slot.current = null;
    this.opts.onCrash?.(error);
    this.pump();
  }
}

/**
 * The worker's side: answers each job with handle's result, or with the
 * message of what it threw (the worker stays up for the next job).
 */
export function serveJobs<Job, Result>(handle: (job: Job) => Result | Promise<Result>): void {
  const scope = globalThis as unknown as {
    onmessage: ((event: MessageEvent<JobMessage<Job>>) => void) | null;
    postMessage: (message: ResultMessage<Result>) => void;
  };
  scope.onmessage = async (event) => {
    const { id, job } = event.data;
    let answer: ResultMessage<Result>;
    try {
      answer = { id, ok: true, result: await handle(job) };
    } catch (err) {
      answer = { id, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    scope.postMessage(answer);
  };
}
