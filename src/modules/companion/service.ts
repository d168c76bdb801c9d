/**
 * Pairing a browser companion: the dashboard makes a one-time code for the signed-in account; the extension's
 * options page sends it with no key and gets its own API key, labelled "browser companion", back. The key is
 * an ordinary key (listed and revocable on the keys page); the code is short-lived, stored as its hash, and
 * works once.
 */
import { tx, type Db } from "../../db/client";
import { AppError } from "../../errors";
import type { Clock } from "../../lib/clock";
import { sha256Hex } from "../../lib/hash";
import { COMPANION_KEY_LABEL } from "../../marketplace/driver";
import { presentedKeyHash } from "../accounts/api-key";
import { findKeyByHashCached, newestLiveKeyLabelledAt } from "../accounts/repo";
import { type AccountsDeps, createKey, listKeys, revokeKey } from "../accounts/service";
import * as repo from "./repo";

export const PAIRING_CODE_TTL_MS = 10 * 60_000;

// One label for the pairing that creates the key and the driver choice that looks for it (marketplace/drivers.ts).
export { COMPANION_KEY_LABEL };
/** 32 letters and digits without the look-alikes 0/O and 1/I: 12 of them are 60 bits, typed once. */
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 12;

export interface PairingCode {
  code: string;
  expiresAt: number;
}

const hashOf = (code: string) => sha256Hex(`jobpilot/companion-pairing/${code.replace(/[\s-]/g, "").toUpperCase()}`);

/** A new code for the account; its earlier unused code stops working. */
export async function createPairingCode(deps: { db: Db; clock: Clock }, accountId: string): Promise<PairingCode> {
  // 256 is a multiple of 32: every letter equally likely.
  const raw = Array.from(crypto.getRandomValues(new Uint8Array(CODE_LENGTH)), (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join("");
  const code = `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8)}`;
  const now = deps.clock.now();
  const expiresAt = now + PAIRING_CODE_TTL_MS;
  await tx(deps.db, async (db) => {
    await repo.deleteExpiredPairingCodes(db, now);
    await repo.replacePairingCode(db, { codeHash: hashOf(code), accountId, createdAtTs: now, expiresAtTs: expiresAt });
  });
  return { code, expiresAt };
}

/**
 * Exchanges a code for a new API key of its account, revoking the key of the companion paired before. The code is used up even when the key cannot be made
 * (the account's key limit): a code is a one-time secret, and a new one is a click away.
 */
export async function exchangePairingCode(
  deps: AccountsDeps & Parameters<typeof createKey>[0],
  code: string,
): Promise<{ accountId: string; keyId: string; apiKey: string }> {
  const taken = await repo.takePairingCode(deps.db, hashOf(code));
  if (!taken || taken.expiresAtTs < deps.clock.now()) {
    throw new AppError("not_found", "That pairing code is unknown, used or expired: make a new one on the dashboard's browser companion page");
  }
  // One companion per account: the key of a companion paired before is revoked in the transaction that issues the
  // new one, so there is never a moment with two, and a failed issue (the key limit) leaves the old one working.
  const { key, apiKey } = await tx(deps.db, async (db) => {
    const inTx = { ...deps, db };
    await unpairCompanion(inTx, taken.accountId);
    return createKey(inTx, taken.accountId, COMPANION_KEY_LABEL);
  });
  return { accountId: taken.accountId, keyId: key.id, apiKey };
}

/** Unpairs the account's browser companions: every unrevoked key labelled "browser companion" is revoked (the next poll gets 401). */
export async function unpairCompanion(deps: AccountsDeps, accountId: string): Promise<number> {
  const keys = (await listKeys(deps, accountId)).filter((k) => k.label === COMPANION_KEY_LABEL && k.revokedAtTs === null);
  for (const key of keys) await revokeKey(deps, key.id);
  return keys.length;
}

/**
 * What became of the key a companion presents, for one told 401 (its options page says why): replaced when a
 * companion key of the account was issued at or after its revocation (pairing again), else revoked or active.
 * Only the holder of the key learns this, and nothing it did not know but that.
 */
export async function companionKeyState(deps: { db: Db }, presented: string | null): Promise<{ state: "active" | "replaced" | "revoked" }> {
  const hash = presentedKeyHash(presented);
  const key = hash === null ? undefined : await findKeyByHashCached(deps.db, hash);
  if (!key) throw new AppError("not_found", "This server knows no such key: pair the companion again");
  if (key.revokedAtTs === null) return { state: "active" };
  const newest = key.keyLabel === COMPANION_KEY_LABEL ? await newestLiveKeyLabelledAt(deps.db, key.accountId, COMPANION_KEY_LABEL) : null;
  return { state: newest !== null && newest >= key.revokedAtTs ? "replaced" : "revoked" };
}
