import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rawMany } from "../../../src/db/query";
import { findSourceState, listSourceStates, recordPoll } from "../../../src/modules/intake/repo";
import { MAX_SOURCE_BACKOFF_MS, nextRunAt, pollSource, sourceLoops } from "../../../src/modules/intake/runner";
import { SourceError, type JobSource, type PollContext } from "../../../src/sources/source";
import { createTestApp, type TestApp } from "../../helpers/app";

const FIXTURE = JSON.parse(readFileSync(join(import.meta.dir, "../../fixtures/jobs/web-remote-board.json"), "utf8")) as Record<string, unknown>;

/** A valid web job document with its own id. */
function doc(n: number): Record<string, unknown> {
  return { ...FIXTURE, id: `remoteok-test-${n}`, url: `https://remoteok.com/remote-jobs/test-${n}`, title: `Job ${n}` };
}

/** A fake source whose every poll runs the next handler (the last one repeats) and records what it was given. */
function fakeSource(name: string, handlers: ((ctx: PollContext) => ReturnType<JobSource["poll"]>)[], extra: Partial<JobSource> = {}) {
  const calls: PollContext[] = [];
  const source: JobSource = {
    name,
    intervalMs: 60_000,
    poll(ctx) {
      calls.push(structuredClone({ ...ctx, fetch: undefined, log: undefined }) as unknown as PollContext);
      const h = handlers[Math.min(calls.length - 1, handlers.length - 1)]!;
      return h(ctx);
    },
    ...extra,
  };
  return { source, calls };
}

function fail(message: string, props: Record<string, unknown> = {}): never {
  throw Object.assign(new Error(message), props);
}

let t: TestApp;
afterEach(() => t?.close());

describe("nextRunAt", () => {
  const now = Date.UTC(2026, 0, 15, 12, 10, 0);
  test("after a success: the interval; a Retry-After longer than that wins, a shorter one does not", () => {
    expect(nextRunAt(now, { intervalMs: 60_000 }, 0)).toBe(now + 60_000);
    expect(nextRunAt(now, { intervalMs: 60_000 }, 0, 600_000)).toBe(now + 600_000);
    expect(nextRunAt(now, { intervalMs: 60_000 }, 0, 1_000)).toBe(now + 60_000);
  });

  test("after failures: interval × 2^failures, capped", () => {
    expect(nextRunAt(now, { intervalMs: 60_000 }, 1)).toBe(now + 120_000);
    expect(nextRunAt(now, { intervalMs: 60_000 }, 2)).toBe(now + 240_000);
    expect(nextRunAt(now, { intervalMs: 60_000 }, 3)).toBe(now + 480_000);
    expect(nextRunAt(now, { intervalMs: 60_000 }, 10)).toBe(now + MAX_SOURCE_BACKOFF_MS);
    expect(nextRunAt(now, { intervalMs: 60_000 }, 1000)).toBe(now + MAX_SOURCE_BACKOFF_MS);
    expect(nextRunAt(now, { intervalMs: 45 * 60_000 }, 1)).toBe(now + MAX_SOURCE_BACKOFF_MS);
    expect(MAX_SOURCE_BACKOFF_MS).toBe(60 * 60_000);
    // A Retry-After beyond the cap still wins.
    expect(nextRunAt(now, { intervalMs: 60_000 }, 10, 2 * MAX_SOURCE_BACKOFF_MS)).toBe(now + 2 * MAX_SOURCE_BACKOFF_MS);
  });

  test("a source with an interval longer than the cap is never polled sooner than its interval while failing", () => {
    const sixHours = 6 * 60 * 60_000;
    expect(nextRunAt(now, { intervalMs: sixHours }, 1)).toBe(now + sixHours);
    expect(nextRunAt(now, { intervalMs: sixHours }, 5)).toBe(now + sixHours);
  });

  test("a tiny interval backs off from at least a second", () => {
    expect(nextRunAt(now, { intervalMs: 10 }, 1)).toBe(now + 2_000);
  });

  test("a cron source runs at the next cron time after a success, but backs off by its interval after a failure", () => {
    const source = { intervalMs: 5 * 60_000, cron: "0 * * * *" };
    expect(nextRunAt(now, source, 0)).toBe(Date.UTC(2026, 0, 15, 13, 0, 0));
    expect(nextRunAt(now, source, 1)).toBe(now + 10 * 60_000);
    expect(nextRunAt(now, source, 0, 2 * 3_600_000)).toBe(now + 2 * 3_600_000);
  });
});

describe("recordPoll / findSourceState / listSourceStates", () => {
  test("a first success and a first failure create rows; later ones accumulate", async () => {
    t = await createTestApp();
    const db = t.deps.db;
    expect(await findSourceState(db, "a")).toBeUndefined();
    expect(await listSourceStates(db)).toEqual([]);

    await recordPoll(db, "b", 1000, { ok: false, error: "boom", nextRunAtTs: 5000 });
    await recordPoll(db, "a", 1000, { ok: true, state: { etag: "x" }, seen: 3, inserted: 2, nextRunAtTs: 2000 });
    expect((await listSourceStates(db)).map((r) => r.name)).toEqual(["a", "b"]);
    expect(await findSourceState(db, "a")).toMatchObject({
      state: { etag: "x" },
      lastPollAtTs: 1000,
      lastSuccessAtTs: 1000,
      lastSeen: 3,
      lastNew: 2,
      totalSeen: 3,
      totalNew: 2,
      consecutiveFailures: 0,
      nextRunAtTs: 2000,
    });
    expect(await findSourceState(db, "b")).toMatchObject({
      lastError: "boom",
      lastErrorAtTs: 1000,
      consecutiveFailures: 1,
      lastPollAtTs: 1000,
      nextRunAtTs: 5000,
      totalSeen: 0,
    });
    expect((await findSourceState(db, "b"))!.lastSuccessAtTs ?? null).toBeNull();

    await recordPoll(db, "a", 3000, { ok: false, error: "down", nextRunAtTs: 9000 });
    await recordPoll(db, "a", 4000, { ok: false, error: "still down", nextRunAtTs: 9500 });
    expect(await findSourceState(db, "a")).toMatchObject({
      state: { etag: "x" },
      lastPollAtTs: 4000,
      lastSuccessAtTs: 1000,
      lastError: "still down",
      lastErrorAtTs: 4000,
      consecutiveFailures: 2,
      totalSeen: 3,
      nextRunAtTs: 9500,
    });

    await recordPoll(db, "a", 10_000, { ok: true, state: { etag: "y" }, seen: 4, inserted: 1, nextRunAtTs: 11_000 });
    expect(await findSourceState(db, "a")).toMatchObject({
      state: { etag: "y" },
      lastPollAtTs: 10_000,
      lastSuccessAtTs: 10_000,
      consecutiveFailures: 0,
      lastSeen: 4,
      lastNew: 1,
      totalSeen: 7,
      totalNew: 3,
      nextRunAtTs: 11_000,
    });
  });
});

describe("pollSource", () => {
  test("a success ingests, stores state and counters; known jobs count as seen but not new; state comes back next poll", async () => {
    t = await createTestApp();
    const { source, calls } = fakeSource("fake", [
      () => ({ docs: [doc(1), doc(2)], state: { cursor: "c1", etag: "e1" } }),
      () => ({ docs: [doc(2), doc(3)], state: { cursor: "c2" } }),
      () => ({ docs: [] }),
    ]);
    const start = t.clock.now();

    const first = await pollSource(t.deps, source);
    expect(first).toEqual({ ok: true, seen: 2, inserted: 2 });
    expect(calls[0]!.state).toEqual({});
    expect(calls[0]!.nowTs).toBe(start);
    expect(await findSourceState(t.deps.db, "fake")).toMatchObject({
      state: { cursor: "c1", etag: "e1" },
      lastSeen: 2,
      lastNew: 2,
      totalSeen: 2,
      totalNew: 2,
      consecutiveFailures: 0,
      lastPollAtTs: start,
      lastSuccessAtTs: start,
      nextRunAtTs: start + 60_000,
    });

    t.clock.advance(60_000);
    const second = await pollSource(t.deps, source);
    expect(second).toEqual({ ok: true, seen: 2, inserted: 1 });
    expect(calls[1]!.state).toEqual({ cursor: "c1", etag: "e1" });
    expect(await findSourceState(t.deps.db, "fake")).toMatchObject({ state: { cursor: "c2" }, lastSeen: 2, lastNew: 1, totalSeen: 4, totalNew: 3 });

    // A result without state keeps the stored one.
    t.clock.advance(60_000);
    expect(await pollSource(t.deps, source)).toEqual({ ok: true, seen: 0, inserted: 0 });
    expect(calls[2]!.state).toEqual({ cursor: "c2" });
    const row = (await findSourceState(t.deps.db, "fake"))!;
    expect(row).toMatchObject({ state: { cursor: "c2" }, lastSeen: 0, lastNew: 0, totalSeen: 4, totalNew: 3, nextRunAtTs: t.clock.now() + 60_000 });
  });

  test("a thrown error records lastError and backs off interval × 2^failures up to the cap; a success resets it", async () => {
    t = await createTestApp();
    let mode: "fail" | "ok" = "fail";
    const { source, calls } = fakeSource("flaky", [
      () => {
        if (mode === "fail") throw new Error(`network down #${calls.length}`);
        return { docs: [doc(10)], state: { cursor: "after" } };
      },
    ]);
    await recordPoll(t.deps.db, "flaky", t.clock.now() - 1, { ok: true, state: { cursor: "before" }, seen: 0, inserted: 0, nextRunAtTs: 0 });

    const expected = [2, 4, 8, 16, 32].map((k) => Math.min(k * 60_000, MAX_SOURCE_BACKOFF_MS));
    expected.push(MAX_SOURCE_BACKOFF_MS, MAX_SOURCE_BACKOFF_MS);
    for (const [i, wait] of expected.entries()) {
      const now = t.clock.now();
      const res = await pollSource(t.deps, source);
      expect(res.ok).toBe(false);
      expect(res.error).toBe(`network down #${i + 1}`);
      expect(res).toMatchObject({ seen: 0, inserted: 0 });
      const row = (await findSourceState(t.deps.db, "flaky"))!;
      expect(row).toMatchObject({
        consecutiveFailures: i + 1,
        lastError: `network down #${i + 1}`,
        lastErrorAtTs: now,
        lastPollAtTs: now,
        nextRunAtTs: now + wait,
      });
      // A failure keeps the stored state, and the failing source is still given it.
      expect(row.state).toEqual({ cursor: "before" });
      expect(calls[i]!.state).toEqual({ cursor: "before" });
      t.clock.advance(wait);
    }

    mode = "ok";
    const now = t.clock.now();
    expect(await pollSource(t.deps, source)).toEqual({ ok: true, seen: 1, inserted: 1 });
    expect(await findSourceState(t.deps.db, "flaky")).toMatchObject({
      consecutiveFailures: 0,
      lastSuccessAtTs: now,
      nextRunAtTs: now + 60_000,
      state: { cursor: "after" },
    });

    // The next failure starts the back-off over.
    mode = "fail";
    t.clock.advance(60_000);
    await pollSource(t.deps, source);
    expect(await findSourceState(t.deps.db, "flaky")).toMatchObject({ consecutiveFailures: 1, nextRunAtTs: t.clock.now() + 120_000 });
  });

  test("a very long error message is shortened to 500 characters", async () => {
    t = await createTestApp();
    const { source } = fakeSource("long", [() => fail("x".repeat(2000))]);
    const res = await pollSource(t.deps, source);
    expect(res.error!.length).toBe(500);
    expect((await findSourceState(t.deps.db, "long"))!.lastError!.length).toBe(500);
  });

  test("an error with retryAfterMs pushes the next run at least that far", async () => {
    t = await createTestApp();
    const { source } = fakeSource("limited", [() => fail("HTTP 429", { retryAfterMs: 3 * 3_600_000 }), () => fail("HTTP 429", { retryAfterMs: 1 })]);
    const now = t.clock.now();
    await pollSource(t.deps, source);
    expect(await findSourceState(t.deps.db, "limited")).toMatchObject({ consecutiveFailures: 1, lastError: "HTTP 429", nextRunAtTs: now + 3 * 3_600_000 });
    // A short Retry-After does not shorten the back-off.
    t.clock.advance(3 * 3_600_000);
    await pollSource(t.deps, source);
    expect(await findSourceState(t.deps.db, "limited")).toMatchObject({ consecutiveFailures: 2, nextRunAtTs: t.clock.now() + 240_000 });
  });

  test("a success with retryAfterMs pushes the next run at least that far", async () => {
    t = await createTestApp();
    const { source } = fakeSource("slowdown", [() => ({ docs: [doc(20)], retryAfterMs: 7_200_000 })]);
    const now = t.clock.now();
    expect(await pollSource(t.deps, source)).toEqual({ ok: true, seen: 1, inserted: 1 });
    expect(await findSourceState(t.deps.db, "slowdown")).toMatchObject({ consecutiveFailures: 0, lastSeen: 1, lastNew: 1, nextRunAtTs: now + 7_200_000 });
  });

  test("a SourceError is recorded and logged as needing attention; a plain error only warns", async () => {
    t = await createTestApp();
    const { source } = fakeSource("needs-auth", [
      () => {
        throw new SourceError("re-authorise needed: run `jobpilot source connect marketplace`");
      },
    ]);
    const res = await pollSource(t.deps, source);
    expect(res).toMatchObject({ ok: false, error: "re-authorise needed: run `jobpilot source connect marketplace`" });
    expect(await findSourceState(t.deps.db, "needs-auth")).toMatchObject({
      consecutiveFailures: 1,
      lastError: "re-authorise needed: run `jobpilot source connect marketplace`",
    });
    const records = t.log.records().filter((r) => r.source === "needs-auth");
    expect(records.some((r) => r.level === "error" && String(r.msg ?? r.message).includes("needs attention"))).toBe(true);

    const plain = fakeSource("blip", [() => fail("ECONNRESET")]).source;
    await pollSource(t.deps, plain);
    const blip = t.log.records().filter((r) => r.source === "blip");
    expect(blip.some((r) => r.level === "warn")).toBe(true);
    expect(blip.some((r) => r.level === "error")).toBe(false);
  });

  test("a non-Error throw is recorded as text", async () => {
    t = await createTestApp();
    const { source } = fakeSource("weird", [
      () => {
        throw "plain string";
      },
    ]);
    expect(await pollSource(t.deps, source)).toMatchObject({ ok: false, error: "plain string" });
    expect((await findSourceState(t.deps.db, "weird"))!.lastError).toBe("plain string");
  });

  test("throwing null, or an error whose retryAfterMs is not a number, is recorded and backs off normally", async () => {
    t = await createTestApp();
    const { source } = fakeSource("odd", [
      () => {
        throw null;
      },
      () => {
        throw Object.assign(new Error("odd wait"), { retryAfterMs: "soon" });
      },
    ]);
    expect(await pollSource(t.deps, source)).toMatchObject({ ok: false, error: "null" });
    const now = t.deps.clock.now();
    expect(await pollSource(t.deps, source)).toMatchObject({ ok: false, error: "odd wait" });
    const row = (await findSourceState(t.deps.db, "odd"))!;
    expect(row.consecutiveFailures).toBe(2);
    expect(typeof row.nextRunAtTs).toBe("number");
    expect(row.nextRunAtTs).toBe(nextRunAt(now, source, 2));
  });

  test("an async poll that rejects is handled the same as a throw", async () => {
    t = await createTestApp();
    const { source } = fakeSource("async", [async () => Promise.reject(new Error("rejected"))]);
    expect(await pollSource(t.deps, source)).toMatchObject({ ok: false, error: "rejected" });
    expect((await findSourceState(t.deps.db, "async"))!.consecutiveFailures).toBe(1);
  });

  test("invalid documents count as seen but are not inserted, and do not fail the poll", async () => {
    t = await createTestApp();
    const { source } = fakeSource("mixed", [() => ({ docs: [doc(30), { nonsense: true }] })]);
    const res = await pollSource(t.deps, source);
    expect(res).toEqual({ ok: true, seen: 2, inserted: 1 });
    expect(await findSourceState(t.deps.db, "mixed")).toMatchObject({ consecutiveFailures: 0, lastSeen: 2, lastNew: 1 });
  });

  test("a document whose url is not http or https goes in with a null url, and the log says why", async () => {
    t = await createTestApp();
    const { source } = fakeSource("bad-link", [() => ({ docs: [{ ...doc(31), url: "javascript:alert(1)" }] })]);
    expect(await pollSource(t.deps, source)).toEqual({ ok: true, seen: 1, inserted: 1 });
    const [row] = await rawMany<{ url: string; document: string }>(t.deps.db, "test.jobs", "SELECT url, document FROM jobs", []);
    expect(row!.url).toBe("");
    expect(JSON.parse(row!.document).url).toBeNull();
    const warned = t.log.records().find((r) => r.source === "bad-link" && r.level === "warn");
    expect(JSON.stringify(warned)).toContain("url dropped: only http and https links are kept (got a javascript: link)");
  });

  test("a cron source's next run follows the cron pattern after a success", async () => {
    t = await createTestApp();
    t.clock.set(Date.UTC(2026, 0, 15, 12, 10, 0));
    const { source } = fakeSource("cronned", [() => ({ docs: [] })], { cron: "0 * * * *", intervalMs: 5 * 60_000 });
    await pollSource(t.deps, source);
    expect((await findSourceState(t.deps.db, "cronned"))!.nextRunAtTs).toBe(Date.UTC(2026, 0, 15, 13, 0, 0));
  });

  test("one failing source does not affect another's state or counters", async () => {
    t = await createTestApp();
    const bad = fakeSource("bad", [() => fail("bad source")]).source;
    const good = fakeSource("good", [() => ({ docs: [doc(40)], state: { cursor: "g" } })]).source;
    const now = t.clock.now();
    expect((await pollSource(t.deps, bad)).ok).toBe(false);
    expect(await pollSource(t.deps, good)).toEqual({ ok: true, seen: 1, inserted: 1 });
    expect((await pollSource(t.deps, bad)).ok).toBe(false);
    expect(await findSourceState(t.deps.db, "good")).toMatchObject({
      consecutiveFailures: 0,
      lastError: null,
      state: { cursor: "g" },
      totalNew: 1,
      nextRunAtTs: now + 60_000,
    });
    expect(await findSourceState(t.deps.db, "bad")).toMatchObject({ consecutiveFailures: 2, lastError: "bad source", totalSeen: 0 });
  });
});

describe("sourceLoops", () => {
  async function waitFor(cond: () => boolean | Promise<boolean>, what: string) {
    for (let i = 0; i < 500 && !(await cond()); i++) await Bun.sleep(10);
    if (!(await cond())) throw new Error(`timed out waiting for ${what}`);
  }

  test("polls every source independently, a throwing one included, and stops", async () => {
    t = await createTestApp();
    const ok = fakeSource("loop-ok", [() => ({ docs: [doc(50)], state: { cursor: "1" } })]);
    const bad = fakeSource("loop-bad", [() => fail("loop failure")]);
    const loops = sourceLoops(t.deps, [bad.source, ok.source]);
    expect(loops.map((l) => l.name)).toEqual(["source:loop-bad", "source:loop-ok"]);
    for (const l of loops) l.start();
    try {
      await waitFor(
        async () => (await findSourceState(t.deps.db, "loop-ok")) !== undefined && (await findSourceState(t.deps.db, "loop-bad")) !== undefined,
        "both sources to poll",
      );
    } finally {
      await Promise.all(loops.map((l) => l.stop()));
    }
    expect(await findSourceState(t.deps.db, "loop-ok")).toMatchObject({ consecutiveFailures: 0, totalNew: 1, state: { cursor: "1" } });
    expect(await findSourceState(t.deps.db, "loop-bad")).toMatchObject({ consecutiveFailures: 1, lastError: "loop failure" });
    // The manual clock did not move, so neither source was due again.
    expect(ok.calls.length).toBe(1);
    expect(bad.calls.length).toBe(1);
    // Stopped loops poll no more.
    t.clock.advance(24 * 3_600_000);
    await Bun.sleep(50);
    expect(ok.calls.length).toBe(1);
  });

  test("a stored schedule (back-off) survives a restart: a source not yet due is not polled at start", async () => {
    t = await createTestApp();
    await recordPoll(t.deps.db, "later", t.clock.now(), { ok: false, error: "earlier failure", nextRunAtTs: t.clock.now() + 3_600_000 });
    const later = fakeSource("later", [() => ({ docs: [] })]);
    const now = fakeSource("now", [() => ({ docs: [] })]);
    const loops = sourceLoops(t.deps, [later.source, now.source]);
    for (const l of loops) l.start();
    try {
      await waitFor(() => now.calls.length > 0, "the due source to poll");
    } finally {
      await Promise.all(loops.map((l) => l.stop()));
    }
    expect(later.calls.length).toBe(0);
    expect(await findSourceState(t.deps.db, "later")).toMatchObject({ consecutiveFailures: 1, lastError: "earlier failure" });
  });
});
