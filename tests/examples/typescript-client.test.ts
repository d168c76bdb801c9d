import { afterEach, describe, expect, test } from "bun:test";
import { apply, createFeed, JobpilotError, jobpilot, newestMatch, waitForFinalStatus } from "../../examples/typescript-client/src/client";
import { ingestDocuments } from "../../src/modules/intake/ingest";
import type { TaskWorker } from "../../src/worker/worker";
import { applyWorker } from "../helpers/apply-worker";
import { createTestApp, type TestApp } from "../helpers/app";
import { makeDoc } from "../helpers/factories";

let t: TestApp;
let worker: TaskWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
});

describe("the generated TypeScript client (examples/typescript-client)", () => {
  test("creates a feed, finds its match, applies and polls until applied, through the app itself", async () => {
    t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
    worker = applyWorker(t);
    const { apiKey } = await t.account({ credits: 2 });
    // The app's own handler as fetch: every answer also passes the contract helper.
    const client = jobpilot({ baseUrl: "http://localhost", apiKey, fetch: (request) => t.app.handle(request) });

    const feed = await createFeed(client, { title: "Go", minScore: 0, includes: ["go"] });
    expect(await newestMatch(client, feed.id)).toBeNull();
    t.clock.advance(1000);
    const doc = makeDoc({ title: "Go service" });
    await ingestDocuments(t.deps, [doc], { source: "test" });
    const match = await newestMatch(client, feed.id);
    expect(match).toMatchObject({ jobId: (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext, title: "Go service", score: 5 });

    const queueId = await apply(client, match!.jobId, "Hello, I can help.");
    const final = await waitForFinalStatus(client, queueId, {
      intervalMs: 10,
      timeoutMs: 5000,
      sleep: async (ms) => {
        t.clock.advance(ms);
        worker!.notify();
        await Bun.sleep(2);
      },
    });
    expect(final).toMatchObject({ applicationStatus: "applied", queueId });

    // An error answer arrives as JobpilotError with the status and the server's message.
    const again = apply(client, match!.jobId, "Hello again.");
    expect(again).rejects.toBeInstanceOf(JobpilotError);
    await expect(again).rejects.toThrow(/^409: /);
    await expect(createFeed(client, { title: "x", minScore: 11 })).rejects.toThrow(/^400: /);
  });
});
