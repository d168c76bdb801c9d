import { afterEach, describe, expect, test } from "bun:test";
import { WorkerCrashError, WorkerPool, WorkerPoolClosedError } from "../../src/lib/worker-pool";
import type { TestJob, TestResult } from "../fixtures/workers/test.worker";

const URL_ = new URL("../fixtures/workers/test.worker.ts", import.meta.url);
const pools: WorkerPool<TestJob, TestResult>[] = [];
function pool(size: number, onCrash?: (err: WorkerCrashError) => void) {
  const p = new WorkerPool<TestJob, TestResult>({ size, url: URL_, onCrash });
  pools.push(p);
  return p;
}
/** What a promise rejects with (bun's expect().rejects blocks the thread, so a worker's answer would never arrive). */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => err as Error,
  );
afterEach(() => {
  for (const p of pools.splice(0)) p.terminate();
});

describe("WorkerPool", () => {
  test("starts no worker until a job comes, then never more than its size", async () => {
    const p = pool(2);
    expect(p.stats.workers).toBe(0);
    const runs = Array.from({ length: 10 }, (_, i) => p.run({ op: "sleep", value: i, ms: 5 }));
    expect(p.stats).toEqual({ queued: 8, workers: 2, busy: 2 });
    const results = await Promise.all(runs);
    expect(results.map((r) => r.value)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(new Set(results.map((r) => r.threadId)).size).toBe(2);
    expect(p.stats).toEqual({ queued: 0, workers: 2, busy: 0 });
  });

  test("jobs start in the order they were queued", async () => {
    const p = pool(1);
    const results = await Promise.all([5, 1, 4, 2, 3].map((ms, i) => p.run({ op: "sleep", value: i, ms })));
    expect(results.map((r) => [r.value, r.seq])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
    ]);
  });

  test("each caller gets its own result when jobs finish out of order", async () => {
    const p = pool(3);
    const finished: number[] = [];
    await Promise.all(
      [60, 30, 1].map((ms, i) =>
        p.run({ op: "sleep", value: i, ms }).then((r) => {
          expect(r.value).toBe(i);
          finished.push(i);
        }),
      ),
    );
    expect(finished).toEqual([2, 1, 0]);
  });

  test("a job that throws rejects with its message and the worker serves the next job", async () => {
    const p = pool(1);
    const first = await p.run({ op: "echo", value: 1 });
    expect((await rejection(p.run({ op: "throw", value: 2 })))?.message).toBe("bad job 2");
    const next = await p.run({ op: "echo", value: 3 });
    expect(next.threadId).toBe(first.threadId);
    expect(next.seq).toBe(3);
  });

  for (const op of ["crash", "exit"] as const) {
    test(`a worker that dies (${op}) rejects only its job, is replaced, and the queue goes on`, async () => {
      const crashes: WorkerCrashError[] = [];
      const p = pool(1, (err) => crashes.push(err));
      const before = await p.run({ op: "echo", value: 0 });
      const dying = p.run({ op, value: 1 });
      const queued = [p.run({ op: "echo", value: 2 }), p.run({ op: "echo", value: 3 })];
      const error = await rejection(dying);
      expect(error).toBeInstanceOf(WorkerCrashError);
      expect(String(error)).toContain(op === "crash" ? "worker crashed" : "code 7");
      const after = await Promise.all(queued);
      expect(after.map((r) => r.value)).toEqual([2, 3]);
      // A fresh worker: another thread, counting from 1 again.
      expect(after[0]!.threadId).not.toBe(before.threadId);
      expect(after.map((r) => r.seq)).toEqual([1, 2]);
      expect(crashes).toHaveLength(1);
      expect(p.stats.workers).toBe(1);
    });
  }

  test("terminate() rejects running and queued jobs, and every later one", async () => {
    const p = pool(1);
    const running = p.run({ op: "sleep", value: 1, ms: 1000 });
    const queued = p.run({ op: "echo", value: 2 });
    await Bun.sleep(20);
    p.terminate();
    for (const job of [running, queued, p.run({ op: "echo", value: 3 })]) expect(await rejection(job)).toBeInstanceOf(WorkerPoolClosedError);
    expect(p.stats.workers).toBe(0);
    p.terminate(); // idempotent
  });

  test("the calling thread keeps running while workers are busy", async () => {
    const p = pool(2);
    // Both workers started before the measured time: starting one is not what this test is about.
    await Promise.all([p.run({ op: "sleep", value: 0, ms: 50 }), p.run({ op: "sleep", value: 0, ms: 50 })]);
    expect(p.stats.workers).toBe(2);
    let last = performance.now();
    let worstGapMs = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worstGapMs = Math.max(worstGapMs, now - last);
      last = now;
    }, 2);
    await Promise.all([p.run({ op: "spin", value: 1, ms: 300 }), p.run({ op: "spin", value: 2, ms: 300 })]);
    clearInterval(timer);
    // Spun on the calling thread, the timer would wait out a whole spin (300 ms). The bound is half of that, not a
    // few milliseconds: two spinning workers hold both cores of a small machine, where the scheduler alone has
    // kept the calling thread waiting 75 ms (CI, 2 cores).
    expect(worstGapMs).toBeLessThan(150);
  });
});
