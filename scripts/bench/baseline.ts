/**
 * The machine's floor, measured in the same run as the benchmarks it is printed beside (bun run bench:all):
 * what bare bun:sqlite and bare fetch do here, with none of jobpilot's code.
 *
 * - commit: a one-row INSERT and COMMIT on a file database in WAL with synchronous=FULL (jobpilot's
 *   settings), p50/p99: the floor of every ingest and settle.
 * - insert rate: per "job" one 2 KiB row and 20 small rows (a job's feed entries and events), 100 jobs per
 *   transaction, prepared statements: the floor of ingest throughput.
 * - POST round trip to a Bun.serve receiver in this process (sequential, p50/p99), and POSTs per second with
 *   64 in flight (the deliverer's default concurrency): the floor of webhook delivery.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pct } from "./stages";
import { writeSummary } from "./summary";

const dir = mkdtempSync(join(tmpdir(), "jp-bench-base-"));
const db = new Database(join(dir, "base.db"), { create: true });
db.run("PRAGMA journal_mode = WAL");
db.run("PRAGMA synchronous = FULL");
db.run("CREATE TABLE jobs (id TEXT PRIMARY KEY, doc TEXT NOT NULL, ts INTEGER NOT NULL)");
db.run("CREATE TABLE entries (id INTEGER PRIMARY KEY, job_id TEXT NOT NULL, feed INTEGER NOT NULL, ts INTEGER NOT NULL)");
db.run("CREATE INDEX entries_job ON entries (job_id)");

const insertJob = db.prepare("INSERT INTO jobs VALUES (?, ?, ?)");
const insertEntry = db.prepare("INSERT INTO entries (job_id, feed, ts) VALUES (?, ?, ?)");
const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");
const doc = "x".repeat(2048);

const commits: number[] = [];
for (let i = 0; i < 300; i++) {
  const t = performance.now();
  begin.run();
  insertJob.run(`c${i}`, "{}", i);
  commit.run();
  commits.push(performance.now() - t);
}

const JOBS = 5000;
let t = performance.now();
for (let i = 0; i < JOBS; i += 100) {
  begin.run();
  for (let j = i; j < i + 100; j++) {
    insertJob.run(`j${j}`, doc, j);
    for (let f = 0; f < 20; f++) insertEntry.run(`j${j}`, f, j);
  }
  commit.run();
}
const jobsPerSec = JOBS / ((performance.now() - t) / 1000);
db.close();
rmSync(dir, { recursive: true, force: true });

const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    await req.arrayBuffer();
    return new Response("ok");
  },
});
const url = `http://127.0.0.1:${receiver.port}/hook`;
const body = JSON.stringify({ type: "job.matched", data: { text: "y".repeat(3000) } });
const post = async () => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  await res.body?.cancel();
};
for (let i = 0; i < 200; i++) await post(); // warm up
const trips: number[] = [];
for (let i = 0; i < 500; i++) {
  const t0 = performance.now();
  await post();
  trips.push(performance.now() - t0);
}
const POSTS = 5000;
let next = 0;
t = performance.now();
await Promise.all(
  Array.from({ length: 64 }, async () => {
    while (next++ < POSTS) await post();
  }),
);
const postsPerSec = POSTS / ((performance.now() - t) / 1000);
receiver.stop(true);

const f = (ms: number) => `${ms.toFixed(2)} ms`;
console.log("bare bun:sqlite and fetch on this machine (no jobpilot code):");
console.log(`  commit (1 row, WAL, synchronous=FULL): p50 ${f(pct(commits, 0.5))}, p99 ${f(pct(commits, 0.99))}`);
console.log(`  insert rate (1 job row + 20 entry rows per job, 100 jobs a transaction): ${Math.round(jobsPerSec)} jobs/s`);
console.log(
  `  POST round trip to a local Bun.serve: p50 ${f(pct(trips, 0.5))}, p99 ${f(pct(trips, 0.99))}; ${Math.round(postsPerSec)} POSTs/s with 64 in flight`,
);
await writeSummary("baseline", {
  commitP50Ms: pct(commits, 0.5),
  commitP99Ms: pct(commits, 0.99),
  sqliteJobsPerSec: jobsPerSec,
  postP50Ms: pct(trips, 0.5),
  postP99Ms: pct(trips, 0.99),
  postsPerSec,
});
