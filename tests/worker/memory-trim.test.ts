import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { isPg, releaseMemory, tx } from "../../src/db/client";
import { GROWTH_BYTES, MemoryTrim, QUIET_BYTES, QUIET_CPU_MS, type MemoryProbe } from "../../src/worker/memory-trim";
import { openTestDb, type TestDb } from "../helpers/db";

const MiB = 1024 * 1024;

/** A process whose heap, resident size and CPU time the test sets; what a trim did is written down in order. */
function fakeProcess() {
  const state = { heap: 40 * MiB, resident: 100 * MiB, cpuMs: 1000, calls: [] as string[] };
  const probe: MemoryProbe = {
    heap: () => state.heap,
    resident: () => state.resident,
    cpuMs: () => state.cpuMs,
    collect: () => {
      state.calls.push("collect");
      state.resident -= 10 * MiB;
      // A full collection takes CPU of its own.
      state.cpuMs += 40;
    },
  };
  const release = async () => {
    state.calls.push("release");
  };
  return { state, trim: new MemoryTrim(release, probe) };
}

describe("memory trim", () => {
  test("a quiet process that grew is trimmed: a full collection, the database's caches, a second collection", async () => {
    const { state, trim } = fakeProcess();
    state.resident += GROWTH_BYTES;
    expect(await trim.tick()).toBe(true);
    expect(state.calls).toEqual(["collect", "release", "collect"]);
  });

  test("never while the heap moves: steady work is left alone however much the process grew", async () => {
    const { state, trim } = fakeProcess();
    state.resident += 4 * GROWTH_BYTES;
    for (const step of [QUIET_BYTES, 5 * MiB, -8 * MiB, QUIET_BYTES]) {
      state.heap += step;
      expect(await trim.tick()).toBe(false);
    }
    expect(state.calls).toEqual([]);
    // The first look after the heap stopped moving trims.
    expect(await trim.tick()).toBe(true);
  });

  test("never while the process works, even when its heap stays the same size; once it rests, it trims", async () => {
    const { state, trim } = fakeProcess();
    state.resident += 4 * GROWTH_BYTES;
    for (const used of [1000, QUIET_CPU_MS, 300]) {
      state.cpuMs += used;
      expect(await trim.tick()).toBe(false);
    }
    expect(state.calls).toEqual([]);
    state.cpuMs += QUIET_CPU_MS - 1;
    expect(await trim.tick()).toBe(true);
    // The trim's own collections are not counted as work at the next look.
    state.resident += GROWTH_BYTES;
    expect(await trim.tick()).toBe(true);
  });

  test("not when the process grew less than the threshold since the last trim, and once only per growth", async () => {
    const { state, trim } = fakeProcess();
    state.resident += GROWTH_BYTES - MiB;
    expect(await trim.tick()).toBe(false);
    state.resident += 2 * MiB;
    expect(await trim.tick()).toBe(true);
    // Quiet again, but nothing grew since: no second pause.
    expect(await trim.tick()).toBe(false);
    expect(await trim.tick()).toBe(false);
    expect(state.calls).toEqual(["collect", "release", "collect"]);
    state.resident += GROWTH_BYTES;
    expect(await trim.tick()).toBe(true);
  });

  test("the growth counts from the lowest size seen, when the process shrank by itself", async () => {
    const { state, trim } = fakeProcess();
    state.resident -= 30 * MiB;
    expect(await trim.tick()).toBe(false);
    state.resident += GROWTH_BYTES;
    expect(await trim.tick()).toBe(true);
  });
});

describe("releaseMemory", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await openTestDb();
  });
  afterEach(async () => {
    await t.close();
  });

  test("runs in turn with an open transaction, never inside it", async () => {
    const order: string[] = [];
    let commit!: () => void;
    let begun!: () => void;
    const began = new Promise<void>((r) => (begun = r));
    const open = tx(t.db, async () => {
      order.push("begin");
      begun();
      await new Promise<void>((r) => (commit = r));
      order.push("commit");
    });
    await began;
    const released = releaseMemory(t.db).then(() => order.push("released"));
    await Bun.sleep(5);
    commit();
    await Promise.all([open, released]);
    // On PostgreSQL there is nothing to free and nothing to wait for.
    expect(order).toEqual(isPg(t.db) ? ["begin", "released", "commit"] : ["begin", "commit", "released"]);
  });
});
