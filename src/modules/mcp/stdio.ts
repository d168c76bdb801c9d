import { type Readable, Transform, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isJSONRPCRequest, type JSONRPCMessage, JSONRPCMessageSchema, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { batchProblem, INVALID_REQUEST, jsonRpcError } from "./batch";
import { expandCachedAnswers } from "./server";

/** A batch read from one line: the answers gathered so far and how many of its requests are still unanswered. */
interface Batch {
  answers: unknown[];
  waiting: number;
}

/**
 * `jobpilot mcp`'s transport: the SDK's stdio transport (a message per line), taught batches as POST /mcp
 * takes them. On its own it drops a line holding a batch without a word, and the client waits for ever.
 * Here a batch line of at most MAX_BATCH_MESSAGES is handed on one message per line, and the answers to its
 * requests are held until the last is in and then written together as one array, as JSON-RPC asks; an
 * empty or oversized batch gets the same error as over HTTP. Nothing is rate-limited: the process is the
 * user's own, and each tool call is metered by the API it calls. Output goes to `write` with the cached
 * answers in place (see expandCachedAnswers).
 *
 * Answers are matched to batches by request id, so a client must not reuse the id of a request still
 * unanswered (JSON-RPC asks as much).
 */
export function stdioTransport(stdin: Readable, write: (text: string) => void): Transport {
  const stdout = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      write(expandCachedAnswers(chunk.toString()));
      callback();
    },
  });
  const waitingFor = new Map<RequestId, Batch>();
  let buffered: Buffer | undefined;

  /** One line of input: a batch is taken apart here, anything else goes on to the SDK's transport as it came. */
  const readLine = (line: Buffer, push: (data: Buffer | string) => void) => {
    let raw: unknown;
    // Only a line that opens with "[" can be a batch; the others are parsed once, by the SDK.
    if (line.toString("utf8", 0, Math.min(line.length, 64)).trimStart().startsWith("[")) {
      try {
        raw = JSON.parse(line.toString("utf8"));
      } catch {
        // Not JSON: the SDK's transport reports it as it reports any other.
      }
    }
    if (!Array.isArray(raw)) return push(Buffer.concat([line, NEWLINE]));
    const problem = batchProblem(raw);
    if (problem) return stdout.write(`${JSON.stringify(jsonRpcError(INVALID_REQUEST, problem))}\n`);
    const batch: Batch = { answers: [], waiting: 0 };
    const messages: JSONRPCMessage[] = [];
    for (const item of raw) {
      const parsed = JSONRPCMessageSchema.safeParse(item);
      if (!parsed.success) batch.answers.push(jsonRpcError(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"));
      else {
        messages.push(parsed.data);
        if (isJSONRPCRequest(parsed.data)) {
          batch.waiting++;
          waitingFor.set(parsed.data.id, batch);
        }
      }
    }
    // Nothing to wait for: only notifications (no answer at all) or invalid messages (their errors now).
    if (batch.waiting === 0 && batch.answers.length > 0) stdout.write(`${JSON.stringify(batch.answers)}\n`);
    for (const message of messages) push(`${JSON.stringify(message)}\n`);
  };

  const lines = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      buffered = buffered ? Buffer.concat([buffered, chunk]) : chunk;
      for (let end = buffered.indexOf(10); end !== -1; end = buffered.indexOf(10)) {
        const line = buffered.subarray(0, end);
        buffered = buffered.subarray(end + 1);
        readLine(line, (data) => this.push(data));
      }
      // A line longer than the SDK takes goes on as it is, for the SDK's transport to refuse.
      if (buffered.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
        this.push(buffered);
        buffered = undefined;
      }
      callback();
    },
  });
  stdin.pipe(lines);

  const transport = new StdioServerTransport(lines, stdout);
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    const id = "id" in message && !("method" in message) ? message.id : undefined;
    const batch = id === undefined ? undefined : waitingFor.get(id);
    if (!batch) return send(message);
    waitingFor.delete(id!);
    batch.answers.push(message);
    // The SDK's transport writes any JSON value as one line; the batch's answers go as one array.
    return --batch.waiting > 0 ? Promise.resolve() : send(batch.answers as unknown as JSONRPCMessage);
  };
  return transport;
}

const NEWLINE = Buffer.from("\n");
