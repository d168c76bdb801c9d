import { deepEquals } from "bun";
import { inTx, isPg, type Db } from "./client";
import { databaseIdentity, rawMany } from "./query";

/**
 * Per-database caches of the few reads nearly every request makes (the caller's key, its account, its feed
 * list): under load an indexed read costs far more than in a loop (docs/performance.md, 'Why the code is as it
 * is'). Entries stay current through the owner's invalidate(), PRAGMA data_version, a TTL on PostgreSQL, and
 * never caching a transaction's reads (see docs/architecture.md, 'What keeps the read caches current').
 * Values are shared between callers: treat them as read-only.
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
