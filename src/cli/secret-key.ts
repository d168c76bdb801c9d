/**
 * The key that seals stored secrets (channel settings): JOBPILOT_SECRET_KEY
 * when set; else, on SQLite, a key generated on first start into a file
 * beside the database, so a default install is encrypted too.
 *
 * PostgreSQL gets no generated key: several nodes share the database, and a
 * key file made by each would leave every node unable to read what the others
 * saved. There the setting is required for channels (serve warns at start,
 * and saving a channel answers 503 naming it until it is set).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config";
import type { Logger } from "../lib/log";
import { generateSecretKey, MIN_SECRET_KEY_LENGTH } from "../lib/secret-box";
import { ConfigError } from "../config";

export const SECRET_KEY_FILE = "jobpilot-secret.key";

export function secretKeyPath(dbPath: string): string {
  return join(dirname(dbPath), SECRET_KEY_FILE);
}

/**
 * The secret key this process seals with, or null when it has none (PostgreSQL without the setting). An
 * in-memory database gets a key for this run only: its channels die with it anyway.
 */
export function resolveSecretKey(config: Pick<Config, "secretKey" | "databaseUrl" | "dbPath">, log: Logger): string | null {
  if (config.secretKey) {
    if (!config.databaseUrl && config.dbPath !== ":memory:" && existsSync(secretKeyPath(config.dbPath))) {
      log.warn("JOBPILOT_SECRET_KEY is set, so the generated key file is not used: channels saved under it can no longer be read", {
        path: secretKeyPath(config.dbPath),
      });
    }
    return config.secretKey;
  }
  if (config.databaseUrl) {
    log.warn("JOBPILOT_SECRET_KEY is not set: notification channels cannot be saved or delivered on PostgreSQL until every node has the same key");
    return null;
  }
  if (config.dbPath === ":memory:") return generateSecretKey();
  return readOrCreateKeyFile(secretKeyPath(config.dbPath), log);
}

function readOrCreateKeyFile(path: string, log: Logger): string {
  let fd: number;
  try {
    // The key is resolved before the database is opened, so on a fresh clone or in an empty directory its folder
    // does not exist yet; made private (0700) as the database's own folder is.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Created with 0600 in one step: the key is never readable by others, not even for a moment.
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new ConfigError(`cannot create the secret key file ${path}: ${(err as Error).message}`);
    return readKeyFile(path, log);
  }
  const key = generateSecretKey();
  try {
    writeSync(fd, `${key}\n`);
  } finally {
    closeSync(fd);
  }
  // The umask may have narrowed it further, never widened it; set it exactly.
  chmodSync(path, 0o600);
  log.info(
    "generated a secret key for stored channel secrets; back this file up apart from the database backups (without it saved channels cannot be read; beside a backup it would open the secrets in it)",
    {
      path,
      setting: "JOBPILOT_SECRET_KEY overrides it",
    },
  );
  return key;
}

function readKeyFile(path: string, log: Logger): string {
  const key = readFileSync(path, "utf8").trim();
  if (key.length < MIN_SECRET_KEY_LENGTH) {
    throw new ConfigError(
      `the secret key file ${path} holds fewer than ${MIN_SECRET_KEY_LENGTH} characters; restore it from a backup or set JOBPILOT_SECRET_KEY`,
    );
  }
  if ((statSync(path).mode & 0o077) !== 0) log.warn("the secret key file can be read by other users; chmod 600 it", { path });
  return key;
}
