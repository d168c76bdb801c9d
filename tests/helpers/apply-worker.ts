import { AUTO_APPLY_TASK } from "../../src/modules/feeds/admit";
import { autoApplyEntry } from "../../src/modules/autopilot/auto.task";
import { SUBMIT_TASK } from "../../src/modules/applications/service";
import { submitApplication } from "../../src/modules/applications/submit.task";
import { SYNC_TASK, syncEngagement } from "../../src/modules/applications/sync.task";
import { claimTasks, completeTask } from "../../src/worker/tasks";
import { type TaskContext, TaskWorker } from "../../src/worker/worker";
import type { TestApp } from "./app";

/** The submission, auto-apply and sync tasks of `serve`, on a worker with tiny retry delays, woken by the app's writes. */
export function applyWorker(t: TestApp, opts: { concurrency?: number; start?: boolean } = {}): TaskWorker {
  const worker = new TaskWorker(t.deps, {
    concurrency: opts.concurrency ?? 8,
    retryBaseMs: 1,
    retryMaxMs: 5,
    handlers: {
      [SUBMIT_TASK]: (p, c) => submitApplication(t.deps, p, c),
      [SYNC_TASK]: (p, c) => syncEngagement(t.deps, p, c),
      [AUTO_APPLY_TASK]: (p) => autoApplyEntry(t.deps, p),
    },
  });
  t.deps.work.subscribe(() => worker.notify());
  if (opts.start !== false) worker.start();
  return worker;
}

/** Waits (up to 5 s) until the latest application for the job leaves `processing`, moving the clock so retries come due; the last status answer. */
export async function settledByJob(t: TestApp, worker: TaskWorker, apiKey: string, cipher: string) {
  const until = performance.now() + 5000;
  for (;;) {
    const res = await t.request("GET", `/api/auto-apply-v2/status?jobId=${encodeURIComponent(cipher)}`, { key: apiKey });
    if (res.status !== 200 || res.body.applicationStatus !== "processing" || performance.now() > until) return res;
    t.clock.advance(10);
    worker.notify();
    await Bun.sleep(2);
  }
}

/**
 * Runs every submission and auto-apply task due at the clock's now, one after another as serve's worker would, until
 * none is left due (a task that puts itself off is due later); how many ran. Deterministic where a worker's timing
 * is not: tests of the governor move the clock and call this.
 */
export async function runDueTasks(t: Pick<TestApp, "deps" | "clock">): Promise<number> {
  const handlers: Record<string, (p: any) => Promise<unknown>> = {
    [SUBMIT_TASK]: (p) => submitApplication(t.deps, p, {} as TaskContext),
    [AUTO_APPLY_TASK]: (p) => autoApplyEntry(t.deps, p),
  };
  let ran = 0;
  for (;;) {
    const claimed = await claimTasks(t.deps.db, Object.keys(handlers), 20, t.clock.now(), 60_000);
    if (claimed.length === 0) return ran;
    for (const task of claimed) {
      await handlers[task.kind]!(task.payload);
      await completeTask(t.deps.db, task);
      ran++;
    }
  }
}
