import type { Database, Statement } from "bun:sqlite";
import type { Db } from "./client";

/**
 * Caches a prepared statement per database connection. Building a drizzle
 * query costs tens of microseconds, far more than running it; statements on
 * hot paths are built once with sql.placeholder() and reused.
 *
 * The cache is keyed by drizzle's session, which a transaction object shares
 * with its database, so a statement prepared inside one transaction is reused
 * by every later one on the same connection.
 */
const cache = new WeakMap<object, Map<string, unknown>>();

export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  const key = (db as unknown as { session?: object }).session ?? db;
  let byName = cache.get(key);
  if (!byName) cache.set(key, (byName = new Map()));
  let stmt = byName.get(name) as T | undefined;
  if (stmt === undefined) byName.set(name, (stmt = build(db)));
  return stmt;
}

/**
 * A plain prepared SQL statement on the connection behind `db` (a database or a
 * transaction), cached like prepared(). For the few inserts that run for every
 * feed entry, where drizzle's parameter mapping costs about a third of the
 * insert. Keep the SQL portable (no SQLite-only syntax).
 */
export function rawStatement(db: Db, name: string, sqlText: string): Statement {
  const session = (db as unknown as { session?: { client?: Database } }).session;
  const client = session?.client ?? db.$client;
  return prepared(db, `raw:${name}`, () => client.prepare(sqlText));
}
