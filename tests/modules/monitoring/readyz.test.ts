import { describe, expect, test } from "bun:test";
import { useCleanups } from "../../helpers/cleanups";
import { memoryLogger } from "../../../src/lib/log";
import { Liveness, MIN_STALE_MS, STALE_PAUSES } from "../../../src/worker/liveness";
import { Loop } from "../../../src/worker/loop";
import { startScheduler } from "../../../src/worker/scheduler";
import { createTestApp, show, type TestApp } from "../../helpers/app";

const later = useCleanups();

async function app(): Promise<TestApp> {
  const t = await createTestApp();
  later(() => t.close());
  return t;
}

function loop(name: string, intervalMs: number, run: () => unknown = () => {}) {
  const l = new Loop({ name, intervalMs, run, log: memoryLogger() });
  later(() => l.stop());
  return l;
}

describe("GET /readyz", () => {
  test("200 when the migrations ran, the database answers and every watched loop ticks; no credentials needed", async () => {
    const t = await app();
    const worker = loop("tasks", 50);
    worker.start();
    t.deps.liveness.watch(worker);
    const res = await t.request("GET", "/readyz");
    expect(res.status, show(res)).toBe(200);
    expect(res.body.ready).toBe(true);
    expect(res.body.reason).toBeUndefined();
    expect(res.body.checks.database).toEqual({ ok: true });
    expect(res.body.checks.migrations.ok).toBe(true);
    expect(res.body.checks.migrations.applied).toBe(res.body.checks.migrations.expected);
    expect(res.body.checks.migrations.pending).toEqual([]);
    expect(res.body.checks.loops.ok).toBe(true);
    expect(res.body.checks.loops.loops).toEqual([{ name: "tasks", ok: true, lastTickAgoS: expect.any(Number) }]);
  });

  test("503 naming the loop when a watched loop has stopped", async () => {
    const t = await app();
    const a = loop("webhooks", 50);
    const b = loop("source:sandbox", 50);
    a.start();
    b.start();
    t.deps.liveness.watch(a, b);
    expect((await t.request("GET", "/readyz")).status).toBe(200);
    await b.stop();
    const res = await t.request("GET", "/readyz");
    expect(res.status, show(res)).toBe(503);
    expect(res.body.ready).toBe(false);
    expect(res.body.reason).toBe("loop source:sandbox: stopped");
    expect(res.body.checks.loops.ok).toBe(false);
    expect(res.body.checks.loops.loops.find((l: { name: string }) => l.name === "webhooks").ok).toBe(true);
    expect(res.body.checks.database.ok).toBe(true);
  });

  test("503 when the database does not answer, with no driver message in the answer", async () => {
    const t = await createTestApp();
    await t.close();
    const res = await t.request("GET", "/readyz");
    expect(res.status, show(res)).toBe(503);
    expect(res.body.ready).toBe(false);
    expect(res.body.reason).toContain("the database does not answer");
    expect(res.body.checks.database).toEqual({ ok: false, error: "the database does not answer" });
    expect(res.body.checks.migrations.ok).toBe(false);
    expect(res.text.toLowerCase()).not.toContain("closed");
  });

  test("/healthz is unchanged beside it", async () => {
    const t = await app();
    const res = await t.request("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["database", "status", "uptimeS", "version"]);
  });
});

describe("loop liveness", () => {
  test("a loop whose round never ends goes stale after a few of its pauses (never under the minimum)", async () => {
    let release!: () => void;
    const hung = loop("hung", 10, () => new Promise<void>((r) => (release = r)));
    later(() => release?.()); // runs before the loop's stop (stops run in reverse): lets its round end
    hung.start();
    await Bun.sleep(5);
    const liveness = new Liveness();
    liveness.watch(hung);
    const now = performance.now();
    expect(liveness.check(now)[0]).toMatchObject({ name: "hung", ok: true });
    expect(liveness.check(now + MIN_STALE_MS - 1000)[0]!.ok).toBe(true);
    const stale = liveness.check(now + MIN_STALE_MS + 1000)[0]!;
    expect(stale.ok).toBe(false);
    expect(stale.reason).toMatch(/^no tick for \d+ s/);
    // A loop that pauses longer is judged against its own pause.
    const slow = loop("slow", MIN_STALE_MS, () => {});
    slow.start();
    await Bun.sleep(5);
    liveness.watch(slow);
    const past = performance.now() + MIN_STALE_MS + 1000;
    expect(liveness.check(past).find((l) => l.name === "slow")!.ok).toBe(true);
    expect(liveness.check(performance.now() + STALE_PAUSES * MIN_STALE_MS + 1000).find((l) => l.name === "slow")!.ok).toBe(false);
  });

  test("a schedule is alive until well past its next run without a tick, and dead once stopped", async () => {
    const t = await app();
    const scheduler = startScheduler(t.deps, [{ name: "hourly", pattern: "0 * * * *", kind: "noop" }]);
    later(() => scheduler.stop());
    const liveness = new Liveness();
    liveness.watch(...scheduler.heartbeats);
    const now = performance.now();
    expect(liveness.check(now)).toEqual([{ name: "schedule:hourly", ok: true, lastTickAgoS: expect.any(Number) }]);
    // The next hourly run is at most an hour away: stale only past that plus the minimum.
    expect(liveness.check(now + 60 * 60_000 + MIN_STALE_MS + 1000)[0]!.ok).toBe(false);
    scheduler.stop();
    expect(liveness.check()[0]).toMatchObject({ ok: false, reason: "stopped" });
  });
});
