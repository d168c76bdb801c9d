import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../helpers/process";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

const FIXTURE = readFileSync(join(import.meta.dir, "../fixtures/boards/remoteok.json"), "utf8");

// Issue 8's end-to-end promise: a public board's jobs reach a matching feed and its webhook, with the board named.
describe("a public board feeds a feed's webhook (end to end)", () => {
  test("RemoteOK jobs (from a local replay) match a feed, reach its webhook once, and show in source status", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-board-"));
    const db = join(dir, "board.db");
    let boardRequests = 0;
    const board = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        boardRequests++;
        expect(req.headers.get("user-agent")).toContain("jobpilot");
        return new Response(FIXTURE, { headers: { "content-type": "application/json", etag: '"v1"' } });
      },
    });
    const receiver = await startWebhookReceiver();
    const matched = () => receiver.received.map((r) => r.json).filter((j) => j.type !== "webhook.test");
    const env = { JOBPILOT_DB: db, LOG_LEVEL: "warn", JOBPILOT_WEBHOOK_ALLOW_PRIVATE: "true" };
    try {
      // First run without sources: the account and a feed exist before the board is ever polled.
      const first = await startServer([process.execPath, "run", "src/main.ts", "serve"], { ...env, JOBPILOT_SOURCES: "none" });
      const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(first.output())![1]!;
      let feedId: string;
      try {
        const res = await fetch(first.url + "/api/v1/feeds", {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ title: "Go backends", minScore: 0, includes: ["postgres"], platforms: ["web"], webhookUrl: receiver.url }),
        });
        expect(res.status).toBe(201);
        feedId = ((await res.json()) as any).feed.id;
      } finally {
        expect(await first.stop()).toBe(0);
      }

      const server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
        ...env,
        JOBPILOT_SOURCES: "remoteok",
        JOBPILOT_SOURCE_BASE_URLS: `remoteok=http://127.0.0.1:${board.port}`,
      });
      try {
        // Saving the webhook URL sent a webhook.test; the board's jobs come after it.
        await receiver.waitFor(2, 15_000);
        const hook = matched()[0]!;
        expect(hook).toMatchObject({ platform: "web", source: "remoteok", feedId });
        expect(hook.url).toStartWith("https://remoteok.com/remote-jobs/");
        expect(hook.title).toContain("Backend Engineer");
        // The board's credit travels with the job (its terms ask for it).
        expect(hook.description).toContain("Remote OK");

        const listing = (await (await fetch(`${server.url}/api/v1/feeds/${feedId}/jobs`, { headers: { "x-api-key": key } })).json()) as any;
        expect(listing.total).toBeGreaterThanOrEqual(1);
        expect(listing.jobs[0].job).toMatchObject({ platform: "web", source: "remoteok" });
        // Every job that entered the feed is delivered, each once.
        await receiver.waitFor(1 + listing.total, 10_000);
        await Bun.sleep(200);
        expect(matched().length).toBe(listing.total);
        expect(listing.jobs.every((j: any) => /postgres/i.test(j.job.title + j.job.description))).toBe(true);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      expect(boardRequests).toBe(1);

      // A restart within the interval does not poll again (the schedule is stored), so nothing is re-notified.
      const again = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
        ...env,
        JOBPILOT_SOURCES: "remoteok",
        JOBPILOT_SOURCE_BASE_URLS: `remoteok=http://127.0.0.1:${board.port}`,
      });
      const delivered = receiver.received.length;
      try {
        await Bun.sleep(1500);
      } finally {
        expect(await again.stop()).toBe(0);
      }
      expect(boardRequests).toBe(1);
      expect(receiver.received.length).toBe(delivered);

      const status = Bun.spawnSync([process.execPath, "run", "src/main.ts", "source", "status", "--json"], {
        env: { ...process.env, ...env, JOBPILOT_SOURCES: "remoteok" },
      });
      expect(status.exitCode).toBe(0);
      const rows = JSON.parse(status.stdout.toString()) as any[];
      const remoteok = rows.find((r) => r.name === "remoteok");
      expect(remoteok).toMatchObject({ enabled: true, lastError: null, consecutiveFailures: 0 });
      expect(remoteok.lastSeen).toBeGreaterThanOrEqual(2);
      expect(remoteok.totalNew).toBe(remoteok.lastSeen);
      expect(remoteok.nextRunAtTs).toBeGreaterThan(Date.now() + 30 * 60_000);
    } finally {
      board.stop(true);
      await receiver.close();
    }
  }, 60_000);
});
