import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { is } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { PgTable, getTableConfig as pgTableConfig } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig as sqliteTableConfig } from "drizzle-orm/sqlite-core";
import { COMMANDS } from "../../src/cli/index";
import { SECRET_KEY_FILE } from "../../src/cli/secret-key";
import { progressBar } from "../../src/cli/progress";
import { closePgDatabase, openPgDatabase } from "../../src/db/client-pg";
import { copyPlan, copySqliteToPg, pgTableChecksum, pgValue, sqliteTableChecksum, sqliteValue, type CopyColumn } from "../../src/db/copy";
import { migratePg } from "../../src/db/migrate-pg";
import * as pgSchema from "../../src/db/schema-pg";
import * as sqliteSchema from "../../src/db/schema";
import { isEnvelope } from "../../src/lib/secret-box";
import { openWebhook } from "../../src/modules/feeds/webhook-seal";
import { cliRun, populatedSqlite } from "../helpers/populated-sqlite";
import { createPgDatabase, describePg, TEST_DATABASE_URL, usePgDatabase, type TestPgDatabase } from "../helpers/postgres";

/** `jobpilot db copy …` on the SQLite file `db`. */
const dbCopy = (db: string, ...argv: string[]) => cliRun({ JOBPILOT_DB: db }, "db", "copy", ...argv);

/** A new SQLite file with every migration applied and nothing else. */
async function migratedSqlite(): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), "jp-dbcopy-")), "empty.db");
  expect((await cliRun({ JOBPILOT_DB: path }, "migrate")).code).toBe(0);
  return path;
}

/** A port nothing listens on (bound, then released). */
function closedPort(): number {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

describe("db copy: plan, values and command line", () => {
  test("the plan covers every table of both schemas, parents before children, with the identity columns PostgreSQL generates", () => {
    const plan = copyPlan();
    const names = (schema: object, cls: typeof PgTable | typeof SQLiteTable, config: (t: never) => { name: string }) =>
      Object.values(schema)
        .filter((t) => is(t, cls))
        .map((t) => config(t as never).name)
        .sort();
    expect(plan.map((t) => t.name).sort()).toEqual(names(pgSchema, PgTable, pgTableConfig));
    expect(plan.map((t) => t.name).sort()).toEqual(names(sqliteSchema, SQLiteTable, sqliteTableConfig));
    const position = new Map(plan.map((t, i) => [t.name, i]));
    for (const t of plan) for (const parent of t.parents) expect(position.get(parent)!, `${parent} before ${t.name}`).toBeLessThan(position.get(t.name)!);
    expect(position.get("accounts")).toBeLessThan(position.get("feeds")!);
    expect(position.get("events")).toBeLessThan(position.get("webhook_attempts")!);
    expect(Object.fromEntries(plan.filter((t) => t.identity).map((t) => [t.name, t.identity]))).toEqual({
      credit_ledger: "id",
      events: "seq",
      webhook_attempts: "id",
      tasks: "id",
    });
    expect(plan.find((t) => t.name === "rate_limit_counters")!.primaryKey).toEqual(["key_id", "bucket", "window_start_ts"]);
  });

  test("a value is spelled the same from SQLite and from PostgreSQL: 64-bit integers exactly, doubles by round trip, booleans, text as stored", () => {
    const col = (kind: CopyColumn["kind"], pgType: string): CopyColumn => ({ name: "c", kind, pgType });
    const same = (c: CopyColumn, fromSqlite: unknown, fromPg: unknown, spelled: string | null) => {
      expect(sqliteValue("t", c, fromSqlite)).toBe(spelled);
      expect(pgValue("t", c, fromPg)).toBe(spelled);
    };
    same(col("int", "bigint"), 9007199254740993n, "9007199254740993", "9007199254740993");
    same(col("int", "bigint"), 1795304707542n, "1795304707542", "1795304707542");
    same(col("int", "integer"), -7n, -7, "-7");
    same(col("float", "double precision"), 0.1 + 0.2, 0.1 + 0.2, "0.30000000000000004");
    same(col("float", "double precision"), 1e-300, 1e-300, "1e-300");
    same(col("float", "double precision"), 5n, 5, "5");
    same(col("float", "double precision"), -0, -0, "-0");
    same(col("bool", "boolean"), 1n, true, "true");
    same(col("bool", "boolean"), 0n, false, "false");
    same(col("text", "text"), '{ "a" : "\\u00fc" }', '{ "a" : "\\u00fc" }', '{ "a" : "\\u00fc" }');
    same(col("text", "text"), null, null, null);
    // What SQLite's loose typing could hold but PostgreSQL's column cannot: named, not guessed at.
    expect(() => sqliteValue("t", col("int", "bigint"), 1.5)).toThrow("t.c holds");
    expect(() => sqliteValue("t", col("bool", "boolean"), 2n)).toThrow("not a valid boolean");
    expect(() => sqliteValue("t", col("text", "text"), new Uint8Array([1]))).toThrow("not a valid text");
  });

  test("progress: one bar redrawn in place on a terminal, plain lines every few seconds otherwise", () => {
    let clock = 0;
    let tty = "";
    const bar = progressBar({ write: (s) => void (tty += s), tty: true, now: () => clock });
    bar.update("copy", 0, 2000, "accounts");
    clock += 50;
    bar.update("copy", 1000, 2000, "jobs"); // too soon to redraw
    clock += 100;
    bar.update("copy", 1500, 2000, "jobs");
    bar.update("copy", 2000, 2000, "jobs"); // the end is always drawn
    bar.finish("copy", "2,000 rows (0.2 s)");
    const frames = tty.split("\r\x1b[2K").filter(Boolean);
    expect(frames).toEqual([
      `copy   [${"░".repeat(28)}]   0%  0/2,000  accounts`,
      `copy   [${"█".repeat(21)}${"░".repeat(7)}]  75%  1,500/2,000  jobs`,
      `copy   [${"█".repeat(28)}] 100%  2,000/2,000  jobs`,
      "copy: 2,000 rows (0.2 s)\n",
    ]);
    let plain = "";
    clock = 0;
    const lines = progressBar({ write: (s) => void (plain += s), tty: false, now: () => clock });
    lines.update("verify", 0, 10, "accounts");
    clock += 1000;
    lines.update("verify", 5, 10, "jobs");
    clock += 1500;
    lines.update("verify", 8, 10, "tasks");
    lines.finish("verify", "10 rows (2.5 s)");
    expect(plain).toBe("verify: 0% (0/10)  accounts\nverify: 80% (8/10)  tasks\nverify: 10 rows (2.5 s)\n");
  });

  test("--help says what is copied, from which snapshot, and when it refuses", async () => {
    expect(COMMANDS.some((c) => c.name === "db copy")).toBe(true);
    const res = await cliRun({}, "db", "copy", "--help");
    expect(res.code).toBe(0);
    expect(res.stdout).toStartWith("Usage: jobpilot db copy --to postgres://");
    for (const words of ["one read transaction", "WAL", "snapshot", "no jobpilot rows", "exits with code 2", "foreign-key order", "checksum"]) {
      expect(res.stdout.replace(/\s+/g, " ")).toContain(words);
    }
  });

  test.each([
    [[], /--to is required/],
    [["--to", "not a url"], /--to is not a URL/],
    [["--to", "mysql://u:p@localhost/db"], /--to must be a postgres:\/\/ URL/],
    [["--to", "postgres://u:p@localhost/db", "--batch", "0"], /--batch must be between 1 and 10000/],
  ])("a bad command line %p exits 2 with one clear line", async (argv, message) => {
    const res = await dbCopy(await migratedSqlite(), ...argv);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stdout).toBe("");
  });

  test("no SQLite file where --db points: exit 2, and no file is created", async () => {
    const missing = join(mkdtempSync(join(tmpdir(), "jp-dbcopy-")), "nope.db");
    const res = await dbCopy(missing, "--to", "postgres://u:p@127.0.0.1:5432/db");
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`no SQLite database at ${missing}`);
    expect(await Bun.file(missing).exists()).toBe(false);
  });

  test("a server that does not answer: exit 1, naming where, never the password", async () => {
    const res = await dbCopy(await migratedSqlite(), "--to", `postgres://jobpilot:s3cret-pw@127.0.0.1:${closedPort()}/jobpilot`);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^jobpilot db copy: cannot connect to PostgreSQL at 127\.0\.0\.1:\d+\/jobpilot: /);
    expect(res.stderr).not.toContain("s3cret-pw");
  });
});

/**
 * Rows the running server leaves empty, written as the features would (no module is involved here), with
 * values that test exactness: JSON spelled unusually, doubles that do not round nicely, text in several scripts.
 * One tasks row is deleted again, so SQLite's AUTOINCREMENT high-water mark passes the highest id.
 */
function addEdgeRows(path: string): void {
  const db = new Database(path);
  const account = (db.query("SELECT id FROM accounts ORDER BY id LIMIT 1").get() as { id: string }).id;
  const job = (db.query("SELECT ciphertext FROM jobs ORDER BY ciphertext LIMIT 1").get() as { ciphertext: string }).ciphertext;
  db.run("INSERT INTO ai_usage (account_id, month, purpose, calls, prompt_tokens, completion_tokens) VALUES (?, '2026-11', 'scoring', 3, 1234, 56)", [account]);
  db.run("INSERT INTO job_scores (job_ciphertext, prompt_hash, score, reason, model, created_at_ts) VALUES (?, 'h1', ?, ?, 'gpt-x', 1795304707542)", [
    job,
    0.1 + 0.2,
    "Strong match: React + TypeScript\nbut « no » Go — 日本語 ✓",
  ]);
  // Text keys whose byte order differs from a linguistic collation's ("B" < "a" < "é" bytewise; not so in en-US).
  for (const state of ["a-lower", "B-upper", "é-accent", "_under", "Z"]) {
    db.run("INSERT INTO oauth_states (state, provider, expires_at_ts) VALUES (?, 'marketplace', 1795304707542)", [state]);
  }
  // The encrypted token row is opaque base64-ish text; a null lease is the common case.
  db.run(
    "INSERT INTO oauth_tokens (provider, ciphertext, updated_at_ts, lease_until_ts) VALUES ('marketplace', 'v1.c2FsdA.aXY.dGFn.Y2lwaGVy', 1795304707542, NULL)",
  );
  db.run("INSERT INTO bridge_outcomes (application_id, status, message, received_at_ts) VALUES ('app-x', 'applied', 'ok \"quoted\" \\\\ backslash', 1)");
  db.run("INSERT INTO sandbox_closed_jobs (job_ciphertext, closed_at_ts) VALUES (?, 1795304707542)", [job]);
  // Only nodes sharing a PostgreSQL database write cluster_claims (a SQLite installation leaves it empty): a schedule's last tick.
  db.run("INSERT INTO cluster_claims (name, holder, until_ts) VALUES ('schedule:tracker', 'node-Ä ✓', 1795304707000)");
  db.run("INSERT INTO sandbox_sessions (account_id, valid, restorable, updated_at_ts) VALUES (?, 1, 0, 1795304707542)", [account]);
  // A browser companion's pairing code nobody exchanged yet.
  db.run("INSERT INTO companion_pairing_codes (code_hash, account_id, created_at_ts, expires_at_ts) VALUES ('c0ffee', ?, 1795304707542, 1795305307542)", [
    account,
  ]);
  // The browser companion driver's state: its mode and presence, and one answered task with JSON body and answer.
  db.run(
    "INSERT INTO companions (account_id, mode, auto_accepted_at_ts, last_seen_ts, last_submit_ended_ts, freelancers, freelancers_at_ts) VALUES (?, 'auto', 1795304707542, 1795304707600, NULL, '[]', 1795304707542)",
    [account],
  );
  db.run(
    "INSERT INTO companion_tasks (id, account_id, type, application_id, body, state, created_at_ts, claimed_at_ts, review_since_ts, review_url, ended_at_ts, answer) VALUES ('ct-1', ?, 'proposal.submit', 'app-x', ?, 'answered', 1, 2, 3, 'chrome-extension://abc/focus.html', 4, ?)",
    [account, '{ "type": "proposal.submit",  "mode": "review" }', '{"page":"unrecognised","message":"Ошибка","visibleText":"日本語 ✓"}'],
  );
  // A member of the account with a password, and the one-time link that set it (used), text in several scripts.
  db.run(
    "INSERT INTO members (id, account_id, email, name, role, password_hash, created_at_ts, removed_at_ts) VALUES ('mem-1', ?, 'zoë@example.com', 'Zoë Ærø 日本', 'bidder', '$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA', 1795304707542, NULL)",
    [account],
  );
  db.run(
    "INSERT INTO member_links (token_hash, member_id, purpose, created_at_ts, expires_at_ts, used_at_ts) VALUES ('ab12', 'mem-1', 'invite', 1, 604800001, 5)",
  );
  // The member's claim on a job they are drafting, and a feed routed to them (the running server writes both).
  db.run(
    "INSERT INTO job_claims (account_id, job_ciphertext, member_id, claimed_at_ts, expires_at_ts) VALUES (?, '~01claimed', 'mem-1', 1795304707542, 1795306507542)",
    [account],
  );
  db.run("INSERT INTO feed_members (feed_id, member_id) VALUES ('feed-routed', 'mem-1')");
  // A low-balance alert sent for one period (the running server sends one only when a balance falls under its threshold).
  db.run("INSERT INTO automation_alerts (account_id, freelancer_id, kind, period, sent_at_ts) VALUES (?, 'fl-Ä', 'budget.low', '2026-W49', 1795304707542)", [
    account,
  ]);
  const task =
    "INSERT INTO tasks (kind, payload, status, run_at_ts, attempts, max_attempts, created_at_ts, updated_at_ts) VALUES (?, ?, 'queued', 1, 0, 5, 1, 1)";
  db.run(task, ["score", '{ "b": 1,  "a" : "\\u00fc", "n": 1.50 }']);
  db.run(task, ["score", "{}"]);
  db.run("DELETE FROM tasks WHERE id = (SELECT max(id) FROM tasks)");
  db.close();
}

/** Every row of every table through drizzle and the two schema modules, keyed by table, rows in a stable order. */
async function rowsThroughDrizzle(sqlitePath: string, pgUrl: string): Promise<{ sqlite: Record<string, unknown[]>; pg: Record<string, unknown[]> }> {
  const stable = (rows: unknown[]) =>
    rows
      .map((r) => ({ r, k: JSON.stringify(Object.entries(r as object).sort(([a], [b]) => (a < b ? -1 : 1))) }))
      .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
      .map((x) => x.r);
  const sqliteDb = drizzleSqlite(new Database(sqlitePath, { readonly: true }), { schema: sqliteSchema });
  const pgDb = openPgDatabase(pgUrl, { max: 1 });
  const out = { sqlite: {} as Record<string, unknown[]>, pg: {} as Record<string, unknown[]> };
  try {
    for (const t of Object.values(sqliteSchema)) {
      if (is(t, SQLiteTable)) out.sqlite[sqliteTableConfig(t).name] = stable(sqliteDb.select().from(t).all());
    }
    for (const t of Object.values(pgSchema)) {
      if (is(t, PgTable)) out.pg[pgTableConfig(t).name] = stable(await pgDb.select().from(t));
    }
  } finally {
    sqliteDb.$client.close();
    await closePgDatabase(pgDb);
  }
  return out;
}

/** Count and checksum of every table on both sides, computed afresh. */
async function checksums(sqlitePath: string, pgUrl: string) {
  const plan = copyPlan();
  const sqlite = new Database(sqlitePath, { readonly: true, safeIntegers: true });
  const fromSqlite = Object.fromEntries(plan.map((t) => [t.name, sqliteTableChecksum(sqlite, t)]));
  sqlite.close();
  const sql = new SQL({ url: pgUrl, max: 1 });
  const fromPg: Record<string, { rows: number; checksum: string }> = {};
  try {
    await sql.begin(async (tx) => {
      for (const t of plan) fromPg[t.name] = await pgTableChecksum(tx, t);
    });
  } finally {
    await sql.close();
  }
  return { sqlite: fromSqlite, pg: fromPg };
}

async function pgCounts(url: string): Promise<Record<string, number>> {
  const sql = new SQL({ url, max: 1 });
  try {
    const out: Record<string, number> = {};
    for (const t of copyPlan()) {
      const [row] = (await sql.unsafe(`SELECT count(*)::int AS n FROM "${t.name}"`)) as { n: number }[];
      out[t.name] = row!.n;
    }
    return out;
  } finally {
    await sql.close();
  }
}

describePg("db copy", () => {
  const target = usePgDatabase();
  const extra: TestPgDatabase[] = [];
  const fresh = async () => {
    const db = await createPgDatabase();
    extra.push(db);
    return db;
  };
  afterAll(async () => {
    for (const db of extra) await db.drop();
  });
  let source: string;
  let copied: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    source = await populatedSqlite();
    addEdgeRows(source);
    copied = await dbCopy(source, "--to", target.url, "--batch", "7", "--json");
  }, 60_000);

  test("a populated installation lands whole: counts and checksums identical, every row reads back through the pg schema equal", async () => {
    expect(copied.code, copied.stderr).toBe(0);
    const report = JSON.parse(copied.stdout);
    const sums = await checksums(source, target.url);
    // Realistic data in most tables: everything the server, the CLI and the edge rows wrote.
    const empty = Object.entries(sums.sqlite)
      .filter(([, s]) => s.rows === 0)
      .map(([t]) => t);
    expect(empty).toEqual([]);
    expect(sums.pg).toEqual(sums.sqlite);
    for (const t of report.tables) {
      expect(t, t.table).toMatchObject({ rows: sums.sqlite[t.table]!.rows, checksum: sums.sqlite[t.table]!.checksum, ok: true });
      expect(t.targetChecksum).toBe(t.checksum);
    }
    expect(report.totalRows).toBe(Object.values(sums.sqlite).reduce((n, s) => n + s.rows, 0));
    expect(report.target).not.toContain(new URL(target.url).password || "\0");
    expect(report.config.JOBPILOT_DATABASE_URL).toBe(report.target);
    // Progress went to stderr as plain lines (not a terminal): each phase ends with its row count.
    expect(copied.stderr).toContain(`copy: ${report.totalRows.toLocaleString("en-US")} rows`);
    expect(copied.stderr).toContain(`verify: ${report.totalRows.toLocaleString("en-US")} rows`);

    const rows = await rowsThroughDrizzle(source, target.url);
    expect(Object.keys(rows.pg).sort()).toEqual(Object.keys(rows.sqlite).sort());
    for (const table of Object.keys(rows.sqlite)) expect(rows.pg[table], table).toEqual(rows.sqlite[table]!);
    // JSON text exactly as stored, not re-serialised.
    const sql = new SQL({ url: target.url, max: 1 });
    try {
      const [task] = (await sql.unsafe("SELECT payload FROM tasks WHERE kind = 'score'")) as { payload: string }[];
      expect(task!.payload).toBe('{ "b": 1,  "a" : "\\u00fc", "n": 1.50 }');
    } finally {
      await sql.close();
    }
  });

  test("feed webhook URLs and secrets arrive sealed as they were; JOBPILOT_SECRET_KEY set to the key file's content opens them", async () => {
    expect(copied.code, copied.stderr).toBe(0);
    const sql = new SQL({ url: target.url, max: 1 });
    let hooks: { webhook_url: string; webhook_secret: string; webhook_previous_secret: string | null }[];
    try {
      hooks = (await sql.unsafe("SELECT webhook_url, webhook_secret, webhook_previous_secret FROM feeds WHERE webhook_url IS NOT NULL")) as typeof hooks;
    } finally {
      await sql.close();
    }
    expect(hooks.length).toBeGreaterThan(0);
    // The source's server generated its key file beside the database (no JOBPILOT_SECRET_KEY was set).
    const key = readFileSync(join(dirname(source), SECRET_KEY_FILE), "utf8").trim();
    for (const row of hooks) {
      expect(isEnvelope(row.webhook_url), row.webhook_url).toBe(true);
      expect(isEnvelope(row.webhook_secret), row.webhook_secret).toBe(true);
      const opened = await openWebhook(key, {
        webhookUrl: row.webhook_url,
        webhookSecret: row.webhook_secret,
        webhookPreviousSecret: row.webhook_previous_secret,
      });
      expect(opened.webhookUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook$/);
      expect(opened.webhookSecret).toMatch(/^whsec_/);
    }
  });

  test("ids are kept and identity sequences continue after them, past SQLite's AUTOINCREMENT high-water mark", async () => {
    expect(copied.code, copied.stderr).toBe(0);
    const sqlite = new Database(source, { readonly: true });
    const highWater: Record<string, number> = Object.fromEntries(
      (sqlite.query("SELECT name, seq FROM sqlite_sequence").all() as { name: string; seq: number }[]).map((r) => [r.name, r.seq]),
    );
    const maxEvent = (sqlite.query("SELECT max(seq) AS m FROM events").get() as { m: number }).m;
    const maxTask = (sqlite.query("SELECT max(id) AS m FROM tasks").get() as { m: number }).m;
    // The edge rows deleted the newest task: SQLite will never hand out its id again, nor may PostgreSQL.
    const tasksHighWater = highWater.tasks!;
    expect(tasksHighWater).toBeGreaterThan(maxTask);
    const feed = sqlite.query("SELECT id, account_id FROM feeds ORDER BY id LIMIT 1").get() as { id: string; account_id: string };
    sqlite.close();
    const report = JSON.parse(copied.stdout);
    expect(report.tables.find((t: { table: string }) => t.table === "tasks").nextId).toBe(tasksHighWater + 1);
    const sql = new SQL({ url: target.url, max: 1 });
    try {
      await sql.begin(async (tx) => {
        const [task] =
          await tx`INSERT INTO tasks (kind, payload, status, run_at_ts, max_attempts, created_at_ts, updated_at_ts) VALUES ('x', '{}', 'queued', 1, 1, 1, 1) RETURNING id::int AS id`;
        expect(task.id).toBe(tasksHighWater + 1);
        const [event] =
          await tx`INSERT INTO events (id, type, account_id, feed_id, created_at_ts) VALUES ('e-new', 'job.matched', ${feed.account_id}, ${feed.id}, 1) RETURNING seq::int AS seq`;
        expect(event.seq).toBe(Math.max(maxEvent, highWater.events ?? 0) + 1);
        throw new Error("roll back");
      });
    } catch (err) {
      if ((err as Error).message !== "roll back") throw err;
    } finally {
      await sql.close();
    }
  });

  test("a target that holds jobpilot rows is refused with exit 2, and nothing in it changes", async () => {
    expect(copied.code, copied.stderr).toBe(0);
    const before = await checksums(source, target.url);
    const migrations = async () => {
      const sql = new SQL({ url: target.url, max: 1 });
      try {
        return await sql.unsafe("SELECT tag, hash, applied_at_ts::text AS at FROM _migrations ORDER BY tag");
      } finally {
        await sql.close();
      }
    };
    const landed = await migrations();
    const res = await dbCopy(source, "--to", target.url);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^jobpilot db copy: the target database already holds jobpilot data \(rows in accounts, .*api_keys.*\)/);
    expect(res.stdout).toBe("");
    expect((await checksums(source, target.url)).pg).toEqual(before.pg);
    expect(await migrations()).toEqual(landed);
  });

  test("an empty target that is already migrated is fine; the report says what to configure next", async () => {
    const db = await fresh();
    const sql = new SQL({ url: db.url, max: 1 });
    await migratePg(sql);
    await sql.close();
    const res = await dbCopy(await migratedSqlite(), "--to", db.url);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("counts and checksums verified");
    expect(res.stdout).not.toContain("Migrated the target first");
    const shown = new URL(db.url);
    if (shown.password) shown.password = "***";
    // What to configure next: the URL (password hidden), and that the SQLite setting is no longer read.
    expect(res.stdout).toContain(`JOBPILOT_DATABASE_URL=${shown.toString()}`);
    expect(res.stdout).toContain("JOBPILOT_DB is then not read");
    if (new URL(db.url).password) expect(res.stdout).not.toContain(new URL(db.url).password);
  });

  test("a verification mismatch commits nothing: exit 1, the target stays empty", async () => {
    const db = await fresh();
    const sql = new SQL({ url: db.url, max: 1 });
    await migratePg(sql);
    // Something between the copy and the read-back that changes a value.
    await sql.unsafe(`CREATE FUNCTION tamper() RETURNS trigger AS $$ BEGIN NEW.name := NEW.name || '!'; RETURN NEW; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER tamper BEFORE INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION tamper()`);
    await sql.close();
    const res = await dbCopy(source, "--to", db.url);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("jobpilot db copy: verification failed, nothing was committed: accounts (2 rows read, 2 in PostgreSQL, checksums differ)");
    expect(Object.values(await pgCounts(db.url)).every((n) => n === 0)).toBe(true);
  });

  test("a value PostgreSQL refuses rolls the whole copy back: exit 1, naming the table", async () => {
    const path = await migratedSqlite();
    const sqlite = new Database(path);
    sqlite.run("INSERT INTO accounts (id, name, kind, created_at_ts) VALUES ('acc-1', 'fine', 'solo', 1)");
    sqlite.run("INSERT INTO source_state (name, state, last_error) VALUES ('web', '{}', ?)", ["bad \u0000 byte"]);
    sqlite.close();
    const db = await fresh();
    const res = await dbCopy(path, "--to", db.url);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^jobpilot db copy: copying source_state \(rows 1–1 in key order\) failed: invalid byte sequence/m);
    expect(Object.values(await pgCounts(db.url)).every((n) => n === 0)).toBe(true);
  });

  test("a source in use: the copy is the snapshot at its start, rows written meanwhile are left out and the copy still verifies", async () => {
    const db = await fresh();
    const path = join(mkdtempSync(join(tmpdir(), "jp-dbcopy-")), "live.db");
    const src = new Database(source);
    src.run(`VACUUM INTO '${path}'`);
    src.close();
    const writer = new Database(path);
    writer.run("PRAGMA journal_mode = WAL");
    const before = (writer.query("SELECT count(*) AS n FROM oauth_states").get() as { n: number }).n;
    let wrote = 0;
    const result = await copySqliteToPg({
      sqlitePath: path,
      targetUrl: db.url,
      batchSize: 5,
      onProgress: (p) => {
        // Another connection (a running server) writes while the copy is under way.
        if (p.phase === "copy") writer.run("INSERT INTO oauth_states (state, provider, expires_at_ts) VALUES (?, 'marketplace', 1)", [`live-${wrote++}`]);
      },
    });
    expect(wrote).toBeGreaterThan(10);
    expect(result.tables.every((t) => t.ok)).toBe(true);
    expect(result.tables.find((t) => t.table === "oauth_states")!.rows).toBe(before);
    expect((await pgCounts(db.url)).oauth_states).toBe(before);
    expect((writer.query("SELECT count(*) AS n FROM oauth_states").get() as { n: number }).n).toBe(before + wrote);
    writer.close();
  });

  test("text keys are copied and checksummed in byte order, also on a database whose default collation is linguistic", async () => {
    let db: TestPgDatabase;
    try {
      db = await createPgDatabase("TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'");
    } catch (err) {
      console.warn(`skipping the linguistic-collation case: this server cannot create an ICU database (${(err as Error).message})`);
      return;
    }
    extra.push(db);
    const path = await migratedSqlite();
    const sqlite = new Database(path);
    const states = ["a-lower", "B-upper", "é-accent", "_under", "Z", "z"];
    for (const state of states) sqlite.run("INSERT INTO oauth_states (state, provider, expires_at_ts) VALUES (?, 'marketplace', 1)", [state]);
    sqlite.close();
    const res = await dbCopy(path, "--to", db.url);
    expect(res.code, res.stderr).toBe(0);
    const sql = new SQL({ url: db.url, max: 1 });
    try {
      // The premise: this database's own order is not the byte order SQLite uses.
      const linguistic = ((await sql.unsafe("SELECT state FROM oauth_states ORDER BY state")) as { state: string }[]).map((r) => r.state);
      const bytewise = [...states].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      expect(linguistic).not.toEqual(bytewise);
    } finally {
      await sql.close();
    }
  });

  test("a wrong password: exit 1 with the server's reason, the password never printed", async () => {
    const url = new URL(TEST_DATABASE_URL!);
    url.password = "definitely-wrong-pw";
    url.pathname = `/${target.name}`;
    const res = await dbCopy(await migratedSqlite(), "--to", url.toString());
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("jobpilot db copy: cannot connect to PostgreSQL at");
    expect(res.stderr).not.toContain("definitely-wrong-pw");
  });
});
