import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeDoc } from "../helpers/factories";
import { runCommand, startServer } from "../helpers/process";

const ADMIN_TOKEN = "crash-test-admin-token-0123";

// SIGKILL a server in the middle of a burst of applies, restart it on the same database, and check that
// nothing acknowledged was lost, nothing was submitted or charged twice, and the database is intact.
describe("crash safety of the apply queue", () => {
  test("kill -9 during a burst of applies: every application ends final, credits = applied, no double submission", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-crash-"));
    const env = {
      JOBPILOT_DB: join(dir, "crash.db"),
      JOBPILOT_SOURCES: "none",
      JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
      JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "150",
      JOBPILOT_APPLY_CONCURRENCY: "4",
      LOG_LEVEL: "warn",
    };
    const cmd = [process.execPath, "run", "src/main.ts", "serve"];
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

    let server = await startServer(cmd, env);
    const created = (await (await fetch(`${server.url}/admin/accounts`, { method: "POST", headers: admin, body: JSON.stringify({ name: "crash", credits: 25 }) })).json()) as any;
    const key = created.apiKey as string;
    const docs = Array.from({ length: 40 }, () => makeDoc({ publishTime: new Date().toISOString() }));
    const ingested = (await (await fetch(`${server.url}/admin/jobs`, { method: "POST", headers: admin, body: JSON.stringify(docs) })).json()) as any;
    expect(ingested.inserted).toBe(40);

    const acknowledged: string[] = [];
    const base = server.url;
    const burst = docs.map(async (doc, i) => {
      await Bun.sleep(i * 8);
      try {
        const res = await fetch(`${base}/api/auto-apply-v2/apply`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ jobId: (doc.jobTile as any).job.ciphertext, coverLetter: `Letter ${i}` }),
        });
        if (res.status === 200) acknowledged.push(((await res.json()) as any).queueId);
      } catch {
        // the server died mid-request: not acknowledged, so nothing is promised
      }
    });
    await Bun.sleep(220);
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    await Promise.all(burst);
    expect(acknowledged.length).toBeGreaterThan(3);
    // The kill really landed mid-burst: some applications were still in flight.
    const before = new Database(env.JOBPILOT_DB);
    const inFlight = before.query("SELECT phase, count(*) AS n FROM applications WHERE status = 'processing' GROUP BY phase").all() as { phase: string; n: number }[];
    before.close();
    expect(inFlight.reduce((a, r) => a + r.n, 0)).toBeGreaterThan(0);

    // The check below polls status often: lift this account's limits (the CLI works on the stopped server's database).
    const limits = await runCommand([process.execPath, "run", "src/main.ts", "account", "limits", "--account", created.account.id, "--multiplier", "100"], env);
    expect(limits.code, limits.stderr).toBe(0);
    server = await startServer(cmd, env);
    try {
      const deadline = Date.now() + 20_000;
      const final = new Map<string, any>();
      while (final.size < acknowledged.length && Date.now() < deadline) {
        for (const id of acknowledged) {
          if (final.has(id)) continue;
          const res = await fetch(`${server.url}/api/auto-apply-v2/status?queueId=${id}`, { headers: { "x-api-key": key } });
          expect(res.status).toBe(200); // nothing acknowledged is lost
          const body = (await res.json()) as any;
          if (body.applicationStatus !== "processing") final.set(id, body);
        }
        await Bun.sleep(50);
      }
      expect(final.size, server.output()).toBe(acknowledged.length);
    } finally {
      expect(await server.stop()).toBe(0);
    }

    const db = new Database(env.JOBPILOT_DB, { readonly: true });
    try {
      expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      const applied = (db.query("SELECT count(*) AS n FROM applications WHERE status = 'applied'").get() as { n: number }).n;
      const processing = (db.query("SELECT count(*) AS n FROM applications WHERE status = 'processing'").get() as { n: number }).n;
      const charges = (db.query("SELECT count(*) AS n FROM credit_ledger WHERE reason = 'charge'").get() as { n: number }).n;
      const account = db.query("SELECT credits_balance AS balance, credits_held AS held FROM accounts WHERE id = ?").get(created.account.id) as { balance: number; held: number };
      expect(processing).toBe(0);
      expect(applied).toBeGreaterThan(0);
      expect(charges).toBe(applied);
      expect(account).toEqual({ balance: 25 - applied, held: 0 });
      // the marketplace received each job at most once
      const twice = db.query("SELECT job_ciphertext, count(*) AS n FROM sandbox_submissions WHERE status = 'applied' GROUP BY job_ciphertext HAVING n > 1").all();
      expect(twice).toEqual([]);
      const appliedSubmissions = (db.query("SELECT count(*) AS n FROM sandbox_submissions WHERE status = 'applied'").get() as { n: number }).n;
      expect(appliedSubmissions).toBe(applied);
    } finally {
      db.close();
    }
  }, 60_000);
});
