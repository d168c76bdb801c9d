/**
 * A migrated database for repository-level tests, on the backend the suite runs on: SQLite `:memory:`, or,
 * in the suite's PostgreSQL pass (tests/helpers/postgres.ts), a fresh PostgreSQL database of its own.
 *
 *   let t: TestDb;
 *   beforeEach(async () => { t = await openTestDb(); });
 *   afterEach(() => t.close());
 *   … t.db …
 *
 * `openTestDb({ shared: true })` puts SQLite in a file (in a temporary directory, removed on close) so that
 * `t.another()` can open more connections to the same database: what other processes (nodes) have. On
 * PostgreSQL every database is shared; `another()` opens another pool on it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client";
import { closePgDatabase, openPgAsDb } from "../../src/db/client-pg";
import { migrate } from "../../src/db/migrate";
import { createMigratedPgDatabase, PG_BACKEND } from "./postgres";

export interface TestDb {
  db: Db;
  close(): Promise<void>;
  /**
   * Another handle on the same database, for races between connections (closed with the TestDb): on
   * PostgreSQL a pool of its own; on SQLite a second connection to the file with `shared: true`, else the
   * same handle (a process has one connection to its file).
   */
  another(): Db;
}

export async function openTestDb(opts: { shared?: boolean } = {}): Promise<TestDb> {
  if (PG_BACKEND) {
    const pg = await createMigratedPgDatabase();
    const open = [openPgAsDb(pg.url, { max: 4 })];
    return {
      db: open[0]!,
      another: () => {
        const db = openPgAsDb(pg.url, { max: 4 });
        open.push(db);
        return db;
      },
      close: async () => {
        for (const db of open.splice(0)) await closePgDatabase(db);
        await pg.drop();
      },
    };
  }
  if (!opts.shared) {
    const db = openDatabase(":memory:");
    migrate(db.$client);
    return {
      db,
      another: () => db,
      close: async () => closeDatabase(db),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "jp-testdb-"));
  const path = join(dir, "jobpilot.db");
  const open = [openDatabase(path)];
  migrate(open[0]!.$client);
  return {
    db: open[0]!,
    another: () => {
      const db = openDatabase(path);
      open.push(db);
      return db;
    },
    close: async () => {
      for (const db of open.splice(0)) closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
