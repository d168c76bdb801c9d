/**
 * PostgreSQL twin of src/db/schema/accounts.ts (owned by modules/accounts): same tables, columns,
 * indexes and checks; see ./columns.ts for how the types map.
 */
import { sql } from "drizzle-orm";
import { pgTable, text, integer, boolean, doublePrecision, index, uniqueIndex, primaryKey, check } from "drizzle-orm/pg-core";
import { ACCOUNT_KINDS, MEMBER_ROLES } from "../enums";
import { int64, jsonText } from "./columns";

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ACCOUNT_KINDS }).notNull(),
    creditsBalance: integer("credits_balance").notNull().default(0),
    rateLimitMultiplier: doublePrecision("rate_limit_multiplier").notNull().default(1),
    rateLimitOverrides: jsonText("rate_limit_overrides").$type<Record<string, number>>(),
    aiScoringAllowance: integer("ai_scoring_allowance"),
    creditsHeld: integer("credits_held").notNull().default(0),
    marketplaceDriver: text("marketplace_driver"),
    maxFeeds: integer("max_feeds"),
    maxApiKeys: integer("max_api_keys"),
    maxPromptChars: integer("max_prompt_chars"),
    /** Whether members with the bidder role may send without an approval (members/permissions.ts). */
    biddersMaySend: boolean("bidders_may_send").notNull().default(false),
    createdAtTs: int64("created_at_ts").notNull(),
  },
  (t) => [check("accounts_credits_nonneg", sql`${t.creditsBalance} >= 0`)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    label: text("label"),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    createdAtTs: int64("created_at_ts").notNull(),
    lastUsedAtTs: int64("last_used_at_ts"),
    revokedAtTs: int64("revoked_at_ts"),
    /** The member who created the key (null: made by the CLI or /admin, acting as the account's owner); a key never acts above that member's current role. */
    memberId: text("member_id"),
    role: text("role", { enum: MEMBER_ROLES }).notNull().default("owner"),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.hash), index("api_keys_account_idx").on(t.accountId)],
);

export const creditLedger = pgTable(
  "credit_ledger",
  {
    id: int64("id").primaryKey().generatedByDefaultAsIdentity(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    delta: integer("delta").notNull(),
    reason: text("reason").notNull(),
    ref: text("ref"),
    note: text("note"),
    createdAtTs: int64("created_at_ts").notNull(),
  },
  (t) => [uniqueIndex("credit_ledger_reason_ref_uq").on(t.reason, t.ref), index("credit_ledger_account_idx").on(t.accountId)],
);

export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    keyId: text("key_id").notNull(),
    bucket: text("bucket").notNull(),
    windowStartTs: int64("window_start_ts").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.bucket, t.windowStartTs] })],
);

export const aiUsage = pgTable(
  "ai_usage",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    month: text("month").notNull(),
    purpose: text("purpose").notNull(),
    calls: int64("calls").notNull().default(0),
    promptTokens: int64("prompt_tokens").notNull().default(0),
    completionTokens: int64("completion_tokens").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.month, t.purpose] })],
);
