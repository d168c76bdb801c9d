import { SQL } from "bun";
import { drizzle, type BunSQLDatabase } from "drizzle-orm/bun-sql";
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

export async function closePgDatabase(db: PgDb): Promise<void> {
  await db.$client.close();
}
