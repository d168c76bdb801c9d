/**
 * bun run bench:stall — can one account's local scoring stall everyone else?
 *
 * The load of issue 13 (item 6), within the default limits, on loopback:
 * `serve` as a child process with no model configured (the local scorer
 * scores), one account creates 100 feeds with 20,000-character prompts that
 * match every job, then posts 5 captures with 99,000-character descriptions:
 * 500 local scorings. Meanwhile another client probes GET /healthz one request
 * at a time; its p50/p99 while the scorings run is the figure (target: p99
 * < 50 ms). An idle probe first gives the baseline.
 *
 * Options: --threads N (JOBPILOT_LOCAL_AI_THREADS of the server; default: the
 * server's own default) --synchronous FULL|NORMAL (JOBPILOT_SQLITE_SYNCHRONOUS;
 * default FULL) --feeds N (default 100) --captures N (default 5)
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startServer } from "../../tests/helpers/process";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    threads: { type: "string" },
    synchronous: { type: "string" },
    feeds: { type: "string" },
    captures: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log("Usage: bun run bench:stall [--threads N] [--synchronous FULL|NORMAL] [--feeds N] [--captures N]");
  process.exit(0);
}
const FEEDS = Number(values.feeds ?? 100);
const CAPTURES = Number(values.captures ?? 5);
const PROMPT_CHARS = 20_000;
const DESCRIPTION_CHARS = 99_000;
const TARGET_P99_MS = 50;

// Seeded words, so every run scores the same text.
let seed = 13;
const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
const WORDS = (
  "react node typescript python django postgres kubernetes docker terraform aws graphql rest api dashboard migration " +
  "performance senior developer long-term contract startup fintech healthcare analytics pipeline scraping automation " +
  "shopify wordpress design figma mobile flutter swift kotlin testing ci deployment monitoring security audit " +
  "the and with for our team needs someone who can build maintain improve ship features weekly clear communication"
).split(" ");
function text(chars: number): string {
  const out: string[] = [];
  let n = 0;
  while (n < chars) {
    const sentence = Array.from({ length: 8 + Math.floor(rand() * 12) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ") + ". ";
    out.push(sentence);
    n += sentence.length;
  }
  return out.join("").slice(0, chars);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `p50 ${percentile(s, 0.5).toFixed(1)} ms, p99 ${percentile(s, 0.99).toFixed(1)} ms, max ${(s.at(-1) ?? 0).toFixed(1)} ms (${s.length} probes)`;
};

const dir = mkdtempSync(join(tmpdir(), "jp-bench-stall-"));
const dbPath = join(dir, "stall.db");
const env: Record<string, string> = { JOBPILOT_DB: dbPath, JOBPILOT_SOURCES: "none", LOG_LEVEL: "warn" };
if (values.threads !== undefined) env.JOBPILOT_LOCAL_AI_THREADS = values.threads;
if (values.synchronous !== undefined) env.JOBPILOT_SQLITE_SYNCHRONOUS = values.synchronous;
const server = await startServer([process.execPath, "run", "src/main.ts", "serve"], env);
const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())?.[1];
if (!key) throw new Error(`no first-run key in the banner:\n${server.output()}`);
const headers = { "x-api-key": key, "content-type": "application/json" };

/** Probes /healthz one request at a time (a short pause between) until stopped. */
function probe() {
  const latencies: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/healthz`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
      latencies.push(performance.now() - t0);
      await Bun.sleep(5);
    }
  })();
  return { stop: async () => ((running = false), await done, latencies) };
}

const db = new Database(dbPath, { readonly: true });
const pendingScorings = () => (db.query("SELECT count(*) AS n FROM tasks WHERE kind = 'score'").get() as { n: number }).n;
const feedEntries = () => (db.query("SELECT count(*) AS n FROM feed_jobs").get() as { n: number }).n;

try {
  console.log(
    `server: ${server.url} ${Object.entries(env)
      .filter(([k]) => k !== "JOBPILOT_DB")
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );
  const idle = probe();
  await Bun.sleep(2000);
  const baseline = await idle.stop();
  console.log(`idle:      /healthz ${summary(baseline)}`);

  const prompts = Array.from({ length: FEEDS }, () => text(PROMPT_CHARS));
  for (let i = 0; i < FEEDS; i++) {
    const res = await fetch(`${server.url}/api/v1/feeds`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: `stall ${i}`, minScore: 0, profilePrompt: prompts[i] }),
    });
    if (res.status !== 201) throw new Error(`creating feed ${i}: ${res.status} ${await res.text()}`);
  }
  console.log(`created ${FEEDS} feeds with ${PROMPT_CHARS.toLocaleString("en")}-character prompts`);

  const loaded = probe();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CAPTURES }, async (_, i) => {
      const res = await fetch(`${server.url}/api/v1/capture`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          url: `https://jobs.example.com/jobs/view/${9_000_000 + i}`,
          title: `Senior developer ${i}`,
          description: text(DESCRIPTION_CHARS),
        }),
      });
      if (res.status !== 201) throw new Error(`capture ${i}: ${res.status} ${await res.text()}`);
    }),
  );
  while (pendingScorings() > 0) await Bun.sleep(20);
  const seconds = (performance.now() - started) / 1000;
  const underLoad = await loaded.stop();
  const scored = feedEntries();
  console.log(
    `${CAPTURES} captures with ${DESCRIPTION_CHARS.toLocaleString("en")}-character descriptions: ${scored} local scorings in ${seconds.toFixed(1)} s`,
  );
  console.log(`scoring:   /healthz ${summary(underLoad)}`);
  const p99 = percentile(
    [...underLoad].sort((a, b) => a - b),
    0.99,
  );
  console.log(`${p99 < TARGET_P99_MS ? "PASS" : "FAIL"}: /healthz p99 under load ${p99.toFixed(1)} ms (target < ${TARGET_P99_MS} ms)`);
  if (scored !== FEEDS * CAPTURES) console.log(`warning: expected ${FEEDS * CAPTURES} feed entries, found ${scored}`);
} finally {
  db.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
