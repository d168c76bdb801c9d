/**
 * What /readyz, /metrics and `jobpilot doctor` read about the database itself: which of this binary's
 * migrations it has, how big it is, its write-ahead log, its connections. Read-only, either dialect.
 */
import { statSync } from "node:fs";
import { isPg, type Db } from "./client";
import { MIGRATIONS } from "./migrations.gen";
import { PG_MIGRATIONS } from "./migrations-pg.gen";
import { rawMany } from "./query";

export interface MigrationStatus {
  /** This binary's migrations for the database's dialect. */
  expected: number;
  /** This binary's migrations the database has. */
  applied: number;
  /** This binary's migrations the database lacks (`jobpilot migrate` or `serve` applies them). */
  pending: string[];
  /** Migrations the database has that this binary does not know: a newer version migrated it. */
  unknown: string[];
}

/** Compares the database's `_migrations` with this binary's list; a database never migrated has them all pending. */
export async function migrationStatus(db: Db): Promise<MigrationStatus> {
  const expected = (isPg(db) ? PG_MIGRATIONS : MIGRATIONS).map((m) => m.tag);
  const exists = isPg(db)
    ? await rawMany<{ t: string | null }>(db, "migrations-table", "SELECT to_regclass('_migrations')::text AS t", [])
    : await rawMany<{ t: string | null }>(db, "migrations-table", "SELECT name AS t FROM sqlite_master WHERE type = 'table' AND name = '_migrations'", []);
  const tags = exists[0]?.t ? (await rawMany<{ tag: string }>(db, "migration-tags", "SELECT tag FROM _migrations", [])).map((r) => r.tag) : [];
  const have = new Set(tags);
  const known = new Set(expected);
  return {
    expected: expected.length,
    applied: expected.filter((t) => have.has(t)).length,
    pending: expected.filter((t) => !have.has(t)),
    unknown: tags.filter((t) => !known.has(t)).sort(),
  };
}

export interface DatabaseStats {
  /** SQLite: pages × page size; PostgreSQL: pg_database_size. */
  sizeBytes: number;
  /** SQLite on a file: the -wal file's size (0 when there is none); otherwise null. */
  walBytes: number | null;
  /** PostgreSQL: connections to this database from every client, by state. */
  connections: { state: string; count: number }[] | null;
}

export async function databaseStats(db: Db, dbPath: string): Promise<DatabaseStats> {
  if (isPg(db)) {
    const [size] = await rawMany<{ size: string | number }>(db, "db-size", "SELECT pg_database_size(current_database()) AS size", []);
    const rows = await rawMany<{ state: string; n: string | number }>(
      db,
      "db-connections",
      "SELECT COALESCE(state, 'unknown') AS state, COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() GROUP BY 1",
      [],
    );
    return { sizeBytes: Number(size?.size ?? 0), walBytes: null, connections: rows.map((r) => ({ state: r.state, count: Number(r.n) })) };
  }
  const [pages] = await rawMany<{ page_count: number }>(db, "page-count", "PRAGMA page_count", []);
  const [page] = await rawMany<{ page_size: number }>(db, "page-size", "PRAGMA page_size", []);
  return { sizeBytes: (pages?.page_count ?? 0) * (page?.page_size ?? 0), walBytes: walBytes(dbPath), connections: null };
}

/** The size of a SQLite file's write-ahead log: 0 when it has none, null for `:memory:`. */
export function walBytes(dbPath: string): number | null {
  if (dbPath === ":memory:") return null;
  try {
    return statSync(`${dbPath}-wal`).size;
  } catch {
    return 0;
  }
}
