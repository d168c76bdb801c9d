import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { closeDatabase, openDatabase, transaction, type Db } from "../../src/db/client";

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
