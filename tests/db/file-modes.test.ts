import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backupSqlite } from "../../src/db/backup";
import { closeDatabase, openDatabase } from "../../src/db/client";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "jp-modes-"));
  dirs.push(dir);
  return dir;
}
const modeOf = (path: string) => statSync(path).mode & 0o777;

// The database holds key hashes, letters and client data: nobody but its owner reads it, whatever the umask.
describe("the files jobpilot creates are private", () => {
  test("a new database, its WAL and shared-memory files are 0600 and a folder made for them 0700", () => {
    const previous = process.umask(0o022);
    try {
      const path = join(scratch(), "data", "jobpilot.db");
      const db = openDatabase(path);
      db.$client.run("CREATE TABLE t (x)");
      db.$client.run("INSERT INTO t VALUES (1)");
      expect(modeOf(path)).toBe(0o600);
      expect(modeOf(`${path}-wal`)).toBe(0o600);
      expect(modeOf(`${path}-shm`)).toBe(0o600);
      expect(modeOf(join(path, ".."))).toBe(0o700);
      closeDatabase(db);
    } finally {
      process.umask(previous);
    }
  });

  test("an existing database keeps the mode its owner gave it", () => {
    const path = join(scratch(), "jobpilot.db");
    closeDatabase(openDatabase(path));
    chmodSync(path, 0o640);
    closeDatabase(openDatabase(path));
    expect(modeOf(path)).toBe(0o640);
  });

  test("a backup is 0600 in a backup folder made 0700", async () => {
    const previous = process.umask(0o022);
    try {
      const dir = scratch();
      const path = join(dir, "jobpilot.db");
      const db = openDatabase(path);
      db.$client.run("CREATE TABLE t (x)");
      const into = join(dir, "backups");
      const result = await backupSqlite({ dbPath: path, dir: into, nowMs: Date.UTC(2026, 11, 1) });
      closeDatabase(db);
      expect(modeOf(result.path)).toBe(0o600);
      expect(modeOf(into)).toBe(0o700);
      expect(readdirSync(into)).toEqual([result.path.slice(into.length + 1)]);
    } finally {
      process.umask(previous);
    }
  });
});
