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
 * Options: --latency-runs N (default 100) --burst N (default 500) --connections N (default 32)
 *          --database-url postgres://… (a fresh database on that server; default a SQLite file)
 *          --nodes N (PostgreSQL only: N `serve` processes on the one database, requests spread round-robin)
 */
import { parseArgs } from "node:util";
import { runCommand } from "../../tests/helpers/process";
import { makeDoc } from "../../tests/helpers/factories";
import { benchStore, nodesOption, STORE_OPTIONS, STORE_USAGE, startNodes } from "./cluster";

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
  for (const d of docs.slice(0, RUNS)) {
    const t0 = performance.now();
    const id = await apply(d);
    while ((await statusOf(id)) === "processing") await Bun.sleep(2);
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
  console.log(`\napply → final status, one at a time (${RUNS} runs, status polled every 2 ms):`);
  console.log(`  p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms`);

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
  if (applied < BURST) {
    const sample = ((await (await fetch(`${server.url}/api/auto-apply-v2/applied-jobs?limit=3`, { headers })).json()) as any).jobs;
    console.log(
      "  not all applied; latest:",
      sample.map((j: any) => `${j.applicationStatus}: ${j.errorMessage}`),
    );
  }
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  await store.remove();
}
