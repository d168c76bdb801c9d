import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "bun:test";
import { SUBMIT_TASK } from "../../src/modules/applications/service";
import { submitApplication } from "../../src/modules/applications/submit.task";
import { ingestDocuments } from "../../src/modules/intake/ingest";
import { SCORE_TASK, scoreFeedMatch } from "../../src/modules/scoring/service";
import { TaskWorker } from "../../src/worker/worker";
import type { TestApp } from "./app";
import { makeDoc } from "./factories";

/** An MCP client of the SDK on `POST /mcp` of an in-process app, with the key as a bearer token or as x-api-key. */
export async function httpClient(t: TestApp, key: string, as: "bearer" | "x-api-key" = "bearer"): Promise<Client> {
  const client = new Client({ name: "jobpilot-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    fetch: (input, init) => t.app.handle(new Request(input instanceof URL ? input.href : input, init)),
    requestInit: { headers: as === "bearer" ? { authorization: `Bearer ${key}` } : { "x-api-key": key } },
  });
  await client.connect(transport);
  return client;
}

/** What `serve` runs in the background for this flow: scoring of new matches and submissions, with tiny retry delays. */
export function flowWorker(t: TestApp): TaskWorker {
  const worker = new TaskWorker(t.deps, {
    concurrency: 4,
    retryBaseMs: 1,
    retryMaxMs: 5,
    handlers: { [SCORE_TASK]: (p, c) => scoreFeedMatch(t.deps, p, c), [SUBMIT_TASK]: (p, c) => submitApplication(t.deps, p, c) },
  });
  t.deps.work.subscribe(() => worker.notify());
  worker.start();
  return worker;
}

/** A React job, the kind the flow's feed prompt asks for, ingested as a job source would; its ciphertext. */
export async function ingestReactJob(t: TestApp): Promise<string> {
  const doc = makeDoc({
    title: "Senior React TypeScript developer for a fintech dashboard",
    description: "Build a trading dashboard in React and TypeScript with charts. Long-term contract.",
    skills: ["React", "TypeScript"],
    fixed: 900,
    questions: ["Which charting library would you use?"],
    // Fresh, as the sandbox marketplace takes no applications to jobs over 30 days old.
    publishTime: new Date(t.clock.now() - 60_000).toISOString(),
  });
  const result = await ingestDocuments(t.deps, [doc], { source: "test" });
  expect(result.inserted).toBe(1);
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

export const FLOW_FEED = { title: "React work", profilePrompt: "Senior React and TypeScript developer building fintech dashboards", minScore: 5 };

/** A successful tool call's JSON (its structured content); fails the test, showing the result, on a tool error. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
  return result.structuredContent;
}

/** A tool call that must fail: its error text. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} should fail: ${JSON.stringify(result.content)}`).toBe(true);
  return (result.content[0] as { text: string }).text;
}

/** Polls application_status as the apply tool tells an assistant to, until it leaves `processing`. */
export async function settledStatus(client: Client, queueId: string, tick: () => void = () => {}): Promise<any> {
  const until = performance.now() + 10_000;
  for (;;) {
    const status = await call(client, "application_status", { queueId });
    if (status.applicationStatus !== "processing" || performance.now() > until) return status;
    tick();
    await Bun.sleep(20);
  }
}

/** Waits (scoring runs in the background) until the feed has a match, through the feed_jobs tool. */
export async function firstMatch(client: Client, feedId: string, tick: () => void = () => {}): Promise<any> {
  const until = performance.now() + 10_000;
  for (;;) {
    const page = await call(client, "feed_jobs", { feedId });
    if (page.total > 0 || performance.now() > until) return page;
    tick();
    await Bun.sleep(20);
  }
}
