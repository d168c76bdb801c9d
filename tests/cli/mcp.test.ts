import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { runCli } from "../../src/cli/index";
import { listenOptions } from "../../src/app";
import { ManualClock } from "../../src/lib/clock";
import { MAX_BATCH_MESSAGES } from "../../src/modules/mcp/batch";
import type { TaskWorker } from "../../src/worker/worker";
import { createTestApp, type TestApp } from "../helpers/app";
import { call, callError, FLOW_FEED, firstMatch, flowWorker, ingestReactJob, settledStatus } from "../helpers/mcp";
import { PG_BACKEND } from "../helpers/postgres";
import { runCommand } from "../helpers/process";

const ROOT = join(import.meta.dir, "../..");

/** `jobpilot mcp …` as a child process, driven by the SDK's stdio client; its standard error is kept for the assertions. */
async function stdioClient(args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["run", "src/main.ts", "mcp", ...args],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name: "jobpilot-test", version: "1.0.0" });
  // A line on stdout that is not a protocol message lands here.
  const errors: Error[] = [];
  client.onerror = (err) => void errors.push(err);
  await client.connect(transport);
  clients.push(client);
  return { client, errors, stderr: () => stderr };
}

/**
 * `jobpilot mcp` fed `lines` (one JSON value each) and the end of its input, as a client without the SDK would:
 * what it wrote to standard output, a JSON value a line, and its standard error. It must exit 0.
 */
async function rawSession(lines: unknown[], env: Record<string, string>): Promise<{ answers: any[]; stderr: string }> {
  const proc = Bun.spawn([process.execPath, "run", "src/main.ts", "mcp"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", JOBPILOT_API_KEY: "jp_test_key", ...env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  for (const line of lines) proc.stdin.write(`${JSON.stringify(line)}\n`);
  proc.stdin.end();
  const [code, out, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  expect(code, stderr).toBe(0);
  return {
    answers: out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line)),
    stderr,
  };
}

let clients: Client[] = [];
let nodes: TestApp[] = [];
let workers: TaskWorker[] = [];

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const w of workers) await w.stop();
  // The node that owns the test database (PostgreSQL) closes last: closing it drops the database.
  for (const node of nodes.reverse()) {
    node.app.server?.stop(true);
    await node.close();
  }
  clients = [];
  nodes = [];
  workers = [];
});

/** A node on `where`, with a clock set to the wall clock (the child process uses the real one). */
async function openNode(where: { dbPath?: string; databaseUrl?: string } = {}): Promise<TestApp & { tick: () => void }> {
  const clock = new ManualClock(Date.now());
  const node = await createTestApp({
    clock,
    dbPath: where.dbPath,
    config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, ...(where.databaseUrl ? { databaseUrl: where.databaseUrl } : {}) },
  });
  nodes.push(node);
  return Object.assign(node, { tick: () => clock.set(Date.now()) });
}

describe("jobpilot mcp (stdio)", () => {
  test("against a running server: feed → match → draft → apply → status; another account's ids are not found; a bad key is refused", async () => {
    const server = await openNode();
    workers.push(flowWorker(server));
    server.app.listen({ ...listenOptions({ host: "127.0.0.1", port: 0 }) });
    const url = `http://127.0.0.1:${server.app.server!.port}`;
    const a = await server.account({ credits: 2 });
    const b = await server.account({ name: "other" });

    const { client, errors } = await stdioClient([], { JOBPILOT_URL: url, JOBPILOT_API_KEY: a.apiKey });
    const { feed } = await call(client, "create_feed", FLOW_FEED);
    server.clock.advance(1000);
    const cipher = await ingestReactJob(server);
    const page = await firstMatch(client, feed.id, () => server.clock.advance(10));
    expect(page.jobs[0]).toMatchObject({ scoreSource: "local", job: { ciphertext: cipher } });
    expect(page.jobs[0].scoreReason).toEqual(expect.any(String));
    const draft = await call(client, "draft_proposal", { jobId: cipher, feedId: feed.id });
    const applied = await call(client, "apply", { jobId: cipher, coverLetter: draft.proposal, autoFillOtherQuestions: true });
    expect(applied).toMatchObject({ success: true, creditsRemaining: 1 });
    const status = await settledStatus(client, applied.queueId, () => server.clock.advance(10));
    expect(status).toMatchObject({ applicationStatus: "applied", queueId: applied.queueId, jobId: cipher });
    const resource = await client.readResource({ uri: `jobpilot://feeds/${feed.id}/matches` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text).total).toBe(1);
    expect(errors).toEqual([]);

    const other = (await stdioClient([], { JOBPILOT_URL: url, JOBPILOT_API_KEY: b.apiKey })).client;
    expect(await callError(other, "update_feed", { feedId: feed.id, title: "Taken" })).toStartWith("HTTP 404:");
    expect(await callError(other, "application_status", { queueId: applied.queueId })).toStartWith("HTTP 404:");
    expect((await call(other, "list_feeds")).feeds).toEqual([]);

    const wrong = (await stdioClient([], { JOBPILOT_URL: url, JOBPILOT_API_KEY: "jp_live_not_a_key" })).client;
    expect(await callError(wrong, "list_feeds")).toBe("HTTP 401: Missing or invalid API key (send it in the x-api-key header)");

    // A server that is not there is a tool error too, not a crash.
    server.app.server!.stop(true);
    expect(await callError(client, "list_feeds")).toStartWith(`Cannot reach the jobpilot server at ${url}:`);
  }, 60_000);

  test("on the database itself (--db / --database-url): the same flow, for --account or the account of JOBPILOT_API_KEY", async () => {
    // On PostgreSQL the first node owns a fresh database; on SQLite a temporary file is the database.
    const owner = PG_BACKEND ? await openNode() : undefined;
    const where = owner ? { databaseUrl: owner.deps.config.databaseUrl! } : { dbPath: join(mkdtempSync(join(tmpdir(), "jp-mcp-")), "mcp.db") };
    const dbFlag = owner ? ["--database-url", where.databaseUrl!] : ["--db", where.dbPath!];
    const first = owner ?? (await openNode(where));
    const a = await first.account({ credits: 2 });
    const b = await first.account({ name: "other" });
    if (!owner) await nodes.pop()!.close(); // on SQLite one process at a time holds the feeds in memory (see `jobpilot mcp --help`)

    const { client, errors, stderr } = await stdioClient([...dbFlag, "--account", a.accountId], { LOG_LEVEL: "debug" });
    const { feed } = await call(client, "create_feed", FLOW_FEED);

    // A server on the same database: it ingests the job, scores the match and submits what the MCP process queues.
    const server = owner ?? (await openNode(where));
    workers.push(flowWorker(server));
    server.tick();
    const cipher = await ingestReactJob(server);
    const page = await firstMatch(client, feed.id, server.tick);
    expect(page.jobs[0]).toMatchObject({ scoreSource: "local", job: { ciphertext: cipher } });
    const draft = await call(client, "draft_proposal", { jobId: cipher, feedId: feed.id });
    const applied = await call(client, "apply", { jobId: cipher, coverLetter: draft.proposal, autoFillOtherQuestions: true });
    const status = await settledStatus(client, applied.queueId, () => {
      server.tick();
      workers[0]!.notify();
    });
    expect(status).toMatchObject({ applicationStatus: "applied", queueId: applied.queueId, jobId: cipher });
    // Debug logs (an access line per tool call) went to stderr; stdout carried only protocol messages.
    expect(errors).toEqual([]);
    expect(stderr()).toContain('"msg":"request"');

    const other = (await stdioClient(dbFlag, { JOBPILOT_API_KEY: b.apiKey })).client;
    expect(await callError(other, "feed_jobs", { feedId: feed.id })).toStartWith("HTTP 404:");
    expect(await callError(other, "application_status", { queueId: applied.queueId })).toStartWith("HTTP 404:");
    expect((await call(other, "applied_jobs")).total).toBe(0);

    const refused = await runCommand([process.execPath, "run", "src/main.ts", "mcp", ...dbFlag], { JOBPILOT_API_KEY: "jp_live_not_a_key" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("JOBPILOT_API_KEY is not an active API key in this database");
    expect(refused.stdout).toBe("");
  }, 60_000);

  test("stdout carries only protocol messages; the end of standard input stops it once what was read is answered", async () => {
    // A slow server: the answer comes well after the end of the input.
    const slow = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (req) => {
        await Bun.sleep(500);
        return Response.json({ feeds: [], key: req.headers.get("x-api-key") });
      },
    });
    try {
      const messages = [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_feeds", arguments: {} } },
      ];
      const { answers, stderr } = await rawSession(messages, { LOG_LEVEL: "debug", JOBPILOT_URL: slow.url.href });
      expect(answers).toMatchObject([
        { jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "jobpilot" } } },
        { jsonrpc: "2.0", id: 2, result: { structuredContent: { feeds: [], key: "jp_test_key" } } },
      ]);
      expect(stderr).toContain("stopping (end of input)");
    } finally {
      slow.stop(true);
    }
  }, 30_000);

  test(`a batch line is answered with one array, as over HTTP; one of more than ${MAX_BATCH_MESSAGES} messages, or of none, with the cap's error`, async () => {
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      [{ jsonrpc: "2.0", id: 2, method: "tools/list" }, ping(3), { jsonrpc: "2.0", method: "notifications/initialized" }, "not a message"],
      Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) => ping(100 + i)),
      [],
      ping(4),
    ];
    // No tool is called: nothing is asked of the server at JOBPILOT_URL.
    const { answers } = await rawSession(lines, { JOBPILOT_URL: "http://127.0.0.1:9" });
    // Answers come as they are ready, not in the order asked.
    const batch: any[] | undefined = answers.find(Array.isArray);
    expect(batch, JSON.stringify(answers)).toBeDefined();
    expect(batch!.length).toBe(3);
    expect(batch).toContainEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" } });
    expect(batch).toContainEqual({ jsonrpc: "2.0", id: 3, result: {} });
    expect(batch!.find((a) => a.id === 2).result.tools).toHaveLength(19);
    const singles = answers.filter((a) => !Array.isArray(a));
    expect(singles.filter((a) => a.id !== null).map((a) => a.id)).toEqual([1, 4]);
    expect(singles.filter((a) => a.id === null).map((a) => a.error)).toEqual([
      {
        code: -32600,
        message: `Invalid Request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages (this one has ${MAX_BATCH_MESSAGES + 1}); send the rest in further requests`,
      },
      { code: -32600, message: "Invalid Request: a batch must hold at least one message" },
    ]);
  }, 30_000);

  test.each([
    [[], {}, /set JOBPILOT_URL \(or --url\) to the address of a running server, or give --db PATH/],
    [[], { JOBPILOT_URL: "http://127.0.0.1:3000" }, /set JOBPILOT_API_KEY/],
    [["--url", "ftp://x"], { JOBPILOT_API_KEY: "k" }, /Invalid --url: expected a value matching/],
    [["--account", "a"], { JOBPILOT_URL: "http://127.0.0.1:3000", JOBPILOT_API_KEY: "k" }, /--account needs --db or --database-url/],
    [["--db", ":memory:", "--url", "http://127.0.0.1:3000"], {}, /give --url \(a running server\) or --db\/--database-url/],
    [["--db", ":memory:"], {}, /say which account to act for: --account ID, or JOBPILOT_API_KEY/],
    [["--db", ":memory:", "--account", "a"], { JOBPILOT_API_KEY: "k" }, /give --account or JOBPILOT_API_KEY, not both/],
  ])("a bad command line %p exits 2 with the reason", async (argv, env, message) => {
    let stderr = "";
    const code = await runCli(["mcp", ...argv], {
      env,
      stdout: () => {},
      stderr: (s) => void (stderr += s),
      stdin: () => new ReadableStream(),
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  test("--db with an account that does not exist exits 1", async () => {
    const res = await runCli(["mcp", "--db", ":memory:", "--account", "nobody"], {
      env: {},
      stdout: () => {},
      stderr: () => {},
      stdin: () => new ReadableStream(),
    });
    expect(res).toBe(1);
  });
});
