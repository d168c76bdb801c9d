import type { Db } from "./client";

/**
 * Caches a prepared statement per database handle. Building a drizzle query
 * costs tens of microseconds, far more than running it; statements on the
 * request path are built once with sql.placeholder() and reused.
 */
const cache = new WeakMap<Db, Map<string, unknown>>();

export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let byName = cache.get(db);
  if (!byName) cache.set(db, (byName = new Map()));
  let stmt = byName.get(name) as T | undefined;
  if (stmt === undefined) byName.set(name, (stmt = build(db)));
  return stmt;
}
