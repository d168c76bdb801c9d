import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

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
