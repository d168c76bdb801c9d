/**
 * A feed's webhook URL and signing secrets at rest: sealed with the server's secret key, the same sealing as
 * channel settings (lib/secret-box.ts), so a copy of the database or a backup can neither forge signed
 * deliveries nor tell where they go.
 *
 * Without a key (PostgreSQL without JOBPILOT_SECRET_KEY) they are written in clear, and a clear value is
 * always read as it is: rows written before sealing existed, or while there was no key, keep working, and
 * sealClearWebhooks seals them once a key is there. A stored value is told apart by its shape (isEnvelope):
 * no http(s) URL and no whsec_ secret is a JSON envelope, so nothing is ever sealed twice.
 */
import type { Db } from "../../db/client";
import type { Logger } from "../../lib/log";
import { isEnvelope, open, seal, type SealPurpose, sealPurpose } from "../../lib/secret-box";
import * as repo from "./repo";

export type WebhookField = "webhookUrl" | "webhookSecret" | "webhookPreviousSecret";
export type WebhookValues = Record<WebhookField, string | null>;

const WEBHOOK_FIELDS: readonly WebhookField[] = ["webhookUrl", "webhookSecret", "webhookPreviousSecret"];

// One purpose for the URL, one for the secrets: an envelope of one does not open as the other (nor as a channel's settings).
const URL_PURPOSE = sealPurpose("jobpilot/feed-webhook-url/v1", "jobpilot feed webhook url encryption");
const SECRET_PURPOSE = sealPurpose("jobpilot/feed-webhook-secret/v1", "jobpilot feed webhook secret encryption");
const PURPOSES: Record<WebhookField, SealPurpose> = { webhookUrl: URL_PURPOSE, webhookSecret: SECRET_PURPOSE, webhookPreviousSecret: SECRET_PURPOSE };

/** Why a stored webhook value cannot be had; the message holds no secret and says what to do. */
export class WebhookSealError extends Error {}

/** The value as it is to be stored: sealed when there is a key, else in clear; null stays null, and an envelope is kept as it is. */
export async function sealValue(secretKey: string | null, field: WebhookField, value: string | null): Promise<string | null> {
  if (value === null || secretKey === null || isEnvelope(value)) return value;
  return seal(secretKey, value, PURPOSES[field]);
}

/** The webhook fields among `changes`, each as it is to be stored; the other fields are left as they are. */
export async function sealChanges<T extends Partial<WebhookValues>>(secretKey: string | null, changes: T): Promise<T> {
  const out: Partial<WebhookValues> = { ...changes };
  for (const field of WEBHOOK_FIELDS) {
    const value = changes[field];
    if (value !== undefined) out[field] = await sealValue(secretKey, field, value);
  }
  return out as T;
}

/** Opened values by envelope (and field): each open derives a key, which is slow (docs/performance.md, 'Why the code is as it is'), and the deliverer opens the same few often. */
export type OpenedCache = Map<string, string>;
const MAX_CACHED = 1000;

/** The stored value opened (a clear one as it is); a WebhookSealError when it cannot be. */
export async function openValue(secretKey: string | null, field: WebhookField, stored: string | null, cache?: OpenedCache): Promise<string | null> {
  if (stored === null || !isEnvelope(stored)) return stored;
  const cacheKey = `${field}\n${stored}`;
  const cached = cache?.get(cacheKey);
  if (cached !== undefined) return cached;
  if (secretKey === null) throw new WebhookSealError("JOBPILOT_SECRET_KEY is not set, so the feed's webhook URL and secret cannot be read");
  let plain: string;
  try {
    plain = await open(secretKey, stored, PURPOSES[field]);
  } catch {
    throw new WebhookSealError(
      "the feed's webhook URL and secret cannot be decrypted: the secret key is not the one they were saved with (save the webhook URL again: it gets a new secret)",
    );
  }
  if (cache) {
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(cacheKey, plain);
  }
  return plain;
}

/** The feed's webhook URL and secrets opened; a WebhookSealError when any of them cannot be. */
export async function openWebhook(secretKey: string | null, row: Pick<repo.FeedRow, WebhookField>, cache?: OpenedCache): Promise<WebhookValues> {
  return {
    webhookUrl: await openValue(secretKey, "webhookUrl", row.webhookUrl, cache),
    webhookSecret: await openValue(secretKey, "webhookSecret", row.webhookSecret, cache),
    webhookPreviousSecret: await openValue(secretKey, "webhookPreviousSecret", row.webhookPreviousSecret, cache),
  };
}

/** openWebhook, or null when the values cannot be opened under this key (a view then shows none of them). */
export function openWebhookOrNull(secretKey: string | null, row: Pick<repo.FeedRow, WebhookField>): Promise<WebhookValues | null> {
  return openWebhook(secretKey, row).catch((err) => {
    if (err instanceof WebhookSealError) return null;
    throw err;
  });
}

/**
 * Seals every webhook value still stored in clear (rows of earlier versions, or saved without a key); returns
 * how many feeds it sealed. Each feed is one compare-and-set statement: a crash midway leaves every row
 * either clear or sealed, never half, and running it again (or on two nodes at once) seals only what is
 * still clear. Without a key nothing can be sealed: it says so, naming the setting.
 */
export async function sealClearWebhooks(deps: { db: Db; secretKey: string | null; log: Logger }): Promise<number> {
  const rows = await repo.feedsWithClearWebhooks(deps.db);
  if (deps.secretKey === null) {
    if (rows.length > 0) {
      deps.log.warn(
        "JOBPILOT_SECRET_KEY is not set: feed webhook URLs and signing secrets are stored in clear; set it (the same on every node) and restart to seal them",
        {
          feeds: rows.length,
        },
      );
    }
    return 0;
  }
  let sealed = 0;
  for (const row of rows) {
    const read: WebhookValues = { webhookUrl: row.webhookUrl, webhookSecret: row.webhookSecret, webhookPreviousSecret: row.webhookPreviousSecret };
    if (await repo.replaceWebhookValues(deps.db, row.id, read, await sealChanges(deps.secretKey, read))) sealed++;
  }
  if (sealed > 0) deps.log.info("sealed the feed webhook URLs and secrets stored in clear", { feeds: sealed });
  return sealed;
}
