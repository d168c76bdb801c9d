/**
 * PostgreSQL twin of src/db/schema/sources.ts (owned by modules/intake).
 */
import { pgTable, text, integer } from "drizzle-orm/pg-core";
import { int64, jsonText } from "./columns";

export const sourceState = pgTable("source_state", {
  name: text("name").primaryKey(),
  state: jsonText("state").notNull().$type<Record<string, unknown>>(),
  lastPollAtTs: int64("last_poll_at_ts"),
  lastSuccessAtTs: int64("last_success_at_ts"),
  lastError: text("last_error"),
  lastErrorAtTs: int64("last_error_at_ts"),
  consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  lastSeen: integer("last_seen").notNull().default(0),
  lastNew: integer("last_new").notNull().default(0),
  totalSeen: int64("total_seen").notNull().default(0),
  totalNew: int64("total_new").notNull().default(0),
  nextRunAtTs: int64("next_run_at_ts"),
});

export const oauthStates = pgTable("oauth_states", {
  state: text("state").primaryKey(),
  provider: text("provider").notNull(),
  expiresAtTs: int64("expires_at_ts").notNull(),
});

export const oauthTokens = pgTable("oauth_tokens", {
  provider: text("provider").primaryKey(),
  ciphertext: text("ciphertext").notNull(),
  updatedAtTs: int64("updated_at_ts").notNull(),
  leaseUntilTs: int64("lease_until_ts"),
});
