/** A local webhook receiver (Bun.serve on 127.0.0.1, port 0) that records requests and answers as scripted. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  json: any;
  receivedAt: number;
}

export type ReceiverReply = { status?: number; delayMs?: number; headers?: Record<string, string>; redirectTo?: string };

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Replies taken in order; when none is queued, `fallback` answers (default 200). */
  enqueue(...replies: ReceiverReply[]): void;
  setFallback(reply: ReceiverReply): void;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = "/hook"): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const queue: ReceiverReply[] = [];
  let fallback: ReceiverReply = { status: 200 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // keep raw
      }
      received.push({ headers: Object.fromEntries(req.headers), body, json, receivedAt: performance.now() });
      const reply = queue.shift() ?? fallback;
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      const headers = { ...reply.headers, ...(reply.redirectTo ? { location: reply.redirectTo } : {}) };
      return new Response(reply.status && reply.status >= 300 && reply.status < 400 ? null : "ok", { status: reply.status ?? 200, headers });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}${path}`,
    received,
    enqueue: (...r) => void queue.push(...r),
    setFallback: (r) => void (fallback = r),
    async waitFor(count, timeoutMs = 5000) {
      const until = performance.now() + timeoutMs;
      while (received.length < count && performance.now() < until) await Bun.sleep(2);
      if (received.length < count) throw new Error(`expected ${count} webhooks, got ${received.length}`);
    },
    close: () => server.stop(true),
  };
}
