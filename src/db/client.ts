import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/** How a transaction begins: `immediate` takes the write lock at BEGIN (use it when the transaction reads and then writes). */
export type TxBehavior = "deferred" | "immediate" | "exclusive";

/**
 * Runs `fn` in one transaction (a savepoint when `db` is already a transaction)
 * and hands it the transaction typed as a Db, so repository functions take it
 * like the database. drizzle's transaction object has the same query API but
 * no `$client`; rawStatement reaches the connection through the session both
 * share, so nothing here needs it.
 */
export function transaction<T>(db: Db, fn: (tx: Db) => T, behavior?: TxBehavior): T {
  return db.transaction((tx) => fn(tx as unknown as Db), behavior ? { behavior } : undefined);
}

export interface OpenOptions {
  synchronous?: "FULL" | "NORMAL";
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the database with the pragmas the service relies
 * on: WAL so readers never block the writer, FULL sync because credits and
 * applications must survive power loss, a busy timeout so the CLI and the
 * server can write to the same file, and enforced foreign keys.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  const isMemory = path === ":memory:";
  if (!isMemory) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true });
  sqlite.run(`PRAGMA busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  if (!isMemory) sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run(`PRAGMA synchronous = ${opts.synchronous ?? "FULL"}`);
  sqlite.run("PRAGMA foreign_keys = ON");
  // A bigger page cache and memory-mapped reads: page reads are system calls, and costly ones on sandboxed hosts.
  sqlite.run("PRAGMA cache_size = -65536");
  if (!isMemory) sqlite.run("PRAGMA mmap_size = 268435456");
  return drizzle(sqlite, { schema }) as Db;
}

export function closeDatabase(db: Db): void {
  try {
    // Folds the WAL back into the main file so a copied-away database is complete.
    db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch {
    // A checkpoint can fail while another process reads; closing is still safe.
  }
  db.$client.close();
}
