/**
 * Key format: `jp_live_` + 43 base62 chars (32 random bytes) + 6 base62 chars
 * of CRC32 checksum. The prefix lets secret scanners find leaked keys; the
 * checksum lets us reject typos and junk without touching the database.
 */
import { sha256Hex } from "../../lib/hash";

export const KEY_PREFIX = "jp_live_";
const BODY_LEN = 43;
const CHECK_LEN = 6;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_RE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LEN + CHECK_LEN}}$`);

function base62(value: bigint, width: number): string {
  let out = "";
  while (value > 0n) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(width, "0");
}

/** CRC32 in 6 base62 chars; plain numbers suffice (checked on every request, so no BigInt). */
function checksum(body: string): string {
  let value = Bun.hash.crc32(body);
  let out = "";
  for (let i = 0; i < CHECK_LEN; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export function generateApiKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const body = base62(BigInt("0x" + Buffer.from(bytes).toString("hex")), BODY_LEN);
  return KEY_PREFIX + body + checksum(body);
}

/** Shape and checksum only; says nothing about whether the key exists. */
export function isWellFormedKey(key: string): boolean {
  if (!KEY_RE.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LEN);
  return key.slice(-CHECK_LEN) === checksum(body);
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/**
 * The well-formed keys presented lately, with their hashes. Checking a key's shape and checksum and hashing it
 * was a noticeable share of every API request's CPU (docs/performance.md, 'Why the code is as it is'), and a
 * client sends the same key again and again. A key's hash never changes, so nothing here needs dropping when a
 * key is revoked (the lookup by hash says so). Bounded: a flood of made-up keys empties it, no more.
 */
const presentedHashes = new Map<string, string>();
const PRESENTED_KEPT = 1024;

/** The hash of a presented key to look it up by, or null when there is none or it is malformed (bad shape or checksum). */
export function presentedKeyHash(key: string | null | undefined): string | null {
  if (!key) return null;
  const known = presentedHashes.get(key);
  if (known !== undefined) return known;
  if (!isWellFormedKey(key)) return null;
  if (presentedHashes.size >= PRESENTED_KEPT) presentedHashes.clear();
  const hash = hashApiKey(key);
  presentedHashes.set(key, hash);
  return hash;
}

/** What lists show so a person can tell keys apart: enough to recognise, far too little to use. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 4);
}
