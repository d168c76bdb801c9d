/**
 * The marketplace OAuth tokens at rest: one envelope sealed with JOBPILOT_SECRET_KEY (lib/secret-box.ts) in a
 * TokenVault the caller hands in. A refresh spends the refresh token, so refreshStoredTokens lets one caller of
 * the cluster refresh at a time, by a compare-and-swap lease on the row's version
 * (see docs/architecture.md, 'Marketplace token refreshes').
 */
import type { Logger } from "../../lib/log";
import { SourceError } from "../source";
import { isEnvelope, MIN_SECRET_KEY_LENGTH, open, seal, SecretBoxError, sealPurpose } from "../../lib/secret-box";
import { CONNECT_COMMAND, OAuthError, type MarketplaceTokens } from "./oauth";

// Bound into the GCM tag and the key derivation, so an envelope from another purpose or version cannot be passed off as this one.
const PURPOSE = sealPurpose("jobpilot/marketplace-tokens/v1", "jobpilot marketplace-api token encryption");
const STORED = "the stored marketplace tokens";

export const NOT_CONNECTED_MESSAGE = `not connected: run ${CONNECT_COMMAND}`;
/** Longer than a token request may take (30 s), so a lease outlives the refresh it guards. */
export const DEFAULT_REFRESH_LEASE_MS = 60_000;
const DEFAULT_LEASE_POLL_MS = 200;

/** The encrypted tokens as stored, with what the compare-and-swap writes need. */
export interface StoredTokens {
  /** The encrypted envelope (JSON text). */
  ciphertext: string;
  /** Changes on every write (the row's updated_at_ts): the compare-and-swap checks it. */
  version: number;
  /** Unix ms until which one caller holds the right to refresh; null when nobody does. */
  leaseUntilTs: number | null;
}

/**
 * Where the encrypted tokens live. Every write but save() is a compare-and-swap on `version`, atomic
 * against other processes on the same store.
 */
export interface TokenVault {
  /** The stored tokens, or null when the source is not connected. */
  load(): Promise<StoredTokens | null>;
  /** Stores a new grant whatever is there (`source connect`); ends any lease. */
  save(ciphertext: string, nowTs: number): Promise<void>;
  /** Takes the refresh lease until `untilTs` when the row is still at `version` and no lease runs at `nowTs`; true when taken. */
  lease(version: number, untilTs: number, nowTs: number): Promise<boolean>;
  /** Replaces the ciphertext when the row is still at `version`, ending the lease; false when someone wrote meanwhile. */
  replace(version: number, ciphertext: string, nowTs: number): Promise<boolean>;
  /** Gives back the lease taken until `untilTs` (the refresh failed) when the row is still at `version`. */
  release(version: number, untilTs: number): Promise<void>;
}
/** The tokens sealed in a fresh envelope (new salt and IV). */
export async function encryptTokens(secretKey: string, tokens: MarketplaceTokens): Promise<string> {
  const plain = JSON.stringify({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt });
  try {
    return (await seal(secretKey, plain, PURPOSE)) + "\n";
  } catch (err) {
    throw err instanceof SecretBoxError && err.kind === "key" ? missingKey() : err;
  }
}

function missingKey(): SourceError {
  return new SourceError(`JOBPILOT_SECRET_KEY must be set to at least ${MIN_SECRET_KEY_LENGTH} characters to store marketplace tokens`);
}

/** Opens an envelope; a malformed one, a wrong key or an altered envelope is a SourceError naming `where`. */
export async function decryptTokens(secretKey: string, text: string, where = STORED): Promise<MarketplaceTokens> {
  const unreadable = (why: string) => new SourceError(`cannot read ${where} (${why}): run ${CONNECT_COMMAND} to store new ones`);
  let plain: string;
  try {
    plain = await open(secretKey, text, PURPOSE);
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    if (err.kind === "key") throw missingKey();
    if (err.kind === "format") throw unreadable(err.message);
    throw new SourceError(
      `cannot decrypt ${where}: JOBPILOT_SECRET_KEY is not the key it was written with, or the envelope was altered; ` +
        `restore the key or run ${CONNECT_COMMAND} again`,
    );
  }
  let tokens: Partial<MarketplaceTokens>;
  try {
    tokens = JSON.parse(plain) as Partial<MarketplaceTokens>;
  } catch {
    throw unreadable("decrypted content is not JSON");
  }
  if (typeof tokens.accessToken !== "string" || typeof tokens.refreshToken !== "string" || typeof tokens.expiresAt !== "number") {
    throw unreadable("decrypted content lacks the token fields");
  }
  return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt };
}

/** Whether `text` has the shape of a token envelope (without opening it: that needs the key). */
export const isTokenEnvelope = isEnvelope;

/** The stored tokens, or null when the vault holds none (the source is not connected). */
export async function loadTokens(vault: TokenVault, secretKey: string): Promise<MarketplaceTokens | null> {
  const stored = await vault.load();
  return stored === null ? null : decryptTokens(secretKey, stored.ciphertext);
}

/** Encrypts and stores a new grant, replacing whatever the vault held. */
export async function saveTokens(vault: TokenVault, secretKey: string, tokens: MarketplaceTokens, nowTs: number): Promise<void> {
  await vault.save(await encryptTokens(secretKey, tokens), nowTs);
}

export interface RefreshStoredOptions {
  vault: TokenVault;
  secretKey: string;
  now: () => number;
  /** Whether tokens someone else stored can be used as they are (new enough, not about to expire). */
  usable: (stored: MarketplaceTokens) => boolean;
  /** The token endpoint: trades a refresh token for a new pair. */
  refresh: (refreshToken: string) => Promise<MarketplaceTokens>;
  leaseMs?: number;
  /** How often a caller waiting for another's lease re-reads the row (real time). */
  leasePollMs?: number;
  /** Handed the new pair as soon as the endpoint answers, before it is stored: the old refresh token is spent by then. */
  onRefreshed?: (next: MarketplaceTokens) => void;
  log?: Logger;
}

/**
 * A refreshed pair, spending the stored refresh token at most once across every process on the vault:
 * tokens someone else stored meanwhile are used as they are; else this caller takes the lease, refreshes
 * and replaces the row. While another caller holds the lease, it waits (at most about the lease's length)
 * and re-reads. `stale` is the pair the caller holds; its refresh token is used only when it is newer
 * than the stored one (a pair kept in memory after a failed write).
 */
export async function refreshStoredTokens(opts: RefreshStoredOptions, stale: MarketplaceTokens): Promise<MarketplaceTokens> {
  const leaseMs = opts.leaseMs ?? DEFAULT_REFRESH_LEASE_MS;
  const pollMs = opts.leasePollMs ?? DEFAULT_LEASE_POLL_MS;
  // Real time, not the injected clock: this bounds a wait for another process.
  const giveUpAt = performance.now() + leaseMs + pollMs;
  for (;;) {
    const row = await opts.vault.load();
    if (row === null) throw new SourceError(NOT_CONNECTED_MESSAGE);
    const stored = await decryptTokens(opts.secretKey, row.ciphertext);
    if (opts.usable(stored)) return stored;
    const nowTs = opts.now();
    if (row.leaseUntilTs !== null && row.leaseUntilTs > nowTs) {
      // Someone else is refreshing: its pair will be in the row shortly.
      if (performance.now() > giveUpAt) throw new Error("another jobpilot process has held the marketplace token refresh for too long; trying again later");
      await Bun.sleep(pollMs);
      continue;
    }
    const leaseUntilTs = nowTs + leaseMs;
    // Lost the race for the lease (or the row changed since we read it): read again.
    if (!(await opts.vault.lease(row.version, leaseUntilTs, nowTs))) continue;
    const base = stale.expiresAt > stored.expiresAt ? stale : stored;
    let next: MarketplaceTokens;
    try {
      next = await opts.refresh(base.refreshToken);
    } catch (err) {
      await opts.vault.release(row.version, leaseUntilTs).catch(() => {});
      if (err instanceof OAuthError && err.code === "invalid_grant") {
        // The token may have been spent by someone whose lease outlived ours, and its pair stored since.
        const after = await opts.vault.load();
        if (after !== null && after.version !== row.version) {
          const theirs = await decryptTokens(opts.secretKey, after.ciphertext);
          if (opts.usable(theirs)) return theirs;
        }
      }
      throw err;
    }
    opts.onRefreshed?.(next);
    const ciphertext = await encryptTokens(opts.secretKey, next);
    if (await opts.vault.replace(row.version, ciphertext, opts.now())) return next;
    // Someone wrote meanwhile (a new grant from `source connect`): theirs wins when usable.
    const after = await opts.vault.load();
    if (after !== null) {
      const theirs = await decryptTokens(opts.secretKey, after.ciphertext);
      if (opts.usable(theirs)) return theirs;
    }
    opts.log?.warn("marketplace tokens were stored by someone else during our refresh; keeping ours in memory only");
    return next;
  }
}
