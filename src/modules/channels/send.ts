/**
 * Sends one rendered message to one channel and says what came of it. No
 * retries and no waiting here: the deliverer owns both (the outbox schedule,
 * the platform's retry hint in `retryAfterMs`, the pacer), so one call is one
 * attempt with one deadline.
 *
 * Which road each platform takes:
 * - Telegram, Slack, Discord: plain fetch. Their hosts are fixed (validation
 *   only admits api.telegram.org's callers, hooks.slack.com, discord.com) or
 *   an operator's test setting, so there is no user-chosen address to guard.
 * - ntfy and e-mail: the server is the user's choice, so it goes through the
 *   webhook SSRF guard (src/lib/ssrf.ts): resolved once, refused unless public
 *   or allowed by JOBPILOT_WEBHOOK_ALLOW_PRIVATE / _ALLOWLIST or by the
 *   channel's own allowPrivateNetwork (LAN ranges only: channelEgress),
 *   connected to by the checked address.
 *
 * Errors are for the delivery log and the channel's lastError, which the user
 * sees: they never contain the bot token, a webhook URL, an ntfy token or the
 * SMTP password, whatever a library or server put in its message.
 */
import type { Clock } from "../../lib/clock";
import { readCapped } from "../../lib/read-capped";
import { retryAfterMs as parseRetryAfter } from "../../lib/retry-after";
import { checkUrl, EgressBlockedError, type EgressPolicy, resolvePinned, type Resolver, safeFetch } from "../../lib/ssrf";
import type {
  ChannelMessage,
  ChannelTarget,
  DiscordMessage,
  EmailConfig,
  EmailMessage,
  NtfyConfig,
  NtfyMessage,
  SendOutcome,
  SlackMessage,
  TelegramMessage,
} from "./model";
import { PRIVATE_NETWORK_CIDRS, smtpTarget } from "./model";

/** The platform base URLs that are settings (JOBPILOT_TELEGRAM_API_URL); the Config has this shape. */
export interface ChannelApiSettings {
  telegramApiUrl: string;
}

export interface TelegramDeps {
  /** One attempt's deadline, connection to last byte. For getUpdates, longer than its long-poll `timeout`. */
  timeoutMs: number;
  settings: ChannelApiSettings;
}

export interface SendDeps extends TelegramDeps {
  /** Where user-chosen servers (ntfy, SMTP) may be: the webhook policy. */
  egress: EgressPolicy;
  resolve?: Resolver;
  /** For a Retry-After given as a date. */
  clock: Clock;
}

/** Platform answers are small; a misbehaving server must not make us buffer megabytes. */
const MAX_REPLY_BYTES = 1_048_576;
const MAX_ERROR_CHARS = 300;
const REDACTED = "[redacted]";

export async function sendMessage(channel: ChannelTarget, message: ChannelMessage, deps: SendDeps): Promise<SendOutcome> {
  if (channel.type !== message.type) throw new Error(`a ${message.type} message cannot go to a ${channel.type} channel`);
  switch (channel.type) {
    case "telegram": {
      const m = message as TelegramMessage;
      const body = {
        chat_id: channel.config.chatId,
        text: m.text,
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
        ...(m.replyMarkup === undefined ? {} : { reply_markup: m.replyMarkup }),
      };
      const { result, ...outcome } = await telegramCall(deps, channel.config.botToken, "sendMessage", body);
      const id = (result as { message_id?: unknown } | null)?.message_id;
      return typeof id === "number" ? { ...outcome, messageId: String(id) } : outcome;
    }
    case "slack":
      return sendSlack(channel.config.webhookUrl, message as SlackMessage, deps);
    case "discord":
      return sendDiscord(channel.config.webhookUrl, message as DiscordMessage, deps);
    case "ntfy":
      return sendNtfy(channel.config, message as NtfyMessage, deps);
    case "email":
      return sendEmail(channel.config, message as EmailMessage, deps);
  }
}

/** The hint a refusal of a private address gets when the channel's own opt-in would allow it (API words; the dashboard says its label). */
const PRIVATE_NETWORK_HINT = "turn on config.allowPrivateNetwork to allow a server on your own network";

/** The server-wide policy widened by the channel's allowPrivateNetwork: the LAN ranges join the allowlist, nothing else does. */
export function channelEgress(channel: ChannelTarget, egress: EgressPolicy): EgressPolicy {
  const isAllowed = (channel.type === "ntfy" || channel.type === "email") && channel.config.allowPrivateNetwork === true;
  return isAllowed ? { ...egress, allowlist: [...egress.allowlist, ...PRIVATE_NETWORK_CIDRS] } : egress;
}

/**
 * Checks, when a channel is saved, that a user-chosen server is an address jobpilot may reach (the same rule
 * as on every send): ntfy's serverUrl, the SMTP URL's host. Resolves the name, so it is async; the other
 * kinds have nothing to check.
 */
export async function checkChannelDestination(
  channel: ChannelTarget,
  egress: EgressPolicy,
  resolve?: Resolver,
): Promise<{ ok: true } | { ok: false; field: string; message: string }> {
  let field: string;
  let url: string;
  if (channel.type === "ntfy") {
    field = "config.serverUrl";
    url = `${channel.config.serverUrl}/`;
  } else if (channel.type === "email") {
    field = "config.smtpUrl";
    const { hostname } = smtpTarget(channel.config);
    url = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}/`;
  } else return { ok: true };
  const policy = channelEgress(channel, egress);
  const checked = await checkUrl(url, policy, resolve);
  if (checked.ok) return checked;
  let message = `${field} cannot be used: ${checked.reason}`;
  // Say the per-channel switch only when it would help: a loopback or metadata address stays refused with it.
  if (policy === egress && (channel.type === "ntfy" || channel.type === "email")) {
    const opened = { ...channel, config: { ...channel.config, allowPrivateNetwork: true as const } } as ChannelTarget;
    if ((await checkUrl(url, channelEgress(opened, egress), resolve)).ok) message += `; ${PRIVATE_NETWORK_HINT}`;
  }
  return { ok: false, field, message };
}

// ---------------------------------------------------------------------------
// HTTP

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

type Attempt = { reply: Reply } | { outcome: SendOutcome };

/**
 * One POST with the deadline, the reply read (capped) and parsed; a failure before any reply is an outcome.
 * With `guard`, the URL is the user's choice and goes through the SSRF guard.
 */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
  guard: { egress: EgressPolicy; resolve?: Resolver } | null,
  signal?: AbortSignal,
): Promise<Attempt> {
  const init = { method: "POST", headers: { "content-type": "application/json", "user-agent": "jobpilot", ...headers }, body: JSON.stringify(body) };
  try {
    const res = guard
      ? await safeFetch(url, { ...init, timeoutMs }, guard.egress, guard.resolve)
      : await fetch(url, {
          ...init,
          redirect: "manual",
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
        });
    const text = new TextDecoder().decode(await readCapped(res.body, MAX_REPLY_BYTES));
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Slack answers in plain text
    }
    return { reply: { status: res.status, headers: res.headers, text, json } };
  } catch (err) {
    return { outcome: failureOutcome(err, timeoutMs) };
  }
}

/** A send that got no reply: blocked, timed out, or the connection failed. */
function failureOutcome(err: unknown, timeoutMs: number): SendOutcome {
  const name = (err as Error)?.name;
  const message = (err as Error)?.message ?? String(err);
  if (err instanceof EgressBlockedError) return failed(null, `blocked: ${message}`, false);
  if (name === "TimeoutError" || name === "AbortError") return failed(null, `no answer within ${timeoutMs} ms`, true);
  return failed(null, `connection failed: ${message}`, true);
}

function failed(statusCode: number | null, error: string, isRetryable: boolean, retryAfterMs: number | null = null): SendOutcome {
  return { ok: false, statusCode, retryAfterMs, error: error.slice(0, MAX_ERROR_CHARS), isRetryable };
}

const succeeded = (statusCode: number | null, messageId?: string): SendOutcome => ({
  ok: true,
  statusCode,
  retryAfterMs: null,
  error: null,
  isRetryable: false,
  ...(messageId === undefined ? {} : { messageId }),
});

/** Worth trying again: rate limited, timed out on the other side, or a server error. Other 4xx and 3xx are answers. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** Seconds (as platforms put them in JSON bodies, possibly fractional) to milliseconds; null when not a number. */
function secondsToMs(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.ceil(value * 1000) : null;
}

/** `text` without any of the secrets, raw or URL-encoded. */
export function redactSecrets(text: string, secrets: (string | null | undefined)[]): string {
  let out = text;
  const forms = secrets.flatMap((s) => (s && s.length >= 4 ? [s, encodeURIComponent(s)] : []));
  // Longest first, so a URL goes before the token inside it.
  for (const secret of forms.sort((a, b) => b.length - a.length)) out = out.replaceAll(secret, REDACTED);
  return out;
}

function withoutSecrets(outcome: SendOutcome, secrets: (string | null | undefined)[]): SendOutcome {
  return outcome.error === null ? outcome : { ...outcome, error: redactSecrets(outcome.error, secrets) };
}

/** A short description of an HTTP error reply: the platform's own words when it gave some. */
function httpError(platform: string, reply: Reply, said: unknown): string {
  const words = typeof said === "string" && said.trim() !== "" ? said.trim() : reply.text.trim().slice(0, 200);
  return `${platform} HTTP ${reply.status}${words === "" ? "" : `: ${words.replace(/\s+/g, " ")}`}`;
}

// ---------------------------------------------------------------------------
// Telegram

export type TelegramCallOutcome = SendOutcome & { result: unknown };

/**
 * One Bot API call (`sendMessage`, `editMessageText`, `answerCallbackQuery`, `getUpdates`, …): POST
 * <JOBPILOT_TELEGRAM_API_URL>/bot<token>/<method> with a JSON body. `result` is the API's `result` on
 * success, null otherwise. A 429 carries `parameters.retry_after` (seconds) as retryAfterMs. `signal`
 * ends the call early (a long-polling getUpdates when its poller stops).
 */
export async function telegramCall(deps: TelegramDeps, token: string, method: string, body: unknown, signal?: AbortSignal): Promise<TelegramCallOutcome> {
  const url = `${deps.settings.telegramApiUrl.replace(/\/+$/, "")}/bot${token}/${method}`;
  const attempt = await post(url, body, {}, deps.timeoutMs, null, signal);
  if ("outcome" in attempt) return { ...withoutSecrets(attempt.outcome, [url, token]), result: null };
  const { reply } = attempt;
  const json = (reply.json ?? {}) as {
    ok?: unknown;
    result?: unknown;
    description?: unknown;
    parameters?: { retry_after?: unknown; migrate_to_chat_id?: unknown };
  };
  if (reply.status >= 200 && reply.status < 300 && json.ok === true) return { ...succeeded(reply.status), result: json.result ?? null };
  let error = httpError("Telegram", reply, json.description);
  const migrated = json.parameters?.migrate_to_chat_id;
  if (typeof migrated === "number") error += ` (the group is now the supergroup ${migrated}: use that as the chat id)`;
  const retryAfterMs = reply.status === 429 ? secondsToMs(json.parameters?.retry_after) : null;
  return { ...withoutSecrets(failed(reply.status, error, isRetryableStatus(reply.status), retryAfterMs), [url, token]), result: null };
}

/** What Telegram says of a bot token: the bot's id (getMe's `result.id`), a refusal, or no usable answer. */
export type TelegramTokenCheck = { ok: true; botId: string } | { ok: false; isRefused: boolean; error: string };

/**
 * Asks Telegram whose bot a token is (getMe). The id before the token's colon is public and proves nothing:
 * only Telegram accepting the token does. A 4xx other than 429 (401 Unauthorized, 404 for a malformed token)
 * or an `ok: false` answer is a refusal; no answer, a 5xx, a 429 or a reply without a bot id is "not now".
 */
export async function checkTelegramToken(deps: TelegramDeps, token: string): Promise<TelegramTokenCheck> {
  const me = await telegramCall(deps, token, "getMe", {});
  const status = me.statusCode;
  if (!me.ok) {
    const isRefused = status !== null && status !== 429 && status < 500;
    return { ok: false, isRefused, error: me.error ?? "no answer" };
  }
  const id = (me.result as { id?: unknown } | null)?.id;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id <= 0) return { ok: false, isRefused: false, error: "Telegram's getMe answer named no bot" };
  return { ok: true, botId: String(id) };
}

// ---------------------------------------------------------------------------
// Slack and Discord webhooks

async function sendSlack(webhookUrl: string, message: SlackMessage, deps: SendDeps): Promise<SendOutcome> {
  const secrets = webhookSecrets(webhookUrl);
  const attempt = await post(webhookUrl, message.body, {}, deps.timeoutMs, null);
  if ("outcome" in attempt) return withoutSecrets(attempt.outcome, secrets);
  const { reply } = attempt;
  if (reply.status >= 200 && reply.status < 300) return succeeded(reply.status);
  // Slack says what is wrong in plain words: no_service (webhook removed), channel_is_archived, invalid_blocks…
  const retryAfterMs = reply.status === 429 ? parseRetryAfter(reply.headers.get("retry-after"), deps.clock.now()) : null;
  return withoutSecrets(failed(reply.status, httpError("Slack", reply, null), isRetryableStatus(reply.status), retryAfterMs), secrets);
}

async function sendDiscord(webhookUrl: string, message: DiscordMessage, deps: SendDeps): Promise<SendOutcome> {
  const secrets = webhookSecrets(webhookUrl);
  // ?wait=true makes Discord answer with the message (its id) instead of 204, and report errors it would otherwise swallow.
  const url = new URL(webhookUrl);
  url.searchParams.set("wait", "true");
  const attempt = await post(url.href, message.body, {}, deps.timeoutMs, null);
  if ("outcome" in attempt) return withoutSecrets(attempt.outcome, [url.href, ...secrets]);
  const { reply } = attempt;
  const json = (reply.json ?? {}) as { id?: unknown; message?: unknown; retry_after?: unknown };
  if (reply.status >= 200 && reply.status < 300) return succeeded(reply.status, typeof json.id === "string" ? json.id : undefined);
  const retryAfterMs = reply.status === 429 ? (secondsToMs(json.retry_after) ?? parseRetryAfter(reply.headers.get("retry-after"), deps.clock.now())) : null;
  return withoutSecrets(failed(reply.status, httpError("Discord", reply, json.message), isRetryableStatus(reply.status), retryAfterMs), [url.href, ...secrets]);
}

/** A webhook URL is a secret as a whole and in its parts (the token segment can surface alone in an error). */
function webhookSecrets(webhookUrl: string): string[] {
  const url = URL.parse(webhookUrl);
  if (url === null) return [webhookUrl];
  const segments = url.pathname.split("/").filter((s) => s.length >= 16);
  return [webhookUrl, url.pathname, ...segments];
}

// ---------------------------------------------------------------------------
// ntfy

async function sendNtfy(config: NtfyConfig, message: NtfyMessage, deps: SendDeps): Promise<SendOutcome> {
  const secrets = [config.token];
  // The JSON form of publishing: POST to the server's root with the topic in the body.
  const body = {
    topic: config.topic,
    title: message.title,
    message: message.message,
    priority: message.priority,
    tags: message.tags,
    ...(message.click === null ? {} : { click: message.click }),
    ...(message.actions.length === 0 ? {} : { actions: message.actions }),
  };
  const headers: Record<string, string> = config.token === null ? {} : { authorization: `Bearer ${config.token}` };
  const egress = channelEgress({ type: "ntfy", config }, deps.egress);
  const attempt = await post(`${config.serverUrl}/`, body, headers, deps.timeoutMs, { egress, resolve: deps.resolve });
  if ("outcome" in attempt) return withoutSecrets(attempt.outcome, secrets);
  const { reply } = attempt;
  const json = (reply.json ?? {}) as { id?: unknown; error?: unknown };
  if (reply.status >= 200 && reply.status < 300) return succeeded(reply.status, typeof json.id === "string" ? json.id : undefined);
  const retryAfterMs = reply.status === 429 ? parseRetryAfter(reply.headers.get("retry-after"), deps.clock.now()) : null;
  return withoutSecrets(failed(reply.status, httpError("ntfy", reply, json.error), isRetryableStatus(reply.status), retryAfterMs), secrets);
}

// ---------------------------------------------------------------------------
// E-mail (nodemailer)

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

async function sendEmail(config: EmailConfig, message: EmailMessage, deps: SendDeps): Promise<SendOutcome> {
  const smtp = smtpTarget(config);
  const secrets = [config.smtpUrl, smtp.password];
  let address: string;
  try {
    address = await resolvePinned(smtp.hostname, channelEgress({ type: "email", config }, deps.egress), deps.timeoutMs, deps.resolve);
  } catch (err) {
    return withoutSecrets(failureOutcome(err, deps.timeoutMs), secrets);
  }
  const isNameHost = !isIpLiteral(smtp.hostname);
  // Loaded when the first e-mail goes out: most installations send none, and it is a large module to evaluate at start.
  const { default: nodemailer } = await import("nodemailer");
  const transport = nodemailer.createTransport({
    // The checked address itself, so a second DNS answer cannot send the password elsewhere; TLS still
    // checks the certificate against the name the user gave.
    host: address,
    port: smtp.port,
    secure: smtp.isImplicitTls,
    ...(smtp.user === null ? {} : { auth: { user: smtp.user, pass: smtp.password ?? "" } }),
    ...(isNameHost ? { tls: { servername: smtp.hostname } } : {}),
    connectionTimeout: deps.timeoutMs,
    greetingTimeout: deps.timeoutMs,
    socketTimeout: deps.timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    const info = await transport.sendMail({
      from: config.from,
      to: config.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      // RFC 3834: a machine wrote this, so vacation responders and other auto-replies must not answer it.
      headers: { "Auto-Submitted": "auto-generated" },
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    const code = Number(/^\d{3}/.exec(String(info.response ?? ""))?.[0] ?? Number.NaN);
    return succeeded(Number.isFinite(code) ? code : null, info.messageId);
  } catch (err) {
    return withoutSecrets(smtpOutcome(err as SmtpError, deps.timeoutMs), secrets);
  } finally {
    transport.close();
  }
}

/** Whether a host is an IP address as a URL reads it ("10.0.0.1", "0x7f.1", "::1"): no name to send as SNI. */
function isIpLiteral(hostname: string): boolean {
  const read = URL.parse(`http://${hostname.includes(":") ? `[${hostname}]` : hostname}/`)?.hostname ?? "";
  return read.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(read);
}

/** An SMTP failure as an outcome: a 4xx reply is temporary (RFC 5321) and worth a retry, a 5xx and a refused login are not. */
function smtpOutcome(err: SmtpError, timeoutMs: number): SendOutcome {
  const code = typeof err.responseCode === "number" ? err.responseCode : null;
  const said = (err.response ?? err.message ?? "").replace(/\s+/g, " ").trim();
  if (code !== null) return failed(code, `SMTP ${code}: ${said}`, code >= 400 && code < 500);
  switch (err.code) {
    case "ETIMEDOUT":
    case "EABORT":
      return failed(null, `no answer within ${timeoutMs} ms`, true);
    case "EAUTH":
    case "ENOAUTH":
      return failed(null, `SMTP login refused: ${said}`, false);
    case "ECONNECTION":
    case "ESOCKET":
    case "EDNS":
    case "ETLS":
    case "EPROTOCOL":
      return failed(null, `connection failed: ${said}`, true);
    default:
      return failed(null, `SMTP error${err.code ? ` ${err.code}` : ""}: ${said}`, false);
  }
}
