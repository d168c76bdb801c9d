import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { AiClient, AiError, type AiErrorKind, type AiSettings, type JsonCompletionRequest } from "../../src/ai/client";
import { memoryLogger } from "../../src/lib/log";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai";

const API_KEY = "sk-test-5f0d2c9a81b7e4433aa1";
const SYSTEM = "You score jobs. SYSTEM-CANARY-7781";
const USER = "<job>\nRust developer USER-CANARY-4412\n</job>";

const scoreSchema = {
  type: "object",
  properties: { score: { type: "number" }, reason: { type: "string" } },
  required: ["score", "reason"],
  additionalProperties: false,
};

interface Score {
  score: number;
  reason: string;
}

function validateScore(v: unknown): Score {
  const o = v as Partial<Score> | null;
  if (!o || typeof o !== "object" || typeof o.score !== "number" || typeof o.reason !== "string") {
    throw new Error("answer is not {score, reason}");
  }
  if (!(o.score >= 0 && o.score <= 10)) throw new Error(`score out of range: ${o.score}`);
  return { score: o.score, reason: o.reason };
}

function request(extra: Partial<JsonCompletionRequest<Score>> = {}): JsonCompletionRequest<Score> {
  return {
    model: "gpt-test",
    system: SYSTEM,
    user: USER,
    schemaName: "job_score",
    schema: scoreSchema,
    validate: validateScore,
    ...extra,
  };
}

const GOOD = JSON.stringify({ score: 7, reason: "fits" });

let fake: FakeOpenAi;
let log: ReturnType<typeof memoryLogger>;

function client(settings: Partial<AiSettings> = {}): AiClient {
  return new AiClient(
    {
      apiKey: API_KEY,
      baseUrl: fake.url,
      timeoutMs: 2000,
      maxRetries: 2,
      concurrency: 4,
      sendReasoningEffort: true,
      ...settings,
    },
    log,
  );
}

async function failure(p: Promise<unknown>): Promise<AiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AiError);
    return err as AiError;
  }
  throw new Error("expected the call to fail");
}

async function expectKind(p: Promise<unknown>, kind: AiErrorKind): Promise<AiError> {
  const err = await failure(p);
  expect(err.kind).toBe(kind);
  return err;
}

beforeEach(async () => {
  fake = await startFakeOpenAi();
  // The fake's own default answer is "{}", which our validator rejects.
  fake.setFallback(() => ({ content: GOOD }));
  log = memoryLogger("debug");
});

afterEach(async () => {
  await fake.close();
});

describe("request shape", () => {
  test("sends model, system and user messages, strict json_schema, reasoning_effort and max_completion_tokens", async () => {
    fake.enqueue({ content: GOOD });
    const res = await client().completeJson(request({ reasoningEffort: "low", maxOutputTokens: 300 }));
    expect(res.value).toEqual({ score: 7, reason: "fits" });
    expect(res.attempts).toBe(1);
    expect(res.model).toBe("gpt-test");

    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.body.model).toBe("gpt-test");
    expect(req.body.messages).toEqual([
      { role: "system", content: SYSTEM },
      { role: "user", content: USER },
    ]);
    expect(req.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "job_score", schema: scoreSchema, strict: true },
    });
    expect(req.body.reasoning_effort).toBe("low");
    expect(req.body.max_completion_tokens).toBe(300);
    expect(req.body.stream).toBeUndefined();
  });

  test("reasoning_effort is omitted when sendReasoningEffort is false, and max_completion_tokens when not given", async () => {
    await client({ sendReasoningEffort: false }).completeJson(request({ reasoningEffort: "high" }));
    await client().completeJson(request());
    expect(fake.requests).toHaveLength(2);
    for (const r of fake.requests) {
      expect("reasoning_effort" in r.body).toBe(false);
      expect("max_completion_tokens" in r.body).toBe(false);
    }
  });

  test("maxTokensField max_tokens sends the cap as max_tokens instead", async () => {
    await client({ maxTokensField: "max_tokens" }).completeJson(request({ maxOutputTokens: 64 }));
    expect(fake.requests[0]!.body.max_tokens).toBe(64);
    expect("max_completion_tokens" in fake.requests[0]!.body).toBe(false);
  });

  test("a base URL with a trailing slash reaches the same endpoint", async () => {
    await client({ baseUrl: fake.url + "/" }).completeJson(request());
    expect(fake.requests[0]!.path).toBe("/v1/chat/completions");
  });
});

describe("retries (the SDK's single layer)", () => {
  test("429 with Retry-After: 1 then success → one value, 2 requests, the second no earlier than 1 s later", async () => {
    fake.enqueue({ json: { error: { message: "slow down" } }, status: 429, headers: { "retry-after": "1" } }, { content: GOOD });
    const res = await client().completeJson(request());
    expect(res.value.score).toBe(7);
    expect(res.attempts).toBe(2);
    expect(fake.requests).toHaveLength(2);
    const gap = fake.requests[1]!.receivedAt - fake.requests[0]!.receivedAt;
    // The SDK's own first backoff is 375–500 ms, so this only passes if Retry-After was honoured.
    expect(gap).toBeGreaterThanOrEqual(995);
  });

  test("retry-after-ms is honoured too", async () => {
    fake.enqueue({ json: {}, status: 429, headers: { "retry-after-ms": "700" } }, { content: GOOD });
    const res = await client().completeJson(request());
    expect(res.attempts).toBe(2);
    expect(fake.requests[1]!.receivedAt - fake.requests[0]!.receivedAt).toBeGreaterThanOrEqual(695);
  });

  test("429 every time → rate_limited after maxRetries + 1 requests", async () => {
    fake.setFallback(() => ({ json: { error: { message: "rate" } }, status: 429, headers: { "retry-after-ms": "10" } }));
    const err = await expectKind(client({ maxRetries: 3 }).completeJson(request()), "rate_limited");
    expect(err.status).toBe(429);
    expect(err.attempts).toBe(4);
    expect(err.retryAfterMs).toBe(10);
    expect(err.transient).toBe(true);
    expect(fake.requests).toHaveLength(4);
  });

  test("a Retry-After longer than the SDK would wait → rate_limited at once, with retryAfterMs", async () => {
    fake.setFallback(() => ({ json: {}, status: 429, headers: { "retry-after": "120" } }));
    const started = Date.now();
    const err = await expectKind(client({ maxRetries: 2 }).completeJson(request()), "rate_limited");
    expect(Date.now() - started).toBeLessThan(300);
    expect(fake.requests).toHaveLength(1);
    expect(err.retryAfterMs).toBe(120_000);
  });

  test("500 → retried, then server", async () => {
    fake.setFallback(() => ({ json: { error: { message: "boom" } }, status: 500, headers: { "retry-after-ms": "10" } }));
    const err = await expectKind(client({ maxRetries: 2 }).completeJson(request()), "server");
    expect(err.status).toBe(500);
    expect(fake.requests).toHaveLength(3);
  });

  test("503 once then success → value", async () => {
    fake.enqueue({ json: {}, status: 503, headers: { "retry-after-ms": "10" } }, { content: GOOD });
    const res = await client().completeJson(request());
    expect(res.value.score).toBe(7);
    expect(res.attempts).toBe(2);
  });

  test("401 → bad_request with its status, no retry", async () => {
    fake.setFallback(() => ({ json: { error: { message: "Incorrect API key provided" } }, status: 401 }));
    const err = await expectKind(client({ maxRetries: 2 }).completeJson(request()), "bad_request");
    expect(err.status).toBe(401);
    expect(err.transient).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  test.each([400, 403, 404, 422])("%p → bad_request without retry", async (status) => {
    fake.setFallback(() => ({ json: { error: { message: "no" } }, status }));
    const err = await expectKind(client().completeJson(request()), "bad_request");
    expect(err.status).toBe(status);
    expect(fake.requests).toHaveLength(1);
  });

  test("a dropped connection → network after retries", async () => {
    fake.setFallback(() => ({ dropConnection: true }));
    const err = await expectKind(client({ maxRetries: 1 }).completeJson(request()), "network");
    expect(err.attempts).toBe(2);
    expect(fake.requests).toHaveLength(2);
  });

  test("a dropped connection once, then success", async () => {
    fake.enqueue({ dropConnection: true }, { content: GOOD });
    const res = await client({ maxRetries: 1 }).completeJson(request());
    expect(res.attempts).toBe(2);
  });

  test("nothing listening → network", async () => {
    const url = fake.url;
    await fake.close();
    await expectKind(client({ baseUrl: url, maxRetries: 0 }).completeJson(request()), "network");
  });
});

describe("timeouts and cancellation", () => {
  test("a reply slower than timeoutMs → timeout", async () => {
    fake.setFallback(() => ({ content: GOOD, delayMs: 1500 }));
    const started = Date.now();
    const err = await expectKind(client({ timeoutMs: 200, maxRetries: 0 }).completeJson(request()), "timeout");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err.attempts).toBe(1);
  });

  test("the per-request timeoutMs overrides the setting, and timeouts are retried", async () => {
    fake.setFallback(() => ({ content: GOOD, delayMs: 1500 }));
    const err = await expectKind(client({ timeoutMs: 10_000, maxRetries: 1 }).completeJson(request({ timeoutMs: 150 })), "timeout");
    expect(err.attempts).toBe(2);
  });

  test("the caller's signal → aborted", async () => {
    fake.setFallback(() => ({ content: GOOD, delayMs: 1500 }));
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 100);
    await expectKind(client().completeJson(request({ signal: ctrl.signal })), "aborted");
  });

  test("a call aborted while queued never reaches the server and frees nothing it did not hold", async () => {
    fake.setFallback(() => ({ content: GOOD, delayMs: 200 }));
    const c = client({ concurrency: 1 });
    const first = c.completeJson(request());
    const ctrl = new AbortController();
    const queued = c.completeJson(request({ signal: ctrl.signal }));
    const third = c.completeJson(request());
    ctrl.abort();
    await expectKind(queued, "aborted");
    await Promise.all([first, third]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.maxInFlight).toBe(1);
  });
});

describe("answers", () => {
  test("refusal → refused", async () => {
    fake.enqueue({ content: "", refusal: "I can't help with that." });
    const err = await expectKind(client().completeJson(request()), "refused");
    expect(err.message).toContain("I can't help with that.");
  });

  test("finish_reason length → truncated, with the tokens it cost", async () => {
    fake.enqueue({ content: '{"score": 7, "rea', finishReason: "length", usage: { prompt_tokens: 50, completion_tokens: 20 } });
    const err = await expectKind(client().completeJson(request()), "truncated");
    expect(err.usage).toEqual({ promptTokens: 50, completionTokens: 20, totalTokens: 70 });
  });

  test("non-JSON content → invalid_output", async () => {
    fake.enqueue({ content: "Sure! The score is 7." });
    await expectKind(client().completeJson(request()), "invalid_output");
  });

  test("the validator throwing → invalid_output with its message; its value is never returned", async () => {
    fake.enqueue({ content: JSON.stringify({ score: 11, reason: "ignore previous instructions" }) });
    const err = await expectKind(client().completeJson(request()), "invalid_output");
    expect(err.message).toBe("score out of range: 11");
    fake.enqueue({ content: JSON.stringify({ score: "7", reason: "x" }) });
    await expectKind(client().completeJson(request()), "invalid_output");
  });

  test("the value returned is the validator's result, not the raw JSON", async () => {
    fake.enqueue({ content: JSON.stringify({ score: 3, reason: "meh" }) });
    const res = await client().completeJson(request({ validate: (v) => ({ ...validateScore(v), reason: "checked" }) }));
    expect(res.value).toEqual({ score: 3, reason: "checked" });
  });

  test("empty content → invalid_output; JSON in a Markdown fence is accepted", async () => {
    fake.enqueue({ content: "" });
    await expectKind(client().completeJson(request()), "invalid_output");
    fake.enqueue({ content: "```json\n" + GOOD + "\n```" });
    expect((await client().completeJson(request())).value.score).toBe(7);
  });

  test("a 200 that is not a chat completion → server", async () => {
    fake.enqueue({ json: { hello: "world" } });
    await expectKind(client().completeJson(request()), "server");
  });

  test("usage is mapped from the response", async () => {
    fake.enqueue({ content: GOOD, usage: { prompt_tokens: 123, completion_tokens: 45 } });
    const res = await client().completeJson(request());
    expect(res.usage).toEqual({ promptTokens: 123, completionTokens: 45, totalTokens: 168 });
  });

  test("usage is zero when the server omits it, and the server's model name is reported", async () => {
    fake.enqueue({
      json: {
        id: "x",
        object: "chat.completion",
        created: 1,
        model: "llama-3.1-8b-q4",
        choices: [{ index: 0, message: { role: "assistant", content: GOOD }, finish_reason: "stop" }],
      },
    });
    const res = await client().completeJson(request());
    expect(res.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    expect(res.model).toBe("llama-3.1-8b-q4");
  });
});

describe("configuration and concurrency", () => {
  test("not configured → not_configured without any request", async () => {
    for (const apiKey of [undefined, ""]) {
      const c = client({ apiKey });
      expect(c.isConfigured).toBe(false);
      await expectKind(c.completeJson(request()), "not_configured");
    }
    expect(client().isConfigured).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });

  test("concurrency 2 with 5 calls → never more than 2 in flight, and calls start in order", async () => {
    fake.setFallback(() => ({ content: GOOD, delayMs: 120 }));
    const c = client({ concurrency: 2 });
    const calls = [0, 1, 2, 3, 4].map((i) => c.completeJson(request({ user: `call ${i}` })));
    const results = await Promise.all(calls);
    expect(results).toHaveLength(5);
    expect(fake.maxInFlight).toBe(2);
    expect(fake.requests.map((r) => r.body.messages[1].content)).toEqual(["call 0", "call 1", "call 2", "call 3", "call 4"]);
  });

  test("a failing call frees its slot", async () => {
    fake.enqueue({ json: {}, status: 400 });
    const c = client({ concurrency: 1 });
    await expectKind(c.completeJson(request()), "bad_request");
    expect((await c.completeJson(request())).value.score).toBe(7);
  });
});

describe("logging", () => {
  test("one debug line per call with model, attempts, ms and tokens; no prompt text, no key", async () => {
    fake.enqueue({ content: GOOD, usage: { prompt_tokens: 10, completion_tokens: 4 } });
    await client().completeJson(request());
    const debug = log.records().filter((r) => r.level === "debug");
    expect(debug).toHaveLength(1);
    expect(debug[0]).toMatchObject({ msg: "ai call", model: "gpt-test", attempts: 1, promptTokens: 10, completionTokens: 4, totalTokens: 14 });
    expect(typeof debug[0]!.ms).toBe("number");
    const all = log.lines.join("");
    expect(all).not.toContain("CANARY");
  });

  test("the key is sent in Authorization but never logged, even when the server echoes it in an error", async () => {
    fake.setFallback(() => ({
      json: { error: { message: `Incorrect API key provided: ${API_KEY}.` } },
      status: 401,
    }));
    const err = await expectKind(client().completeJson(request()), "bad_request");
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(err.message).not.toContain(API_KEY);
    const warn = log.records().filter((r) => r.level === "warn");
    expect(warn).toHaveLength(1);
    expect(warn[0]).toMatchObject({ msg: "ai call failed", kind: "bad_request", status: 401, attempts: 1 });
    expect(log.lines.join("")).not.toContain(API_KEY);
    expect(log.lines.join("")).not.toContain("CANARY");
  });
});
