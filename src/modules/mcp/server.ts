import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "../../errors";
import { toJsonSchema2020 } from "../../http/openapi-document";
import { feedIdOfMatchesUri, MATCHES_URI_TEMPLATE, matchesUri, TOOLS } from "./tools";

/**
 * How the MCP tools reach the API. Every tool call is one API request carrying the caller's key, whatever
 * the transport: to a remote server with fetch (`jobpilot mcp` with JOBPILOT_URL), or into this process's
 * own app with app.handle (`POST /mcp`, and `jobpilot mcp --db`). So a tool gets exactly the API's
 * authentication, account isolation, validation, rate limits and error messages, with no second copy of
 * any of them.
 */
export interface ApiConnection {
  /** The server's base URL (any origin for an in-process app). */
  baseUrl: string;
  apiKey: string;
  send: (request: Request) => Promise<Response>;
  /** Headers added to every request, e.g. the /mcp request's id so its tool calls log under it. */
  headers?: Record<string, string>;
  /**
   * Throws the 403 AppError when the caller's role lacks a tool's permission (POST /mcp knows the caller; a remote
   * server's routes answer the same 403 themselves, so `jobpilot mcp` over HTTP leaves it out).
   */
  authorize?: (permission: string) => void;
}

interface ApiAnswer {
  status: number;
  body: unknown;
}

const SERVER_INSTRUCTIONS =
  "jobpilot finds freelance jobs for the user and applies to them. Feeds are saved searches whose new jobs are scored against the user's profile. " +
  "A typical flow: list_feeds (or create_feed) -> feed_jobs -> get_job -> draft_proposal -> show the draft to the user -> apply (costs 1 credit on success) -> application_status until it is final. " +
  "Ask the user before apply, create_feed or update_feed.";

/**
 * A tool's schema as the wire carries it: valid JSON Schema 2020-12 (what MCP clients compile), the same
 * conversion the OpenAPI document makes. The models are written for Elysia, whose OpenAPI 3.0 `nullable`,
 * `error` message keyword and number-or-digit-string unions (for coercing query strings) no JSON Schema
 * validator accepts in strict mode; TypeBox's symbols are dropped with them.
 */
function wireSchema(schema: unknown): Tool["inputSchema"] {
  return toJsonSchema2020(schema) as Tool["inputSchema"];
}

const TOOL_LIST: Tool[] = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: wireSchema(tool.input),
  annotations: { title: tool.title, readOnlyHint: tool.isReadOnly, destructiveHint: false, openWorldHint: tool.name === "apply" },
}));
const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));

/**
 * tools/list answers the same ~20 KB every time, so its text is made once per process rather than per answer
 * (a batch used to serialise it once per message). The handler answers a placeholder list, a string nothing else
 * can hold (random per process, and never sent), and expandCachedAnswers swaps the cached text in where the
 * transport's output carries it. Every transport connected to a server of createMcpServer must pass its
 * output through expandCachedAnswers: POST /mcp and `jobpilot mcp` do.
 */
const TOOL_LIST_TEXT = JSON.stringify(TOOL_LIST);
const TOOL_LIST_PLACEHOLDER = `jobpilot:tools/list:${crypto.randomUUID()}`;
const TOOL_LIST_PLACEHOLDER_TEXT = JSON.stringify(TOOL_LIST_PLACEHOLDER);

/** A transport's output (JSON-RPC text) with the cached answers in place of their placeholders. */
export function expandCachedAnswers(text: string): string {
  return text.includes(TOOL_LIST_PLACEHOLDER_TEXT) ? text.replaceAll(TOOL_LIST_PLACEHOLDER_TEXT, TOOL_LIST_TEXT) : text;
}

/**
 * The path with its `:params` filled from the arguments, and what is left of them (query or body). A
 * parameter is one path segment: slashes are encoded, and `.` or `..`, which a URL resolves into another
 * path, are refused.
 */
function fillPath(route: string, args: Record<string, unknown>): { path: string; rest: Record<string, unknown> } | { problem: string } {
  const rest = { ...args };
  let problem: string | undefined;
  const path = route.replace(/:(\w+)/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    if (typeof value !== "string" || value === "") problem ??= `${name} is required (a string)`;
    else if (value === "." || value === "..") problem ??= `${name} is not a valid id`;
    return encodeURIComponent(String(value));
  });
  return problem ? { problem } : { path, rest };
}

async function callApi(conn: ApiConnection, method: string, path: string, input?: { query?: Record<string, unknown>; body?: unknown }): Promise<ApiAnswer> {
  const url = new URL(conn.baseUrl.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(input?.query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { ...conn.headers, "x-api-key": conn.apiKey, accept: "application/json" };
  if (input?.body !== undefined) headers["content-type"] = "application/json";
  const res = await conn.send(new Request(url.href, { method, headers, body: input?.body === undefined ? undefined : JSON.stringify(input.body) }));
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    // Not the API answering (a proxy's error page, say): keep the start of it for the message.
    return { status: res.status, body: { error: text.slice(0, 300) || res.statusText } };
  }
}

/** The API's error as one line an assistant can act on: the status, the message and each failing field. */
function errorText(answer: ApiAnswer): string {
  const body = (answer.body ?? {}) as { error?: unknown; details?: unknown; creditsRemaining?: unknown };
  let text = `HTTP ${answer.status}: ${typeof body.error === "string" ? body.error : "request failed"}`;
  if (Array.isArray(body.details) && body.details.length > 0) text += ` (${body.details.join("; ")})`;
  if (typeof body.creditsRemaining === "number") text += ` (creditsRemaining: ${body.creditsRemaining})`;
  return text;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function unreachable(conn: ApiConnection, err: unknown): string {
  return `Cannot reach the jobpilot server at ${conn.baseUrl}: ${(err as Error).message}`;
}

/** Runs one tool: its API request, and the answer as a tool result (an API error is a tool error, never a thrown one). */
export async function callTool(conn: ApiConnection, name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  // Before anything runs: a role without the permission gets its message as the tool error, like the API's 403.
  try {
    conn.authorize?.(tool.permission);
  } catch (err) {
    if (err instanceof AppError) return toolError(errorText({ status: err.status, body: { error: err.message } }));
    throw err;
  }
  const request = tool.request ? tool.request(args ?? {}) : { method: tool.method, path: tool.path, args: args ?? {} };
  if ("problem" in request) return toolError(request.problem);
  const filled = fillPath(request.path, request.args);
  if ("problem" in filled) return toolError(filled.problem);
  let answer: ApiAnswer;
  try {
    // A DELETE, like a GET, carries no body: whatever the path leaves over is the query.
    const hasBody = request.method !== "GET" && request.method !== "DELETE";
    answer = await callApi(conn, request.method, filled.path, hasBody ? { body: filled.rest } : { query: filled.rest });
  } catch (err) {
    return toolError(unreachable(conn, err));
  }
  if (answer.status >= 400) return toolError(errorText(answer));
  const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(answer.body) }];
  if (tool.next && isRecord(answer.body)) content.push({ type: "text", text: tool.next(answer.body) });
  return { content, ...(isRecord(answer.body) ? { structuredContent: answer.body } : {}) };
}

/** A tools/call request's tool name and arguments, or an invalid-params error saying which is wrong. */
function toolCallParams(params: unknown): { name: string; args: Record<string, unknown> | undefined } {
  if (!isRecord(params) || typeof params.name !== "string" || params.name === "") {
    throw new McpError(ErrorCode.InvalidParams, "params.name is required: the name of the tool to call (see tools/list)");
  }
  const args = params.arguments;
  if (args !== undefined && !isRecord(args)) {
    const got = args === null ? "null" : Array.isArray(args) ? "an array" : `a ${typeof args}`;
    throw new McpError(ErrorCode.InvalidParams, `params.arguments must be an object of the tool's arguments by name (got ${got})`);
  }
  return { name: params.name, args };
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** Resources are read outside tools, so the API's error becomes a protocol error carrying its message. */
async function readOrThrow(conn: ApiConnection, path: string): Promise<unknown> {
  let answer: ApiAnswer;
  try {
    answer = await callApi(conn, "GET", path);
  } catch (err) {
    throw new McpError(ErrorCode.InternalError, unreachable(conn, err));
  }
  if (answer.status >= 400) throw new McpError(answer.status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InvalidRequest, errorText(answer));
  return answer.body;
}

/** The MCP spec's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** Counts the requests being answered, so a stop can let them finish (closing the transport drops their answers). */
function inFlightCounter() {
  let count = 0;
  const waiters: (() => void)[] = [];
  return {
    track<A extends unknown[], R>(handler: (...args: A) => Promise<R> | R) {
      return async (...args: A): Promise<R> => {
        count++;
        try {
          return await handler(...args);
        } finally {
          if (--count === 0) for (const wake of waiters.splice(0)) wake();
        }
      };
    },
    /** Resolves once no request is being answered; the SDK writes the answer a tick after its handler returns. */
    async idle(): Promise<void> {
      if (count > 0) await new Promise<void>((resolve) => waiters.push(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/**
 * An MCP server whose tools and resources are the API's operations, reached through `conn`. Built on the
 * SDK's protocol `Server` rather than `McpServer`: McpServer.registerTool takes zod schemas only and
 * validates arguments itself, which would mean a zod twin of every request schema and zod's messages in
 * place of the API's. Here the tool schemas are the API's own (see tools.ts) and the API validates.
 * `idle()` resolves when every request received so far has been answered.
 */
export function createMcpServer(conn: ApiConnection, version: string): { server: Server; idle: () => Promise<void> } {
  const server = new Server({ name: "jobpilot", version }, { capabilities: { tools: {}, resources: {} }, instructions: SERVER_INSTRUCTIONS });
  const inFlight = inFlightCounter();
  // The placeholder stands for TOOL_LIST (see expandCachedAnswers); the SDK checks only that a result is an object.
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST_PLACEHOLDER as unknown as Tool[] }));
  // tools/call is answered by the fallback handler, which sees the request before any zod parse: a handler
  // registered for it gets the SDK's zod issues (as JSON, and as an internal error) for bad arguments.
  server.fallbackRequestHandler = inFlight.track(async (request) => {
    if (request.method !== "tools/call") throw new McpError(ErrorCode.MethodNotFound, "Method not found");
    const { name, args } = toolCallParams(request.params);
    return callTool(conn, name, args);
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: MATCHES_URI_TEMPLATE,
        name: "feed-matches",
        title: "A feed's latest matches",
        description: "The 50 newest jobs matched into a feed, with scores and reasons (what feed_jobs returns).",
        mimeType: "application/json",
      },
    ],
  }));
  server.setRequestHandler(
    ListResourcesRequestSchema,
    inFlight.track(async () => {
      const body = (await readOrThrow(conn, "/api/v1/feeds")) as { feeds?: { id: string; title?: string }[] };
      return {
        resources: (body.feeds ?? []).map((feed) => ({
          uri: matchesUri(feed.id),
          name: `feed-${feed.id}-matches`,
          title: `Latest matches: ${feed.title ?? feed.id}`,
          mimeType: "application/json",
        })),
      };
    }),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    inFlight.track(async (request) => {
      const feedId = feedIdOfMatchesUri(request.params.uri);
      if (feedId === null) throw new McpError(RESOURCE_NOT_FOUND, `Unknown resource ${request.params.uri}; expected ${MATCHES_URI_TEMPLATE}`);
      const body = await readOrThrow(conn, `/api/v1/feeds/${encodeURIComponent(feedId)}/jobs`);
      return { contents: [{ uri: request.params.uri, mimeType: "application/json", text: JSON.stringify(body) }] };
    }),
  );
  return { server, idle: inFlight.idle };
}
