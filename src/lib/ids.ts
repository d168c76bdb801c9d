/** Time-ordered UUIDs (v7) keep inserts at the end of their indexes. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

// Request ids need to be unique and short, not secret: a random per-process prefix plus a counter.
const processPrefix = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => (b % 36).toString(36)).join("");
let counter = 0;

/** Unique id for requests and log correlation: 8 random base36 chars for this process, then a counter. */
export function requestId(): string {
  return processPrefix + (++counter).toString(36).padStart(8, "0");
}

/**
 * A job ciphertext as the marketplace writes them (`~02` + digits, older `~01` + hex) and as jobpilot
 * derives them for other platforms (`~w`/`~p` + hex): `~` then letters, digits, `_` or `-`. Anything
 * else (control bytes, slashes, dots) is not an id and is refused wherever one is taken.
 */
export const CIPHERTEXT_RE = /^~[A-Za-z0-9_-]{1,100}$/;
export const CIPHERTEXT_RULE = "a job ciphertext: ~ followed by letters, digits, _ or - (URL-encode ~ as %7E)";

/** 32 random bytes, base64url (43 characters): session and form tokens. */
export function randomToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}
