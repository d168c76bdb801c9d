import { expect, test } from "bun:test";
import type { Statement } from "bun:sqlite";
import { count, eq } from "drizzle-orm";
import { closeDatabase, openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { exec, many, manyNow, one, readNow, tables } from "../../src/db/query";

// drizzle prepares a new statement for every run of a builder; the runners finalize it at once, so a burst of
// queries does not keep thousands of native statements alive until the garbage collector finds them.
test("many, one, exec and manyNow finalize the statement a builder prepared, and still answer as before", async () => {
  const db = openDatabase(":memory:");
  try {
    migrate(db.$client);
    const { accounts } = tables(db);
    const client = db.$client;
    const made: Statement[] = [];
    const prepare = client.prepare.bind(client);
    client.prepare = ((sqlText: string) => {
      const stmt = prepare(sqlText);
      made.push(stmt);
      return stmt;
    }) as typeof client.prepare;

    expect(await many(db, db.select().from(accounts))).toEqual([]);
    expect(await one(db, db.select({ n: count() }).from(accounts))).toEqual({ n: 0 });
    expect(await exec(db, db.delete(accounts).where(eq(accounts.id, "nobody")))).toBe(0);
    expect(await readNow(db, () => manyNow(db, db.select().from(accounts)))).toEqual([]);

    expect(made).toHaveLength(4);
    for (const stmt of made) expect(() => stmt.all()).toThrow("Statement has finalized");
  } finally {
    closeDatabase(db);
  }
});
