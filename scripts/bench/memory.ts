/**
 * bun run scripts/bench/memory.ts — the compiled binary's memory and start-up time (part of bench:all).
 *
 * The server is the compiled executable (`bun run build`'s command, into a temporary directory) running
 * `serve` on a SQLite file with 1,000 feeds (the benchmarks' realistic mixed filters, without profilePrompts as
 * in bench:webhooks: the run measures ingest and delivery, not the local scorer — bench:stall does) of 20 accounts; a share of the feeds (--webhook-share, default
 * 0.1) send webhooks to a receiver in this process. Its memory is read from /proc/<pid>/status (VmRSS now,
 * VmHWM the peak since it started).
 *
 * 1. Ingest --jobs jobs over HTTP (POST /admin/jobs, 500 a request, 2 at a time), wait until every webhook
 *    is delivered and no task is left: RSS 1 s and 5 s later. The server gives memory back once it has been quiet
 *    for a second (src/worker/memory-trim.ts), and its last deliveries' bookkeeping runs on for a second or two
 *    after the backlog reads empty here, so the 1-s figure may or may not include that trim; the 5-s one
 *    (afterIngestMiB) does.
 * 2. Start-up: the binary started 3 times on that existing database; time from spawn to the first 200 from
 *    /healthz (polled every 2 ms), median and worst.
 * 3. Mixed bursts on a fresh start: three times 400 jobs ingested (50 a request) while 1,600 API requests
 *    (account, feed list, a feed's jobs, a job by ciphertext; 32 at a time) run; RSS sampled every 20 ms,
 *    the peak (VmHWM), RSS after each burst and after 2 s idle.
 *
 *    What the RSS is made of near the peak: the executable's pages (smaps), the JS heap (the server's /metrics,
 *    read every 100 ms: process.memoryUsage()), and the rest (native memory: SQLite's page cache, buffers).
 *
 * `serve` starts with the caller's BUN_JSC_* variables (the engine's defaults unless set; the systemd unit's
 * options are in src/lib/engine-tuning.ts).
 *
 * Options: --jobs N (default 5000: about a minute here; the goal is stated for 50000) --webhook-share F (default 0.1) --binary PATH (skip the build)
 *          --burst ingest|requests (only that half of each burst; default both)
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../src/config";
import { tx } from "../../src/db/client";
import { closeDeps, createDeps } from "../../src/deps";
import { systemClock } from "../../src/lib/clock";
import { createLogger } from "../../src/lib/log";
import { createAccount, setRateLimits } from "../../src/modules/accounts/service";
import { insertFeed } from "../../src/modules/feeds/repo";
import { generateJob } from "../../src/sources/sandbox/generator";
import { buildBinary, startServer, type ServerProcess } from "../../tests/helpers/process";
import { randomFeed } from "./fixtures";
import { cpuMs, cpuTotal, engineSettings, writeSummary } from "./summary";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    jobs: { type: "string" },
    "webhook-share": { type: "string" },
    binary: { type: "string" },
    burst: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log("Usage: bun run scripts/bench/memory.ts [--jobs N] [--webhook-share F] [--binary PATH] [--burst both|ingest|requests]");
  process.exit(0);
}
/** Which half of each mixed burst runs (both by default): to tell what each adds to the peak. */
const BURST = values.burst ?? "both";
if (!["both", "ingest", "requests"].includes(BURST)) throw new Error("--burst: both, ingest or requests");
const BURST_REQUESTS = BURST === "ingest" ? 0 : 1600;
const BURST_JOBS = BURST === "requests" ? 0 : 400;
const JOBS = Number(values.jobs ?? 5000);
const SHARE = Number(values["webhook-share"] ?? 0.1);
const FEEDS = 1000;
const ADMIN = "bench-admin-token-0123456789";
const MiB = 1024 * 1024;

/**
 * VmRSS and VmHWM of a process, in MiB, and what the RSS is made of: anonymous memory (the JS heap, SQLite's
 * page caches, native buffers) and file pages (the executable, and any database pages read through mmap_size's map).
 */
export function memoryOf(pid: number): { rss: number; hwm: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) / 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM"), anon: kb("RssAnon"), file: kb("RssFile") + kb("RssShmem") };
}

/**
 * Which files the file pages belong to, in MiB, from /proc/<pid>/smaps: the executable (its code and the embedded
 * bundle: ~55 MiB of any run, the runtime's own) and the database (with its -wal and -shm). "file" alone read as
 * the database, which it was only in part.
 */
export function filePagesOf(pid: number, dbPath: string): { executable: number; database: number } {
  const exe = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "";
  const kb = { executable: 0, database: 0 };
  let into: keyof typeof kb | null = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const path = head[1] ?? "";
      into = path === exe ? "executable" : path.startsWith(dbPath) ? "database" : null;
    } else if (into) {
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (rss) kb[into] += Number(rss[1]);
    }
  }
  return { executable: kb.executable / 1024, database: kb.database / 1024 };
}

let binary = values.binary;
let builtDir: string | undefined;
if (!binary) {
  console.log("building the binary …");
  binary = await buildBinary();
  builtDir = join(binary, "..");
}

let arrivals = 0;
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    await req.arrayBuffer();
    arrivals++;
    return new Response("ok");
  },
});
const hookUrl = `http://127.0.0.1:${receiver.port}/hook`;

const dir = mkdtempSync(join(tmpdir(), "jp-bench-mem-"));
const dbPath = join(dir, "mem.db");
const parts = (m: { anon: number; file: number }, pid: number) => {
  const files = filePagesOf(pid, dbPath);
  return `anonymous ${m.anon.toFixed(0)} MiB + file ${m.file.toFixed(0)} MiB: executable ${files.executable.toFixed(0)}, database ${files.database.toFixed(0)}`;
};
console.log(`setting up ${FEEDS} feeds (${Math.round(FEEDS * SHARE)} with a webhook) in ${dbPath} …`);
const log = createLogger({ level: "error", write: (l) => process.stderr.write(l) });
const setup = await createDeps({ ...loadConfig({}), dbPath }, { clock: systemClock, log });
const keys: string[] = [];
const accountIds: string[] = [];
for (let i = 0; i < 20; i++) {
  const created = await createAccount(setup.deps, { name: `bench ${i}` });
  keys.push(created.apiKey);
  accountIds.push(created.account.id);
  await setRateLimits(setup.deps, created.account.id, { multiplier: 1_000_000 });
}
const feedIds: string[] = [];
const created = Date.now() - 1000;
await tx(setup.deps.db, async (t) => {
  for (let i = 0; i < FEEDS; i++) {
    const row = randomFeed(accountIds[i % accountIds.length]!, i, created);
    const hooked = i < FEEDS * SHARE;
    const saved = await insertFeed(t, {
      ...row,
      profilePrompt: "",
      minScore: Math.min(row.minScore, 5),
      notificationsMuted: hooked ? false : row.notificationsMuted,
      webhookUrl: hooked ? hookUrl : null,
      webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    });
    if (i % accountIds.length === 0) feedIds.push(saved.id);
  }
});
await closeDeps(setup.deps);

const env = {
  JOBPILOT_DB: dbPath,
  JOBPILOT_SOURCES: "none",
  JOBPILOT_ADMIN_TOKEN: ADMIN,
  JOBPILOT_MAX_BODY_BYTES: String(16 * MiB),
  JOBPILOT_WEBHOOK_ALLOW_PRIVATE: "true",
  LOG_LEVEL: "warn",
  ...engineSettings(),
};
const reader = new Database(dbPath, { readonly: true });
const backlog = () =>
  (
    reader
      .query("SELECT (SELECT count(*) FROM events WHERE status IN ('pending', 'retrying')) + (SELECT count(*) FROM tasks WHERE status != 'failed') AS n")
      .get() as { n: number }
  ).n;
async function drained(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (backlog() > 0) {
    if (Date.now() > deadline) throw new Error(`the server did not drain its backlog (${backlog()} left) within ${timeoutMs / 1000} s`);
    await Bun.sleep(100);
  }
}
const ingest = async (server: ServerProcess, docs: unknown[]) => {
  const res = await fetch(`${server.url}/admin/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify(docs),
  });
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
};
const cipher = (d: Record<string, unknown>) => (d.jobTile as { job: { ciphertext: string } }).job.ciphertext;
const f = (mib: number) => `${mib.toFixed(0)} MiB`;

const figures: Record<string, number> = { jobs: JOBS, feeds: FEEDS, webhookFeeds: Math.round(FEEDS * SHARE) };
let server: ServerProcess | undefined;
try {
  // 1. ingest and deliver
  server = await startServer([binary, "serve"], env, 30_000);
  await Bun.sleep(1000);
  const idle = memoryOf(server.proc.pid);
  figures.idleAfterStartMiB = idle.rss;
  console.log(`idle after start: RSS ${f(figures.idleAfterStartMiB)} (${parts(idle, server.proc.pid)})`);
  const docs = Array.from({ length: JOBS }, (_, i) => generateJob({ seed: 91, index: i, nowTs: Date.now() }));
  const t = performance.now();
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      for (let i = (next += 500) - 500; i < docs.length; i = (next += 500) - 500) await ingest(server!, docs.slice(i, i + 500));
    }),
  );
  const ingested = performance.now() - t;
  await drained(15 * 60_000);
  const drainedAfter = performance.now() - t;
  await Bun.sleep(1000);
  const soon = memoryOf(server.proc.pid);
  const soonParts = parts(soon, server.proc.pid);
  await Bun.sleep(4000);
  const after = memoryOf(server.proc.pid);
  figures.afterIngest1sMiB = soon.rss;
  figures.afterIngestMiB = after.rss;
  figures.afterIngestHwmMiB = after.hwm;
  figures.webhooks = arrivals;
  console.log(
    `${JOBS} jobs ingested in ${(ingested / 1000).toFixed(1)} s, ${arrivals} webhooks delivered after ${(drainedAfter / 1000).toFixed(1)} s: RSS 1 s later ${f(soon.rss)} (${soonParts}), 5 s later ${f(after.rss)} (${parts(after, server.proc.pid)}); peak ${f(after.hwm)}`,
  );
  await server.stop();
  server = undefined;

  // 2. start-up on the existing database
  const starts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = probe.port;
    probe.stop(true);
    const t0 = performance.now();
    const proc = Bun.spawn([binary, "serve"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env, PORT: String(port) },
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      for (;;) {
        const ok = await fetch(`http://127.0.0.1:${port}/healthz`)
          .then((r) => r.status === 200)
          .catch(() => false);
        if (ok) break;
        if (performance.now() - t0 > 30_000) throw new Error("the binary did not answer /healthz within 30 s");
        await Bun.sleep(2);
      }
      starts.push(performance.now() - t0);
    } finally {
      proc.kill();
      await proc.exited;
    }
  }
  starts.sort((a, b) => a - b);
  figures.startupMedianMs = starts[1]!;
  figures.startupWorstMs = starts[2]!;
  console.log(`start-up on that database (${JOBS} jobs): /healthz answered after ${starts.map((s) => `${s.toFixed(0)} ms`).join(", ")}`);

  // 3. mixed bursts
  server = await startServer([binary, "serve"], env, 30_000);
  await Bun.sleep(1000);
  const pid = server.proc.pid;
  let peak = memoryOf(pid).rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryOf(pid).rss);
  }, 20);
  // The composition at the largest RSS among the /metrics reads (the 20-ms peak above may fall between two).
  let composed: { rss: number; heapTotal: number; heapUsed: number; external: number; executable: number } | undefined;
  let composing = true;
  const composer = (async () => {
    while (composing) {
      const text = await (await fetch(`${server!.url}/metrics`)).text();
      const gauge = (name: string) => Number(new RegExp(`^jobpilot_${name} (\\S+)$`, "m").exec(text)?.[1]) / MiB;
      const rss = memoryOf(pid).rss;
      if (!composed || rss > composed.rss) {
        composed = {
          rss,
          heapTotal: gauge('js_heap_bytes{state="total"}'),
          heapUsed: gauge('js_heap_bytes{state="used"}'),
          external: gauge("js_external_bytes"),
          executable: filePagesOf(pid, dbPath).executable,
        };
      }
      await Bun.sleep(100);
    }
  })();
  const known = docs.slice(0, 200).map(cipher);
  const ends: number[] = [];
  const cpuBefore = cpuMs(pid);
  for (let burst = 0; burst < 3; burst++) {
    const jobs = Array.from({ length: BURST_JOBS }, (_, i) => generateJob({ seed: 92 + burst, index: i, nowTs: Date.now() }));
    const paths = (i: number) => {
      const k = i % 4;
      const feed = feedIds[i % feedIds.length]!;
      if (k === 0) return "/api/v1/account";
      if (k === 1) return "/api/v1/feeds";
      if (k === 2) return `/api/v1/feeds/${feed}/jobs`;
      return `/api/v1/jobs/${encodeURIComponent(known[i % known.length]!)}`;
    };
    let n = 0;
    let refused = 0;
    const started = performance.now();
    let requestsTook = 0;
    const requests = Promise.all(
      Array.from({ length: 32 }, async () => {
        while (n < BURST_REQUESTS) {
          const i = n++;
          // feedIds are account 0's feeds (feed i belongs to account i % 20), so keys[0] may read their jobs.
          const res = await fetch(server!.url + paths(i), { headers: { "x-api-key": keys[0]! } });
          await res.arrayBuffer();
          if (res.status !== 200) refused++;
        }
      }),
    ).then(() => {
      requestsTook = performance.now() - started;
    });
    let b = 0;
    const ingests = Promise.all(
      [0, 1].map(async () => {
        for (let i = (b += 50) - 50; i < jobs.length; i = (b += 50) - 50) await ingest(server!, jobs.slice(i, i + 50));
      }),
    );
    await Promise.all([requests, ingests]);
    if (refused) console.log(`  warning: ${refused} of ${BURST_REQUESTS.toLocaleString("en")} requests were not answered 200`);
    await drained(5 * 60_000);
    const end = memoryOf(pid);
    ends.push(end.rss);
    console.log(
      `  after burst ${burst + 1}: RSS ${f(end.rss)} (${parts(end, pid)}); its ${BURST_REQUESTS.toLocaleString("en")} requests took ${(requestsTook / 1000).toFixed(1)} s`,
    );
  }
  const cpuAfter = cpuMs(pid);
  clearInterval(sampler);
  composing = false;
  await composer;
  await Bun.sleep(2000);
  const last = memoryOf(pid);
  figures.burstPeakMiB = Math.max(peak, last.hwm);
  figures.burstEndsMiB = Math.max(...ends);
  figures.idleAfterBurstsMiB = last.rss;
  const half = `${BURST_JOBS} jobs + ${BURST_REQUESTS.toLocaleString("en")} requests each${BURST === "both" ? "" : `: --burst ${BURST}`}`;
  // The server's CPU time through the bursts (their deliveries included): what collecting sooner costs shows here.
  const burstCpu = cpuBefore && cpuAfter ? `; server CPU ${((cpuTotal(cpuAfter) - cpuTotal(cpuBefore)) / 1000).toFixed(1)} s` : "";
  console.log(
    `3 mixed bursts (${half}): peak RSS ${f(figures.burstPeakMiB)}; after each burst ${ends.map(f).join(" → ")}; idle 2 s later ${f(last.rss)}${burstCpu}`,
  );
  if (composed) {
    figures.composedRssMiB = composed.rss;
    figures.composedExecutableMiB = composed.executable;
    // Bun's heapUsed can exceed its heapTotal (they are counted apart): the heap is the larger of the two.
    figures.composedHeapMiB = Math.max(composed.heapTotal, composed.heapUsed);
    figures.composedHeapUsedMiB = composed.heapUsed;
    figures.composedExternalMiB = composed.external;
    figures.composedNativeMiB = composed.rss - composed.executable - figures.composedHeapMiB;
    console.log(
      `  near the peak (largest RSS read with /metrics, every 100 ms): ${f(composed.rss)} = executable ${f(composed.executable)} + JS heap ${f(figures.composedHeapMiB)} (used ${f(composed.heapUsed)}, total ${f(composed.heapTotal)}) + the rest ${f(figures.composedNativeMiB)} (native: ${f(composed.external)} that JS objects hold (strings, buffers), SQLite's page cache, threads)`,
    );
  }
} finally {
  await server?.stop();
  reader.close();
  receiver.stop(true);
  rmSync(dir, { recursive: true, force: true });
  if (builtDir) rmSync(builtDir, { recursive: true, force: true });
}
// A run of half the bursts is not the benchmark bench:all reports: it leaves the last full run's summary alone.
if (BURST === "both") await writeSummary("memory", figures);
