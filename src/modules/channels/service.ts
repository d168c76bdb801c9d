/**
 * Notification channels as an account's resource: create, list, read,
 * change and delete them, with their settings sealed at rest.
 *
 * A channel's config is validated per kind (model.ts validateChannelConfig,
 * plus the SSRF rule for user-chosen servers), then stored as one JSON
 * envelope sealed with the server's secret key (lib/secret-box.ts); responses
 * show it masked (maskConfig). PATCH merges: config fields left out keep
 * their stored value, and a secret sent back exactly as it is shown (masked)
 * keeps the stored secret, so a form can send back what it was given.
 */
import { tx, type Db } from "../../db/client";
import type { ChannelMode } from "../../db/enums";
import { AppError, notFound, userFacingServerError } from "../../errors";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { open, seal, sealPurpose } from "../../lib/secret-box";
import type { EgressPolicy, Resolver } from "../../lib/ssrf";
import type { AuthContext } from "../accounts/service";
import type { FeedIndex } from "../feeds/matcher";
import { detachChannel } from "../feeds/service";
import { type Channel, type CreateChannelBody, MAX_CHANNELS_PER_ACCOUNT, type PatchChannelBody } from "./http-model";
import { type ChannelTarget, type ChannelType, isTimeZone, maskConfig, validateChannelConfig, type WebhookOrigins } from "./model";
import * as repo from "./repo";
import type { ChannelApiSettings } from "./kinds/kind";
import { checkTelegramToken } from "./kinds/telegram";
import { checkChannelDestination } from "./send";

export interface ChannelsDeps {
  db: Db;
  clock: Clock;
  /** Seals and opens channel configs; null (PostgreSQL without JOBPILOT_SECRET_KEY): channels are unavailable. */
  secretKey: string | null;
  egress: EgressPolicy;
  resolve?: Resolver;
  feedIndex: FeedIndex;
  /** The test origins, and where Telegram is and how long to wait for it (a bot token is checked with getMe). */
  config: WebhookOrigins & ChannelApiSettings & { webhookTimeoutMs: number };
}

// Bound into the GCM tag and the key derivation: an envelope of another purpose does not open as a channel config.
const CONFIG_PURPOSE = sealPurpose("jobpilot/channel-config/v1", "jobpilot channel config encryption");

/** On PostgreSQL without the setting there is no key (cli/secret-key.ts): say what to set. */
function requireKey(secretKey: string | null): string {
  if (secretKey === null) {
    throw userFacingServerError(
      "unavailable",
      "Notification channels need JOBPILOT_SECRET_KEY (the same value on every node) on PostgreSQL: set it and restart jobpilot",
    );
  }
  return secretKey;
}

export function sealConfig(secretKey: string, config: ChannelTarget["config"]): Promise<string> {
  return seal(secretKey, JSON.stringify(config), CONFIG_PURPOSE);
}

/**
 * The channel's kind and settings, opened. Throws when the key is not the one they were sealed with (the
 * message says so, and holds no secret): the deliverer books that as the attempt's error.
 */
export async function openChannel(secretKey: string | null, row: Pick<repo.ChannelRow, "type" | "configSealed">): Promise<ChannelTarget> {
  if (secretKey === null) throw new Error("JOBPILOT_SECRET_KEY is not set, so the channel's settings cannot be read");
  let plain: string;
  try {
    plain = await open(secretKey, row.configSealed, CONFIG_PURPOSE);
  } catch {
    throw new Error("the channel's settings cannot be decrypted: the secret key is not the one they were saved with (save the channel again)");
  }
  return { type: row.type, config: JSON.parse(plain) } as ChannelTarget;
}

async function toView(secretKey: string | null, row: repo.ChannelRow): Promise<Channel> {
  let config: Record<string, string | null>;
  try {
    const opened = await openChannel(secretKey, row);
    config = maskConfig(opened.type, opened.config) as unknown as Record<string, string | null>;
  } catch {
    // Unreadable under this key: still listed (so it can be fixed or deleted), with nothing to show.
    config = {};
  }
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    config,
    mode: row.mode,
    digestEvery: row.digestEvery,
    quietHours: row.quietHours ?? null,
    createdAt: row.createdAtTs,
    lastDeliveryAt: row.lastDeliveryAtTs,
    lastError: row.lastError,
  };
}

function invalid(details: string[]): AppError {
  return new AppError("bad_request", "Validation failed", { details });
}

/** The kind's config, validated and normalised (and its user-chosen server checked), or a 400 naming the field. */
async function checkedConfig(deps: ChannelsDeps, type: ChannelType, config: unknown): Promise<ChannelTarget> {
  const checked = validateChannelConfig(type, config, deps.config);
  if (!checked.ok) throw invalid([checked.message]);
  const channel = { type, config: checked.config } as ChannelTarget;
  const reachable = await checkChannelDestination(channel, deps.egress, deps.resolve);
  if (!reachable.ok) throw invalid([reachable.message]);
  return channel;
}

/** What a second account saving a bot another account holds is told (409). */
export const TELEGRAM_BOT_TAKEN =
  "This Telegram bot is already connected to another jobpilot account: give this channel a bot of its own (@BotFather, /newbot), or remove the bot from the other account first";

/**
 * The id of the bot a token belongs to, as Telegram says (getMe), checked before anything is written: a token
 * Telegram refuses is a 400 naming config.botToken; no answer from Telegram is a 503 (nothing saved). The
 * number before the colon is not trusted: anyone can read it off a bot and pair it with made-up letters.
 */
async function verifiedTelegramBot(deps: ChannelsDeps, botToken: string): Promise<string> {
  const check = await checkTelegramToken({ timeoutMs: deps.config.webhookTimeoutMs, settings: deps.config }, botToken);
  if (check.ok) return check.botId;
  if (check.isRefused) {
    throw invalid([`config.botToken: Telegram does not accept this bot token (${check.error}): copy it again from @BotFather, or make a new bot there`]);
  }
  throw userFacingServerError("unavailable", "Telegram could not be reached to check config.botToken, so nothing was saved: try again in a moment");
}

/** Takes the bot for the account in the caller's transaction, before the channel is written; 409 when another account holds it. */
async function claimBot(db: Db, botId: string, accountId: string, nowTs: number): Promise<void> {
  if (!(await repo.claimTelegramBot(db, botId, accountId, nowTs))) {
    throw new AppError("conflict", TELEGRAM_BOT_TAKEN, {
      details: ["config.botToken names a bot that is already connected to another jobpilot account: give this channel a bot of its own (@BotFather, /newbot)"],
    });
  }
}

/**
 * A Telegram channel saved before tokens were checked, now checked by the poller (`botId` from getMe): the
 * account takes the bot unless another holds it. Returns whether the channel is now the bot's.
 */
export async function adoptTelegramChannel(deps: Pick<ChannelsDeps, "db" | "clock">, row: repo.ChannelRow, botId: string): Promise<boolean> {
  const now = deps.clock.now();
  return tx(deps.db, async (db) => {
    if (!(await repo.claimTelegramBot(db, botId, row.accountId, now))) return false;
    return (await repo.updateChannel(db, row.id, { telegramBotId: botId, updatedAtTs: now })) !== undefined;
  });
}

const MIN_DIGEST_MINUTES = 5;
const MAX_DIGEST_MINUTES = 24 * 60;
const DEFAULT_DIGEST_EVERY = "1h";

/** The delivery settings as they will be after this write, or a 400 naming what is wrong. */
function deliverySettings(
  current: { mode: ChannelMode; digestEvery: string | null; quietHours: repo.ChannelRow["quietHours"] },
  body: Pick<PatchChannelBody, "mode" | "digestEvery" | "quietHours">,
): { mode: ChannelMode; digestEvery: string | null; quietHours: repo.ChannelRow["quietHours"] } {
  const mode = body.mode ?? current.mode;
  let digestEvery = body.digestEvery === undefined ? current.digestEvery : body.digestEvery;
  const quietHours = body.quietHours === undefined ? current.quietHours : body.quietHours;
  const details: string[] = [];
  if (digestEvery !== null) {
    const minutes = Number(digestEvery.slice(0, -1)) * (digestEvery.endsWith("h") ? 60 : 1);
    if (minutes < MIN_DIGEST_MINUTES || minutes > MAX_DIGEST_MINUTES) details.push('digestEvery must be between "5m" and "24h"');
  }
  if (mode === "digest") digestEvery ??= DEFAULT_DIGEST_EVERY;
  if (quietHours) {
    // Only a zone this request sets is checked: one saved before the check was strict keeps working.
    if (body.quietHours && !isTimeZone(quietHours.timeZone)) {
      details.push(`quietHours.timeZone is not a known IANA time zone: ${JSON.stringify(quietHours.timeZone)} (e.g. Europe/Berlin, America/New_York or UTC)`);
    }
    if (quietHours.from === quietHours.to) details.push("quietHours.from and quietHours.to must differ");
  }
  if (details.length) throw invalid(details);
  return { mode, digestEvery, quietHours: quietHours ?? null };
}

/** The name as stored: trimmed, and not blank. */
function channelName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") throw invalid(["name must not be blank"]);
  return trimmed;
}

async function requireChannel(db: Db, auth: AuthContext, channelId: string): Promise<repo.ChannelRow> {
  const row = await repo.findChannel(db, auth.accountId, channelId);
  if (!row) throw notFound("Channel not found");
  return row;
}

export async function listChannels(deps: ChannelsDeps, auth: AuthContext): Promise<Channel[]> {
  const rows = await repo.listChannels(deps.db, auth.accountId);
  return Promise.all(rows.map((row) => toView(deps.secretKey, row)));
}

export async function getChannel(deps: ChannelsDeps, auth: AuthContext, channelId: string): Promise<Channel> {
  return toView(deps.secretKey, await requireChannel(deps.db, auth, channelId));
}

export async function createChannel(deps: ChannelsDeps, auth: AuthContext, body: CreateChannelBody): Promise<Channel> {
  const key = requireKey(deps.secretKey);
  const name = channelName(body.name);
  const settings = deliverySettings({ mode: "instant", digestEvery: null, quietHours: null }, body);
  const channel = await checkedConfig(deps, body.type, body.config);
  const telegramBotId = channel.type === "telegram" ? await verifiedTelegramBot(deps, channel.config.botToken) : null;
  const configSealed = await sealConfig(key, channel.config);
  const now = deps.clock.now();
  const row = await tx(deps.db, async (db) => {
    // Counted in the writing transaction, so concurrent creates cannot both take the last place.
    const existing = await repo.countChannels(db, auth.accountId);
    if (existing >= MAX_CHANNELS_PER_ACCOUNT) {
      throw new AppError(
        "conflict",
        `Channel limit reached: this account has ${existing} channels and may have ${MAX_CHANNELS_PER_ACCOUNT}. Delete one first.`,
      );
    }
    if (telegramBotId !== null) await claimBot(db, telegramBotId, auth.accountId, now);
    return repo.insertChannel(db, {
      id: newId(),
      accountId: auth.accountId,
      type: body.type,
      name,
      configSealed,
      ...settings,
      createdAtTs: now,
      updatedAtTs: now,
      telegramBotId,
    });
  });
  return toView(key, row);
}

/**
 * The stored config with the request's fields over it: a field left out keeps its value, and one sent back
 * as it is shown (its masked form) keeps the stored secret.
 */
function mergedConfig(stored: ChannelTarget, given: Record<string, unknown>): Record<string, unknown> {
  const shown = maskConfig(stored.type, stored.config) as unknown as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...(stored.config as unknown as Record<string, unknown>) };
  for (const [field, value] of Object.entries(given)) {
    if (value === shown[field] && field in merged) continue;
    merged[field] = value;
  }
  return merged;
}

export async function patchChannel(deps: ChannelsDeps, auth: AuthContext, channelId: string, body: PatchChannelBody): Promise<Channel> {
  const key = requireKey(deps.secretKey);
  const current = await requireChannel(deps.db, auth, channelId);
  const fields = ["name", "config", "mode", "digestEvery", "quietHours"] as const;
  if (!fields.some((f) => body[f] !== undefined)) {
    throw new AppError("bad_request", `No updatable fields in the request body (updatable: ${fields.join(", ")})`);
  }
  if (body.type !== undefined && body.type !== current.type) {
    throw invalid([`type cannot change (this is a ${current.type} channel): create a new channel and delete this one`]);
  }
  const name = body.name === undefined ? undefined : channelName(body.name);
  const settings = deliverySettings(current, body);
  let configSealed: string | undefined;
  /** Set when this request's token was checked with Telegram: the bot it belongs to, to claim. */
  let telegramBotId: string | undefined;
  if (body.config !== undefined) {
    const stored = await openChannel(key, current).catch(() => null);
    // Unreadable under this key: the request must carry the whole config again.
    const merged = stored === null ? body.config : mergedConfig(stored, body.config);
    const channel = await checkedConfig(deps, current.type, merged);
    // A token already checked and unchanged is not asked about again (a rename works while Telegram is down).
    const isChecked =
      current.telegramBotId !== null && stored?.type === "telegram" && stored.config.botToken === (channel.config as { botToken?: string }).botToken;
    if (channel.type === "telegram" && !isChecked) telegramBotId = await verifiedTelegramBot(deps, channel.config.botToken);
    configSealed = await sealConfig(key, channel.config);
  }
  const now = deps.clock.now();
  const row = await tx(deps.db, async (db) => {
    if (telegramBotId !== undefined) await claimBot(db, telegramBotId, auth.accountId, now);
    return repo.updateChannel(db, current.id, {
      ...(name !== undefined ? { name } : {}),
      ...(configSealed !== undefined ? { configSealed } : {}),
      ...(telegramBotId !== undefined ? { telegramBotId } : {}),
      ...settings,
      updatedAtTs: now,
    });
  });
  if (!row) throw notFound("Channel not found");
  return toView(key, row);
}

/** Deletes the channel and takes it off every feed, in one transaction; its events still due are skipped. */
export async function deleteChannel(deps: ChannelsDeps, auth: AuthContext, channelId: string): Promise<{ deleted: true; channelId: string }> {
  await tx(deps.db, async (db) => {
    await requireChannel(db, auth, channelId);
    const refreshIndex = await detachChannel(deps, db, channelId, deps.clock.now());
    await repo.deleteChannel(db, auth.accountId, channelId);
    // Before the commit, as a deleted feed leaves the index: an ingest waiting for this transaction matches without it.
    refreshIndex();
  });
  return { deleted: true, channelId };
}
