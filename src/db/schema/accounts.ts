/**
 * Accounts and what hangs on them: API keys, the credit balance and its ledger, rate-limit
 * counts and model usage (owned by modules/accounts).
 */
import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, real, index, uniqueIndex, primaryKey, check } from "drizzle-orm/sqlite-core";
import { ACCOUNT_KINDS, MEMBER_ROLES } from "../enums";

/** An account owns keys, credits, feeds and applications. All times are Unix ms. */
export const accounts = sqliteTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ACCOUNT_KINDS }).notNull(),
    creditsBalance: integer("credits_balance").notNull().default(0),
    /** Multiplies every rate limit of the account's keys ("higher limits granted case by case"). */
    rateLimitMultiplier: real("rate_limit_multiplier").notNull().default(1),
    /** Exact per-window limits that win over table × multiplier, e.g. {"apply.minute": 120}. */
    rateLimitOverrides: text("rate_limit_overrides", { mode: "json" }).$type<Record<string, number>>(),
    /** AI scoring calls allowed per calendar month (UTC); null = unlimited. Past it the local scorer scores. */
    aiScoringAllowance: integer("ai_scoring_allowance"),
    /**
     * Credits held by applications in flight: available = credits_balance - credits_held. A hold
     * becomes a charge (balance and held both down) only when the marketplace reports success.
     */
    creditsHeld: integer("credits_held").notNull().default(0),
    /** The marketplace driver this account applies through; null = JOBPILOT_MARKETPLACE_DRIVER. */
    marketplaceDriver: text("marketplace_driver"),
    /** Ceilings of this account; null = the server's default (JOBPILOT_MAX_FEEDS_PER_ACCOUNT, …). */
    maxFeeds: integer("max_feeds"),
    maxApiKeys: integer("max_api_keys"),
    maxPromptChars: integer("max_prompt_chars"),
    /** Whether members with the bidder role may send without an approval (members/permissions.ts). */
    biddersMaySend: integer("bidders_may_send", { mode: "boolean" }).notNull().default(false),
    createdAtTs: integer("created_at_ts").notNull(),
  },
  // The last line of defence against overspending: no write can leave a negative balance.
  (t) => [check("accounts_credits_nonneg", sql`${t.creditsBalance} >= 0`)],
);

/** Only the SHA-256 of a key is stored; `prefix` is what lists show to tell keys apart. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    label: text("label"),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    createdAtTs: integer("created_at_ts").notNull(),
    lastUsedAtTs: integer("last_used_at_ts"),
    revokedAtTs: integer("revoked_at_ts"),
    /** The member who created the key (null: made by the CLI or /admin, acting as the account's owner); a key never acts above that member's current role. */
    memberId: text("member_id"),
    role: text("role", { enum: MEMBER_ROLES }).notNull().default("owner"),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.hash), index("api_keys_account_idx").on(t.accountId)],
);

/**
 * Every change of a balance is a row here, written in the same transaction as
 * the balance. (reason, ref) is unique so one event can never be booked twice
 * (rows without a ref, like manual grants, are always distinct).
 */
export const creditLedger = sqliteTable(
  "credit_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    delta: integer("delta").notNull(),
    reason: text("reason").notNull(),
    ref: text("ref"),
    note: text("note"),
    createdAtTs: integer("created_at_ts").notNull(),
  },
  (t) => [uniqueIndex("credit_ledger_reason_ref_uq").on(t.reason, t.ref), index("credit_ledger_account_idx").on(t.accountId)],
);

/** Daily rate-limit counts, so a restart does not hand out a fresh day. Minute windows live in memory only. */
export const rateLimitCounters = sqliteTable(
  "rate_limit_counters",
  {
    keyId: text("key_id").notNull(),
    bucket: text("bucket").notNull(),
    windowStartTs: integer("window_start_ts").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.bucket, t.windowStartTs] })],
);

/** Model calls and tokens per account, calendar month (UTC, "2026-11") and purpose. */
export const aiUsage = sqliteTable(
  "ai_usage",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    month: text("month").notNull(),
    purpose: text("purpose").notNull(),
    calls: integer("calls").notNull().default(0),
    promptTokens: integer("prompt_tokens").notNull().default(0),
    completionTokens: integer("completion_tokens").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.month, t.purpose] })],
);
