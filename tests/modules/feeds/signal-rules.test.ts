import { afterEach, describe, expect, test } from "bun:test";
import { rawExec, rawMany } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { FAVOURED_REASON } from "../../../src/modules/feeds/admit";
import { scoreFeedMatch } from "../../../src/modules/scoring/service";
import { TaskWorker } from "../../../src/worker/worker";
import { createTestApp, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

// A feed's signal rules and the account's client lists, applied at the one door into a feed (feeds/admit.ts): a
// dropped signal or a blocked client keeps the job out (recorded in filtered_jobs, and no scoring is queued for
// it); a warned signal lets it in with the flag; a favoured client's job enters whatever its score.

let t: TestApp | undefined;
let worker: TaskWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
  t = undefined;
});

const rows = <T = any>(sql: string, params: unknown[] = []) => rawMany<T>(t!.deps.db, `test.${sql}`, sql, params);

async function setup() {
  t = await createTestApp();
  const { apiKey, accountId } = await t.account();
  const create = async (json: Record<string, unknown>) => {
    const res = await t!.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "f", minScore: 0, ...json } });
    expect(res.status).toBe(201);
    return res.body.feed;
  };
  const jobsOf = async (feedId: string) => (await t!.request("GET", `/api/v1/feeds/${feedId}/jobs`, { key: apiKey })).body.jobs as any[];
  const list = (companyId: string, list: "blocked" | "favoured", reason: string | null) =>
    rawExec(t!.deps.db, "test.list", "INSERT INTO client_lists (account_id, company_id, list, reason, added_at_ts) VALUES (?, ?, ?, ?, ?)", [
      accountId,
      companyId,
      list,
      reason,
      t!.clock.now(),
    ]);
  const ingest = (docs: Record<string, unknown>[]) => ingestDocuments(t!.deps, docs, { source: "test" });
  return { apiKey, accountId, create, jobsOf, list, ingest };
}

const scamJob = () => makeDoc({ title: "React helper", description: "Quick React task. Contact me on Telegram @fast_jobs to start.", companyId: "co-scam" });

describe("a feed's signal rules and alertFavoured", () => {
  test("are extension fields of create, get and patch; a bad action is a 400 naming the field", async () => {
    const { apiKey, create } = await setup();
    const plain = await create({});
    expect(plain).toMatchObject({ signalRules: {}, alertFavoured: true });
    const feed = await create({ signalRules: { scam: "drop", repost: "warn" }, alertFavoured: false });
    expect((await t!.request("GET", `/api/v1/feeds/${feed.id}`, { key: apiKey })).body.feed).toMatchObject({
      signalRules: { scam: "drop", repost: "warn" },
      alertFavoured: false,
    });
    const bad = await t!.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: apiKey, json: { signalRules: { repost: "maybe" } } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual(["signalRules.repost must be one of warn, drop"]);
    // A key that names no signal is ignored, as any unknown field of a body is.
    const patched = await t!.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: apiKey, json: { signalRules: { ghost: "drop", spam: "drop" } } });
    expect(patched.body.feed.signalRules).toEqual({ ghost: "drop" });
  });
});

describe("signals at the door", () => {
  test("a feed that drops scam keeps a scam job out and records why; the default (warn) lets it in with the flag", async () => {
    const { create, jobsOf, ingest } = await setup();
    const drops = await create({ signalRules: { scam: "drop" } });
    const warns = await create({});
    const job = scamJob();
    const result = await ingest([job, makeDoc({ title: "Clean React job", companyId: "co-clean" })]);
    expect(result.matched).toBe(3); // the scam job into `warns`, the clean one into both

    expect((await jobsOf(drops.id)).map((j) => j.job.title)).toEqual(["Clean React job"]);
    expect(await rows("SELECT feed_id, filter, reason FROM filtered_jobs")).toEqual([
      { feed_id: drops.id, filter: "signal:scam", reason: "Scam risk: asks to talk off the platform" },
    ]);
    const warned = (await jobsOf(warns.id)).find((j) => j.job.title === "React helper");
    expect(warned.signals).toEqual([{ id: "scam", rule: "off-platform", say: "Scam risk: asks to talk off the platform" }]);
    expect(warned.favoured).toBe(false);
  });

  test("a blocked client's job never enters, is recorded with the list's reason, and queues no scoring", async () => {
    const { create, jobsOf, list, ingest } = await setup();
    const prompted = await create({ profilePrompt: "React developer", minScore: 0 });
    const plain = await create({});
    await list("co-bad", "blocked", "never paid");
    const result = await ingest([makeDoc({ title: "React work", companyId: "co-bad" })]);
    expect(result).toMatchObject({ matched: 0, scoring: 0 });
    expect(await jobsOf(plain.id)).toEqual([]);
    expect(Number((await rows<{ n: number }>("SELECT count(*) AS n FROM tasks WHERE kind = 'score'"))[0]!.n)).toBe(0);
    const filtered = await rows("SELECT feed_id, filter, reason FROM filtered_jobs ORDER BY feed_id");
    expect(filtered).toHaveLength(2);
    for (const f of filtered) expect(f).toMatchObject({ filter: "blocked-client", reason: "Blocked client: never paid" });
    expect(filtered.map((f) => f.feed_id).sort()).toEqual([prompted.id, plain.id].sort());
  });

  test("a favoured client's job enters under minScore and is marked; another client's does not; alertFavoured false turns it off", async () => {
    const { create, jobsOf, list, ingest } = await setup();
    worker = new TaskWorker(t!.deps, { concurrency: 2, retryBaseMs: 1, retryMaxMs: 1, handlers: { score: (p, c) => scoreFeedMatch(t!.deps, p as never, c) } });
    worker.start();
    const strict = await create({ profilePrompt: "Senior Rust engineer for embedded firmware", minScore: 10 });
    const off = await create({ profilePrompt: "Senior Rust engineer for embedded firmware", minScore: 10, alertFavoured: false });
    await list("co-fav", "favoured", "great client");
    await ingest([
      makeDoc({ title: "Write pasta recipes", description: "Blog posts about Italian cooking.", companyId: "co-fav" }),
      makeDoc({ title: "Write pizza recipes", description: "Blog posts about Italian cooking, pizza.", companyId: "co-other" }),
    ]);
    await worker.drain(30_000);
    const got = await jobsOf(strict.id);
    expect(got.map((j) => [j.job.title, j.favoured])).toEqual([["Write pasta recipes", true]]);
    expect(got[0].matchingScore).toBeLessThan(10);
    expect(got[0].scoreReason).toContain(FAVOURED_REASON);
    expect(await jobsOf(off.id)).toEqual([]);
  });
});
