import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveSecretKey, SECRET_KEY_FILE } from "../../src/cli/secret-key";
import { loadConfig } from "../../src/config";
import { memoryLogger } from "../../src/lib/log";

/** The settings as loaded from `env`, on the database file `db`. */
const settings = (db: string, env: Record<string, string> = {}) => ({ ...loadConfig(env), dbPath: db });

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "jp-key-"));
  dirs.push(dir);
  return join(dir, "jobpilot.db");
}

describe("the secret key for stored channel secrets", () => {
  test("unset on SQLite: generated on first start into a 0600 file beside the database, logged; read back on the next start", () => {
    const db = dbPath();
    const log = memoryLogger();
    const key = resolveSecretKey(settings(db), log);
    const file = join(db, "..", SECRET_KEY_FILE);
    expect(key!.length).toBeGreaterThanOrEqual(16);
    expect(readFileSync(file, "utf8").trim()).toBe(key!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const generated = log.records().find((r) => String(r.msg).startsWith("generated a secret key"));
    expect(generated).toMatchObject({ level: "info", path: file });
    expect(log.lines.join("\n")).not.toContain(key!);
    const again = memoryLogger();
    expect(resolveSecretKey(settings(db), again)).toBe(key);
    expect(again.lines).toEqual([]);
  });

  test("in a directory that does not exist yet (a fresh clone, an empty directory): the folder is made 0700, the key 0600", () => {
    const root = dbPath();
    const db = join(root, "..", "data", "jobpilot.db");
    const key = resolveSecretKey(settings(db), memoryLogger());
    const file = join(root, "..", "data", SECRET_KEY_FILE);
    expect(readFileSync(file, "utf8").trim()).toBe(key!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, "..", "data")).mode & 0o777).toBe(0o700);
  });

  test("the setting wins (no file is made; a file already there is named in a warning); a broken or readable file is reported", () => {
    const db = dbPath();
    const log = memoryLogger();
    expect(resolveSecretKey(settings(db, { JOBPILOT_SECRET_KEY: "from-the-setting-0123" }), log)).toBe("from-the-setting-0123");
    expect(existsSync(join(db, "..", SECRET_KEY_FILE))).toBe(false);
    expect(log.lines).toEqual([]);
    resolveSecretKey(settings(db), log);
    const both = memoryLogger();
    resolveSecretKey(settings(db, { JOBPILOT_SECRET_KEY: "from-the-setting-0123" }), both);
    expect(both.records()[0]).toMatchObject({ level: "warn" });
    expect(String(both.records()[0]!.msg)).toContain("not used");

    const file = join(db, "..", SECRET_KEY_FILE);
    chmodSync(file, 0o644);
    const loose = memoryLogger();
    resolveSecretKey(settings(db), loose);
    expect(String(loose.records()[0]!.msg)).toContain("chmod 600");
    writeFileSync(file, "short\n");
    expect(() => resolveSecretKey(settings(db), loose)).toThrow(/fewer than 16 characters/);
  });

  test("PostgreSQL: no key file (nodes would each make their own); without the setting there is no key, and a warning says so", () => {
    const db = dbPath();
    const log = memoryLogger();
    expect(resolveSecretKey(settings(db, { JOBPILOT_DATABASE_URL: "postgres://x@127.0.0.1/db" }), log)).toBeNull();
    expect(existsSync(join(db, "..", SECRET_KEY_FILE))).toBe(false);
    expect(log.records()[0]).toMatchObject({ level: "warn" });
    expect(String(log.records()[0]!.msg)).toContain("JOBPILOT_SECRET_KEY");
    expect(resolveSecretKey(settings(db, { JOBPILOT_SECRET_KEY: "shared-by-all-nodes-01", JOBPILOT_DATABASE_URL: "postgres://x@127.0.0.1/db" }), log)).toBe(
      "shared-by-all-nodes-01",
    );
  });
});
