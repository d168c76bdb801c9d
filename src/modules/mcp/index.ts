import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { presentedApiKey } from "../../http/auth";
import { getRequestState } from "../../http/context";
import { routePolicy } from "../../http/route-policy";
import { createMcpServer } from "./server";

/** Where the /mcp route's tool calls go: the app's own request handler (app.handle). */
export type HandleRequest = (request: Request) => Promise<Response>;

/**
 * `POST /mcp`: the Model Context Protocol over streamable HTTP, for assistants that reach jobpilot over
 * the network. The caller's API key (x-api-key, or a bearer token as MCP clients send it) is checked and
 * metered (`default` bucket) before routing like any /api request; each tool call is then one request into
 * this same app with that key, so it is authenticated, isolated, validated and rate-limited in its own
 * route's bucket exactly as the API is.
 *
 * Stateless: every POST gets a fresh server and transport, and answers with plain JSON (no SSE stream, no
 * session id), so any node behind a load balancer can answer any request. Nothing here needs a session:
 * the tools push nothing to the client. GET and DELETE (a server-to-client stream, ending a session) are
 * therefore 405, as the protocol allows.
 */
export function mcpRoutes(deps: Deps, handle: HandleRequest) {
  return new Elysia().use(routePolicy).post(
    "/mcp",
    async ({ request, body }) => {
      const requestId = getRequestState(request)?.id;
      const { server } = createMcpServer(
        {
          baseUrl: "http://jobpilot.internal",
          // The auth plugin has let only a valid key through to here.
          apiKey: presentedApiKey(request.headers, true) ?? "",
          send: handle,
          headers: requestId ? { "x-request-id": requestId } : undefined,
        },
        deps.version,
      );
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        // The body parser has read (and capped) the body already.
        return await transport.handleRequest(request, { parsedBody: body });
      } finally {
        await server.close();
      }
    },
    {
      policy: { apiKey: true },
      detail: {
        tags: ["MCP"],
        summary: "(extension) Model Context Protocol, streamable HTTP transport",
        description:
          "JSON-RPC messages of the Model Context Protocol (stateless: no session, JSON answers). Takes the API key as x-api-key or Authorization: Bearer. Tools: list_feeds, create_feed, update_feed, feed_jobs, get_job, client_jobs, draft_proposal, apply, application_status, applied_jobs, freelancers; resource template jobpilot://feeds/{feedId}/matches.",
      },
    },
  );
}
