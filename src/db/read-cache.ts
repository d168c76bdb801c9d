import { deepEquals } from "bun";
import { inTx, isPg, type Db } from "./client";
import { databaseIdentity, rawMany } from "./query";

/**
 * Per-database caches of the few reads nearly every request makes (the caller's key, its account, its feed
 * list). Under load an indexed read costs far more than its few microseconds in a loop: each is a WAL read
 * transaction (lock system calls) and a cold trip through SQLite, about 20–40 µs of CPU per request measured
 * on the live server against 5 µs in a tight loop. A cache answers those requests from memory.
 *
 * What keeps an entry current:
 * - This process's own writes: the table's owner module (the only code that writes it, see
 *   tests/architecture.test.ts) calls invalidate() in each write, and a load that was reading while one did
 *   keeps nothing (the generation check).
 * - SQLite, other connections (the CLI, another process on the file): `PRAGMA data_version` moves when they
 *   commit. That pragma is itself a read transaction, so it is asked at most every DATA_VERSION_CHECK_MS, for
 *   every cache of the database at once: another process's change is seen within that time.
 * - PostgreSQL: other nodes write and nothing tells this one. A cache made with `pgTtlMs` drops everything
 *   that often (a revoked key is refused on every node within it); without, it is not used on PostgreSQL.
 * - Transactions: a read on a transaction's handle must see that transaction's own writes, so it always goes
 *   to the database, and what it reads is never kept.
 *
 * Values are shared between callers: treat them as read-only. Misses (undefined) are not cached, so a row
 * created elsewhere is found at once.
 */
export const DATA_VERSION_CHECK_MS = 2;

export interface ReadCache<V> {
  /** The cached value when it is known current without asking the database, else undefined. Synchronous. */
  now(db: Db, key: string): V | undefined;
  /** The value: from the cache when current, else `load()`ed (and kept, unless something changed meanwhile). */
  get(db: Db, key: string, load: () => Promise<V | undefined>): Promise<V | undefined>;
  /** Drops every entry for the database: the owner of the table calls it in each write. */
  invalidate(db: Db): void;
}

interface Entries<V> {
  /** The data_version (SQLite) the entries were read at, or when they were started (PostgreSQL, ms). */
  version: number;
  /** Bumped by every invalidation: a load started before one does not keep what it read. */
  generation: number;
  map: Map<string, V>;
}

interface Freshness {
  version: number;
  checkedAt: number;
}

// One data_version reading per database, shared by every cache (SQLite's connection is the key).
const freshness = new WeakMap<object, Freshness>();
let verifying = false;

/**
 * Tests: every hit of get() on SQLite is checked against a fresh read and a difference throws, and
 * data_version is read on each get(), so a write that forgot to invalidate fails the test that makes it.
 * (now() keeps its window: it serves what get() filled.)
 */
export function verifyReadCaches(on: boolean): void {
  verifying = on;
}

function sqliteFreshNow(db: Db, at: number): Freshness | undefined {
  const known = freshness.get(databaseIdentity(db));
  return known && at - known.checkedAt < DATA_VERSION_CHECK_MS ? known : undefined;
}

async function sqliteFresh(db: Db, at: number): Promise<Freshness> {
  const known = verifying ? undefined : sqliteFreshNow(db, at);
  if (known) return known;
  const rows = await rawMany<{ data_version: number }>(db, "readCache.dataVersion", "PRAGMA data_version", []);
  const fresh = { version: rows[0]!.data_version, checkedAt: at };
  freshness.set(databaseIdentity(db), fresh);
  return fresh;
}

export function readCache<V>(opts: { name: string; pgTtlMs?: number; max?: number }): ReadCache<V> {
  const max = opts.max ?? 10_000;
  const byDb = new WeakMap<object, Entries<V>>();
  const usable = (db: Db) => !inTx(db) && (opts.pgTtlMs !== undefined || !isPg(db));

  /** The entries when they are current as of `at` without a round trip, else undefined. */
  function currentNow(db: Db, at: number): Entries<V> | undefined {
    const entries = byDb.get(databaseIdentity(db));
    if (!entries) return undefined;
    if (isPg(db)) return at - entries.version < opts.pgTtlMs! ? entries : undefined;
    const fresh = sqliteFreshNow(db, at);
    return fresh && fresh.version === entries.version ? entries : undefined;
  }

  async function current(db: Db, at: number): Promise<Entries<V>> {
    const now = verifying ? undefined : currentNow(db, at);
    if (now) return now;
    const owner = databaseIdentity(db);
    const version = isPg(db) ? at : (await sqliteFresh(db, at)).version;
    let entries = byDb.get(owner);
    if (!entries || entries.version !== version) {
      byDb.set(owner, (entries = { version, generation: (entries?.generation ?? 0) + 1, map: new Map() }));
    }
    return entries;
  }

  return {
    now(db, key) {
      if (!usable(db)) return undefined;
      return currentNow(db, performance.now())?.map.get(key);
    },
    async get(db, key, load) {
      if (!usable(db)) return load();
      const entries = await current(db, performance.now());
      const hit = entries.map.get(key);
      if (hit !== undefined) {
        if (verifying && !isPg(db)) {
          const fresh = await load();
          if (!deepEquals(fresh, hit)) throw new Error(`read cache ${opts.name}: the cached value of ${key} is stale (a write did not invalidate it)`);
        }
        return hit;
      }
      const generation = entries.generation;
      const found = await load();
      if (found !== undefined && entries.generation === generation && byDb.get(databaseIdentity(db)) === entries) {
        if (entries.map.size >= max) entries.map.clear();
        entries.map.set(key, found);
      }
      return found;
    },
    invalidate(db) {
      const entries = byDb.get(databaseIdentity(db));
      if (!entries) return;
      entries.generation++;
      entries.map.clear();
    },
  };
}
