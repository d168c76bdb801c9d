/**
 * The one way repositories run statements, on either dialect.
 *
 * A repository builds its query with drizzle's builder on `tables(db)` (the
 * handle's own schema: sqlite-core tables on SQLite, their pg-core twins on
 * PostgreSQL; tests/db/schema-twins proves the row types identical, so the
 * SQLite typing serves both) and ends it with one of the runners below,
 * never with SQLite's own `.get()`, `.all()` or `.run()`:
 *
 *   many(db, q)   every row of a select, or of a write with .returning()
 *   one(db, q)    the first row, or undefined (add .limit(1) to a select that may match many)
 *   exec(db, q)   a write without .returning(): the number of rows it changed
 *
 * On SQLite each runs synchronously inside exclusive() (see client.ts), on
 * PostgreSQL it awaits the query. Hot statements use preparedOne/preparedMany
 * (built once per connection or transaction) and rawMany/rawExec (plain SQL
 * with `?` placeholders, written portably). Services never see any of this.
 */
import type { SQL as BunSql } from "bun";
import type { Statement } from "bun:sqlite";
import { exclusive, isPg, isUniqueViolation, type Db } from "./client";

export { isPg, isUniqueViolation };
import { prepared } from "./prepared";
import type * as schema from "./schema";

export type Dialect = "sqlite" | "pg";

export function dialectOf(db: Db): Dialect {
  return isPg(db) ? "pg" : "sqlite";
}

/** The handle's tables: sqlite-core on SQLite, pg-core on PostgreSQL, typed as the SQLite ones (the twins have the same rows). */
export function tables(db: Db): typeof schema {
  return db._.fullSchema as unknown as typeof schema;
}

interface SqliteRows<T> {
  all(): T[];
}
interface SqliteRow<T> {
  get(): T | undefined;
}
interface SqliteWrite {
  run(): unknown;
}

/** Every row of a select, or of an insert/update/delete with .returning(). */
export function many<T>(db: Db, q: SqliteRows<T>): Promise<T[]> {
  if (isPg(db)) return Promise.resolve(q as unknown as PromiseLike<T[]>);
  return exclusive(db, () => oneTime(q, (p) => p.all()));
}

/**
 * Runs `body` once no transaction is open, without yielding (SQLite only): what it reads with manyNow and what it
 * does with the rows are one step, so no commit lands in between. bun:sqlite answers synchronously; PostgreSQL cannot.
 */
export function readNow<T>(db: Db, body: () => T): Promise<T> {
  if (isPg(db)) return Promise.reject(new Error("readNow is for SQLite only"));
  return exclusive(db, body);
}

/** `many` at once, inside readNow's body (SQLite only). */
export function manyNow<T>(db: Db, q: SqliteRows<T>): T[] {
  if (isPg(db)) throw new Error("manyNow is for SQLite only");
  return oneTime(q, (p) => p.all());
}

/** The first row, or undefined. */
export function one<T>(db: Db, q: SqliteRow<T>): Promise<T | undefined> {
  if (isPg(db)) return Promise.resolve(q as unknown as PromiseLike<T[]>).then((rows) => rows[0]);
  return exclusive(db, () => oneTime(q, (p) => p.get()));
}

/** A write without .returning(); resolves to the number of rows it changed. */
export function exec(db: Db, q: SqliteWrite): Promise<number> {
  if (isPg(db)) return Promise.resolve(q as unknown as PromiseLike<{ count?: number | null }>).then((r) => Number(r?.count ?? 0));
  return exclusive(db, () => oneTime(q, (p) => (p.run() as { changes: number }).changes));
}

/**
 * Runs a builder's statement once and finalizes it at once. drizzle prepares a new bun:sqlite statement for
 * every run of a builder and leaves it to the garbage collector, which does not see its native memory (the
 * compiled program, its row buffers) until a collection, so RSS grows with the runs (docs/performance.md, 'Why the code is as it is').
 * A builder without its own statement (sql`…` through db.all) runs as it is.
 */
function oneTime<Q extends object, T>(q: Q, run: (p: Q) => T): T {
  const p = (q as { _prepare?: () => unknown })._prepare?.() as (Q & { stmt?: Statement }) | undefined;
  if (!p?.stmt) return run(q);
  try {
    return run(p);
  } finally {
    p.stmt.finalize();
  }
}

type Params = Record<string, unknown>;
interface Preparable<T> {
  prepare(): { get(params?: Params): T | undefined; all(params?: Params): T[] };
}
interface PgPrepared<T> {
  execute(params?: Params): Promise<T[]>;
}

function pgPrepared<T>(db: Db, name: string, build: (db: Db) => Preparable<T>): PgPrepared<T> {
  return prepared(db, name, (d) => (build(d) as unknown as { prepare(name: string): PgPrepared<T> }).prepare(name));
}

/**
 * A hot select built once per connection (or transaction) with sql.placeholder() parameters: building a
 * drizzle query costs tens of microseconds, far more than an indexed read. `build` returns the query
 * builder, not yet prepared.
 */
export function preparedOne<T>(db: Db, name: string, build: (db: Db) => Preparable<T>, params: Params): Promise<T | undefined> {
  if (isPg(db))
    return pgPrepared(db, name, build)
      .execute(params)
      .then((rows) => rows[0]);
  return exclusive(db, () => prepared(db, name, (d) => build(d).prepare()).get(params));
}

export function preparedMany<T>(db: Db, name: string, build: (db: Db) => Preparable<T>, params: Params): Promise<T[]> {
  if (isPg(db)) return pgPrepared(db, name, build).execute(params);
  return exclusive(db, () => prepared(db, name, (d) => build(d).prepare()).all(params));
}

/** The client behind a handle: bun:sqlite's Database, or Bun's SQL (a pool, or a transaction's reserved connection). */
function sessionClient(db: Db): unknown {
  const session = (db as unknown as { session?: { client?: unknown } }).session;
  return session?.client ?? db.$client;
}

/** `?` placeholders to PostgreSQL's `$1, $2, …` (the SQL texts here hold no `?` inside strings). */
function toPgPlaceholders(sqlText: string): string {
  let n = 0;
  return sqlText.replace(/\?/g, () => `$${++n}`);
}
const pgTexts = new Map<string, string>();

function rawPg<T>(db: Db, sqlText: string, params: unknown[]): Promise<T> {
  let text = pgTexts.get(sqlText);
  if (text === undefined) pgTexts.set(sqlText, (text = toPgPlaceholders(sqlText)));
  return (sessionClient(db) as BunSql).unsafe(text, params) as unknown as Promise<T>;
}

function rawStatement(db: Db, name: string, sqlText: string): Statement {
  return prepared(db, `raw:${name}`, () => (sessionClient(db) as { prepare(sql: string): Statement }).prepare(sqlText));
}

/**
 * Plain SQL (portable: `?` placeholders, no dialect-only syntax) for the few statements that run for every
 * feed entry, where drizzle's parameter mapping costs about a third of the statement. Column values come
 * back as the driver gives them: convert 64-bit integers with Number() (PostgreSQL's bigint arrives as a
 * string).
 */
export function rawMany<T>(db: Db, name: string, sqlText: string, params: unknown[]): Promise<T[]> {
  if (isPg(db)) return rawPg<T[]>(db, sqlText, params).then((rows) => [...rows]);
  return exclusive(db, () => rawStatement(db, name, sqlText).all(...(params as never[])) as T[]);
}

export function rawExec(db: Db, name: string, sqlText: string, params: unknown[]): Promise<number> {
  if (isPg(db)) return rawPg<{ count?: number }>(db, sqlText, params).then((r) => Number(r.count ?? 0));
  return exclusive(db, () => rawStatement(db, name, sqlText).run(...(params as never[])).changes);
}

// Bound parameters one statement may carry: SQLite's SQLITE_MAX_VARIABLE_NUMBER, PostgreSQL's protocol limit.
const MAX_PARAMS = { sqlite: 32_766, pg: 65_535 } as const;
const insertTexts = new Map<string, string>();

/**
 * A multi-row INSERT for the writes a batch makes many of (feed entries, outbox events, tasks): `head` is
 * `INSERT INTO t (a, b)`, `row` one row's tuple (`(?, ?)`, the same number of `?` as each row has values),
 * `tail` what follows the VALUES list (`ON CONFLICT DO NOTHING`, or ""). Rows go in their order, in as few
 * statements as the dialect's parameter limit allows: chunks of a power-of-two row count, so each table
 * needs only a dozen statement texts (prepared once per connection, like rawMany's) however the batches
 * vary. Resolves to the number of rows written. There is no RETURNING variant: on SQLite a returned row costs
 * a good share of a feed entry's insert (docs/performance.md, 'Why the code is as it is').
 */
export async function rawInsertCount(db: Db, name: string, sql: { head: string; row: string; tail?: string }, rows: readonly unknown[][]): Promise<number> {
  if (rows.length === 0) return 0;
  const width = rows[0]!.length;
  let cap = 1;
  while (cap * 2 * width <= MAX_PARAMS[dialectOf(db)]) cap *= 2;
  let written = 0;
  for (let at = 0; at < rows.length; ) {
    let size = cap;
    while (size > rows.length - at) size /= 2;
    // Keyed by dialect too: one process may hold both (db copy, the tests), and the texts differ (outbox events on PostgreSQL).
    const key = `${dialectOf(db)}:${name}:${size}`;
    let text = insertTexts.get(key);
    if (text === undefined) insertTexts.set(key, (text = `${sql.head} VALUES ${Array(size).fill(sql.row).join(", ")}${sql.tail ? ` ${sql.tail}` : ""}`));
    const params = rows.slice(at, at + size).flat();
    at += size;
    written += await rawExec(db, key, text, params);
  }
  return written;
}

/** A round trip to the database, for /healthz: SQLite's journal mode, or PostgreSQL answering at all. */
export async function databaseHealth(db: Db): Promise<{ journalMode?: string }> {
  if (isPg(db)) {
    await rawMany(db, "health", "SELECT 1 AS ok", []);
    return {};
  }
  const row = await rawMany<{ journal_mode: string }>(db, "health", "PRAGMA journal_mode", []);
  return { journalMode: row[0]?.journal_mode };
}

/**
 * The object that stands for a database across its transaction handles, for per-database caches: SQLite's
 * connection, or the PostgreSQL database's drizzle dialect (which its transactions share).
 */
export function databaseIdentity(db: Db): object {
  return isPg(db) ? (db as unknown as { dialect: object }).dialect : db.$client;
}

/** Bun's SQL pool behind a PostgreSQL database, for what drizzle does not do (LISTEN/NOTIFY). */
export function pgPool(db: Db): BunSql {
  if (!isPg(db)) throw new Error("pgPool() needs a PostgreSQL database");
  return db.$client as unknown as BunSql;
}
