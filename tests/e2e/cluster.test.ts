import { expect, test } from "bun:test";
import { SQL } from "bun";
import { makeDoc } from "../helpers/factories";
import { createPgDatabase, describePg, type TestPgDatabase } from "../helpers/postgres";
import { runCommand, startServer, type ServerProcess } from "../helpers/process";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

const ADMIN_TOKEN = "cluster-test-admin-token-0123";
const CMD = [process.execPath, "run", "src/main.ts", "serve"];
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
const APPLIES = 300;
const JOBS = 1000;
const FEEDS = 3;
const LEASE_MS = 5_000;

const cipherOf = (doc: Record<string, unknown>) => (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;

// Three `serve` processes on one PostgreSQL database, requests spread over them as a load balancer would,
// one of them SIGKILLed in the middle of the burst: what the other two must still guarantee.
describePg("three nodes on one PostgreSQL", () => {
  test("300 applies and 1,000 jobs with webhook feeds, one node killed mid-burst: nothing lost, nothing twice, order per feed kept", async () => {
    const pg: TestPgDatabase = await createPgDatabase();
    const receiver = await startWebhookReceiver();
    const env = {
      JOBPILOT_DATABASE_URL: pg.url,
      JOBPILOT_DATABASE_POOL_SIZE: "6",
      JOBPILOT_SOURCES: "none",
      JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
      JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "20",
      JOBPILOT_TASK_LEASE_MS: String(LEASE_MS),
      JOBPILOT_WEBHOOK_ALLOW_PRIVATE: "true",
      // A dead node's feeds are free again after 3 × this (their lease).
      JOBPILOT_WEBHOOK_TIMEOUT_MS: "2000",
      // The engagement sync's schedule ticks every second on each node; the cluster runs each tick once.
      JOBPILOT_SYNC_CRON: "* * * * * *",
      // Debug logs name every task a node finishes (counted below).
      LOG_LEVEL: "debug",
    };
    const nodes: ServerProcess[] = [];
    try {
      const create = await runCommand(
        [process.execPath, "run", "src/main.ts", "account", "create", "--name", "agency", "--credits", String(APPLIES + 50), "--json"],
        env,
      );
      expect(create.code, create.stderr).toBe(0);
      const created = JSON.parse(create.stdout);
      const limits = await runCommand(
        [process.execPath, "run", "src/main.ts", "account", "limits", "--account", created.accountId, "--multiplier", "1000"],
        env,
      );
      expect(limits.code, limits.stderr).toBe(0);
      // Started together: the migrator's advisory lock lets one migrate and the others find it done.
      nodes.push(...(await Promise.all([0, 1, 2].map(() => startServer(CMD, env)))));
      const startedAt = Date.now();
      let turn = 0;
      const next = () => nodes.filter((n) => n.proc.exitCode === null && !n.proc.killed)[turn++ % 3] ?? nodes[0]!;
      const headers = { "x-api-key": created.apiKey as string, "content-type": "application/json" };
      const call = async (method: string, path: string, body?: unknown, h: Record<string, string> = headers) => {
        const res = await fetch(next().url + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as any };
      };

      const feedIds: string[] = [];
      for (let i = 0; i < FEEDS; i++) {
        const feed = await call("POST", "/api/v1/feeds", { title: `All jobs ${i}`, minScore: 0, webhookUrl: receiver.url });
        expect(feed.status).toBe(201);
        feedIds.push(feed.body.feed.id);
      }
      const freelancers = await call("GET", "/api/auto-apply-v2/freelancers");
      const freelancer = freelancers.body.freelancers[0].id as string;
      const connects = await call("POST", `/admin/sandbox/freelancers/${encodeURIComponent(freelancer)}/connects`, { connects: 1_000_000 }, ADMIN);
      expect(connects.status).toBe(200);

      const docs = Array.from({ length: JOBS }, () => makeDoc({ fixed: 300, publishTime: new Date().toISOString() }));
      for (let i = 0; i < JOBS; i += 100) {
        const ingested = await call("POST", "/admin/jobs", docs.slice(i, i + 100), ADMIN);
        expect(ingested.status).toBe(200);
      }

      // The burst: 300 applies over the three nodes, 16 at a time; node 2 dies once 100 are acknowledged.
      const acknowledged: string[] = [];
      let sent = 0;
      const victim = nodes[1]!;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (sent < APPLIES) {
            const doc = docs[sent++]!;
            try {
              const res = await call("POST", "/api/auto-apply-v2/apply", { jobId: cipherOf(doc), coverLetter: "Hello" });
              if (res.status === 200) acknowledged.push(res.body.queueId);
            } catch {
              // the node died mid-request: not acknowledged, nothing promised
            }
            if (acknowledged.length >= 100 && !victim.proc.killed) victim.proc.kill("SIGKILL");
          }
        }),
      );
      expect(victim.proc.killed).toBe(true);
      expect(acknowledged.length).toBeGreaterThan(APPLIES - 20);

      // Every acknowledged application ends final, read from the surviving nodes (the dead node's claimed
      // work comes back after its lease).
      const final = new Map<string, string>();
      for (const deadline = Date.now() + 30_000; final.size < acknowledged.length && Date.now() < deadline; await Bun.sleep(100)) {
        for (const id of acknowledged) {
          if (final.has(id)) continue;
          const status = await call("GET", `/api/auto-apply-v2/status?queueId=${id}`);
          expect(status.status).toBe(200);
          if (status.body.applicationStatus !== "processing") final.set(id, status.body.applicationStatus);
        }
      }
      expect(final.size).toBe(acknowledged.length);

      const sql = new SQL({ url: pg.url, max: 1 });
      try {
        // Wait until every matched event is delivered (the deliveries of the dead node come back too, after
        // its feed leases expire). A slow, shared machine takes longer; the wait says so rather than a
        // missing arrival below.
        let undelivered = -1;
        for (const deadline = Date.now() + 60_000; Date.now() < deadline; await Bun.sleep(100)) {
          const [row] = await sql`SELECT count(*)::int AS n FROM events WHERE status IN ('pending', 'retrying')`;
          undelivered = row.n;
          if (undelivered === 0) break;
        }
        expect(undelivered, "events still waiting to be delivered after 60 s").toBe(0);
        const stats = (await sql`SELECT count(*)::int AS n FROM applications WHERE status = 'processing' OR credit_held`)[0];
        expect(stats.n).toBe(0);
        const applied = (await sql`SELECT id FROM applications WHERE status = 'applied'`).map((r: { id: string }) => r.id);
        const charged = (await sql`SELECT ref FROM credit_ledger WHERE reason = 'charge'`).map((r: { ref: string }) => r.ref);
        expect(charged.length).toBe(new Set(charged).size); // never charged twice
        expect(new Set(charged)).toEqual(new Set(applied)); // charged exactly for what was applied
        const account = (await sql`SELECT credits_balance::int AS balance, credits_held::int AS held FROM accounts WHERE id = ${created.accountId}`)[0];
        expect(account).toEqual({ balance: APPLIES + 50 - applied.length, held: 0 });
        const twice = await sql`SELECT job_ciphertext FROM sandbox_submissions WHERE status = 'applied' GROUP BY job_ciphertext HAVING count(*) > 1`;
        expect([...twice]).toEqual([]); // the marketplace received each job at most once
        for (const id of acknowledged) expect(["applied", "failed"]).toContain(final.get(id)!);

        // Every matched event delivered at least once, and in order per feed.
        const events = (await sql`SELECT id, feed_id, seq::bigint AS seq FROM events WHERE type = 'job.matched'`) as {
          id: string;
          feed_id: string;
          seq: string;
        }[];
        expect(events.length).toBe(JOBS * FEEDS);
        const byId = new Map(events.map((e) => [e.id, e]));
        const firstArrival = new Map<string, number>();
        receiver.received.forEach((r, i) => {
          const id = r.headers["webhook-id"]!;
          if (byId.has(id) && !firstArrival.has(id)) firstArrival.set(id, i);
        });
        for (const e of events) expect(firstArrival.has(e.id), `event ${e.id} never arrived`).toBe(true);
        for (const feedId of feedIds) {
          const arrived = events
            .filter((e) => e.feed_id === feedId)
            .sort((a, b) => firstArrival.get(a.id)! - firstArrival.get(b.id)!)
            .map((e) => Number(e.seq));
          expect(arrived).toEqual([...arrived].sort((a, b) => a - b));
        }
      } finally {
        await sql.close();
      }

      // Each tick of the every-second schedule ran once across the three nodes: no more runs than ticks went
      // by (three nodes each running every tick would make about three times as many), and it kept running.
      const ticks = Math.floor((Date.now() - startedAt) / 1000) + 1;
      const syncRuns = nodes.map(
        (n) =>
          n
            .output()
            .split("\n")
            .filter((l) => l.includes('"task done"') && l.includes('"apply.sync"')).length,
      );
      const total = syncRuns.reduce((a, b) => a + b, 0);
      expect(total, `sync runs per node ${syncRuns.join(", ")} in ${ticks} ticks`).toBeLessThanOrEqual(ticks);
      expect(total).toBeGreaterThanOrEqual(Math.floor(ticks / 2));
    } finally {
      await Promise.all(nodes.filter((n) => !n.proc.killed).map((n) => n.stop()));
      await receiver.close();
      await pg.drop();
    }
  }, 180_000);
});
