import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { closeDatabase, exclusive, openDatabase, transaction, tx, type Db } from "../../src/db/client";

const dir = mkdtempSync(join(tmpdir(), "jobpilot-tx-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scratch(path = ":memory:"): Db {
  const db = openDatabase(path);
  db.$client.run("CREATE TABLE t (x INTEGER NOT NULL)");
  return db;
}
const values = (db: Db) => (db.$client.query("SELECT x FROM t ORDER BY x").all() as { x: number }[]).map((r) => r.x);

describe("transaction", () => {
  test("hands fn a Db-typed handle, commits its writes and returns its value", () => {
    const db = scratch();
    const out = transaction(db, (tx) => {
      tx.run(sql`INSERT INTO t (x) VALUES (1)`);
      return tx.all<{ n: number }>(sql`SELECT count(*) AS n FROM t`)[0]!.n;
    });
    expect(out).toBe(1);
    expect(values(db)).toEqual([1]);
    closeDatabase(db);
  });

  test("a throw rolls everything back; a nested call is a savepoint of the outer one", () => {
    const db = scratch();
    expect(() =>
      transaction(db, (tx) => {
        tx.run(sql`INSERT INTO t (x) VALUES (1)`);
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(values(db)).toEqual([]);
    transaction(db, (tx) => {
      tx.run(sql`INSERT INTO t (x) VALUES (2)`);
      expect(() =>
        transaction(tx, (inner) => {
          inner.run(sql`INSERT INTO t (x) VALUES (3)`);
          throw new Error("inner");
        }),
      ).toThrow("inner");
    });
    expect(values(db)).toEqual([2]);
    closeDatabase(db);
  });

  test('"immediate" holds the write lock from the start, even before the first write', () => {
    const path = join(dir, "lock.db");
    const db = scratch(path);
    const other = new Database(path);
    other.run("PRAGMA busy_timeout = 0");
    const otherWrites = () => other.run("INSERT INTO t (x) VALUES (9)");
    // Deferred (the default): a transaction that has only read leaves others free to write.
    transaction(db, (tx) => {
      tx.all(sql`SELECT x FROM t`);
      expect(otherWrites).not.toThrow();
    });
    transaction(
      db,
      (tx) => {
        tx.all(sql`SELECT x FROM t`);
        expect(otherWrites).toThrow(/locked|busy/i);
      },
      "immediate",
    );
    other.close();
    closeDatabase(db);
  });
});

describe("tx", () => {
  const insert = (db: Db, x: number) => exclusive(db, () => db.run(sql`INSERT INTO t (x) VALUES (${x})`));
  const read = (db: Db) => exclusive(db, () => values(db));
  const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

  test("runs an async callback in one transaction, commits its writes and resolves to its value", async () => {
    const db = scratch();
    const out = await tx(db, async (t) => {
      await insert(t, 1);
      await tick();
      await insert(t, 2);
      return (await read(t)).length;
    });
    expect(out).toBe(2);
    expect(values(db)).toEqual([1, 2]);
    expect(db.$client.inTransaction).toBe(false);
    closeDatabase(db);
  });

  test("a throw rolls everything back; a nested tx is a savepoint of the outer one", async () => {
    const db = scratch();
    await expect(
      tx(db, async (t) => {
        await insert(t, 1);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(values(db)).toEqual([]);
    await tx(db, async (t) => {
      await insert(t, 2);
      await expect(
        tx(t, async (inner) => {
          await insert(inner, 3);
          throw new Error("inner");
        }),
      ).rejects.toThrow("inner");
      await tx(t, (inner) => insert(inner, 4));
    });
    expect(values(db)).toEqual([2, 4]);
    closeDatabase(db);
  });

  test("transactions take turns in arrival order, and each sees only what committed before it", async () => {
    const db = scratch();
    const log: string[] = [];
    const run = (name: string, x: number) =>
      tx(db, async (t) => {
        log.push(`${name} begins`);
        const seen = await read(t);
        await tick();
        await insert(t, x);
        log.push(`${name} ends seeing ${seen.join(",")}`);
      });
    await Promise.all([run("a", 1), run("b", 2), run("c", 3)]);
    expect(log).toEqual(["a begins", "a ends seeing ", "b begins", "b ends seeing 1", "c begins", "c ends seeing 1,2"]);
    closeDatabase(db);
  });

  test("statements from outside wait for the open transaction: no read sees its rows early, no write joins its rollback", async () => {
    const db = scratch();
    let outside: Promise<unknown>[] = [];
    await expect(
      tx(db, async (t) => {
        await insert(t, 1);
        // Another async context, while the transaction is open and uncommitted.
        outside = [read(db), insert(db, 7), read(db)];
        await tick();
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await Promise.all(outside)).toEqual([[], expect.anything(), [7]]);
    expect(values(db)).toEqual([7]);
    closeDatabase(db);
  });

  test("statements and transactions queue in arrival order; the handle is refused once its transaction ended", async () => {
    const db = scratch();
    let handle: Db | undefined;
    const first = tx(db, async (t) => {
      handle = t;
      await tick();
      await insert(t, 1);
    });
    const between = read(db);
    const second = tx(db, (t) => insert(t, 2));
    expect(await between).toEqual([1]);
    await Promise.all([first, second]);
    expect(values(db)).toEqual([1, 2]);
    await expect(insert(handle!, 3)).rejects.toThrow(/after its transaction ended/);
    closeDatabase(db);
  });

  test("the synchronous transaction() refuses the database while tx() has one open", async () => {
    const db = scratch();
    await tx(db, async (t) => {
      expect(() => transaction(db, () => 1)).toThrow(/pass the tx handle/);
      expect(
        transaction(t, (inner) => {
          inner.run(sql`INSERT INTO t (x) VALUES (5)`);
          return "inside";
        }),
      ).toBe("inside");
    });
    expect(values(db)).toEqual([5]);
    closeDatabase(db);
  });

  test("BEGIN IMMEDIATE: another connection cannot write while a transaction is open", async () => {
    const path = join(dir, "tx-lock.db");
    const db = scratch(path);
    const other = new Database(path);
    other.run("PRAGMA busy_timeout = 0");
    await tx(db, async (t) => {
      await read(t);
      expect(() => other.run("INSERT INTO t (x) VALUES (9)")).toThrow(/locked|busy/i);
    });
    expect(() => other.run("INSERT INTO t (x) VALUES (9)")).not.toThrow();
    other.close();
    closeDatabase(db);
  });
});
