/**
 * bun run scripts/bench/analytics.ts — GET /api/v1/analytics/funnel over a large ledger: 100,000 sent proposals
 * of one account (and a few thousand of another, which must not slow it down), through the real app in this
 * process (auth, rate limit, validation, the SQL, the JSON), on a SQLite file and, when
 * JOBPILOT_TEST_DATABASE_URL (or --database-url) names a PostgreSQL server, on a fresh database there.
 *
 * For the total and each groupBy: the median (and worst) of --runs requests. Then the whole ledger.csv once,
 * streamed, with its row count checked. Goal: every funnel answer < 200 ms.
 *
 * Options: --apps N (default 100000) --other N (default 3000) --runs N (default 7) --database-url postgres://…
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { isPg, pgPool, rawInsertCount, rawMany } from "../../src/db/query";
import { closeDeps, createDeps } from "../../src/deps";
import { ManualClock } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { createLogger } from "../../src/lib/log";
import { createAccount } from "../../src/modules/accounts/service";
import { FUNNEL_GROUP_BY } from "../../src/modules/analytics/model";
import { createFeed } from "../../src/modules/feeds/service";
import { benchStore, storeConfig } from "./cluster";
import { writeSummary } from "./summary";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    apps: { type: "string" },
    other: { type: "string" },
    runs: { type: "string" },
    "database-url": { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log("Usage: bun run scripts/bench/analytics.ts [--apps N] [--other N] [--runs N] [--database-url postgres://…]");
  process.exit(0);
}
const APPS = Number(values.apps ?? 100_000);
const OTHER = Number(values.other ?? 3000);
const RUNS = Number(values.runs ?? 7);
const GOAL_MS = 200;
const pgUrl = values["database-url"] ?? process.env.JOBPILOT_TEST_DATABASE_URL?.trim();

// A small seeded PRNG so every run builds the same ledger.
let seed = 11;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;

const NOW = Date.UTC(2026, 11, 1);
const YEAR_MS = 365 * 86_400_000;
const SOURCES = ["sandbox", "push", "capture", "marketplace-api", "rss"];
/** A cover letter of a realistic length (~1,500 characters): the rows the query reads are as wide as real ones. */
/** A job document of a modest size (real ones run 5–20 kB): the job rows are read for source and publish time. */
const DOCUMENT = JSON.stringify({ description: "Build and maintain a service. ".repeat(70) });
const LETTER = "Hello, I have built this kind of system several times and can start this week. ".repeat(19);

type Timing = { key: string; medianMs: number; worstMs: number };

async function run(label: string, databaseUrl?: string): Promise<{ label: string; timings: Timing[]; ledgerMs: number; ledgerRows: number }> {
  const store = await benchStore("analytics", databaseUrl);
  const clock = new ManualClock(NOW);
  const config = { ...loadConfig({}), ...storeConfig(store), localAiThreads: 0, sources: "none" };
  const { deps } = await createDeps(config, { clock, log: createLogger({ level: "warn", write: () => {} }), secretKey: "bench-secret-key-0123456789abcdef" });
  try {
    const app = createApp(deps);
    const mine = await createAccount(deps, { name: "bench", credits: 0 });
    const theirs = await createAccount(deps, { name: "other", credits: 0 });
    const auth = { accountId: mine.account.id } as Parameters<typeof createFeed>[1];
    const feedIds: string[] = [];
    for (let i = 0; i < 8; i++) feedIds.push((await createFeed(deps, auth, { title: `feed ${i}`, minScore: 0 })).id);

    console.log(`${label}: seeding ${APPS.toLocaleString("en-US")} + ${OTHER.toLocaleString("en-US")} sent proposals …`);
    const seedStart = performance.now();
    const jobRows: unknown[][] = [];
    const publish: number[] = [];
    // Jobs archived in the order they were published (marketplace ids, and so ciphertexts, grow with time too).
    for (let i = 0; i < APPS; i++) publish.push(NOW - Math.floor(rand() * YEAR_MS));
    publish.sort((x, y) => x - y);
    for (let i = 0; i < APPS; i++) {
      const publishTs = publish[i]!;
      const cipher = `~02bench${i.toString().padStart(9, "0")}`;
      jobRows.push([
        cipher,
        "marketplace",
        `Job ${i}`,
        `https://example.test/jobs/${cipher}`,
        false,
        rand() < 0.05 ? null : publishTs,
        pick(SOURCES),
        DOCUMENT,
        publishTs,
        publishTs,
        publishTs,
      ]);
    }
    await rawInsertCount(
      deps.db,
      "bench.jobs",
      {
        head: "INSERT INTO jobs (ciphertext, platform, title, url, email_found, publish_time_ts, source, document, first_seen_at_ts, explored_at_ts, updated_at_ts)",
        row: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      },
      jobRows,
    );
    const appRow = (accountId: string, i: number) => {
      const sentTs = publish[i]! + Math.floor(rand() * 12 * 3_600_000);
      const replied = rand() < 0.15;
      const interview = replied && rand() < 0.4;
      const hired = interview && rand() < 0.4;
      const boost = rand() < 0.2 ? 5 : 0;
      return [
        newId(),
        accountId,
        `~02bench${i.toString().padStart(9, "0")}`,
        "sandbox",
        `fl-${i % 3}`,
        `pr-${i % 3}`,
        "applied",
        "done",
        false,
        LETTER,
        rand() < 0.6 ? 40 : null,
        "1 to 3 months",
        boost,
        "[]",
        false,
        "[]",
        sentTs - 1000,
        sentTs,
        rand() < 0.5 ? sentTs + 3_600_000 : null,
        replied ? sentTs + 7_200_000 : null,
        replied,
        interview ? sentTs + 86_400_000 : null,
        hired ? sentTs + 2 * 86_400_000 : null,
        hired ? rand() * 5000 : null,
        rand() < 0.9 ? pick([8, 12, 16]) : null,
        boost,
        rand() < 0.1 ? null : pick(feedIds),
        rand() < 0.1 ? null : Math.floor(rand() * 11),
        rand() < 0.1 ? null : 0.5 + rand(),
        // The job's source and publish time, copied at apply time as the apply path does.
        jobRows[i]![6],
        jobRows[i]![5],
      ];
    };
    const appSql = {
      head: "INSERT INTO applications (id, account_id, job_ciphertext, driver, freelancer_id, profile_id, status, phase, credit_held, cover_letter, hourly_rate, timeline, boost_bids, answers, auto_fill, explicit_positions, applied_at_ts, processed_at_ts, viewed_at_ts, replied_at_ts, replied, interview_at_ts, hired_at_ts, value_usd, connects_required, boost_connects, feed_id, score, bid_ratio, source, publish_time_ts)",
      row: `(${Array(31).fill("?").join(", ")})`,
    };
    const rows: unknown[][] = [];
    for (let i = 0; i < APPS; i++) rows.push(appRow(mine.account.id, i));
    for (let i = 0; i < OTHER; i++) rows.push(appRow(theirs.account.id, i));
    // Written in the order they were sent, as a real ledger grows (the table's order then follows the send time).
    rows.sort((x, y) => (x[17] as number) - (y[17] as number));
    await rawInsertCount(deps.db, "bench.applications", appSql, rows);
    // A database that has been in use has its statistics (autovacuum's ANALYZE on PostgreSQL); a fresh bulk load has none.
    if (isPg(deps.db)) await pgPool(deps.db).unsafe("ANALYZE applications; ANALYZE jobs");
    console.log(`  seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

    const get = async (path: string) => {
      const res = await app.handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": mine.apiKey } }));
      if (res.status !== 200) throw new Error(`${path} → ${res.status}: ${await res.text()}`);
      return res;
    };
    const timings: Timing[] = [];
    for (const groupBy of [undefined, ...FUNNEL_GROUP_BY]) {
      const path = `/api/v1/analytics/funnel${groupBy ? `?groupBy=${groupBy}` : ""}`;
      const took: number[] = [];
      for (let r = 0; r < RUNS + 1; r++) {
        const started = performance.now();
        const body = (await (await get(path)).json()) as { total: { sent: number } };
        // The first run warms the statement cache and the pages; it is not counted.
        if (r > 0) took.push(performance.now() - started);
        if (body.total.sent !== APPS) throw new Error(`${path}: total.sent ${body.total.sent}, expected ${APPS}`);
      }
      took.sort((x, y) => x - y);
      timings.push({ key: groupBy ?? "(total only)", medianMs: took[Math.floor(took.length / 2)]!, worstMs: took[took.length - 1]! });
    }
    // The floor on this machine at this moment: reading the same rows and nothing else (no bucket, no sums, no HTTP).
    const bare: number[] = [];
    for (let r = 0; r < RUNS + 1; r++) {
      const started = performance.now();
      await rawMany(
        deps.db,
        "bench.count",
        "SELECT COUNT(*) AS n, SUM(CASE WHEN hired_at_ts IS NOT NULL THEN 1 ELSE 0 END) AS h FROM applications WHERE account_id = ? AND status = 'applied' AND processed_at_ts IS NOT NULL",
        [mine.account.id],
      );
      if (r > 0) bare.push(performance.now() - started);
    }
    bare.sort((x, y) => x - y);
    timings.push({ key: "baseline: bare COUNT and one SUM over the same rows", medianMs: bare[Math.floor(bare.length / 2)]!, worstMs: bare[bare.length - 1]! });
    const tz = performance.now();
    await (await get("/api/v1/analytics/funnel?groupBy=weekday&tz=Europe/Berlin")).json();
    timings.push({ key: "weekday, tz=Europe/Berlin (once)", medianMs: performance.now() - tz, worstMs: performance.now() - tz });

    const ledgerStart = performance.now();
    const text = await (await get("/api/v1/analytics/ledger.csv")).text();
    const ledgerMs = performance.now() - ledgerStart;
    const ledgerRows = text.split("\r\n").length - 2;
    if (ledgerRows !== APPS) throw new Error(`ledger.csv: ${ledgerRows} rows, expected ${APPS}`);
    return { label, timings, ledgerMs, ledgerRows };
  } finally {
    await closeDeps(deps);
    await store.remove();
  }
}

const loadBefore = loadavg()[0]!;
const results = [await run("SQLite (file)")];
if (pgUrl) results.push(await run("PostgreSQL", pgUrl));
else console.log("(PostgreSQL skipped: set JOBPILOT_TEST_DATABASE_URL or --database-url)");

const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
console.log(`\n━━ analytics funnel: ${APPS.toLocaleString("en-US")} sent proposals (+ ${OTHER.toLocaleString("en-US")} of another account), median of ${RUNS}`);
console.log(`| groupBy | ${results.map((r) => r.label).join(" | ")} |`);
console.log(`|---|${results.map(() => "---|").join("")}`);
for (let i = 0; i < results[0]!.timings.length; i++) {
  const cells = results.map((r) => {
    const t = r.timings[i]!;
    const mark = t.key.startsWith("baseline") ? "" : t.medianMs < GOAL_MS ? " ✓" : " ✗";
    return `${ms(t.medianMs)} (worst ${ms(t.worstMs)})${mark}`;
  });
  console.log(`| ${results[0]!.timings[i]!.key} | ${cells.join(" | ")} |`);
}
console.log(`| ledger.csv, all ${APPS.toLocaleString("en-US")} rows | ${results.map((r) => ms(r.ledgerMs)).join(" | ")} |`);
console.log(
  `\ngoal: every funnel answer < ${GOAL_MS} ms; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (2 cores shared with other work inflate every figure)`,
);
const worstMedian = (r: (typeof results)[number]) => Math.max(...r.timings.filter((t) => !t.key.startsWith("baseline")).map((t) => t.medianMs));
await writeSummary("analytics", {
  apps: APPS,
  sqliteWorstMedianMs: worstMedian(results[0]!),
  ...(results[1] ? { pgWorstMedianMs: worstMedian(results[1]) } : {}),
  sqliteLedgerMs: results[0]!.ledgerMs,
});
