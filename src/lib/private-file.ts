import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates `path` (and any missing folder above it) readable by its owner only: the database holds key hashes,
 * letters and client data. SQLite gives the WAL and shared-memory files the database file's mode, so they are
 * private too. An existing file keeps the mode its owner gave it.
 */
export function createPrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, "wx", 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}
