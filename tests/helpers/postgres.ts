/**
 * PostgreSQL for tests. Set JOBPILOT_TEST_DATABASE_URL (postgres://user@host:port/db, an account allowed
 * to CREATE DATABASE; .ci/run starts a throw-away cluster and sets it) to run the PostgreSQL tests; without
 * it they are skipped, each file saying so once.
 *
 *   describePg("the migrator", () => {
 *     const pg = usePgDatabase();           // a fresh database for this file, dropped after it
 *     test("…", async () => { const sql = new SQL(pg.url); … });
 *   });
 */
import { afterAll, beforeAll, describe, test } from "bun:test";
import { SQL } from "bun";

export const TEST_DATABASE_URL: string | undefined = process.env.JOBPILOT_TEST_DATABASE_URL?.trim() || undefined;

const SKIP_REASON = "needs PostgreSQL: set JOBPILOT_TEST_DATABASE_URL=postgres://user:password@127.0.0.1:5432/postgres to run it (bash .ci/run starts one)";

/**
 * `describe` for tests that need PostgreSQL. Without JOBPILOT_TEST_DATABASE_URL the block's body is not even
 * collected (its hooks would try to reach the server): one skipped test stands for it and says why.
 */
export function describePg(label: string, fn: () => void): void {
  if (TEST_DATABASE_URL) {
    describe(`${label} [PostgreSQL]`, fn);
    return;
  }
  console.warn(`skipping "${label}": ${SKIP_REASON}`);
  describe(`${label} [PostgreSQL]`, () => {
    test.skip(SKIP_REASON, () => {}); // skip reason: no PostgreSQL configured (JOBPILOT_TEST_DATABASE_URL); .ci/run sets one
  });
}

export interface TestPgDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function requireUrl(): string {
  if (!TEST_DATABASE_URL) throw new Error("JOBPILOT_TEST_DATABASE_URL is not set");
  return TEST_DATABASE_URL;
}

/** Runs one statement on the server's maintenance connection (the URL as given). */
async function admin(statement: string): Promise<void> {
  const sql = new SQL({ url: requireUrl(), max: 1 });
  try {
    await sql.unsafe(statement);
  } finally {
    await sql.close();
  }
}

let counter = 0;

/**
 * A new empty database on the test server; `drop()` removes it, closing any connection left on it. `options`
 * go after CREATE DATABASE name (e.g. `TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`).
 */
export async function createPgDatabase(options = ""): Promise<TestPgDatabase> {
  const base = requireUrl();
  const name = `jp_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  await admin(`CREATE DATABASE "${name}" ${options}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/**
 * A fresh database for the enclosing describe block (one per test file, as a rule): created in beforeAll,
 * dropped in afterAll. Read `url` inside tests and hooks, not at collection time.
 */
export function usePgDatabase(): { readonly url: string; readonly name: string } {
  let db: TestPgDatabase | undefined;
  beforeAll(async () => {
    db = await createPgDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  return {
    get url() {
      if (!db) throw new Error("usePgDatabase(): the database exists only inside tests and hooks");
      return db.url;
    },
    get name() {
      if (!db) throw new Error("usePgDatabase(): the database exists only inside tests and hooks");
      return db.name;
    },
  };
}

/**
 * The one switch that runs the whole suite on PostgreSQL: JOBPILOT_TEST_BACKEND=postgres with
 * JOBPILOT_TEST_DATABASE_URL set. Then every app the test helpers build (createTestApp) gets a fresh
 * migrated database of its own instead of SQLite's `:memory:`; tests that name a SQLite file keep it.
 */
export const PG_BACKEND: boolean = process.env.JOBPILOT_TEST_BACKEND === "postgres" && TEST_DATABASE_URL !== undefined;

let template: Promise<string> | undefined;

/**
 * A new database holding the current migrations: copied from a template migrated once per test process
 * (CREATE DATABASE … TEMPLATE copies files, far quicker than running the migrations again).
 */
export async function createMigratedPgDatabase(): Promise<TestPgDatabase> {
  template ??= (async () => {
    const { migratePg } = await import("../../src/db/migrate-pg");
    const db = await createPgDatabase();
    const sql = new SQL({ url: db.url, max: 1 });
    try {
      await migratePg(sql);
    } finally {
      await sql.close();
    }
    return db.name;
  })();
  return createPgDatabase(`TEMPLATE "${await template}"`);
}
