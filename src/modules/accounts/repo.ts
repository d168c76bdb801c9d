import { and, asc, count, eq, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accounts, apiKeys, creditLedger, rateLimitCounters } from "../../db/schema";

export type AccountRow = typeof accounts.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function insertAccount(db: Db, row: typeof accounts.$inferInsert): AccountRow {
  return db.insert(accounts).values(row).returning().get();
}

export function findAccount(db: Db, id: string): AccountRow | undefined {
  return db.select().from(accounts).where(eq(accounts.id, id)).get();
}

export function listAccounts(db: Db): (AccountRow & { activeKeys: number })[] {
  return db
    .select({
      id: accounts.id,
      name: accounts.name,
      kind: accounts.kind,
      creditsBalance: accounts.creditsBalance,
      rateLimitMultiplier: accounts.rateLimitMultiplier,
      rateLimitOverrides: accounts.rateLimitOverrides,
      createdAtTs: accounts.createdAtTs,
      // Written out in full: drizzle leaves column names unqualified inside a subquery, which would bind to api_keys.
      activeKeys: sql<number>`(SELECT count(*) FROM api_keys k WHERE k.account_id = "accounts"."id" AND k.revoked_at_ts IS NULL)`,
    })
    .from(accounts)
    .orderBy(asc(accounts.createdAtTs))
    .all();
}

export function countAccounts(db: Db): number {
  return db.select({ n: count() }).from(accounts).get()?.n ?? 0;
}

export function setAccountRateLimits(
  db: Db,
  id: string,
  multiplier: number,
  overrides: Record<string, number> | null,
): AccountRow | undefined {
  return db
    .update(accounts)
    .set({ rateLimitMultiplier: multiplier, rateLimitOverrides: overrides })
    .where(eq(accounts.id, id))
    .returning()
    .get();
}

/**
 * Changes a balance and books the ledger row; call inside a transaction.
 * Returns the new balance, or null when the change would make it negative
 * (the CHECK constraint refuses it) or the account does not exist.
 */
export function applyCreditDelta(
  db: Db,
  entry: { accountId: string; delta: number; reason: string; ref?: string | null; note?: string | null; createdAtTs: number },
): number | null {
  const updated = db
    .update(accounts)
    .set({ creditsBalance: sql`${accounts.creditsBalance} + ${entry.delta}` })
    .where(and(eq(accounts.id, entry.accountId), sql`${accounts.creditsBalance} + ${entry.delta} >= 0`))
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
}

export function insertKey(db: Db, row: typeof apiKeys.$inferInsert): ApiKeyRow {
  return db.insert(apiKeys).values(row).returning().get();
}

export function listKeys(db: Db, accountId: string): ApiKeyRow[] {
  return db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(asc(apiKeys.createdAtTs)).all();
}

export function findKey(db: Db, id: string): ApiKeyRow | undefined {
  return db.select().from(apiKeys).where(eq(apiKeys.id, id)).get();
}

/** Revocation is one statement; a second revoke finds nothing to change. */
export function revokeKey(db: Db, id: string, ts: number): ApiKeyRow | undefined {
  return db
    .update(apiKeys)
    .set({ revokedAtTs: ts })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAtTs)))
    .returning()
    .get();
}

export interface KeyLookup {
  keyId: string;
  hash: string;
  accountId: string;
  accountKind: "solo" | "agency";
  revokedAtTs: number | null;
  rateLimitMultiplier: number;
  rateLimitOverrides: Record<string, number> | null;
}

// The key lookup runs on every request: prepare it once per database handle.
const lookupStatements = new WeakMap<Db, ReturnType<typeof prepareLookup>>();
function prepareLookup(db: Db) {
  return db
    .select({
      keyId: apiKeys.id,
      hash: apiKeys.hash,
      accountId: apiKeys.accountId,
      accountKind: accounts.kind,
      revokedAtTs: apiKeys.revokedAtTs,
      rateLimitMultiplier: accounts.rateLimitMultiplier,
      rateLimitOverrides: accounts.rateLimitOverrides,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.hash, sql.placeholder("hash")))
    .prepare();
}

export function findKeyByHash(db: Db, hash: string): KeyLookup | undefined {
  let stmt = lookupStatements.get(db);
  if (!stmt) lookupStatements.set(db, (stmt = prepareLookup(db)));
  return stmt.get({ hash }) as KeyLookup | undefined;
}

export function touchKeys(db: Db, lastUsed: Map<string, number>): void {
  if (lastUsed.size === 0) return;
  db.transaction((tx) => {
    for (const [id, ts] of lastUsed) {
      tx.update(apiKeys).set({ lastUsedAtTs: ts }).where(eq(apiKeys.id, id)).run();
    }
  });
}

export function loadDayCount(db: Db, keyId: string, bucket: string, windowStartTs: number): number {
  return (
    db
      .select({ count: rateLimitCounters.count })
      .from(rateLimitCounters)
      .where(
        and(
          eq(rateLimitCounters.keyId, keyId),
          eq(rateLimitCounters.bucket, bucket),
          eq(rateLimitCounters.windowStartTs, windowStartTs),
        ),
      )
      .get()?.count ?? 0
  );
}

/** Writes absolute counts (max with what is stored, so an older snapshot never lowers a count) and forgets old days. */
export function saveDayCounts(
  db: Db,
  rows: { keyId: string; bucket: string; windowStartTs: number; count: number }[],
  pruneBeforeTs: number,
): void {
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
}
