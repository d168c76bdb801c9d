/**
 * PostgreSQL twin of src/db/schema/pairing.ts (owned by modules/companion).
 */
import { pgTable, text, index } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { int64 } from "./columns";

export const companionPairingCodes = pgTable(
  "companion_pairing_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAtTs: int64("created_at_ts").notNull(),
    expiresAtTs: int64("expires_at_ts").notNull(),
  },
  (t) => [index("companion_pairing_codes_account_idx").on(t.accountId), index("companion_pairing_codes_expiry_idx").on(t.expiresAtTs)],
);
