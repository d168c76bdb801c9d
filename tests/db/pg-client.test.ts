/**
 * Rows read back the same on both dialects: the same insert through drizzle on SQLite (bun:sqlite) and on
 * PostgreSQL (bun-sql) reads back as the same JavaScript values — JSON documents with their key order,
 * booleans, doubles, Unix ms as numbers, generated ids as numbers, defaults filled in.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { asc, eq } from "drizzle-orm";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client";
import { closePgDatabase, openPgDatabase, type PgDb } from "../../src/db/client-pg";
import { migrate } from "../../src/db/migrate";
import { migratePg } from "../../src/db/migrate-pg";
import * as lite from "../../src/db/schema";
import * as pg from "../../src/db/schema-pg";
import { describePg, usePgDatabase } from "../helpers/postgres";

const T = Date.UTC(2026, 0, 15, 12); // past 2^31 ms: a bigint, not an integer, on PostgreSQL

const account = { id: "acc-1", name: "Ada", kind: "solo" as const, createdAtTs: T };
const job = {
  ciphertext: "~021",
  platform: "marketplace" as const,
  title: "Build it",
  url: "https://example.test/jobs/~021",
  hourlyMin: 30.5,
  paymentVerified: true,
  usOnly: false,
  emailFound: false,
  publishTimeTs: T - 1,
  source: "test",
  // Key order as a source gave it, including keys jsonb would sort and a nested document.
  document: { zeta: 1, alpha: "two", nested: { b: [1, 2, { c: null }], a: true }, ünï: "çødé" },
  firstSeenAtTs: T,
  exploredAtTs: T,
  updatedAtTs: T,
};
const task = { kind: "apply", payload: { z: 1, a: [true, null] }, status: "queued" as const, runAtTs: T, maxAttempts: 3, createdAtTs: T, updatedAtTs: T };

describePg("drizzle on both dialects", () => {
  const pgdb = usePgDatabase();
  let a: Db;
  let b: PgDb;

  beforeAll(async () => {
    a = openDatabase(":memory:");
    migrate(a.$client);
    b = openPgDatabase(pgdb.url, { max: 2 });
    await migratePg(b.$client);
  });
  afterAll(async () => {
    closeDatabase(a);
    await closePgDatabase(b);
  });

  test("a job and an account read back identically, JSON text included", async () => {
    a.insert(lite.accounts).values(account).run();
    a.insert(lite.jobs).values(job).run();
    await b.insert(pg.accounts).values(account);
    await b.insert(pg.jobs).values(job);
    const fromLite = { account: a.select().from(lite.accounts).all(), job: a.select().from(lite.jobs).all() };
    const fromPg = { account: await b.select().from(pg.accounts), job: await b.select().from(pg.jobs) };
    expect(fromPg).toEqual(fromLite);
    // Same key order too (toEqual ignores it): what an API or a webhook serialises is byte-identical.
    expect(JSON.stringify(fromPg)).toBe(JSON.stringify(fromLite));
    expect(fromPg.job[0]!.document).toEqual(job.document);
    expect(typeof fromPg.account[0]!.createdAtTs).toBe("number");
  });

  test("generated ids are numbers counting from 1 on both, and returning() gives the same row", async () => {
    const liteRows = [a.insert(lite.tasks).values(task).returning().get(), a.insert(lite.tasks).values(task).returning().get()];
    const pgRows = [...(await b.insert(pg.tasks).values(task).returning()), ...(await b.insert(pg.tasks).values(task).returning())];
    expect(pgRows).toEqual(liteRows);
    expect(pgRows.map((r) => r.id)).toEqual([1, 2]);
    await b
      .update(pg.tasks)
      .set({ attempts: 2, leaseUntilTs: T + 60_000 })
      .where(eq(pg.tasks.id, 2));
    a.update(lite.tasks)
      .set({ attempts: 2, leaseUntilTs: T + 60_000 })
      .where(eq(lite.tasks.id, 2))
      .run();
    expect(await b.select().from(pg.tasks).orderBy(asc(pg.tasks.id))).toEqual(a.select().from(lite.tasks).orderBy(asc(lite.tasks.id)).all());
  });

  test("the credits check holds on both", async () => {
    expect(() => a.update(lite.accounts).set({ creditsBalance: -1 }).run()).toThrow();
    // drizzle wraps the driver's error ("Failed query: …"); PostgreSQL's own is its cause.
    const failed = await Promise.resolve(b.update(pg.accounts).set({ creditsBalance: -1 })).then(
      () => null,
      (e: Error) => e,
    );
    expect(String((failed?.cause as Error | undefined)?.message)).toMatch(/accounts_credits_nonneg/);
  });
});
