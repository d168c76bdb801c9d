import { describe, expect, test } from "bun:test";
import { memoryLogger } from "../../src/lib/log";
import { createShutdown } from "../../src/shutdown";
import { Loop } from "../../src/worker/loop";

describe("background loops", () => {
  test("notify() runs the next round at once instead of after the interval", async () => {
    let rounds = 0;
    const loop = new Loop({ name: "t", intervalMs: 60_000, run: () => void rounds++, log: memoryLogger() });
    loop.start();
    await Bun.sleep(5);
    expect(rounds).toBe(1);
    const woken = performance.now();
    loop.notify();
    while (rounds < 2 && performance.now() - woken < 1000) await Bun.sleep(1);
    expect(rounds).toBe(2);
    expect(performance.now() - woken).toBeLessThan(500);
    await loop.stop();
  });

  test("a loop woken during every round still lets timers and requests run between its rounds", async () => {
    // A queue that finishes a task every millisecond wakes its loop in every round (issue 13: one account's
    // scoring backlog ran as one block and held every request for seconds).
    let rounds = 0;
    let timerFiredAtRound: number | null = null;
    const loop: Loop = new Loop({
      name: "busy",
      intervalMs: 60_000,
      run: () => {
        rounds++;
        const until = performance.now() + 1;
        while (performance.now() < until);
        if (rounds < 200) loop.notify();
      },
      log: memoryLogger(),
    });
    setTimeout(() => (timerFiredAtRound = rounds), 0);
    loop.start();
    while (rounds < 200) await Bun.sleep(5);
    await loop.stop();
    expect(timerFiredAtRound).not.toBeNull();
    expect(timerFiredAtRound!).toBeLessThan(50);
  });

  test("stop() waits for the round in hand and no round starts after it", async () => {
    let finished = 0;
    let started = 0;
    const loop = new Loop({
      name: "t",
      intervalMs: 1,
      run: async () => {
        started++;
        await Bun.sleep(40);
        finished++;
      },
      log: memoryLogger(),
    });
    loop.start();
    await Bun.sleep(10);
    await loop.stop();
    expect(finished).toBe(started);
    const after = started;
    await Bun.sleep(20);
    expect(started).toBe(after);
  });

  test("a failing round is logged and the loop keeps going", async () => {
    const log = memoryLogger();
    let calls = 0;
    const loop = new Loop({
      name: "flaky",
      intervalMs: 1,
      maxBackoffMs: 4,
      run: () => {
        calls++;
        if (calls <= 2) throw new Error("boom");
      },
      log,
    });
    loop.start();
    const start = performance.now();
    while (calls < 4 && performance.now() - start < 1000) await Bun.sleep(2);
    await loop.stop();
    expect(calls).toBeGreaterThanOrEqual(4);
    const errors = log.records().filter((r) => r.msg === "background loop round failed");
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ loop: "flaky", failures: 1 });
  });
});

describe("shutdown", () => {
  test("steps run in order, once, however often it is called", async () => {
    const order: string[] = [];
    const shutdown = createShutdown(
      [
        { name: "a", run: async () => void order.push("a") },
        { name: "b", run: () => void order.push("b") },
      ],
      { timeoutMs: 1000, log: memoryLogger() },
    );
    const p1 = shutdown("SIGTERM");
    const p2 = shutdown("SIGINT");
    expect(p1).toBe(p2);
    await p1;
    expect(order).toEqual(["a", "b"]);
  });

  test("a step that overruns the budget is forced and the next step still runs", async () => {
    const order: string[] = [];
    const log = memoryLogger();
    const shutdown = createShutdown(
      [
        { name: "hang", run: () => new Promise(() => {}), force: () => void order.push("forced") },
        {
          name: "fails",
          run: () => {
            throw new Error("nope");
          },
        },
        { name: "close db", run: () => void order.push("closed") },
      ],
      { timeoutMs: 50, log },
    );
    const started = performance.now();
    await shutdown("SIGTERM");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(order).toEqual(["forced", "closed"]);
    expect(log.records().map((r) => r.msg)).toEqual(expect.arrayContaining(["shutdown step timed out; forcing", "shutdown step failed", "stopped"]));
  });
});
