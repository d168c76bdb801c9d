/**
 * PostgreSQL twin of src/db/schema/channels.ts (owned by modules/channels).
 */
import { pgTable, text, index } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { CHANNEL_MODES, CHANNEL_TYPES } from "../enums";
import { int64, jsonText } from "./columns";

export const channels = pgTable(
  "channels",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    type: text("type", { enum: CHANNEL_TYPES }).notNull(),
    name: text("name").notNull(),
    configSealed: text("config_sealed").notNull(),
    mode: text("mode", { enum: CHANNEL_MODES }).notNull().default("instant"),
    digestEvery: text("digest_every"),
    quietHours: jsonText("quiet_hours").$type<{ from: string; to: string; timeZone: string }>(),
    createdAtTs: int64("created_at_ts").notNull(),
    updatedAtTs: int64("updated_at_ts").notNull(),
    lastDeliveryAtTs: int64("last_delivery_at_ts"),
    lastError: text("last_error"),
    telegramBotId: text("telegram_bot_id"),
  },
  (t) => [index("channels_account_idx").on(t.accountId), index("channels_telegram_bot_idx").on(t.telegramBotId)],
);

export const telegramBotOwners = pgTable("telegram_bot_owners", {
  botId: text("bot_id").primaryKey(),
  accountId: text("account_id")
    .notNull()
    .references(() => accounts.id, { onDelete: "cascade" }),
  claimedAtTs: int64("claimed_at_ts").notNull(),
});
