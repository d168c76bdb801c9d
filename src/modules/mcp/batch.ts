/**
 * JSON-RPC batches (an array of messages in one body or one line), as both transports take them: POST /mcp
 * and `jobpilot mcp` on stdio. Kept apart from server.ts so the route can name the cap without loading the
 * MCP SDK.
 */

/**
 * The most messages one batch may carry. Each message is a request's worth of work and, over HTTP, of rate
 * limit, so an unbounded batch let one POST of a few kilobytes ask for megabytes of answers; 20 is more
 * than any assistant sends at once (MCP clients send one message at a time; the 2025-06-18 protocol dropped
 * batches altogether).
 */
export const MAX_BATCH_MESSAGES = 20;

/** JSON-RPC's code for a request that is not a valid one (an empty or oversized batch). */
export const INVALID_REQUEST = -32600;

/** What is wrong with a message body as a batch (empty, or over the cap), or undefined when it is fine or not a batch. */
export function batchProblem(raw: unknown): string | undefined {
  if (!Array.isArray(raw)) return undefined;
  if (raw.length === 0) return "Invalid Request: a batch must hold at least one message";
  if (raw.length > MAX_BATCH_MESSAGES) {
    return `Invalid Request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages (this one has ${raw.length}); send the rest in further requests`;
  }
  return undefined;
}

/** The JSON-RPC error answering a whole body that cannot be taken (no single request to answer, so id null). */
export const jsonRpcError = (code: number, message: string) => ({ jsonrpc: "2.0" as const, id: null, error: { code, message } });
