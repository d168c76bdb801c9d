import { afterAll, beforeAll, expect, test } from "bun:test";
import { verifyReadCaches } from "../../../src/db/read-cache";
import * as accounts from "../../../src/modules/accounts/service";
import * as members from "../../../src/modules/members/service";
import { PG_MEMBER_CACHE_MS } from "../../../src/modules/members/repo";
import { ManualClock } from "../../../src/lib/clock";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser } from "../../helpers/dashboard";
import { createMigratedPgDatabase, describePg, type TestPgDatabase } from "../../helpers/postgres";

// Two nodes (two apps, each with its own pool and caches) on one PostgreSQL database: a member demoted or removed
// through one node loses the old role, their keys and their dashboard session on the other within a second.
describePg("member changes across nodes", () => {
  let pg: TestPgDatabase;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    pg = await createMigratedPgDatabase();
  });
  afterAll(async () => {
    verifyReadCaches(true);
    for (const a of apps) await a.close();
    await pg?.drop();
  });

  /** How long until `check` holds on the other node, polled every 50 ms (fails past 3 s). */
  async function msUntil(check: () => Promise<boolean>): Promise<number> {
    const start = performance.now();
    while (!(await check())) {
      if (performance.now() - start > 3_000) throw new Error("the other node never saw the change");
      await Bun.sleep(50);
    }
    return performance.now() - start;
  }

  test("demoted on node A: node B refuses the admin action within 1 s; removed: B's key and session end within 1 s", async () => {
    const clock = new ManualClock();
    const config = { databaseUrl: pg.url, databasePoolSize: 4 };
    apps.push(await createTestApp({ clock, config }), await createTestApp({ clock, config }));
    const [a, b] = apps as [TestApp, TestApp];
    // The caches as they run in production: checked against the database they would never be stale at all.
    verifyReadCaches(false);
    const acct = await a.account({ kind: "agency" });
    const owner = (await members.createMember(a.deps, { accountId: acct.accountId, email: "olga@example.com", name: "Olga", role: "owner", by: null })).member;
    const ownerKey = (await accounts.createKey(a.deps, acct.accountId, "Olga", { memberId: owner.id, role: "owner" })).apiKey;
    const adam = (await members.createMember(a.deps, { accountId: acct.accountId, email: "adam@example.com", name: "Adam", role: "admin", by: null })).member;
    const adamKey = (await accounts.createKey(a.deps, acct.accountId, "Adam", { memberId: adam.id, role: "admin" })).apiKey;
    const { get } = browser(() => b);
    const session = await browser(() => b).signIn(adamKey);

    // B has Adam cached as an admin: his key lists keys, his session opens the keys page.
    const listKeys = () => b.request("GET", "/api/v1/keys", { key: adamKey });
    expect((await listKeys()).status).toBe(200);
    expect((await get("/dashboard/keys", session.token)).status).toBe(200);

    const demoted = await a.request("PATCH", `/api/v1/members/${adam.id}`, { key: ownerKey, json: { role: "viewer" } });
    expect(demoted.status, show(demoted)).toBe(200);
    const demotedAfter = await msUntil(async () => (await listKeys()).status === 403);
    expect(demotedAfter).toBeLessThanOrEqual(PG_MEMBER_CACHE_MS + 200);
    expect((await get("/dashboard/keys", session.token)).status).toBe(403);
    expect((await b.request("GET", "/api/v1/feeds", { key: adamKey })).status, "a viewer still reads").toBe(200);

    const removed = await a.request("DELETE", `/api/v1/members/${adam.id}`, { key: ownerKey });
    expect(removed.status, show(removed)).toBe(200);
    const removedAfter = await msUntil(async () => (await b.request("GET", "/api/v1/feeds", { key: adamKey })).status === 401);
    expect(removedAfter).toBeLessThanOrEqual(PG_MEMBER_CACHE_MS + 200);
    const page = await get("/dashboard", session.token);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/dashboard/sign-in");
  }, 20_000);
});
