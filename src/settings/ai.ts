/**
 * The model server that scores jobs and writes proposals (without one, the local scorer and writer do), and how it is called.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import type { Setting } from "./setting";

export const AI_SETTINGS = {
  openaiApiKey: {
    env: "OPENAI_API_KEY",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 1 })),
    default: undefined,
    doc: "API key of an OpenAI-compatible model server. Unset: jobs are scored by the local scorer and letters written by the local writer. Servers that need no key (llama.cpp, Ollama) still need a placeholder value here.",
  },
  openaiBaseUrl: {
    env: "OPENAI_BASE_URL",
    flag: undefined,
    schema: T.Optional(T.String({ pattern: "^https?://" })),
    default: undefined,
    doc: "Base URL of the model server, including `/v1` (e.g. `http://127.0.0.1:11434/v1` for Ollama, `http://127.0.0.1:8080/v1` for llama.cpp or vLLM). Unset: OpenAI's API.",
  },
  scoringModel: {
    env: "JOBPILOT_SCORING_MODEL",
    flag: undefined,
    schema: T.String({ minLength: 1 }),
    default: "gpt-5-nano",
    doc: "Model that scores jobs against a feed's `profilePrompt`.",
  },
  proposalModel: {
    env: "JOBPILOT_PROPOSAL_MODEL",
    flag: undefined,
    schema: T.String({ minLength: 1 }),
    default: "gpt-5-mini",
    doc: "Model that writes proposals and screening answers.",
  },
  aiTimeoutMs: {
    env: "JOBPILOT_AI_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 100, maximum: 600_000 }),
    default: 60_000,
    doc: "Timeout of one model request (proposals: ×1.5 at medium reasoning effort, ×2 at high).",
  },
  aiMaxRetries: {
    env: "JOBPILOT_AI_MAX_RETRIES",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 10 }),
    default: 2,
    doc: "Retries of a model request on 408, 409, 429, 5xx and network errors (exponential backoff with jitter; `Retry-After` honoured up to 60 s). 0 turns them off.",
  },
  aiConcurrency: {
    env: "JOBPILOT_AI_CONCURRENCY",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 256 }),
    default: 4,
    doc: "Model requests in flight at once.",
  },
  aiReasoningEffort: {
    env: "JOBPILOT_AI_REASONING_EFFORT",
    flag: undefined,
    schema: T.Boolean(),
    default: true,
    doc: "Send `reasoning_effort` to the model; `false` for servers whose models reject it.",
  },
} as const satisfies Record<string, Setting>;
