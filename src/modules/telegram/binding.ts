/**
 * Binding a Telegram chat to an account: only bound chats may act (draft,
 * apply, mute…). The dashboard or the API makes a one-time code for a
 * Telegram channel; sending `/start <code>` to the channel's bot from a chat
 * binds that chat to the channel's account. Codes are short-lived, stored as
 * their hash, work once, and only on the bot of the channel they were made
 * for: the bot that receives `/start` must be the channel's checked bot
 * (its id as getMe gave it when the channel was saved) polled with the very
 * token the channel holds. Comparing bot ids alone let an account that saved
 * a made-up token behind another account's bot id bind a chat on that bot.
 */
import { tx, type Db } from "../../db/client";
import { AppError, notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import { sha256Hex } from "../../lib/hash";
import type { AuthContext } from "../accounts/service";
import { findChannel, findChannelById } from "../channels/repo";
import { openChannel } from "../channels/service";
import type { BindingCode, BoundChat } from "./model";
import * as repo from "./repo";

export const BINDING_CODE_TTL_MS = 15 * 60_000;
/** 32 letters and digits without the look-alikes 0/O and 1/I: 10 of them are 50 bits. */
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 10;

export interface BindingDeps {
  db: Db;
  clock: Clock;
  secretKey: string | null;
}

function newCode(): string {
  // 256 is a multiple of 32: every letter equally likely.
  return Array.from(crypto.getRandomValues(new Uint8Array(CODE_LENGTH)), (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join("");
}

const hashOf = (code: string) => sha256Hex(`jobpilot/telegram-binding/${code.trim().toUpperCase()}`);

/** Whether the two tokens are one, compared as hashes (a match says nothing of where two tokens first differ). */
export const isSameToken = (a: string, b: string) => sha256Hex(`jobpilot/telegram-token/${a}`) === sha256Hex(`jobpilot/telegram-token/${b}`);

async function requireTelegramChannel(db: Db, auth: AuthContext, channelId: string) {
  const row = await findChannel(db, auth.accountId, channelId);
  if (!row) throw notFound("Channel not found");
  if (row.type !== "telegram") throw new AppError("bad_request", `Chats are bound to telegram channels only; this is a ${row.type} channel`);
  return row;
}

/** A new code for the caller's Telegram channel; the channel's earlier codes stop working. */
export async function createBindingCode(deps: BindingDeps, auth: AuthContext, channelId: string): Promise<BindingCode> {
  const channel = await requireTelegramChannel(deps.db, auth, channelId);
  const code = newCode();
  const now = deps.clock.now();
  const expiresAt = now + BINDING_CODE_TTL_MS;
  await tx(deps.db, async (db) => {
    await repo.deleteExpiredBindingCodes(db, now);
    await repo.replaceBindingCode(db, { codeHash: hashOf(code), channelId: channel.id, accountId: auth.accountId, createdAtTs: now, expiresAtTs: expiresAt });
  });
  return { code, expiresAt, command: `/start ${code}` };
}

export async function listBoundChats(deps: BindingDeps, auth: AuthContext, channelId: string): Promise<BoundChat[]> {
  const channel = await requireTelegramChannel(deps.db, auth, channelId);
  return (await repo.chatsOfChannel(deps.db, channel.id)).map((c) => ({ chatId: c.chatId, title: c.title, boundAt: c.boundAtTs }));
}

export async function unbindChat(deps: BindingDeps, auth: AuthContext, channelId: string, chatId: string): Promise<{ deleted: true; chatId: string }> {
  const channel = await requireTelegramChannel(deps.db, auth, channelId);
  if (!(await repo.unbindChat(deps.db, channel.id, chatId))) throw notFound("No such chat is bound to this channel");
  return { deleted: true, chatId };
}

export type RedeemOutcome = { ok: true; channelName: string } | { ok: false; reason: "unknown" | "expired" | "other_account" };

/**
 * Binds `chat` (on the polled `bot`: its checked id and the token it is polled with) to the account of the
 * code's channel. A code that is unknown, already used, or made for a channel that is not this bot with this
 * token (another bot, a token never checked, another token) is "unknown"; an expired one is used up. A chat
 * bound to another account stays as it is (the code stays usable elsewhere): it must be unbound there first.
 */
export async function redeemBindingCode(
  deps: BindingDeps,
  bot: { id: string; token: string },
  chat: { id: string; title: string | null },
  code: string,
): Promise<RedeemOutcome> {
  const botId = bot.id;
  const codeHash = hashOf(code);
  const now = deps.clock.now();
  // Which bot the code's channel uses is in its sealed settings: opened before the transaction (no crypto inside it).
  const pending = await repo.findBindingCode(deps.db, codeHash);
  if (!pending) return { ok: false, reason: "unknown" };
  const channel = await findChannelById(deps.db, pending.channelId);
  const target = channel ? await openChannel(deps.secretKey, channel).catch(() => null) : null;
  if (!channel || channel.telegramBotId !== botId || target?.type !== "telegram" || !isSameToken(target.config.botToken, bot.token)) {
    return { ok: false, reason: "unknown" };
  }
  return tx(deps.db, async (db): Promise<RedeemOutcome> => {
    const bound = await repo.findChat(db, botId, chat.id);
    if (bound && bound.accountId !== pending.accountId) return { ok: false, reason: "other_account" };
    // Taken in the writing transaction: of two chats sending the same code at once, one binds.
    const taken = await repo.takeBindingCode(db, codeHash);
    if (!taken) return { ok: false, reason: "unknown" };
    if (taken.expiresAtTs <= now) return { ok: false, reason: "expired" };
    await repo.bindChat(db, { botId, chatId: chat.id, accountId: taken.accountId, channelId: taken.channelId, title: chat.title, boundAtTs: now });
    return { ok: true, channelName: channel.name };
  });
}
