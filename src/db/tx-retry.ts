/**
 * Stopgap until tx() and isUniqueViolation() (client.ts, query.ts) look through drizzle's wrapper: a
 * statement built with drizzle's query builder fails on PostgreSQL with a DrizzleQueryError ("Failed query:
 * …") whose `cause` is the PostgresError carrying the SQLSTATE. tx() only retries, and isUniqueViolation()
 * only recognises, the bare driver error, so a serialization failure raised by a statement (rather than at
 * COMMIT) escapes tx() unretried, and a unique violation goes unrecognised. These two look at the cause too.
 */
import { isRetryableTxError, PG_TX_ATTEMPTS, tx, type Db } from "./client";
import { isPg, isUniqueViolation } from "./query";

/** client.ts's mark of a PostgreSQL transaction handle. */
const PG_TX = Symbol.for("jobpilot.pg.tx");

/** The error itself and the chain of its causes (drizzle's wrapper, then the driver's error). */
function* chain(err: unknown): Generator<unknown> {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) yield e;
}

/** isUniqueViolation(), also for a driver error wrapped by drizzle. */
export function isUniqueViolationDeep(err: unknown): boolean {
  for (const e of chain(err)) if (isUniqueViolation(e)) return true;
  return false;
}

function isRetryableDeep(err: unknown): boolean {
  for (const e of chain(err)) if (isRetryableTxError(e)) return true;
  return false;
}

/**
 * tx(), run again from the start when PostgreSQL aborted it with a serialization failure or deadlock
 * raised by one of its statements (tx() itself retries those it sees bare, e.g. at COMMIT). Same rule as
 * tx(): the callback does database work only. On SQLite, and inside a transaction (a savepoint: the
 * outermost transaction is the one to run again), it is tx().
 */
export async function txRetrying<T>(db: Db, fn: (tx: Db) => Promise<T> | T): Promise<T> {
  if (!isPg(db) || (db as unknown as Record<symbol, unknown>)[PG_TX]) return tx(db, fn);
  for (let attempt = 1; ; attempt++) {
    try {
      return await tx(db, fn);
    } catch (err) {
      if (attempt >= PG_TX_ATTEMPTS || !isRetryableDeep(err) || isRetryableTxError(err)) throw err;
      await Bun.sleep(Math.random() * Math.min(50, 2 * attempt));
    }
  }
}
