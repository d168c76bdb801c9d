/**
 * The HTTP side every web-API kind shares: one POST with a deadline and a
 * capped reply, and the outcome of an attempt in the words the delivery log
 * shows. Errors are for the delivery log and the channel's lastError, which
 * the user sees: withoutSecrets takes out the token, webhook URL or password,
 * whatever a library or server put in its message.
 */
import { readCapped } from "../../../lib/read-capped";
import { EgressBlockedError, type EgressPolicy, type Resolver, safeFetch } from "../../../lib/ssrf";
import type { SendOutcome } from "../model";
import { PRIVATE_NETWORK_CIDRS } from "./kind";

/** Platform answers are small; a misbehaving server must not make us buffer megabytes. */
const MAX_REPLY_BYTES = 1_048_576;
const MAX_ERROR_CHARS = 300;
const REDACTED = "[redacted]";

/** The server-wide policy widened by a channel's allowPrivateNetwork: the LAN ranges join the allowlist, nothing else does. */
export function privateNetworkEgress(config: object, egress: EgressPolicy): EgressPolicy {
  const isAllowed = (config as { allowPrivateNetwork?: unknown }).allowPrivateNetwork === true;
  return isAllowed ? { ...egress, allowlist: [...egress.allowlist, ...PRIVATE_NETWORK_CIDRS] } : egress;
}

export interface Reply {
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
export async function post(
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
export function failureOutcome(err: unknown, timeoutMs: number): SendOutcome {
  const name = (err as Error)?.name;
  const message = (err as Error)?.message ?? String(err);
  if (err instanceof EgressBlockedError) return failed(null, `blocked: ${message}`, false);
  if (name === "TimeoutError" || name === "AbortError") return failed(null, `no answer within ${timeoutMs} ms`, true);
  return failed(null, `connection failed: ${message}`, true);
}

export function failed(statusCode: number | null, error: string, isRetryable: boolean, retryAfterMs: number | null = null): SendOutcome {
  return { ok: false, statusCode, retryAfterMs, error: error.slice(0, MAX_ERROR_CHARS), isRetryable };
}

export const succeeded = (statusCode: number | null, messageId?: string): SendOutcome => ({
  ok: true,
  statusCode,
  retryAfterMs: null,
  error: null,
  isRetryable: false,
  ...(messageId === undefined ? {} : { messageId }),
});

/** Worth trying again: rate limited, timed out on the other side, or a server error. Other 4xx and 3xx are answers. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** Seconds (as platforms put them in JSON bodies, possibly fractional) to milliseconds; null when not a number. */
export function secondsToMs(value: unknown): number | null {
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

export function withoutSecrets(outcome: SendOutcome, secrets: (string | null | undefined)[]): SendOutcome {
  return outcome.error === null ? outcome : { ...outcome, error: redactSecrets(outcome.error, secrets) };
}

/** A short description of an HTTP error reply: the platform's own words when it gave some. */
export function httpError(platform: string, reply: Reply, said: unknown): string {
  const words = typeof said === "string" && said.trim() !== "" ? said.trim() : reply.text.trim().slice(0, 200);
  return `${platform} HTTP ${reply.status}${words === "" ? "" : `: ${words.replace(/\s+/g, " ")}`}`;
}

/** A webhook URL is a secret as a whole and in its parts (the token segment can surface alone in an error). */
export function webhookSecrets(webhookUrl: string): string[] {
  const url = URL.parse(webhookUrl);
  if (url === null) return [webhookUrl];
  const segments = url.pathname.split("/").filter((s) => s.length >= 16);
  return [webhookUrl, url.pathname, ...segments];
}
