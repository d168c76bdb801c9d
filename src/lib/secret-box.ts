/**
 * Secrets at rest: text sealed with AES-256-GCM under a key derived from one
 * secret string (JOBPILOT_SECRET_KEY, or the generated key file) by
 * HKDF-SHA-256. Every seal draws a new random salt and IV, both stored in the
 * envelope beside the ciphertext; GCM's tag makes a wrong key or any edit fail
 * loudly instead of opening to garbage.
 *
 * A purpose (its own HKDF info and associated data) keeps envelopes of one use
 * from being passed off as another's: an envelope sealed for the marketplace
 * tokens does not open as a channel's settings.
 */

export const MIN_SECRET_KEY_LENGTH = 16;
const FORMAT_VERSION = 1;

export interface SealPurpose {
  /** Bound into the GCM tag. */
  associatedData: Uint8Array<ArrayBuffer>;
  /** HKDF's info: a separate key per purpose. */
  info: Uint8Array<ArrayBuffer>;
}

export function sealPurpose(associatedData: string, info: string): SealPurpose {
  return { associatedData: new TextEncoder().encode(associatedData), info: new TextEncoder().encode(info) };
}

interface Envelope {
  v: number;
  kdf: "HKDF-SHA-256";
  alg: "AES-256-GCM";
  salt: string;
  iv: string;
  data: string;
}

/**
 * Why an envelope did not open: `key` (the secret is too short to use), `format` (not an envelope of this
 * version, or its parts are malformed; `message` says which), `tag` (wrong key or altered: GCM cannot tell
 * the two apart, and must not).
 */
export class SecretBoxError extends Error {
  constructor(
    readonly kind: "key" | "format" | "tag",
    message: string,
  ) {
    super(message);
  }
}

async function deriveKey(secretKey: string, salt: Uint8Array<ArrayBuffer>, purpose: SealPurpose): Promise<CryptoKey> {
  if (typeof secretKey !== "string" || secretKey.length < MIN_SECRET_KEY_LENGTH) {
    throw new SecretBoxError("key", `the secret key must be at least ${MIN_SECRET_KEY_LENGTH} characters`);
  }
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secretKey), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt, info: purpose.info }, material, { name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
}

/** `plain` sealed in a fresh envelope (new salt and IV), as one line of JSON. */
export async function seal(secretKey: string, plain: string, purpose: SealPurpose): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await deriveKey(secretKey, salt, purpose);
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: purpose.associatedData }, key, new TextEncoder().encode(plain)),
  );
  const envelope: Envelope = { v: FORMAT_VERSION, kdf: "HKDF-SHA-256", alg: "AES-256-GCM", salt: b64(salt), iv: b64(iv), data: b64(sealed) };
  return JSON.stringify(envelope);
}

/** The text an envelope holds; a SecretBoxError says why it cannot be had. */
export async function open(secretKey: string, text: string, purpose: SealPurpose): Promise<string> {
  let file: Partial<Envelope>;
  try {
    file = JSON.parse(text) as Partial<Envelope>;
  } catch {
    throw new SecretBoxError("format", "not JSON");
  }
  if (typeof file !== "object" || file === null) throw new SecretBoxError("format", "not an object");
  if (file.v !== FORMAT_VERSION || file.alg !== "AES-256-GCM" || file.kdf !== "HKDF-SHA-256") throw new SecretBoxError("format", "unknown format version");
  const salt = unb64(file.salt);
  const iv = unb64(file.iv);
  const data = unb64(file.data);
  if (salt === null || salt.length < 16 || iv === null || iv.length !== 12 || data === null || data.length <= 16) {
    throw new SecretBoxError("format", "malformed salt, iv or data");
  }
  const key = await deriveKey(secretKey, salt, purpose);
  try {
    return new TextDecoder().decode(await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: purpose.associatedData }, key, data));
  } catch {
    throw new SecretBoxError("tag", "wrong key, or the envelope was altered");
  }
}

/** Whether `text` has the shape of an envelope (without opening it: that needs the key). */
export function isEnvelope(text: string): boolean {
  // Most text asked about is no JSON object at all (a clear URL or secret): no parse, and no exception thrown.
  if (!text.trimStart().startsWith("{")) return false;
  try {
    const e = JSON.parse(text) as Partial<Envelope> | null;
    return typeof e === "object" && e !== null && e.v === FORMAT_VERSION && e.alg === "AES-256-GCM" && typeof e.data === "string";
  } catch {
    return false;
  }
}

/** A new random secret key (32 bytes, base64): what a generated key file holds. */
export function generateSecretKey(): string {
  return b64(crypto.getRandomValues(new Uint8Array(32)));
}

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64");
}

function unb64(v: unknown): Uint8Array<ArrayBuffer> | null {
  if (typeof v !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) return null;
  const bytes = Buffer.from(v, "base64");
  // A fresh ArrayBuffer (not Buffer's shared pool), as Web Crypto's BufferSource wants.
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}
