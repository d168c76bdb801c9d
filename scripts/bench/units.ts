/**
 * bun run bench:units — per-call cost of the pure functions on the hot path,
 * measured here rather than in timed tests (a shared machine makes those flaky):
 * normalising a rich marketplace document, and local scoring of a 5 KB
 * description. Each is warmed up, then timed over many calls; the figure is the
 * median of several rounds, beside a JSON.parse of the same document as a
 * same-run baseline (the ratio is what to compare across machines).
 *
 * Options: --rounds N (default 7) --calls N (default 2000)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { scoreLocally } from "../../src/ai/local-scorer";
import { normalizeJob } from "../../src/modules/jobs/normalize";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { rounds: { type: "string" }, calls: { type: "string" }, help: { type: "boolean", short: "h" } },
  strict: true,
});
if (values.help) {
  console.log("Usage: bun run bench:units [--rounds N] [--calls N]\nPer-call cost of normalizeJob and scoreLocally, with JSON.parse as a same-run baseline.");
  process.exit(0);
}
const rounds = Number(values.rounds ?? 7);
const calls = Number(values.calls ?? 2000);

/** Median µs per call of `fn` over `rounds` rounds of `calls` calls, after a warm-up round. */
function microsPerCall(fn: () => unknown): number {
  for (let i = 0; i < calls; i++) fn();
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = Bun.nanoseconds();
    for (let i = 0; i < calls; i++) fn();
    perRound.push((Bun.nanoseconds() - start) / calls / 1000);
  }
  return perRound.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
}

const text = readFileSync(join(import.meta.dir, "../../tests/fixtures/jobs/marketplace-rich.json"), "utf8");
const doc = JSON.parse(text);
const paragraph =
  "We are a fintech startup building real-time trading dashboards for institutional clients. You will work with React, " +
  "TypeScript, GraphQL and Node.js, review pull requests and improve performance. WebSockets and accessibility are a plus. ";
const scoringJob = { title: "Senior Frontend Engineer (React)", description: paragraph.repeat(30).slice(0, 5000), skills: ["React", "TypeScript", "GraphQL"] };
const prompt = "Senior React/TypeScript developer, 8 years, fintech dashboards, prefers long-term hourly work, no WordPress";

const baseline = microsPerCall(() => JSON.parse(text));
const rows: [string, number, string][] = [
  ["JSON.parse of the rich document (baseline)", baseline, "—"],
  ["normalizeJob(rich marketplace document)", microsPerCall(() => normalizeJob(doc)), "goal < 100 µs"],
  ["scoreLocally(prompt, 5 KB description)", microsPerCall(() => scoreLocally(prompt, scoringJob)), "goal < 1,000 µs"],
];
console.log(`median of ${rounds} rounds × ${calls} calls`);
for (const [name, us, goal] of rows)
  console.log(`${name.padEnd(48)} ${us.toFixed(1).padStart(8)} µs  ${(us / baseline).toFixed(2).padStart(6)}× baseline  ${goal}`);
