import { afterEach, describe, expect, test } from "bun:test";
import { tx } from "../../../src/db/client";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { admitJobs, type AdmitFeed } from "../../../src/modules/feeds/admit";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

// Feed entries are written without RETURNING; the ids that went in are then known from the count alone, or,
// when some (job, feed) pairs were there already, looked up. Either way only new entries get events.
describe("admitting jobs a feed may have already", () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  test("an admission counts, and writes events for, only the feeds the job was not in yet", async () => {
    const clock = new ManualClock();
    t = await createTestApp({ clock });
    const { apiKey, accountId } = await t.account({ credits: 0 });
    const create = async (includes: string[]) =>
      (await t!.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: includes.join(" "), minScore: 0, includes } })).body.feed.id as string;
    const rust = await create(["rust"]);
    const golang = await create(["golang"]);
    const doc = makeDoc({ title: "Rust developer", publishTime: new Date(clock.now()).toISOString() });
    expect((await ingestDocuments(t.deps, [doc], { source: "test" })).matched).toBe(1);
    const ciphertext = (await rawMany<{ ciphertext: string }>(t.deps.db, "test.job", "SELECT ciphertext FROM jobs", []))[0]!.ciphertext;
    const feed = (id: string): AdmitFeed => ({ id, accountId, notificationsMuted: false, hasWebhook: true, channelIds: [], applyMode: "alert" as const });
    const admission = { jobCiphertext: ciphertext, document: doc, score: 7, scoreSource: "ai", scoreReason: null, nowTs: clock.now() };
    const events = async () =>
      rawMany<{ feed_id: string }>(t!.deps.db, "test.events", "SELECT feed_id FROM events WHERE type = 'job.matched' ORDER BY seq", []);
    const entries = async (feedId: string) =>
      rawMany<{ matching_score: number }>(t!.deps.db, "test.entries", "SELECT matching_score FROM feed_jobs WHERE feed_id = ?", [feedId]);

    const before = (await events()).length;
    // One job into two feeds at once: rust has it already, golang does not.
    expect(await tx(t.deps.db, (db) => admitJobs(db, [{ feeds: [feed(rust), feed(golang)], job: admission }]))).toEqual([1]);
    expect((await events()).slice(before).map((e) => e.feed_id)).toEqual([golang]);
    expect((await entries(rust)).map((e) => Number(e.matching_score))).toEqual([5]);
    expect((await entries(golang)).map((e) => Number(e.matching_score))).toEqual([7]);

    // Again: nothing new anywhere.
    expect(await tx(t.deps.db, (db) => admitJobs(db, [{ feeds: [feed(rust), feed(golang)], job: admission }]))).toEqual([0]);
    expect((await events()).length).toBe(before + 1);
  });
});
