import { SUBMIT_TASK } from "../../src/modules/applications/service";
import { submitApplication } from "../../src/modules/applications/submit.task";
import { SYNC_TASK, syncEngagement } from "../../src/modules/applications/sync.task";
import { TaskWorker } from "../../src/worker/worker";
import type { TestApp } from "./app";

/** The submission and sync tasks of `serve`, on a worker with tiny retry delays, woken by the app's writes. */
export function applyWorker(t: TestApp, opts: { concurrency?: number; start?: boolean } = {}): TaskWorker {
  const worker = new TaskWorker(t.deps, {
    concurrency: opts.concurrency ?? 8,
    retryBaseMs: 1,
    retryMaxMs: 5,
    handlers: { [SUBMIT_TASK]: (p, c) => submitApplication(t.deps, p, c), [SYNC_TASK]: (p, c) => syncEngagement(t.deps, p, c) },
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
