import { describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { tx } from "../../../src/db/client";
import { exec, tables } from "../../../src/db/query";
import { wilson } from "../../../src/lib/wilson";
import { authenticate } from "../../../src/modules/accounts/service";
import type { FunnelGroup } from "../../../src/modules/analytics/model";
import { csvCell, groupOf, offsetSegments, suggestMinScore } from "../../../src/modules/analytics/service";
import * as repo from "../../../src/modules/applications/repo";
import { matchesOfJob } from "../../../src/modules/feeds/repo";
import * as feeds from "../../../src/modules/feeds/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { newId } from "../../../src/lib/ids";
import { ManualClock } from "../../../src/lib/clock";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { useCleanups } from "../../helpers/cleanups";
import { makeDoc } from "../../helpers/factories";
import { jobTimes } from "../../../src/modules/jobs/repo";

const FUNNEL = "/api/v1/analytics/funnel";
const LEDGER = "/api/v1/analytics/ledger.csv";
const MIN = 60_000;
const HOUR = 60 * MIN;
/** Monday 2026-01-12 02:00 UTC: Sunday evening in New York. */
const MONDAY_2AM = Date.UTC(2026, 0, 12, 2);
/** Tuesday 2026-01-13 12:00 UTC. */
const TUESDAY_NOON = Date.UTC(2026, 0, 13, 12);

let t: TestApp;
const cleanup = useCleanups();

async function setup() {
  t = await createTestApp({ clock: new ManualClock(Date.UTC(2026, 1, 1)), config: { connectPriceUsd: 0.15, noReplyDays: 14 } });
  cleanup(() => t.close());
  const a = await t.account({ credits: 5 });
  const b = await t.account({ name: "other", credits: 5 });
  return { a, b, auth: (await authenticate(t.deps, a.apiKey))!, authB: (await authenticate(t.deps, b.apiKey))! };
}

/** Archives one job published at `publishTs` (null: the document has no publish time); its ciphertext. */
async function job(source: string, publishTs: number | null, over: { title?: string; hourly?: [number, number]; fixed?: number } = {}): Promise<string> {
  const doc = makeDoc({ ...over, publishTime: publishTs === null ? undefined : new Date(publishTs).toISOString() });
  const tile = (doc.jobTile as { job: Record<string, unknown> }).job;
  if (publishTs === null) delete tile.publishTime;
  await ingestDocuments(t.deps, [doc], { source });
  return tile.ciphertext as string;
}

/** The columns a sent proposal needs beyond its ids and times. */
const LEDGER_ROW = {
  processedJobId: null,
  driver: "sandbox",
  freelancerId: "fl-b",
  profileId: "pr-b",
  status: "applied",
  phase: "done",
  creditHeld: false,
  coverLetter: "Hello",
  hourlyRate: 50,
  fixedBid: null,
  timeline: "1 to 3 months",
  boostBids: 0,
  answers: [],
  autoFill: false,
  explicitPositions: [],
} as const satisfies Partial<repo.ApplicationInsert>;

type Facts = Omit<Partial<repo.ApplicationInsert>, "jobCiphertext" | "processedAtTs">;
type Sent = Facts & { jobCiphertext: string; processedAtTs: number };

/** A sent proposal written as the worker would have left it (going through apply for dozens would be slow). */
async function sent(accountId: string, over: Sent): Promise<string> {
  const id = newId();
  // The job's source and publish time are copied onto the application, as the apply path does.
  const times = (await jobTimes(t.deps.db, [over.jobCiphertext])).get(over.jobCiphertext);
  await repo.insertApplication(t.deps.db, {
    ...LEDGER_ROW,
    answers: [],
    explicitPositions: [],
    id,
    accountId,
    appliedAtTs: over.processedAtTs - 1000,
    source: times?.source ?? null,
    publishTimeTs: times?.publishTimeTs ?? null,
    ...over,
  });
  return id;
}

const funnel = (key: string, query = "") => t.request("GET", `${FUNNEL}${query}`, { key });

/** The data set most tests read: 18 proposals over three feeds (one deleted) and none. */
async function seed(accountId: string, auth: Awaited<ReturnType<typeof setup>>["auth"]) {
  const rust = await feeds.createFeed(t.deps, auth, { title: "Rust", minScore: 0, includes: ["nomatch-rust"] });
  const go = await feeds.createFeed(t.deps, auth, { title: "Go", minScore: 0, includes: ["nomatch-go"] });
  const gone = await feeds.createFeed(t.deps, auth, { title: "Gone", minScore: 0, includes: ["nomatch-gone"] });
  // Rust: 12 sent Monday 02:00 UTC, 10 minutes after publish, score 8, source alpha, freelancer fl-a.
  for (let i = 0; i < 12; i++) {
    const sentTs = MONDAY_2AM + i * 1000;
    const cipher = await job("alpha", sentTs - 10 * MIN);
    const stage: Facts =
      i === 0
        ? { hiredAtTs: sentTs + HOUR, outcome: "hired", outcomeAtTs: sentTs + HOUR, valueUsd: 1000 } // only the hire recorded: implies every earlier stage
        : i === 1
          ? { interviewAtTs: sentTs + HOUR }
          : i <= 5
            ? { repliedAtTs: sentTs + HOUR, replied: true }
            : i === 6
              ? { replied: true } // a reply from before reply times were kept
              : i === 7
                ? { hiredAtTs: sentTs + HOUR, outcome: "lost", outcomeAtTs: sentTs + 2 * HOUR, valueUsd: null } // hired, then lost: the hire happened
                : {};
    await sent(accountId, {
      jobCiphertext: cipher,
      processedAtTs: sentTs,
      feedId: rust.id,
      score: 8,
      bidRatio: i < 6 ? 0.9 : 1.0,
      freelancerId: "fl-a",
      connectsRequired: 10,
      ...(i < 3 ? { boostBids: 5, boostConnects: 5 } : {}),
      ...stage,
    });
  }
  // Go: 4 sent Tuesday noon, score 2, bid 1.3, source beta; two viewed, none replied; Connects unknown.
  for (let i = 0; i < 4; i++) {
    const sentTs = TUESDAY_NOON + i * 1000;
    const cipher = await job("beta", sentTs - (i < 2 ? 2 * HOUR : 7 * HOUR));
    await sent(accountId, {
      jobCiphertext: cipher,
      processedAtTs: sentTs,
      feedId: go.id,
      score: 2,
      bidRatio: 1.3,
      ...(i < 2 ? { viewed: true, viewedAtTs: sentTs + MIN } : {}),
      ...(i === 3 ? { boostConnects: 4 } : {}),
    });
  }
  // One from the feed deleted since (score 4.5, bid 0.5, 30 minutes after publish), one from no feed (no publish time).
  await sent(accountId, {
    jobCiphertext: await job("gamma", TUESDAY_NOON + 10_000 - 30 * MIN),
    processedAtTs: TUESDAY_NOON + 10_000,
    feedId: gone.id,
    score: 4.5,
    bidRatio: 0.5,
  });
  await sent(accountId, { jobCiphertext: await job("gamma", null), processedAtTs: TUESDAY_NOON + 20_000, feedId: null, score: null, bidRatio: null });
  await feeds.deleteFeed(t.deps, auth, gone.id);
  return { rust, go, gone };
}

const close = (actual: number[] | null, expected: [number, number]) => {
  expect(actual).not.toBeNull();
  expect(actual![0]).toBeCloseTo(expected[0], 6);
  expect(actual![1]).toBeCloseTo(expected[1], 6);
};

const keys = (groups: FunnelGroup[]) => groups.map((g) => [g.key, g.sent]);

describe("wilson", () => {
  test("known intervals", () => {
    close(wilson(5, 10), [0.236593, 0.763407]);
    close(wilson(0, 10), [0, 0.277533]);
    close(wilson(10, 10), [0.722467, 1]);
    close(wilson(81, 263), [0.255289, 0.36621]);
    expect(wilson(0, 0)).toEqual([0, 1]);
    expect(() => wilson(3, 2)).toThrow(RangeError);
  });
});

describe("funnel analytics", () => {
  test("the total: stages implied by later ones, a hire later lost counted, costs, Wilson intervals", async () => {
    const { a, b, auth } = await setup();
    await seed(a.accountId, auth);
    const res = await funnel(a.apiKey);
    expect(res.status, show(res)).toBe(200);
    expect(res.body.groups).toEqual([]);
    const total = res.body.total;
    expect(total).toMatchObject({ key: "total", sent: 18, viewed: 10, replied: 8, interviews: 3, hires: 2, enough: true });
    expect(total.replyRate).toBeCloseTo(8 / 18, 10);
    close(total.replyRateCi95, [0.245595, 0.662836]);
    expect(total.hireRate).toBeCloseTo(2 / 18, 10);
    close(total.hireRateCi95, [0.03102, 0.327998]);
    // 12 × 10 Connects plus 3 × 5 boost; the Go proposals' boost is not counted, their submit cost unknown.
    expect(total).toMatchObject({ connectsSpent: 135, costUsd: 20.25, costPerReplyUsd: 2.53, costPerHireUsd: 10.13, valueUsd: 1000 });

    // Another account sees nothing of it.
    const other = await funnel(b.apiKey, "?groupBy=feed");
    expect(other.body, show(other)).toMatchObject({
      groups: [],
      total: { sent: 0, replyRate: null, replyRateCi95: null, costPerReplyUsd: null, enough: false },
    });
  });

  test("groupBy feed: titles, a deleted feed, no feed; fewer than 10 sent has no rates", async () => {
    const { a, auth } = await setup();
    const { rust, go, gone } = await seed(a.accountId, auth);
    const res = await funnel(a.apiKey, "?groupBy=feed");
    expect(res.status, show(res)).toBe(200);
    const [r, g, d, n] = res.body.groups as FunnelGroup[];
    expect(keys(res.body.groups)).toEqual([
      [rust.id, 12],
      [go.id, 4],
      [gone.id, 1],
      ["none", 1],
    ]);
    expect([r!.label, g!.label, d!.label, n!.label]).toEqual(["Rust", "Go", "deleted feed", "no feed"]);
    expect(r).toMatchObject({ viewed: 8, replied: 8, interviews: 3, hires: 2, enough: true, connectsSpent: 135, costUsd: 20.25, valueUsd: 1000 });
    expect(r!.replyRate).toBeCloseTo(8 / 12, 10);
    close(r!.replyRateCi95, [0.390622, 0.86188]);
    close(r!.hireRateCi95, [0.046965, 0.448031]);
    expect(g).toMatchObject({ viewed: 2, replied: 0, enough: false, replyRate: null, replyRateCi95: null, hireRate: null, hireRateCi95: null });
    expect(g).toMatchObject({ connectsSpent: 0, costUsd: 0, costPerReplyUsd: null, costPerHireUsd: null });
    expect(res.body.total.sent).toBe(18);

    // feedId narrows to the proposals credited to that feed.
    const only = await funnel(a.apiKey, `?feedId=${go.id}&groupBy=source`);
    expect(keys(only.body.groups), show(only)).toEqual([["beta", 4]]);
  });

  test("groupBy each fixed dimension gives its buckets in order", async () => {
    const { a, auth } = await setup();
    await seed(a.accountId, auth);
    const by = async (groupBy: string, extra = "") => {
      const res = await funnel(a.apiKey, `?groupBy=${groupBy}${extra}`);
      expect(res.status, show(res)).toBe(200);
      expect(res.body.total.sent).toBe(18);
      return res.body;
    };
    expect(keys((await by("source")).groups)).toEqual([
      ["alpha", 12],
      ["beta", 4],
      ["gamma", 2],
    ]);
    const bands = await by("scoreBand");
    expect(keys(bands.groups)).toEqual([
      ["0-2", 4],
      ["3-4", 1],
      ["7-8", 12],
      ["unscored", 1],
    ]);
    // The 0-2 band has 4 sent: too few to say it is worse.
    expect(bands.suggestion).toBeNull();
    expect(keys((await by("postAge")).groups)).toEqual([
      ["<15m", 12],
      ["15-60m", 1],
      ["1-6h", 2],
      [">6h", 2],
      ["unknown", 1],
    ]);
    expect(keys((await by("bidRatio")).groups)).toEqual([
      ["<0.8", 1],
      ["0.8-1.0", 6],
      ["1.0-1.2", 6],
      [">1.2", 4],
      ["unknown", 1],
    ]);
    const boost = await by("boost");
    expect(keys(boost.groups)).toEqual([
      ["boosted", 4],
      ["not boosted", 14],
    ]);
    expect(boost.groups[0].connectsSpent).toBe(45);
    expect(keys((await by("weekday")).groups)).toEqual([
      ["mon", 12],
      ["tue", 6],
    ]);
    // In New York, Monday 02:00 UTC is Sunday evening.
    expect(keys((await by("weekday", "&tz=America/New_York")).groups)).toEqual([
      ["tue", 6],
      ["sun", 12],
    ]);
    expect(keys((await by("freelancer")).groups)).toEqual([
      ["fl-a", 12],
      ["fl-b", 6],
    ]);
    // A freelancer the account's driver lists is labelled with its name.
    const listed = await t.request("GET", "/api/auto-apply-v2/freelancers", { key: a.apiKey });
    const me = listed.body.freelancers[0] as { id: string; name: string };
    await sent(a.accountId, { jobCiphertext: await job("alpha", null), processedAtTs: TUESDAY_NOON + 30_000, freelancerId: me.id });
    const named = (await funnel(a.apiKey, "?groupBy=freelancer")).body.groups as FunnelGroup[];
    expect(named.find((g) => g.key === me.id)).toMatchObject({ label: me.name, sent: 1 });
    expect(named.find((g) => g.key === "fl-a")?.label).toBeUndefined();
  });

  test("from is inclusive and to exclusive, on the send time", async () => {
    const { a, auth } = await setup();
    await seed(a.accountId, auth);
    const from = await funnel(a.apiKey, `?from=${TUESDAY_NOON}`);
    expect(from.body.total.sent, show(from)).toBe(6);
    const to = await funnel(a.apiKey, `?to=${TUESDAY_NOON}`);
    expect(to.body.total.sent, show(to)).toBe(12);
    const one = await funnel(a.apiKey, `?from=${TUESDAY_NOON}&to=${TUESDAY_NOON + 1}&groupBy=feed`);
    expect(one.body.total.sent, show(one)).toBe(1);
  });

  test("bad parameters are a 400 naming the field; another account's feed is a 404; no key is a 401", async () => {
    const { a, authB } = await setup();
    const theirs = await feeds.createFeed(t.deps, authB, { title: "theirs", minScore: 0 });
    for (const [query, field] of [
      ["?groupBy=colour", "groupBy"],
      ["?from=soon", "from"],
      ["?to=-1", "to"],
      ["?from=10&to=10", "from"],
      ["?tz=Mars/Olympus_Mons", "tz"],
      [`?feedId=${"x".repeat(101)}`, "feedId"],
    ] as const) {
      const res = await funnel(a.apiKey, query);
      expect(res.status, `${query}: ${show(res)}`).toBe(400);
      expect(res.body.error, query).toContain(field);
      const csv = await t.request("GET", `${LEDGER}${query}`, { key: a.apiKey });
      if (field !== "groupBy" && field !== "tz") expect(csv.status, `${query}: ${show(csv)}`).toBe(400);
    }
    const foreign = await funnel(a.apiKey, `?feedId=${theirs.id}`);
    expect(foreign.status, show(foreign)).toBe(404);
    expect(foreign.body.error).toBe("Feed not found");
    const foreignCsv = await t.request("GET", `${LEDGER}?feedId=${theirs.id}`, { key: a.apiKey });
    expect(foreignCsv.status).toBe(404);
    expect(foreignCsv.body.error).toBe("Feed not found");
    expect((await funnel("")).status).toBe(401);
    expect((await t.request("GET", LEDGER)).status).toBe(401);
  });
});

describe("suggestMinScore", () => {
  const band = (key: string, sent: number, replied: number) =>
    groupOf(key, { sent, viewed: replied, replied, interviews: 0, hires: 0, connectsSpent: sent * 10, valueUsd: 0 }, 0.15);

  test("suggests the highest cut below which every band is clearly worse than all scored proposals", () => {
    // All scored: 20 of 80 (25 %, CI 16.8–35.5 %); 0-2: 0 of 40 (CI 0–8.8 %): clearly worse.
    const suggestion = suggestMinScore([band("0-2", 40, 0), band("7-8", 40, 20), band("unscored", 50, 0)]);
    expect(suggestion?.minScore).toBe(7);
    expect(suggestion?.reason).toContain("below 7");
    expect(suggestion?.reason).toContain("0 of 40");
    expect(suggestion?.reason).toContain("400 Connects");
  });

  test("a cut also needs every band below it to be worse: a good middle band stops at it", () => {
    expect(suggestMinScore([band("0-2", 40, 0), band("5-6", 40, 20), band("9-10", 40, 20)])?.minScore).toBe(5);
  });

  test("null when the low bands are too small, not clearly worse, or nothing would be kept", () => {
    expect(suggestMinScore([band("0-2", 9, 0), band("7-8", 40, 20)])).toBeNull();
    expect(suggestMinScore([band("0-2", 40, 8), band("7-8", 40, 12)])).toBeNull();
    expect(suggestMinScore([band("0-2", 40, 0), band("9-10", 5, 5)])).toBeNull();
    expect(suggestMinScore([band("7-8", 40, 20)])).toBeNull();
    expect(suggestMinScore([])).toBeNull();
  });
});

describe("weekday offsets", () => {
  test("a zone's daylight-saving changes become segments at the minute they happen", () => {
    const segments = offsetSegments("Europe/Berlin", Date.UTC(2026, 0, 1), Date.UTC(2026, 11, 31));
    expect(segments).toEqual([
      { startTs: Date.UTC(2026, 0, 1), offsetMs: HOUR },
      { startTs: Date.UTC(2026, 2, 29, 1), offsetMs: 2 * HOUR },
      { startTs: Date.UTC(2026, 9, 25, 1), offsetMs: HOUR },
    ]);
  });
});

describe("ledger.csv", () => {
  test("one row per sent proposal with RFC 4180 quoting and formulas neutralised", async () => {
    const { a, b, auth } = await setup();
    const feed = await feeds.createFeed(t.deps, auth, { title: 'Data, "big"', minScore: 0, includes: ["nomatch"] });
    const title = '=HYPERLINK("http://evil.example","click"), now';
    const cipher = await job("alpha", MONDAY_2AM - 90 * MIN, { title });
    const id = await sent(a.accountId, {
      jobCiphertext: cipher,
      processedAtTs: MONDAY_2AM,
      feedId: feed.id,
      score: 7,
      bidRatio: 2 / 3,
      boostBids: 3,
      connectsRequired: 12,
      boostConnects: 3,
      repliedAtTs: MONDAY_2AM + HOUR,
      replied: true,
      hiredAtTs: MONDAY_2AM + 2 * HOUR,
      outcome: "hired",
      outcomeAtTs: MONDAY_2AM + 2 * HOUR,
      valueUsd: 2500,
    });
    // An older one, never answered: no_reply, worked out as the funnel does.
    const older = await sent(a.accountId, { jobCiphertext: await job("beta", null), processedAtTs: MONDAY_2AM - 30 * 24 * HOUR });
    await sent(b.accountId, { jobCiphertext: await job("beta", null), processedAtTs: MONDAY_2AM });
    // Never sent: no row.
    await sent(a.accountId, { jobCiphertext: await job("beta", null), processedAtTs: MONDAY_2AM, status: "failed" });

    const res = await t.request("GET", LEDGER, { key: a.apiKey });
    expect(res.status, show(res)).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="jobpilot-ledger.csv"');
    const lines = res.text.split("\r\n");
    expect(lines[0]).toBe(
      "queueId,sentAt,jobTitle,jobUrl,source,feed,freelancer,score,postAgeMinutes,bidRatio,boosted,viewedAt,repliedAt,interviewAt,hiredAt,outcome,outcomeAt,valueUsd,connectsRequired,boostConnects,connectsCostUsd",
    );
    expect(lines).toHaveLength(4); // header, two rows, and the empty string after the last CRLF
    expect(lines[3]).toBe("");
    expect(lines[1]!.startsWith(`${older},${new Date(MONDAY_2AM - 30 * 24 * HOUR).toISOString()},`)).toBe(true);
    expect(lines[1]).toContain(",no_reply,");
    // Stage times as recorded (the funnel's): viewedAt stays empty though the reply implies it.
    expect(lines[2]).toBe(
      `${id},2026-01-12T02:00:00.000Z,"'=HYPERLINK(""http://evil.example"",""click""), now",https://www.upwork.com/jobs/${cipher},` +
        `alpha,"Data, ""big""",fl-b,7,90,0.6667,true,,2026-01-12T03:00:00.000Z,,2026-01-12T04:00:00.000Z,hired,2026-01-12T04:00:00.000Z,2500,12,3,2.25`,
    );

    const filtered = await t.request("GET", `${LEDGER}?feedId=${feed.id}&from=${MONDAY_2AM}`, { key: a.apiKey });
    expect(filtered.text.split("\r\n").filter(Boolean), show(filtered)).toHaveLength(2);
    const theirs = await t.request("GET", LEDGER, { key: b.apiKey });
    expect(theirs.text.split("\r\n").filter(Boolean)).toHaveLength(2);
  });

  test("a ledger longer than a page comes out whole, each proposal once, though all were sent at the same instant", async () => {
    const { a } = await setup();
    const docs = Array.from({ length: 503 }, () => makeDoc());
    await ingestDocuments(t.deps, docs, { source: "alpha" });
    const ids = new Set<string>();
    await tx(t.deps.db, async (db) => {
      for (const doc of docs) {
        const id = newId();
        ids.add(id);
        const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
        await repo.insertApplication(db, {
          ...LEDGER_ROW,
          id,
          accountId: a.accountId,
          jobCiphertext: cipher,
          appliedAtTs: MONDAY_2AM,
          processedAtTs: MONDAY_2AM,
          source: "alpha",
        });
      }
    });
    const res = await t.request("GET", LEDGER, { key: a.apiKey });
    const rows = res.text.split("\r\n").slice(1, -1);
    expect(rows).toHaveLength(503);
    expect(new Set(rows.map((r) => r.split(",")[0]))).toEqual(ids);
  }, 20_000);

  test("csvCell quotes what RFC 4180 needs and neutralises formula starts", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("a\nb")).toBe('"a\nb"');
    expect(csvCell("+1 555")).toBe("'+1 555");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("=1,2")).toBe(`"'=1,2"`);
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell(null)).toBe("");
    expect(csvCell(true)).toBe("true");
  });
});

describe("apply-time facts", () => {
  test("apply records the feed applied from (or the best match), its score and the bid ratio", async () => {
    const { a, auth } = await setup();
    // Archived before any feed exists: it matches none.
    const unmatched = await job("alpha", Date.UTC(2026, 0, 31), { hourly: [30, 60] });
    const low = await feeds.createFeed(t.deps, auth, { title: "low", minScore: 0 });
    const high = await feeds.createFeed(t.deps, auth, { title: "high", minScore: 0 });
    const hourly = await job("alpha", Date.UTC(2026, 0, 31), { hourly: [30, 60] });
    const fixed = await job("alpha", Date.UTC(2026, 0, 31), { fixed: 500 });
    const tied = await job("alpha", Date.UTC(2026, 0, 31), { hourly: [40, 40] });
    const { feedJobs } = tables(t.deps.db);
    const entry = async (feedId: string, cipher: string) => (await matchesOfJob(t.deps.db, a.accountId, cipher)).find((m) => m.feedId === feedId)!.id;
    // Feed "high" scored the hourly and fixed jobs 7; the tie on the third job goes to the earlier match ("low").
    for (const cipher of [hourly, fixed]) {
      await exec(
        t.deps.db,
        t.deps.db
          .update(feedJobs)
          .set({ matchingScore: 7 })
          .where(and(eq(feedJobs.feedId, high.id), eq(feedJobs.jobCiphertext, cipher))),
      );
    }
    await exec(
      t.deps.db,
      t.deps.db
        .update(feedJobs)
        .set({ matchedAtTs: t.clock.now() - MIN })
        .where(and(eq(feedJobs.feedId, low.id), eq(feedJobs.jobCiphertext, tied))),
    );

    const apply = async (jobId: string, proposal: Record<string, number>) => {
      const res = await t.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId, coverLetter: "Hello, I can help.", proposal } });
      expect(res.status, show(res)).toBe(200);
      return (await repo.findApplication(t.deps.db, res.body.queueId))!;
    };
    const best = await apply(hourly, { hourlyRate: 45 });
    expect([best.feedId, best.score, best.bidRatio]).toEqual([high.id, 7, 0.75]);
    // The job's source and publish time travel with the application, so analytics reads no job row.
    expect([best.source, best.publishTimeTs]).toEqual(["alpha", Date.UTC(2026, 0, 31)]);
    const onFixed = await apply(fixed, { fixedBid: 600 });
    expect([onFixed.feedId, onFixed.score, onFixed.bidRatio]).toEqual([high.id, 7, 1.2]);
    const onTie = await apply(tied, { hourlyRate: 20 });
    expect([onTie.feedId, onTie.score, onTie.bidRatio]).toEqual([low.id, 5, 0.5]);
    const none = await apply(unmatched, {});
    // Default hourly bid: the budget's low end (30) over its top (60).
    expect([none.feedId, none.score, none.bidRatio]).toEqual([null, null, 0.5]);

    // Applied from a feed's entry (as a Telegram alert does): that feed, though another scored the job higher.
    const other = await job("alpha", Date.UTC(2026, 0, 31), { fixed: 0 });
    await exec(
      t.deps.db,
      t.deps.db
        .update(feedJobs)
        .set({ matchingScore: 9 })
        .where(and(eq(feedJobs.feedId, high.id), eq(feedJobs.jobCiphertext, other))),
    );
    const fromLow = await apply(await entry(low.id, other), { fixedBid: 300 });
    // The budget is unknown (zero): no ratio.
    expect([fromLow.feedId, fromLow.score, fromLow.bidRatio]).toEqual([low.id, 5, null]);
  });
});
