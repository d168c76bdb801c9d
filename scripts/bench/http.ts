/**
 * bun run bench — HTTP overhead of jobpilot against bare Bun.serve, in one run.
 *
 * Starts `jobpilot serve` (from source, temporary database, access logs off)
 * and a bare Bun.serve answering the same JSON, then drives both with the same
 * closed-loop load for the same time, alternating rounds to even out a noisy
 * machine. The jobpilot route is authenticated and rate-limited (the account's
 * limits are multiplied so no request is refused): today GET /api/v1/account;
 * switch to GET /api/auto-apply-v2/status once the apply issue lands.
 *
 * Options: --seconds N (per round, default 5) --connections N (default 32) --rounds N (default 2)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runCommand, startServer } from "../../tests/helpers/process";
import { drive, type LoadResult } from "./load";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { seconds: { type: "string" }, connections: { type: "string" }, rounds: { type: "string" }, help: { type: "boolean", short: "h" } },
});
if (values.help) {
  console.log("Usage: bun run bench [--seconds N] [--connections N] [--rounds N]");
  process.exit(0);
}
const seconds = Number(values.seconds ?? 5);
const connections = Number(values.connections ?? 32);
const rounds = Number(values.rounds ?? 2);

const dir = mkdtempSync(join(tmpdir(), "jp-bench-"));
const env = { JOBPILOT_DB: join(dir, "bench.db"), LOG_LEVEL: "warn" };
const bun = process.execPath;

console.log(`setting up (database ${env.JOBPILOT_DB}) …`);
const created = await runCommand([bun, "run", "src/main.ts", "account", "create", "--name", "bench", "--json"], env);
const { accountId, apiKey } = JSON.parse(created.stdout);
await runCommand([bun, "run", "src/main.ts", "account", "limits", "--account", accountId, "--multiplier", "1000000"], env);

const jobpilot = await startServer([bun, "run", "src/main.ts", "serve"], env);
const path = "/api/v1/account";
const sample = await fetch(jobpilot.url + path, { headers: { "x-api-key": apiKey } });
const sampleBody = await sample.text();
if (sample.status !== 200) throw new Error(`jobpilot answered ${sample.status}: ${sampleBody}`);
const bare = await startServer([bun, "run", "scripts/bench/bare-server.ts"], { BENCH_BODY: sampleBody });

const targets = {
  "bare Bun.serve": { url: bare.url + path, headers: {} },
  [`jobpilot GET ${path}`]: { url: jobpilot.url + path, headers: { "x-api-key": apiKey } },
};
const results: Record<string, LoadResult[]> = {};
try {
  for (const [_name, t] of Object.entries(targets)) await drive(t.url, { headers: t.headers, connections, seconds: 1 }); // warm up
  for (let round = 1; round <= rounds; round++) {
    for (const [name, t] of Object.entries(targets)) {
      process.stdout.write(`round ${round}/${rounds}: ${name} for ${seconds} s … `);
      const r = await drive(t.url, { headers: t.headers, connections, seconds });
      (results[name] ??= []).push(r);
      console.log(
        `${Math.round(r.rps)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, statuses ${JSON.stringify(r.statuses)}${r.errors ? `, ${r.errors} errors` : ""}`,
      );
    }
  }
} finally {
  await jobpilot.stop();
  await bare.stop();
  rmSync(dir, { recursive: true, force: true });
}

const best = (name: string) => results[name]!.reduce((a, b) => (b.rps > a.rps ? b : a));
const names = Object.keys(targets);
const base = best(names[0]!);
const ours = best(names[1]!);
console.log(`\n${connections} connections, best of ${rounds} rounds of ${seconds} s, same machine, loopback:`);
console.log(`  ${names[0]!.padEnd(34)} ${Math.round(base.rps).toString().padStart(7)} req/s  p50 ${base.p50Ms.toFixed(2)} ms  p99 ${base.p99Ms.toFixed(2)} ms`);
console.log(`  ${names[1]!.padEnd(34)} ${Math.round(ours.rps).toString().padStart(7)} req/s  p50 ${ours.p50Ms.toFixed(2)} ms  p99 ${ours.p99Ms.toFixed(2)} ms`);
console.log(`  ratio jobpilot / bare: ${(ours.rps / base.rps).toFixed(2)} (target ≥ 0.50)`);
const non200 = Object.entries(ours.statuses).filter(([s]) => s !== "200");
if (non200.length) console.log(`  warning: jobpilot answered non-200 statuses ${JSON.stringify(Object.fromEntries(non200))}`);
