/**
 * PostgreSQL twin of src/db/schema/dashboard.ts (owned by modules/dashboard).
 */
import { pgTable, text, index } from "drizzle-orm/pg-core";
import { accounts, apiKeys } from "./accounts";
import { int64 } from "./columns";

export const dashboardSessions = pgTable(
  "dashboard_sessions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    memberId: text("member_id"),
    csrfToken: text("csrf_token").notNull(),
    createdAtTs: int64("created_at_ts").notNull(),
    expiresAtTs: int64("expires_at_ts").notNull(),
    lastSeenAtTs: int64("last_seen_at_ts").notNull(),
  },
  (t) => [index("dashboard_sessions_account_idx").on(t.accountId), index("dashboard_sessions_key_idx").on(t.keyId)],
);

export const dashboardSignInLinks = pgTable("dashboard_sign_in_links", {
  tokenHash: text("token_hash").primaryKey(),
  accountId: text("account_id")
    .notNull()
    .references(() => accounts.id, { onDelete: "cascade" }),
  expiresAtTs: int64("expires_at_ts").notNull(),
});
