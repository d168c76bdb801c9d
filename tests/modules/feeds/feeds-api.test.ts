import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
afterEach(() => t?.close());

async function setup() {
  t = await createTestApp();
  const a = await t.account({ name: "A" });
  const b = await t.account({ name: "B" });
  return { a: a.apiKey, b: b.apiKey };
}

const post = (key: string, json: unknown) => t.request("POST", "/api/v1/feeds", { key, json });

describe("feeds API", () => {
  test("create with the two required fields: 201, defaults filled, unset fields absent", async () => {
    const { a } = await setup();
    const res = await post(a, { title: "Go backends", minScore: 5 });
    expect(res.status, show(res)).toBe(201);
    const feed = res.body.feed;
    expect(feed.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(feed.createdAtTs).toBe(t.clock.now());
    expect(feed).toMatchObject({
      title: "Go backends",
      minScore: 5,
      profilePrompt: "",
      includes: [],
      excludes: [],
      notificationsMuted: false,
      usOnlyMode: "all",
      paymentVerifiedOnly: false,
      jobTypes: [],
      emailFound: "all",
    });
    for (const unset of [
      "minHourlyRate",
      "minFixedPrice",
      "clientMinSpent",
      "platforms",
      "clientMinRating",
      "clientMinReviews",
      "webhookUrl",
      "proposalGenerationPrompt",
    ]) {
      expect(feed).not.toHaveProperty(unset);
    }
  });

  test("create with every field returns every field as given", async () => {
    const { a } = await setup();
    const full = {
      title: "Everything",
      profilePrompt: "Senior TypeScript engineer",
      minScore: 7.5,
      includes: ["typescript", "react native", "develop*"],
      excludes: ["wordpress"],
      minHourlyRate: 40,
      minFixedPrice: 1000,
      clientMinSpent: 5000,
      countryFilterMode: "include",
      excludedCountries: [],
      includedCountries: ["United States", "GBR", "de"],
      platforms: ["marketplace", "web"],
      proposalGenerationPrompt: "Be brief.",
      notificationsMuted: true,
      emailFound: "email_found",
      jobTypes: ["HOURLY"],
      usOnlyMode: "exclude",
      paymentVerifiedOnly: true,
      clientMinRating: 4.5,
      clientMinReviews: 3,
      webhookUrl: "https://hooks.example.com/jobs",
    };
    const res = await post(a, { ...full, unknownField: "ignored" });
    expect(res.status, show(res)).toBe(201);
    expect(res.body.feed).toMatchObject(full);
    expect(res.body.feed).not.toHaveProperty("unknownField");
    // the signing secret is shown whole once, then masked
    expect(res.body.feed.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const got = await t.request("GET", `/api/v1/feeds/${res.body.feed.id}`, { key: a });
    expect(got.body.feed).toEqual({ ...res.body.feed, webhookSecret: `whsec_…${res.body.feed.webhookSecret.slice(-4)}` });
  });

  test("validation collects every failure, each naming its field", async () => {
    const { a } = await setup();
    const res = await post(a, {
      minScore: 11,
      platforms: [],
      usOnlyMode: "sometimes",
      clientMinReviews: 2.5,
      clientMinRating: 6,
      minHourlyRate: -1,
      jobTypes: ["WEEKLY"],
      countryFilterMode: "allow",
      emailFound: "yes",
      notificationsMuted: "no",
      includes: "react",
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Validation failed");
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        "title is required",
        "minScore must be a number between 0 and 10",
        "platforms must be a non-empty array",
        "usOnlyMode must be one of all, include, exclude",
        "clientMinReviews must be a non-negative integer or null",
        "clientMinRating must be a number between 0 and 5",
        "minHourlyRate must be a non-negative number",
        "jobTypes[0] must be one of HOURLY, FIXED",
        "countryFilterMode must be one of exclude, include",
        "emailFound must be one of all, email_found",
        "notificationsMuted must be true or false",
        "includes must be an array",
      ]),
    );
  });

  test("rules beyond the field schemas: empty prompt caps minScore at 5, keywords, countries, webhook URL", async () => {
    const { a } = await setup();
    const res = await post(a, {
      title: "x",
      minScore: 6,
      includes: ["ok", "ba*d", "!!!"],
      excludedCountries: ["Narnia", "France"],
      webhookUrl: "ftp://example.com",
    });
    expect(res.status, show(res)).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      details: [
        "minScore must be 5 or lower when profilePrompt is empty (without a prompt every match scores 5)",
        "includes[1] may use * only at the end of the keyword",
        "includes[2] must contain a letter or digit",
        'excludedCountries[0] is not a known country: "Narnia" (use an English name, ISO-2 or ISO-3 code)',
        "webhookUrl is not allowed: ftp: URLs are not allowed (http and https only)",
      ],
    });
    expect((await post(a, { title: "x", minScore: 5 })).status).toBe(201);
    expect((await post(a, { title: "x", minScore: 9, profilePrompt: "Rust" })).status).toBe(201);
    const list = await t.request("GET", "/api/v1/feeds", { key: a });
    expect(list.body.feeds).toHaveLength(2); // the failed create changed nothing
  });

  test("PATCH changes only the given fields; null clears; off-values; no updatable field is a 400", async () => {
    const { a } = await setup();
    const created = (
      await post(a, { title: "x", minScore: 3, minHourlyRate: 50, clientMinRating: 4, jobTypes: ["FIXED"], usOnlyMode: "include", paymentVerifiedOnly: true })
    ).body.feed;
    const path = `/api/v1/feeds/${created.id}`;
    const res = await t.request("PATCH", path, {
      key: a,
      json: { title: "renamed", minHourlyRate: null, clientMinRating: null, jobTypes: [], usOnlyMode: "all", paymentVerifiedOnly: false },
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.feed).toMatchObject({
      id: created.id,
      title: "renamed",
      minScore: 3,
      jobTypes: [],
      usOnlyMode: "all",
      paymentVerifiedOnly: false,
      createdAtTs: created.createdAtTs,
    });
    expect(res.body.feed).not.toHaveProperty("minHourlyRate");
    expect(res.body.feed).not.toHaveProperty("clientMinRating");
    for (const body of [{}, { unknown: 1 }]) {
      const empty = await t.request("PATCH", path, { key: a, json: body });
      expect(empty.status, show(empty)).toBe(400);
      expect(empty.body.error).toContain("No updatable fields");
    }
    const invalid = await t.request("PATCH", path, { key: a, json: { minScore: -1 } });
    expect(invalid.body).toEqual({ error: "Validation failed", details: ["minScore must be a number between 0 and 10"] });
  });

  test("the empty-prompt rule is checked on the feed as it will be after the PATCH", async () => {
    const { a } = await setup();
    const withPrompt = (await post(a, { title: "x", minScore: 7, profilePrompt: "Go developer" })).body.feed;
    const emptied = await t.request("PATCH", `/api/v1/feeds/${withPrompt.id}`, { key: a, json: { profilePrompt: "" } });
    expect(emptied.status).toBe(400);
    expect(emptied.body.details[0]).toContain("minScore must be 5 or lower");
    const both = await t.request("PATCH", `/api/v1/feeds/${withPrompt.id}`, { key: a, json: { profilePrompt: "", minScore: 4 } });
    expect(both.status, show(both)).toBe(200);
    const raised = await t.request("PATCH", `/api/v1/feeds/${withPrompt.id}`, { key: a, json: { minScore: 6 } });
    expect(raised.status).toBe(400);
  });

  test("another account's feed is a 404, byte-identical to a missing one, and never listed", async () => {
    const { a, b } = await setup();
    const feed = (await post(a, { title: "mine", minScore: 1 })).body.feed;
    const missing = await t.request("GET", "/api/v1/feeds/00000000-0000-7000-8000-000000000000", { key: b });
    for (const [method, json] of [
      ["GET", undefined],
      ["PATCH", { title: "stolen" }],
      ["DELETE", undefined],
    ] as const) {
      const res = await t.request(method, `/api/v1/feeds/${feed.id}`, { key: b, json });
      expect(res.status, `${method}: ${show(res)}`).toBe(404);
      expect(res.text).toBe(missing.text);
    }
    expect((await t.request("GET", "/api/v1/feeds", { key: b })).body.feeds).toEqual([]);
    expect((await t.request("GET", `/api/v1/feeds/${feed.id}`, { key: a })).body.feed.title).toBe("mine");
    expect((await t.request("GET", `/api/v1/feeds/${feed.id}/jobs`, { key: b })).status).toBe(404);
  });

  test("DELETE removes the feed and every job matched into it", async () => {
    const { a } = await setup();
    const feed = (await post(a, { title: "all", minScore: 0 })).body.feed;
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc(), makeDoc()], { source: "test" });
    expect((await t.request("GET", `/api/v1/feeds/${feed.id}/jobs`, { key: a })).body.total).toBe(2);
    const del = await t.request("DELETE", `/api/v1/feeds/${feed.id}`, { key: a });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true, feedId: feed.id });
    expect((await t.request("GET", `/api/v1/feeds/${feed.id}`, { key: a })).status).toBe(404);
    const sql = "SELECT (SELECT count(*) FROM feed_jobs) AS jobs, (SELECT count(*) FROM events) AS events";
    const [left] = await rawMany<{ jobs: number | string; events: number | string }>(t.deps.db, sql, sql, []);
    expect({ jobs: Number(left!.jobs), events: Number(left!.events) }).toEqual({ jobs: 0, events: 0 });
    expect(t.deps.feedIndex.size).toBe(0);
  });

  test("matched jobs: newest first, filters, paging, mark read and star", async () => {
    const { a } = await setup();
    const feed = (await post(a, { title: "all", minScore: 0 })).body.feed;
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      await ingestDocuments(t.deps, [makeDoc({ title: `Job number ${i}`, fixed: 100 * (i + 1) })], { source: "test" });
    }
    const path = `/api/v1/feeds/${feed.id}/jobs`;
    const list = await t.request("GET", `${path}?limit=2`, { key: a });
    expect(list.status, show(list)).toBe(200);
    expect(list.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(list.body.jobs.map((j: any) => j.job.title)).toEqual(["Job number 2", "Job number 1"]);
    expect(list.body.jobs[0]).toMatchObject({
      matchingScore: 5,
      scoreSource: "default",
      read: false,
      starredAt: null,
      job: { jobType: "FIXED", fixedBudget: 300, clientCountry: "US" },
    });
    const id = list.body.jobs[0].processedJobId;
    const marked = await t.request("PATCH", `${path}/${id}`, { key: a, json: { read: true, starred: true } });
    expect(marked.status, show(marked)).toBe(200);
    expect(marked.body).toMatchObject({ processedJobId: id, read: true, starredAt: t.clock.now() });
    const unread = await t.request("GET", `${path}?unread=true`, { key: a });
    expect(unread.body.total).toBe(2);
    expect((await t.request("GET", `${path}?offset=2`, { key: a })).body.jobs).toHaveLength(1);
    expect((await t.request("GET", `${path}?limit=0`, { key: a })).status).toBe(400);
    expect((await t.request("PATCH", `${path}/not-a-job`, { key: a, json: { read: true } })).status).toBe(404);
  });
});
