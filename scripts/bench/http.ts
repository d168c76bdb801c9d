/**
 * bun run bench — HTTP overhead of jobpilot against bare Bun.serve, in one run.
 *
 * Starts `jobpilot serve` (from source, temporary database, access logs off) and, for each route measured, a
 * bare Bun.serve answering the same JSON body (a fetch handler building one Response, nothing else), then
 * drives each pair with the same closed-loop load for the same time, alternating rounds to even out a noisy
 * machine, and reports each route's median over the rounds as a ratio to its bare twin. Routes:
 * GET /api/v1/account (authenticated and rate-limited; the account's limits are multiplied so no request is
 * refused), GET /api/v1/feeds (the same, an empty list) and /healthz (neither). For each route it also
 * reports both servers' CPU time per request (Linux /proc, user and system apart), which other processes'
 * load moves far less than throughput.
 *
 * Load generator: wrk when it is on PATH (Debian package `wrk`), else the in-process fetch client of load.ts,
 * which on a small machine takes CPU from the servers it measures; the report says which. --client forces one.
 *
 * --compare-metrics also starts a second jobpilot with JOBPILOT_METRICS=false and drives it in the same
 * rounds, and reports each route's metrics-on / metrics-off ratio: what timing every request for
 * GET /metrics costs, in throughput and in CPU time per request.
 *
 * `serve` starts with the caller's BUN_JSC_* variables (the engine's defaults unless set; the systemd unit's
 * options are in src/lib/engine-tuning.ts).
 *
 * Options: --seconds N (per round, default 5) --connections N (default 32) --rounds N (default 3)
 *          --threads N (wrk threads, default 2) --client wrk|fetch --routes a,b (paths; default all three)
 *          --compare-metrics
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runCommand, startServer, type ServerProcess } from "../../tests/helpers/process";
import { drive, type LoadResult } from "./load";
import { type CpuTime, cpuMs, cpuTotal as total, engineSettings, ratioText, writeSummary } from "./summary";
import { driveWrk, wrkPath } from "./wrk";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    seconds: { type: "string" },
    connections: { type: "string" },
    rounds: { type: "string" },
    threads: { type: "string" },
    client: { type: "string" },
    routes: { type: "string" },
    "compare-metrics": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(
    "Usage: bun run bench [--seconds N] [--connections N] [--rounds N] [--threads N] [--client wrk|fetch] [--routes /healthz,/api/v1/feeds,…] [--compare-metrics]",
  );
  process.exit(0);
}
const seconds = Number(values.seconds ?? 5);
const connections = Number(values.connections ?? 32);
const rounds = Number(values.rounds ?? 3);
const threads = Math.min(connections, Number(values.threads ?? 2));
const wrk = values.client === "fetch" ? null : wrkPath();
if (values.client === "wrk" && !wrk) throw new Error("--client wrk: wrk is not on PATH (Debian: apt-get install wrk)");
const client = wrk
  ? `wrk (${threads} threads, ${connections} connections)`
  : `in-process fetch client (${connections} workers; ${values.client === "fetch" ? "--client fetch" : "wrk not on PATH"})`;
const load = (url: string, headers: Record<string, string>, secs: number): Promise<LoadResult> =>
  wrk ? driveWrk(wrk, url, { headers, connections, seconds: secs, threads }) : drive(url, { headers, connections, seconds: secs });

// The guard rails: every request through the app's one path (no route answered outside it).
const ROUTES: { path: string; auth: boolean; goal: number }[] = [
  { path: "/api/v1/account", auth: true, goal: 0.4 },
  { path: "/api/v1/feeds", auth: true, goal: 0.4 },
  { path: "/healthz", auth: false, goal: 0.6 },
];
const wanted = values.routes?.split(",").map((s) => s.trim());
const routes = wanted ? ROUTES.filter((r) => wanted.includes(r.path)) : ROUTES;
if (routes.length === 0) throw new Error(`--routes: none of ${ROUTES.map((r) => r.path).join(", ")}`);

const dir = mkdtempSync(join(tmpdir(), "jp-bench-"));
const env = { JOBPILOT_DB: join(dir, "bench.db"), LOG_LEVEL: "warn", ...engineSettings() };
const bun = process.execPath;

console.log(`setting up (database ${env.JOBPILOT_DB}) …`);
console.log(`load generator: ${client}`);
const created = await runCommand([bun, "run", "src/main.ts", "account", "create", "--name", "bench", "--json"], env);
const { accountId, apiKey } = JSON.parse(created.stdout);
await runCommand([bun, "run", "src/main.ts", "account", "limits", "--account", accountId, "--multiplier", "1000000"], env);

const jobpilot = await startServer([bun, "run", "src/main.ts", "serve"], env);
const compareMetrics = values["compare-metrics"] === true;
// A copy of the database (same account and key), so the two servers never wait for each other's writes.
if (compareMetrics) for (const ext of ["", "-wal"]) if (existsSync(env.JOBPILOT_DB + ext)) copyFileSync(env.JOBPILOT_DB + ext, join(dir, `off.db${ext}`));
const withoutMetrics = compareMetrics
  ? await startServer([bun, "run", "src/main.ts", "serve"], { ...env, JOBPILOT_DB: join(dir, "off.db"), JOBPILOT_METRICS: "false" })
  : null;
const bares: ServerProcess[] = [];
interface Target {
  name: string;
  /** The server's process, for its CPU time per request (Linux /proc). */
  pid?: number;
  route: (typeof ROUTES)[number];
  bare: boolean;
  metricsOff?: boolean;
  url: string;
  headers: Record<string, string>;
}
const targets: Target[] = [];
const results = new Map<Target, LoadResult[]>();
/** Each round's server CPU time per request. */
const cpuPerRequest = new Map<Target, CpuTime[]>();

const cpuText = (c: CpuTime) => `${total(c).toFixed(1)} µs (user ${c.user.toFixed(1)}, system ${c.system.toFixed(1)})`;
/** The median round's CPU per request of a target (by total), or null without /proc. */
function medianCpu(t: Target | undefined): CpuTime | null {
  const list = t ? cpuPerRequest.get(t) : undefined;
  if (!list?.length) return null;
  return [...list].sort((a, b) => total(a) - total(b))[Math.floor((list.length - 1) / 2)]!;
}

const median = (list: LoadResult[]) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor((list.length - 1) / 2)]!;
try {
  for (const route of routes) {
    const headers: Record<string, string> = route.auth ? { "x-api-key": apiKey } : {};
    const sample = await fetch(jobpilot.url + route.path, { headers });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`jobpilot answered ${sample.status} on ${route.path}: ${body}`);
    const bare = await startServer([bun, "run", "scripts/bench/bare-server.ts"], { BENCH_BODY: body });
    bares.push(bare);
    targets.push({ name: `bare Bun.serve (${route.path} body)`, route, bare: true, pid: bare.proc.pid, url: bare.url + route.path, headers: {} });
    targets.push({ name: `jobpilot GET ${route.path}`, route, bare: false, pid: jobpilot.proc.pid, url: jobpilot.url + route.path, headers });
    if (withoutMetrics)
      targets.push({
        name: `jobpilot GET ${route.path} (metrics off)`,
        route,
        bare: false,
        metricsOff: true,
        pid: withoutMetrics.proc.pid,
        url: withoutMetrics.url + route.path,
        headers,
      });
  }
  for (const t of targets) await load(t.url, t.headers, 1); // warm up
  for (let round = 1; round <= rounds; round++) {
    // Every other round in reverse, so neither twin of a pair always runs first (a machine whose load drifts).
    for (const t of round % 2 === 1 ? targets : [...targets].reverse()) {
      process.stdout.write(`round ${round}/${rounds}: ${t.name} for ${seconds} s … `);
      const cpuBefore = t.pid ? cpuMs(t.pid) : null;
      const r = await load(t.url, t.headers, seconds);
      const cpuAfter = t.pid ? cpuMs(t.pid) : null;
      if (cpuBefore !== null && cpuAfter !== null && r.requests > 0) {
        const perRequest = (ms: number) => (ms * 1000) / r.requests;
        const round = { user: perRequest(cpuAfter.user - cpuBefore.user), system: perRequest(cpuAfter.system - cpuBefore.system) };
        cpuPerRequest.set(t, [...(cpuPerRequest.get(t) ?? []), round]);
      }
      results.set(t, [...(results.get(t) ?? []), r]);
      console.log(
        `${Math.round(r.rps)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, statuses ${JSON.stringify(r.statuses)}${r.errors ? `, ${r.errors} errors` : ""}`,
      );
    }
  }
} finally {
  await jobpilot.stop();
  await withoutMetrics?.stop();
  for (const b of bares) await b.stop();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`\n${client}, median of ${rounds} rounds of ${seconds} s, same machine, loopback:`);
const figures: Record<string, { rps: number; bareRps: number; ratio: number; goal: number; p99Ms: number }> = {};
const cpu: Record<string, { ours: CpuTime; bare: CpuTime }> = {};
for (const route of routes) {
  const bare = median(results.get(targets.find((t) => t.route === route && t.bare)!)!);
  const ours = median(results.get(targets.find((t) => t.route === route && !t.bare && !t.metricsOff)!)!);
  const ratio = ours.rps / bare.rps;
  const oursCpu = medianCpu(targets.find((t) => t.route === route && !t.bare && !t.metricsOff));
  figures[route.path] = { rps: ours.rps, bareRps: bare.rps, ratio, goal: route.goal, p99Ms: ours.p99Ms };
  console.log(
    `  GET ${route.path.padEnd(16)} ${Math.round(ours.rps).toString().padStart(7)} req/s (p99 ${ours.p99Ms.toFixed(2)} ms)  bare ${Math.round(bare.rps).toString().padStart(7)} req/s  ratio ${ratioText(ratio)} (goal ≥ ${route.goal.toFixed(2)})`,
  );
  const off = targets.find((t) => t.route === route && t.metricsOff);
  if (off) {
    const offRps = median(results.get(off)!).rps;
    // Per round too: the rounds run back to back, so a round's pair saw the same machine load.
    const perRound = results
      .get(off)!
      .map((r, i) => (results.get(targets.find((t) => t.route === route && !t.bare && !t.metricsOff)!)![i]!.rps / r.rps).toFixed(3));
    console.log(
      `    metrics off ${Math.round(offRps).toString().padStart(7)} req/s  on/off ${(ours.rps / offRps).toFixed(3)} (rounds: ${perRound.join(", ")})`,
    );
    const offCpu = medianCpu(off);
    if (oursCpu && offCpu)
      console.log(`    server CPU per request (median): on ${cpuText(oursCpu)}, off ${cpuText(offCpu)}, on/off ${(total(oursCpu) / total(offCpu)).toFixed(3)}`);
  }
  // What a request costs the server, whatever else runs on the machine: on a small shared machine throughput
  // swings from round to round, CPU time per request far less. The system part is mostly the socket calls.
  const bareCpu = medianCpu(targets.find((t) => t.route === route && t.bare));
  if (oursCpu && bareCpu) {
    cpu[route.path] = { ours: oursCpu, bare: bareCpu };
    console.log(`    server CPU per request (median round): jobpilot ${cpuText(oursCpu)}, bare ${cpuText(bareCpu)}`);
  }
  const non200 = Object.entries(ours.statuses).filter(([s]) => s !== "200");
  if (non200.length || ours.errors) console.log(`    warning: non-200 answers ${JSON.stringify(Object.fromEntries(non200))}, ${ours.errors} errors`);
}
await writeSummary("http", { client: wrk ? "wrk" : "fetch", connections, routes: figures, cpuPerRequestUs: cpu });
