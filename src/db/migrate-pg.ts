import type { SQL } from "bun";
import { systemClock, type Clock } from "../lib/clock";
import { sha256Hex } from "../lib/hash";
import type { MigrateResult } from "./migrate";
import type { EmbeddedMigration } from "./migrations.gen";
import { PG_MIGRATIONS } from "./migrations-pg.gen";

/**
 * The advisory lock every migrator takes: the ASCII of "jobpilot" read as a bigint. Other cluster-wide
 * locks must use other keys.
 */
export const MIGRATION_LOCK_KEY = "7669456925379817332";

/**
 * Applies the embedded PostgreSQL migrations that this database has not seen, in order, all in one
 * transaction that first takes `pg_advisory_xact_lock`: nodes starting together queue on the lock, the
 * first applies what is missing, the others then find it recorded and apply nothing. A failing migration
 * rolls back every one of this run (PostgreSQL's DDL is transactional). Applied migrations are recorded in
 * `_migrations` with SQLite's shape (tag, hash, applied_at_ts); a landed migration whose text changed is
 * refused: migrations are append-only. `clock` dates each one. Takes Bun's SQL client (a drizzle
 * bun-sql database's `$client`).
 */
export async function migratePg(client: SQL, opts: { migrations?: EmbeddedMigration[]; clock?: Clock } = {}): Promise<MigrateResult> {
  const { migrations = PG_MIGRATIONS, clock = systemClock } = opts;
  const applied = await client.begin(async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.unsafe("CREATE TABLE IF NOT EXISTS _migrations (tag text PRIMARY KEY NOT NULL, hash text NOT NULL, applied_at_ts bigint NOT NULL)");
    const rows = (await tx`SELECT tag, hash FROM _migrations`) as { tag: string; hash: string }[];
    const landed = new Map(rows.map((r) => [r.tag, r.hash]));
    const done: string[] = [];
    for (const m of migrations) {
      const hash = sha256Hex(m.sql);
      const was = landed.get(m.tag);
      if (was !== undefined) {
        if (was !== hash) throw new Error(`migration ${m.tag} was changed after it was applied; add a new migration instead`);
        continue;
      }
      for (const statement of m.sql.split("--> statement-breakpoint")) {
        if (statement.trim()) await tx.unsafe(statement);
      }
      await tx`INSERT INTO _migrations (tag, hash, applied_at_ts) VALUES (${m.tag}, ${hash}, ${clock.now()})`;
      done.push(m.tag);
    }
    return done;
  });
  return { applied, total: migrations.length };
}
