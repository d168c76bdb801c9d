/**
 * Puts a backup in place of the SQLite database (`jobpilot restore FILE`): the backup is checked beside the
 * database before anything changes, refused while anything has the database open (leaving WAL mode needs the
 * only connection), and renamed over the path so the path always names a whole database
 * (see docs/architecture.md, 'Restoring a backup').
 */
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, copyFileSync, existsSync, linkSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fsyncPath } from "./backup";
import { migrationState } from "./migrate";
import { MIGRATIONS, type EmbeddedMigration } from "./migrations.gen";

export class RestoreError extends Error {}

export interface RestoreOptions {
  backupPath: string;
  dbPath: string;
  nowMs: number;
  migrations?: EmbeddedMigration[];
}

export interface RestoreResult {
  /** Where the database that was in place is kept (null when there was none). */
  previousPath: string | null;
  /** Migrations the restored database lacks; the next start (serve or migrate) applies them. */
  pending: string[];
}

const SQLITE_HEADER = "SQLite format 3\0";

function hasSqliteHeader(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString("latin1") === SQLITE_HEADER;
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks the staged copy of a backup: integrity, and migrations this binary knows. Leaves it a single file in
 * rollback-journal mode (the server switches it back to WAL when it opens it). Returns the pending migrations.
 */
export function checkBackup(path: string, label: string, migrations: EmbeddedMigration[] = MIGRATIONS): string[] {
  if (!hasSqliteHeader(path)) throw new RestoreError(`${label} is not an SQLite database`);
  let db: Database;
  try {
    db = new Database(path, { readwrite: true, create: false });
  } catch (err) {
    throw new RestoreError(`cannot open ${label}: ${(err as Error).message}`);
  }
  try {
    let problems: string[];
    try {
      problems = (db.query("PRAGMA integrity_check(20)").all() as { integrity_check: string }[]).map((r) => r.integrity_check);
    } catch (err) {
      throw new RestoreError(`${label} is corrupt: ${(err as Error).message}`);
    }
    if (problems.length !== 1 || problems[0] !== "ok") {
      throw new RestoreError(`${label} is corrupt (PRAGMA integrity_check): ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? "; …" : ""}`);
    }
    const state = migrationState(db, migrations);
    if (!state) throw new RestoreError(`${label} is not a jobpilot database (it has no _migrations table)`);
    if (state.unknown.length > 0) {
      throw new RestoreError(
        `${label} comes from a newer jobpilot (its schema has migrations this binary does not know: ${state.unknown.join(", ")}); upgrade jobpilot, then restore it`,
      );
    }
    if (state.changed.length > 0) throw new RestoreError(`${label} has migrations that differ from this binary's: ${state.changed.join(", ")}`);
    db.run("PRAGMA journal_mode = DELETE");
    return state.pending;
  } finally {
    db.close();
  }
}

/**
 * Opens the database in place and takes it for ourselves, or refuses when anything else has it open. The
 * returned connection holds an exclusive lock until closed.
 */
function takeDatabase(dbPath: string): Database {
  const db = new Database(dbPath, { readwrite: true, create: false });
  try {
    db.run("PRAGMA busy_timeout = 0");
    const mode = (db.query("PRAGMA journal_mode = DELETE").get() as { journal_mode: string }).journal_mode;
    if (mode !== "delete") throw new Error(`journal mode stayed ${mode}`);
    db.run("BEGIN EXCLUSIVE");
    return db;
  } catch (err) {
    db.close();
    const busy = /locked|busy/i.test((err as Error).message) || (err as { code?: string }).code?.startsWith("SQLITE_BUSY");
    throw new RestoreError(
      busy
        ? `${dbPath} is in use: a jobpilot server (or another command) has it open. Stop it first (e.g. systemctl stop jobpilot), then run restore again`
        : `cannot take ${dbPath} for the restore: ${(err as Error).message}`,
    );
  }
}

export function restoreSqlite(opts: RestoreOptions): RestoreResult {
  if (opts.dbPath === ":memory:") throw new RestoreError("the database is :memory:: set --db or JOBPILOT_DB to the SQLite file to restore into");
  const backupPath = resolve(opts.backupPath);
  const dbPath = resolve(opts.dbPath);
  if (!existsSync(backupPath) || !statSync(backupPath).isFile()) throw new RestoreError(`no backup file at ${opts.backupPath}`);
  if (backupPath === dbPath) throw new RestoreError(`${opts.backupPath} is the database itself`);
  // A file with a WAL beside it is a live database: its last commits are in the WAL, which a copy of the file alone would lose.
  if (existsSync(`${backupPath}-wal`) && statSync(`${backupPath}-wal`).size > 0) {
    throw new RestoreError(
      `${opts.backupPath} has a -wal file beside it, so it is a database in use, not a backup: back it up with 'jobpilot backup --db ${opts.backupPath}' and restore that`,
    );
  }
  const dir = dirname(dbPath);
  const staged = join(dir, `.${basename(dbPath)}.restore-${crypto.randomUUID().slice(0, 8)}`);
  try {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      copyFileSync(backupPath, staged);
      // The restored database is private whatever mode the backup file was given.
      chmodSync(staged, 0o600);
    } catch (err) {
      throw new RestoreError(`cannot copy ${opts.backupPath} beside the database: ${(err as Error).message}`);
    }
    const pending = checkBackup(staged, opts.backupPath, opts.migrations);
    fsyncPath(staged);
    let previousPath: string | null = null;
    const held = existsSync(dbPath) ? takeDatabase(dbPath) : null;
    try {
      if (held) {
        previousPath = `${dbPath}.before-restore-${new Date(opts.nowMs)
          .toISOString()
          .replace(/\.\d{3}Z$/, "Z")
          .replaceAll(":", "-")}`;
        rmSync(previousPath, { force: true });
        linkSync(dbPath, previousPath);
      }
      // While the lock is held: nothing can be using these, and the file they belonged to is about to be replaced.
      for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(`${dbPath}${suffix}`, { force: true });
      renameSync(staged, dbPath);
      fsyncPath(dir);
    } finally {
      held?.close();
    }
    return { previousPath, pending };
  } finally {
    rmSync(staged, { force: true });
  }
}
