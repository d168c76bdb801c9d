import type { Config } from "../../config";
import { backupSqlite, defaultBackupDir, formatBytes, pruneBackups } from "../../db/backup";
import type { Deps } from "../../deps";

export const BACKUP_TASK = "maintenance.backup";

/** Where scheduled backups go: JOBPILOT_BACKUP_DIR, else `backups` beside the database. */
export function backupDirOf(config: Pick<Config, "backupDir" | "dbPath">): string {
  return config.backupDir ?? defaultBackupDir(config.dbPath);
}

/**
 * Whether `serve` makes scheduled backups, and if not why: only with JOBPILOT_BACKUP_CRON set, and only of a
 * SQLite file (one process owns it, so one node backs it up). PostgreSQL's backups are pg_dump's.
 */
export function scheduledBackups(config: { backupCron?: string; databaseUrl?: string; dbPath: string }): { on: true } | { on: false; why?: string } {
  if (!config.backupCron) return { on: false };
  if (config.databaseUrl) return { on: false, why: "JOBPILOT_BACKUP_CRON is ignored on PostgreSQL: back it up with pg_dump (README: Run it on a VPS)" };
  if (config.dbPath === ":memory:") return { on: false, why: "JOBPILOT_BACKUP_CRON is ignored for a :memory: database" };
  return { on: true };
}

/** The scheduled backup: a consistent copy of the database file (see db/backup), then only the newest JOBPILOT_BACKUP_KEEP kept. */
export async function runBackup(deps: Pick<Deps, "clock" | "log" | "config">): Promise<void> {
  const dir = backupDirOf(deps.config);
  const made = await backupSqlite({ dbPath: deps.config.dbPath, dir, nowMs: deps.clock.now() });
  const deleted = pruneBackups(dir, deps.config.backupKeep);
  deps.log.info("backup written", { path: made.path, size: formatBytes(made.bytes), ms: made.ms, deletedOld: deleted.length });
}
