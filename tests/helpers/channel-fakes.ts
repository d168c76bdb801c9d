/**
 * Local stand-ins for the notification platforms (Bun.serve on 127.0.0.1, port 0; SMTP through the
 * `smtp-server` package): the Telegram Bot API, Slack and Discord webhooks, an ntfy server and an SMTP
 * receiver. Each records every request with its time (performance.now()) and answers as scripted: queue
 * replies (e.g. three 429s with a retry-after) and they are used in order before the fallback success.
 *
 * Point jobpilot at them with JOBPILOT_TELEGRAM_API_URL = telegram.url, JOBPILOT_SLACK_WEBHOOK_ORIGIN =
 * slack.origin, JOBPILOT_DISCORD_WEBHOOK_ORIGIN = discord.origin; ntfy and SMTP are user-chosen servers, so
 * they need the egress policy to allow 127.0.0.1 (allowPrivate or an allowlist entry).
 */
import { createServer, type Server, type Socket } from "node:net";
import { type AddressObject, type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A scripted answer. `json` is sent as the body (JSON); `text` as plain text. */
export interface FakeReply {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (to test timeouts). */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: any;
  receivedAt: number;
}

interface Scripted {
  /** Replies used in order before the fallback. */
  enqueue(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

function respond(reply: FakeReply): Response {
  const status = reply.status ?? 200;
  if (reply.json !== undefined) return Response.json(reply.json, { status, headers: reply.headers });
  return new Response(reply.text ?? (status === 204 ? null : ""), { status, headers: reply.headers });
}

async function record(req: Request): Promise<RecordedRequest> {
  const url = new URL(req.url);
  const raw = await req.text();
  let body: unknown = raw;
  try {
    body = JSON.parse(raw);
  } catch {
    // kept as text
  }
  return {
    method: req.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: Object.fromEntries(req.headers),
    body,
    receivedAt: performance.now(),
  };
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(2);
  }
}

// ---------------------------------------------------------------------------
// Telegram Bot API

export interface TelegramCall extends RecordedRequest {
  token: string;
  /** sendMessage, editMessageText, answerCallbackQuery, getUpdates, … */
  apiMethod: string;
}

export interface FakeTelegram extends Scripted {
  /** The API base URL, for JOBPILOT_TELEGRAM_API_URL. */
  url: string;
  calls: TelegramCall[];
  callsTo(apiMethod: string): TelegramCall[];
  /** Replies for one API method, used in order before its default answer. */
  enqueueFor(apiMethod: string, ...replies: FakeReply[]): void;
  /** A 429 as Telegram sends it: `parameters.retry_after` in seconds. */
  tooManyRequests(retryAfterS: number): FakeReply;
  /**
   * Queues an update for getUpdates (update_id assigned when missing) and wakes a waiting long poll. Returns its
   * id. With `botToken`, only that bot's getUpdates sees it (a chat writing to one bot of several); else any bot's.
   */
  pushUpdate(update: Record<string, unknown>, botToken?: string): number;
  waitFor(apiMethod: string, count: number, timeoutMs?: number): Promise<void>;
}

/**
 * The Bot API as far as jobpilot uses it. Successful sendMessage and editMessageText answer with a message
 * (ids counting from 1 per fake); answerCallbackQuery with true. getUpdates returns the queued updates with
 * update_id >= offset (and forgets older ones, as Telegram does), long-polls up to `timeout` seconds when
 * there are none, and answers an older long poll of the same bot with 409 Conflict when a second one
 * starts, as Telegram does when two pollers share a bot. With `tokens`, other tokens get 401.
 */
export async function startFakeTelegram(options: { tokens?: string[] } = {}): Promise<FakeTelegram> {
  const calls: TelegramCall[] = [];
  const queue: FakeReply[] = [];
  const perMethod = new Map<string, FakeReply[]>();
  /** Queued updates, each for one bot's token or (undefined) whichever bot polls. */
  const updates: { update: Record<string, unknown>; botToken: string | undefined }[] = [];
  let nextUpdateId = 1;
  let nextMessageId = 1;
  const wakers = new Set<() => void>();
  const polls = new Map<string, () => void>(); // pending long poll per token → ends it with 409

  const ok = (result: unknown): FakeReply => ({ json: { ok: true, result } });
  const fail = (code: number, description: string, parameters?: unknown): FakeReply => ({
    status: code,
    json: { ok: false, error_code: code, description, ...(parameters === undefined ? {} : { parameters }) },
  });

  async function getUpdates(call: TelegramCall): Promise<FakeReply> {
    const body = (typeof call.body === "object" && call.body !== null ? call.body : call.query) as {
      offset?: number | string;
      timeout?: number | string;
      limit?: number | string;
    };
    const offset = Number(body.offset ?? 0);
    const limit = Math.min(100, Number(body.limit ?? 100));
    const timeoutMs = Number(body.timeout ?? 0) * 1000;
    const isMine = (u: (typeof updates)[number]) => u.botToken === undefined || u.botToken === call.token;
    const pending = () => updates.filter((u) => isMine(u) && Number(u.update.update_id) >= offset);
    // A positive offset confirms every update of this bot before it.
    if (offset > 0) {
      for (let i = updates.length - 1; i >= 0; i--) if (isMine(updates[i]!) && Number(updates[i]!.update.update_id) < offset) updates.splice(i, 1);
    }
    const deadline = performance.now() + timeoutMs;
    let conflicted = false;
    polls.get(call.token)?.();
    const endThisPoll = () => {
      conflicted = true;
    };
    polls.set(call.token, endThisPoll);
    try {
      while (pending().length === 0 && performance.now() < deadline && !conflicted) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            wakers.delete(wake);
            resolve();
          };
          wakers.add(wake);
          setTimeout(wake, Math.min(50, Math.max(0, deadline - performance.now())));
        });
      }
    } finally {
      if (polls.get(call.token) === endThisPoll) polls.delete(call.token);
    }
    if (conflicted) return fail(409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running");
    return ok(
      pending()
        .slice(0, limit)
        .map((u) => u.update),
    );
  }

  function defaultReply(call: TelegramCall): FakeReply | Promise<FakeReply> {
    const body = (call.body ?? {}) as Record<string, unknown>;
    switch (call.apiMethod) {
      case "sendMessage":
        return ok({ message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: body.chat_id }, text: body.text });
      case "editMessageText":
        return ok({ message_id: Number(body.message_id ?? 0), date: Math.floor(Date.now() / 1000), chat: { id: body.chat_id }, text: body.text });
      case "answerCallbackQuery":
      case "sendChatAction":
      case "deleteWebhook":
      case "setMyCommands":
        return ok(true);
      case "getMe":
        return ok({ id: Number(call.token.split(":")[0]), is_bot: true, first_name: "jobpilot test bot", username: "jobpilot_test_bot" });
      case "getUpdates":
        return getUpdates(call);
      default:
        return fail(404, "Not Found: method not found");
    }
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // long polls
    async fetch(req) {
      const recorded = await record(req);
      const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(recorded.path);
      if (!m) return respond(fail(404, "Not Found"));
      const call: TelegramCall = { ...recorded, token: decodeURIComponent(m[1]!), apiMethod: m[2]! };
      calls.push(call);
      if (options.tokens && !options.tokens.includes(call.token)) return respond(fail(401, "Unauthorized"));
      const scripted = perMethod.get(call.apiMethod)?.shift() ?? queue.shift();
      const reply = scripted ?? (await defaultReply(call));
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      return respond(reply);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    callsTo: (apiMethod) => calls.filter((c) => c.apiMethod === apiMethod),
    enqueue: (...replies) => void queue.push(...replies),
    enqueueFor(apiMethod, ...replies) {
      if (!perMethod.has(apiMethod)) perMethod.set(apiMethod, []);
      perMethod.get(apiMethod)!.push(...replies);
    },
    tooManyRequests: (retryAfterS) => fail(429, `Too Many Requests: retry after ${retryAfterS}`, { retry_after: retryAfterS }),
    pushUpdate(update, botToken) {
      const id = typeof update.update_id === "number" ? update.update_id : nextUpdateId;
      nextUpdateId = Math.max(nextUpdateId, id + 1);
      updates.push({ update: { ...update, update_id: id }, botToken });
      for (const wake of [...wakers]) wake();
      return id;
    },
    waitFor: (apiMethod, count, timeoutMs = 5000) =>
      until(() => calls.filter((c) => c.apiMethod === apiMethod).length >= count, timeoutMs, `${count} ${apiMethod} calls`),
    async close() {
      for (const end of polls.values()) end();
      await server.stop(true);
    },
  };
}

// ---------------------------------------------------------------------------
// Slack and Discord webhooks

export interface FakeWebhookPlatform extends Scripted {
  /** For JOBPILOT_SLACK_WEBHOOK_ORIGIN / JOBPILOT_DISCORD_WEBHOOK_ORIGIN. */
  origin: string;
  /** A webhook URL on this fake, in the platform's path shape. */
  webhookUrl: string;
  received: RecordedRequest[];
  /** A 429 as the platform sends it, asking to wait `retryAfterS` seconds. */
  tooManyRequests(retryAfterS: number): FakeReply;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
}

interface RecordingServer extends Scripted {
  origin: string;
  received: RecordedRequest[];
  waitFor(count: number, timeoutMs?: number): Promise<void>;
}

/** Records every request and answers with the next queued reply, or else `answer`'s. */
async function startRecordingServer(answer: (req: RecordedRequest, n: number) => FakeReply): Promise<RecordingServer> {
  const received: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const recorded = await record(req);
      received.push(recorded);
      const reply = queue.shift() ?? answer(recorded, received.length);
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      return respond(reply);
    },
  });
  return {
    origin: `http://127.0.0.1:${server.port}`,
    received,
    enqueue: (...replies) => void queue.push(...replies),
    waitFor: (count, timeoutMs = 5000) => until(() => received.length >= count, timeoutMs, `${count} requests`),
    close: () => server.stop(true),
  };
}

async function startWebhookPlatform(
  webhookPath: string,
  success: (req: RecordedRequest, n: number) => FakeReply,
  tooManyRequests: (retryAfterS: number) => FakeReply,
): Promise<FakeWebhookPlatform> {
  const server = await startRecordingServer(success);
  return { ...server, webhookUrl: `${server.origin}${webhookPath}`, tooManyRequests };
}

/** Slack incoming webhooks: 200 "ok"; a 429 carries Retry-After (seconds) as a header. */
export function startFakeSlack(): Promise<FakeWebhookPlatform> {
  return startWebhookPlatform(
    "/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    () => ({ text: "ok" }),
    (retryAfterS) => ({ status: 429, text: "rate_limited", headers: { "retry-after": String(retryAfterS) } }),
  );
}

/**
 * Discord webhooks: with ?wait=true a 200 with the created message (its id), otherwise 204; a 429 carries
 * `retry_after` in seconds (fractional) in the JSON body, and a rounded-up Retry-After header.
 */
export function startFakeDiscord(): Promise<FakeWebhookPlatform> {
  return startWebhookPlatform(
    "/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_",
    (req, n) =>
      req.query.wait === "true" ? { json: { id: String(1_000_000_000_000_000_000n + BigInt(n)), type: 0, embeds: req.body?.embeds ?? [] } } : { status: 204 },
    (retryAfterS) => ({
      status: 429,
      json: { message: "You are being rate limited.", retry_after: retryAfterS, global: false },
      headers: { "retry-after": String(Math.ceil(retryAfterS)) },
    }),
  );
}

// ---------------------------------------------------------------------------
// ntfy

export interface FakeNtfy extends Scripted {
  /** The server URL, for an ntfy channel's serverUrl. */
  url: string;
  received: RecordedRequest[];
  /** Requires `Authorization: Bearer <token>` for the topic (403 otherwise, as ntfy answers). */
  protectTopic(topic: string, token: string): void;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
}

/** An ntfy server taking JSON publishes (POST / with the topic in the body): 200 with the message and its id. */
export async function startFakeNtfy(): Promise<FakeNtfy> {
  const protectedTopics = new Map<string, string>();
  const server = await startRecordingServer((req, n) => {
    const topic = req.body?.topic;
    if (req.method !== "POST" || req.path !== "/" || typeof topic !== "string") {
      return { status: 400, json: { code: 40001, http: 400, error: "invalid request: expected a JSON publish" } };
    }
    const token = protectedTopics.get(topic);
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) return { status: 403, json: { code: 40301, http: 403, error: "forbidden" } };
    return { json: { id: `msg${n}`, time: Math.floor(Date.now() / 1000), event: "message", ...req.body } };
  });
  return { ...server, url: server.origin, protectTopic: (topic, token) => void protectedTopics.set(topic, token) };
}

// ---------------------------------------------------------------------------
// SMTP

export interface ReceivedMail {
  envelope: { from: string | null; to: string[] };
  /** The user that logged in, if any. */
  user: string | null;
  parsed: ParsedMail;
  subject: string;
  text: string;
  html: string | null;
  /** Addresses of the To header. */
  to: string[];
  from: string | null;
  /** The Content-Type of the top part, e.g. multipart/alternative. */
  contentType: string;
  receivedAt: number;
}

export interface FakeSmtp {
  port: number;
  /** An smtp:// URL for this server (STARTTLS is not offered), with the given login. */
  smtpUrl(user?: string, password?: string): string;
  messages: ReceivedMail[];
  /** The next `times` messages are refused at DATA with this reply (e.g. 451 temporary, 550 permanent). */
  rejectNext(code: number, message: string, times?: number): void;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * An SMTP receiver (smtp-server) that parses each message with mailparser. Plain SMTP without STARTTLS
 * (nodemailer would otherwise upgrade and refuse the fake's self-signed certificate); AUTH PLAIN/LOGIN is
 * accepted without TLS, and with `users` only those logins pass (535 otherwise).
 */
export async function startFakeSmtp(options: { users?: Record<string, string> } = {}): Promise<FakeSmtp> {
  const messages: ReceivedMail[] = [];
  const rejections: { code: number; message: string }[] = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authOptional: options.users === undefined,
    logger: false,
    onAuth(auth, _session, callback) {
      const users = options.users;
      if (users !== undefined && users[auth.username ?? ""] !== auth.password) {
        const err = Object.assign(new Error("Authentication credentials invalid"), { responseCode: 535 });
        callback(err);
        return;
      }
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const rejection = rejections.shift();
      simpleParser(stream)
        .then((parsed) => {
          if (rejection) {
            callback(Object.assign(new Error(rejection.message), { responseCode: rejection.code }));
            return;
          }
          const addresses = (field: AddressObject | AddressObject[] | undefined) =>
            (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value.map((v) => v.address ?? ""));
          messages.push({
            envelope: {
              from: session.envelope.mailFrom === false ? null : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            user: typeof session.user === "string" ? session.user : null,
            parsed,
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: parsed.html === false || parsed.html === undefined ? null : parsed.html,
            to: addresses(parsed.to),
            from: addresses(parsed.from)[0] ?? null,
            contentType: String((parsed.headers.get("content-type") as { value?: string } | undefined)?.value ?? ""),
            receivedAt: performance.now(),
          });
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    smtpUrl: (user, password) =>
      `smtp://${user === undefined ? "" : `${encodeURIComponent(user)}${password === undefined ? "" : `:${encodeURIComponent(password)}`}@`}127.0.0.1:${port}`,
    messages,
    rejectNext(code, message, times = 1) {
      for (let i = 0; i < times; i++) rejections.push({ code, message });
    },
    waitFor: (count, timeoutMs = 5000) => until(() => messages.length >= count, timeoutMs, `${count} e-mails`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP server that accepts connections and never says a word: an SMTP server that hangs before its greeting. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
