import { afterEach, describe, expect, test } from "bun:test";
import { setRateLimits } from "../../../src/modules/accounts/service";
import { MAX_BATCH_MESSAGES } from "../../../src/modules/mcp/batch";
import { createTestApp, show, type TestApp } from "../../helpers/app";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const MCP_HEADERS = { accept: "application/json, text/event-stream" };
const toolsList = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
const createFeed = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "create_feed", arguments: { title: `Feed ${id}`, minScore: 1 } },
});

async function setup(defaultPerMinute: number) {
  t = await createTestApp();
  const a = await t.account();
  await setRateLimits(t.deps, a.accountId, { overrides: { "default.minute": defaultPerMinute } });
  const post = (json: unknown) => t!.request("POST", "/mcp", { key: a.apiKey, headers: MCP_HEADERS, json });
  return { t, a, post };
}

const remaining = (res: { headers: Headers }) => Number(res.headers.get("x-ratelimit-remaining"));

describe("JSON-RPC batches on POST /mcp", () => {
  test("a batch of N messages counts N requests against the key's rate limit", async () => {
    const { post } = await setup(100);
    const single = await post(toolsList(1));
    expect(single.status, show(single)).toBe(200);
    expect(remaining(single)).toBe(99);

    const batch = await post([2, 3, 4, 5, 6].map(toolsList));
    expect(batch.status, show(batch)).toBe(200);
    expect(remaining(batch)).toBe(94);
    expect(batch.body.map((answer: { id: number }) => answer.id).sort()).toEqual([2, 3, 4, 5, 6]);
    for (const answer of batch.body) expect(answer.result.tools).toHaveLength(19);
    // Notifications are messages too: each one counts.
    const notes = await post([
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ]);
    expect(notes.status, show(notes)).toBe(202);
    expect(remaining(notes)).toBe(92);
  });

  test("a batch larger than what remains is refused whole with 429 and the rate-limit headers: none of it runs", async () => {
    const { t, a, post } = await setup(4);
    expect(remaining(await post({ jsonrpc: "2.0", id: 1, method: "ping" }))).toBe(3);

    // The POST counts as one request (2 left), and the three other messages do not fit.
    const refused = await post([10, 11, 12, 13].map(createFeed));
    expect(refused.status, show(refused)).toBe(429);
    expect(refused.body.error).toMatch(/^Rate limit exceeded: this request counts as 4 requests and 2 remain; retry in \d+ s$/);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("4");
    expect(remaining(refused)).toBe(2);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBeGreaterThan(t.clock.now() / 1000);
    // Not one feed was created (the feeds route has its own bucket, untouched by /mcp).
    expect((await t.request("GET", "/api/v1/feeds", { key: a.apiKey })).body.feeds).toEqual([]);

    // What fits is admitted and uses the allowance up.
    const fits = await post([20, 21].map(createFeed));
    expect(fits.status, show(fits)).toBe(200);
    expect(remaining(fits)).toBe(0);
    expect((await t.request("GET", "/api/v1/feeds", { key: a.apiKey })).body.feeds).toHaveLength(2);
  });

  test("a batch that can never fit says so", async () => {
    const { post } = await setup(3);
    const refused = await post([1, 2, 3, 4].map(toolsList));
    expect(refused.status, show(refused)).toBe(429);
    expect(refused.body.error).toMatch(/counts as 4 requests and 2 remain \(more than the limit of 3: send fewer at a time\); retry in/);
  });

  test(`a batch of more than ${MAX_BATCH_MESSAGES} messages, or of none, is a JSON-RPC error (400) naming the cap, and counts as one request`, async () => {
    const { post } = await setup(100);
    const over = await post(Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) => toolsList(i)));
    expect(over.status, show(over)).toBe(400);
    expect(over.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: `Invalid Request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages (this one has ${MAX_BATCH_MESSAGES + 1}); send the rest in further requests`,
      },
    });
    expect(remaining(over)).toBe(99);
    const empty = await post([]);
    expect(empty.status, show(empty)).toBe(400);
    expect(empty.body.error).toEqual({ code: -32600, message: "Invalid Request: a batch must hold at least one message" });
    const atCap = await post(Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => toolsList(i)));
    expect(atCap.status, show(atCap)).toBe(200);
    expect(atCap.body).toHaveLength(MAX_BATCH_MESSAGES);
    expect(remaining(atCap)).toBe(98 - MAX_BATCH_MESSAGES);
  });

  test("the tool list is serialised once, not once per tools/list answered", async () => {
    const { post } = await setup(100);
    // The first request loads the MCP server (and makes the list's text).
    const first = await post(toolsList(1));
    const expected = first.body.result;
    expect(expected.tools).toHaveLength(19);

    // Counts every tool list JSON.stringify is handed (a list of objects with an inputSchema), wherever it sits.
    const stringify = JSON.stringify;
    let listsSerialised = 0;
    const visit = (value: unknown): void => {
      if (value === null || typeof value !== "object") return;
      if (Array.isArray(value)) {
        if (value.length > 0 && value.every((item) => item !== null && typeof item === "object" && "inputSchema" in item)) listsSerialised++;
        for (const item of value) visit(item);
        return;
      }
      for (const item of Object.values(value)) visit(item);
    };
    let batch: Awaited<ReturnType<typeof post>>;
    JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
      visit(value);
      return (stringify as (...args: unknown[]) => string)(value, ...rest);
    }) as typeof JSON.stringify;
    try {
      batch = await post([2, 3, 4, 5, 6].map(toolsList));
    } finally {
      JSON.stringify = stringify;
    }
    expect(batch.status, show(batch)).toBe(200);
    expect(listsSerialised).toBe(0);
    // Each answer is the whole list all the same.
    expect(batch.body).toHaveLength(5);
    for (const answer of batch.body) expect(answer.result).toEqual(expected);
  });

  test("the OpenAPI document of POST /mcp states the cap and the metering", async () => {
    t = await createTestApp();
    const doc = (await t.request("GET", "/docs/json")).body;
    const op = doc.paths["/mcp"].post;
    expect(op.description).toContain(`A batch (an array of messages) holds at most ${MAX_BATCH_MESSAGES} messages`);
    expect(op.description).toContain("counts one request per message against the key's rate limit");
    expect(JSON.stringify(op.requestBody)).toContain(`"maxItems":${MAX_BATCH_MESSAGES}`);
  });
});
