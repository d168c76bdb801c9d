import { and, asc, count, eq, isNull, lt, sql } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import type { AccountKind } from "../../db/enums";
import { prepared } from "../../db/prepared";
import type { DayCountStore } from "../../http/rate-limiter";
import { accounts, aiUsage, apiKeys, creditLedger, rateLimitCounters } from "../../db/schema";

export type AccountRow = typeof accounts.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function insertAccount(db: Db, row: typeof accounts.$inferInsert): Promise<AccountRow> {
  return exclusive(db, () => db.insert(accounts).values(row).returning().get());
}

export function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  return exclusive(db, () => accountById(db, id));
}

function accountById(db: Db, id: string): AccountRow | undefined {
  return prepared(db, "accounts.findAccount", (d) =>
    d
      .select()
      .from(accounts)
      .where(eq(accounts.id, sql.placeholder("id")))
      .prepare(),
  ).get({ id });
}

export function listAccounts(db: Db): Promise<(AccountRow & { activeKeys: number })[]> {
  return exclusive(db, () =>
    db
      .select({
        id: accounts.id,
        name: accounts.name,
        kind: accounts.kind,
        creditsBalance: accounts.creditsBalance,
        rateLimitMultiplier: accounts.rateLimitMultiplier,
        rateLimitOverrides: accounts.rateLimitOverrides,
        aiScoringAllowance: accounts.aiScoringAllowance,
        creditsHeld: accounts.creditsHeld,
        marketplaceDriver: accounts.marketplaceDriver,
        maxFeeds: accounts.maxFeeds,
        maxApiKeys: accounts.maxApiKeys,
        maxPromptChars: accounts.maxPromptChars,
        createdAtTs: accounts.createdAtTs,
        // Written out in full: drizzle leaves column names unqualified inside a subquery, which would bind to api_keys.
        activeKeys: sql<number>`(SELECT count(*) FROM api_keys k WHERE k.account_id = "accounts"."id" AND k.revoked_at_ts IS NULL)`,
      })
      .from(accounts)
      .orderBy(asc(accounts.createdAtTs))
      .all(),
  );
}

export function countAccounts(db: Db): Promise<number> {
  return exclusive(db, () => db.select({ n: count() }).from(accounts).get()?.n ?? 0);
}

export function setAccountRateLimits(db: Db, id: string, multiplier: number, overrides: Record<string, number> | null): Promise<AccountRow | undefined> {
  return exclusive(db, () => {
    invalidateKeyCache(db);
    return db.update(accounts).set({ rateLimitMultiplier: multiplier, rateLimitOverrides: overrides }).where(eq(accounts.id, id)).returning().get();
  });
}

// ---------------------------------------------------------------- credits
// Only this module writes credits_balance, credits_held and credit_ledger. Each
// function takes the caller's handle, which may be its transaction: an
// application's final status and its credit settle in one (applications/submit.task.ts).

/**
 * Reserves one credit: available (balance − held) must be at least 1. One
 * statement, so concurrent applies can never hold more credits than exist.
 * Returns the credits still available, or null when none was free.
 */
export function holdCredit(db: Db, accountId: string): Promise<number | null> {
  return exclusive(db, () => {
    const row = db
      .update(accounts)
      .set({ creditsHeld: sql`${accounts.creditsHeld} + 1` })
      .where(and(eq(accounts.id, accountId), sql`${accounts.creditsBalance} - ${accounts.creditsHeld} >= 1`))
      .returning({ available: sql<number>`${accounts.creditsBalance} - ${accounts.creditsHeld}` })
      .get();
    return row ? row.available : null;
  });
}

export function availableCredits(db: Db, accountId: string): Promise<number> {
  return exclusive(
    db,
    () =>
      db
        .select({ available: sql<number>`${accounts.creditsBalance} - ${accounts.creditsHeld}` })
        .from(accounts)
        .where(eq(accounts.id, accountId))
        .get()?.available ?? 0,
  );
}

/**
 * Turns one held credit into a charge and books it in the ledger under
 * (charge, ref), which is unique: a second charge for the same ref fails and
 * rolls back the caller's transaction. Call once per hold, inside the
 * transaction that ends what held it.
 */
export function chargeHeldCredit(db: Db, charge: { accountId: string; ref: string; note: string; createdAtTs: number }): Promise<void> {
  return exclusive(db, () => {
    db.update(accounts)
      .set({ creditsBalance: sql`${accounts.creditsBalance} - 1`, creditsHeld: sql`${accounts.creditsHeld} - 1` })
      .where(eq(accounts.id, charge.accountId))
      .run();
    db.insert(creditLedger)
      .values({ accountId: charge.accountId, delta: -1, reason: "charge", ref: charge.ref, note: charge.note, createdAtTs: charge.createdAtTs })
      .run();
  });
}

/** Gives one held credit back uncharged; call once per hold, inside the transaction that ends what held it. */
export function releaseHeldCredit(db: Db, accountId: string): Promise<void> {
  return exclusive(db, () => {
    db.update(accounts)
      .set({ creditsHeld: sql`${accounts.creditsHeld} - 1` })
      .where(eq(accounts.id, accountId))
      .run();
  });
}

/**
 * Grants or takes credits: changes a balance and books the ledger row; call inside a transaction.
 * Returns the new balance, or null when the change would make it negative
 * (the CHECK constraint refuses it) or the account does not exist.
 */
export function applyCreditDelta(
  db: Db,
  entry: { accountId: string; delta: number; reason: string; ref?: string | null; note?: string | null; createdAtTs: number },
): Promise<number | null> {
  return exclusive(db, () => {
    const updated = db
      .update(accounts)
      .set({ creditsBalance: sql`${accounts.creditsBalance} + ${entry.delta}` })
      // Never below zero, and never below what applications in flight hold.
      .where(and(eq(accounts.id, entry.accountId), sql`${accounts.creditsBalance} + ${entry.delta} >= ${accounts.creditsHeld}`))
      .returning({ balance: accounts.creditsBalance })
      .get();
    if (!updated) return null;
    db.insert(creditLedger)
      .values({
        accountId: entry.accountId,
        delta: entry.delta,
        reason: entry.reason,
        ref: entry.ref ?? null,
        note: entry.note ?? null,
        createdAtTs: entry.createdAtTs,
      })
      .run();
    return updated.balance;
  });
}

export function insertKey(db: Db, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  return exclusive(db, () => db.insert(apiKeys).values(row).returning().get());
}

export function listKeys(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  return exclusive(db, () => db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(asc(apiKeys.createdAtTs)).all());
}

export function findKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return exclusive(db, () =>
    prepared(db, "accounts.findKey", (d) =>
      d
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.id, sql.placeholder("id")))
        .prepare(),
    ).get({ id }),
  );
}

/** Revocation is one statement; a second revoke finds nothing to change. */
export function revokeKey(db: Db, id: string, ts: number): Promise<ApiKeyRow | undefined> {
  return exclusive(db, () => {
    invalidateKeyCache(db);
    return db
      .update(apiKeys)
      .set({ revokedAtTs: ts })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAtTs)))
      .returning()
      .get();
  });
}

export interface KeyLookup {
  keyId: string;
  keyLabel: string | null;
  keyPrefix: string;
  hash: string;
  accountId: string;
  accountKind: AccountKind;
  revokedAtTs: number | null;
  rateLimitMultiplier: number;
  rateLimitOverrides: Record<string, number> | null;
}

/**
 * Key lookups are cached per database handle, because every authenticated
 * request needs one and each WAL read transaction costs a few lock system
 * calls. The cache is dropped at once by this connection's own writes to keys
 * and accounts (below), and when `PRAGMA data_version` moves, which happens
 * when another connection (the CLI revoking a key) commits. That pragma is
 * itself a read transaction, so it is asked at most every
 * DATA_VERSION_CHECK_MS: a revocation made by another process is seen within
 * that time. Misses are not cached, so a new key works at once.
 */
interface KeyCache {
  version: number;
  checkedAt: number;
  entries: Map<string, KeyLookup>;
}
// Per connection, so a transaction's handle and the database share one cache.
const keyCaches = new WeakMap<object, KeyCache>();
const KEY_CACHE_MAX = 10_000;
export const DATA_VERSION_CHECK_MS = 2;

function dataVersion(db: Db): number {
  const row = prepared(db, "accounts.dataVersion", (d) => d.$client.prepare("PRAGMA data_version")).get() as { data_version: number };
  return row.data_version;
}

function currentKeyCache(db: Db): KeyCache {
  const now = performance.now();
  let cache = keyCaches.get(db.$client);
  if (cache && now - cache.checkedAt < DATA_VERSION_CHECK_MS) return cache;
  const version = dataVersion(db);
  if (!cache || cache.version !== version) keyCaches.set(db.$client, (cache = { version, checkedAt: now, entries: new Map() }));
  cache.checkedAt = now;
  return cache;
}

export function invalidateKeyCache(db: Db): void {
  keyCaches.get(db.$client)?.entries.clear();
}

export function findKeyByHashCached(db: Db, hash: string): Promise<KeyLookup | undefined> {
  return exclusive(db, () => {
    const cache = currentKeyCache(db);
    const hit = cache.entries.get(hash);
    if (hit) return hit;
    const found = keyByHash(db, hash);
    if (found) {
      if (cache.entries.size >= KEY_CACHE_MAX) cache.entries.clear();
      cache.entries.set(hash, found);
    }
    return found;
  });
}

/**
 * Two point reads on unique indexes, not a JOIN: SQLite spends ~10 µs setting
 * up even a one-row join (measured here), against ~1.5 µs per indexed read.
 */
function keyByHash(db: Db, hash: string): KeyLookup | undefined {
  const key = prepared(db, "accounts.findKeyByHash", (d) =>
    d
      .select({
        keyId: apiKeys.id,
        keyLabel: apiKeys.label,
        keyPrefix: apiKeys.prefix,
        hash: apiKeys.hash,
        accountId: apiKeys.accountId,
        revokedAtTs: apiKeys.revokedAtTs,
      })
      .from(apiKeys)
      .where(eq(apiKeys.hash, sql.placeholder("hash")))
      .prepare(),
  ).get({ hash });
  if (!key) return undefined;
  const account = accountById(db, key.accountId);
  if (!account) return undefined;
  return {
    ...key,
    accountKind: account.kind,
    rateLimitMultiplier: account.rateLimitMultiplier,
    rateLimitOverrides: account.rateLimitOverrides,
  };
}

export function touchKeys(db: Db, lastUsed: Map<string, number>): Promise<void> {
  return exclusive(db, () => {
    if (lastUsed.size === 0) return;
    db.transaction((tx) => {
      for (const [id, ts] of lastUsed) {
        tx.update(apiKeys).set({ lastUsedAtTs: ts }).where(eq(apiKeys.id, id)).run();
      }
    });
  });
}

export function loadDayCount(db: Db, keyId: string, bucket: string, windowStartTs: number): Promise<number> {
  return exclusive(
    db,
    () =>
      db
        .select({ count: rateLimitCounters.count })
        .from(rateLimitCounters)
        .where(and(eq(rateLimitCounters.keyId, keyId), eq(rateLimitCounters.bucket, bucket), eq(rateLimitCounters.windowStartTs, windowStartTs)))
        .get()?.count ?? 0,
  );
}

/** Writes absolute counts (max with what is stored, so an older snapshot never lowers a count) and forgets old days. */
export function saveDayCounts(db: Db, rows: { keyId: string; bucket: string; windowStartTs: number; count: number }[], pruneBeforeTs: number): Promise<void> {
  return exclusive(db, () => {
    db.transaction((tx) => {
      for (const row of rows) {
        tx.insert(rateLimitCounters)
          .values(row)
          .onConflictDoUpdate({
            target: [rateLimitCounters.keyId, rateLimitCounters.bucket, rateLimitCounters.windowStartTs],
            set: { count: sql`max(${rateLimitCounters.count}, excluded.count)` },
          })
          .run();
      }
      tx.delete(rateLimitCounters).where(lt(rateLimitCounters.windowStartTs, pruneBeforeTs)).run();
    });
  });
}

/** The rate limiter's day counts, kept in this module's rate_limit_counters table. */
export function dayCountStore(db: Db): DayCountStore {
  return {
    load: (keyId, bucket, windowStartTs) => loadDayCount(db, keyId, bucket, windowStartTs),
    save: (rows, pruneBeforeTs) => saveDayCounts(db, rows, pruneBeforeTs),
  };
}

/** Model calls this account made this month for a purpose (e.g. "scoring"). */
export function aiUsageCalls(db: Db, accountId: string, month: string, purpose: string): Promise<number> {
  return exclusive(
    db,
    () =>
      db
        .select({ calls: aiUsage.calls })
        .from(aiUsage)
        .where(and(eq(aiUsage.accountId, accountId), eq(aiUsage.month, month), eq(aiUsage.purpose, purpose)))
        .get()?.calls ?? 0,
  );
}

export function addAiUsage(
  db: Db,
  entry: { accountId: string; month: string; purpose: string; promptTokens: number; completionTokens: number },
): Promise<void> {
  return exclusive(db, () => {
    db.insert(aiUsage)
      .values({ ...entry, calls: 1 })
      .onConflictDoUpdate({
        target: [aiUsage.accountId, aiUsage.month, aiUsage.purpose],
        set: {
          calls: sql`${aiUsage.calls} + 1`,
          promptTokens: sql`${aiUsage.promptTokens} + ${entry.promptTokens}`,
          completionTokens: sql`${aiUsage.completionTokens} + ${entry.completionTokens}`,
        },
      })
      .run();
  });
}

export function setAiScoringAllowance(db: Db, id: string, allowance: number | null): Promise<AccountRow | undefined> {
  return exclusive(db, () => db.update(accounts).set({ aiScoringAllowance: allowance }).where(eq(accounts.id, id)).returning().get());
}

export function setCeilings(
  db: Db,
  id: string,
  changes: Partial<Pick<AccountRow, "maxFeeds" | "maxApiKeys" | "maxPromptChars">>,
): Promise<AccountRow | undefined> {
  return exclusive(db, () => db.update(accounts).set(changes).where(eq(accounts.id, id)).returning().get());
}

/** Keys that still work (revoked ones do not count against the ceiling). */
export function countActiveKeys(db: Db, accountId: string): Promise<number> {
  return exclusive(
    db,
    () =>
      db
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAtTs)))
        .get()?.n ?? 0,
  );
}

export function setMarketplaceDriver(db: Db, id: string, driver: string | null): Promise<AccountRow | undefined> {
  return exclusive(db, () => db.update(accounts).set({ marketplaceDriver: driver }).where(eq(accounts.id, id)).returning().get());
}
