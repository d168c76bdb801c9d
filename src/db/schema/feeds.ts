/**
 * Saved searches and the jobs that entered them (owned by modules/feeds).
 */
import { sqliteTable, text, integer, real, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { jobs } from "./jobs";
import { channels } from "./channels";
import { COUNTRY_FILTER_MODES, EMAIL_FOUND_FILTERS, US_ONLY_MODES, APPLY_MODES, OVER_BUDGET_ACTIONS } from "../enums";

/** A saved search plus an AI scoring profile. List fields are JSON arrays; null numeric filters are off. */
export const feeds = sqliteTable(
  "feeds",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    profilePrompt: text("profile_prompt").notNull().default(""),
    minScore: real("min_score").notNull(),
    includes: text("includes", { mode: "json" }).notNull().$type<string[]>(),
    excludes: text("excludes", { mode: "json" }).notNull().$type<string[]>(),
    minHourlyRate: real("min_hourly_rate"),
    minFixedPrice: real("min_fixed_price"),
    clientMinSpent: real("client_min_spent"),
    countryFilterMode: text("country_filter_mode", { enum: COUNTRY_FILTER_MODES }).notNull().default("exclude"),
    excludedCountries: text("excluded_countries", { mode: "json" }).notNull().$type<string[]>(),
    includedCountries: text("included_countries", { mode: "json" }).notNull().$type<string[]>(),
    /** null = every platform. */
    platforms: text("platforms", { mode: "json" }).$type<string[]>(),
    proposalGenerationPrompt: text("proposal_generation_prompt"),
    notificationsMuted: integer("notifications_muted", { mode: "boolean" }).notNull().default(false),
    /** Opt-in: proposal.viewed / replied / hired events for applications to this feed's jobs (applications/funnel.ts). */
    outcomeEvents: integer("outcome_events", { mode: "boolean" }).notNull().default(false),
    /**
     * What the feed does with each signal a job carries (issue 45; modules/jobs/signals.ts): drop keeps the job out
     * (recorded in filtered_jobs), warn lets it in with its flags. A signal not named is a warning.
     */
    signalRules: text("signal_rules", { mode: "json" }).notNull().default({}).$type<Record<string, "drop" | "warn">>(),
    /** A favoured client's jobs that pass the filters enter the feed whatever their score (issue 45). */
    alertFavoured: integer("alert_favoured", { mode: "boolean" }).notNull().default(true),
    /**
     * The feed's apply mode and its thresholds (modules/automation; set on the dashboard and /api/v1/automation/feeds,
     * never through the spec's feed endpoints): null thresholds fall back to the feed's minScore and no value floor.
     */
    applyMode: text("apply_mode", { enum: APPLY_MODES }).notNull().default("alert"),
    autoMinScore: real("auto_min_score"),
    autoMinExpectedUsd: real("auto_min_expected_usd"),
    /** The freelancer (and profile) the feed's jobs are drafted and sent as (routing; null: the account's default). */
    freelancerId: text("freelancer_id"),
    profileId: text("profile_id"),
    overBudget: text("over_budget", { enum: OVER_BUDGET_ACTIONS }).notNull().default("skip"),
    emailFound: text("email_found", { enum: EMAIL_FOUND_FILTERS }).notNull().default("all"),
    jobTypes: text("job_types", { mode: "json" }).notNull().$type<string[]>(),
    usOnlyMode: text("us_only_mode", { enum: US_ONLY_MODES }).notNull().default("all"),
    paymentVerifiedOnly: integer("payment_verified_only", { mode: "boolean" }).notNull().default(false),
    clientMinRating: real("client_min_rating"),
    clientMinReviews: integer("client_min_reviews"),
    webhookUrl: text("webhook_url"),
    /** Standard Webhooks signing secret (whsec_…); the previous one still signs until webhookPreviousUntilTs after a rotation. */
    webhookSecret: text("webhook_secret"),
    webhookPreviousSecret: text("webhook_previous_secret"),
    webhookPreviousUntilTs: integer("webhook_previous_until_ts"),
    /** Since when every delivery has failed (cleared by a success); past the limit the endpoint is disabled. */
    webhookFailingSinceTs: integer("webhook_failing_since_ts"),
    webhookDisabledAtTs: integer("webhook_disabled_at_ts"),
    webhookDisabledReason: text("webhook_disabled_reason"),
    /**
     * PostgreSQL only (several nodes): the node delivering this feed's next event holds the feed until then,
     * so one feed's events go out one at a time and in order cluster-wide; null when no node holds it.
     */
    webhookLeaseUntilTs: integer("webhook_lease_until_ts"),
    createdAtTs: integer("created_at_ts").notNull(),
    updatedAtTs: integer("updated_at_ts").notNull(),
  },
  (t) => [index("feeds_account_idx").on(t.accountId)],
);

/** A job that entered a feed: the "processed job" whose UUID the API accepts as jobId. */
export const feedJobs = sqliteTable(
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
    matchingScore: real("matching_score").notNull(),
    /** default (empty prompt), ai, local (no model, allowance spent, or the model failed) or cache. */
    scoreSource: text("score_source").notNull(),
    scoreReason: text("score_reason"),
    matchedAtTs: integer("matched_at_ts").notNull(),
    read: integer("read", { mode: "boolean" }).notNull().default(false),
    starredAtTs: integer("starred_at_ts"),
    /** When the account dismissed the entry in the dashboard's inbox ("not interested"); it then leaves the inbox. */
    dismissedAtTs: integer("dismissed_at_ts"),
  },
  // Two indexes only (each slows every insert, and a job enters many feeds; docs/performance.md, 'Why the code is as it is'): one row per
  // (job, feed), which also finds a job's matches across feeds; and a feed's entries by time.
  (t) => [uniqueIndex("feed_jobs_job_feed_uq").on(t.jobCiphertext, t.feedId), index("feed_jobs_feed_matched_idx").on(t.feedId, t.matchedAtTs)],
);

/**
 * Jobs that passed a feed's filters but were kept out by the account's client list or one of the feed's signal
 * rules (issue 45): the "filtered out" view, with the reason. One row per (feed, job); the feed's deletion
 * removes them, and retention prunes them with the feed's entries.
 */
export const filteredJobs = sqliteTable(
  "filtered_jobs",
  {
    feedId: text("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    accountId: text("account_id").notNull(),
    jobCiphertext: text("job_ciphertext").notNull(),
    /** Which rule: "blocked-client" or "signal:<id>" (repost, ghost, scam, low-budget). */
    filter: text("filter").notNull(),
    reason: text("reason").notNull(),
    atTs: integer("at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.feedId, t.jobCiphertext] }), index("filtered_jobs_account_at_idx").on(t.accountId, t.atTs)],
);

/**
 * The notification channels a feed sends its matches to, besides its webhook (owned by modules/feeds).
 * Deleting the feed or the channel removes the row.
 */
export const feedChannels = sqliteTable(
  "feed_channels",
  {
    feedId: text("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    /** Where the channel stands in the feed's channelIds, as the client gave them. */
    position: integer("position").notNull(),
  },
  (t) => [primaryKey({ columns: [t.feedId, t.channelId] }), index("feed_channels_channel_idx").on(t.channelId)],
);
