import { afterAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { ManualClock } from "../../src/lib/clock";
import { MIGRATION_LOCK_KEY, migratePg } from "../../src/db/migrate-pg";
import { PG_MIGRATIONS } from "../../src/db/migrations-pg.gen";
import { createPgDatabase, describePg, type TestPgDatabase } from "../helpers/postgres";

const created: TestPgDatabase[] = [];
const clients: SQL[] = [];

/** A fresh database per test (each starts from nothing), and a client on it. */
async function fresh(): Promise<{ db: TestPgDatabase; client: () => SQL }> {
  const db = await createPgDatabase();
  created.push(db);
  return {
    db,
    client: () => {
      const c = new SQL({ url: db.url, max: 2 });
      clients.push(c);
      return c;
    },
  };
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const db of created) await db.drop();
});

const tags = PG_MIGRATIONS.map((m) => m.tag);

describePg("PostgreSQL migrations", () => {
  test("a fresh database migrates, and migrating again changes nothing", async () => {
    const { client } = await fresh();
    const sql = client();
    expect(await migratePg(sql)).toEqual({ applied: tags, total: tags.length });
    const tables = (await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`) as { table_name: string }[];
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(["accounts", "api_keys", "credit_ledger", "tasks", "_migrations"]));
    expect(await migratePg(sql)).toEqual({ applied: [], total: tags.length });
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM _migrations`;
    expect(n).toBe(tags.length);
  });

  test("_migrations has SQLite's shape, each migration dated by the clock it is given", async () => {
    const { client } = await fresh();
    const sql = client();
    await migratePg(sql, { clock: new ManualClock(Date.UTC(2026, 2, 1)) });
    const columns =
      await sql`SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = '_migrations' ORDER BY ordinal_position`;
    expect(columns).toEqual([
      { column_name: "tag", data_type: "text", is_nullable: "NO" },
      { column_name: "hash", data_type: "text", is_nullable: "NO" },
      { column_name: "applied_at_ts", data_type: "bigint", is_nullable: "NO" },
    ]);
    const dates = await sql`SELECT DISTINCT applied_at_ts::float8 AS ts FROM _migrations`;
    expect(dates).toEqual([{ ts: Date.UTC(2026, 2, 1) }]);
  });

  test("a landed migration whose text changed is refused, and nothing of that run stays", async () => {
    const { client } = await fresh();
    const sql = client();
    await migratePg(sql);
    const edited = PG_MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    const extra = { idx: PG_MIGRATIONS.length, tag: "9999_extra", when: 0, sql: "CREATE TABLE extra_table (x int)" };
    await expect(migratePg(sql, { migrations: [...edited, extra] })).rejects.toThrow(/was changed after it was applied/);
    // A new migration listed before the edited one would have run inside the same transaction: check a failing one rolls back.
    const failing = {
      idx: PG_MIGRATIONS.length,
      tag: "9998_fails",
      when: 0,
      sql: "CREATE TABLE extra_table (x int);\n--> statement-breakpoint\nSELECT * FROM no_such_table",
    };
    await expect(migratePg(sql, { migrations: [...PG_MIGRATIONS, failing] })).rejects.toThrow();
    const [{ exists }] = await sql`SELECT to_regclass('extra_table') IS NOT NULL AS exists`;
    expect(exists).toBe(false);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM _migrations`;
    expect(n).toBe(tags.length);
  });

  test("migrators started together on one fresh database all succeed, and each migration applies once", async () => {
    const { client } = await fresh();
    const results = await Promise.all([0, 1, 2, 3].map(() => migratePg(client())));
    const applied = results.map((r) => r.applied);
    // Exactly one of them applied everything; the others found it done.
    expect(applied.filter((a) => a.length > 0)).toEqual([tags]);
    expect(applied.filter((a) => a.length === 0).length).toBe(3);
    const sql = client();
    const rows = await sql`SELECT tag FROM _migrations ORDER BY tag`;
    expect(rows.map((r: { tag: string }) => r.tag)).toEqual(tags);
  });

  test("a migrator waits while another holds the migration lock", async () => {
    const { client } = await fresh();
    const holder = await client().reserve();
    await holder.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
    let finished = false;
    const running = migratePg(client()).then((r) => {
      finished = true;
      return r;
    });
    await Bun.sleep(300);
    expect(finished).toBe(false);
    const [{ exists }] = await holder`SELECT to_regclass('_migrations') IS NOT NULL AS exists`;
    expect(exists).toBe(false);
    await holder.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
    holder.release();
    expect((await running).applied).toEqual(tags);
  });
  test("0026 moves each job's match fields into job_texts and drops the column; a job without them gets no row", async () => {
    const { client } = await fresh();
    const c = client();
    const upTo = PG_MIGRATIONS.findIndex((m) => m.tag === "0026_job_texts");
    await migratePg(c, { migrations: PG_MIGRATIONS.slice(0, upTo) });
    const fields = { title: "Rust CLI", description: "Über die Arbeit", skills: ["Rust", "C#"] };
    await c.unsafe(
      `INSERT INTO jobs (ciphertext, platform, title, url, email_found, source, document, first_seen_at_ts, explored_at_ts, updated_at_ts, match_fields)
       VALUES ('~01', 'marketplace', 'Rust CLI', 'https://example.com', false, 'sandbox', '{}', 1000, 1, 1, $1),
              ('~02', 'marketplace', 'Older job', 'https://example.com', false, 'sandbox', '{}', 2000, 1, 1, NULL)`,
      [JSON.stringify(fields)],
    );
    await migratePg(c);
    const rows = (await c`SELECT job_ciphertext, first_seen_at_ts, fields FROM job_texts`) as {
      job_ciphertext: string;
      first_seen_at_ts: string | number;
      fields: string;
    }[];
    expect(rows.map((r) => ({ job_ciphertext: r.job_ciphertext, first_seen_at_ts: Number(r.first_seen_at_ts), fields: JSON.parse(r.fields) }))).toEqual([
      { job_ciphertext: "~01", first_seen_at_ts: 1000, fields },
    ]);
    const columns = (await c`SELECT column_name FROM information_schema.columns WHERE table_name = 'jobs'`) as { column_name: string }[];
    expect(columns.map((r) => r.column_name)).not.toContain("match_fields");
    const [{ n }] = await c`SELECT count(*)::int AS n FROM jobs`;
    expect(n).toBe(2);
  });
});
