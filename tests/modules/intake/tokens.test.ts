import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../../src/cli/index";
import { closeDatabase, openDatabase, type Db } from "../../../src/db/client";
import { openTestDb, type TestDb } from "../../helpers/db";
import { ManualClock } from "../../../src/lib/clock";
import { memoryLogger } from "../../../src/lib/log";
import { findOAuthToken, insertOAuthToken, leaseOAuthToken, releaseOAuthTokenLease, replaceOAuthToken } from "../../../src/modules/intake/token-repo";
import { importLegacyTokenFile, LEGACY_TOKEN_FILE, legacyTokenPath, MARKETPLACE_PROVIDER, oauthTokenVault } from "../../../src/modules/intake/tokens";
import { createMarketplaceClient } from "../../../src/sources/marketplace-api/client";
import { encryptTokens, loadTokens, saveTokens } from "../../../src/sources/marketplace-api/token-store";
import { startFakeMarketplaceApi, tokenReply } from "../../fixtures/marketplace-api/fake-api";

const KEY = "tokens-test-secret-key-0123456789";
const TOKENS = { accessToken: "access-file", refreshToken: "refresh-file", expiresAt: Date.UTC(2026, 0, 16) };

// The repository, the vault, two nodes and the legacy import run on the suite's backend (SQLite, or
// PostgreSQL in its pass); only `jobpilot serve` at the end opens a SQLite file of its own.
const dirs: string[] = [];
const open: Db[] = [];
const testDbs: TestDb[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) closeDatabase(db);
  for (const t of testDbs.splice(0)) await t.close();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh migrated database on the suite's backend; `shared` lets t.another() open other nodes' connections to it. */
async function testDb(shared = false): Promise<TestDb> {
  const t = await openTestDb({ shared });
  testDbs.push(t);
  return t;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "jp-tokens-"));
  dirs.push(dir);
  return dir;
}

/** A connection to the SQLite file `jobpilot serve` ran on. */
function connect(path: string): Db {
  const db = openDatabase(path);
  open.push(db);
  return db;
}

describe("oauth_tokens repository: compare-and-swap on updated_at_ts", () => {
  test("insert once; replace only at the version read; the lease is one at a time and ends with the write", async () => {
    const { db } = await testDb();
    const P = MARKETPLACE_PROVIDER;
    expect(await findOAuthToken(db, P)).toBeUndefined();
    expect(await insertOAuthToken(db, P, "c1", 100)).toBe(true);
    expect(await insertOAuthToken(db, P, "c-other", 100)).toBe(false);
    expect(await findOAuthToken(db, P)).toEqual({ provider: P, ciphertext: "c1", updatedAtTs: 100, leaseUntilTs: null });

    expect(await leaseOAuthToken(db, P, 99, 500, 200)).toBe(false); // not the version read
    expect(await leaseOAuthToken(db, P, 100, 500, 200)).toBe(true);
    expect(await leaseOAuthToken(db, P, 100, 600, 300)).toBe(false); // held until 500
    await releaseOAuthTokenLease(db, P, 100, 600); // not ours: nothing happens
    expect((await findOAuthToken(db, P))!.leaseUntilTs).toBe(500);
    expect(await leaseOAuthToken(db, P, 100, 900, 500)).toBe(true); // ran out: taken over

    expect(await replaceOAuthToken(db, P, 99, "stale", 600)).toBe(false);
    expect(await replaceOAuthToken(db, P, 100, "c2", 600)).toBe(true);
    expect(await findOAuthToken(db, P)).toEqual({ provider: P, ciphertext: "c2", updatedAtTs: 600, leaseUntilTs: null });
    expect(await replaceOAuthToken(db, P, 100, "c3", 700)).toBe(false); // the version moved on
  });

  test("two connections racing (two nodes; on PostgreSQL two pools, statements truly concurrent): each compare-and-swap has one winner", async () => {
    const t = await testDb(true);
    const nodes = [t.db, t.another()];
    const P = MARKETPLACE_PROVIDER;
    const ROUNDS = 16;
    const race = (fn: (db: Db, i: number) => Promise<boolean>) => Promise.all(Array.from({ length: ROUNDS }, (_, i) => fn(nodes[i % 2]!, i)));
    const winners = (results: boolean[]) => results.flatMap((won, i) => (won ? [i] : []));

    const inserts = winners(await race((db, i) => insertOAuthToken(db, P, `first-${i}`, 100)));
    expect(inserts).toHaveLength(1);
    expect((await findOAuthToken(nodes[1]!, P))!.ciphertext).toBe(`first-${inserts[0]}`);

    const leases = winners(await race((db, i) => leaseOAuthToken(db, P, 100, 1000 + i, 200)));
    expect(leases).toHaveLength(1);
    expect((await findOAuthToken(nodes[0]!, P))!.leaseUntilTs).toBe(1000 + leases[0]!);

    // Every racer read version 100; only one write may land, and later versions are untouched by the losers.
    const replaces = winners(await race((db, i) => replaceOAuthToken(db, P, 100, `second-${i}`, 300 + i)));
    expect(replaces).toHaveLength(1);
    expect(await findOAuthToken(nodes[1]!, P)).toEqual({
      provider: P,
      ciphertext: `second-${replaces[0]}`,
      updatedAtTs: 300 + replaces[0]!,
      leaseUntilTs: null,
    });
  });

  test("the vault's versions only grow, even when the clock stands still or goes back", async () => {
    const vault = oauthTokenVault((await testDb()).db);
    await vault.save("a", 1000);
    expect((await vault.load())!.version).toBe(1000);
    await vault.save("b", 1000);
    expect((await vault.load())!.version).toBe(1001);
    expect(await vault.replace(1001, "c", 900)).toBe(true);
    expect(await vault.load()).toEqual({ ciphertext: "c", version: 1002, leaseUntilTs: null });
    // A save (a new grant) ends a lease someone holds.
    expect(await vault.lease(1002, 5000, 1000)).toBe(true);
    await vault.save("d", 1000);
    expect(await vault.load()).toEqual({ ciphertext: "d", version: 1003, leaseUntilTs: null });
  });
});

describe("two nodes refreshing the marketplace token at once", () => {
  const api = startFakeMarketplaceApi();
  afterAll(() => api.close());

  test("one refresh call wins; both nodes end up using the new pair, stored once in the shared row", async () => {
    const t = await testDb(true);
    const nodeA = t.db;
    const nodeB = t.another();
    const clock = new ManualClock();
    // About to expire: inside the five-minute refresh margin.
    await saveTokens(oauthTokenVault(nodeA), KEY, { accessToken: "access-old", refreshToken: "refresh-old", expiresAt: clock.now() + 60_000 }, clock.now());

    // The provider rotates: the old refresh token works once. Its answer is held back until both nodes have asked for a refresh.
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    let spent = false;
    api.onToken(async (form) => {
      await held;
      if (form.get("refresh_token") !== "refresh-old" || spent) return { status: 400, json: { error: "invalid_grant" } };
      spent = true;
      return tokenReply("access-new", "refresh-new", 86400);
    });
    api.onApi(() => ({ json: { data: { ok: true } } }));
    const client = (db: Db) =>
      createMarketplaceClient({
        apiUrl: api.apiUrl,
        tokenUrl: api.tokenUrl,
        clientId: "c",
        clientSecret: "s",
        secretKey: KEY,
        tokenVault: oauthTokenVault(db),
        now: () => clock.now(),
        minIntervalMs: 0,
        refreshLeasePollMs: 10,
      });
    const a = client(nodeA).query("{ a }");
    const b = client(nodeB).query("{ b }");
    await Bun.sleep(50);
    answer();
    await Promise.all([a, b]);

    expect(api.tokenRequests.map((f) => f.get("refresh_token"))).toEqual(["refresh-old"]);
    expect(api.apiRequests.map((r) => r.authorization)).toEqual(["Bearer access-new", "Bearer access-new"]);
    for (const db of [nodeA, nodeB]) {
      expect(await loadTokens(oauthTokenVault(db), KEY)).toEqual({
        accessToken: "access-new",
        refreshToken: "refresh-new",
        expiresAt: clock.now() + 86_400_000,
      });
    }
    expect((await findOAuthToken(nodeB, MARKETPLACE_PROVIDER))!.leaseUntilTs).toBeNull();
  });
});

describe("importing the token file of earlier versions", () => {
  /** The file sits beside the configured SQLite path, whichever database the tokens go to. */
  async function withLegacyFile() {
    const dbPath = join(tempDir(), "jobpilot.db");
    const file = legacyTokenPath(dbPath);
    const envelope = await encryptTokens(KEY, TOKENS);
    writeFileSync(file, envelope, { mode: 0o600 });
    return { dbPath, file, envelope, db: (await testDb()).db, log: memoryLogger(), clock: new ManualClock() };
  }

  test("beside the database and no row yet: imported as it is (still encrypted), renamed to .imported, logged", async () => {
    const { dbPath, file, envelope, db, log, clock } = await withLegacyFile();
    expect(file).toBe(join(dbPath, "..", LEGACY_TOKEN_FILE));
    expect(await importLegacyTokenFile({ db, dbPath, clock, log })).toBe("imported");
    expect((await findOAuthToken(db, MARKETPLACE_PROVIDER))!.ciphertext).toBe(envelope);
    expect(await loadTokens(oauthTokenVault(db), KEY)).toEqual(TOKENS);
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(`${file}.imported`, "utf8")).toBe(envelope);
    expect(log.records().find((r) => String(r.msg).includes("imported"))).toMatchObject({ level: "info", from: file, renamedTo: `${file}.imported` });
    // Once only: the next start finds nothing to do.
    expect(await importLegacyTokenFile({ db, dbPath, clock, log })).toBe("none");
  });

  test("the database already holds tokens: the file is left alone, with a warning, and the row is kept", async () => {
    const { dbPath, file, db, log, clock } = await withLegacyFile();
    await saveTokens(oauthTokenVault(db), KEY, { ...TOKENS, accessToken: "access-row" }, clock.now());
    expect(await importLegacyTokenFile({ db, dbPath, clock, log })).toBe("kept");
    expect(existsSync(file)).toBe(true);
    expect((await loadTokens(oauthTokenVault(db), KEY))!.accessToken).toBe("access-row");
    expect(log.records().some((r) => r.level === "warn" && String(r.msg).includes("no longer read"))).toBe(true);
  });

  test("a file that is not a token envelope is not imported", async () => {
    const { dbPath, file, db, log, clock } = await withLegacyFile();
    writeFileSync(file, "garbage");
    expect(await importLegacyTokenFile({ db, dbPath, clock, log })).toBe("kept");
    expect(await findOAuthToken(db, MARKETPLACE_PROVIDER)).toBeUndefined();
    expect(readFileSync(file, "utf8")).toBe("garbage");
  });

  test("no file, or an in-memory database: nothing to do", async () => {
    const deps = { db: (await testDb()).db, dbPath: join(tempDir(), "jobpilot.db"), clock: new ManualClock(), log: memoryLogger() };
    expect(await importLegacyTokenFile(deps)).toBe("none");
    expect(await importLegacyTokenFile({ ...deps, dbPath: ":memory:" })).toBe("none");
  });

  test("`jobpilot serve` imports it at start", async () => {
    const { dbPath, file, envelope } = await withLegacyFile();
    let stdout = "";
    const running = await runCli(["serve"], {
      env: { JOBPILOT_DB: dbPath, PORT: "0", JOBPILOT_SOURCES: "none", LOG_LEVEL: "info" },
      stdout: (s) => void (stdout += s),
      stderr: () => {},
    });
    if (typeof running === "number") throw new Error(`serve exited with ${running}`);
    await running.stop("test");
    expect(await running.done).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.imported`)).toBe(true);
    expect(stdout).toContain("marketplace tokens imported from the old token file into the database");
    const db = connect(dbPath);
    expect((await findOAuthToken(db, MARKETPLACE_PROVIDER))!.ciphertext).toBe(envelope);
  });
});
