/**
 * The marketplace OAuth tokens at rest: one small file, by convention
 * `<database directory>/marketplace-tokens.enc` (the caller passes the path).
 *
 * The refresh token is a long-lived credential for the user's marketplace
 * account, so it is encrypted with AES-256-GCM under a key derived from
 * JOBPILOT_SECRET_KEY by HKDF-SHA-256. Each save draws a new random salt and
 * IV, both stored in the file beside the ciphertext; GCM's tag makes a wrong
 * key or any edit fail loudly instead of decrypting to garbage.
 *
 * A refresh rotates the refresh token, so losing the new file after the old
 * token was spent would disconnect the source: writes go to `<path>.tmp`, are
 * fsynced and then renamed over the old file, and the directory is fsynced.
 */
import { open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { SourceError } from "../source";
import { CONNECT_COMMAND, type MarketplaceTokens } from "./oauth";

const TOKEN_FILE_NAME = "marketplace-tokens.enc";
const FORMAT_VERSION = 1;
// Bound into the GCM tag, so a file from another purpose or version cannot be passed off as this one.
const ASSOCIATED_DATA = new TextEncoder().encode(`jobpilot/marketplace-tokens/v${FORMAT_VERSION}`);
const HKDF_INFO = new TextEncoder().encode("jobpilot marketplace-api token encryption");
const MIN_SECRET_KEY_LENGTH = 16;

interface TokenFile {
  v: number;
  kdf: "HKDF-SHA-256";
  alg: "AES-256-GCM";
  salt: string;
  iv: string;
  data: string;
}

/** `<database directory>/marketplace-tokens.enc` for a database file path. */
export function tokenPathFor(databasePath: string): string {
  return `${dirname(databasePath)}/${TOKEN_FILE_NAME}`;
}

async function deriveKey(secretKey: string, salt: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  if (typeof secretKey !== "string" || secretKey.length < MIN_SECRET_KEY_LENGTH) {
    throw new SourceError(`JOBPILOT_SECRET_KEY must be set to at least ${MIN_SECRET_KEY_LENGTH} characters to store marketplace tokens`);
  }
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secretKey), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt, info: HKDF_INFO }, material, { name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
}

async function encryptTokens(secretKey: string, tokens: MarketplaceTokens): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await deriveKey(secretKey, salt);
  const plain = new TextEncoder().encode(JSON.stringify({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt }));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: ASSOCIATED_DATA }, key, plain));
  const file: TokenFile = { v: FORMAT_VERSION, kdf: "HKDF-SHA-256", alg: "AES-256-GCM", salt: b64(salt), iv: b64(iv), data: b64(sealed) };
  return JSON.stringify(file) + "\n";
}

async function decryptTokens(secretKey: string, text: string, where = "the token file"): Promise<MarketplaceTokens> {
  const unreadable = (why: string) => new SourceError(`${where} is not a marketplace token file (${why}): run ${CONNECT_COMMAND} to write a new one`);
  let file: Partial<TokenFile>;
  try {
    file = JSON.parse(text) as Partial<TokenFile>;
  } catch {
    throw unreadable("not JSON");
  }
  if (typeof file !== "object" || file === null) throw unreadable("not an object");
  if (file.v !== FORMAT_VERSION || file.alg !== "AES-256-GCM" || file.kdf !== "HKDF-SHA-256") throw unreadable("unknown format version");
  const salt = unb64(file.salt);
  const iv = unb64(file.iv);
  const data = unb64(file.data);
  if (salt === null || salt.length < 16 || iv === null || iv.length !== 12 || data === null || data.length <= 16) {
    throw unreadable("malformed salt, iv or data");
  }
  const key = await deriveKey(secretKey, salt);
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: ASSOCIATED_DATA }, key, data);
  } catch {
    // GCM cannot tell the two apart, and must not: the tag simply does not verify.
    throw new SourceError(
      `cannot decrypt ${where}: JOBPILOT_SECRET_KEY is not the key it was written with, or the file was altered; ` +
        `restore the key or run ${CONNECT_COMMAND} again`,
    );
  }
  let tokens: Partial<MarketplaceTokens>;
  try {
    tokens = JSON.parse(new TextDecoder().decode(plain)) as Partial<MarketplaceTokens>;
  } catch {
    throw unreadable("decrypted content is not JSON");
  }
  if (typeof tokens.accessToken !== "string" || typeof tokens.refreshToken !== "string" || typeof tokens.expiresAt !== "number") {
    throw unreadable("decrypted content lacks the token fields");
  }
  return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt };
}

/** Encrypts and writes atomically with mode 0600; on any failure the old file (if any) is untouched and no .tmp is left. */
export async function saveTokens(path: string, secretKey: string, tokens: MarketplaceTokens): Promise<void> {
  const text = await encryptTokens(secretKey, tokens);
  const tmp = `${path}.tmp`;
  try {
    // A leftover .tmp from a crash may carry a wider mode; "wx" below must create the file afresh.
    await rm(tmp, { force: true });
    const handle = await open(tmp, "wx", 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {});
    throw new Error(`could not write marketplace tokens to ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  await syncDirectory(dirname(path));
}

/** The stored tokens, or null when the file does not exist (the source is not connected). */
export async function loadTokens(path: string, secretKey: string): Promise<MarketplaceTokens | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`could not read marketplace tokens from ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return decryptTokens(secretKey, text, path);
}

/** Makes the rename durable; some filesystems refuse to open a directory, which only weakens crash safety. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
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
