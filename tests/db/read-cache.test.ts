import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, tx, type Db } from "../../src/db/client";
import { rawExec, rawMany } from "../../src/db/query";
import { DATA_VERSION_CHECK_MS, readCache, verifyReadCaches } from "../../src/db/read-cache";

const dir = mkdtempSync(join(tmpdir(), "jobpilot-read-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The test app turns checking on for the whole run; these tests say when they want it.
afterEach(() => verifyReadCaches(false));

let n = 0;
function scratch(): { db: Db; path: string } {
  const path = join(dir, `c${++n}.db`);
  const db = openDatabase(path);
  db.$client.run("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
  db.$client.run("INSERT INTO t VALUES ('a', 1)");
  return { db, path };
}

/** A cache over `t` whose loads are counted, as a repository would wrap its read. */
function counted(name: string) {
  const cache = readCache<number>({ name });
  let loads = 0;
  const read = (db: Db) => async () => {
    loads++;
    return (await rawMany<{ v: number }>(db, "t.v", "SELECT v FROM t WHERE k = ?", ["a"]))[0]?.v;
  };
  return { cache, get: (db: Db) => cache.get(db, "a", read(db)), loads: () => loads };
}

describe("read cache", () => {
  test("answers from memory until the owner's write invalidates it, and now() serves what get() filled", async () => {
    verifyReadCaches(false);
    const { db } = scratch();
    const c = counted("t1");
    expect(c.cache.now(db, "a")).toBeUndefined();
    expect(await c.get(db)).toBe(1);
    expect(await c.get(db)).toBe(1);
    expect(c.loads()).toBe(1);
    expect(c.cache.now(db, "a")).toBe(1);
    c.cache.invalidate(db);
    await rawExec(db, "t.set", "UPDATE t SET v = 2 WHERE k = 'a'", []);
    expect(c.cache.now(db, "a")).toBeUndefined();
    expect(await c.get(db)).toBe(2);
    expect(c.loads()).toBe(2);
    closeDatabase(db);
  });

  test("another connection's commit is seen within DATA_VERSION_CHECK_MS without any invalidation", async () => {
    const { db, path } = scratch();
    const c = counted("t2");
    expect(await c.get(db)).toBe(1);
    const other = openDatabase(path);
    other.$client.run("UPDATE t SET v = 5 WHERE k = 'a'");
    closeDatabase(other);
    await Bun.sleep(DATA_VERSION_CHECK_MS + 1);
    expect(c.cache.now(db, "a")).toBeUndefined();
    expect(await c.get(db)).toBe(5);
    closeDatabase(db);
  });

  test("inside a transaction it always reads (seeing the transaction's own writes) and keeps nothing", async () => {
    const { db } = scratch();
    const c = counted("t3");
    expect(await c.get(db)).toBe(1);
    await expect(
      tx(db, async (t) => {
        await rawExec(t, "t.set", "UPDATE t SET v = 9 WHERE k = 'a'", []);
        expect(await c.get(t)).toBe(9);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(c.loads()).toBe(2);
    // The rolled-back 9 was never kept: the cached committed value stands.
    expect(await c.get(db)).toBe(1);
    closeDatabase(db);
  });

  test("a load that was reading while an invalidation happened keeps nothing", async () => {
    const { db } = scratch();
    const cache = readCache<number>({ name: "t4" });
    let loads = 0;
    const load = async () => {
      loads++;
      const v = (await rawMany<{ v: number }>(db, "t.v", "SELECT v FROM t WHERE k = ?", ["a"]))[0]?.v;
      cache.invalidate(db); // a write of this process lands while the read is in flight
      return v;
    };
    expect(await cache.get(db, "a", load)).toBe(1);
    expect(await cache.get(db, "a", load)).toBe(1);
    expect(loads).toBe(2);
    closeDatabase(db);
  });

  test("when checking, a hit that differs from the database throws (a write that forgot to invalidate)", async () => {
    verifyReadCaches(true);
    const { db } = scratch();
    const c = counted("t5");
    expect(await c.get(db)).toBe(1);
    expect(await c.get(db)).toBe(1); // checked against the database, equal
    await rawExec(db, "t.set", "UPDATE t SET v = 3 WHERE k = 'a'", []); // no invalidate()
    await expect(c.get(db)).rejects.toThrow("read cache t5: the cached value of a is stale");
    closeDatabase(db);
  });
});
