import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Db } from "../../src/db/client";
import { closePgDatabase, openPgAsDb } from "../../src/db/client-pg";
import { RateLimiter, SHARED_SYNC_MS } from "../../src/http/rate-limiter";
import { ManualClock } from "../../src/lib/clock";
import { dayCountStore, findKeyByHashCached, insertAccount, insertKey, PG_KEY_CACHE_MS, revokeKey } from "../../src/modules/accounts/repo";
import { createMigratedPgDatabase, describePg, type TestPgDatabase } from "../helpers/postgres";

// Several nodes on one PostgreSQL: each node's limiter and key cache are built on its own pool, as
// createDeps builds them, and all of them on the same database.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 30);

describePg("per-key rate limits shared across nodes", () => {
  let pg: TestPgDatabase;
  const pools: Db[] = [];
  const node = () => {
    const db = openPgAsDb(pg.url, { max: 4 });
    pools.push(db);
    return db;
  };
  beforeAll(async () => {
    pg = await createMigratedPgDatabase();
  });
  afterAll(async () => {
    for (const db of pools) await closePgDatabase(db);
    await pg.drop();
  });

  test("a node sees what another admitted once it has synced: the key's limit is the cluster's", async () => {
    const clock = new ManualClock(T0);
    const a = new RateLimiter(dayCountStore(node()), clock);
    const b = new RateLimiter(dayCountStore(node()), clock);
    const limits = { minute: 10, day: 15 };
    for (let i = 0; i < 6; i++) expect((await a.check("k1", "apply", limits)).allowed).toBe(true);
    await a.flush();
    // b reads the shared counts the first time it sees the key's windows.
    expect(await b.check("k1", "apply", limits)).toMatchObject({ allowed: true, limit: 10, remaining: 3 });
    for (let i = 0; i < 3; i++) expect((await b.check("k1", "apply", limits)).allowed).toBe(true);
    expect(await b.check("k1", "apply", limits)).toMatchObject({ allowed: false, retryAfterS: 30 });
    // b's admissions reach the database within SHARED_SYNC_MS on their own; a's view is then old and read again.
    await Bun.sleep(3 * SHARED_SYNC_MS);
    expect((await a.check("k1", "apply", limits)).allowed).toBe(false);
    // The next minute the day window (15) has 5 left cluster-wide.
    clock.advance(60_000);
    for (let i = 0; i < 3; i++) expect((await a.check("k1", "apply", limits)).allowed).toBe(true);
    await a.flush();
    await Bun.sleep(2 * SHARED_SYNC_MS);
    expect(await b.check("k1", "apply", limits)).toMatchObject({ allowed: true, limit: 15, remaining: 1 });
    expect((await b.check("k1", "apply", limits)).allowed).toBe(true);
    expect((await b.check("k1", "apply", limits)).allowed).toBe(false);
    await b.flush();
    await Bun.sleep(2 * SHARED_SYNC_MS);
    expect((await a.check("k1", "apply", limits)).allowed).toBe(false);
  });

  test("two nodes taking requests at once admit at most the limit plus the documented overshoot", async () => {
    const clock = new ManualClock(T0);
    const limit = 150;
    const nodes = [new RateLimiter(dayCountStore(node()), clock), new RateLimiter(dayCountStore(node()), clock)];
    const admittedAt: number[][] = [[], []];
    const deadline = performance.now() + 1500;
    // Each node takes a request every ~2 ms: alone, each would admit the whole limit within ~300 ms.
    await Promise.all(
      nodes.map(async (limiter, i) => {
        while (performance.now() < deadline) {
          if ((await limiter.check("k2", "status", { minute: limit })).allowed) admittedAt[i]!.push(performance.now());
          await Bun.sleep(2);
        }
      }),
    );
    for (const limiter of nodes) await limiter.flush();
    const total = admittedAt[0]!.length + admittedAt[1]!.length;
    // Worst case: the other node's admissions of the last 2 × SHARED_SYNC_MS (plus round trips) are unseen.
    const span = 2 * SHARED_SYNC_MS + 50;
    const mostInSpan = (ts: number[]) => Math.max(0, ...ts.map((t0) => ts.filter((t) => t >= t0 && t < t0 + span).length));
    const overshoot = Math.max(mostInSpan(admittedAt[0]!), mostInSpan(admittedAt[1]!));
    expect(total).toBeGreaterThanOrEqual(limit);
    expect(total).toBeLessThanOrEqual(limit + overshoot);
    // Without sharing the two would have admitted 2 × limit.
    expect(total).toBeLessThan(2 * limit);
    // After the syncs every node refuses, and the stored total is what was admitted.
    await Bun.sleep(2 * SHARED_SYNC_MS);
    for (const limiter of nodes) expect((await limiter.check("k2", "status", { minute: limit })).allowed).toBe(false);
    const [stored] = await dayCountStore(pools[0]!).shared!.read([{ keyId: "k2", bucket: "status", window: "minute", windowStartTs: T0 - (T0 % 60_000) }]);
    expect(stored).toBe(total);
  });

  test("a key revoked on another node stops authenticating within PG_KEY_CACHE_MS", async () => {
    const a = node();
    const b = node();
    await insertAccount(a, { id: "acc", name: "acc", kind: "solo", createdAtTs: 1 });
    await insertKey(a, { id: "key", accountId: "acc", prefix: "jp_x", hash: "hash-x", createdAtTs: 1 });
    expect((await findKeyByHashCached(a, "hash-x"))?.revokedAtTs).toBeNull(); // cached on a
    await revokeKey(b, "key", 5);
    await Bun.sleep(PG_KEY_CACHE_MS + 10);
    expect((await findKeyByHashCached(a, "hash-x"))?.revokedAtTs).toBe(5);
  });
});
