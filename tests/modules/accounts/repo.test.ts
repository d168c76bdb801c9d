import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { tx, type Db } from "../../../src/db/client";
import { isUniqueViolation, rawMany } from "../../../src/db/query";
import * as repo from "../../../src/modules/accounts/repo";
import { openTestDb, type TestDb } from "../../helpers/db";

// The credit invariants and the counters, on the suite's backend (SQLite, or PostgreSQL in its pass): on
// PostgreSQL the concurrent calls below run on several connections of the pool at once.

let t: TestDb;
let db: Db;
beforeEach(async () => {
  t = await openTestDb();
  db = t.db;
});
afterEach(() => t.close());

// tx() on PostgreSQL runs a transaction again after a serialization failure, so none may escape here.
const settledValues = async <T>(calls: Promise<T>[]): Promise<T[]> => {
  const results = await Promise.allSettled(calls);
  for (const r of results) if (r.status === "rejected") throw r.reason;
  return results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
};

let n = 0;
async function account(credits: number): Promise<string> {
  const id = `acc${++n}`;
  await tx(db, async (d) => {
    await repo.insertAccount(d, { id, name: id, kind: "solo", createdAtTs: 1 });
    if (credits > 0) await repo.applyCreditDelta(d, { accountId: id, delta: credits, reason: "grant", createdAtTs: 1 });
  });
  return id;
}

async function credits(accountId: string) {
  const row = (await repo.findAccount(db, accountId))!;
  const ledger = await rawMany<{ s: unknown; c: unknown }>(db, "test.ledger", "SELECT sum(delta) AS s, count(*) AS c FROM credit_ledger WHERE account_id = ?", [
    accountId,
  ]);
  return { balance: row.creditsBalance, held: row.creditsHeld, ledgerSum: Number(ledger[0]!.s ?? 0), available: await repo.availableCredits(db, accountId) };
}

describe("credits", () => {
  test("concurrent holds never hold more credits than exist, alone or each in its own transaction", async () => {
    for (const inTx of [false, true]) {
      const id = await account(5);
      const hold = () => (inTx ? tx(db, (d) => repo.holdCredit(d, id)) : repo.holdCredit(db, id));
      const held = (await settledValues(Array.from({ length: 24 }, hold))).filter((r) => r !== null);
      // Each hold that succeeded saw a different number of credits left, and no more were held than exist.
      expect(new Set(held).size).toBe(held.length);
      expect(held.every((r) => r >= 0 && r < 5)).toBe(true);
      if (!inTx) expect(held).toHaveLength(5); // single statements wait on the row lock, none fails
      expect(await credits(id)).toEqual({ balance: 5, held: held.length, ledgerSum: 5, available: 5 - held.length });
      while ((await repo.holdCredit(db, id)) !== null);
      expect(await credits(id)).toEqual({ balance: 5, held: 5, ledgerSum: 5, available: 0 });
    }
  });

  test("a held credit is charged once: a second charge for the same ref fails and changes nothing", async () => {
    const id = await account(3);
    expect(await repo.holdCredit(db, id)).toBe(2);
    expect(await repo.holdCredit(db, id)).toBe(1);
    await tx(db, (d) => repo.chargeHeldCredit(d, { accountId: id, ref: "app1", note: "applied", createdAtTs: 2 }));
    expect(await credits(id)).toEqual({ balance: 2, held: 1, ledgerSum: 2, available: 1 });
    // In a transaction (as submit.task does) and on its own: refused by the (charge, ref) unique index.
    const inTx = await tx(db, (d) => repo.chargeHeldCredit(d, { accountId: id, ref: "app1", note: "again", createdAtTs: 3 })).catch((e: unknown) => e);
    expect(isUniqueViolation(inTx)).toBe(true);
    const alone = await repo.chargeHeldCredit(db, { accountId: id, ref: "app1", note: "again", createdAtTs: 3 }).catch((e: unknown) => e);
    expect(isUniqueViolation(alone)).toBe(true);
    expect(await credits(id)).toEqual({ balance: 2, held: 1, ledgerSum: 2, available: 1 });
  });

  test("concurrent charges for one ref: exactly one succeeds", async () => {
    const id = await account(4);
    for (let i = 0; i < 4; i++) await repo.holdCredit(db, id);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => tx(db, (d) => repo.chargeHeldCredit(d, { accountId: id, ref: "same", note: "applied", createdAtTs: 2 }))),
    );
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(1);
    expect(results.every((r) => r.status === "fulfilled" || isUniqueViolation(r.reason))).toBe(true);
    expect(await credits(id)).toEqual({ balance: 3, held: 3, ledgerSum: 3, available: 0 });
  });

  test("a release gives the credit back uncharged", async () => {
    const id = await account(1);
    expect(await repo.holdCredit(db, id)).toBe(0);
    await repo.releaseHeldCredit(db, id);
    expect(await credits(id)).toEqual({ balance: 1, held: 0, ledgerSum: 1, available: 1 });
  });

  test("the balance never goes negative nor below what is held, even with concurrent takes", async () => {
    const id = await account(6);
    await repo.holdCredit(db, id);
    const take = () => tx(db, (d) => repo.applyCreditDelta(d, { accountId: id, delta: -1, reason: "correction", createdAtTs: 2 }));
    const taken = (await settledValues(Array.from({ length: 12 }, take))).filter((b) => b !== null);
    expect(taken.length).toBeLessThanOrEqual(5);
    expect(await credits(id)).toEqual({ balance: 6 - taken.length, held: 1, ledgerSum: 6 - taken.length, available: 5 - taken.length });
    while ((await take()) !== null);
    expect(await credits(id)).toEqual({ balance: 1, held: 1, ledgerSum: 1, available: 0 });
    expect(await repo.applyCreditDelta(db, { accountId: id, delta: -2, reason: "correction", createdAtTs: 3 })).toBeNull();
    expect(await repo.applyCreditDelta(db, { accountId: "nobody", delta: 1, reason: "grant", createdAtTs: 3 })).toBeNull();
    // The CHECK constraint refuses a negative balance even if a bug tried one.
    await expect(rawMany(db, "test.negative", "UPDATE accounts SET credits_balance = -1 WHERE id = ?", [id])).rejects.toThrow(/check constraint/i);
  });
});

describe("keys and counters", () => {
  test("listAccounts counts active keys; a revoked key stops being found by hash, and a second revoke finds nothing", async () => {
    const id = await account(0);
    await repo.insertKey(db, { id: "k1", accountId: id, prefix: "jp_1", hash: "h1", createdAtTs: 1 });
    await repo.insertKey(db, { id: "k2", accountId: id, prefix: "jp_2", hash: "h2", createdAtTs: 2 });
    expect((await repo.listAccounts(db)).find((a) => a.id === id)?.activeKeys).toBe(2);
    expect(await repo.findKeyByHashCached(db, "h1")).toMatchObject({ keyId: "k1", accountId: id, revokedAtTs: null, rateLimitMultiplier: 1 });
    expect(await repo.revokeKey(db, "k1", 5)).toMatchObject({ id: "k1", revokedAtTs: 5 });
    expect(await repo.revokeKey(db, "k1", 6)).toBeUndefined();
    expect((await repo.findKeyByHashCached(db, "h1"))?.revokedAtTs).toBe(5);
    expect(await repo.countActiveKeys(db, id)).toBe(1);
    expect((await repo.listAccounts(db)).find((a) => a.id === id)?.activeKeys).toBe(1);
    await repo.touchKeys(db, new Map([["k2", 99]]));
    expect((await repo.findKey(db, "k2"))?.lastUsedAtTs).toBe(99);
  });

  test("day counts are stored as the larger of stored and written, and old days are pruned", async () => {
    const rows = (count: number, windowStartTs = 86_400_000) => [{ keyId: "k", bucket: "apply", windowStartTs, count }];
    await repo.saveDayCounts(db, rows(5), 0);
    await repo.saveDayCounts(db, rows(3), 0);
    expect(await repo.loadDayCount(db, "k", "apply", 86_400_000)).toBe(5);
    await repo.saveDayCounts(db, rows(7), 0);
    expect(await repo.loadDayCount(db, "k", "apply", 86_400_000)).toBe(7);
    await repo.saveDayCounts(db, rows(1, 2 * 86_400_000), 2 * 86_400_000);
    expect(await repo.loadDayCount(db, "k", "apply", 86_400_000)).toBe(0);
    expect(await repo.loadDayCount(db, "k", "apply", 2 * 86_400_000)).toBe(1);
  });

  test("AI usage adds up per account, month and purpose", async () => {
    const id = await account(0);
    for (let i = 0; i < 3; i++) await repo.addAiUsage(db, { accountId: id, month: "2026-01", purpose: "scoring", promptTokens: 10, completionTokens: 2 });
    expect(await repo.aiUsageCalls(db, id, "2026-01", "scoring")).toBe(3);
    expect(await repo.aiUsageCalls(db, id, "2026-02", "scoring")).toBe(0);
  });
});
