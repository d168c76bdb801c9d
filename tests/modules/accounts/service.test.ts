import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppError } from "../../../src/errors";
import { closeDatabase, openDatabase } from "../../../src/db/client";
import { rawMany } from "../../../src/db/query";
import { DATA_VERSION_CHECK_MS } from "../../../src/db/read-cache";
import * as accounts from "../../../src/modules/accounts/service";
import { createTestApp, type TestApp } from "../../helpers/app";

let t: TestApp;
afterEach(() => t?.close());

describe("accounts, keys and credits", () => {
  test("an account is created with its credits, a ledger row and a working key", async () => {
    t = await createTestApp();
    const created = await accounts.createAccount(t.deps, { name: "Acme", kind: "agency", credits: 7 });
    expect(created.account).toMatchObject({ name: "Acme", kind: "agency", credits: 7 });
    expect(await accounts.authenticate(t.deps, created.apiKey)).toMatchObject({ accountId: created.account.id, accountKind: "agency" });
    const ledger = await rawMany(t.deps.db, "test.ledger", "SELECT delta, reason FROM credit_ledger WHERE account_id = ?", [created.account.id]);
    expect(ledger).toEqual([{ delta: 7, reason: "grant" }]);
  });

  test("bad input is refused with a message naming the field", async () => {
    t = await createTestApp();
    expect(() => accounts.createAccount(t.deps, { name: "  " })).toThrow(/name must be/);
    expect(() => accounts.createAccount(t.deps, { name: "x", kind: "team" as never })).toThrow(/kind must be one of solo, agency/);
    expect(() => accounts.createAccount(t.deps, { name: "x", credits: -1 })).toThrow(/credits must be a non-negative whole number/);
  });

  test("credits can be granted and corrected but never go below zero", async () => {
    t = await createTestApp();
    const { accountId } = await t.account({ credits: 3 });
    expect((await accounts.grantCredits(t.deps, accountId, 5)).balance).toBe(8);
    expect((await accounts.grantCredits(t.deps, accountId, -2, "refund mistake")).balance).toBe(6);
    expect(() => accounts.grantCredits(t.deps, accountId, -7)).toThrow(/would leave a negative balance \(current balance 6\)/);
    expect((await accounts.getAccount(t.deps, accountId)).credits).toBe(6);
    expect(() => accounts.grantCredits(t.deps, accountId, 0)).toThrow(/must not be 0/);
    expect(() => accounts.grantCredits(t.deps, "nope", 1)).toThrow(/Account not found/);
    const [sum] = await rawMany<{ s: unknown }>(t.deps.db, "test.sum", "SELECT sum(delta) AS s FROM credit_ledger WHERE account_id = ?", [accountId]);
    expect(Number(sum!.s)).toBe(6);
  });

  test("the database refuses a negative balance even if a bug tried one", async () => {
    t = await createTestApp();
    const { accountId } = await t.account({ credits: 1 });
    await expect(rawMany(t.deps.db, "test.negative", "UPDATE accounts SET credits_balance = -1 WHERE id = ?", [accountId])).rejects.toThrow(
      /check constraint/i,
    );
  });

  test("a revoked key no longer authenticates; revoking twice is harmless", async () => {
    t = await createTestApp();
    const { accountId } = await t.account();
    const { key, apiKey } = await accounts.createKey(t.deps, accountId, "ci");
    expect(await accounts.authenticate(t.deps, apiKey)).not.toBeNull();
    expect((await accounts.revokeKey(t.deps, key.id)).alreadyRevoked).toBe(false);
    expect(await accounts.authenticate(t.deps, apiKey)).toBeNull();
    expect((await accounts.revokeKey(t.deps, key.id)).alreadyRevoked).toBe(true);
    await expect(accounts.revokeKey(t.deps, "missing")).rejects.toThrow(AppError);
  });

  test("a key revoked by another process (another connection) stops working within the data_version check interval", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "jp-auth-")), "auth.db");
    t = await createTestApp({ dbPath });
    const { apiKey, keyId } = await t.account();
    expect(await accounts.authenticate(t.deps, apiKey)).not.toBeNull(); // now cached
    const other = openDatabase(dbPath);
    await accounts.revokeKey({ db: other, clock: t.clock }, keyId);
    closeDatabase(other);
    await Bun.sleep(DATA_VERSION_CHECK_MS + 1);
    expect(await accounts.authenticate(t.deps, apiKey)).toBeNull();
  });

  test("this process's own changes to a key's account apply at once despite the cache", async () => {
    t = await createTestApp();
    const { apiKey, accountId } = await t.account();
    expect((await accounts.authenticate(t.deps, apiKey))?.rateLimitMultiplier).toBe(1);
    await accounts.setRateLimits(t.deps, accountId, { multiplier: 3 });
    expect((await accounts.authenticate(t.deps, apiKey))?.rateLimitMultiplier).toBe(3);
  });

  test("rate-limit settings accept a multiplier and known bucket windows only", async () => {
    t = await createTestApp();
    const { accountId } = await t.account();
    const updated = await accounts.setRateLimits(t.deps, accountId, { multiplier: 2, overrides: { "apply.day": 5000 } });
    expect(updated).toMatchObject({ rateLimitMultiplier: 2, rateLimitOverrides: { "apply.day": 5000 } });
    await expect(accounts.setRateLimits(t.deps, accountId, { overrides: { "apply.week": 1 } })).rejects.toThrow(/unknown limit "apply.week"/);
    await expect(accounts.setRateLimits(t.deps, accountId, { multiplier: 0 })).rejects.toThrow(/multiplier must be/);
    expect(await accounts.setRateLimits(t.deps, accountId, { clear: true })).toMatchObject({ rateLimitMultiplier: 1, rateLimitOverrides: {} });
  });

  test("the first-run account is created once, on an empty database only", async () => {
    t = await createTestApp();
    const first = await accounts.bootstrapFirstAccount(t.deps, 10);
    expect(first?.account).toMatchObject({ name: "default", credits: 10 });
    expect(await accounts.bootstrapFirstAccount(t.deps, 10)).toBeNull();
    expect(await accounts.listAccounts(t.deps)).toHaveLength(1);
  });

  test("the plaintext key is nowhere in the database files, only its hash", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-keys-"));
    t = await createTestApp({ dbPath: join(dir, "keys.db") });
    const { apiKey } = await t.account();
    const second = (await accounts.createKey(t.deps, (await t.account()).accountId)).apiKey;
    const files = readdirSync(dir).map((f) => readFileSync(join(dir, f)).toString("latin1"));
    expect(files.length).toBeGreaterThan(0);
    for (const content of files) {
      expect(content.includes(apiKey)).toBe(false);
      expect(content.includes(second)).toBe(false);
      // the 43 random characters alone do not appear either
      expect(content.includes(apiKey.slice(8, 51))).toBe(false);
    }
    expect(files.some((c) => c.includes(new Bun.CryptoHasher("sha256").update(apiKey).digest("hex")))).toBe(true);
  });
});
