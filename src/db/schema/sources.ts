/**
 * Job sources' memory between polls, OAuth states in flight and OAuth tokens (owned by modules/intake).
 */
import { sqliteTable, text, integer } from "drizzle-orm/sqlite-core";

/** Each job source's memory between polls (ETag, cursors, ids seen) and what `jobpilot source status` shows. */
export const sourceState = sqliteTable("source_state", {
  name: text("name").primaryKey(),
  state: text("state", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  lastPollAtTs: integer("last_poll_at_ts"),
  lastSuccessAtTs: integer("last_success_at_ts"),
  lastError: text("last_error"),
  lastErrorAtTs: integer("last_error_at_ts"),
  consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  lastSeen: integer("last_seen").notNull().default(0),
  lastNew: integer("last_new").notNull().default(0),
  totalSeen: integer("total_seen").notNull().default(0),
  totalNew: integer("total_new").notNull().default(0),
  nextRunAtTs: integer("next_run_at_ts"),
});

/** OAuth `state` values handed out by `jobpilot source connect` and not used yet: the callback accepts each once, before it expires. */
export const oauthStates = sqliteTable("oauth_states", {
  state: text("state").primaryKey(),
  provider: text("provider").notNull(),
  expiresAtTs: integer("expires_at_ts").notNull(),
});

/**
 * OAuth tokens of connected providers, one row per provider (`marketplace`), so every node reads the same
 * pair. `ciphertext` is the AES-256-GCM envelope src/sources/marketplace-api/token-store.ts writes (the same
 * JSON the old `marketplace-tokens.enc` file held); the database never sees a token in clear. A refresh
 * rotates the refresh token, so writes are compare-and-swap on `updatedAtTs`, and the one node refreshing
 * holds `leaseUntilTs` (Unix ms) meanwhile: the others wait and re-read instead of spending the same token.
 */
export const oauthTokens = sqliteTable("oauth_tokens", {
  provider: text("provider").primaryKey(),
  ciphertext: text("ciphertext").notNull(),
  updatedAtTs: integer("updated_at_ts").notNull(),
  leaseUntilTs: integer("lease_until_ts"),
});
