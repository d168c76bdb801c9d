import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBridgeReceiver, type ScriptedReply } from "../helpers/bridge-receiver";
import { makeDoc } from "../helpers/factories";
import { runCommand, startServer, type ServerProcess } from "../helpers/process";

const ADMIN_TOKEN = "crash-test-admin-token-0123";
const CMD = [process.execPath, "run", "src/main.ts", "serve"];
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
const CREDITS = 25;
const DAY_MS = 86_400_000;

const cipherOf = (doc: Record<string, unknown>) => (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
const n = (db: Database, sql: string, ...args: string[]) => (db.query(sql).get(...args) as { n: number }).n;

interface Burst {
  env: Record<string, string>;
  key: string;
  accountId: string;
  acknowledged: string[];
  /** Applications still `processing` when the server died: id → phase. */
  inFlight: Map<string, string>;
  /** Every recorded application's final status body (acknowledged or cut off mid-answer), read from the restarted server. */
  final: Map<string, any>;
  /** The restarted server, still running. */
  server: ServerProcess;
}

/**
 * SIGKILLs a server in the middle of a burst of applies (one per document), restarts it on the same
 * database, and waits until every recorded application is final. Nothing acknowledged may be lost.
 */
async function killDuringBurst(
  docs: Record<string, unknown>[],
  opts: { env?: Record<string, string>; killWhen?: (acknowledged: number) => boolean } = {},
): Promise<Burst> {
  const dir = mkdtempSync(join(tmpdir(), "jp-crash-"));
  const env = {
    JOBPILOT_DB: join(dir, "crash.db"),
    JOBPILOT_SOURCES: "none",
    JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
    JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "150",
    JOBPILOT_APPLY_CONCURRENCY: "4",
    LOG_LEVEL: "warn",
    ...opts.env,
  };
  let server = await startServer(CMD, env);
  const created = (await (
    await fetch(`${server.url}/admin/accounts`, { method: "POST", headers: ADMIN, body: JSON.stringify({ name: "crash", credits: CREDITS }) })
  ).json()) as any;
  const key = created.apiKey as string;
  const ingested = (await (await fetch(`${server.url}/admin/jobs`, { method: "POST", headers: ADMIN, body: JSON.stringify(docs) })).json()) as any;
  expect(ingested.inserted).toBe(docs.length);

  const acknowledged: string[] = [];
  const base = server.url;
  const burst = docs.map(async (doc, i) => {
    await Bun.sleep(i * 8);
    try {
      const res = await fetch(`${base}/api/auto-apply-v2/apply`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ jobId: cipherOf(doc), coverLetter: `Letter ${i}` }),
      });
      if (res.status === 200) acknowledged.push(((await res.json()) as any).queueId);
    } catch {
      // the server died mid-request: not acknowledged, so nothing is promised
    }
  });
  // By default once 8 applications are acknowledged (each takes the sandbox 150 ms, two at a time, so most
  // are still in flight); a run that needs another moment names it. At most 5 s in, whatever happens.
  const killWhen = opts.killWhen ?? ((count: number) => count >= 8);
  for (const giveUp = performance.now() + 5_000; !killWhen(acknowledged.length) && performance.now() < giveUp; ) await Bun.sleep(2);
  server.proc.kill("SIGKILL");
  await server.proc.exited;
  await Promise.all(burst);
  expect(acknowledged.length).toBeGreaterThan(3);
  // The kill really landed mid-burst: some applications were still in flight.
  const before = new Database(env.JOBPILOT_DB);
  const rows = before.query("SELECT id, phase FROM applications WHERE status = 'processing'").all() as { id: string; phase: string }[];
  // An apply the kill cut off after its commit but before its answer is recorded without being acknowledged:
  // it is queued all the same, so the check below waits for every recorded application, not only the acknowledged.
  const recorded = (before.query("SELECT id FROM applications").all() as { id: string }[]).map((r) => r.id);
  before.close();
  for (const id of acknowledged) expect(recorded).toContain(id); // nothing acknowledged is lost
  const inFlight = new Map(rows.map((r) => [r.id, r.phase]));
  expect(inFlight.size).toBeGreaterThan(0);

  // The check below polls status often: lift this account's limits (the CLI works on the stopped server's database).
  const limits = await runCommand([process.execPath, "run", "src/main.ts", "account", "limits", "--account", created.account.id, "--multiplier", "100"], env);
  expect(limits.code, limits.stderr).toBe(0);
  server = await startServer(CMD, env);
  const final = new Map<string, any>();
  try {
    const deadline = Date.now() + 10_000;
    while (final.size < recorded.length && Date.now() < deadline) {
      for (const id of recorded) {
        if (final.has(id)) continue;
        const res = await fetch(`${server.url}/api/auto-apply-v2/status?queueId=${id}`, { headers: { "x-api-key": key } });
        expect(res.status).toBe(200); // nothing acknowledged is lost
        const body = (await res.json()) as any;
        if (body.applicationStatus !== "processing") final.set(id, body);
      }
      await Bun.sleep(50);
    }
    expect(final.size, server.output()).toBe(recorded.length);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { env, key, accountId: created.account.id, acknowledged, inFlight, final, server };
}

/**
 * The database after the run: intact, nothing left processing, and every held credit settled exactly
 * once — charged once per applied application, released (never charged) for every other outcome.
 * Returns the applied application ids.
 */
function checkCredits(b: Burst): Set<string> {
  const db = new Database(b.env.JOBPILOT_DB, { readonly: true });
  try {
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(n(db, "SELECT count(*) AS n FROM applications WHERE status = 'processing' OR credit_held")).toBe(0);
    const applied = new Set((db.query("SELECT id FROM applications WHERE status = 'applied'").all() as { id: string }[]).map((r) => r.id));
    const charged = (db.query("SELECT ref FROM credit_ledger WHERE reason = 'charge'").all() as { ref: string }[]).map((r) => r.ref);
    expect(charged.length).toBe(new Set(charged).size); // never charged twice
    expect(new Set(charged)).toEqual(applied); // charged for every success and for nothing else
    const account = db.query("SELECT credits_balance AS balance, credits_held AS held FROM accounts WHERE id = ?").get(b.accountId);
    // A hold released twice would leave `held` negative; one never released, positive.
    expect(account).toEqual({ balance: CREDITS - applied.size, held: 0 });
    return applied;
  } finally {
    db.close();
  }
}

// SIGKILL a server in the middle of a burst of applies, restart it on the same database, and check that
// nothing acknowledged was lost, nothing was submitted or charged twice, and the database is intact.
describe("crash safety of the apply queue", () => {
  test("kill -9 during a burst of applies: every application ends final, credits = applied, no double submission", async () => {
    const docs = Array.from({ length: 40 }, () => makeDoc({ publishTime: new Date().toISOString() }));
    const b = await killDuringBurst(docs);
    expect(await b.server.stop()).toBe(0);
    const applied = checkCredits(b);
    expect(applied.size).toBeGreaterThan(0);
    const db = new Database(b.env.JOBPILOT_DB, { readonly: true });
    try {
      // the marketplace received each job at most once
      const twice = db
        .query("SELECT job_ciphertext, count(*) AS n FROM sandbox_submissions WHERE status = 'applied' GROUP BY job_ciphertext HAVING n > 1")
        .all();
      expect(twice).toEqual([]);
      expect(n(db, "SELECT count(*) AS n FROM sandbox_submissions WHERE status = 'applied'")).toBe(applied.size);
    } finally {
      db.close();
    }
  }, 30_000);

  test("kill -9 while the sandbox refuses half the jobs: every failure releases its credit once and is never charged", async () => {
    // The sandbox's rules: a job posted more than 30 days ago no longer takes proposals (not_available).
    const stale = new Date(Date.now() - 40 * DAY_MS).toISOString();
    const docs = Array.from({ length: 40 }, (_, i) => makeDoc({ publishTime: i % 2 === 0 ? stale : new Date().toISOString() }));
    const staleJobs = new Set(docs.filter((_, i) => i % 2 === 0).map(cipherOf));
    const b = await killDuringBurst(docs);
    expect(await b.server.stop()).toBe(0);
    const applied = checkCredits(b);

    const db = new Database(b.env.JOBPILOT_DB, { readonly: true });
    try {
      const apps = db.query("SELECT id, job_ciphertext AS job, status FROM applications").all() as { id: string; job: string; status: string }[];
      const refusedInFlight = apps.filter((a) => staleJobs.has(a.job) && b.inFlight.has(a.id));
      expect(refusedInFlight.length, "a refusal was in flight when the server died").toBeGreaterThan(0);
      // Fresh jobs are applied to until the freelancer's 80 Connects run out, then refused too.
      for (const a of apps) expect(staleJobs.has(a.job) ? ["not_available"] : ["applied", "not_enough_connects"], a.job).toContain(a.status);
      expect(applied.size).toBeGreaterThan(0);
      for (const a of refusedInFlight) expect(b.final.get(a.id).errorMessage).toContain("no longer available");
      // The marketplace decided each application once, whatever the kill interrupted.
      expect(n(db, "SELECT count(*) AS n FROM sandbox_submissions")).toBe(n(db, "SELECT count(*) AS n FROM applications"));
      expect(n(db, "SELECT count(*) AS n FROM sandbox_submissions WHERE status != 'applied'")).toBe(apps.length - applied.size);
    } finally {
      db.close();
    }
  }, 30_000);

  test("kill -9 with a marketplace that cannot tell what arrived: interrupted submissions end failed and uncharged, the rest resume", async () => {
    // The user's own submitter (bridge driver): it takes a while to submit, and after the restart it
    // answers every lookup "still processing", which the driver reads as "cannot tell".
    const secret = "crash-test-bridge-secret-0123456789";
    const receiver = await startBridgeReceiver({ secret });
    const profile = { type: "default", name: "Developer", hourlyRate: 50, currency: "USD", profileId: "~01crashprofile" };
    receiver.setFallback((req): ScriptedReply => {
      const type = req.body?.type;
      if (type === "freelancers.list")
        return { json: { freelancers: [{ id: "~01crashprofile", name: "Crash Test", avatarUrl: null, baseHourlyRate: 50, profiles: [profile] }] } };
      if (type === "proposal.submit") return { delayMs: 150, json: { status: "applied", message: "Submitted by the test bridge" } };
      if (type === "proposal.lookup") return { json: { status: "processing" } };
      return { status: 404, json: { error: "not scripted" } };
    });
    try {
      const docs = Array.from({ length: 40 }, () => makeDoc({ publishTime: new Date().toISOString() }));
      const later = makeDoc({ publishTime: new Date().toISOString() });
      const submits = () => receiver.requests.filter((r) => r.body?.type === "proposal.submit").length;
      const b = await killDuringBurst(docs, {
        env: { JOBPILOT_MARKETPLACE_DRIVER: "bridge", JOBPILOT_BRIDGE_URL: receiver.url, JOBPILOT_BRIDGE_SECRET: secret, JOBPILOT_BRIDGE_TIMEOUT_MS: "5000" },
        // Some submissions done, two in the submitter's hands, more still queued.
        killWhen: () => submits() >= 6,
      });
      try {
        // Resumes: a new application after the restart goes through as usual.
        const ingested = await fetch(`${b.server.url}/admin/jobs`, { method: "POST", headers: ADMIN, body: JSON.stringify([later]) });
        expect(ingested.status).toBe(200);
        const res = await fetch(`${b.server.url}/api/auto-apply-v2/apply`, {
          method: "POST",
          headers: { "x-api-key": b.key, "content-type": "application/json" },
          body: JSON.stringify({ jobId: cipherOf(later), coverLetter: "After the restart" }),
        });
        expect(res.status).toBe(200);
        const queueId = ((await res.json()) as any).queueId as string;
        let after: any;
        for (const deadline = Date.now() + 5_000; Date.now() < deadline; await Bun.sleep(50)) {
          after = await (await fetch(`${b.server.url}/api/auto-apply-v2/status?queueId=${queueId}`, { headers: { "x-api-key": b.key } })).json();
          if (after.applicationStatus !== "processing") break;
        }
        expect(after.applicationStatus).toBe("applied");
      } finally {
        expect(await b.server.stop()).toBe(0);
      }
      const applied = checkCredits(b);

      const submitting = [...b.inFlight].filter(([, phase]) => phase === "submitting").map(([id]) => id);
      const interrupted = [...b.final].filter(([, s]) => s.errorMessage?.includes("could not confirm whether it arrived")).map(([id]) => id);
      expect(interrupted.length, "a submission was in flight when the server died").toBeGreaterThan(0);
      for (const id of interrupted) {
        expect(submitting).toContain(id); // only what was being handed over can be in doubt
        expect(b.final.get(id).applicationStatus).toBe("failed");
        expect(applied.has(id)).toBe(false);
      }
      // Everything else, including what was still queued at the kill, was submitted after the restart.
      for (const [id, s] of b.final) if (!interrupted.includes(id)) expect(s.applicationStatus, id).toBe("applied");
      const lookups = receiver.requests.filter((r) => r.body?.type === "proposal.lookup").map((r) => r.body.applicationId);
      for (const id of interrupted) expect(lookups).toContain(id);
      // In doubt means never sent again: each application reached the submitter at most once.
      const sent = receiver.requests.filter((r) => r.body?.type === "proposal.submit").map((r) => r.body.applicationId as string);
      expect(sent.length).toBe(new Set(sent).size);
    } finally {
      await receiver.close();
    }
  }, 30_000);
});
