/**
 * bun run bench:governor — what the account-safety governor adds to a submission: its judgement (working hours,
 * caps, pacing, budgets, balance) inside the transaction that lets a submission go, and the similarity guard over
 * the freelancer's last 30 days of letters outside it, on a SQLite file whose freelancer has sent `--sent` proposals in the
 * last 30 days (default 450: 15 a day, the default cap). Beside it, as a same-run baseline, an empty transaction
 * on the same database. Median of several rounds; the ratio is what to compare across machines.
 *
 * Options: --sent N (default 450) --rounds N (default 5) --calls N (default 200)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { tx } from "../../src/db/client";
import { rawExec } from "../../src/db/query";
import { ManualClock } from "../../src/lib/clock";
import { ensureOwnFreelancer } from "../../src/marketplace/sandbox/driver";
import { setConnects } from "../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../src/marketplace/sandbox/rules";
import { SUBMIT_TASK } from "../../src/modules/applications/service";
import { submitApplication } from "../../src/modules/applications/submit.task";
import { judge, similarityHold } from "../../src/modules/automation/governor";
import { ingestDocuments } from "../../src/modules/intake/ingest";
import { claimTasks, completeTask } from "../../src/worker/tasks";
import { createTestApp } from "../../tests/helpers/app";
import { makeDoc } from "../../tests/helpers/factories";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { sent: { type: "string" }, rounds: { type: "string" }, calls: { type: "string" }, help: { type: "boolean", short: "h" } },
  strict: true,
});
if (values.help) {
  console.log("Usage: bun run bench:governor [--sent N] [--rounds N] [--calls N]");
  process.exit(0);
}
const SENT = Number(values.sent ?? 450);
const ROUNDS = Number(values.rounds ?? 5);
const CALLS = Number(values.calls ?? 200);
const DAY = 86_400_000;

const clock = new ManualClock(Date.UTC(2026, 11, 7, 10, 0) - 30 * DAY);
const t = await createTestApp({ clock, dbPath: join(mkdtempSync(join(tmpdir(), "jp-bench-gov-")), "bench.db"), config: { sandboxApplyLatencyMs: 0 } });
const a = await t.account({ credits: SENT + 10 });
await ensureOwnFreelancer(t.deps.db, a.accountId, clock.now());
await setConnects(t.deps.db, freelancerIdFor(a.accountId), 1_000_000);
/** A 120-word letter of its own for job i (words drawn from 2,000 by a seeded generator): the guard compares each new letter with every one sent in 30 days. */
function letter(i: number): string {
  let x = (i + 1) * 2_654_435_761;
  const next = () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x;
  };
  return Array.from({ length: 120 }, () => `w${next() % 2000}`).join(" ");
}

console.log(`setting up: ${SENT} proposals sent over 30 days …`);
for (let i = 0; i < SENT; i++) {
  clock.advance(Math.floor((30 * DAY) / SENT));
  const doc = makeDoc({ fixed: 500, publishTime: new Date(clock.now() - 60_000).toISOString() });
  await ingestDocuments(t.deps, [doc], { source: "bench" });
  const res = await t.request("POST", "/api/auto-apply-v2/apply", {
    key: a.apiKey,
    json: { jobId: (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext, coverLetter: letter(i) },
  });
  if (res.status !== 200) throw new Error(`apply answered ${res.status}: ${res.text}`);
  for (const task of await claimTasks(t.deps.db, [SUBMIT_TASK], 10, clock.now(), 60_000)) {
    await submitApplication(t.deps, task.payload as never, {} as never);
    await completeTask(t.deps.db, task);
  }
}
// The sent ones count as let go by the governor, as they would have been with it on.
await rawExec(t.deps.db, "bench.governed", "UPDATE applications SET governed_at_ts = processed_at_ts, estimated_connects = 16 WHERE status = 'applied'", []);
await rawExec(t.deps.db, "bench.limits", "INSERT INTO automation_limits (account_id, freelancer_id, limits, updated_at_ts) VALUES (?, '', ?, 0)", [
  a.accountId,
  JSON.stringify({
    proposalsPerDay: 200,
    proposalsPerHour: 50,
    minGapMinutes: 0,
    connectsPerDay: 100_000,
    connectsPerWeek: 100_000,
    connectsPerMonth: 100_000,
  }),
]);
t.deps.config.governor = true;
const submission = {
  accountId: a.accountId,
  freelancerId: freelancerIdFor(a.accountId),
  applicationId: "bench-application",
  coverLetter: letter(SENT + 1),
  boostBids: 0,
  connectsRequired: 8,
  byPerson: false,
  automated: false,
  overBudget: "skip" as const,
  approved: false,
};

async function microsPerCall(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(CALLS, 50); i++) await fn();
  const perRound: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = Bun.nanoseconds();
    for (let i = 0; i < CALLS; i++) await fn();
    perRound.push((Bun.nanoseconds() - start) / CALLS / 1000);
  }
  return perRound.sort((x, y) => x - y)[Math.floor(ROUNDS / 2)]!;
}

const verdict = await tx(t.deps.db, (db) => judge(t.deps, db, submission, clock.now()));
if (verdict.kind !== "go") throw new Error(`the bench's submission should go, got ${JSON.stringify(verdict)}`);
const empty = await microsPerCall(() => tx(t.deps.db, async () => {}));
if (await similarityHold(t.deps, t.deps.db, submission, clock.now())) throw new Error("the bench's letter should not be held");
const judged = await microsPerCall(() => tx(t.deps.db, (db) => judge(t.deps, db, submission, clock.now())));
const compared = await microsPerCall(() => similarityHold(t.deps, t.deps.db, submission, clock.now()));
console.log(`\ngovernor, ${SENT} letters sent in the last 30 days (median of ${ROUNDS} rounds × ${CALLS} calls):`);
console.log(`  empty transaction (baseline)              ${empty.toFixed(0)} µs`);
console.log(`  judge() in its transaction                ${judged.toFixed(0)} µs   (${(judged / empty).toFixed(1)} × baseline; holds the write lock)`);
console.log(`  similarity guard, outside the transaction ${compared.toFixed(0)} µs   (once per submission that goes)`);
await t.close();
