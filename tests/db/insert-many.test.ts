import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client";
import { closePgDatabase, openPgAsDb } from "../../src/db/client-pg";
import { rawExec, rawInsertCount, rawMany } from "../../src/db/query";
import { createPgDatabase, describePg, type TestPgDatabase } from "../helpers/postgres";

// One process may hold both dialects (db copy, the test suite's PostgreSQL pass with SQLite-file tests in it):
// a multi-row INSERT's text built for one must never be run on the other, even under the same name.
describePg("rawInsertCount on both dialects in one process", () => {
  let pg: TestPgDatabase;
  let pgDb: Db;
  let sqlite: Db;
  beforeAll(async () => {
    pg = await createPgDatabase();
    pgDb = openPgAsDb(pg.url, { max: 1 });
    sqlite = openDatabase(":memory:");
  });
  afterAll(async () => {
    closeDatabase(sqlite);
    await closePgDatabase(pgDb);
    await pg?.drop();
  });

  test("the same name with each dialect's own row text inserts on both", async () => {
    await rawExec(pgDb, "t.create", "CREATE TABLE t (a bigint, b text)", []);
    await rawExec(sqlite, "t.create", "CREATE TABLE t (a integer, b text)", []);
    // The PostgreSQL row uses a function SQLite does not have, as outbox events do (nextval).
    expect(
      await rawInsertCount(pgDb, "t.insert", { head: "INSERT INTO t (a, b)", row: "(?::bigint + 0, ?)" }, [
        [1, "x"],
        [2, "y"],
      ]),
    ).toBe(2);
    expect(
      await rawInsertCount(sqlite, "t.insert", { head: "INSERT INTO t (a, b)", row: "(?, ?)" }, [
        [1, "x"],
        [2, "y"],
      ]),
    ).toBe(2);
    expect((await rawMany<{ n: number | string }>(pgDb, "t.count", "SELECT count(*) AS n FROM t", [])).map((r) => Number(r.n))).toEqual([2]);
    expect(await rawMany(sqlite, "t.count", "SELECT count(*) AS n FROM t", [])).toEqual([{ n: 2 }]);
  });

  test("the count is of the rows written: those a conflict skipped are not counted", async () => {
    for (const db of [pgDb, sqlite]) {
      await rawExec(db, "u.create", "CREATE TABLE u (a integer PRIMARY KEY)", []);
      // 2,050 rows go as two statements (2,048 rows and 2); three of them are there already.
      await rawInsertCount(db, "u.seed", { head: "INSERT INTO u (a)", row: "(?)" }, [[7], [700], [2000]]);
      const rows = Array.from({ length: 2050 }, (_, i) => [i]);
      expect(await rawInsertCount(db, "u.insert", { head: "INSERT INTO u (a)", row: "(?)", tail: "ON CONFLICT DO NOTHING" }, rows)).toBe(2047);
    }
  });
});
