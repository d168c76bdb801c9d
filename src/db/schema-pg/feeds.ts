/**
 * PostgreSQL twin of src/db/schema/feeds.ts (owned by modules/feeds).
 */
import { sql } from "drizzle-orm";
import { pgTable, text, integer, doublePrecision, boolean, index, uniqueIndex, primaryKey } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { jobs } from "./jobs";
import { channels } from "./channels";
import { COUNTRY_FILTER_MODES, EMAIL_FOUND_FILTERS, US_ONLY_MODES, APPLY_MODES, OVER_BUDGET_ACTIONS } from "../enums";
import { int64, jsonText } from "./columns";

export const feeds = pgTable(
  "feeds",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    profilePrompt: text("profile_prompt").notNull().default(""),
    minScore: doublePrecision("min_score").notNull(),
    includes: jsonText("includes").notNull().$type<string[]>(),
    excludes: jsonText("excludes").notNull().$type<string[]>(),
    minHourlyRate: doublePrecision("min_hourly_rate"),
    minFixedPrice: doublePrecision("min_fixed_price"),
    clientMinSpent: doublePrecision("client_min_spent"),
    countryFilterMode: text("country_filter_mode", { enum: COUNTRY_FILTER_MODES }).notNull().default("exclude"),
    excludedCountries: jsonText("excluded_countries").notNull().$type<string[]>(),
    includedCountries: jsonText("included_countries").notNull().$type<string[]>(),
    platforms: jsonText("platforms").$type<string[]>(),
    proposalGenerationPrompt: text("proposal_generation_prompt"),
    notificationsMuted: boolean("notifications_muted").notNull().default(false),
    /** Opt-in: proposal.viewed / replied / hired events for applications to this feed's jobs (applications/funnel.ts). */
    outcomeEvents: boolean("outcome_events").notNull().default(false),
    signalRules: jsonText("signal_rules").notNull().default(sql`'{}'`).$type<Record<string, "drop" | "warn">>(),
    alertFavoured: boolean("alert_favoured").notNull().default(true),
    /**
     * The feed's apply mode and its thresholds (modules/automation; set on the dashboard and /api/v1/automation/feeds,
     * never through the spec's feed endpoints): null thresholds fall back to the feed's minScore and no value floor.
     */
    applyMode: text("apply_mode", { enum: APPLY_MODES }).notNull().default("alert"),
    autoMinScore: doublePrecision("auto_min_score"),
    autoMinExpectedUsd: doublePrecision("auto_min_expected_usd"),
    /** The freelancer (and profile) the feed's jobs are drafted and sent as (routing; null: the account's default). */
    freelancerId: text("freelancer_id"),
    profileId: text("profile_id"),
    overBudget: text("over_budget", { enum: OVER_BUDGET_ACTIONS }).notNull().default("skip"),
    emailFound: text("email_found", { enum: EMAIL_FOUND_FILTERS }).notNull().default("all"),
    jobTypes: jsonText("job_types").notNull().$type<string[]>(),
    usOnlyMode: text("us_only_mode", { enum: US_ONLY_MODES }).notNull().default("all"),
    paymentVerifiedOnly: boolean("payment_verified_only").notNull().default(false),
    clientMinRating: doublePrecision("client_min_rating"),
    clientMinReviews: integer("client_min_reviews"),
    webhookUrl: text("webhook_url"),
    webhookSecret: text("webhook_secret"),
    webhookPreviousSecret: text("webhook_previous_secret"),
    webhookPreviousUntilTs: int64("webhook_previous_until_ts"),
    webhookFailingSinceTs: int64("webhook_failing_since_ts"),
    webhookDisabledAtTs: int64("webhook_disabled_at_ts"),
    webhookDisabledReason: text("webhook_disabled_reason"),
    webhookLeaseUntilTs: int64("webhook_lease_until_ts"),
    createdAtTs: int64("created_at_ts").notNull(),
    updatedAtTs: int64("updated_at_ts").notNull(),
  },
  (t) => [index("feeds_account_idx").on(t.accountId)],
);

export const feedJobs = pgTable(
  "feed_jobs",
  {
    id: text("id").primaryKey(),
    feedId: text("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    accountId: text("account_id").notNull(),
    jobCiphertext: text("job_ciphertext")
      .notNull()
      .references(() => jobs.ciphertext),
    matchingScore: doublePrecision("matching_score").notNull(),
    scoreSource: text("score_source").notNull(),
    scoreReason: text("score_reason"),
    matchedAtTs: int64("matched_at_ts").notNull(),
    read: boolean("read").notNull().default(false),
    starredAtTs: int64("starred_at_ts"),
    dismissedAtTs: int64("dismissed_at_ts"),
  },
  (t) => [uniqueIndex("feed_jobs_job_feed_uq").on(t.jobCiphertext, t.feedId), index("feed_jobs_feed_matched_idx").on(t.feedId, t.matchedAtTs)],
);

export const filteredJobs = pgTable(
  "filtered_jobs",
  {
    feedId: text("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    accountId: text("account_id").notNull(),
    jobCiphertext: text("job_ciphertext").notNull(),
    filter: text("filter").notNull(),
    reason: text("reason").notNull(),
    atTs: int64("at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.feedId, t.jobCiphertext] }), index("filtered_jobs_account_at_idx").on(t.accountId, t.atTs)],
);
export const feedChannels = pgTable(
  "feed_channels",
  {
    feedId: text("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
  },
  (t) => [primaryKey({ columns: [t.feedId, t.channelId] }), index("feed_channels_channel_idx").on(t.channelId)],
);
