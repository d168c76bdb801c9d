/**
 * bun run bench:all — every figure of the performance goals in one run, with modest sizes, and one table of
 * them beside their goals and the same run's baselines (bare bun:sqlite, bare fetch, bare Bun.serve).
 *
 * Runs, one after the other as child processes (their own output streams through): baseline.ts, bench:match
 * (ingest with 1,000 feeds), bench:webhooks, bench (HTTP, wrk when on PATH) and memory.ts (the compiled
 * binary: RSS after ingesting --jobs jobs and delivering their webhooks, RSS at the peak of mixed bursts,
 * time to answer /healthz after start) and analytics.ts (the funnel over 100,000 sent proposals; PostgreSQL
 * too when JOBPILOT_TEST_DATABASE_URL is set). Each hands its figures back through BENCH_SUMMARY. The table is
 * Markdown, ready for the README's "Performance" section. About 4–5 minutes on a 2-core machine.
 *
 * Options: --jobs N (memory: jobs ingested, default 5000 to keep the run near 5 minutes; the goal is stated for 50000)
 *          --seconds N --rounds N (HTTP: per round, default 3 and 3) --skip a,b (baseline, match, webhooks, http, memory, analytics)
 */
import { cpus, loadavg, totalmem, tmpdir } from "node:os";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type CpuTime, cpuTotal, ratioText } from "./summary";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    jobs: { type: "string" },
    seconds: { type: "string" },
    rounds: { type: "string" },
    skip: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log("Usage: bun run bench:all [--jobs N] [--seconds N] [--rounds N] [--skip baseline,match,webhooks,http,memory,analytics]");
  process.exit(0);
}
const JOBS = values.jobs ?? "5000";
const skip = new Set((values.skip ?? "").split(",").filter(Boolean));
const dir = mkdtempSync(join(tmpdir(), "jp-bench-all-"));
const summaryFile = join(dir, "summary.json");
const root = join(import.meta.dir, "../..");

const steps: [string, string[]][] = [
  ["baseline", ["scripts/bench/baseline.ts"]],
  ["match", ["scripts/bench/match.ts", "--feeds", "2000", "--jobs", "300", "--ingest-jobs", "3000", "--ingest-feeds", "1000"]],
  ["webhooks", ["scripts/bench/webhooks.ts", "--latency-jobs", "200", "--burst-jobs", "300"]],
  ["http", ["scripts/bench/http.ts", "--seconds", values.seconds ?? "3", "--rounds", values.rounds ?? "3"]],
  ["memory", ["scripts/bench/memory.ts", "--jobs", JOBS]],
  ["analytics", ["scripts/bench/analytics.ts", "--runs", "5"]],
];
// Every benchmark runs with the caller's engine settings (BUN_JSC_*, passed on as they are): the engine's defaults
// unless set, e.g. the systemd unit's options (lib/engine-tuning.ts) to measure what a service runs with.
const started = performance.now();
// Other work on the machine shows in every figure: the table names the load average before and after.
const loadBefore = loadavg()[0]!;
try {
  for (const [name, args] of steps) {
    if (skip.has(name)) continue;
    console.log(`\n━━ ${name}: bun run ${args.join(" ")}`);
    const proc = Bun.spawn([process.execPath, "run", ...args], {
      cwd: root,
      env: { ...process.env, BENCH_SUMMARY: summaryFile },
      stdout: "inherit",
      stderr: "inherit",
    });
    if ((await proc.exited) !== 0) console.log(`(${name} failed: exit ${proc.exitCode}; its figures are missing below)`);
  }
  const s = (existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, "utf8")) : {}) as Record<string, Record<string, any>>;
  printTable(s, (performance.now() - started) / 1000);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function printTable(s: Record<string, Record<string, any>>, took: number) {
  const n = (v: unknown, digits = 0) =>
    typeof v === "number" && Number.isFinite(v) ? v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "–";
  const ms = (v: unknown) => (typeof v === "number" ? `${n(v, v < 10 ? 1 : 0)} ms` : "–");
  const mark = (ok: boolean | undefined) => (ok === undefined ? "" : ok ? " ✓" : " ✗");
  const { baseline: b = {}, match = {}, webhooks: w = {}, http = {}, memory: m = {}, analytics: an = {} } = s;
  const rows: string[][] = [];
  rows.push([
    "`bench:match` ingest, 1,000 feeds",
    `${n(match.ingestJobsPerSec)} jobs/s${mark(match.ingestJobsPerSec === undefined ? undefined : match.ingestJobsPerSec >= 1500)}`,
    `bare SQLite ${n(b.sqliteJobsPerSec)} jobs/s (1 + 20 rows a job)`,
    "≥ 1,500 jobs/s",
  ]);
  rows.push([
    `\`bench:webhooks\` ingest → webhook received, ${n(w.feeds)} feeds`,
    `p50 ${ms(w.latencyP50Ms)}, p99 ${ms(w.latencyP99Ms)}${mark(w.latencyP99Ms === undefined ? undefined : w.latencyP99Ms < 25)} (${n(w.latencyJobs)} jobs; the process's first job, apart: ${ms(w.firstJobMs)})`,
    `bare commit p99 ${ms(b.commitP99Ms)} + bare POST p99 ${ms(b.postP99Ms)}`,
    "p99 < 25 ms",
  ]);
  rows.push([
    "`bench:webhooks` burst deliveries",
    `${n(w.deliveriesPerSec)}/s${mark(w.deliveriesPerSec === undefined ? undefined : w.deliveriesPerSec >= 1000)}`,
    `bare fetch ${n(b.postsPerSec)} POSTs/s (64 in flight)`,
    "≥ 1,000/s",
  ]);
  const routes = (http.routes ?? {}) as Record<string, { rps: number; bareRps: number; ratio: number; goal: number }>;
  const label: Record<string, string> = {
    "/api/v1/account": "`GET /api/v1/account` (auth + rate limit)",
    "/api/v1/feeds": "`GET /api/v1/feeds` (empty list)",
    "/healthz": "`/healthz`",
  };
  const cpuPerRequest = (http.cpuPerRequestUs ?? {}) as Record<string, { ours: CpuTime; bare: CpuTime }>;
  const cpuText = (c: CpuTime) => `${n(cpuTotal(c))} µs (user ${n(c.user)})`;
  for (const [path, r] of Object.entries(routes)) {
    const c = cpuPerRequest[path];
    rows.push([
      `${label[path] ?? path}, ${http.client} ${http.connections} connections`,
      `${n(r.rps)} req/s = ${ratioText(r.ratio)} × bare${mark(r.ratio >= r.goal)}${c ? `; server CPU a request ${cpuText(c.ours)}` : ""}`,
      `bare \`Bun.serve\` ${n(r.bareRps)} req/s${c ? `; ${cpuText(c.bare)}` : ""}`,
      `≥ ${n(r.goal, 1)} × bare`,
    ]);
  }
  rows.push([
    `RSS after ingesting ${n(m.jobs)} jobs, 1,000 feeds, webhooks delivered (${n(m.webhooks)})`,
    `${n(m.afterIngestMiB)} MiB${mark(m.afterIngestMiB === undefined ? undefined : m.afterIngestMiB < 150)}`,
    `idle after start ${n(m.idleAfterStartMiB)} MiB`,
    "< 150 MiB (at 50,000 jobs)",
  ]);
  rows.push([
    "RSS after mixed bursts (3 × 400 jobs + 1,600 requests)",
    `${n(m.burstEndsMiB)} MiB${mark(m.burstEndsMiB === undefined ? undefined : m.burstEndsMiB < 250)}`,
    `peak ${n(m.burstPeakMiB)} MiB, idle after ${n(m.idleAfterBurstsMiB)} MiB` +
      (m.composedRssMiB === undefined
        ? ""
        : `; near the peak ${n(m.composedRssMiB)} MiB = executable ${n(m.composedExecutableMiB)} + JS heap ${n(m.composedHeapMiB)} + native ${n(m.composedNativeMiB)} (${n(m.composedExternalMiB)} of it held by JS objects)`),
    "< 250 MiB",
  ]);
  rows.push([
    "compiled binary: `/healthz` answered after start, existing database",
    `${ms(m.startupMedianMs)} (worst of 3: ${ms(m.startupWorstMs)})${mark(m.startupMedianMs === undefined ? undefined : m.startupMedianMs < 200)}`,
    "",
    "< 200 ms",
  ]);
  rows.push([
    `\`GET /api/v1/analytics/funnel\`, ${n(an.apps)} sent proposals, slowest groupBy (median)`,
    `SQLite ${ms(an.sqliteWorstMedianMs)}${mark(an.sqliteWorstMedianMs === undefined ? undefined : an.sqliteWorstMedianMs < 200)}` +
      (an.pgWorstMedianMs === undefined ? "" : `, PostgreSQL ${ms(an.pgWorstMedianMs)}${mark(an.pgWorstMedianMs < 200)}`),
    `ledger.csv, every row: ${ms(an.sqliteLedgerMs)}`,
    "< 200 ms",
  ]);
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(`\n━━ bench:all — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${took.toFixed(0)} s`);
  console.log(
    `machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Linux; Bun ${Bun.version}; SQLite file, synchronous=FULL; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after\n`,
  );
  console.log("| benchmark | this run | same-run baseline | goal |");
  console.log("|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  console.log("\n✓/✗: goal met or not in this run. Stage timings for the tails are in the benchmarks' own output above.");
}
