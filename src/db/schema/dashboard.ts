/**
 * Dashboard sign-ins (owned by modules/dashboard).
 */
import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { accounts, apiKeys } from "./accounts";

/**
 * Signed-in dashboard browsers. `id` is the SHA-256 (hex) of the cookie's random token, so a copy of the
 * database hands out no live sessions. `keyId` is the API key used to sign in (null for a one-time link):
 * revoking that key ends the session. Times are Unix ms; expiry is checked against both the idle and the
 * absolute limit on every request.
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    /**
     * The member signed in with e-mail and password (null: a key sign-in). No foreign key: members are never deleted
     * (removal is a mark), and removing one deletes their sessions in the same transaction.
     */
    memberId: text("member_id"),
    csrfToken: text("csrf_token").notNull(),
    createdAtTs: integer("created_at_ts").notNull(),
    expiresAtTs: integer("expires_at_ts").notNull(),
    lastSeenAtTs: integer("last_seen_at_ts").notNull(),
  },
  (t) => [index("dashboard_sessions_account_idx").on(t.accountId), index("dashboard_sessions_key_idx").on(t.keyId)],
);

/** One-time sign-in links from `jobpilot dashboard link`; the token is stored only as its SHA-256 (hex). */
export const dashboardSignInLinks = sqliteTable("dashboard_sign_in_links", {
  tokenHash: text("token_hash").primaryKey(),
  accountId: text("account_id")
    .notNull()
    .references(() => accounts.id, { onDelete: "cascade" }),
  expiresAtTs: integer("expires_at_ts").notNull(),
});
