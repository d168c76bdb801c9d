import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { createTestApp, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { createMigratedPgDatabase, describePg, type TestPgDatabase } from "../../helpers/postgres";

// A server's index is not loaded at start (it would delay the first answer): the first ingest loads it.
describe("the feed index loads on first use", () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  test("unloaded after start; the first ingest loads every stored feed, keeps no deleted one, and a match before it is refused", async () => {
    const clock = new ManualClock();
    t = await createTestApp({ clock });
    const { apiKey } = await t.account({ credits: 0 });
    const create = async (includes: string[]) =>
      (await t!.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: includes.join(" "), minScore: 0, includes } })).body.feed.id as string;
    const rust = await create(["rust"]);
    const unknown = await create(["rust", "compiler"]);
    const deleted = await create(["rust"]);
    expect((await t.request("DELETE", `/api/v1/feeds/${deleted}`, { key: apiKey })).status).toBe(200);
    // As if another process had written this feed: only the stored rows can bring it in.
    t.deps.feedIndex.remove(unknown);
    expect(t.deps.feedIndex.isLoaded).toBe(false);
    const doc = makeDoc({ title: "Rust compiler developer", publishTime: new Date(clock.now()).toISOString() });
    const job = normalizeJob(doc);
    if (!job.ok) throw new Error("the test document does not normalise");
    expect(() => t!.deps.feedIndex.match({ ...job.job, firstSeenAtTs: clock.now() })).toThrow(/before it was loaded/);

    const result = await ingestDocuments(t.deps, [doc], { source: "test" });
    expect(t.deps.feedIndex.isLoaded).toBe(true);
    expect(t.deps.feedIndex.ids().sort()).toEqual([rust, unknown].sort());
    expect(result.matched).toBe(2);
    for (const id of [rust, unknown]) expect((await t.request("GET", `/api/v1/feeds/${id}/jobs`, { key: apiKey })).body.total).toBe(1);
  });
});

// Two nodes on ONE PostgreSQL database: a feed created, changed or deleted through one node must match (or
// stop matching) the jobs the other ingests next, as on one process.
describePg("the feed index across nodes", () => {
  let pg: TestPgDatabase;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    pg = await createMigratedPgDatabase();
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await pg?.drop();
  });

  test("feeds written through node A are what node B matches against, at once", async () => {
    const clock = new ManualClock();
    const config = { databaseUrl: pg.url, databasePoolSize: 4 };
    apps.push(await createTestApp({ clock, config }), await createTestApp({ clock, config }));
    const [a, b] = apps as [TestApp, TestApp];
    const { apiKey } = await a.account({ credits: 0 });
    const ingestOn = async (node: TestApp, title: string) => {
      const doc = makeDoc({ title, description: `${title}: a job for the test`, publishTime: new Date(clock.now()).toISOString() });
      return ingestDocuments(node.deps, [doc], { source: "test" });
    };
    const jobsIn = async (feedId: string) => (await b.request("GET", `/api/v1/feeds/${feedId}/jobs`, { key: apiKey })).body.total as number;

    // B has matched once already, so its index is loaded (empty) before A creates the feed.
    await ingestOn(b, "Warm-up job");
    const created = await a.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "Rust", minScore: 0, includes: ["rust"] } });
    expect(created.status).toBe(201);
    const feedId = created.body.feed.id as string;
    await ingestOn(b, "Rust developer");
    expect(await jobsIn(feedId)).toBe(1);

    // Changed on A: B matches by the new keywords.
    const patched = await a.request("PATCH", `/api/v1/feeds/${feedId}`, { key: apiKey, json: { includes: ["golang"] } });
    expect(patched.status).toBe(200);
    await ingestOn(b, "Rust compiler engineer");
    await ingestOn(b, "Golang backend");
    expect(await jobsIn(feedId)).toBe(2);

    // Deleted on A: B no longer matches it (its jobs list is a 404 now, and nothing new was written for it).
    expect((await a.request("DELETE", `/api/v1/feeds/${feedId}`, { key: apiKey })).status).toBe(200);
    expect((await ingestOn(b, "Golang platform engineer")).matched).toBe(0);
  });
});
