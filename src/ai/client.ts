/**
 * The one way the service talks to a language model: a JSON answer to one system + user prompt,
 * through any OpenAI-compatible Chat Completions server (api.openai.com, llama.cpp, Ollama, vLLM).
 *
 * Retries: exactly one layer, the `openai` SDK's own (maxRetries; backoff 0.5 s·2^n capped at 8 s
 * with up to 25 % jitter; it waits `retry-after-ms` / `retry-after` when they ask for 0–60 s). The
 * SDK ignores a longer Retry-After and retries on its short backoff instead, which only burns
 * attempts against a rate limit, so our fetch wrapper marks such responses `x-should-retry: false`
 * (a header the SDK obeys) and the caller gets `rate_limited` with `retryAfterMs` to reschedule.
 */
import type OpenAI from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { systemClock, type Clock } from "../lib/clock";
import type { Logger } from "../lib/log";
import { retryAfterMs } from "../lib/retry-after";
import { Semaphore } from "../lib/semaphore";

export interface AiSettings {
  /** Unset or empty → isConfigured false. Keyless local servers accept any placeholder value. */
  apiKey?: string;
  /** e.g. http://127.0.0.1:8080/v1 (include the /v1); unset → the SDK default (OPENAI_BASE_URL or api.openai.com). */
  baseUrl?: string;
  /** Per attempt, covering connect, headers and body. */
  timeoutMs: number;
  /** Retries on 408/409/429/5xx/network errors and timeouts; 0 disables them. */
  maxRetries: number;
  /** Max requests in flight through this client; extra calls wait in FIFO order. */
  concurrency: number;
  /** Some OpenAI-compatible servers reject `reasoning_effort`: false omits it. */
  sendReasoningEffort: boolean;
  /**
   * Which field carries maxOutputTokens. Default `max_completion_tokens` (OpenAI; its reasoning models
   * reject `max_tokens`). Servers whose compatibility layer only knows `max_tokens` (Ollama's docs list
   * only that one) silently ignore the default, leaving output uncapped: set `max_tokens` for them.
   */
  maxTokensField?: "max_completion_tokens" | "max_tokens";
}

export type ReasoningEffort = "minimal" | "low" | "medium" | "high";

export interface JsonCompletionRequest<T> {
  model: string;
  system: string;
  user: string;
  schemaName: string;
  /** JSON Schema of the answer (strict: all properties required, additionalProperties false). */
  schema: Record<string, unknown>;
  /** Throws if the parsed answer is not acceptable; its message becomes the AiError message. */
  validate: (value: unknown) => T;
  reasoningEffort?: ReasoningEffort;
  maxOutputTokens?: number;
  /** Overrides settings.timeoutMs. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface JsonCompletion<T> {
  value: T;
  usage: TokenUsage;
  model: string;
  /** HTTP requests made, retries included. */
  attempts: number;
}

/** "aborted": the caller's signal fired (while queued, waiting to retry or in flight). */
export type AiErrorKind =
  | "not_configured"
  | "timeout"
  | "rate_limited"
  | "server"
  | "network"
  | "refused"
  | "truncated"
  | "invalid_output"
  | "bad_request"
  | "aborted";

export interface AiErrorDetails {
  status?: number;
  attempts?: number;
  /** From the last response's retry-after-ms / retry-after, when present. */
  retryAfterMs?: number;
  /** Tokens billed by an answer that was then rejected (refused, truncated, invalid_output). */
  usage?: TokenUsage;
  cause?: unknown;
}

export class AiError extends Error {
  readonly kind: AiErrorKind;
  readonly status?: number;
  readonly attempts: number;
  readonly retryAfterMs?: number;
  readonly usage?: TokenUsage;

  constructor(kind: AiErrorKind, message: string, details: AiErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "AiError";
    this.kind = kind;
    this.status = details.status;
    this.attempts = details.attempts ?? 0;
    this.retryAfterMs = details.retryAfterMs;
    this.usage = details.usage;
  }

  /** Worth trying again later (possibly after retryAfterMs); the other kinds will fail the same way. */
  get transient(): boolean {
    return this.kind === "timeout" || this.kind === "rate_limited" || this.kind === "server" || this.kind === "network";
  }
}

/** The SDK only waits a Retry-After of at most this long; see the module comment. */
const SDK_MAX_RETRY_AFTER_MS = 60_000;
const MAX_LOGGED_MESSAGE = 300;

type OpenAiModule = typeof import("openai");
/** The SDK and the client made from it. */
interface Sdk {
  mod: OpenAiModule;
  client: OpenAI;
}

export class AiClient {
  /** Loaded on the first call: the SDK is a large module to evaluate at start, and unused without an API key. */
  private sdk: Promise<Sdk> | undefined;
  private readonly slots: Semaphore;
  private readonly log: Logger;
  private readonly apiKey: string | undefined;

  constructor(
    private readonly settings: AiSettings,
    log: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.log = log.child({ component: "ai" });
    this.apiKey = settings.apiKey ? settings.apiKey : undefined;
    this.slots = new Semaphore(Math.max(1, Math.floor(settings.concurrency) || 1));
  }

  private loadSdk(apiKey: string): Promise<Sdk> {
    const { settings } = this;
    this.sdk ??= import("openai").then((mod) => ({
      mod,
      client: new mod.default({
        apiKey,
        baseURL: settings.baseUrl || undefined,
        // The SDK turns anything but a non-negative integer into its default of 2.
        maxRetries: Math.max(0, Math.floor(settings.maxRetries) || 0),
        timeout: settings.timeoutMs,
        // Set explicitly so OPENAI_LOG cannot switch on the SDK's request logging; its warnings come to our log.
        logLevel: "warn",
        logger: sdkLogger(this.log, (s) => this.redact(s)),
      }),
    }));
    return this.sdk;
  }

  get isConfigured(): boolean {
    return this.apiKey !== undefined;
  }

  async completeJson<T>(req: JsonCompletionRequest<T>): Promise<JsonCompletion<T>> {
    if (this.apiKey === undefined) throw new AiError("not_configured", "No language model is configured (AI API key is not set)");
    const { mod, client: sdk } = await this.loadSdk(this.apiKey);

    const started = performance.now();
    let attempts = 0;
    let lastResponse: Response | undefined;
    const release = await this.slots.acquire(req.signal).catch((err: unknown) => {
      throw this.fail(req, new AiError("aborted", "Cancelled while waiting for a free model slot", { cause: err }), started);
    });
    try {
      // A client per call shares the settings but lets us count this call's HTTP attempts.
      const counted = sdk.withOptions({
        fetch: async (url, init) => {
          attempts++;
          const res = await fetch(url, init);
          lastResponse = res;
          return vetoLongRetryAfter(res, this.clock.now());
        },
      });
      let completion: ChatCompletion;
      try {
        completion = await counted.chat.completions.create(buildParams(req, this.settings), {
          timeout: req.timeoutMs ?? this.settings.timeoutMs,
          signal: req.signal,
        });
      } catch (err) {
        throw this.classify(mod, err, attempts, lastResponse);
      }
      const result = readAnswer(completion, req, attempts);
      this.log.debug("ai call", {
        model: req.model,
        schema: req.schemaName,
        attempts,
        ms: Math.round(performance.now() - started),
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        totalTokens: result.usage.totalTokens,
      });
      return result;
    } catch (err) {
      const e = err instanceof AiError ? err : new AiError("server", "Unexpected error talking to the model server", { attempts, cause: err });
      throw this.fail(req, e, started);
    } finally {
      release();
    }
  }

  /** Logs the failure once (without prompt text or key) and returns the error with the key scrubbed from its message. */
  private fail(req: JsonCompletionRequest<unknown>, err: AiError, started: number): AiError {
    const clean = this.redact(err.message);
    const out =
      clean === err.message
        ? err
        : new AiError(err.kind, clean, {
            status: err.status,
            attempts: err.attempts,
            retryAfterMs: err.retryAfterMs,
            usage: err.usage,
          });
    this.log.warn("ai call failed", {
      model: req.model,
      schema: req.schemaName,
      kind: out.kind,
      status: out.status,
      attempts: out.attempts,
      ms: Math.round(performance.now() - started),
      totalTokens: out.usage?.totalTokens,
      retryAfterMs: out.retryAfterMs,
      error: out.message.slice(0, MAX_LOGGED_MESSAGE),
    });
    return out;
  }

  private classify(mod: OpenAiModule, err: unknown, attempts: number, last: Response | undefined): AiError {
    const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = mod;
    if (err instanceof AiError) return err;
    if (err instanceof APIUserAbortError) return new AiError("aborted", "The model request was cancelled", { attempts, cause: err });
    // The timeout class extends the connection-error class, so test it first.
    if (err instanceof APIConnectionTimeoutError) return new AiError("timeout", "The model server did not answer in time", { attempts, cause: err });
    if (err instanceof APIConnectionError) return new AiError("network", `Could not reach the model server: ${err.message}`, { attempts, cause: err });
    if (err instanceof APIError && typeof err.status === "number") {
      const status = err.status;
      const retryAfterMs = parseRetryAfterMs(err.headers ?? last?.headers, this.clock.now());
      const details = { status, attempts, retryAfterMs, cause: err };
      const detail = err.message ? `: ${err.message}` : "";
      if (status === 429) return new AiError("rate_limited", `The model server rate-limited the request${detail}`, details);
      if (status === 408) return new AiError("timeout", `The model server timed out the request${detail}`, details);
      if (status >= 500 || status === 409) return new AiError("server", `The model server failed (${status})${detail}`, details);
      return new AiError("bad_request", `The model server rejected the request (${status})${detail}`, details);
    }
    if (err instanceof SyntaxError) return new AiError("server", "The model server sent a response that is not JSON", { attempts, cause: err });
    return new AiError("server", `Unexpected error talking to the model server: ${String(err)}`, { attempts, cause: err });
  }

  private redact(text: string): string {
    const key = this.apiKey;
    return key && key.length >= 4 ? text.split(key).join("[redacted]") : text;
  }
}

function buildParams(req: JsonCompletionRequest<unknown>, settings: AiSettings): ChatCompletionCreateParamsNonStreaming {
  const params: ChatCompletionCreateParamsNonStreaming = {
    model: req.model,
    messages: [
      { role: "system", content: req.system },
      { role: "user", content: req.user },
    ],
    response_format: {
      type: "json_schema",
      json_schema: { name: req.schemaName, schema: req.schema, strict: true },
    },
  };
  if (req.maxOutputTokens !== undefined) {
    if (settings.maxTokensField === "max_tokens") params.max_tokens = req.maxOutputTokens;
    else params.max_completion_tokens = req.maxOutputTokens;
  }
  if (settings.sendReasoningEffort && req.reasoningEffort) params.reasoning_effort = req.reasoningEffort;
  return params;
}

/** Turns a successful HTTP answer into a validated value, or the AiError saying why it is unusable. */
function readAnswer<T>(completion: ChatCompletion, req: JsonCompletionRequest<T>, attempts: number): JsonCompletion<T> {
  if (!completion || typeof completion !== "object" || !Array.isArray(completion.choices)) {
    throw new AiError("server", "The model server's response is not a chat completion", { attempts });
  }
  const usage = readUsage(completion.usage);
  const choice = completion.choices[0];
  if (!choice?.message) {
    throw new AiError("invalid_output", "The model returned no answer", { attempts, usage });
  }
  const details = { attempts, usage };
  const { message } = choice;
  if (typeof message.refusal === "string" && message.refusal.trim() !== "") {
    throw new AiError("refused", `The model refused: ${message.refusal}`, details);
  }
  if (choice.finish_reason === "length") {
    throw new AiError("truncated", "The model's answer was cut off at the output token limit", details);
  }
  if (choice.finish_reason === "content_filter") {
    throw new AiError("refused", "The model's answer was withheld by a content filter", details);
  }
  if (typeof message.content !== "string" || message.content.trim() === "") {
    throw new AiError("invalid_output", "The model returned an empty answer", details);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripCodeFence(message.content));
  } catch {
    throw new AiError("invalid_output", "The model's answer is not valid JSON", details);
  }
  let value: T;
  try {
    value = req.validate(parsed);
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    throw new AiError("invalid_output", text || "The model's answer was rejected by validation", { ...details, cause: err });
  }
  return { value, usage, model: typeof completion.model === "string" && completion.model ? completion.model : req.model, attempts };
}

/** Servers that ignore response_format sometimes wrap the JSON in a Markdown fence; the validator still decides. */
function stripCodeFence(content: string): string {
  const m = /^\s*```[A-Za-z]*\s*\n([\s\S]*?)\n?\s*```\s*$/.exec(content);
  return m ? m[1]! : content;
}

function readUsage(usage: ChatCompletion["usage"] | undefined): TokenUsage {
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
  const promptTokens = n(usage?.prompt_tokens);
  const completionTokens = n(usage?.completion_tokens);
  const total = n(usage?.total_tokens);
  return { promptTokens, completionTokens, totalTokens: total || promptTokens + completionTokens };
}

/** Milliseconds from `retry-after-ms` (the SDK reads it first), else `retry-after` (seconds or an HTTP date). */
function parseRetryAfterMs(headers: Headers | undefined, nowTs: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const v = Number.parseFloat(ms);
    if (Number.isFinite(v) && v >= 0) return v;
  }
  return retryAfterMs(headers.get("retry-after"), nowTs) ?? undefined;
}

/**
 * A retryable response asking for a wait the SDK would not honour gets `x-should-retry: false`, so the
 * SDK stops instead of retrying after its short backoff (see the module comment).
 */
function vetoLongRetryAfter(res: Response, nowTs: number): Response {
  if (res.ok || res.headers.has("x-should-retry")) return res;
  const wait = parseRetryAfterMs(res.headers, nowTs);
  if (wait === undefined || wait <= SDK_MAX_RETRY_AFTER_MS) return res;
  const headers = new Headers(res.headers);
  headers.set("x-should-retry", "false");
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/** The SDK's logger interface, forwarding to ours with the key scrubbed; extra arguments are dropped (they may hold request details). */
function sdkLogger(log: Logger, redact: (s: string) => string) {
  const forward = (level: "debug" | "info" | "warn" | "error") => (message: string) =>
    log[level](`openai sdk: ${redact(String(message)).slice(0, MAX_LOGGED_MESSAGE)}`);
  return { debug: forward("debug"), info: forward("info"), warn: forward("warn"), error: forward("error") };
}
