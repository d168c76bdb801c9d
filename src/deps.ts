import type { Config } from "./config";
import { openDatabase, closeDatabase, type Db } from "./db/client";
import { migrate, type MigrateResult } from "./db/migrate";
import type { Clock } from "./lib/clock";
import type { Logger } from "./lib/log";
import { RateLimiter } from "./http/rate-limiter";
import { KeyUsage } from "./modules/accounts/key-usage";
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

/** Everything the app and the background loops use, built once in main.ts (and in tests/helpers). */
export interface Deps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  version: string;
  rateLimiter: RateLimiter;
  keyUsage: KeyUsage;
}

/** Opens the database, applies pending migrations and builds the shared state. */
export function createDeps(config: Config, base: { clock: Clock; log: Logger }): { deps: Deps; migrations: MigrateResult } {
  const db = openDatabase(config.dbPath, { synchronous: config.sqliteSynchronous });
  let migrations: MigrateResult;
  try {
    migrations = migrate(db.$client);
  } catch (err) {
    db.$client.close();
    throw err;
  }
  const deps: Deps = {
    config,
    db,
    clock: base.clock,
    log: base.log,
    version: VERSION,
    rateLimiter: new RateLimiter(db, base.clock),
    keyUsage: new KeyUsage(db),
  };
  return { deps, migrations };
}

/** Writes what is held in memory (usage, day counters) and closes the database. */
export function closeDeps(deps: Deps): void {
  flushUsage(deps);
  closeDatabase(deps.db);
}

export function flushUsage(deps: Deps): void {
  deps.keyUsage.flush();
  deps.rateLimiter.flush();
}
