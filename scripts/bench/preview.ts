/**
 * bun run bench:preview — how fast POST /api/v1/feeds/preview answers over a large archive (issue 45: within
 * 1 s on 100,000 archived jobs).
 *
 * Fills a file database with sandbox jobs first seen over the last 30 days (evenly), then times the preview
 * through the app (app.handle, no network) for:
 *   - typical: a feed with includes, excludes, an hourly floor and a prompt, over 7 days;
 *   - broad:   a feed with one common include word and a prompt, over 30 days;
 *   - worst:   no keywords and no filters, with a prompt, over 30 days (every job of the window through the
 *              filters; the newest 500 scored).
 * Each beside a same-run baseline: a bare SELECT count(*) over the same window. p50/p90 over the rounds.
 *
 * Options: --jobs N (default 100000) --rounds N (default 7) --database-url postgres://… (default a SQLite file)
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../../src/config";
import { createApp } from "../../src/app";
import { closeDeps, createDeps } from "../../src/deps";
import { ManualClock } from "../../src/lib/clock";
import { createLogger } from "../../src/lib/log";
import { createAccount } from "../../src/modules/accounts/service";
import { archiveColumns } from "../../src/modules/jobs/archive";
import { normalizeJob } from "../../src/modules/jobs/normalize";
import { insertJobs, type JobInsert } from "../../src/modules/jobs/repo";
import { tx } from "../../src/db/client";
import { countInWindow } from "../../src/modules/jobs/preview-read";
import { generateJob } from "../../src/sources/sandbox/generator";
import { benchStore, checkpointThreadReady, storeConfig } from "./cluster";
import { writeSummary } from "./summary";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { jobs: { type: "string" }, rounds: { type: "string" }, "database-url": { type: "string" }, help: { type: "boolean", short: "h" } },
});
if (values.help) {
  console.log("Usage: bun run bench:preview [--jobs N] [--rounds N] [--database-url postgres://USER@HOST:PORT/DB]");
  process.exit(0);
}
const JOBS = Number(values.jobs ?? 100_000);
const ROUNDS = Number(values.rounds ?? 7);
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1, 12);
const BATCH = 1000;

const store = await benchStore("preview", values["database-url"]);
const clock = new ManualClock(T0);
const log = createLogger({ level: "warn", write: () => {} });
const { deps } = await createDeps({ ...loadConfig({}), ...storeConfig(store) }, { clock, log });
await checkpointThreadReady(deps.db);
const created = await createAccount(deps, { name: "bench" });
const app = createApp(deps);

console.log(`archiving ${JOBS} sandbox jobs over 30 days (${store.label}) …`);
let t = performance.now();
// Straight into the archive (the columns as archive.ts writes them, with the empty signals list most jobs carry;
// a stored column after the document costs a read its overflow pages): ingesting 100,000 jobs through intake
// would take minutes, and the preview reads only what is archived.
for (let i = 0; i < JOBS; i += BATCH) {
  const at = T0 - 30 * DAY + Math.floor(((i + BATCH / 2) / JOBS) * 30 * DAY);
  const rows: JobInsert[] = [];
  for (let k = i; k < Math.min(i + BATCH, JOBS); k++) {
    const doc = generateJob({ seed: 45, index: k, nowTs: at });
    const n = normalizeJob(doc);
    if (!n.ok) continue;
    const j = n.job;
    rows.push({
      ciphertext: j.ciphertext,
      ...archiveColumns(j, "bench"),
      signals: [],
      document: doc as unknown as Record<string, unknown>,
      firstSeenAtTs: at,
      exploredAtTs: at,
      updatedAtTs: at,
    });
  }
  await tx(deps.db, (db) => insertJobs(db, rows));
}
clock.set(T0);
console.log(`  archived in ${((performance.now() - t) / 1000).toFixed(1)} s`);

const prompt = "Senior React/TypeScript developer, 8 years, fintech dashboards, prefers long-term hourly work, no WordPress";
const cases = [
  {
    name: "typical",
    body: {
      title: "React",
      minScore: 5,
      profilePrompt: prompt,
      includes: ["react", "typescript", "next.js"],
      excludes: ["wordpress"],
      minHourlyRate: 30,
      days: 7,
    },
  },
  { name: "broad", body: { title: "Developers", minScore: 5, profilePrompt: prompt, includes: ["developer"], days: 30 } },
  { name: "worst", body: { title: "Everything", minScore: 0, profilePrompt: prompt, days: 30 } },
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const figures: Record<string, number> = {};
for (const c of cases) {
  const request = () =>
    app.handle(
      new Request("http://localhost/api/v1/feeds/preview", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": created.apiKey },
        body: JSON.stringify(c.body),
      }),
    );
  const first = await request(); // warm-up, and the figures shown
  if (first.status !== 200) throw new Error(`${c.name}: ${first.status} ${await first.text()}`);
  const shown = (await first.json()) as { total: number; passed: number; scored: number; matched: number; droppedBy: Record<string, number> };
  const times: number[] = [];
  const baseline: number[] = [];
  const window = { sinceTs: T0 - c.body.days * DAY, untilTs: T0 + 1 };
  for (let r = 0; r < ROUNDS; r++) {
    t = performance.now();
    await countInWindow(deps.db, window);
    baseline.push(performance.now() - t);
    t = performance.now();
    const res = await request();
    await res.arrayBuffer();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  baseline.sort((a, b) => a - b);
  const [p50, p90] = [percentile(times, 0.5), percentile(times, 0.9)];
  console.log(
    `\n${c.name} (${c.body.days} days: ${shown.total} jobs in the window, ${shown.passed} through the filters, ${shown.scored} scored, ${shown.matched} matched; dropped ${JSON.stringify(shown.droppedBy)})`,
  );
  console.log(`  preview: p50 ${p50.toFixed(0)} ms, p90 ${p90.toFixed(0)} ms   (goal: typical < 1000 ms)`);
  console.log(`  baseline SELECT count(*) over the window: p50 ${percentile(baseline, 0.5).toFixed(1)} ms`);
  figures[`${c.name}P50Ms`] = Math.round(p50);
  figures[`${c.name}P90Ms`] = Math.round(p90);
}
await writeSummary("preview", figures);
await closeDeps(deps);
await store.remove();
