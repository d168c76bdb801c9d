/**
 * PostgreSQL twin of src/db/schema/telegram.ts (owned by modules/telegram).
 */
import { pgTable, text, index, primaryKey } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { channels } from "./channels";
import { int64 } from "./columns";

export const telegramBots = pgTable("telegram_bots", {
  botId: text("bot_id").primaryKey(),
  updateOffset: int64("update_offset").notNull(),
  updatedAtTs: int64("updated_at_ts").notNull(),
});

export const telegramBindingCodes = pgTable(
  "telegram_binding_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAtTs: int64("created_at_ts").notNull(),
    expiresAtTs: int64("expires_at_ts").notNull(),
  },
  (t) => [index("telegram_binding_codes_channel_idx").on(t.channelId), index("telegram_binding_codes_expiry_idx").on(t.expiresAtTs)],
);

export const telegramChats = pgTable(
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
    title: text("title"),
    boundAtTs: int64("bound_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.botId, t.chatId] }), index("telegram_chats_channel_idx").on(t.channelId)],
);

export const telegramDrafts = pgTable(
  "telegram_drafts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    botId: text("bot_id").notNull(),
    chatId: text("chat_id").notNull(),
    feedJobId: text("feed_job_id").notNull(),
    alertMessageId: int64("alert_message_id").notNull(),
    coverLetter: text("cover_letter").notNull(),
    effort: text("effort").notNull(),
    createdAtTs: int64("created_at_ts").notNull(),
    promptMessageId: int64("prompt_message_id"),
  },
  (t) => [index("telegram_drafts_created_idx").on(t.createdAtTs)],
);
