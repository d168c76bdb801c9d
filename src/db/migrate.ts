import type { Database } from "bun:sqlite";
import { systemClock, type Clock } from "../lib/clock";
import { sha256Hex } from "../lib/hash";
import { MIGRATIONS, type EmbeddedMigration } from "./migrations.gen";

export interface MigrateResult {
  applied: string[];
  total: number;
}

/**
 * Applies the embedded migrations that this database has not seen, each in its
 * own IMMEDIATE transaction so the CLI and a starting server never apply one
 * twice. A landed migration whose text changed is refused: migrations are
 * append-only. `clock` dates each one in _migrations.
 */
export function migrate(sqlite: Database, opts: { migrations?: EmbeddedMigration[]; clock?: Clock } = {}): MigrateResult {
  const { migrations = MIGRATIONS, clock = systemClock } = opts;
  sqlite.run("CREATE TABLE IF NOT EXISTS _migrations (tag TEXT PRIMARY KEY NOT NULL, hash TEXT NOT NULL, applied_at_ts INTEGER NOT NULL)");
  const applied: string[] = [];
  for (const m of migrations) {
    const hash = sha256Hex(m.sql);
    const run = sqlite.transaction(() => {
      const row = sqlite.query("SELECT hash FROM _migrations WHERE tag = ?").get(m.tag) as { hash: string } | null;
      if (row) {
        if (row.hash !== hash) throw new Error(`migration ${m.tag} was changed after it was applied; add a new migration instead`);
        return false;
      }
      for (const statement of m.sql.split("--> statement-breakpoint")) {
        if (statement.trim()) sqlite.run(statement);
      }
      sqlite.query("INSERT INTO _migrations (tag, hash, applied_at_ts) VALUES (?, ?, ?)").run(m.tag, hash, clock.now());
      return true;
    });
    if (run.immediate()) applied.push(m.tag);
  }
  return { applied, total: migrations.length };
}

export interface MigrationState {
  /** Migrations this database has that this binary does not know: it was migrated by a newer jobpilot. */
  unknown: string[];
  /** Migrations of this binary the database has not had yet (applied at the next start). */
  pending: string[];
  /** Migrations whose text differs from the one this database had applied. */
  changed: string[];
}

/** How a database's migrations journal compares with this binary's migrations; null when it has no journal (not a jobpilot database). */
export function migrationState(sqlite: Database, migrations: EmbeddedMigration[] = MIGRATIONS): MigrationState | null {
  const hasJournal = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'").get();
  if (!hasJournal) return null;
  const landed = new Map((sqlite.query("SELECT tag, hash FROM _migrations").all() as { tag: string; hash: string }[]).map((r) => [r.tag, r.hash]));
  const known = new Map(migrations.map((m) => [m.tag, sha256Hex(m.sql)]));
  return {
    unknown: [...landed.keys()].filter((tag) => !known.has(tag)),
    pending: migrations.filter((m) => !landed.has(m.tag)).map((m) => m.tag),
    changed: [...landed].filter(([tag, hash]) => known.has(tag) && known.get(tag) !== hash).map(([tag]) => tag),
  };
}
