import { backupSqlite, BackupError, formatBytes, pruneBackups } from "../db/backup";
import { backupDirOf } from "../modules/maintenance/backup.task";
import { restoreSqlite, RestoreError } from "../db/restore";
import type { Config } from "../config";
import { intFlag, UsageError, type Command, type CommandContext } from "./command";
import { printJson } from "./db";
import { progressBar } from "./progress";

/** A PostgreSQL URL fit to print: no password (pg_dump takes it from PGPASSWORD or ~/.pgpass). */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = "";
    u.searchParams.delete("password");
    return u.toString();
  } catch {
    return "postgres://USER@HOST:5432/DATABASE";
  }
}

/** What to do instead on PostgreSQL, whose backups are PostgreSQL's own. */
export function pgBackupAdvice(url: string, command: "backup" | "restore"): string {
  const target = withoutPassword(url);
  return [
    `jobpilot ${command}: this installation uses PostgreSQL (JOBPILOT_DATABASE_URL); jobpilot ${command} works on the SQLite file only.`,
    "Back PostgreSQL up with pg_dump:",
    `  pg_dump --format=custom --file=jobpilot-$(date -u +%Y-%m-%dT%H-%M-%SZ).dump '${target}'`,
    "and restore a dump (with every jobpilot node stopped) with pg_restore:",
    `  pg_restore --clean --if-exists --no-owner --dbname='${target}' jobpilot-….dump`,
    "Both read the password from PGPASSWORD or ~/.pgpass. A managed PostgreSQL's point-in-time recovery works too.",
    "",
  ].join("\n");
}

function refusePg(ctx: CommandContext, config: Config, command: "backup" | "restore"): number | null {
  if (!config.databaseUrl) return null;
  ctx.io.stderr(pgBackupAdvice(config.databaseUrl, command));
  return 2;
}

export const backupCommand: Command = {
  name: "backup",
  summary: "Write a consistent copy of the SQLite database, even while the server runs.",
  usage: "jobpilot backup [--to DIR] [--keep N] [--db PATH] [--json]",
  details: [
    "The copy is made with SQLite's VACUUM INTO in one read transaction: a consistent snapshot of a database in use,",
    "without stopping or slowing the server's writes. It is named with the time in UTC, e.g.",
    "jobpilot-2026-11-25T20-30-00Z.sqlite, written under a temporary name and renamed once complete and synced.",
    "DIR defaults to JOBPILOT_BACKUP_DIR, else a `backups` directory beside the database. --keep N then deletes",
    "all but the newest N backups in DIR (only files named like these). Restore one with `jobpilot restore FILE`.",
    "On PostgreSQL it prints the pg_dump command to use instead and exits 2.",
  ].join("\n"),
  options: {
    to: { type: "string", value: "DIR", description: "Directory to write the backup to (env JOBPILOT_BACKUP_DIR, default <database dir>/backups)" },
    keep: { type: "string", value: "N", description: "Afterwards keep only the newest N backups in DIR (default: keep all)" },
    json: { type: "boolean", description: "Print the result as JSON" },
  },
  async run(ctx) {
    const config = ctx.config();
    const keep = intFlag(ctx, "keep");
    if (keep !== undefined && keep < 1) throw new UsageError("--keep must be at least 1");
    const refused = refusePg(ctx, config, "backup");
    if (refused !== null) return refused;
    const dir = typeof ctx.values.to === "string" && ctx.values.to !== "" ? ctx.values.to : backupDirOf(config);
    const bar = progressBar({ write: ctx.io.stderr, tty: ctx.io.stderrIsTTY === true });
    let result: Awaited<ReturnType<typeof backupSqlite>>;
    try {
      result = await backupSqlite({
        dbPath: config.dbPath,
        dir,
        nowMs: Date.now(),
        onProgress: (written, total) => bar.update("backup", Math.round(written / 1024), Math.round(total / 1024), "KiB"),
      });
      bar.clear();
    } catch (err) {
      bar.clear();
      if (err instanceof BackupError) {
        ctx.io.stderr(`jobpilot backup: ${err.message}\n`);
        return 1;
      }
      throw err;
    }
    const deleted = keep === undefined ? [] : pruneBackups(dir, keep);
    if (ctx.values.json) {
      printJson(ctx, { path: result.path, bytes: result.bytes, ms: result.ms, deleted });
      return 0;
    }
    const lines = [`Backed up ${config.dbPath} to ${result.path} (${formatBytes(result.bytes)}) in ${(result.ms / 1000).toFixed(1)} s.`];
    if (deleted.length > 0) lines.push(`Deleted ${deleted.length} older backup${deleted.length === 1 ? "" : "s"} (kept the newest ${keep}).`);
    lines.push(`Restore it with the server stopped: jobpilot restore ${result.path}`, "");
    ctx.io.stdout(lines.join("\n"));
    return 0;
  },
};

export const restoreCommand: Command = {
  name: "restore",
  summary: "Replace the SQLite database with a backup, after checking it (the server must be stopped).",
  usage: "jobpilot restore FILE [--db PATH] [--json]",
  positionals: [{ name: "FILE", required: true }],
  details: [
    "Refuses, changing nothing, while anything has the database open (a running server: stop it first), when FILE fails",
    "PRAGMA integrity_check or is not a jobpilot database, and when FILE comes from a newer jobpilot (its schema has",
    "migrations this binary does not know). An older backup is fine: the next start applies the missing migrations.",
    "The database in place is kept beside it as <db>.before-restore-<time>; the backup then replaces it in one rename.",
    "On PostgreSQL it prints the pg_restore command to use instead and exits 2.",
  ].join("\n"),
  options: {
    json: { type: "boolean", description: "Print the result as JSON" },
  },
  run(ctx) {
    const config = ctx.config();
    const refused = refusePg(ctx, config, "restore");
    if (refused !== null) return refused;
    const file = ctx.positionals[0]!;
    let result: ReturnType<typeof restoreSqlite>;
    try {
      result = restoreSqlite({ backupPath: file, dbPath: config.dbPath, nowMs: Date.now() });
    } catch (err) {
      if (err instanceof RestoreError) {
        ctx.io.stderr(`jobpilot restore: ${err.message}\n`);
        return 1;
      }
      throw err;
    }
    if (ctx.values.json) {
      printJson(ctx, { restored: file, database: config.dbPath, ...result });
      return 0;
    }
    const lines = [`Restored ${file} into ${config.dbPath} (integrity checked).`];
    if (result.previousPath) lines.push(`The database it replaced is kept as ${result.previousPath}; delete it once you are happy.`);
    if (result.pending.length > 0) lines.push(`The backup is from an older jobpilot: the next start applies ${result.pending.join(", ")}.`);
    lines.push("Start the server again (e.g. systemctl start jobpilot).", "");
    ctx.io.stdout(lines.join("\n"));
    return 0;
  },
};
