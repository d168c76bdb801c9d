/**
 * Interactive Telegram: the API shapes (binding codes, bound chats) and the
 * parts of the Bot API's Update that the bot reads. Updates come from
 * Telegram's servers, but a chat's text is whatever its users typed: the
 * handlers read them through readUpdate, which keeps only well-typed fields.
 */
import { t } from "elysia";

export const BindingCode = t.Object(
  {
    code: t.String({ description: "The one-time code: 10 letters and digits, case-insensitive." }),
    expiresAt: t.Integer({ description: "Unix ms after which the code no longer binds (15 minutes after it was made)." }),
    command: t.String({ description: "What to send the bot from the chat to bind: `/start <code>`." }),
  },
  { title: "TelegramBindingCode" },
);
export type BindingCode = typeof BindingCode.static;

export const BoundChat = t.Object(
  {
    chatId: t.String({ description: "Telegram's id of the chat (negative for groups)." }),
    title: t.Nullable(t.String({ description: "The group's title or the person's name when it was bound." })),
    boundAt: t.Integer({ description: "Unix ms" }),
  },
  { title: "TelegramBoundChat" },
);
export type BoundChat = typeof BoundChat.static;

export const BoundChatList = t.Object({ chats: t.Array(BoundChat) });
export const ChatParams = t.Object({ channelId: t.String({ maxLength: 100 }), chatId: t.String({ maxLength: 40 }) });

// ---------------------------------------------------------------------------
// The Bot API's Update, as far as the bot reads it

export interface TgChat {
  /** As a string: ids reach 52 bits, and the database and the config keep chat ids as text. */
  id: string;
  type: string;
  /** A group's title, or a person's name. */
  title: string | null;
}

export interface TgMessage {
  messageId: number;
  chat: TgChat;
  text: string | null;
  /** The message this one replies to (a reply to the bot's "reply with your instruction"), null for none. */
  replyToMessageId: number | null;
}

export interface TgCallbackQuery {
  id: string;
  /** The bot's message the button was under; null when Telegram no longer has it. */
  message: TgMessage | null;
  data: string | null;
}

export interface TgUpdate {
  updateId: number;
  message: TgMessage | null;
  callbackQuery: TgCallbackQuery | null;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

function readChat(v: unknown): TgChat | null {
  if (!isObject(v) || (typeof v.id !== "number" && typeof v.id !== "string")) return null;
  const name = [str(v.first_name), str(v.last_name)].filter((s) => s !== null).join(" ");
  return { id: String(v.id), type: str(v.type) ?? "private", title: str(v.title) ?? (name || str(v.username)) };
}

function readMessage(v: unknown): TgMessage | null {
  if (!isObject(v) || typeof v.message_id !== "number") return null;
  const chat = readChat(v.chat);
  const replyTo = isObject(v.reply_to_message) && typeof v.reply_to_message.message_id === "number" ? v.reply_to_message.message_id : null;
  return chat ? { messageId: v.message_id, chat, text: str(v.text), replyToMessageId: replyTo } : null;
}

/** An update's parts the bot acts on; null when it has no update_id (nothing to confirm, nothing to do). */
export function readUpdate(v: unknown): TgUpdate | null {
  if (!isObject(v) || typeof v.update_id !== "number" || !Number.isSafeInteger(v.update_id)) return null;
  const cq = v.callback_query;
  return {
    updateId: v.update_id,
    message: readMessage(v.message),
    callbackQuery: isObject(cq) && typeof cq.id === "string" ? { id: cq.id, message: readMessage(cq.message), data: str(cq.data) } : null,
  };
}
