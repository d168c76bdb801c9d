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
