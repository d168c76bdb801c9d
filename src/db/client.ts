import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema";
import { createPrivateFile } from "../lib/private-file";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/** How a transaction begins: `immediate` takes the write lock at BEGIN (use it when the transaction reads and then writes). */
export type TxBehavior = "deferred" | "immediate" | "exclusive";

/**
 * Runs `fn` in one synchronous transaction (a savepoint when `db` is already a
 * transaction) and hands it the transaction typed as a Db. For a repository's
 * own multi-statement writes inside exclusive(); services use tx(), which may
 * await. drizzle's transaction object has the same query API but no
 * `$client`; rawStatement reaches the connection through the session both
 * share, so nothing here needs it.
 */
export function transaction<T>(db: Db, fn: (tx: Db) => T, behavior?: TxBehavior): T {
  const gate = (db as Gated)[GATE];
  if (gate?.open && (db as Gated)[TX] === undefined) throw new Error("transaction() on the database while tx() has a transaction open: pass the tx handle");
  return db.transaction((tx) => fn(tx as unknown as Db), behavior ? { behavior } : undefined);
}

// ------------------------------------------------------------ async transactions
//
// bun:sqlite is one synchronous connection whose transactions cannot span an await, so tx() opens one by hand
// around an async callback. Transactions take turns, and while one is open every other statement of the process
// waits (through exclusive()), since on the one connection it would see or join the open transaction. Pass the
// handle on and await nothing but the database inside (see docs/architecture.md, 'Async transactions on one connection').

interface Waiter {
  /** A queued statement: run at once, synchronously, when its turn comes. */
  run?: () => void;
  /** A queued transaction: handed the gate when its turn comes. */
  start?: () => void;
}

/** Per connection: whether a transaction has the gate, and who waits for it. */
interface Gate {
  held: boolean;
  /** BEGIN issued and not yet ended. */
  open: boolean;
  queue: Waiter[];
}

interface TxState {
  ended: boolean;
  depth: number;
}

const GATE = Symbol("jobpilot.gate");
const TX = Symbol("jobpilot.tx");
type Gated = Db & { [GATE]?: Gate; [TX]?: TxState };

function gateOf(db: Db): Gate | undefined {
  return (db as Gated)[GATE];
}

/** Whether `db` is a transaction's handle (from tx()). */
export function inTx(db: Db): boolean {
  return (db as Gated)[TX] !== undefined;
}

/**
 * Runs `body` (synchronous statements on `db`) as one step nothing else on the
 * connection interleaves with, and resolves to its result: at once when no
 * transaction is open or `db` is the open transaction's handle, else in turn
 * after it. Every repository function goes through here, so that on SQLite
 * all of them are async like their PostgreSQL counterparts will be.
 */
export function exclusive<T>(db: Db, body: () => T): Promise<T> {
  const state = (db as Gated)[TX];
  const gate = gateOf(db);
  if (state !== undefined) {
    if (state.ended) return Promise.reject(new Error("a transaction handle was used after its transaction ended"));
  } else if (gate?.held) {
    return new Promise<T>((resolve, reject) => {
      gate.queue.push({
        run: () => {
          try {
            resolve(body());
          } catch (err) {
            reject(err);
          }
        },
      });
    });
  }
  try {
    return Promise.resolve(body());
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Ends a transaction's turn: queued statements run now, until the next queued transaction is handed the gate. */
function release(gate: Gate): void {
  for (;;) {
    const next = gate.queue.shift();
    if (next === undefined) {
      gate.held = false;
      return;
    }
    if (next.run) next.run();
    else {
      next.start!();
      return;
    }
  }
}

/**
 * Runs `fn` in one transaction and resolves to its result; `fn` may await
 * repository functions, given the handle it receives. A throw (or rejection)
 * rolls everything back. On SQLite the transaction is BEGIN IMMEDIATE, in turn
 * with the process's other transactions (see above); called with a
 * transaction's handle it is a savepoint of that transaction.
 */
export async function tx<T>(db: Db, fn: (tx: Db) => Promise<T> | T, opts: TxOptions = {}): Promise<T> {
  if (isPg(db)) return pgTx(db, fn, opts);
  const client = db.$client;
  const outer = (db as Gated)[TX];
  if (outer !== undefined) {
    if (outer.ended) throw new Error("a transaction handle was used after its transaction ended");
    const name = `jp_sp${++outer.depth}`;
    client.run(`SAVEPOINT ${name}`);
    try {
      const result = await fn(db);
      client.run(`RELEASE ${name}`);
      return result;
    } catch (err) {
      client.run(`ROLLBACK TO ${name}`);
      client.run(`RELEASE ${name}`);
      throw err;
    } finally {
      outer.depth--;
    }
  }
  const gate = gateOf(db);
  if (gate === undefined) throw new Error("tx() needs a database opened by openDatabase()");
  if (gate.held) await new Promise<void>((start) => gate.queue.push({ start }));
  else gate.held = true;
  const state: TxState = { ended: false, depth: 0 };
  try {
    // query() keeps these prepared on the connection.
    client.query("BEGIN IMMEDIATE").run();
    gate.open = true;
    const handle = Object.create(db, { [TX]: { value: state } }) as Db;
    let result: T;
    try {
      result = await fn(handle);
      client.query("COMMIT").run();
    } catch (err) {
      if (client.inTransaction) client.query("ROLLBACK").run();
      throw err;
    }
    return result;
  } finally {
    state.ended = true;
    gate.open = false;
    release(gate);
  }
}

/** Resolves once the transactions open or queued now have ended (e.g. before closing the database). */
export function settled(db: Db): Promise<void> {
  if (isPg(db)) return Promise.resolve(); // the pool's close() waits for its queries
  return exclusive(db, () => undefined);
}

// ------------------------------------------------------------ PostgreSQL
//
// The same Db type serves both dialects: a PostgreSQL database is drizzle's bun-sql database, marked with
// PG and typed as the SQLite one (their schemas have identical row types; src/db/query.ts runs statements
// on either). Several processes share the database, so transactions cannot take turns in memory: they run
// SERIALIZABLE, which gives each the result it would have had running alone (what BEGIN IMMEDIATE gives
// on SQLite), and one PostgreSQL aborts with a serialization failure or deadlock is run again from the
// start. That is safe because a transaction's callback does nothing but database work (the rule above).

/** Set on a database opened on PostgreSQL and on its transaction handles. */
export const PG = Symbol.for("jobpilot.pg");
const PG_TX = Symbol.for("jobpilot.pg.tx");

export function isPg(db: Db): boolean {
  return (db as unknown as Record<symbol, unknown>)[PG] === true;
}

/** Marks a drizzle PostgreSQL database or transaction as a Db of this module. */
export function markPg<T extends object>(db: T, inTransaction = false): Db {
  Object.defineProperty(db, PG, { value: true });
  if (inTransaction) Object.defineProperty(db, PG_TX, { value: true });
  return db as unknown as Db;
}

/** PostgreSQL's SQLSTATEs for "run the transaction again": serialization_failure, deadlock_detected. */
const RETRYABLE = new Set(["40001", "40P01"]);
export const PG_TX_ATTEMPTS = 30;

export function isRetryableTxError(err: unknown): boolean {
  return databaseErrors(err).some((e) => RETRYABLE.has(String(e.errno)) || RETRYABLE.has(String(e.code)));
}

/** The error and the errors it wraps (drizzle wraps the driver's error in a DrizzleQueryError's `cause`). */
export function databaseErrors(err: unknown): { errno?: unknown; code?: unknown; message?: unknown }[] {
  const chain: { errno?: unknown; code?: unknown; message?: unknown }[] = [];
  for (let e: unknown = err; e !== null && typeof e === "object" && chain.length < 5; e = (e as { cause?: unknown }).cause)
    chain.push(e as (typeof chain)[number]);
  return chain;
}

interface PgTxCapable {
  transaction<T>(fn: (tx: object) => Promise<T>, config?: { isolationLevel: "serializable" | "read committed" }): Promise<T>;
}

/** Whether `err` is a unique-constraint violation, on either dialect (SQLite's SQLITE_CONSTRAINT_UNIQUE, PostgreSQL's 23505). */
export function isUniqueViolation(err: unknown): boolean {
  return databaseErrors(err).some(
    (e) =>
      e.code === "SQLITE_CONSTRAINT_UNIQUE" ||
      e.code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
      e.errno === "23505" ||
      (typeof e.message === "string" && /UNIQUE constraint failed|duplicate key value violates unique constraint/.test(e.message)),
  );
}

/**
 * Whether `err` says the database's storage is full: SQLite's SQLITE_FULL ("database or disk is full"),
 * PostgreSQL's disk_full (53100). Reads keep working then, and writes work again once space is freed.
 */
export function isStorageFull(err: unknown): boolean {
  return databaseErrors(err).some(
    (e) =>
      e.code === "SQLITE_FULL" ||
      e.errno === "53100" ||
      e.code === "53100" ||
      (typeof e.message === "string" && /database or disk is full|No space left on device/.test(e.message)),
  );
}

export interface TxOptions {
  /**
   * PostgreSQL only (SQLite's transactions always take turns). "read committed" is for a transaction whose
   * invariants all rest on unique indexes and single-statement conditional writes, and which many requests
   * run at once against the same row (apply: every apply of an account updates its credits row). Under
   * serializable each of those would abort all but one of them per round; under read committed they queue
   * on the row lock, and a conditional UPDATE re-checks its condition on the newest row. A unique violation
   * there means another transaction wrote the same row first: the transaction is run again and finds it.
   * Default: serializable.
   */
  isolation?: "serializable" | "read committed";
}

async function pgTx<T>(db: Db, fn: (tx: Db) => Promise<T> | T, opts: TxOptions = {}): Promise<T> {
  const pg = db as unknown as PgTxCapable;
  // Inside a transaction: a savepoint, rolled back alone when fn throws.
  if ((db as unknown as Record<symbol, unknown>)[PG_TX]) return pg.transaction(async (t) => fn(markPg(t, true)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await pg.transaction(async (t) => fn(markPg(t, true)), { isolationLevel: opts.isolation ?? "serializable" });
    } catch (err) {
      const again = isRetryableTxError(err) || (opts.isolation === "read committed" && isUniqueViolation(err));
      if (!again || attempt >= PG_TX_ATTEMPTS) throw err;
      // Jittered, growing pause so the transactions that collided do not collide again.
      await Bun.sleep(Math.random() * Math.min(100, 4 * attempt));
    }
  }
}

export interface OpenOptions {
  synchronous?: "FULL" | "NORMAL";
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the database with the pragmas the service relies
 * on: WAL so readers never block the writer, FULL sync because credits and
 * applications must survive power loss, a busy timeout so the CLI and the
 * server can write to the same file, and enforced foreign keys.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  const isMemory = path === ":memory:";
  if (!isMemory) createPrivateFile(path);
  const sqlite = new Database(path, { create: true });
  sqlite.run(`PRAGMA busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  if (!isMemory) sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run(`PRAGMA synchronous = ${opts.synchronous ?? "FULL"}`);
  sqlite.run("PRAGMA foreign_keys = ON");
  // Page cache: 16 MiB holds the pages a large ingest batch dirties; a bigger transaction spills early pages to
  // the WAL, which it writes anyway, and a bigger cache stays resident (docs/performance.md, 'Why the code is as it is').
  sqlite.run("PRAGMA cache_size = -16384");
  // Statement journals in memory: a multi-row INSERT (a batch's feed entries, events) keeps one to undo itself
  // on a failed constraint, and past 64 KiB SQLite would otherwise spill it to a temp file (a write per page).
  sqlite.run("PRAGMA temp_store = MEMORY");
  // No memory-mapped reads: every page read through a map stays in the process's RSS, so the map grew it with
  // the database, and reads through the page cache are no slower (docs/performance.md, 'Why the code is as it is').
  sqlite.run("PRAGMA mmap_size = 0");
  const db = drizzle(sqlite, { schema }) as Gated;
  db[GATE] = { held: false, open: false, queue: [] };
  return db;
}

/**
 * Frees what the connection caches but does not need now (SQLite's page cache refills on the next reads), in
 * turn with transactions; for the idle memory trim (worker/memory-trim.ts). Nothing to free on PostgreSQL.
 */
export function releaseMemory(db: Db): Promise<void> {
  if (isPg(db)) return Promise.resolve();
  return exclusive(db, () => {
    db.$client.run("PRAGMA shrink_memory");
  });
}

export function closeDatabase(db: Db): void {
  try {
    // Folds the WAL back into the main file so a copied-away database is complete.
    db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch {
    // A checkpoint can fail while another process reads; closing is still safe.
  }
  db.$client.close();
}
