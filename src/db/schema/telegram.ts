/**
 * Interactive Telegram (owned by modules/telegram): where each bot's update stream stands, the one-time
 * codes that bind a chat, the chats bound to accounts, and the cover letters drafted in a chat.
 */
import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { channels } from "./channels";

/**
 * One row per bot that has been polled: the next update_id to ask getUpdates for, written after each update
 * is handled, so a restart neither replays handled updates nor skips unhandled ones. `botId` is the numeric
 * part of the token (before the colon): it names the bot without being a secret.
 */
export const telegramBots = sqliteTable("telegram_bots", {
  botId: text("bot_id").primaryKey(),
  updateOffset: integer("update_offset").notNull(),
  updatedAtTs: integer("updated_at_ts").notNull(),
});

/**
 * One-time binding codes for a Telegram channel, stored as their SHA-256 (hex) only. Redeeming one
 * (`/start <code>` in a chat) deletes it in the transaction that binds the chat; expired ones are pruned.
 */
export const telegramBindingCodes = sqliteTable(
  "telegram_binding_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAtTs: integer("created_at_ts").notNull(),
    expiresAtTs: integer("expires_at_ts").notNull(),
  },
  (t) => [index("telegram_binding_codes_channel_idx").on(t.channelId), index("telegram_binding_codes_expiry_idx").on(t.expiresAtTs)],
);

/**
 * Chats allowed to act for an account: a chat (per bot) is bound to the account of the channel whose code
 * it sent. Deleting the channel unbinds its chats.
 */
export const telegramChats = sqliteTable(
  "telegram_chats",
  {
    botId: text("bot_id").notNull(),
    chatId: text("chat_id").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    /** The group's title or the person's name when bound, to show which chat it is. */
    title: text("title"),
    boundAtTs: integer("bound_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.botId, t.chatId] }), index("telegram_chats_channel_idx").on(t.channelId)],
);

/**
 * A cover letter drafted from an alert's *Draft proposal* button: the *Apply with this* button names the
 * draft by id (a callback carries at most 64 bytes), and applies with exactly the letter shown.
 */
export const telegramDrafts = sqliteTable(
  "telegram_drafts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    botId: text("bot_id").notNull(),
    chatId: text("chat_id").notNull(),
    feedJobId: text("feed_job_id").notNull(),
    /** The alert the draft was asked from: the message edited with the application's final status. */
    alertMessageId: integer("alert_message_id").notNull(),
    coverLetter: text("cover_letter").notNull(),
    /** The writer's effort for this draft: *Regenerate* moves to the next one, for a different letter. */
    effort: text("effort").notNull(),
    createdAtTs: integer("created_at_ts").notNull(),
    /**
     * The bot's "reply with your instruction" message (force-reply) sent for this draft: a reply to it is the
     * instruction for the next letter. Null until *Regenerate with an instruction* is pressed.
     */
    promptMessageId: integer("prompt_message_id"),
  },
  (t) => [index("telegram_drafts_created_idx").on(t.createdAtTs)],
);
