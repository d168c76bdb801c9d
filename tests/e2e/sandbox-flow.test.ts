import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../helpers/process";

// What the README promises: a fresh `serve` shows sandbox jobs flowing into a feed created over HTTP.
describe("sandbox jobs flow into feeds (end to end)", () => {
  test("a feed created with curl-like calls fills with sandbox jobs, scored locally when it has a prompt", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-flow-"));
    const server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
      JOBPILOT_DB: join(dir, "flow.db"),
      JOBPILOT_SANDBOX_JOBS_PER_MINUTE: "1200",
      LOG_LEVEL: "warn",
    });
    try {
      const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())![1]!;
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(server.url + path, {
          method,
          headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const all = await call("POST", "/api/v1/feeds", { title: "Everything", minScore: 0 });
      expect(all.status).toBe(201);
      const scored = await call("POST", "/api/v1/feeds", {
        title: "Web developers",
        profilePrompt: "Full-stack web developer: React, TypeScript, Node.js, APIs",
        minScore: 0,
      });
      expect(scored.status).toBe(201);

      const deadline = Date.now() + 15_000;
      let allJobs: any;
      let scoredJobs: any;
      for (;;) {
        allJobs = await call("GET", `/api/v1/feeds/${all.body.feed.id}/jobs`);
        scoredJobs = await call("GET", `/api/v1/feeds/${scored.body.feed.id}/jobs`);
        if ((allJobs.body.total >= 3 && scoredJobs.body.total >= 3) || Date.now() > deadline) break;
        await Bun.sleep(100);
      }
      expect(allJobs.body.total, server.output()).toBeGreaterThanOrEqual(3);
      expect(allJobs.body.jobs[0]).toMatchObject({ matchingScore: 5, scoreSource: "default", job: { platform: "marketplace" } });
      expect(allJobs.body.jobs[0].job.ciphertext).toMatch(/^~02\d{19}$/);
      expect(scoredJobs.body.total).toBeGreaterThanOrEqual(3);
      expect(scoredJobs.body.jobs[0].scoreSource).toBe("local");
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 40_000);
});
