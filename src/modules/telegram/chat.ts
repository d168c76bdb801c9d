/**
 * What the bot's handlers share: who the bot is, how it talks (send, edit,
 * answer through the Bot API with the channel send deadline), and which
 * account a chat acts as. Only chats bound to an account (binding.ts) may act.
 */
import type { Deps } from "../../deps";
import { AppError, clientMessage } from "../../errors";
import { accountAuth, type AuthContext } from "../accounts/service";
import { telegramCall, type TelegramCallOutcome } from "../channels/kinds/telegram";
import type { InlineKeyboard } from "../channels/telegram-actions";
import * as repo from "./repo";

export interface BotIdentity {
  /** The bot's id as Telegram's getMe gave it when the token was checked (not read off the token). */
  id: string;
  token: string;
  /** From getMe, to tell `/feeds@this_bot` from another bot's command; null until known. */
  username: string | null;
}

export interface BotContext {
  deps: Deps;
  bot: BotIdentity;
}

/** A chat allowed to act, and the account it acts as. */
export interface BoundChat {
  chat: repo.ChatRow;
  auth: AuthContext;
}

/** What an unbound chat is told (also as a button's alert: at most 200 characters). */
export const NOT_BOUND =
  "This chat is not linked to a jobpilot account, so I cannot act here. In jobpilot, create a binding code for your Telegram channel and send /start <code> here.";

/** One Bot API call with the channel send deadline. */
export function callBot(deps: Deps, token: string, method: string, body: Record<string, unknown>): Promise<TelegramCallOutcome> {
  return telegramCall({ timeoutMs: deps.config.webhookTimeoutMs, settings: { telegramApiUrl: deps.config.telegramApiUrl } }, token, method, body);
}

/** Telegram's "reply to this message" markup: the chat's input opens as a reply to the bot's message. */
export interface ForceReply {
  force_reply: true;
  /** Shown in the empty input field (at most 64 characters). */
  input_field_placeholder?: string;
  /** In a group, only the person the message replies to is asked. */
  selective?: boolean;
}

type SayExtra = { replyTo?: number; keyboard?: InlineKeyboard | ForceReply };

/** Sends an HTML message to a chat (optionally as a reply, with buttons or a force-reply); a failure is logged, not thrown. */
export async function say(ctx: BotContext, chatId: string, html: string, extra: SayExtra = {}): Promise<void> {
  await sendMessage(ctx, chatId, html, extra);
}

/** say, resolving with the sent message's id (null when it was not sent), for a caller that waits for a reply to it. */
export async function sendMessage(ctx: BotContext, chatId: string, html: string, extra: SayExtra = {}): Promise<number | null> {
  const out = await callBot(ctx.deps, ctx.bot.token, "sendMessage", {
    chat_id: chatId,
    text: html,
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
    ...(extra.replyTo === undefined ? {} : { reply_parameters: { message_id: extra.replyTo, allow_sending_without_reply: true } }),
    ...(extra.keyboard === undefined ? {} : { reply_markup: extra.keyboard }),
  });
  if (!out.ok) ctx.deps.log.warn("telegram reply failed", { bot: ctx.bot.id, error: out.error });
  const id = (out.result as { message_id?: unknown } | null)?.message_id;
  return out.ok && typeof id === "number" ? id : null;
}

/** Replaces one of the bot's messages (its buttons too: none unless given); a failure is logged, not thrown. */
export async function edit(ctx: BotContext, chatId: string, messageId: number, html: string, keyboard?: InlineKeyboard): Promise<void> {
  const out = await callBot(ctx.deps, ctx.bot.token, "editMessageText", {
    chat_id: chatId,
    message_id: messageId,
    text: html,
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
    ...(keyboard === undefined ? {} : { reply_markup: keyboard }),
  });
  if (!out.ok && !out.error?.includes("message is not modified")) ctx.deps.log.warn("telegram edit failed", { bot: ctx.bot.id, error: out.error });
}

/** The chat's binding and the account it acts as; null for a chat no account bound. */
export async function boundChat(ctx: BotContext, chatId: string): Promise<BoundChat | null> {
  const chat = await repo.findChat(ctx.deps.db, ctx.bot.id, chatId);
  if (!chat) return null;
  return { chat, auth: await accountAuth(ctx.deps.db, chat.accountId, { keyId: `telegram:${ctx.bot.id}:${chat.chatId}`, keyLabel: "telegram" }) };
}

/** What the API would have answered with a 4xx, in the chat's words; null for anything else (rethrown). */
export function refusalOf(err: unknown): string | null {
  if (!(err instanceof AppError) || (err.status >= 500 && !err.userFacing)) return null;
  if (err.code === "payment_required") {
    const left = typeof err.extra.creditsRemaining === "number" ? ` (${err.extra.creditsRemaining} available)` : "";
    return `Not enough auto-apply credits to apply${left}. Add credits in jobpilot, then press Apply again.`;
  }
  if (err.code === "conflict") return `Not applied: ${clientMessage(err)}.`;
  return clientMessage(err);
}

/** An application's status as the chat shows it. */
export const STATUS_LABELS: Record<string, string> = {
  processing: "⏳ being submitted",
  applied: "✅ applied",
  failed: "❌ failed",
  not_available: "🚫 the job is no longer available",
  not_eligible: "🚫 not eligible for this job",
  not_enough_connects: "🪙 not enough Connects",
  logged_out: "🔒 the marketplace session is logged out",
};
