import { and, asc, count, desc, eq, isNull, like, lt, or, sql } from "drizzle-orm";
import { isPg, tx, type Db } from "../../db/client";
import type { AccountKind, MemberRole } from "../../db/enums";
import { exec, many, one, preparedOne, tables } from "../../db/query";
import { readCache } from "../../db/read-cache";
import type { CounterRef, DayCountStore, SharedCountStore } from "../../http/rate-limiter";
import type { accounts, apiKeys } from "../../db/schema";

export type AccountRow = typeof accounts.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertAccount(db: Db, row: typeof accounts.$inferInsert): Promise<AccountRow> {
  const { accounts } = tables(db);
  return (await one(db, db.insert(accounts).values(row).returning()))!;
}

export function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  return preparedOne(
    db,
    "accounts.findAccount",
    (d) => {
      const { accounts } = tables(d);
      return d
        .select()
        .from(accounts)
        .where(eq(accounts.id, sql.placeholder("id")));
    },
    { id },
  );
}

export function listAccounts(db: Db): Promise<(AccountRow & { activeKeys: number })[]> {
  const { accounts } = tables(db);
  return many(
    db,
    db
      .select({
        id: accounts.id,
        name: accounts.name,
        kind: accounts.kind,
        biddersMaySend: accounts.biddersMaySend,
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
        activeKeys: sql<number>`(SELECT count(*) FROM api_keys k WHERE k.account_id = "accounts"."id" AND k.revoked_at_ts IS NULL)`.mapWith(Number),
      })
      .from(accounts)
      .orderBy(asc(accounts.createdAtTs)),
  );
}

export async function countAccounts(db: Db): Promise<number> {
  const { accounts } = tables(db);
  return (await one(db, db.select({ n: count() }).from(accounts)))?.n ?? 0;
}

export async function setAccountRateLimits(db: Db, id: string, multiplier: number, overrides: Record<string, number> | null): Promise<AccountRow | undefined> {
  const { accounts } = tables(db);
  keyCache.invalidate(db);
  accountCache.invalidate(db);
  const row = await one(db, db.update(accounts).set({ rateLimitMultiplier: multiplier, rateLimitOverrides: overrides }).where(eq(accounts.id, id)).returning());
  keyCache.invalidate(db);
  return row;
}

// ---------------------------------------------------------------- credits
// Only this module writes credits_balance, credits_held and credit_ledger. Each
// function takes the caller's handle, which may be its transaction: an
// application's final status and its credit settle in one (applications/submit.task.ts).

/**
 * Reserves one credit: available (balance − held) must be at least 1. One
 * statement, so concurrent applies can never hold more credits than exist (on
 * PostgreSQL the row lock makes a concurrent UPDATE re-check the condition on
 * the row the first one committed).
 * Returns the credits still available, or null when none was free.
 */
export async function holdCredit(db: Db, accountId: string): Promise<number | null> {
  const { accounts } = tables(db);
  accountCache.invalidate(db);
  const row = await one(
    db,
    db
      .update(accounts)
      .set({ creditsHeld: sql`${accounts.creditsHeld} + 1` })
      .where(and(eq(accounts.id, accountId), sql`${accounts.creditsBalance} - ${accounts.creditsHeld} >= 1`))
      .returning({ available: sql<number>`${accounts.creditsBalance} - ${accounts.creditsHeld}`.mapWith(Number) }),
  );
  return row ? row.available : null;
}

export async function availableCredits(db: Db, accountId: string): Promise<number> {
  const { accounts } = tables(db);
  const row = await one(
    db,
    db
      .select({ available: sql<number>`${accounts.creditsBalance} - ${accounts.creditsHeld}`.mapWith(Number) })
      .from(accounts)
      .where(eq(accounts.id, accountId)),
  );
  return row?.available ?? 0;
}

/**
 * Turns one held credit into a charge and books it in the ledger under
 * (charge, ref), which is unique: a second charge for the same ref fails and
 * rolls back the caller's transaction. The ledger row goes first, so even a
 * charge made outside a transaction changes nothing when it fails. Call once
 * per hold, inside the transaction that ends what held it.
 */
export async function chargeHeldCredit(db: Db, charge: { accountId: string; ref: string; note: string; createdAtTs: number }): Promise<void> {
  const { accounts, creditLedger } = tables(db);
  accountCache.invalidate(db);
  await exec(
    db,
    db
      .insert(creditLedger)
      .values({ accountId: charge.accountId, delta: -1, reason: "charge", ref: charge.ref, note: charge.note, createdAtTs: charge.createdAtTs }),
  );
  await exec(
    db,
    db
      .update(accounts)
      .set({ creditsBalance: sql`${accounts.creditsBalance} - 1`, creditsHeld: sql`${accounts.creditsHeld} - 1` })
      .where(eq(accounts.id, charge.accountId)),
  );
}

/** Gives one held credit back uncharged; call once per hold, inside the transaction that ends what held it. */
export async function releaseHeldCredit(db: Db, accountId: string): Promise<void> {
  const { accounts } = tables(db);
  accountCache.invalidate(db);
  await exec(
    db,
    db
      .update(accounts)
      .set({ creditsHeld: sql`${accounts.creditsHeld} - 1` })
      .where(eq(accounts.id, accountId)),
  );
}

/**
 * Grants or takes credits: changes a balance and books the ledger row; call inside a transaction.
 * Returns the new balance, or null when the change would make it negative
 * (the CHECK constraint refuses it) or the account does not exist.
 */
export async function applyCreditDelta(
  db: Db,
  entry: { accountId: string; delta: number; reason: string; ref?: string | null; note?: string | null; createdAtTs: number },
): Promise<number | null> {
  const { accounts, creditLedger } = tables(db);
  accountCache.invalidate(db);
  const updated = await one(
    db,
    db
      .update(accounts)
      .set({ creditsBalance: sql`${accounts.creditsBalance} + ${entry.delta}` })
      // Never below zero, and never below what applications in flight hold.
      .where(and(eq(accounts.id, entry.accountId), sql`${accounts.creditsBalance} + ${entry.delta} >= ${accounts.creditsHeld}`))
      .returning({ balance: accounts.creditsBalance }),
  );
  if (!updated) return null;
  await exec(
    db,
    db.insert(creditLedger).values({
      accountId: entry.accountId,
      delta: entry.delta,
      reason: entry.reason,
      ref: entry.ref ?? null,
      note: entry.note ?? null,
      createdAtTs: entry.createdAtTs,
    }),
  );
  return updated.balance;
}

export async function insertKey(db: Db, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const { apiKeys } = tables(db);
  return (await one(db, db.insert(apiKeys).values(row).returning()))!;
}

export function listKeys(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  const { apiKeys } = tables(db);
  return many(db, db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(asc(apiKeys.createdAtTs)));
}

/**
 * When the account's newest unrevoked API key with this exact label was made (e.g. its browser companion's key,
 * made when it paired), or null when it holds none.
 */
export async function newestLiveKeyLabelledAt(db: Db, accountId: string, label: string): Promise<number | null> {
  const { apiKeys } = tables(db);
  const row = await one(
    db,
    db
      .select({ createdAtTs: apiKeys.createdAtTs })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.label, label), isNull(apiKeys.revokedAtTs)))
      .orderBy(desc(apiKeys.createdAtTs))
      .limit(1),
  );
  return row ? Number(row.createdAtTs) : null;
}

/** Per account holding one, when its newest unrevoked key with this exact label was made (`jobpilot doctor` lists paired companions). */
export async function liveKeysLabelled(db: Db, label: string): Promise<Map<string, number>> {
  const { apiKeys } = tables(db);
  const rows = await many(
    db,
    db
      .select({ accountId: apiKeys.accountId, createdAtTs: apiKeys.createdAtTs })
      .from(apiKeys)
      .where(and(eq(apiKeys.label, label), isNull(apiKeys.revokedAtTs))),
  );
  const newest = new Map<string, number>();
  for (const r of rows) newest.set(r.accountId, Math.max(newest.get(r.accountId) ?? 0, Number(r.createdAtTs)));
  return newest;
}

export function findKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return preparedOne(
    db,
    "accounts.findKey",
    (d) => {
      const { apiKeys } = tables(d);
      return d
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.id, sql.placeholder("id")));
    },
    { id },
  );
}

/** Revocation is one statement; a second revoke finds nothing to change. */
export async function revokeKey(db: Db, id: string, ts: number): Promise<ApiKeyRow | undefined> {
  const { apiKeys } = tables(db);
  keyCache.invalidate(db);
  const row = await one(
    db,
    db
      .update(apiKeys)
      .set({ revokedAtTs: ts })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAtTs)))
      .returning(),
  );
  keyCache.invalidate(db);
  return row;
}

/** Revokes every live key a member made (their removal), in the caller's transaction; the revoked rows. */
export async function revokeKeysOfMember(db: Db, accountId: string, memberId: string, ts: number): Promise<ApiKeyRow[]> {
  const { apiKeys } = tables(db);
  keyCache.invalidate(db);
  const rows = await many(
    db,
    db
      .update(apiKeys)
      .set({ revokedAtTs: ts })
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.memberId, memberId), isNull(apiKeys.revokedAtTs)))
      .returning(),
  );
  keyCache.invalidate(db);
  return rows;
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
  memberId: string | null;
  role: MemberRole;
  biddersMaySend: boolean;
}

/**
 * Key lookups are cached (see db/read-cache.ts), because every authenticated request needs one: this
 * process's own writes to keys and to the account fields a lookup carries invalidate it at once, another
 * process's are seen within DATA_VERSION_CHECK_MS on SQLite, and on PostgreSQL the cache is dropped every PG_KEY_CACHE_MS, so a key
 * revoked (or an account's rate limits changed) on another node or by the CLI takes effect here within that.
 */
export const PG_KEY_CACHE_MS = 1000;
const keyCache = readCache<KeyLookup>({ name: "keys", pgTtlMs: PG_KEY_CACHE_MS });
/** The caller's account, for GET /api/v1/account; not cached on PostgreSQL, where credits change on every node. */
const accountCache = readCache<AccountRow>({ name: "accounts" });

// Each write in this file drops what it changes (see the read cache's rules): keys, and the account fields a key
// lookup carries (kind, rate limits), the key cache; any change of an account row, the account cache. Credits
// are not part of a key lookup, so holding and charging them leaves keys cached.

/** The cached lookup of `hash` when it is known current without asking the database, else undefined. */
export function findKeyByHashNow(db: Db, hash: string): KeyLookup | undefined {
  return keyCache.now(db, hash);
}

export function findKeyByHashCached(db: Db, hash: string): Promise<KeyLookup | undefined> {
  return keyCache.get(db, hash, () => keyByHash(db, hash));
}

/** The cached account when it is known current without asking the database, else undefined. */
export function findAccountNow(db: Db, id: string): AccountRow | undefined {
  return accountCache.now(db, id);
}

/** findAccount, answered from memory while the account is unchanged (SQLite). */
export function findAccountCached(db: Db, id: string): Promise<AccountRow | undefined> {
  return accountCache.get(db, id, () => findAccount(db, id));
}

/**
 * Two point reads on unique indexes, not a JOIN: SQLite's set-up of even a one-row
 * join costs more than both reads (docs/performance.md, 'Why the code is as it is').
 */
async function keyByHash(db: Db, hash: string): Promise<KeyLookup | undefined> {
  const key = await preparedOne(
    db,
    "accounts.findKeyByHash",
    (d) => {
      const { apiKeys } = tables(d);
      return d
        .select({
          keyId: apiKeys.id,
          keyLabel: apiKeys.label,
          keyPrefix: apiKeys.prefix,
          hash: apiKeys.hash,
          accountId: apiKeys.accountId,
          revokedAtTs: apiKeys.revokedAtTs,
          memberId: apiKeys.memberId,
          role: apiKeys.role,
        })
        .from(apiKeys)
        .where(eq(apiKeys.hash, sql.placeholder("hash")));
    },
    { hash },
  );
  if (!key) return undefined;
  const account = await findAccount(db, key.accountId);
  if (!account) return undefined;
  return {
    ...key,
    accountKind: account.kind,
    rateLimitMultiplier: account.rateLimitMultiplier,
    rateLimitOverrides: account.rateLimitOverrides,
    biddersMaySend: account.biddersMaySend,
  };
}

export async function touchKeys(db: Db, lastUsed: Map<string, number>): Promise<void> {
  if (lastUsed.size === 0) return;
  await tx(db, async (t) => {
    const { apiKeys } = tables(t);
    for (const [id, ts] of lastUsed) await exec(t, t.update(apiKeys).set({ lastUsedAtTs: ts }).where(eq(apiKeys.id, id)));
  });
}

// ---------------------------------------------------------------- rate-limit counters

export async function loadDayCount(db: Db, keyId: string, bucket: string, windowStartTs: number): Promise<number> {
  const { rateLimitCounters } = tables(db);
  const row = await one(
    db,
    db
      .select({ count: rateLimitCounters.count })
      .from(rateLimitCounters)
      .where(and(eq(rateLimitCounters.keyId, keyId), eq(rateLimitCounters.bucket, bucket), eq(rateLimitCounters.windowStartTs, windowStartTs))),
  );
  return row?.count ?? 0;
}

/** Writes absolute counts (max with what is stored, so an older snapshot never lowers a count) and forgets old days. */
export async function saveDayCounts(
  db: Db,
  rows: { keyId: string; bucket: string; windowStartTs: number; count: number }[],
  pruneBeforeTs: number,
): Promise<void> {
  await tx(db, async (t) => {
    const { rateLimitCounters } = tables(t);
    // SQLite's two-argument max() is PostgreSQL's GREATEST.
    const larger = isPg(t) ? sql`GREATEST(${rateLimitCounters.count}, excluded.count)` : sql`max(${rateLimitCounters.count}, excluded.count)`;
    for (const row of rows) {
      await exec(
        t,
        t
          .insert(rateLimitCounters)
          .values(row)
          .onConflictDoUpdate({ target: [rateLimitCounters.keyId, rateLimitCounters.bucket, rateLimitCounters.windowStartTs], set: { count: larger } }),
      );
    }
    await exec(t, t.delete(rateLimitCounters).where(lt(rateLimitCounters.windowStartTs, pruneBeforeTs)));
  });
}

/**
 * Cluster-wide counts (PostgreSQL) share rate_limit_counters with the day counts: a day window's row is
 * (key, bucket, day start) as on SQLite, a minute window's is (key, "bucket:minute", minute start).
 */
const MINUTE_SUFFIX = ":minute";
const rowBucket = (ref: CounterRef) => (ref.window === "minute" ? `${ref.bucket}${MINUTE_SUFFIX}` : ref.bucket);
const refKey = (keyId: string, bucket: string, windowStartTs: number) => `${keyId}\u0000${bucket}\u0000${windowStartTs}`;

/** The stored counts of these windows (0 for none stored), in order. */
export async function readCounts(db: Db, refs: CounterRef[]): Promise<number[]> {
  if (refs.length === 0) return [];
  const { rateLimitCounters: r } = tables(db);
  const rows = await many(
    db,
    db
      .select({ keyId: r.keyId, bucket: r.bucket, windowStartTs: r.windowStartTs, count: r.count })
      .from(r)
      .where(or(...refs.map((ref) => and(eq(r.keyId, ref.keyId), eq(r.bucket, rowBucket(ref)), eq(r.windowStartTs, ref.windowStartTs))))),
  );
  const byKey = new Map(rows.map((row) => [refKey(row.keyId, row.bucket, row.windowStartTs), row.count]));
  return refs.map((ref) => byKey.get(refKey(ref.keyId, rowBucket(ref), ref.windowStartTs)) ?? 0);
}

/**
 * Adds each increment to its window's stored count in one atomic UPSERT and returns the new totals, in
 * order. Rows are written in key order, so two nodes adding to the same windows cannot deadlock.
 */
export async function addCounts(db: Db, rows: (CounterRef & { delta: number })[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const { rateLimitCounters: r } = tables(db);
  const values = rows
    .map((row) => ({ keyId: row.keyId, bucket: rowBucket(row), windowStartTs: row.windowStartTs, count: row.delta }))
    .sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.windowStartTs - b.windowStartTs));
  const totals = await many(
    db,
    db
      .insert(r)
      .values(values)
      .onConflictDoUpdate({ target: [r.keyId, r.bucket, r.windowStartTs], set: { count: sql`${r.count} + excluded.count` } })
      .returning({ keyId: r.keyId, bucket: r.bucket, windowStartTs: r.windowStartTs, count: r.count }),
  );
  const byKey = new Map(totals.map((row) => [refKey(row.keyId, row.bucket, row.windowStartTs), row.count]));
  return rows.map((row) => byKey.get(refKey(row.keyId, rowBucket(row), row.windowStartTs)) ?? row.delta);
}

/** Forgets day windows that started before `dayBeforeTs` and minute windows that started before `minuteBeforeTs`. */
export async function pruneCounts(db: Db, dayBeforeTs: number, minuteBeforeTs: number): Promise<void> {
  const { rateLimitCounters: r } = tables(db);
  await exec(db, db.delete(r).where(or(lt(r.windowStartTs, dayBeforeTs), and(like(r.bucket, `%${MINUTE_SUFFIX}`), lt(r.windowStartTs, minuteBeforeTs)))));
}

/**
 * The rate limiter's counts, kept in this module's rate_limit_counters table. On PostgreSQL the counts
 * are shared by every node (see SharedCountStore in http/rate-limiter.ts); on SQLite one process owns them.
 */
export function dayCountStore(db: Db): DayCountStore {
  const shared: SharedCountStore | undefined = isPg(db)
    ? {
        read: (refs) => readCounts(db, refs),
        add: (rows) => addCounts(db, rows),
        prune: (dayBeforeTs, minuteBeforeTs) => pruneCounts(db, dayBeforeTs, minuteBeforeTs),
      }
    : undefined;
  return {
    load: (keyId, bucket, windowStartTs) => loadDayCount(db, keyId, bucket, windowStartTs),
    save: (rows, pruneBeforeTs) => saveDayCounts(db, rows, pruneBeforeTs),
    shared,
  };
}

// ---------------------------------------------------------------- AI usage

/** Model calls this account made this month for a purpose (e.g. "scoring"). */
export async function aiUsageCalls(db: Db, accountId: string, month: string, purpose: string): Promise<number> {
  const { aiUsage } = tables(db);
  const row = await one(
    db,
    db
      .select({ calls: aiUsage.calls })
      .from(aiUsage)
      .where(and(eq(aiUsage.accountId, accountId), eq(aiUsage.month, month), eq(aiUsage.purpose, purpose))),
  );
  return row?.calls ?? 0;
}

export async function addAiUsage(
  db: Db,
  entry: { accountId: string; month: string; purpose: string; promptTokens: number; completionTokens: number },
): Promise<void> {
  const { aiUsage } = tables(db);
  await exec(
    db,
    db
      .insert(aiUsage)
      .values({ ...entry, calls: 1 })
      .onConflictDoUpdate({
        target: [aiUsage.accountId, aiUsage.month, aiUsage.purpose],
        set: {
          calls: sql`${aiUsage.calls} + 1`,
          promptTokens: sql`${aiUsage.promptTokens} + ${entry.promptTokens}`,
          completionTokens: sql`${aiUsage.completionTokens} + ${entry.completionTokens}`,
        },
      }),
  );
}

export async function setAiScoringAllowance(db: Db, id: string, allowance: number | null): Promise<AccountRow | undefined> {
  const { accounts } = tables(db);
  accountCache.invalidate(db);
  return one(db, db.update(accounts).set({ aiScoringAllowance: allowance }).where(eq(accounts.id, id)).returning());
}

export async function setCeilings(
  db: Db,
  id: string,
  changes: Partial<Pick<AccountRow, "maxFeeds" | "maxApiKeys" | "maxPromptChars">>,
): Promise<AccountRow | undefined> {
  const { accounts } = tables(db);
  accountCache.invalidate(db);
  return one(db, db.update(accounts).set(changes).where(eq(accounts.id, id)).returning());
}

/** Keys that still work (revoked ones do not count against the ceiling). */
export async function countActiveKeys(db: Db, accountId: string): Promise<number> {
  const { apiKeys } = tables(db);
  const row = await one(
    db,
    db
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAtTs))),
  );
  return row?.n ?? 0;
}

export async function setMarketplaceDriver(db: Db, id: string, driver: string | null): Promise<AccountRow | undefined> {
  const { accounts } = tables(db);
  accountCache.invalidate(db);
  return one(db, db.update(accounts).set({ marketplaceDriver: driver }).where(eq(accounts.id, id)).returning());
}

/** Whether the account's bidders may send without approval; a key lookup carries it, so both caches drop. */
export async function setBiddersMaySend(db: Db, id: string, biddersMaySend: boolean): Promise<AccountRow | undefined> {
  const { accounts } = tables(db);
  keyCache.invalidate(db);
  accountCache.invalidate(db);
  return one(db, db.update(accounts).set({ biddersMaySend }).where(eq(accounts.id, id)).returning());
}
