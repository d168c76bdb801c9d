/**
 * OAuth tokens in the database: the TokenVault the marketplace-api adapter
 * stores its encrypted tokens in (the adapter encrypts; this file only moves
 * ciphertext), and the one-time import of the token file earlier versions
 * kept next to the SQLite database.
 */
import { existsSync, readFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import type { Logger } from "../../lib/log";
import { isTokenEnvelope, type TokenVault } from "../../sources/marketplace-api/token-store";
import * as repo from "./token-repo";

export const MARKETPLACE_PROVIDER = "marketplace";
export const LEGACY_TOKEN_FILE = "marketplace-tokens.enc";
/** A save that keeps losing its compare-and-swap is stuck, not busy. */
const MAX_SAVE_ATTEMPTS = 20;

/** The provider's row as a TokenVault: versions are the row's updated_at_ts, strictly increasing on every write. */
export function oauthTokenVault(db: Db, provider: string = MARKETPLACE_PROVIDER): TokenVault {
  // Later than the version it replaces even when clocks of two nodes disagree, so a compare-and-swap holding the old one fails.
  const nextVersion = (version: number, nowTs: number) => Math.max(nowTs, version + 1);
  return {
    async load() {
      const row = await repo.findOAuthToken(db, provider);
      return row === undefined ? null : { ciphertext: row.ciphertext, version: row.updatedAtTs, leaseUntilTs: row.leaseUntilTs };
    },
    async save(ciphertext, nowTs) {
      for (let attempt = 0; attempt < MAX_SAVE_ATTEMPTS; attempt++) {
        const row = await repo.findOAuthToken(db, provider);
        if (row === undefined) {
          if (await repo.insertOAuthToken(db, provider, ciphertext, nowTs)) return;
        } else if (await repo.replaceOAuthToken(db, provider, row.updatedAtTs, ciphertext, nextVersion(row.updatedAtTs, nowTs))) {
          return;
        }
      }
      throw new Error(`could not store the ${provider} tokens: the row kept changing under us`);
    },
    lease: (version, untilTs, nowTs) => repo.leaseOAuthToken(db, provider, version, untilTs, nowTs),
    replace: (version, ciphertext, nowTs) => repo.replaceOAuthToken(db, provider, version, ciphertext, nextVersion(version, nowTs)),
    release: (version, untilTs) => repo.releaseOAuthTokenLease(db, provider, version, untilTs),
  };
}

/** Where versions before the database row kept the marketplace tokens: next to the SQLite file. */
export function legacyTokenPath(dbPath: string): string {
  return join(dirname(dbPath), LEGACY_TOKEN_FILE);
}

export type LegacyImport = "none" | "imported" | "kept";

/**
 * Moves the token file of an earlier version into the database, once: when
 * `<database directory>/marketplace-tokens.enc` exists and the database holds
 * no marketplace tokens, its envelope (still encrypted, as it was) becomes the
 * row and the file is renamed to `marketplace-tokens.enc.imported`, never
 * deleted. A file the database already has tokens beside is left alone, with
 * a warning: it is no longer read.
 */
export async function importLegacyTokenFile(deps: { db: Db; dbPath: string; clock: Clock; log: Logger }): Promise<LegacyImport> {
  if (deps.dbPath === ":memory:") return "none";
  const path = legacyTokenPath(deps.dbPath);
  if (!existsSync(path)) return "none";
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    deps.log.warn("cannot read the old marketplace token file; it was not imported", { path, err: err as Error });
    return "kept";
  }
  if (!isTokenEnvelope(text)) {
    deps.log.warn("the old marketplace token file is not a token envelope; it was not imported", { path });
    return "kept";
  }
  if (!(await repo.insertOAuthToken(deps.db, MARKETPLACE_PROVIDER, text, deps.clock.now()))) {
    deps.log.warn("the database already holds marketplace tokens; the old token file is no longer read and can be deleted", { path });
    return "kept";
  }
  const renamed = `${path}.imported`;
  try {
    renameSync(path, renamed);
  } catch (err) {
    deps.log.warn("marketplace tokens imported into the database, but the old token file could not be renamed", { path, err: err as Error });
    return "imported";
  }
  deps.log.info("marketplace tokens imported from the old token file into the database", { from: path, renamedTo: renamed });
  return "imported";
}
