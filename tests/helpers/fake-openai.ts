/**
 * A fake OpenAI-compatible server for tests: POST /v1/chat/completions answers with scripted replies
 * (chat completions, raw status/headers/bodies, delays, dropped connections) and records every request;
 * GET /v1/models lists the models set with setModels (or answers the status set there).
 */
import { droppedConnection } from "./dropped-connection";

export interface FakeOpenAiRequest {
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: any;
  /** Epoch milliseconds with sub-millisecond precision. */
  receivedAt: number;
}

export type FakeReply =
  | { json: unknown; status?: number; headers?: Record<string, string>; delayMs?: number }
  | {
      content: string;
      finishReason?: string;
      refusal?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
      delayMs?: number;
    }
  | { dropConnection: true };

export interface FakeOpenAi {
  /** Base URL to pass as baseUrl, ending in /v1. */
  url: string;
  requests: FakeOpenAiRequest[];
  /** Chat-completion requests being answered right now, and the most at any one time. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Replies are taken in order; when the queue is empty `fallback` answers (default: content "{}"). */
  enqueue(...replies: FakeReply[]): void;
  setFallback(fn: (req: FakeOpenAiRequest) => FakeReply): void;
  /** What GET /v1/models answers: these model ids (default gpt-5-nano and gpt-5-mini, the default settings' models), or a status with an error body. */
  setModels(reply: string[] | { status: number }): void;
  close(): Promise<void>;
}

const defaultFallback = (): FakeReply => ({ content: "{}" });

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const queue: FakeReply[] = [];
  const requests: FakeOpenAiRequest[] = [];
  let fallback: (req: FakeOpenAiRequest) => FakeReply = defaultFallback;
  let inFlight = 0;
  let maxInFlight = 0;
  let completionCounter = 0;
  let models: string[] | { status: number } = ["gpt-5-nano", "gpt-5-mini"];

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const receivedAt = performance.timeOrigin + performance.now();
      const path = new URL(request.url).pathname;
      if (path === "/v1/models" && request.method === "GET") {
        requests.push({ path, headers: Object.fromEntries(request.headers), body: "", receivedAt });
        if (!Array.isArray(models)) return errorResponse(models.status, `scripted ${models.status}`, "server_error", null);
        return Response.json({ object: "list", data: models.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "fake" })) });
      }
      if (path !== "/v1/chat/completions") {
        return errorResponse(404, `Unknown request URL: ${request.method} ${path}`, "invalid_request_error", "unknown_url");
      }
      if (request.method !== "POST") {
        return errorResponse(405, `Method ${request.method} not allowed`, "invalid_request_error", "method_not_allowed");
      }
      const text = await request.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the raw text; answered below
      }
      const recorded: FakeOpenAiRequest = { path, headers: Object.fromEntries(request.headers), body, receivedAt };
      requests.push(recorded);
      if (typeof body !== "object" || body === null) {
        return errorResponse(400, "We could not parse the JSON body of your request.", "invalid_request_error", null);
      }

      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const reply = queue.shift() ?? fallback(recorded);
        if ("dropConnection" in reply) return droppedConnection();
        if (reply.delayMs) await Bun.sleep(reply.delayMs);
        if ("json" in reply) {
          return new Response(JSON.stringify(reply.json), {
            status: reply.status ?? 200,
            headers: { "content-type": "application/json", ...reply.headers },
          });
        }
        return Response.json(chatCompletion(`chatcmpl-fake${++completionCounter}`, body, reply));
      } finally {
        inFlight--;
      }
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    enqueue: (...replies) => void queue.push(...replies),
    setFallback: (fn) => {
      fallback = fn;
    },
    setModels: (reply) => {
      models = reply;
    },
    close: async () => {
      await server.stop(true);
    },
  };
}

function chatCompletion(id: string, body: any, reply: Extract<FakeReply, { content: string }>) {
  const usage = reply.usage ?? estimateUsage(body, reply.content);
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: typeof body.model === "string" ? body.model : "unknown",
    system_fingerprint: "fp_fake",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: reply.content, refusal: reply.refusal ?? null, annotations: [] },
        logprobs: null,
        finish_reason: reply.finishReason ?? "stop",
      },
    ],
    usage: {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
    },
  };
}

/** Roughly four characters per token, like the real tokenisers on English text. */
function estimateUsage(body: any, content: string) {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  const promptChars = messages.reduce<number>((sum, m) => sum + (typeof (m as any)?.content === "string" ? (m as any).content.length : 0), 0);
  return { prompt_tokens: Math.ceil(promptChars / 4), completion_tokens: Math.ceil(content.length / 4) };
}

function errorResponse(status: number, message: string, type: string, code: string | null): Response {
  return Response.json({ error: { message, type, param: null, code } }, { status });
}
