/**
 * Online backups of the SQLite database (`jobpilot backup`, and JOBPILOT_BACKUP_CRON inside `serve`): VACUUM INTO
 * on a thread of its own, consistent while a server writes, and never a half-written file under a backup's name
 * (see docs/architecture.md, 'Online backups').
 */
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createPrivateFile } from "../lib/private-file";

export class BackupError extends Error {}

/** The backups this module writes, and only those: retention never touches any other file. */
const BACKUP_NAME = /^jobpilot-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ)(?:-(\d+))?\.sqlite$/;

/** `jobpilot-2026-11-25T20-30-00Z.sqlite` for the second of `nowMs`; `n` > 1 numbers a further backup in that second. */
export function backupFileName(nowMs: number, n = 1): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replaceAll(":", "-");
  return `jobpilot-${stamp}${n > 1 ? `-${n}` : ""}.sqlite`;
}

/** Where backups go unless told: a `backups` directory beside the database file. */
export function defaultBackupDir(dbPath: string): string {
  return join(dirname(resolve(dbPath)), "backups");
}

/** The backups in `dir`, oldest first (by the time in the name, then the number after it). */
export function listBackups(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found = readdirSync(dir).flatMap((name) => {
    const m = BACKUP_NAME.exec(name);
    return m ? [{ name, stamp: m[1]!, n: Number(m[2] ?? 1) }] : [];
  });
  found.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.n - b.n));
  return found.map((f) => join(dir, f.name));
}

/** Deletes all but the newest `keep` backups in `dir`; returns the paths deleted. */
export function pruneBackups(dir: string, keep: number): string[] {
  const all = listBackups(dir);
  const old = all.slice(0, Math.max(0, all.length - keep));
  for (const path of old) rmSync(path, { force: true });
  return old;
}

export interface BackupResult {
  path: string;
  bytes: number;
  ms: number;
}

export interface BackupOptions {
  dbPath: string;
  dir: string;
  nowMs: number;
  /** Bytes written so far of about `totalBytes` (the database's size; the copy leaves free pages out, so it ends below). */
  onProgress?: (writtenBytes: number, totalBytes: number) => void;
  progressEveryMs?: number;
}

/** From source the worker sits beside this file; in the compiled binary it is an extra entrypoint under src/ (scripts/build.ts). */
function workerUrl(): string {
  const beside = new URL("./backup.worker.ts", import.meta.url);
  return beside.protocol === "file:" && existsSync(fileURLToPath(beside)) ? beside.href : "./db/backup.worker.ts";
}

/** Runs VACUUM INTO on the backup thread, reporting the size of the file being written while it runs. */
function vacuumInto(dbPath: string, into: string, opts: Pick<BackupOptions, "onProgress" | "progressEveryMs">): Promise<void> {
  const worker = new Worker(workerUrl());
  let totalBytes = 0;
  const timer = setInterval(() => {
    if (!opts.onProgress || totalBytes === 0) return;
    let written = 0;
    try {
      written = statSync(into).size;
    } catch {
      // not created yet
    }
    opts.onProgress(written, totalBytes);
  }, opts.progressEveryMs ?? 100);
  return new Promise<void>((done, fail) => {
    const end = (err?: Error) => {
      clearInterval(timer);
      worker.terminate();
      if (err) fail(err);
      else done();
    };
    worker.addEventListener("message", (event: MessageEvent<{ totalBytes?: number; done?: true; error?: string }>) => {
      if (event.data.totalBytes !== undefined) totalBytes = event.data.totalBytes;
      if (event.data.done) end();
      if (event.data.error !== undefined) end(new BackupError(`the copy failed: ${event.data.error}`));
    });
    worker.addEventListener("error", (event: ErrorEvent) => end(new BackupError(`the backup thread failed: ${event.message}`)));
    worker.postMessage({ path: dbPath, into });
  });
}

/** Flushes a file (or a directory: a rename or link in it) to the disk. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes a consistent copy of the SQLite database `dbPath` into `dir` (created if missing), named with the time. */
export async function backupSqlite(opts: BackupOptions): Promise<BackupResult> {
  const started = performance.now();
  if (opts.dbPath === ":memory:") throw new BackupError("the database is :memory:, which holds nothing to back up: set --db or JOBPILOT_DB to the SQLite file");
  if (!existsSync(opts.dbPath)) throw new BackupError(`no SQLite database at ${opts.dbPath}: set --db or JOBPILOT_DB to the file to back up`);
  const dir = resolve(opts.dir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new BackupError(`cannot create the backup directory ${dir}: ${(err as Error).message}`);
  }
  const partial = join(dir, `.${backupFileName(opts.nowMs)}.${crypto.randomUUID().slice(0, 8)}.partial`);
  try {
    // VACUUM INTO writes into an empty file it is given, keeping its mode: a backup is as private as the database.
    createPrivateFile(partial);
    await vacuumInto(resolve(opts.dbPath), partial, opts);
    fsyncPath(partial);
    let path = "";
    for (let n = 1; !path; n++) {
      const candidate = join(dir, backupFileName(opts.nowMs, n));
      try {
        linkSync(partial, candidate);
        path = candidate;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    rmSync(partial, { force: true });
    fsyncPath(dir);
    return { path, bytes: statSync(path).size, ms: Math.round(performance.now() - started) };
  } catch (err) {
    rmSync(partial, { force: true });
    if (err instanceof BackupError) throw err;
    throw new BackupError(`cannot write the backup in ${dir}: ${(err as Error).message}`);
  }
}

/** `12.3 MiB`, `320 KiB`: sizes for reports and logs. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.max(1, Math.round(bytes / 1024))} KiB`;
}
