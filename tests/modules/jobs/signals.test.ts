import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { GHOST_MIN_POSTED } from "../../../src/modules/jobs/client-score";
import { PRICE_MIN_SAMPLE, priceSampleFrom } from "../../../src/modules/jobs/price-sample";
import { rawExec } from "../../../src/db/query";
import { recentJobsOfCompanies } from "../../../src/modules/jobs/repo";
import { jaccard, type JobSignal, REPOST_CANDIDATES_PER_CLIENT, REPOST_MIN_SIMILARITY, REPOST_WINDOW_DAYS, shingles } from "../../../src/modules/jobs/signals";
import { createTestApp, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

// Signals are computed when a job is first archived (ingest), from its text, its client's earlier jobs and the
// archive's prices, and shown on GET /api/v1/jobs/{ciphertext} (signals, and clientScore.flags in words).

const DAY = 86_400_000;
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const BRIEF =
  "We are a small e-commerce company looking for an experienced React developer to build a customer dashboard. " +
  "The dashboard shows orders, returns and shipping status, pulls data from our REST API and must work well on mobile. " +
  "You will work with our designer, who has the Figma files ready, and our backend developer. " +
  "Please describe a similar project you built and how long this one would take you.";
// The same client's other job: the same introduction, another piece of work.
const OTHER =
  "We are a small e-commerce company looking for an experienced React developer to build an inventory planner. " +
  "The planner forecasts stock per warehouse from two years of sales, suggests reorder dates and exports purchase orders as CSV. " +
  "You will work with our operations lead on the forecasting rules. " +
  "Please describe a similar project you built and how long this one would take you.";

async function setup() {
  const clock = new ManualClock();
  t = await createTestApp({ clock });
  const { apiKey } = await t.account();
  const ingest = async (docs: Record<string, unknown>[]) => ingestDocuments(t!.deps, docs, { source: "test" });
  const signals = async (doc: Record<string, unknown>): Promise<{ signals: JobSignal[]; flags: string[] }> => {
    const c = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
    const res = await t!.request("GET", `/api/v1/jobs/${encodeURIComponent(c)}`, { key: apiKey });
    expect(res.status).toBe(200);
    return { signals: res.body.signals ?? [], flags: res.body.clientScore.flags };
  };
  const at = (ts: number) => new Date(ts).toISOString();
  return { clock, ingest, signals, at };
}

const ciphertextOf = (doc: Record<string, unknown>) => (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;

describe("repost", () => {
  test(`the same client's near-identical job of 10 days ago is a repost, linked, with whether anyone was hired; one of ${REPOST_WINDOW_DAYS + 10} days ago is not`, async () => {
    const { clock, ingest, signals, at } = await setup();
    const now = clock.now();
    const old = makeDoc({ title: "React dashboard for our shop", description: BRIEF, companyId: "c-old", publishTime: at(now - 40 * DAY) });
    const earlier = makeDoc({ title: "React dashboard for our shop", description: BRIEF, companyId: "c-repost", publishTime: at(now - 10 * DAY) });
    // The earlier posting closed with no one hired, as its document says.
    (earlier.jobDetailsResponse as any).data.jobPubDetails.opening = { clientActivity: { totalHired: 0 } };
    await ingest([old, earlier]);

    const again = makeDoc({ title: "React dashboard for our shop!", description: `${BRIEF} Thanks.`, companyId: "c-repost", publishTime: at(now) });
    // 40 days back: outside the window, so the same text again is no repost.
    const againOld = makeDoc({ title: "React dashboard for our shop", description: BRIEF, companyId: "c-old", publishTime: at(now) });
    await ingest([again, againOld]);
    expect((await signals(againOld)).signals).toEqual([]);
    const got = await signals(again);
    expect(got.signals).toEqual([
      {
        id: "repost",
        say: `Reposted: near-identical to a job of ${new Date(now - 10 * DAY).getUTCDate()} Jan (no hire)`,
        earlier: { ciphertext: ciphertextOf(earlier), url: expect.any(String), hired: false },
      },
    ]);
    expect(got.flags).toContain(got.signals[0]!.say);
  });

  test("another job of the same client, sharing its introduction, is below the threshold; another client's copy is no repost", async () => {
    expect(jaccard(shingles("React dashboard", BRIEF), shingles("React inventory planner", OTHER))).toBeLessThan(REPOST_MIN_SIMILARITY);
    const { clock, ingest, signals, at } = await setup();
    const now = clock.now();
    await ingest([makeDoc({ title: "React dashboard", description: BRIEF, companyId: "c-1", publishTime: at(now - 5 * DAY) })]);
    const other = makeDoc({ title: "React inventory planner", description: OTHER, companyId: "c-1", publishTime: at(now) });
    const copy = makeDoc({ title: "React dashboard", description: BRIEF, companyId: "c-2", publishTime: at(now) });
    await ingest([other, copy]);
    expect((await signals(other)).signals).toEqual([]);
    expect((await signals(copy)).signals).toEqual([]);
  });

  test("within one batch, the later of two near-identical jobs is the repost", async () => {
    const { clock, ingest, signals, at } = await setup();
    const first = makeDoc({ title: "React dashboard", description: BRIEF, companyId: "c-b", publishTime: at(clock.now() - DAY) });
    const second = makeDoc({ title: "React dashboard", description: BRIEF, companyId: "c-b", publishTime: at(clock.now()) });
    await ingest([first, second]);
    expect((await signals(first)).signals).toEqual([]);
    expect((await signals(second)).signals.map((s) => [s.id, s.earlier?.ciphertext])).toEqual([["repost", ciphertextOf(first)]]);
  });
});

describe("ghost", () => {
  test(`a client with ${GHOST_MIN_POSTED} or more jobs posted and no hire is a ghost; one who hired is not`, async () => {
    const { ingest, signals } = await setup();
    const ghost = { ...makeDoc({ companyId: "g-1" }), client: { totalPostedJobs: 12, totalJobsWithHires: 0 } };
    const hirer = { ...makeDoc({ companyId: "g-2" }), client: { totalPostedJobs: 12, totalJobsWithHires: 9 } };
    await ingest([ghost, hirer]);
    const got = await signals(ghost);
    expect(got.signals).toEqual([{ id: "ghost", say: "Ghost client: no hires after 12 jobs posted" }]);
    // The score's own flag says it once: the signal is not repeated in clientScore.flags.
    expect(got.flags.filter((f) => f.includes("No hires after 12 jobs posted"))).toHaveLength(1);
    expect((await signals(hirer)).signals).toEqual([]);
  });
});

describe("scam risk", () => {
  test("each new text rule flags its job with the reason; a benign look-alike is not flagged", async () => {
    const { ingest, signals } = await setup();
    const cases: [string, string | null][] = [
      ["Send us a scan of your passport before we start.", "personal-data"],
      ["Build a KYC flow where users upload a passport scan.", null],
      ["You will be paid in USDT weekly.", "crypto-or-cheque"],
      ["Build a crypto payment gateway that accepts USDT.", null],
      ["Email me at quick.hire@gmail.com for details.", "email-phone"],
      ["Build a contact form with email and phone fields.", null],
    ];
    const docs = cases.map(([description], i) => makeDoc({ description, companyId: `s-${i}` }));
    await ingest(docs);
    for (const [i, [text, rule]] of cases.entries()) {
      const got = (await signals(docs[i]!)).signals.filter((s) => s.id === "scam").map((s) => s.rule);
      expect([text, got]).toEqual([text, rule === null ? [] : [rule]]);
    }
  });

  test("a new unverified client offering far above the going rate, urgently, is a scam risk; a verified one, or one without the rush, is not", async () => {
    const { ingest, signals } = await setup();
    await ingest(
      Array.from({ length: PRICE_MIN_SAMPLE }, (_, i) =>
        makeDoc({ title: "Shopify theme fix", skills: ["Shopify"], fixed: 400 + i * 10, companyId: `p-${i}` }),
      ),
    );
    const bait = (over: { paymentVerified?: boolean; urgent?: boolean }) => {
      const doc = makeDoc({
        title: "Shopify theme fix",
        description: over.urgent === false ? "Fix our Shopify theme header." : "URGENT: fix our Shopify theme header, needed ASAP.",
        skills: ["Shopify"],
        fixed: 5000,
        paymentVerified: over.paymentVerified ?? false,
        companyId: `bait-${over.paymentVerified}-${over.urgent}`,
      });
      (doc.upworkHistoryData as any).client.totalSpent = { isoCurrencyCode: "USD", amount: "0" };
      return doc;
    };
    const scam = bait({});
    const verified = bait({ paymentVerified: true });
    const calm = bait({ urgent: false });
    await ingest([scam, verified, calm]);
    expect((await signals(scam)).signals).toEqual([
      { id: "scam", rule: "new-client-outsized", say: "Scam risk: new unverified client, urgent, offering $5,000 against a $445 median for Shopify jobs" },
    ]);
    expect((await signals(verified)).signals).toEqual([]);
    expect((await signals(calm)).signals).toEqual([]);
  });
});

describe("low budget", () => {
  test(`a fixed price under a third of the median of ${PRICE_MIN_SAMPLE}+ similar jobs is flagged; with fewer known, nothing is`, async () => {
    const { ingest, signals } = await setup();
    const similar = (n: number, from = 0) =>
      Array.from({ length: n }, (_, i) =>
        makeDoc({ title: "Python scraper", skills: ["Python", "Scrapy"], fixed: 900 + (from + i) * 20, companyId: `l-${from + i}` }),
      );
    await ingest(similar(PRICE_MIN_SAMPLE - 1));
    const early = makeDoc({ title: "Python scraper for 3 sites", skills: ["Python"], fixed: 100, companyId: "l-early" });
    await ingest([early]);
    expect((await signals(early)).signals).toEqual([]);

    await ingest(similar(1, PRICE_MIN_SAMPLE - 1));
    const cheap = makeDoc({ title: "Python scraper for 3 sites", skills: ["Python"], fixed: 100, companyId: "l-cheap" });
    const fair = makeDoc({ title: "Python scraper for 3 sites", skills: ["Python"], fixed: 700, companyId: "l-fair" });
    await ingest([cheap, fair]);
    // The median of the 10 similar jobs (900 … 1,080) and the early $100 one: $980.
    expect((await signals(cheap)).signals).toEqual([{ id: "low-budget", say: "Low budget: $100 against a $980 median for 11 similar Python jobs" }]);
    expect((await signals(fair)).signals).toEqual([]);
  });
});

test("a restarted server fills its price sample from the archive: skills from job_texts, an older job's from its document", async () => {
  const { ingest } = await setup();
  const docs = Array.from({ length: PRICE_MIN_SAMPLE }, (_, i) =>
    makeDoc({ title: "Python scraper", skills: ["Python", "Scrapy"], fixed: 900 + i * 20, companyId: `r-${i}` }),
  );
  await ingest([...docs, makeDoc({ title: "Logo", skills: ["Logo Design"], fixed: 50, companyId: "r-logo" }), makeDoc({ title: "Hourly", companyId: "r-h" })]);
  // Four of them as a job archived before job_texts existed.
  await rawExec(
    t!.deps.db,
    "test.dropTexts",
    `DELETE FROM job_texts WHERE job_ciphertext IN (${docs
      .slice(0, 4)
      .map(() => "?")
      .join(", ")})`,
    docs.slice(0, 4).map(ciphertextOf),
  );
  const sample = await priceSampleFrom(t!.deps.db);
  expect(sample.median("python")).toEqual({ median: 990, n: PRICE_MIN_SAMPLE });
  expect(sample.median("scrapy")).toEqual({ median: 990, n: PRICE_MIN_SAMPLE });
  expect(sample.median("logo design")).toBeNull(); // one job: too few for a median
});

describe("a repost's first look", () => {
  test("reads each client's newest jobs in the window, at most REPOST_CANDIDATES_PER_CLIENT each, newest first", async () => {
    const clock = new ManualClock();
    t = await createTestApp({ clock });
    const at = (d: number) => new Date(Date.UTC(2026, 0, 1) + d * DAY).toISOString();
    // A prolific client with 20 jobs over 20 days, a small one with 2, and one outside the window.
    const docs = [
      ...Array.from({ length: 20 }, (_, i) => makeDoc({ ciphertext: `~big${i}`, companyId: "big", title: `Job ${i}`, publishTime: at(i) })),
      makeDoc({ ciphertext: "~small0", companyId: "small", title: "Small A", publishTime: at(3) }),
      makeDoc({ ciphertext: "~small1", companyId: "small", title: "Small B", publishTime: at(5) }),
      makeDoc({ ciphertext: "~old0", companyId: "old", title: "Old", publishTime: at(0) }),
    ];
    await ingestDocuments(t.deps, docs, { source: "test" });
    const since = Date.UTC(2026, 0, 1) + 1 * DAY;
    const rows = await recentJobsOfCompanies(t.deps.db, ["big", "small", "old", "none", "big"], since, REPOST_CANDIDATES_PER_CLIENT);
    const of = (c: string) => rows.filter((r) => r.companyId === c).map((r) => r.ciphertext);
    expect(of("big")).toEqual(Array.from({ length: REPOST_CANDIDATES_PER_CLIENT }, (_, i) => `~big${19 - i}`));
    expect(of("small")).toEqual(["~small1", "~small0"]);
    expect(of("old")).toEqual([]);
    expect(rows.map((r) => r.postedAtTs)).toEqual([...rows.map((r) => r.postedAtTs)].sort((a, b) => b - a));
    expect(rows.find((r) => r.ciphertext === "~small0")).toMatchObject({ title: "Small A", url: expect.stringContaining("small0") });
  });
});
