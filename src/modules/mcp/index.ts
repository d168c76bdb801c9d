import type { TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { presentedApiKey } from "../../http/auth";
import { getRequestState } from "../../http/context";
import { meterAsMany } from "../../http/rate-limit";
import { routePolicy } from "../../http/route-policy";
import { ErrorBody } from "../../http/schemas";
import { authorizeCaller } from "../members/caller";
import { batchProblem, INVALID_REQUEST, jsonRpcError, MAX_BATCH_MESSAGES } from "./batch";

/**
 * The MCP SDK and our server on it, loaded on the first /mcp request: they are a sizeable share of what a
 * start evaluates, and most installations never use them.
 */
const loadMcp = async () => {
  const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer, expandCachedAnswers }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("./server"),
  ]);
  return { WebStandardStreamableHTTPServerTransport, createMcpServer, expandCachedAnswers };
};

/** One JSON-RPC 2.0 message, as the OpenAPI document describes the transport's bodies (MCP's own schema says the rest). */
const JsonRpcMessage = t.Object(
  {
    jsonrpc: t.Literal("2.0"),
    id: t.Optional(t.Union([t.String(), t.Integer(), t.Null()])),
    method: t.Optional(t.String()),
    params: t.Optional(t.Unknown()),
    result: t.Optional(t.Unknown()),
    error: t.Optional(t.Object({ code: t.Integer(), message: t.String(), data: t.Optional(t.Unknown()) })),
  },
  { title: "JsonRpcMessage", description: "A JSON-RPC 2.0 request, notification or response of the Model Context Protocol" },
);
const JsonRpcMessages = t.Union([JsonRpcMessage, t.Array(JsonRpcMessage, { minItems: 1, maxItems: MAX_BATCH_MESSAGES })]);
const json = (schema: TSchema) => ({ "application/json": { schema } });

/** Where the /mcp route's tool calls go: the app's own request handler (app.handle). */
export type HandleRequest = (request: Request) => Promise<Response>;

/**
 * `POST /mcp`: the Model Context Protocol over streamable HTTP, for assistants that reach jobpilot over
 * the network. The caller's API key (x-api-key, or a bearer token as MCP clients send it) is checked and
 * metered (`default` bucket) before routing like any /api request; each tool call is then one request into
 * this same app with that key, so it is authenticated, isolated, validated and rate-limited in its own
 * route's bucket exactly as the API is.
 *
 * A batch (an array of messages) counts one request per message in that `default` bucket, all before any
 * of them runs, and holds at most MAX_BATCH_MESSAGES: else one POST could ask for the work and the answers
 * of hundreds (tools/list alone answers ~20 KB) for the price of one request.
 *
 * Stateless: every POST gets a fresh server and transport, and answers with plain JSON (no SSE stream, no
 * session id), so any node behind a load balancer can answer any request. Nothing here needs a session:
 * the tools push nothing to the client. GET and DELETE (a server-to-client stream, ending a session) are
 * therefore 405, as the protocol allows.
 */
export function mcpRoutes(deps: Deps, handle: HandleRequest) {
  return new Elysia().use(routePolicy).post(
    "/mcp",
    async ({ request, body, set }) => {
      const problem = batchProblem(body);
      if (problem) {
        set.status = 400;
        return jsonRpcError(INVALID_REQUEST, problem);
      }
      // The rate-limit plugin counted the POST as one request; a batch is refused whole (429) when the rest do not fit.
      if (Array.isArray(body)) await meterAsMany(deps, request, set.headers, body.length);
      const state = getRequestState(request);
      const requestId = state?.id;
      const caller = state?.auth;
      const { WebStandardStreamableHTTPServerTransport, createMcpServer, expandCachedAnswers } = await loadMcp();
      const { server } = createMcpServer(
        {
          baseUrl: "http://jobpilot.internal",
          // The auth plugin has let only a valid key through to here.
          apiKey: presentedApiKey(request.headers, true) ?? "",
          send: handle,
          headers: requestId ? { "x-request-id": requestId } : undefined,
          // Each tool's permission, asked with the role the key acts as (the route behind it asks again).
          authorize: caller ? (permission) => authorizeCaller(caller, permission) : undefined,
        },
        deps.version,
      );
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        // The body parser has read (and capped) the body already.
        const answer = await transport.handleRequest(request, { parsedBody: body });
        // JSON answers are whole texts already (no stream): the cached answers go in (see expandCachedAnswers).
        if (!answer.body || !answer.headers.get("content-type")?.startsWith("application/json")) return answer;
        return new Response(expandCachedAnswers(await answer.text()), { status: answer.status, headers: answer.headers });
      } finally {
        await server.close();
      }
    },
    {
      // Any role may open the session (tools/list, reading); each tool asks for its own permission (tools.ts).
      policy: { apiKey: true, permission: "read" },
      detail: {
        tags: ["MCP"],
        summary: "(extension) Model Context Protocol, streamable HTTP transport",
        description:
          "JSON-RPC messages of the Model Context Protocol (stateless: no session, JSON answers). Takes the API key as x-api-key or Authorization: Bearer. " +
          `A batch (an array of messages) holds at most ${MAX_BATCH_MESSAGES} messages (400 with a JSON-RPC error otherwise) and counts one request per message against the key's rate limit (\`default\` bucket); ` +
          "a batch larger than what remains of the limit is refused whole (429) before any message runs. " +
          "Tools: list_feeds, create_feed, update_feed, feed_jobs, get_job, client_jobs, draft_proposal, apply, application_status, applied_jobs, freelancers; resource template jobpilot://feeds/{feedId}/matches. " +
          "The Accept header must name both application/json and text/event-stream (406 otherwise), as the protocol asks. GET and DELETE (a server stream, ending a session) are 405.",
        operationId: "mcp",
        // The transport reads the body and writes the answers itself, so they are described here rather than as route schemas.
        requestBody: { required: true, content: json(JsonRpcMessages) },
        responses: {
          200: { description: "The answers to the requests sent (one object, or an array for a batch)", content: json(JsonRpcMessages) },
          202: { description: "Only notifications or responses were sent: nothing to answer" },
          400: {
            description: `Not JSON (\`{ error }\`), or not valid JSON-RPC, an empty batch or one of more than ${MAX_BATCH_MESSAGES} messages, an unsupported protocol version (a JSON-RPC error)`,
            content: json(t.Union([ErrorBody, JsonRpcMessage])),
          },
          406: { description: "The Accept header does not name both application/json and text/event-stream", content: json(JsonRpcMessage) },
        },
      },
    },
  );
}
