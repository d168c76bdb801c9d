import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeDoc } from "../helpers/factories";
import { createMigratedPgDatabase, PG_BACKEND } from "../helpers/postgres";
import { startServer } from "../helpers/process";

interface Row {
  id: string;
  job_ciphertext: string;
  experiment_id: string;
  arm_id: string;
}
const ROWS = "SELECT id, job_ciphertext, experiment_id, arm_id FROM applications";

const ADMIN_TOKEN = "experiment-crash-admin-token-01";
const CMD = [process.execPath, "run", "src/main.ts", "serve"];
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

// SIGKILL a server right after jobs were drafted and applied to under an experiment, restart it on the same
// database: every job keeps the arm its response named, and the arm stored with each application is that arm.
// On the suite's PostgreSQL pass (JOBPILOT_TEST_BACKEND=postgres) the server runs on a fresh PostgreSQL database.
describe("crash safety of experiment assignments", () => {
  test("kill -9 after drafts and applies: after a restart each job keeps its arm, and each application carries it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-experiment-crash-"));
    const pg = PG_BACKEND ? await createMigratedPgDatabase() : undefined;
    const env = {
      JOBPILOT_DB: join(dir, "crash.db"),
      ...(pg ? { JOBPILOT_DATABASE_URL: pg.url } : {}),
      JOBPILOT_SOURCES: "none",
      JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
      JOBPILOT_MARKETPLACE_DRIVER: "sandbox",
      JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "0",
      LOG_LEVEL: "warn",
    };
    let server = await startServer(CMD, env);
    try {
      const created = (await (
        await fetch(`${server.url}/admin/accounts`, { method: "POST", headers: ADMIN, body: JSON.stringify({ name: "crash", credits: 50 }) })
      ).json()) as any;
      const headers = { "x-api-key": created.apiKey as string, "content-type": "application/json" };
      const post = async (url: string, path: string, body: unknown) => {
        const res = await fetch(`${url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as any };
      };
      const docs = Array.from({ length: 8 }, (_, i) => makeDoc({ title: `Crash job ${i}`, fixed: 500 }));
      const ciphers = docs.map((d) => (d.jobTile as { job: { ciphertext: string } }).job.ciphertext);
      const ingested = (await (await fetch(`${server.url}/admin/jobs`, { method: "POST", headers: ADMIN, body: JSON.stringify(docs) })).json()) as any;
      expect(ingested.inserted).toBe(docs.length);
      const experiment = await post(server.url, "/api/v1/experiments", {
        name: "crash",
        arms: [{ name: "plain" }, { name: "high", bidMultiplier: 1.4 }],
      });
      expect(experiment.status, JSON.stringify(experiment.body)).toBe(201);
      const id = experiment.body.experiment.id as string;

      // Half the jobs drafted only, half drafted and applied to; the kill lands right after the last answer.
      const armOf = new Map<string, string>();
      const queued = new Map<string, string>();
      for (const [i, cipher] of ciphers.entries()) {
        const draft = await post(server.url, "/api/auto-apply-v2/generate-proposal", { jobId: cipher, experimentId: id });
        expect(draft.status, JSON.stringify(draft.body)).toBe(200);
        armOf.set(cipher, draft.body.experiment.armId);
        if (i % 2 === 1) continue;
        const applied = await post(server.url, "/api/auto-apply-v2/apply", { jobId: cipher, coverLetter: draft.body.proposal });
        expect(applied.status, JSON.stringify(applied.body)).toBe(200);
        expect(applied.body.experiment.armId).toBe(armOf.get(cipher)!);
        queued.set(applied.body.queueId, cipher);
      }
      server.proc.kill("SIGKILL");
      await server.proc.exited;

      server = await startServer(CMD, env);
      for (const [i, cipher] of ciphers.entries()) {
        const draft = await post(server.url, "/api/auto-apply-v2/generate-proposal", { jobId: cipher });
        expect(draft.body.experiment?.armId, JSON.stringify(draft.body)).toBe(armOf.get(cipher)!);
        if (i % 2 === 0) continue;
        const applied = await post(server.url, "/api/auto-apply-v2/apply", { jobId: cipher, coverLetter: draft.body.proposal });
        expect(applied.status, JSON.stringify(applied.body)).toBe(200);
        expect(applied.body.experiment.armId).toBe(armOf.get(cipher)!);
        queued.set(applied.body.queueId, cipher);
      }
      const results = (await (await fetch(`${server.url}/api/v1/experiments/${id}`, { headers })).json()) as any;
      for (const arm of results.experiment.arms) {
        expect(arm.assigned).toBe([...armOf.values()].filter((a) => a === arm.id).length);
      }
      await server.stop();

      let rows: Row[];
      if (pg) {
        const sql = new SQL({ url: pg.url, max: 1 });
        rows = (await sql.unsafe(ROWS)) as Row[];
        await sql.close();
      } else {
        const db = new Database(env.JOBPILOT_DB, { readonly: true });
        rows = db.query(ROWS).all() as Row[];
        db.close();
      }
      expect(rows.length).toBe(ciphers.length);
      for (const row of rows) {
        expect(queued.get(row.id)).toBe(row.job_ciphertext);
        expect([row.experiment_id, row.arm_id]).toEqual([id, armOf.get(row.job_ciphertext)!]);
      }
    } finally {
      if (server.proc.exitCode === null) await server.stop();
      await pg?.drop();
    }
  }, 60_000);
});
