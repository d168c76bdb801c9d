/**
 * A stand-in for a user's bridge submitter: a local server (127.0.0.1, free
 * port) that records every request and answers as scripted — a fixed reply, a
 * delay past the driver's timeout, a dropped connection, or "accept with 202,
 * then send a signed callback". Callbacks go to `deliver`, which tests wire to
 * the Elysia app's handle(), so no second port is needed.
 */
import { signedHeaders } from "../../src/lib/standard-webhooks";
import { droppedConnection } from "./dropped-connection";

export interface ReceivedRequest {
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The body exactly as sent (what the signature covers). */
  raw: string;
  /** The parsed JSON body, or undefined when it is not JSON. */
  body: any;
}

export interface CallbackScript {
  /** The callback body's fields; applicationId defaults to the submission's. */
  outcome: { status: string; message?: string; applicationId?: string };
  /** Sign with this secret instead of the receiver's (to test refusals). */
  secret?: string;
  /** Sign with this Unix time instead of `nowS()` (to test stale callbacks). */
  timestampS?: number;
  /** Wait this long after answering 202 (default 20 ms). */
  afterMs?: number;
  /** Deliver the callback before answering 202 (the race where the callback wins). */
  beforeReply?: boolean;
}

export type ScriptedReply =
  | { status?: number; json?: unknown; text?: string; headers?: Record<string, string>; delayMs?: number }
  | { dropConnection: true }
  | { acceptThenCallback: CallbackScript };

export interface CallbackResult {
  status: number;
  body: any;
}

export interface BridgeReceiver {
  /** The URL to use as bridgeUrl. */
  url: string;
  requests: ReceivedRequest[];
  callbacks: CallbackResult[];
  /** Replies are used in order; when none is queued, `fallback` answers (default 404 {error}). */
  enqueue(...replies: ScriptedReply[]): void;
  setFallback(fn: (req: ReceivedRequest) => ScriptedReply): void;
  /** Resolves when every callback sent so far has been answered. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  secret: string;
  deliver?: (request: Request) => Promise<Response>;
  /** Unix seconds used to sign callbacks (give it the driver's clock). */
  nowS?: () => number;
}

export async function startBridgeReceiver(opts: ReceiverOptions): Promise<BridgeReceiver> {
  const queue: ScriptedReply[] = [];
  const requests: ReceivedRequest[] = [];
  const callbacks: CallbackResult[] = [];
  const pending: Promise<unknown>[] = [];
  let fallback: (req: ReceivedRequest) => ScriptedReply = () => ({ status: 404, json: { error: "no scripted reply" } });
  const nowS = opts.nowS ?? (() => Math.floor(Date.now() / 1000));

  async function sendCallback(script: CallbackScript, submission: any): Promise<void> {
    if (!opts.deliver) throw new Error("acceptThenCallback needs a deliver function");
    const body = JSON.stringify({ applicationId: submission?.applicationId, ...script.outcome });
    const headers = signedHeaders(script.secret ?? opts.secret, `cb_${crypto.randomUUID()}`, body, script.timestampS ?? nowS());
    const path = typeof submission?.callbackPath === "string" ? submission.callbackPath : "/bridge/callback";
    const res = await opts.deliver(
      new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }),
    );
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the text
    }
    callbacks.push({ status: res.status, body: parsed });
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const raw = await request.text();
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const recorded: ReceivedRequest = {
        method: request.method,
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers),
        raw,
        body,
      };
      requests.push(recorded);
      const reply = queue.shift() ?? fallback(recorded);

      if ("dropConnection" in reply) return droppedConnection();
      if ("acceptThenCallback" in reply) {
        const script = reply.acceptThenCallback;
        if (script.beforeReply) {
          await sendCallback(script, body);
        } else {
          const sent = Bun.sleep(script.afterMs ?? 20).then(() => sendCallback(script, body));
          pending.push(sent);
        }
        return Response.json({ accepted: true }, { status: 202 });
      }
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      const headers = { ...(reply.json !== undefined ? { "content-type": "application/json" } : {}), ...reply.headers };
      const payload = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? "");
      return new Response(payload, { status: reply.status ?? 200, headers });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/submit`,
    requests,
    callbacks,
    enqueue: (...replies) => void queue.push(...replies),
    setFallback: (fn) => {
      fallback = fn;
    },
    settled: async () => {
      await Promise.all(pending);
    },
    close: async () => {
      await Promise.allSettled(pending);
      await server.stop(true);
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port that was free a moment ago). */
export async function unreachableUrl(): Promise<string> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = server.port;
  await server.stop(true);
  return `http://127.0.0.1:${port}/submit`;
}
