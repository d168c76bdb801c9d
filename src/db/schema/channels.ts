/**
 * Notification channels: where an account's alerts go besides a feed's webhook (owned by modules/channels).
 */
import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { CHANNEL_MODES, CHANNEL_TYPES } from "../enums";

/** One Telegram chat, Slack or Discord webhook, ntfy topic or e-mail destination of an account. */
export const channels = sqliteTable(
  "channels",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    type: text("type", { enum: CHANNEL_TYPES }).notNull(),
    name: text("name").notNull(),
    /** The platform settings (tokens, webhook URLs, passwords) as JSON sealed by lib/secret-box.ts: never stored in clear. */
    configSealed: text("config_sealed").notNull(),
    mode: text("mode", { enum: CHANNEL_MODES }).notNull().default("instant"),
    /** Digest mode: how often ("15m", "1h", …); null in instant mode. */
    digestEvery: text("digest_every"),
    /** {from: "22:00", to: "07:00", timeZone: "Europe/Berlin"}, or null. */
    quietHours: text("quiet_hours", { mode: "json" }).$type<{ from: string; to: string; timeZone: string }>(),
    createdAtTs: integer("created_at_ts").notNull(),
    updatedAtTs: integer("updated_at_ts").notNull(),
    lastDeliveryAtTs: integer("last_delivery_at_ts"),
    /** Why the newest failed attempt failed; cleared by a delivery. */
    lastError: text("last_error"),
    /**
     * Telegram channels: the bot's id as Telegram's getMe named it when the token was saved (checked, so the
     * token is real and the account holds the bot: telegramBotOwners). Null for other kinds and for Telegram
     * channels saved before tokens were checked: those are not polled until the poller has checked them.
     */
    telegramBotId: text("telegram_bot_id"),
  },
  (t) => [index("channels_account_idx").on(t.accountId), index("channels_telegram_bot_idx").on(t.telegramBotId)],
);

/**
 * Which account holds each Telegram bot: one at a time, so a bot's buttons and commands answer one account.
 * Written in the transaction that saves a channel with a checked token (the primary key makes a second
 * account's claim wait for, then see, the first on PostgreSQL too); a holder with no channel on the bot any
 * more is stale, and the next account to save the bot takes it over.
 */
export const telegramBotOwners = sqliteTable("telegram_bot_owners", {
  botId: text("bot_id").primaryKey(),
  accountId: text("account_id")
    .notNull()
    .references(() => accounts.id, { onDelete: "cascade" }),
  claimedAtTs: integer("claimed_at_ts").notNull(),
});
