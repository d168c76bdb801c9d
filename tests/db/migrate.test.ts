import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, closeDatabase } from "../../src/db/client";
import { ManualClock } from "../../src/lib/clock";
import { migrate } from "../../src/db/migrate";
import { MIGRATIONS } from "../../src/db/migrations.gen";
import { PG_MIGRATIONS } from "../../src/db/migrations-pg.gen";
import { renderMigrationsModule } from "../../scripts/gen-migrations";

describe("migrations", () => {
  test("a fresh database migrates, and migrating again changes nothing", () => {
    const sqlite = new Database(":memory:");
    const first = migrate(sqlite);
    expect(first.applied).toEqual(MIGRATIONS.map((m) => m.tag));
    const tables = (sqlite.query("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(["accounts", "api_keys", "credit_ledger", "rate_limit_counters", "_migrations"]));
    const second = migrate(sqlite);
    expect(second.applied).toEqual([]);
    expect((sqlite.query("SELECT count(*) AS n FROM _migrations").get() as { n: number }).n).toBe(MIGRATIONS.length);
  });

  test("each migration is dated by the clock it is given", () => {
    const sqlite = new Database(":memory:");
    migrate(sqlite, { clock: new ManualClock(Date.UTC(2026, 2, 1)) });
    const dates = sqlite.query("SELECT DISTINCT applied_at_ts AS ts FROM _migrations").all() as { ts: number }[];
    expect(dates).toEqual([{ ts: Date.UTC(2026, 2, 1) }]);
  });

  test("a landed migration whose text changed is refused", () => {
    const sqlite = new Database(":memory:");
    migrate(sqlite);
    const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: m.sql + "\n-- edited" } : m));
    expect(() => migrate(sqlite, { migrations: edited })).toThrow(/was changed after it was applied/);
  });

  test("the PostgreSQL migrations are embedded too, one migrations-pg/ file each, in order", () => {
    expect(PG_MIGRATIONS.length).toBeGreaterThan(0);
    expect(PG_MIGRATIONS.map((m) => m.idx)).toEqual(PG_MIGRATIONS.map((_, i) => i));
  });

  test("the embedded modules match migrations/ and migrations-pg/ (run `bun run db:generate` after changing the schema)", () => {
    const root = join(import.meta.dir, "../..");
    expect(readFileSync(join(root, "src/db/migrations.gen.ts"), "utf8")).toBe(renderMigrationsModule(root));
    expect(readFileSync(join(root, "src/db/migrations-pg.gen.ts"), "utf8")).toBe(renderMigrationsModule(root, "postgresql"));
  });

  test("`gen-migrations --check` passes on the committed modules of both dialects", () => {
    const root = join(import.meta.dir, "../..");
    const run = Bun.spawnSync([process.execPath, "run", join(root, "scripts/gen-migrations.ts"), "--check"], { cwd: root, stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    expect(run.exitCode).toBe(0);
  });

  test("a file database opens in WAL mode with FULL sync, foreign keys and a busy timeout", () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-db-"));
    const db = openDatabase(join(dir, "nested", "x.db"));
    const get = (p: string) => Object.values(db.$client.query(`PRAGMA ${p}`).get() as object)[0];
    expect(get("journal_mode")).toBe("wal");
    expect(get("synchronous")).toBe(2); // FULL
    expect(get("foreign_keys")).toBe(1);
    expect(get("busy_timeout")).toBe(5000);
    closeDatabase(db);
  });
  test("0033 moves each job's match fields into job_texts and drops the column; a job without them gets no row", () => {
    const sqlite = new Database(":memory:");
    const upTo = MIGRATIONS.findIndex((m) => m.tag === "0033_job_texts");
    migrate(sqlite, { migrations: MIGRATIONS.slice(0, upTo) });
    const insert = sqlite.query(
      `INSERT INTO jobs (ciphertext, platform, title, url, email_found, source, document, first_seen_at_ts, explored_at_ts, updated_at_ts, match_fields)
       VALUES (?, 'marketplace', ?, 'https://example.com', 0, 'sandbox', '{}', ?, 1, 1, ?)`,
    );
    const fields = { title: "Rust CLI", description: "Über die Arbeit", skills: ["Rust", "C#"] };
    insert.run("~01", "Rust CLI", 1_000, JSON.stringify(fields));
    insert.run("~02", "Older job", 2_000, null);
    migrate(sqlite);
    const rows = sqlite.query("SELECT job_ciphertext, first_seen_at_ts, fields FROM job_texts").all() as {
      job_ciphertext: string;
      first_seen_at_ts: number;
      fields: string;
    }[];
    expect(rows.map((r) => ({ ...r, fields: JSON.parse(r.fields) }))).toEqual([{ job_ciphertext: "~01", first_seen_at_ts: 1_000, fields }]);
    const columns = (sqlite.query("SELECT name FROM pragma_table_info('jobs')").all() as { name: string }[]).map((c) => c.name);
    expect(columns).not.toContain("match_fields");
    expect(columns).toContain("document");
    expect((sqlite.query("SELECT count(*) AS n FROM jobs").get() as { n: number }).n).toBe(2);
  });
});
