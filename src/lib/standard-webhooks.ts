/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, spec v1):
 * HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}`, sent as
 * `webhook-signature: v1,<base64>`. Used by the bridge driver (both ways) and
 * by outgoing feed webhooks, so receivers can verify with any Standard
 * Webhooks library.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const SECRET_PREFIX = "whsec_";
/** The spec's and the reference library's replay window, both directions. */
const DEFAULT_TOLERANCE_S = 300;
const MIN_PLAIN_SECRET_CHARS = 24;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export class SignatureError extends Error {
  override name = "SignatureError";
}

export type SignedHeaders = { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };

/**
 * The HMAC key: `whsec_<base64>` is decoded (the spec's format, what
 * generateSecret() makes); any other string of 24+ characters is used as its
 * UTF-8 bytes, so an operator can paste a long random password.
 */
export function secretKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) {
    const encoded = secret.slice(SECRET_PREFIX.length);
    if (!BASE64.test(encoded)) throw new Error("A whsec_ secret must be followed by base64");
    return Buffer.from(encoded, "base64");
  }
  if (secret.length < MIN_PLAIN_SECRET_CHARS) {
    throw new Error(`A signing secret must be whsec_<base64> or at least ${MIN_PLAIN_SECRET_CHARS} characters`);
  }
  return Buffer.from(secret, "utf8");
}

/** `v1,<base64 HMAC-SHA256>` of `${msgId}.${timestampS}.${body}`. */
export function sign(secret: string, msgId: string, timestampS: number, body: string | Uint8Array): string {
  const mac = createHmac("sha256", secretKey(secret));
  mac.update(`${msgId}.${timestampS}.`);
  mac.update(body);
  return `v1,${mac.digest("base64")}`;
}

/** The three headers to send with `body`, signed at `nowS` (Unix seconds). */
export function signedHeaders(secret: string, msgId: string, body: string | Uint8Array, nowS: number): SignedHeaders {
  const timestampS = Math.floor(nowS);
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(timestampS),
    "webhook-signature": sign(secret, msgId, timestampS, body),
  };
}

/** `whsec_` + base64 of 32 random bytes (256 bits, inside the spec's 24–64 byte range). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

type HeaderSource = Headers | Record<string, string | string[] | undefined | null>;

function header(headers: HeaderSource, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) return value.join(" ");
    return value ?? null;
  }
  return null;
}

export interface VerifyOptions {
  /** Seconds either side of `nowS` a timestamp may be. */
  toleranceS?: number;
  /** The verifier's current time in Unix seconds (from the injected clock). */
  nowS: number;
}

/**
 * Throws SignatureError (with the reason) unless one `v1,` entry of the
 * signature list matches and the timestamp is within the tolerance. The list
 * may hold several entries so a sender can rotate secrets without downtime.
 */
export function verify(secret: string, headers: HeaderSource, body: string | Uint8Array, opts: VerifyOptions): { msgId: string; timestampS: number } {
  const msgId = header(headers, "webhook-id");
  const rawTimestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!msgId) throw new SignatureError("Missing webhook-id header");
  if (!rawTimestamp) throw new SignatureError("Missing webhook-timestamp header");
  if (!signatures) throw new SignatureError("Missing webhook-signature header");

  if (!/^\d{1,15}$/.test(rawTimestamp.trim())) throw new SignatureError("webhook-timestamp must be an integer number of Unix seconds");
  const timestampS = Number(rawTimestamp.trim());
  const toleranceS = opts.toleranceS ?? DEFAULT_TOLERANCE_S;
  if (timestampS < opts.nowS - toleranceS) throw new SignatureError(`webhook-timestamp is more than ${toleranceS} s in the past`);
  if (timestampS > opts.nowS + toleranceS) throw new SignatureError(`webhook-timestamp is more than ${toleranceS} s in the future`);

  // Compare the base64 text as sent: equal lengths only (timingSafeEqual needs them), so a truncated entry never matches.
  const expected = Buffer.from(sign(secret, msgId, timestampS, body).slice(3), "utf8");
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const given = Buffer.from(entry.slice(comma + 1), "utf8");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { msgId, timestampS };
  }
  throw new SignatureError("No webhook-signature entry matches (wrong secret, or the body or headers changed)");
}
