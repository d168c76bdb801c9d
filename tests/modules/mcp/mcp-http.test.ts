import { afterEach, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { revokeKey, setRateLimits } from "../../../src/modules/accounts/service";
import type { TaskWorker } from "../../../src/worker/worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { call, callError, FLOW_FEED, firstMatch, flowWorker, httpClient, ingestReactJob, settledStatus } from "../../helpers/mcp";

let t: TestApp | undefined;
let worker: TaskWorker | undefined;

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
  t = undefined;
});

async function setup(credits = 3) {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const a = await t.account({ credits });
  const b = await t.account({ name: "other", credits: 3 });
  worker = flowWorker(t);
  return { t, a, b };
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const MCP_HEADERS = { accept: "application/json, text/event-stream" };

describe("MCP over POST /mcp", () => {
  test("an assistant goes feed → match → draft → apply → status, through the API's services", async () => {
    const { t, a } = await setup();
    const client = await httpClient(t, a.apiKey);

    const { feed } = await call(client, "create_feed", FLOW_FEED);
    expect((await call(client, "list_feeds")).feeds.map((f: { id: string }) => f.id)).toEqual([feed.id]);
    expect((await call(client, "update_feed", { feedId: feed.id, minScore: 4 })).feed).toMatchObject({ id: feed.id, minScore: 4, title: FLOW_FEED.title });

    t.clock.advance(1000); // feeds match only jobs first seen after they were created
    const cipher = await ingestReactJob(t);
    const page = await firstMatch(client, feed.id, () => t.clock.advance(10));
    expect(page.total).toBe(1);
    const match = page.jobs[0];
    expect(match).toMatchObject({ scoreSource: "local", read: false, job: { ciphertext: cipher, platform: "marketplace" } });
    expect(match.matchingScore).toBeGreaterThanOrEqual(4);
    expect(match.scoreReason).toEqual(expect.any(String));

    const job = await call(client, "get_job", { cipher });
    expect(job.title).toContain("React");
    expect(job.clientScore).toHaveProperty("score");
    expect(job.matches).toMatchObject([{ feedId: feed.id, processedJobId: match.processedJobId }]);
    expect(job.screeningQuestions).toEqual([{ position: 0, question: "Which charting library would you use?" }]);
    const companyId = job.jobDetailsResponse.data.jobPubDetails.buyer.company.companyId;
    expect((await call(client, "client_jobs", { companyId })).openJobs.length).toBeGreaterThan(0);
    const { freelancers } = await call(client, "freelancers");
    const profileId = freelancers[0].profiles[0].profileId;

    const draft = await call(client, "draft_proposal", { jobId: cipher, feedId: feed.id, questions: job.screeningQuestions });
    expect(draft.success).toBe(true);
    expect(draft.proposal.length).toBeGreaterThan(50);
    expect(draft.questionAnswers).toMatchObject([{ position: 0 }]);

    const applied = (await client.callTool({
      name: "apply",
      arguments: { jobId: cipher, coverLetter: draft.proposal, profileId, questionAnswers: draft.questionAnswers },
    })) as CallToolResult;
    expect(applied.isError ?? false, JSON.stringify(applied.content)).toBe(false);
    const { queueId } = applied.structuredContent as { queueId: string };
    expect(applied.structuredContent).toMatchObject({ success: true, creditsRemaining: 2 });
    // The result tells the assistant to poll, with the queue id it must poll with.
    expect((applied.content[1] as { text: string }).text).toContain(`application_status with queueId "${queueId}"`);

    const status = await settledStatus(client, queueId, () => t.clock.advance(10));
    expect(status).toMatchObject({ applicationStatus: "applied", queueId, jobId: cipher, errorMessage: null });
    const appliedJobs = await call(client, "applied_jobs", { status: "applied" });
    expect(appliedJobs).toMatchObject({ total: 1, jobs: [{ queueId, coverLetter: draft.proposal }] });

    // The feed's latest matches as a resource, listed per feed and read by its URI.
    const uri = `jobpilot://feeds/${feed.id}/matches`;
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([uri]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual(["jobpilot://feeds/{feedId}/matches"]);
    const read = await client.readResource({ uri });
    const contents = read.contents[0] as { text: string; mimeType: string };
    expect(contents.mimeType).toBe("application/json");
    expect(JSON.parse(contents.text).jobs[0].job.ciphertext).toBe(cipher);
    await client.close();
  });

  test("record_outcome records what happened to a sent proposal through the same service, forward only", async () => {
    const { t, a, b } = await setup();
    const client = await httpClient(t, a.apiKey);
    const cipher = await ingestReactJob(t);
    const { queueId } = await call(client, "apply", { jobId: cipher, coverLetter: "I have built React dashboards for fintech.", autoFillOtherQuestions: true });
    expect((await settledStatus(client, queueId, () => t.clock.advance(10))).applicationStatus).toBe("applied");

    const hired = await call(client, "record_outcome", { queueId, outcome: "hired", valueUsd: 2400, note: "fixed price" });
    expect(hired).toMatchObject({ queueId, outcome: "hired", outcomeAt: t.clock.now(), valueUsd: 2400, inConversation: true, note: "fixed price" });
    // The route's own answers: a backwards move is refused, and so is another account's application.
    expect(await callError(client, "record_outcome", { queueId, outcome: "replied" })).toContain("backwards");
    const other = await httpClient(t, b.apiKey);
    expect(await callError(other, "record_outcome", { queueId, outcome: "lost" })).toContain("Application not found");
    const funnel = await t.request("GET", `/api/v1/applications/${queueId}/funnel`, { key: a.apiKey });
    expect(funnel.body).toEqual(hired);
    await other.close();
    await client.close();
  });

  test("lists every tool with a JSON schema from the API's models and a description to act on", async () => {
    const { t, a } = await setup();
    const client = await httpClient(t, a.apiKey, "x-api-key");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        "list_feeds",
        "create_feed",
        "update_feed",
        "feed_jobs",
        "get_job",
        "client_jobs",
        "block_client",
        "favour_client",
        "unlist_client",
        "client_lists",
        "draft_proposal",
        "apply",
        "application_status",
        "applied_jobs",
        "record_outcome",
        "freelancers",
        "proposal_versions",
        "get_portfolio",
        "set_portfolio",
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description!.length, tool.name).toBeGreaterThan(100);
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.apply!.description).toContain("Costs 1 auto-apply credit, charged only when the submission succeeds");
    expect(byName.apply!.description).toContain("application_status");
    expect(byName.update_feed!.inputSchema.required).toEqual(["feedId"]);
    expect(byName.create_feed!.inputSchema.required).toEqual(["title", "minScore"]);
    expect(byName.create_feed!.inputSchema.properties!.minScore).toMatchObject({ type: "number", minimum: 0, maximum: 10 });
    // Elysia's private message keyword stays home: the wire carries plain JSON Schema.
    expect(JSON.stringify(tools)).not.toContain('"error"');
    expect(byName.get_job!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.apply!.annotations).toMatchObject({ readOnlyHint: false });
    await client.close();
  });

  test("every tool's input schema compiles as JSON Schema 2020-12 in Ajv's strict mode", async () => {
    const { t, a } = await setup();
    const client = await httpClient(t, a.apiKey);
    const { tools } = await client.listTools();
    expect(tools.length).toBe(19);
    for (const tool of tools) {
      // A fresh Ajv per tool, so one tool's $id or definitions cannot make another's compile.
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      addFormats(ajv);
      expect(() => ajv.compile(tool.inputSchema), `${tool.name}: ${JSON.stringify(tool.inputSchema)}`).not.toThrow();
      if (tool.outputSchema) expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    // A filter that null switches off is "number or null"; a query's limit is an integer, not a digit string.
    expect(byName.update_feed!.inputSchema.properties!.minHourlyRate).toMatchObject({ type: ["number", "null"], minimum: 0 });
    expect(byName.feed_jobs!.inputSchema.properties!.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 200 });
    const validate = new Ajv2020({ strict: true });
    addFormats(validate);
    const createFeed = validate.compile(byName.create_feed!.inputSchema);
    expect(createFeed({ title: "React", minScore: 5, minHourlyRate: null })).toBe(true);
    expect(createFeed({ title: "React", minScore: 11 })).toBe(false);
    await client.close();
  });

  test("a tools/call whose arguments are not an object is an invalid-params error saying so", async () => {
    const { t, a } = await setup();
    const cases: [unknown, string][] = [
      ["feedId=1", "a string"],
      [["feedId", "1"], "an array"],
      [null, "null"],
      [42, "a number"],
    ];
    for (const [args, got] of cases) {
      const res = await t.request("POST", "/mcp", {
        json: { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "feed_jobs", arguments: args } },
        headers: MCP_HEADERS,
        key: a.apiKey,
      });
      expect(res.status, show(res)).toBe(200);
      expect(res.body, show(res)).toEqual({
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32602, message: `MCP error -32602: params.arguments must be an object of the tool's arguments by name (got ${got})` },
      });
    }
    const nameless = await t.request("POST", "/mcp", {
      json: { jsonrpc: "2.0", id: 8, method: "tools/call", params: { arguments: {} } },
      headers: MCP_HEADERS,
      key: a.apiKey,
    });
    expect(nameless.body.error, show(nameless)).toEqual({
      code: -32602,
      message: "MCP error -32602: params.name is required: the name of the tool to call (see tools/list)",
    });
    // Arguments may be left out: a tool without parameters is called with none.
    const bare = await t.request("POST", "/mcp", {
      json: { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "list_feeds" } },
      headers: MCP_HEADERS,
      key: a.apiKey,
    });
    expect(bare.body.result.structuredContent, show(bare)).toEqual({ feeds: [] });
    const unknown = await t.request("POST", "/mcp", { json: { jsonrpc: "2.0", id: 10, method: "prompts/list" }, headers: MCP_HEADERS, key: a.apiKey });
    expect(unknown.body.error.code, show(unknown)).toBe(-32601);
  });

  test("API errors come back as tool errors with the API's message: validation, 404, 402, 409", async () => {
    const { t, a } = await setup(1);
    const client = await httpClient(t, a.apiKey);
    expect(await callError(client, "create_feed", { title: "x", minScore: 11 })).toBe(
      "HTTP 400: Validation failed (minScore must be a number between 0 and 10)",
    );
    expect(await callError(client, "update_feed", { minScore: 3 })).toBe("feedId is required (a string)");
    // A path parameter stays one segment of the route's path: never a way to another route.
    expect(await callError(client, "feed_jobs", { feedId: ".." })).toBe("feedId is not a valid id");
    expect(await callError(client, "update_feed", { feedId: "../../admin/accounts", title: "x" })).toBe("HTTP 404: Feed not found");
    expect(await callError(client, "get_job", { cipher: "~0299999999999" })).toStartWith("HTTP 404:");
    expect(await callError(client, "application_status", {})).toStartWith("HTTP 400:");

    t.clock.advance(1000);
    const first = await ingestReactJob(t);
    const second = await ingestReactJob(t);
    // Answering the screening question, so that the submission cannot fail and free the job and the credit.
    const { queueId } = await call(client, "apply", { jobId: first, coverLetter: "Hello, I can help.", autoFillOtherQuestions: true });
    expect(await callError(client, "apply", { jobId: first, coverLetter: "Again" })).toStartWith("HTTP 409:");
    // The one credit is held by the first application.
    expect(await callError(client, "apply", { jobId: second, coverLetter: "Hello" })).toBe("HTTP 402: Insufficient auto-apply credits (creditsRemaining: 0)");
    expect((await settledStatus(client, queueId, () => t.clock.advance(10))).applicationStatus).toBe("applied");
    // Nothing crashed: the session still answers.
    expect((await call(client, "list_feeds")).feeds).toEqual([]);
    await client.close();
  });

  test("another account's feed, application and matches are not found", async () => {
    const { t, a, b } = await setup();
    const mine = await httpClient(t, a.apiKey);
    const theirs = await httpClient(t, b.apiKey);
    const { feed } = await call(mine, "create_feed", { title: "Mine", minScore: 0 });
    t.clock.advance(1000);
    const cipher = await ingestReactJob(t);
    await firstMatch(mine, feed.id, () => t.clock.advance(10));
    const { queueId } = await call(mine, "apply", { jobId: cipher, coverLetter: "Hello, I can help." });

    expect(await callError(theirs, "update_feed", { feedId: feed.id, title: "Taken" })).toStartWith("HTTP 404:");
    expect(await callError(theirs, "feed_jobs", { feedId: feed.id })).toStartWith("HTTP 404:");
    expect(await callError(theirs, "application_status", { queueId })).toStartWith("HTTP 404:");
    expect(await callError(theirs, "draft_proposal", { jobId: cipher, feedId: feed.id })).toStartWith("HTTP 404:");
    await expect(theirs.readResource({ uri: `jobpilot://feeds/${feed.id}/matches` })).rejects.toThrow("HTTP 404");
    expect((await call(theirs, "list_feeds")).feeds).toEqual([]);
    expect((await call(theirs, "applied_jobs")).total).toBe(0);
    // The job itself is shared market data; the other account's matches in it are not.
    expect((await call(theirs, "get_job", { cipher })).matches).toEqual([]);
    expect((await call(mine, "feed_jobs", { feedId: feed.id })).total).toBe(1);
    await mine.close();
    await theirs.close();
  });

  test("a missing, wrong or revoked key is refused with the API's 401, before the body is read", async () => {
    const { t, a } = await setup();
    const refused = [
      await t.request("POST", "/mcp", { json: INITIALIZE, headers: MCP_HEADERS }),
      await t.request("POST", "/mcp", { json: INITIALIZE, headers: { ...MCP_HEADERS, authorization: "Bearer jp_live_wrong" } }),
      await t.request("POST", "/mcp", { json: INITIALIZE, headers: MCP_HEADERS, key: "jp_live_wrong" }),
      await t.request("POST", "/mcp", { body: "{not json", headers: { ...MCP_HEADERS, "content-type": "application/json" } }),
    ];
    for (const res of refused) {
      expect(res.status, show(res)).toBe(401);
      expect(res.body).toEqual({ error: "Missing or invalid API key (send it in the x-api-key header or as Authorization: Bearer <key>)" });
    }
    const ok = await t.request("POST", "/mcp", { json: INITIALIZE, headers: { ...MCP_HEADERS, authorization: `Bearer ${a.apiKey}` } });
    expect(ok.status, show(ok)).toBe(200);
    expect(ok.body.result.serverInfo).toMatchObject({ name: "jobpilot" });
    await revokeKey(t.deps, a.keyId);
    const revoked = await t.request("POST", "/mcp", { json: INITIALIZE, headers: { ...MCP_HEADERS, authorization: `Bearer ${a.apiKey}` } });
    expect(revoked.status, show(revoked)).toBe(401);
  });

  test("is rate-limited like the API: /mcp in the default bucket, each tool call in its route's bucket", async () => {
    const { t, a } = await setup();
    await setRateLimits(t.deps, a.accountId, { overrides: { "default.minute": 4, "apply.minute": 1 } });
    const client = await httpClient(t, a.apiKey); // initialize + initialized: two requests
    t.clock.advance(1000);
    const first = await ingestReactJob(t);
    const second = await ingestReactJob(t);
    await call(client, "apply", { jobId: first, coverLetter: "Hello, I can help." }); // third /mcp request
    expect(await callError(client, "apply", { jobId: second, coverLetter: "Hello" })).toMatch(/^HTTP 429: Rate limit exceeded; retry in \d+ s$/);
    const over = await t.request("POST", "/mcp", { json: INITIALIZE, headers: { ...MCP_HEADERS, "x-api-key": a.apiKey } });
    expect(over.status, show(over)).toBe(429);
    expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(over.body.error).toStartWith("Rate limit exceeded");
  });

  test("GET and DELETE are 405 (stateless: no stream, no session), and tool calls log under the /mcp request's id", async () => {
    const { t, a } = await setup();
    for (const method of ["GET", "DELETE"]) {
      const res = await t.request(method, "/mcp", { key: a.apiKey, headers: MCP_HEADERS });
      expect(res.status, show(res)).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
    const res = await t.request("POST", "/mcp", {
      json: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_feeds", arguments: {} } },
      headers: { ...MCP_HEADERS, "x-request-id": "mcp-call-1" },
      key: a.apiKey,
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(JSON.parse(res.body.result.content[0].text)).toEqual({ feeds: [] });
    await Bun.sleep(5); // access lines are written after the response
    const lines = t.log.records().filter((r) => r.msg === "request" && r.reqId === "mcp-call-1");
    expect(lines.map((r) => r.path).sort()).toEqual(["/api/v1/feeds", "/mcp"]);
  });
});
