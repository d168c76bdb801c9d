import { SQL } from "bun";
import { drizzle, type BunSQLDatabase } from "drizzle-orm/bun-sql";
import { markPg, type Db } from "./client";
import * as schema from "./schema-pg";

/** A PostgreSQL database through drizzle's bun-sql driver over Bun's built-in client, typed by the pg-core schema. */
export type PgDb = BunSQLDatabase<typeof schema> & { $client: SQL };

export interface PgOpenOptions {
  /** Pool size (Bun's default is 10). */
  max?: number;
}

/** Opens a pool on `url` (postgres://user:password@host:port/database). Nothing connects until the first query. */
export function openPgDatabase(url: string, opts: PgOpenOptions = {}): PgDb {
  const client = new SQL({ url, max: opts.max ?? 10 });
  return drizzle({ client, schema }) as PgDb;
}

/**
 * The same pool as the service's Db: repositories run on it through src/db/query.ts, which reads the
 * pg-core tables from it (tables(db)) and awaits its queries.
 */
export function openPgAsDb(url: string, opts: PgOpenOptions = {}): Db {
  return markPg(openPgDatabase(url, opts));
}

export async function closePgDatabase(db: PgDb | Db): Promise<void> {
  await (db.$client as unknown as SQL).close();
}
