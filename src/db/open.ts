import type { SQL } from "bun";
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import { closeDatabase, isPg, openDatabase, type Db } from "./client";
import { startBackgroundCheckpoint, stopBackgroundCheckpoint } from "./checkpoint";
import { migrate, type MigrateResult } from "./migrate";
import { migratePg } from "./migrate-pg";

/**
 * The configured database, migrated: PostgreSQL when JOBPILOT_DATABASE_URL is set (migrations under an
 * advisory lock, so nodes starting together do not race), else the SQLite file.
 */
export async function openMigrated(
  config: Pick<Config, "databaseUrl" | "databasePoolSize" | "dbPath" | "sqliteSynchronous">,
  clock: Clock,
): Promise<{ db: Db; migrations: MigrateResult }> {
  if (config.databaseUrl) {
    // Loaded only here: evaluating the pg-core schema and driver slowed every start on SQLite (docs/performance.md, 'Why the code is as it is').
    const { closePgDatabase, openPgAsDb } = await import("./client-pg");
    const db = openPgAsDb(config.databaseUrl, { max: config.databasePoolSize });
    try {
      return { db, migrations: await migratePg(db.$client as unknown as SQL, { clock }) };
    } catch (err) {
      await closePgDatabase(db);
      throw err;
    }
  }
  const db = openDatabase(config.dbPath, { synchronous: config.sqliteSynchronous });
  try {
    const migrations = migrate(db.$client, { clock });
    // A long-running process on a file: checkpoints move to a thread of their own (see ./checkpoint).
    if (config.dbPath !== ":memory:") startBackgroundCheckpoint(db, config.dbPath);
    return { db, migrations };
  } catch (err) {
    db.$client.close();
    throw err;
  }
}

/** Closes either kind of database (on PostgreSQL, the pool, once its queries are done). */
export async function closeAnyDatabase(db: Db): Promise<void> {
  if (isPg(db)) await (await import("./client-pg")).closePgDatabase(db);
  else {
    await stopBackgroundCheckpoint(db);
    closeDatabase(db);
  }
}
