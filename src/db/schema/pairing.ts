/**
 * One-time codes that pair a browser companion with an account (owned by modules/companion). Stored as their
 * SHA-256 (hex) only; exchanging one for the companion's API key deletes it in the same transaction.
 */
import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

export const companionPairingCodes = sqliteTable(
  "companion_pairing_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAtTs: integer("created_at_ts").notNull(),
    expiresAtTs: integer("expires_at_ts").notNull(),
  },
  (t) => [index("companion_pairing_codes_account_idx").on(t.accountId), index("companion_pairing_codes_expiry_idx").on(t.expiresAtTs)],
);
