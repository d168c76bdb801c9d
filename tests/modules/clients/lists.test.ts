import { afterEach, describe, expect, test } from "bun:test";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { insertFilteredJobs } from "../../../src/modules/feeds/repo";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { agencyTeam, memberWithKey } from "../../helpers/team";

// Client lists (issue 45) through the API: PUT/DELETE/GET /api/v1/client-lists, and a feed's filtered-out view.

let t: TestApp;
afterEach(() => t?.close());

const put = (key: string, companyId: string, json: unknown) => t.request("PUT", `/api/v1/client-lists/${companyId}`, { key, json });
const list = (key: string, query = "") => t.request("GET", `/api/v1/client-lists${query}`, { key });

describe("client lists API", () => {
  test("PUT blocks or favours with a reason, is an upsert, GET lists and filters, DELETE removes", async () => {
    t = await createTestApp();
    const { apiKey: key } = await t.account();
    t.clock.set(Date.parse("2026-03-01T10:00:00.000Z"));

    const blocked = await put(key, "1500000000000000001", { list: "blocked", reason: "  Never pays on time  " });
    expect(blocked.status, show(blocked)).toBe(200);
    expect(blocked.body).toEqual({
      client: { companyId: "1500000000000000001", list: "blocked", reason: "Never pays on time", addedAt: "2026-03-01T10:00:00.000Z", addedBy: null },
    });
    t.clock.advance(60_000);
    const favoured = await put(key, "co-2", { list: "favoured" });
    expect(favoured.body.client).toMatchObject({ list: "favoured", reason: null, addedAt: "2026-03-01T10:01:00.000Z" });

    // Newest first; ?list= keeps one list.
    expect((await list(key)).body.clients.map((c: { companyId: string }) => c.companyId)).toEqual(["co-2", "1500000000000000001"]);
    expect((await list(key, "?list=blocked")).body.clients.map((c: { companyId: string }) => c.companyId)).toEqual(["1500000000000000001"]);
    expect((await list(key, "?list=favoured")).body).toEqual({ clients: [favoured.body.client] });

    // The same list and reason again changes nothing; another list or reason is an upsert.
    t.clock.advance(60_000);
    expect((await put(key, "co-2", { list: "favoured" })).body.client.addedAt).toBe("2026-03-01T10:01:00.000Z");
    const moved = await put(key, "co-2", { list: "blocked", reason: "Ghosted twice" });
    expect(moved.body.client).toMatchObject({ list: "blocked", reason: "Ghosted twice", addedAt: "2026-03-01T10:02:00.000Z" });
    expect((await list(key, "?list=favoured")).body.clients).toEqual([]);
    expect((await list(key, "?list=blocked")).body.clients).toHaveLength(2);

    const removed = await t.request("DELETE", "/api/v1/client-lists/co-2", { key });
    expect(removed.status, show(removed)).toBe(200);
    expect(removed.body).toEqual({ deleted: true, companyId: "co-2" });
    const again = await t.request("DELETE", "/api/v1/client-lists/co-2", { key });
    expect(again.status).toBe(404);
    expect(again.body.error).toContain("neither");
    expect((await list(key)).body.clients.map((c: { companyId: string }) => c.companyId)).toEqual(["1500000000000000001"]);
  });

  test("400s name the field: list, reason's length, companyId, the list filter", async () => {
    t = await createTestApp();
    const { apiKey: key } = await t.account();
    const badList = await put(key, "co-1", { list: "hated" });
    expect(badList.status).toBe(400);
    expect(badList.body.error).toBe("Invalid body: list must be one of blocked, favoured");
    const noList = await put(key, "co-1", { reason: "x" });
    expect(noList.status).toBe(400);
    expect(noList.body.error).toContain("list is required");
    const long = await put(key, "co-1", { list: "blocked", reason: "x".repeat(501) });
    expect(long.status).toBe(400);
    expect(long.body.error).toContain("reason must be");
    expect(long.body.error).toContain("500");
    expect((await put(key, "co-1", { list: "blocked", reason: "x".repeat(500) })).status).toBe(200);
    const longId = await put(key, "c".repeat(201), { list: "blocked" });
    expect(longId.status).toBe(400);
    expect(longId.body.error).toContain("companyId must be");
    const blank = await put(key, "%20", { list: "blocked" });
    expect(blank.status).toBe(400);
    expect(blank.body.error).toContain("companyId must be");
    const badFilter = await list(key, "?list=everyone");
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error).toContain("list must be one of blocked, favoured");
    expect((await t.request("GET", "/api/v1/client-lists")).status).toBe(401);
  });

  test("another account's list is its own: not seen, not removable", async () => {
    t = await createTestApp();
    const a = await t.account();
    const b = await t.account();
    await put(a.apiKey, "co-1", { list: "blocked", reason: "A's reason" });
    expect((await list(b.apiKey)).body.clients).toEqual([]);
    expect((await t.request("DELETE", "/api/v1/client-lists/co-1", { key: b.apiKey })).status).toBe(404);
    // B's own entry for the same client does not touch A's.
    await put(b.apiKey, "co-1", { list: "favoured" });
    expect((await list(a.apiKey)).body.clients[0]).toMatchObject({ list: "blocked", reason: "A's reason" });
    expect((await list(b.apiKey)).body.clients[0]).toMatchObject({ list: "favoured", reason: null });
  });

  test("members of the account share the lists; addedBy is the member; a viewer reads but may not change them", async () => {
    t = await createTestApp();
    const { acct, ana, cy } = await agencyTeam(t);
    const added = await put(ana.key, "co-1", { list: "blocked", reason: "Scope creep" });
    expect(added.status, show(added)).toBe(200);
    expect(added.body.client.addedBy).toBe(ana.member.id);
    expect((await list(cy.key)).body.clients).toEqual([added.body.client]);
    expect((await list(acct.apiKey)).body.clients).toEqual([added.body.client]);
    const viewer = await memberWithKey(t, acct.accountId, "Vi Ewer", "vi@example.com", "viewer");
    expect((await list(viewer.key)).body.clients).toHaveLength(1);
    const refused = await put(viewer.key, "co-2", { list: "favoured" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('"clients"');
    expect((await t.request("DELETE", "/api/v1/client-lists/co-1", { key: viewer.key })).status).toBe(403);
    expect((await t.request("DELETE", "/api/v1/client-lists/co-1", { key: cy.key })).status).toBe(200);
  });
});

describe("a feed's filtered-out view", () => {
  test("GET /api/v1/feeds/{feedId}/filtered lists the kept-out jobs with the reason, pages, and is 404 for another account", async () => {
    t = await createTestApp();
    const { apiKey: key, accountId } = await t.account();
    const other = await t.account();
    const feed = await t.request("POST", "/api/v1/feeds", { key, json: { title: "Rust", minScore: 0 } });
    const feedId = feed.body.feed.id as string;
    expect((await t.request("GET", `/api/v1/feeds/${feedId}/filtered`, { key })).body).toEqual({ jobs: [], total: 0, limit: 50, offset: 0 });

    // The jobs are archived by ingestion; the rows are written here as ingestion's admit step writes them.
    const docs = [makeDoc({ title: "Rust one", companyId: "co-9" }), makeDoc({ title: "Rust two", companyId: "co-9" })];
    await ingestDocuments(t.deps, docs, { source: "test" });
    const cipher = (d: Record<string, unknown>) => (d.jobTile as { job: { ciphertext: string } }).job.ciphertext;
    const at = Date.parse("2026-03-02T08:00:00.000Z");
    await insertFilteredJobs(t.deps.db, [
      { feedId, accountId, jobCiphertext: cipher(docs[0]!), filter: "blocked-client", reason: "Blocked client: slow payer", atTs: at },
      { feedId, accountId, jobCiphertext: cipher(docs[1]!), filter: "signal:repost", reason: "Reposted 3 times", atTs: at + 1000 },
    ]);
    const res = await t.request("GET", `/api/v1/feeds/${feedId}/filtered`, { key });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.jobs.map((j: { job: { title: string } }) => j.job.title)).toEqual(["Rust two", "Rust one"]);
    expect(res.body.jobs[1]).toMatchObject({
      job: { ciphertext: cipher(docs[0]!), title: "Rust one", platform: "marketplace" },
      companyId: "co-9",
      filter: "blocked-client",
      reason: "Blocked client: slow payer",
      at: "2026-03-02T08:00:00.000Z",
    });
    const page = await t.request("GET", `/api/v1/feeds/${feedId}/filtered?limit=1&offset=1`, { key });
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1, jobs: [{ filter: "blocked-client" }] });
    expect((await t.request("GET", `/api/v1/feeds/${feedId}/filtered?limit=0`, { key })).status).toBe(400);
    const foreign = await t.request("GET", `/api/v1/feeds/${feedId}/filtered`, { key: other.apiKey });
    expect(foreign.status).toBe(404);
  });
});
