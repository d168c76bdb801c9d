/**
 * A migrated database for repository-level tests, on the backend the suite runs on: SQLite `:memory:`, or,
 * in the suite's PostgreSQL pass (tests/helpers/postgres.ts), a fresh PostgreSQL database of its own.
 *
 *   let t: TestDb;
 *   beforeEach(async () => { t = await openTestDb(); });
 *   afterEach(() => t.close());
 *   … t.db …
 */
import { closeDatabase, openDatabase, type Db } from "../../src/db/client";
import { closePgDatabase, openPgAsDb } from "../../src/db/client-pg";
import { migrate } from "../../src/db/migrate";
import { createMigratedPgDatabase, PG_BACKEND } from "./postgres";

export interface TestDb {
  db: Db;
  /**
   * Another handle on the same database, for races between connections: on PostgreSQL a pool of its own
   * (closed with the TestDb); on SQLite the same handle (a process has one connection to its file).
   */
  another(): Db;
  close(): Promise<void>;
}

export async function openTestDb(): Promise<TestDb> {
  if (PG_BACKEND) {
    const pg = await createMigratedPgDatabase();
    const db = openPgAsDb(pg.url, { max: 4 });
    const others: Db[] = [];
    return {
      db,
      another: () => {
        const other = openPgAsDb(pg.url, { max: 4 });
        others.push(other);
        return other;
      },
      close: async () => {
        for (const other of others) await closePgDatabase(other);
        await closePgDatabase(db);
        await pg.drop();
      },
    };
  }
  const db = openDatabase(":memory:");
  migrate(db.$client);
  return { db, another: () => db, close: async () => closeDatabase(db) };
}
