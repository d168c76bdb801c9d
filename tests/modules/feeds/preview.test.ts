import { afterEach, describe, expect, test } from "bun:test";
import { rawExec, rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 15, 12);

/** Jobs archived at times in the past: each doc is ingested with the clock at `daysAgo` before T0. */
async function archive(app: TestApp, clock: ManualClock, jobs: { daysAgo: number; doc: Record<string, unknown> }[]) {
  for (const { daysAgo, doc } of jobs) {
    clock.set(T0 - daysAgo * DAY);
    const result = await ingestDocuments(app.deps, [doc], { source: "test" });
    expect(result.errors ?? []).toEqual([]);
  }
  clock.set(T0);
}

const WRITES = ["feed_jobs", "events", "tasks", "ai_usage", "job_scores", "filtered_jobs"];
async function counts(app: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of WRITES)
    out[table] = Number((await rawMany<{ n: number }>(app.deps.db, `test.count.${table}`, `SELECT count(*) AS n FROM ${table}`, []))[0]!.n);
  return out;
}

async function setup() {
  const clock = new ManualClock(T0);
  t = await createTestApp({ clock });
  const { apiKey } = await t.account();
  await archive(t, clock, [
    { daysAgo: 0.5, doc: makeDoc({ title: "Rust developer for a CLI", hourly: [50, 80] }) },
    { daysAgo: 0.6, doc: makeDoc({ title: "Rust and WordPress plugin", hourly: [50, 80] }) },
    { daysAgo: 2, doc: makeDoc({ title: "Rust backend engineer", hourly: [10, 15] }) },
    { daysAgo: 3, doc: makeDoc({ title: "Go developer", hourly: [50, 80] }) },
    { daysAgo: 5, doc: makeDoc({ title: "Rust services in Germany", country: "Germany" }) },
    { daysAgo: 20, doc: makeDoc({ title: "Rust compiler work" }) },
    { daysAgo: 40, doc: makeDoc({ title: "Rust embedded" }) },
  ]);
  return { key: apiKey };
}

const preview = (key: string | undefined, json: unknown) => t!.request("POST", "/api/v1/feeds/preview", { key, json });
const titles = (body: { jobs: { job: { title: string } }[] }) => body.jobs.map((j) => j.job.title);

describe("feed preview", () => {
  test("finds the window's matching jobs, newest first, and none older (days 1, 7, 30)", async () => {
    const { key } = await setup();
    const feed = { title: "Rust", minScore: 0, includes: ["rust"] };
    const week = await preview(key, feed);
    expect(week.status, show(week)).toBe(200);
    expect(week.body.days).toBe(7);
    expect(titles(week.body)).toEqual(["Rust developer for a CLI", "Rust and WordPress plugin", "Rust backend engineer", "Rust services in Germany"]);
    expect(week.body.total).toBe(5);
    expect(week.body.droppedBy).toEqual({ includes: 1 });
    expect(week.body.jobs[0].scoreSource).toBe("default");
    expect(week.body.jobs[0].matchingScore).toBe(5);
    expect(week.body.jobs[0].firstSeenAt).toBe(new Date(T0 - 0.5 * DAY).toISOString());
    expect(titles((await preview(key, { ...feed, days: 1 })).body)).toEqual(["Rust developer for a CLI", "Rust and WordPress plugin"]);
    const month = (await preview(key, { ...feed, days: 30 })).body;
    expect(titles(month)).toContain("Rust compiler work");
    expect(titles(month)).not.toContain("Rust embedded");
  });

  test("reads the stored match fields, and a job archived before they existed from its document, with the same result", async () => {
    const { key } = await setup();
    const feed = { title: "Rust", minScore: 0, includes: ["rust"], excludes: ["wordpress"], profilePrompt: "Rust developer for CLIs and services" };
    const stored = await preview(key, feed);
    const filled = await rawMany<{ n: number }>(t!.deps.db, "test.matchFields", "SELECT count(*) AS n FROM job_texts", []);
    expect(Number(filled[0]!.n)).toBe(7);
    // An archive partly from before job_texts, then wholly.
    await rawExec(
      t!.deps.db,
      "test.clearSomeTexts",
      "DELETE FROM job_texts WHERE job_ciphertext IN (SELECT job_ciphertext FROM job_texts ORDER BY job_ciphertext LIMIT 3)",
      [],
    );
    expect((await preview(key, feed)).body).toEqual(stored.body);
    await rawExec(t!.deps.db, "test.clearTexts", "DELETE FROM job_texts", []);
    const fromDocuments = await preview(key, feed);
    expect(fromDocuments.body).toEqual(stored.body);
    expect(titles(stored.body)).toEqual(["Rust developer for a CLI", "Rust backend engineer", "Rust services in Germany"]);
  });

  test("droppedBy counts each job once, under the first filter that dropped it, and adds up with total", async () => {
    const { key } = await setup();
    const res = await preview(key, {
      title: "Rust",
      minScore: 0,
      includes: ["rust"],
      excludes: ["wordpress"],
      minHourlyRate: 40,
      excludedCountries: ["DE"],
      days: 30,
    });
    expect(res.status, show(res)).toBe(200);
    const b = res.body;
    // The Go job fails includes only; the German one fails the country before its keywords are looked at.
    expect(b.droppedBy).toEqual({ excludedCountries: 1, minHourlyRate: 1, includes: 1, excludes: 1 });
    expect(titles(b)).toEqual(["Rust developer for a CLI", "Rust compiler work"]);
    const dropped = Object.values(b.droppedBy as Record<string, number>).reduce((a, n) => a + n, 0);
    expect(dropped + b.matched + b.unscored).toBe(b.total);
    expect(b.total).toBe(6);
  });

  test("scores with the local scorer into a ten-bucket histogram; minScore drops the scored jobs below it", async () => {
    const { key } = await setup();
    const res = await preview(key, { title: "Rust", minScore: 6, includes: ["rust"], profilePrompt: "Rust developer building command line tools in Rust" });
    expect(res.status, show(res)).toBe(200);
    const b = res.body;
    expect(b.scoreHistogram).toHaveLength(10);
    expect(b.scoreHistogram[0]).toMatchObject({ from: 0, to: 1 });
    expect(b.scoreHistogram[9]).toMatchObject({ from: 9, to: 10 });
    expect(b.scoreHistogram.reduce((a: number, h: { count: number }) => a + h.count, 0)).toBe(b.scored);
    expect(b.scored).toBe(4);
    expect(b.unscored).toBe(0);
    expect(b.matched + (b.droppedBy.minScore ?? 0)).toBe(b.scored);
    for (const j of b.jobs) {
      expect(j.scoreSource).toBe("local");
      expect(j.matchingScore).toBeGreaterThanOrEqual(6);
    }
  });

  test("writes nothing: no feed entry, event, task, score or AI usage; no feed is created", async () => {
    const { key } = await setup();
    const before = await counts(t!);
    const feedsBefore = (await t!.request("GET", "/api/v1/feeds", { key })).body.feeds.length;
    const res = await preview(key, { title: "Rust", minScore: 0, includes: ["rust"], profilePrompt: "Rust developer", days: 30 });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.matched).toBeGreaterThan(0);
    expect(await counts(t!)).toEqual(before);
    expect((await t!.request("GET", "/api/v1/feeds", { key })).body.feeds.length).toBe(feedsBefore);
  });

  test("a bad body is the same 400 as feed creation; days must be 1, 7 or 30; no key is a 401", async () => {
    const { key } = await setup();
    for (const body of [
      { title: "x", minScore: 8 }, // empty prompt above 5
      { title: "x", minScore: 5, includes: ["ru*st"] },
      { title: "x", minScore: 5, excludedCountries: ["Atlantis"] },
      { minScore: 5 },
    ]) {
      const created = await t!.request("POST", "/api/v1/feeds", { key, json: body });
      const previewed = await preview(key, body);
      expect(created.status, show(created)).toBe(400);
      expect(previewed.status, show(previewed)).toBe(400);
      expect(previewed.body).toEqual(created.body);
    }
    const badDays = await preview(key, { title: "x", minScore: 5, days: 3 });
    expect(badDays.status, show(badDays)).toBe(400);
    expect(badDays.body.error).toBe("Validation failed");
    expect((await preview(undefined, { title: "x", minScore: 5 })).status).toBe(401);
  });

  test("the archive is shared, the client list is the account's: a blocked client's jobs drop for its account only", async () => {
    const { key } = await setup();
    const other = (await t!.account({ name: "Other" })).apiKey;
    const put = await t!.request("PUT", "/api/v1/client-lists/1500000000000000001", { key, json: { list: "blocked", reason: "never pays" } });
    expect(put.status, show(put)).toBe(200);
    const feed = { title: "Rust", minScore: 0, includes: ["rust"] };
    const mine = (await preview(key, feed)).body;
    expect(mine.droppedBy["blocked-client"]).toBe(4);
    expect(mine.jobs).toEqual([]);
    const theirs = (await preview(other, feed)).body;
    expect(theirs.droppedBy["blocked-client"]).toBeUndefined();
    expect(theirs.jobs).toHaveLength(4);
  });
});

describe("feed preview and signals", () => {
  test("a listed job shows its signals as flags; a signal rule that drops counts it under signal:<id> and lists it no more", async () => {
    const clock = new ManualClock(T0);
    t = await createTestApp({ clock });
    const { apiKey } = await t.account();
    await archive(t, clock, [
      { daysAgo: 1, doc: makeDoc({ title: "Rust scraper", description: "Scrape prices. Contact me on Telegram @rustboss for details." }) },
      { daysAgo: 2, doc: makeDoc({ title: "Rust CLI", description: "A command-line tool for our billing exports." }) },
    ]);
    const warn = await preview(apiKey, { title: "Rust", minScore: 0, includes: ["rust"] });
    expect(warn.status, show(warn)).toBe(200);
    const byTitle = Object.fromEntries(
      (warn.body.jobs as { job: { title: string }; flags: { id: string }[] }[]).map((j) => [j.job.title, j.flags.map((f) => f.id)]),
    );
    expect(byTitle).toEqual({ "Rust scraper": ["scam"], "Rust CLI": [] });
    const dropped = await preview(apiKey, { title: "Rust", minScore: 0, includes: ["rust"], signalRules: { scam: "drop" } });
    expect(dropped.status, show(dropped)).toBe(200);
    expect(titles(dropped.body)).toEqual(["Rust CLI"]);
    expect(dropped.body.droppedBy).toEqual({ "signal:scam": 1 });
  });
});
