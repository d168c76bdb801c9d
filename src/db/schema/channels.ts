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
  },
  (t) => [index("channels_account_idx").on(t.accountId)],
);
