import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Running } from "../../src/cli/command";
import { runCli } from "../../src/cli/index";
import { backupFileName, backupSqlite, listBackups, pruneBackups } from "../../src/db/backup";
import { closeDatabase, openDatabase } from "../../src/db/client";
import { copyPlan, sqliteTableChecksum } from "../../src/db/copy";
import { migrate } from "../../src/db/migrate";
import { MIGRATIONS } from "../../src/db/migrations.gen";
import { createAccount, grantCredits } from "../../src/modules/accounts/service";
import { ingestDocuments } from "../../src/modules/intake/ingest";
import { runBackup, scheduledBackups } from "../../src/modules/maintenance/backup.task";
import { createTestApp, TEST_SECRET_KEY, type TestApp } from "../helpers/app";
import { makeDoc } from "../helpers/factories";
import { startServer, type ServerProcess } from "../helpers/process";

let app: TestApp | undefined;
let child: ServerProcess | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  child?.proc.kill("SIGKILL");
  await child?.proc.exited;
  child = undefined;
});

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "jp-backup-"));
}

async function cli(env: Record<string, string>, ...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const result = await runCli(argv, { env, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  if (typeof result !== "number") throw new Error("a long-running command");
  return { code: result, stdout, stderr };
}

/** Every table's row count and checksum (as `db copy` proves a copy), and whether the file passes integrity_check. */
function fingerprint(path: string): { integrity: string; tables: Record<string, string> } {
  const db = new Database(path, { readonly: true, safeIntegers: true });
  try {
    const integrity = (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
    const tables: Record<string, string> = {};
    for (const table of copyPlan()) {
      const { rows, checksum } = sqliteTableChecksum(db, table);
      tables[table.name] = `${rows}:${checksum}`;
    }
    return { integrity, tables };
  } finally {
    db.close();
  }
}

function counts(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    return Object.fromEntries(copyPlan().map((t) => [t.name, (db.query(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n]));
  } finally {
    db.close();
  }
}

function toRunning(result: number | Running): Running {
  if (typeof result === "number") throw new Error(`serve exited ${result}`);
  return result;
}

/** A migrated database file; `migrations` lets a test make one of an older version. */
function makeDatabase(path: string, migrations = MIGRATIONS): void {
  const db = openDatabase(path);
  migrate(db.$client, { migrations });
  closeDatabase(db);
}

describe("backup and restore", () => {
  test("a backup taken during a write burst is one consistent state, and restoring it gives an identical database that opens and migrates", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "jobpilot.db");
    app = await createTestApp({ dbPath });
    // Enough data that the copy takes a while (several MB), so the writers below run while it is made.
    const filler = Array.from({ length: 1500 }, (_, i) => makeDoc({ title: `Filler ${i}`, description: `${"lorem ipsum dolor ".repeat(150)}${i}` }));
    for (let i = 0; i < filler.length; i += 500) await ingestDocuments(app.deps, filler.slice(i, i + 500), { source: "test" });
    const granted = await createAccount(app.deps, { name: "granted", credits: 1 });
    const base = counts(dbPath);

    // Two writers through the real services: new accounts (account + key + ledger row in one transaction) and
    // grants to one account (balance + ledger row in one transaction).
    let written = 0;
    let stop = false;
    const writers = Promise.all([
      (async () => {
        while (!stop) {
          await createAccount(app!.deps, { name: `w-${written + 1}`, credits: 1 });
          written++;
          await Bun.sleep(0);
        }
      })(),
      (async () => {
        while (!stop) {
          await grantCredits(app!.deps, granted.account.id, 1, "burst");
          await Bun.sleep(0);
        }
      })(),
    ]);
    while (written < 20) await Bun.sleep(1);
    const writtenAtStart = written;
    const backup = await cli({ JOBPILOT_DB: dbPath }, "backup", "--json");
    const writtenAtEnd = written;
    expect(backup.code, backup.stderr).toBe(0);
    while (written < writtenAtEnd + 20) await Bun.sleep(1);
    stop = true;
    await writers;
    const { path } = JSON.parse(backup.stdout) as { path: string };
    expect(basename(path)).toMatch(/^jobpilot-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.sqlite$/);
    expect(path.startsWith(join(dir, "backups"))).toBe(true);
    // The writers went on while the copy was made, and after it.
    expect(writtenAtEnd).toBeGreaterThan(writtenAtStart);

    const copy = new Database(path, { readonly: true });
    const names = (copy.query("SELECT name FROM accounts WHERE name LIKE 'w-%'").all() as { name: string }[]).map((r) => Number(r.name.slice(2)));
    const inCopy = names.length;
    const grantsInCopy = (copy.query("SELECT count(*) AS n FROM credit_ledger WHERE note = 'burst'").get() as { n: number }).n;
    // One moment of the burst: the accounts are 1..k with none missing, every one whole (its key and its
    // ledger row), every balance the sum of its ledger; k lies between the writes done before and after.
    expect(names.sort((a, b) => a - b)).toEqual(Array.from({ length: inCopy }, (_, i) => i + 1));
    expect(inCopy).toBeGreaterThanOrEqual(writtenAtStart);
    expect(inCopy).toBeLessThanOrEqual(writtenAtEnd);
    expect(inCopy).toBeLessThan(written);
    expect(copy.query("SELECT count(*) AS n FROM accounts a WHERE NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.account_id = a.id)").get()).toEqual({ n: 0 });
    expect(
      copy
        .query(
          "SELECT count(*) AS n FROM accounts a WHERE a.credits_balance != (SELECT coalesce(sum(delta), 0) FROM credit_ledger l WHERE l.account_id = a.id)",
        )
        .get(),
    ).toEqual({ n: 0 });
    copy.close();
    // Row counts are exactly the state at that moment: the base plus what the writes it holds added.
    expect(counts(path)).toEqual({
      ...base,
      accounts: base.accounts! + inCopy,
      api_keys: base.api_keys! + inCopy,
      credit_ledger: base.credit_ledger! + inCopy + grantsInCopy,
    });
    const backupPrint = fingerprint(path);
    expect(backupPrint.integrity).toBe("ok");

    await app.close();
    app = undefined;

    // Restored into a new place (restoring over a database in place: the next test), it is the same database.
    const target = join(dir, "restored", "jobpilot.db");
    const restored = await cli({ JOBPILOT_DB: target }, "restore", path);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`Restored ${path} into ${target} (integrity checked).`);
    expect(fingerprint(target)).toEqual(backupPrint);
    for (const suffix of ["-wal", "-shm"]) expect(existsSync(`${target}${suffix}`)).toBe(false);
    // It opens and migrates (nothing to apply: same version), and serves: the balance is the one of the backup.
    const db = openDatabase(target);
    expect(migrate(db.$client).applied).toEqual([]);
    closeDatabase(db);
    app = await createTestApp({ dbPath: target });
    const keyOfGranted = await app.request("GET", "/api/v1/account", { key: granted.apiKey });
    expect(keyOfGranted.body.account.credits).toBe(1 + grantsInCopy);
  }, 60_000);

  test("restore refuses while a server holds the database, in this process or another, and replaces it once the server is gone (even killed), keeping the old one", async () => {
    const dir = tempDir();
    const env = (name: string) => ({ JOBPILOT_DB: join(dir, name), PORT: "0", JOBPILOT_SOURCES: "none", LOG_LEVEL: "warn" });
    makeDatabase(join(dir, "source.db"));
    const made = await cli(env("source.db"), "backup", "--json");
    expect(made.code, made.stderr).toBe(0);
    const { path } = JSON.parse(made.stdout) as { path: string };

    // serve in this process
    const running = toRunning(await runCli(["serve"], { env: env("inprocess.db"), stdout: () => {}, stderr: () => {} }));
    const before = fingerprint(join(dir, "inprocess.db"));
    const refused = await cli(env("inprocess.db"), "restore", path);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${join(dir, "inprocess.db")} is in use: a jobpilot server (or another command) has it open. Stop it first`);
    await running.stop("test");
    expect(fingerprint(join(dir, "inprocess.db"))).toEqual(before);
    expect(readdirSync(dir).filter((f) => f.includes("before-restore") || f.includes(".restore-"))).toEqual([]);

    // serve in another process, then killed without a chance to clean up: the kernel drops its locks with it.
    const dbPath = join(dir, "jobpilot.db");
    child = await startServer([process.execPath, "run", "src/main.ts", "serve"], env("jobpilot.db"));
    const refusedToo = await cli(env("jobpilot.db"), "restore", path);
    expect(refusedToo.code).toBe(1);
    expect(refusedToo.stderr).toContain("is in use");
    child.proc.kill("SIGKILL");
    await child.proc.exited;
    const accepted = await cli(env("jobpilot.db"), "restore", path);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(fingerprint(dbPath)).toEqual(fingerprint(path));
    for (const suffix of ["-wal", "-shm", "-journal"]) expect(existsSync(`${dbPath}${suffix}`)).toBe(false);
    // The replaced database is kept whole, with what the killed server had committed (its first-run account).
    const previous = /kept as (\S+);/.exec(accepted.stdout)?.[1];
    expect(previous && basename(previous)).toMatch(/^jobpilot\.db\.before-restore-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/);
    expect(fingerprint(previous!).integrity).toBe("ok");
    expect(counts(previous!).accounts).toBe(1);
    expect(counts(dbPath).accounts).toBe(0);
  }, 60_000);

  test("restore refuses a corrupt file, a file that is no database or no jobpilot database, and a backup from a newer jobpilot, changing nothing", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "jobpilot.db");
    makeDatabase(dbPath);
    const env = { JOBPILOT_DB: dbPath };
    const { path } = JSON.parse((await cli(env, "backup", "--json")).stdout) as { path: string };
    const before = fingerprint(dbPath);

    const corrupt = join(dir, "corrupt.sqlite");
    writeFileSync(corrupt, readFileSync(path));
    const fd = openSync(corrupt, "r+");
    // Garbage over pages 3 to 6: table and index b-tree pages.
    writeSync(fd, Buffer.alloc(4 * 4096, 0x5a), 0, 4 * 4096, 2 * 4096);
    closeSync(fd);
    const newer = join(dir, "newer.sqlite");
    writeFileSync(newer, readFileSync(path));
    const n = new Database(newer);
    n.run("INSERT INTO _migrations (tag, hash, applied_at_ts) VALUES ('9999_from_the_future', 'x', 0)");
    n.close();
    const text = join(dir, "notes.txt");
    writeFileSync(text, "not a database at all, but long enough to have a header's worth of bytes");
    const foreign = join(dir, "foreign.sqlite");
    const f = new Database(foreign, { create: true });
    f.run("CREATE TABLE t (x)");
    f.close();

    for (const [file, message] of [
      [corrupt, /corrupt\.sqlite is corrupt/],
      [newer, /newer\.sqlite comes from a newer jobpilot \(its schema has migrations this binary does not know: 9999_from_the_future\)/],
      [text, /notes\.txt is not an SQLite database/],
      [foreign, /foreign\.sqlite is not a jobpilot database/],
      [join(dir, "missing.sqlite"), /no backup file at/],
    ] as const) {
      const res = await cli(env, "restore", file);
      expect(res.code, `${file}: ${res.stderr}`).toBe(1);
      expect(res.stderr).toMatch(message);
    }
    expect(fingerprint(dbPath)).toEqual(before);
    expect(readdirSync(dir).filter((name) => name.includes("before-restore") || name.includes(".restore-"))).toEqual([]);
  });

  test("a backup from an older jobpilot restores, says what the next start applies, and migrates", async () => {
    const dir = tempDir();
    const olderPath = join(dir, "older.db");
    makeDatabase(olderPath, MIGRATIONS.slice(0, -1));
    const backup = await backupSqlite({ dbPath: olderPath, dir: join(dir, "b"), nowMs: Date.UTC(2026, 0, 2, 3, 4, 5) });
    expect(basename(backup.path)).toBe("jobpilot-2026-01-02T03-04-05Z.sqlite");
    const dbPath = join(dir, "fresh", "jobpilot.db");
    const res = await cli({ JOBPILOT_DB: dbPath }, "restore", backup.path, "--json");
    expect(res.code, res.stderr).toBe(0);
    const last = MIGRATIONS[MIGRATIONS.length - 1]!.tag;
    expect(JSON.parse(res.stdout)).toMatchObject({ previousPath: null, pending: [last] });
    const db = openDatabase(dbPath);
    expect(migrate(db.$client).applied).toEqual([last]);
    closeDatabase(db);
  });

  test("retention keeps the newest N backups by the time in their names and touches no other file", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "jobpilot.db");
    makeDatabase(dbPath);
    const backups = join(dir, "backups");
    mkdirSync(backups);
    const other = ["notes.txt", "jobpilot-latest.sqlite", "jobpilot-2020-01-01T00-00-00Z.sqlite.bak"];
    for (const name of other) writeFileSync(join(backups, name), "keep me");
    const t0 = Date.UTC(2026, 10, 25, 20, 30, 0);
    const made: string[] = [];
    const at = (i: number) => made[i]!;
    // Out of order, and two in one second (the second is numbered).
    for (const nowMs of [t0 + 60_000, t0, t0 + 120_000, t0 + 120_400]) made.push(basename((await backupSqlite({ dbPath, dir: backups, nowMs })).path));
    expect(made).toEqual([backupFileName(t0 + 60_000), backupFileName(t0), backupFileName(t0 + 120_000), backupFileName(t0 + 120_000, 2)]);
    expect(made[3]).toBe("jobpilot-2026-11-25T20-32-00Z-2.sqlite");
    expect(listBackups(backups).map((p) => basename(p))).toEqual([at(1), at(0), at(2), at(3)]);
    expect(pruneBackups(backups, 2).map((p) => basename(p))).toEqual([at(1), at(0)]);
    expect(readdirSync(backups).sort()).toEqual([...other, at(2), at(3)].sort());

    // `backup --keep 1` from the command line.
    const res = await cli({ JOBPILOT_DB: dbPath }, "backup", "--keep", "1");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("Deleted 2 older backups (kept the newest 1).");
    expect(readdirSync(backups).filter((n) => !other.includes(n))).toHaveLength(1);
    // No partial file is ever left behind.
    expect(readdirSync(backups).filter((n) => n.startsWith("."))).toEqual([]);
    expect((await cli({ JOBPILOT_DB: dbPath }, "backup", "--keep", "0")).code).toBe(2);
  });

  test("scheduled backups: serve runs them on JOBPILOT_BACKUP_CRON into JOBPILOT_BACKUP_DIR and keeps JOBPILOT_BACKUP_KEEP", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "jobpilot.db");
    const backupDir = join(dir, "elsewhere");
    app = await createTestApp({ dbPath, config: { backupCron: "0 3 * * *", backupKeep: 2, backupDir } });
    for (let i = 0; i < 3; i++) {
      await runBackup(app.deps);
      app.clock.advance(1000);
    }
    expect(listBackups(backupDir)).toHaveLength(2);
    expect(app.log.records().filter((r) => r.msg === "backup written")).toHaveLength(3);
    await app.close();
    app = undefined;
    expect(scheduledBackups({ backupCron: "0 3 * * *", dbPath })).toEqual({ on: true });
    expect(scheduledBackups({ dbPath })).toEqual({ on: false });
    expect(scheduledBackups({ backupCron: "0 3 * * *", databaseUrl: "postgres://u@h/db", dbPath })).toMatchObject({
      on: false,
      why: expect.stringContaining("pg_dump"),
    });

    // The real server, a backup every second.
    const running = await runCli(["serve"], {
      env: {
        JOBPILOT_DB: dbPath,
        PORT: "0",
        JOBPILOT_SOURCES: "none",
        JOBPILOT_BACKUP_CRON: "* * * * * *",
        JOBPILOT_BACKUP_KEEP: "1",
        JOBPILOT_BACKUP_DIR: backupDir,
      },
      stdout: () => {},
      stderr: () => {},
    });
    if (typeof running === "number") throw new Error(`serve exited ${running}`);
    const first = listBackups(backupDir).at(-1);
    const until = Date.now() + 10_000;
    while (listBackups(backupDir).at(-1) === first && Date.now() < until) await Bun.sleep(50);
    await running.stop("test");
    expect(listBackups(backupDir).at(-1)).not.toBe(first);
    expect(listBackups(backupDir)).toHaveLength(1);
    expect(statSync(listBackups(backupDir)[0]!).size).toBeGreaterThan(0);
    // A pattern croner cannot read stops the start, naming the variable.
    const bad = await cli({ JOBPILOT_DB: dbPath, JOBPILOT_BACKUP_CRON: "61 * * * * *" }, "serve");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Invalid JOBPILOT_BACKUP_CRON");
  }, 30_000);

  test("on PostgreSQL, backup and restore refuse and give the pg_dump and pg_restore commands, without the password", async () => {
    const env = { JOBPILOT_DATABASE_URL: "postgres://jp:s3cret@db.example:5432/jobpilot" };
    const backup = await cli(env, "backup");
    expect(backup.code).toBe(2);
    expect(backup.stderr).toContain("this installation uses PostgreSQL (JOBPILOT_DATABASE_URL); jobpilot backup works on the SQLite file only.");
    expect(backup.stderr).toContain("pg_dump --format=custom --file=jobpilot-$(date -u +%Y-%m-%dT%H-%M-%SZ).dump 'postgres://jp@db.example:5432/jobpilot'");
    const restore = await cli(env, "restore", "x.dump");
    expect(restore.code).toBe(2);
    expect(restore.stderr).toContain("pg_restore --clean --if-exists --no-owner --dbname='postgres://jp@db.example:5432/jobpilot'");
    expect(backup.stderr + restore.stderr).not.toContain("s3cret");
  });

  test("a backup holds no feed webhook URL or secret in clear, not even of rows an earlier version wrote (serve seals them at start); restored, the same key opens them", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "jobpilot.db");
    app = await createTestApp({ dbPath });
    const { apiKey } = await app.account();
    const post = (title: string, webhookUrl: string) => app!.request("POST", "/api/v1/feeds", { key: apiKey, json: { title, minScore: 0, webhookUrl } });
    const url = `https://hooks.example.com/backup/${crypto.randomUUID()}`;
    const feed = (await post("sealed", url)).body.feed;
    const rotated = (await app.request("POST", `/api/v1/feeds/${feed.id}/webhook/rotate-secret`, { key: apiKey })).body.feed;
    // A second feed as an earlier version left it: URL and secret in clear.
    const legacyUrl = `https://hooks.example.com/legacy/${crypto.randomUUID()}`;
    const legacy = (await post("legacy", legacyUrl)).body.feed;
    app.deps.db.$client.run("UPDATE feeds SET webhook_url = ?, webhook_secret = ? WHERE id = ?", [legacyUrl, legacy.webhookSecret, legacy.id]);
    await app.close();
    app = undefined;

    const running = toRunning(
      await runCli(["serve"], {
        env: { JOBPILOT_DB: dbPath, PORT: "0", JOBPILOT_SOURCES: "none", JOBPILOT_SECRET_KEY: TEST_SECRET_KEY },
        stdout: () => {},
        stderr: () => {},
      }),
    );
    await running.stop("test");
    const backup = await cli({ JOBPILOT_DB: dbPath }, "backup", "--json");
    expect(backup.code, backup.stderr).toBe(0);
    const { path } = JSON.parse(backup.stdout) as { path: string };
    const bytes = readFileSync(path);
    const secrets = [feed.webhookSecret, rotated.webhookSecret, legacy.webhookSecret] as string[];
    for (const clear of [url, legacyUrl, ...secrets, ...secrets.map((s) => s.slice("whsec_".length))]) {
      expect(bytes.indexOf(clear), `${clear} is in the backup`).toBe(-1);
    }

    const target = join(dir, "restored", "jobpilot.db");
    const restored = await cli({ JOBPILOT_DB: target }, "restore", path);
    expect(restored.code, restored.stderr).toBe(0);
    app = await createTestApp({ dbPath: target });
    const listed = (await app.request("GET", "/api/v1/feeds", { key: apiKey })).body.feeds as { id: string; webhookUrl: string; webhookSecret: string }[];
    const mask = (s: string) => `whsec_…${s.slice(-4)}`;
    expect(listed.map((f) => [f.id, f.webhookUrl, f.webhookSecret])).toEqual([
      [feed.id, url, mask(rotated.webhookSecret)],
      [legacy.id, legacyUrl, mask(legacy.webhookSecret)],
    ]);
  }, 30_000);

  test("jobpilot migrate seals webhook URLs and secrets an earlier version left in clear, once, as serve's start does", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "jobpilot.db");
    app = await createTestApp({ dbPath });
    const { apiKey } = await app.account();
    const legacyUrl = `https://hooks.example.com/legacy/${crypto.randomUUID()}`;
    const legacy = (await app.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "legacy", minScore: 0, webhookUrl: legacyUrl } })).body.feed;
    app.deps.db.$client.run("UPDATE feeds SET webhook_url = ?, webhook_secret = ? WHERE id = ?", [legacyUrl, legacy.webhookSecret, legacy.id]);
    await app.close();
    app = undefined;
    const env = { JOBPILOT_DB: dbPath, JOBPILOT_SECRET_KEY: TEST_SECRET_KEY };
    const first = await cli(env, "migrate");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("sealed the webhook URLs and secrets of 1 feed(s)");
    const again = await cli(env, "migrate");
    expect(again.stdout).not.toContain("sealed");
    const backup = await cli({ JOBPILOT_DB: dbPath }, "backup", "--json");
    const bytes = readFileSync((JSON.parse(backup.stdout) as { path: string }).path);
    for (const clear of [legacyUrl, legacy.webhookSecret as string]) expect(bytes.indexOf(clear), `${clear} is in the backup`).toBe(-1);
  }, 30_000);

  test("backup refuses :memory: and a missing database", async () => {
    const memory = await cli({ JOBPILOT_DB: ":memory:" }, "backup");
    expect(memory.code).toBe(1);
    expect(memory.stderr).toContain(":memory:, which holds nothing to back up");
    const missing = await cli({ JOBPILOT_DB: join(tempDir(), "none.db") }, "backup");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no SQLite database at");
  });
});
