/**
 * bun run bench:apply — the apply path end to end through the sandbox
 * marketplace (its simulated latency set to 0, so the figures are jobpilot's
 * own): `serve` as a child process, real HTTP, the durable queue, the sandbox
 * driver, the final status and credit settle.
 *
 * 1. Latency: one application at a time, from POST /apply to the status
 *    endpoint reporting a final status (polled every 2 ms): p50, p99.
 * 2. Throughput: a burst of applications (concurrency --connections), time
 *    until every one is final: applications/s sustained.
 *
 * Stage timings (SQLite): the benchmark adds triggers to its own temporary database after `serve` has
 * migrated it, which stamp the wall-clock time (ms) when an application row is inserted (accepted), its task
 * is claimed (status → running), the sandbox records the submission (submitted) and the application leaves
 * `processing` (settle; the trigger fires inside the settle transaction, just before its commit). Nothing in
 * the product knows about them. For every latency run: p50/p99 of each step, beside the client's view.
 *
 * Options: --latency-runs N (default 100) --burst N (default 500) --connections N (default 32)
 *          --database-url postgres://… (a fresh database on that server; default a SQLite file)
 *          --nodes N (PostgreSQL only: N `serve` processes on the one database, requests spread round-robin)
 */
import { Database } from "bun:sqlite";
import { parseArgs } from "node:util";
import { runCommand } from "../../tests/helpers/process";
import { makeDoc } from "../../tests/helpers/factories";
import { benchStore, nodesOption, STORE_OPTIONS, STORE_USAGE, startNodes } from "./cluster";
import { printStages } from "./stages";
import { writeSummary } from "./summary";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    "latency-runs": { type: "string" },
    burst: { type: "string" },
    connections: { type: "string" },
    ...STORE_OPTIONS,
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(`Usage: bun run bench:apply [--latency-runs N] [--burst N] [--connections N] ${STORE_USAGE}`);
  process.exit(0);
}
const NODES = nodesOption(values);
const RUNS = Number(values["latency-runs"] ?? 100);
const BURST = Number(values.burst ?? 500);
const CONNECTIONS = Number(values.connections ?? 32);
const ADMIN = "bench-admin-token-0123456789";

const store = await benchStore("apply", values["database-url"]);
const env = {
  ...store.env,
  JOBPILOT_SOURCES: "none",
  JOBPILOT_ADMIN_TOKEN: ADMIN,
  JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "0",
  JOBPILOT_APPLY_CONCURRENCY_PER_ACCOUNT: "8",
  // The pipeline's own speed: the governor would pace a burst of 500 over days (its cost per submission is a few
  // indexed reads in the transaction that lets it go; docs/performance.md).
  JOBPILOT_GOVERNOR: "false",
  LOG_LEVEL: "warn",
};
const bun = process.execPath;
console.log("setting up …");
const created = JSON.parse(
  (await runCommand([bun, "run", "src/main.ts", "account", "create", "--name", "bench", "--credits", String(RUNS + BURST + 10), "--json"], env)).stdout,
);
await runCommand([bun, "run", "src/main.ts", "account", "limits", "--account", created.accountId, "--multiplier", "1000000"], env);
const servers = await startNodes([bun, "run", "src/main.ts", "serve"], env, NODES);
console.log(`${store.label}, ${NODES} node${NODES > 1 ? "s" : ""}`);
// Requests go round-robin over the nodes, as a load balancer would send them.
let turn = 0;
const server = {
  get url() {
    return servers[turn++ % servers.length]!.url;
  },
};
// The stage log (SQLite only): triggers on the run's own database, added after serve migrated it.
const stageDb = store.databaseUrl === undefined ? new Database(store.env.JOBPILOT_DB!) : null;
if (stageDb) {
  const NOW = "((julianday('now') - 2440587.5) * 86400000.0)";
  stageDb.run("PRAGMA busy_timeout = 5000");
  stageDb.run("CREATE TABLE bench_stages (stage TEXT NOT NULL, application_id TEXT NOT NULL, at_ms REAL NOT NULL)");
  stageDb.run(`CREATE TRIGGER bench_accepted AFTER INSERT ON applications BEGIN
    INSERT INTO bench_stages VALUES ('accepted', NEW.id, ${NOW}); END`);
  stageDb.run(`CREATE TRIGGER bench_claimed AFTER UPDATE OF status ON tasks WHEN NEW.status = 'running' AND NEW.kind = 'apply.submit' BEGIN
    INSERT INTO bench_stages VALUES ('claimed', json_extract(NEW.payload, '$.applicationId'), ${NOW}); END`);
  stageDb.run(`CREATE TRIGGER bench_submitted AFTER INSERT ON sandbox_submissions BEGIN
    INSERT INTO bench_stages VALUES ('submitted', NEW.application_id, ${NOW}); END`);
  stageDb.run(`CREATE TRIGGER bench_settled AFTER UPDATE OF status ON applications WHEN OLD.status = 'processing' AND NEW.status != 'processing' BEGIN
    INSERT INTO bench_stages VALUES ('settled', NEW.id, ${NOW}); END`);
}
const key = created.apiKey as string;
const headers = { "x-api-key": key, "content-type": "application/json" };

try {
  const docs = Array.from({ length: RUNS + BURST }, () => makeDoc({ fixed: 300, publishTime: new Date().toISOString() }));
  for (let i = 0; i < docs.length; i += 1000) {
    await fetch(`${server.url}/admin/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(docs.slice(i, i + 1000)),
    });
  }
  // The sandbox freelancer starts with 80 Connects; give it plenty.
  const freelancer = ((await (await fetch(`${server.url}/api/auto-apply-v2/freelancers`, { headers })).json()) as any).freelancers[0].id;
  await fetch(`${server.url}/admin/sandbox/freelancers/${encodeURIComponent(freelancer)}/connects`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ connects: 1_000_000 }),
  });
  const cipher = (d: Record<string, unknown>) => (d.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  const apply = async (d: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/api/auto-apply-v2/apply`, {
      method: "POST",
      headers,
      body: JSON.stringify({ jobId: cipher(d), coverLetter: "Hello" }),
    });
    if (res.status !== 200) throw new Error(`apply answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { queueId: string }).queueId;
  };
  const statusOf = async (id: string) =>
    ((await (await fetch(`${server.url}/api/auto-apply-v2/status?queueId=${id}`, { headers })).json()) as any).applicationStatus as string;

  // 1. latency
  const latencies: number[] = [];
  const runs: { id: string; sent: number; answered: number; seen: number }[] = [];
  for (const d of docs.slice(0, RUNS)) {
    const t0 = performance.now();
    const sent = Date.now();
    const id = await apply(d);
    const answered = Date.now();
    while ((await statusOf(id)) === "processing") await Bun.sleep(2);
    latencies.push(performance.now() - t0);
    runs.push({ id, sent, answered, seen: Date.now() });
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
  console.log(`\napply → final status, one at a time (${RUNS} runs, status polled every 2 ms):`);
  console.log(`  p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms`);
  if (stageDb) printStages("by stage (server stamps from triggers, ms resolution)", applyStages(stageDb, runs));
  else console.log("  (stage timings: SQLite only)");

  // 2. throughput
  const burst = docs.slice(RUNS);
  const t0 = performance.now();
  let next = 0;
  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < burst.length) ids.push(await apply(burst[next++]!));
    }),
  );
  const accepted = performance.now();
  for (;;) {
    const res = (await (await fetch(`${server.url}/api/auto-apply-v2/applied-jobs?status=processing&limit=1`, { headers })).json()) as { total: number };
    if (res.total === 0) break;
    await Bun.sleep(5);
  }
  const done = performance.now();
  const applied = ((await (await fetch(`${server.url}/api/auto-apply-v2/applied-jobs?status=applied&limit=1`, { headers })).json()) as { total: number }).total;
  console.log(`\nburst of ${BURST} applications, ${CONNECTIONS} concurrent requests:`);
  console.log(`  accepted (200 + queueId) at ${Math.round(BURST / ((accepted - t0) / 1000))}/s; all final after ${((done - t0) / 1000).toFixed(2)} s`);
  console.log(`  ${Math.round(BURST / ((done - t0) / 1000))} applications/s sustained, queued to final (${applied} applied in all)`);
  await writeSummary("apply", {
    latencyP50Ms: pct(0.5),
    latencyP99Ms: pct(0.99),
    acceptedPerSec: BURST / ((accepted - t0) / 1000),
    sustainedPerSec: BURST / ((done - t0) / 1000),
    store: store.label,
  });
  if (applied < BURST) {
    const sample = ((await (await fetch(`${server.url}/api/auto-apply-v2/applied-jobs?limit=3`, { headers })).json()) as any).jobs;
    console.log(
      "  not all applied; latest:",
      sample.map((j: any) => `${j.applicationStatus}: ${j.errorMessage}`),
    );
  }
} finally {
  stageDb?.close();
  await Promise.all(servers.map((s) => s.stop()));
  await store.remove();
}

/** Each latency run's steps: the client's request and the server's stamps, in wall-clock ms. */
function applyStages(db: Database, runs: { id: string; sent: number; answered: number; seen: number }[]): [string, number[]][] {
  const at = new Map<string, Record<string, number>>();
  for (const r of db.query("SELECT stage, application_id AS id, at_ms AS atMs FROM bench_stages").all() as { stage: string; id: string; atMs: number }[]) {
    const stages = at.get(r.id) ?? {};
    stages[r.stage] ??= r.atMs; // the first claim (a retry claims again)
    at.set(r.id, stages);
  }
  const out: Record<string, number[]> = {};
  const add = (k: string, a: number | undefined, b: number | undefined) => a !== undefined && b !== undefined && (out[k] ??= []).push(b - a);
  for (const r of runs) {
    const s = at.get(r.id) ?? {};
    add("request sent → accepted (row written)", r.sent, s.accepted);
    add("accepted → 200 in", s.accepted, r.answered);
    add("accepted → claimed", s.accepted, s.claimed);
    add("claimed → submitted", s.claimed, s.submitted);
    add("submitted → settled", s.submitted, s.settled);
    add("settled → final status seen (2 ms polls)", s.settled, r.seen);
  }
  return Object.entries(out);
}
