import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, real, index, uniqueIndex, primaryKey, check } from "drizzle-orm/sqlite-core";
import {
  ACCOUNT_KINDS,
  APPLICATION_PHASES,
  APPLICATION_STATUSES,
  COUNTRY_FILTER_MODES,
  EMAIL_FOUND_FILTERS,
  JOB_TYPES,
  PLATFORMS,
  PROFILE_TYPES,
  TASK_STATUSES,
  US_ONLY_MODES,
} from "./enums";

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

/**
 * The job archive: the document exactly as a source gave it (the freshest
 * one), plus the normalized columns the feed filters read. Keyed by
 * ciphertext; a re-ingested job updates its row and never matches again.
 */
export const jobs = sqliteTable(
  "jobs",
  {
    ciphertext: text("ciphertext").primaryKey(),
    jobUid: text("job_uid"),
    platform: text("platform", { enum: PLATFORMS }).notNull(),
    title: text("title").notNull(),
    url: text("url").notNull(),
    jobType: text("job_type", { enum: JOB_TYPES }),
    hourlyMin: real("hourly_min"),
    hourlyMax: real("hourly_max"),
    fixedBudget: real("fixed_budget"),
    clientCountry: text("client_country"),
    clientTotalSpent: real("client_total_spent"),
    paymentVerified: integer("payment_verified", { mode: "boolean" }),
    clientRating: real("client_rating"),
    clientReviews: integer("client_reviews"),
    usOnly: integer("us_only", { mode: "boolean" }),
    emailFound: integer("email_found", { mode: "boolean" }).notNull(),
    publishTimeTs: integer("publish_time_ts"),
    companyId: text("company_id"),
    source: text("source").notNull(),
    document: text("document", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    firstSeenAtTs: integer("first_seen_at_ts").notNull(),
    exploredAtTs: integer("explored_at_ts").notNull(),
    updatedAtTs: integer("updated_at_ts").notNull(),
  },
  (t) => [index("jobs_company_idx").on(t.companyId), index("jobs_first_seen_idx").on(t.firstSeenAtTs)],
);

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
  },
  // Two indexes only (each costs ~2.5 µs per insert here, and a job enters many feeds): one row per
  // (job, feed), which also finds a job's matches across feeds; and a feed's entries by time.
  (t) => [uniqueIndex("feed_jobs_job_feed_uq").on(t.jobCiphertext, t.feedId), index("feed_jobs_feed_matched_idx").on(t.feedId, t.matchedAtTs)],
);

/** Model scores are paid for once per job and prompt text. */
export const jobScores = sqliteTable(
  "job_scores",
  {
    jobCiphertext: text("job_ciphertext").notNull(),
    promptHash: text("prompt_hash").notNull(),
    score: real("score").notNull(),
    reason: text("reason"),
    model: text("model").notNull(),
    createdAtTs: integer("created_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobCiphertext, t.promptHash] })],
);

/**
 * The notification outbox: one row per job that entered an unmuted feed,
 * written in the same transaction as the match. The webhook deliverer reads it
 * in `seq` order; deleting a feed drops its events.
 */
export const events = sqliteTable(
  "events",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    type: text("type").notNull(),
    accountId: text("account_id").notNull(),
    feedId: text("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    /** No foreign key: the feed's cascade already removes these rows, and a second one would scan events per deleted match. */
    feedJobId: text("feed_job_id"),
    jobCiphertext: text("job_ciphertext"),
    createdAtTs: integer("created_at_ts").notNull(),
    /**
     * Delivery state: pending (no attempt yet), retrying, delivered, failed (retries spent), suppressed
     * (the same job already notified this feed within 24 h), skipped (no webhook URL, or disabled), or
     * no_endpoint (written while the feed had no URL: never delivered, never indexed as due).
     */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAtTs: integer("next_attempt_at_ts"),
    deliveredAtTs: integer("delivered_at_ts"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
  },
  // Event ids are fresh UUIDv7s, unique by construction; lookups by id go through the feed.
  (t) => [
    index("events_feed_idx").on(t.feedId, t.seq),
    // Only events still to send are in this index, so delivered history costs the deliverer nothing.
    index("events_due_idx")
      .on(t.nextAttemptAtTs)
      .where(sql`status IN ('pending', 'retrying')`),
    index("events_job_feed_idx").on(t.jobCiphertext, t.feedId),
  ],
);

/**
 * Durable background work. A worker claims rows with a lease; a crash leaves
 * them `running` past their lease and they are queued again at the next start.
 * Done tasks are deleted (their effects live in the domain tables); failed
 * ones stay for inspection.
 */
export const tasks = sqliteTable(
  "tasks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    payload: text("payload", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    status: text("status", { enum: TASK_STATUSES }).notNull(),
    runAtTs: integer("run_at_ts").notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    leaseUntilTs: integer("lease_until_ts"),
    lastError: text("last_error"),
    createdAtTs: integer("created_at_ts").notNull(),
    updatedAtTs: integer("updated_at_ts").notNull(),
  },
  (t) => [index("tasks_claim_idx").on(t.status, t.runAtTs)],
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

/**
 * A proposal queued for a job (the spec's queueId is `id`). `phase` records how
 * far the submission got, so a restart knows whether the marketplace may
 * already have it: queued (not handed over), submitting (handed to the driver,
 * outcome not recorded), done. `creditHeld` is true until the hold is settled,
 * which happens exactly once, in the transaction that writes the final status.
 */
export const applications = sqliteTable(
  "applications",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    jobCiphertext: text("job_ciphertext")
      .notNull()
      .references(() => jobs.ciphertext),
    processedJobId: text("processed_job_id"),
    driver: text("driver").notNull(),
    freelancerId: text("freelancer_id").notNull(),
    profileId: text("profile_id").notNull(),
    status: text("status", { enum: APPLICATION_STATUSES }).notNull(),
    statusMessage: text("status_message"),
    errorMessage: text("error_message"),
    phase: text("phase", { enum: APPLICATION_PHASES }).notNull(),
    creditHeld: integer("credit_held", { mode: "boolean" }).notNull(),
    coverLetter: text("cover_letter").notNull(),
    hourlyRate: real("hourly_rate"),
    fixedBid: real("fixed_bid"),
    timeline: text("timeline").notNull(),
    boostBids: integer("boost_bids").notNull().default(0),
    /** Answers as submitted (explicit and auto-filled), [{position, answer}]. */
    answers: text("answers", { mode: "json" }).notNull().$type<{ position: number; answer: string }[]>(),
    autoFill: integer("auto_fill", { mode: "boolean" }).notNull(),
    /** Positions answered by the caller; the rest were auto-filled. */
    explicitPositions: text("explicit_positions", { mode: "json" }).notNull().$type<number[]>(),
    appliedAtTs: integer("applied_at_ts").notNull(),
    processedAtTs: integer("processed_at_ts"),
    loggedOutSinceTs: integer("logged_out_since_ts"),
    viewed: integer("viewed", { mode: "boolean" }).notNull().default(false),
    replied: integer("replied", { mode: "boolean" }).notNull().default(false),
    viewedAtTs: integer("viewed_at_ts"),
    /** null until the first engagement sync after applying. */
    lastCheckedAtTs: integer("last_checked_at_ts"),
  },
  (t) => [
    index("applications_account_idx").on(t.accountId, t.appliedAtTs),
    index("applications_job_idx").on(t.accountId, t.jobCiphertext),
    // The 409 rule as a constraint: one live (processing or applied) application per account and job.
    uniqueIndex("applications_live_uq")
      .on(t.accountId, t.jobCiphertext)
      .where(sql`status IN ('processing', 'applied')`),
    index("applications_status_idx").on(t.status),
  ],
);

/** The sandbox marketplace's own state: its freelancers, their profiles and Connects. */
export const sandboxFreelancers = sqliteTable(
  "sandbox_freelancers",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    name: text("name").notNull(),
    avatarUrl: text("avatar_url"),
    baseHourlyRate: real("base_hourly_rate"),
    country: text("country").notNull(),
    jobSuccessScore: integer("job_success_score").notNull(),
    connects: integer("connects").notNull(),
    createdAtTs: integer("created_at_ts").notNull(),
  },
  (t) => [index("sandbox_freelancers_account_idx").on(t.accountId)],
);

export const sandboxProfiles = sqliteTable(
  "sandbox_profiles",
  {
    profileId: text("profile_id").primaryKey(),
    freelancerId: text("freelancer_id")
      .notNull()
      .references(() => sandboxFreelancers.id, { onDelete: "cascade" }),
    type: text("type", { enum: PROFILE_TYPES }).notNull(),
    name: text("name").notNull(),
    hourlyRate: real("hourly_rate"),
    currency: text("currency").notNull(),
    skills: text("skills", { mode: "json" }).notNull().$type<string[]>(),
  },
  (t) => [index("sandbox_profiles_freelancer_idx").on(t.freelancerId)],
);

/** The sandbox's marketplace session per account; invalidated by an admin to exercise logged_out. */
export const sandboxSessions = sqliteTable("sandbox_sessions", {
  accountId: text("account_id").primaryKey(),
  valid: integer("valid", { mode: "boolean" }).notNull(),
  restorable: integer("restorable", { mode: "boolean" }).notNull(),
  updatedAtTs: integer("updated_at_ts").notNull(),
});

/** Jobs an admin closed on the sandbox marketplace. */
export const sandboxClosedJobs = sqliteTable("sandbox_closed_jobs", {
  jobCiphertext: text("job_ciphertext").primaryKey(),
  closedAtTs: integer("closed_at_ts").notNull(),
});

/** Proposals the sandbox marketplace received, keyed by our application id (so a repeat is recognised). */
export const sandboxSubmissions = sqliteTable(
  "sandbox_submissions",
  {
    applicationId: text("application_id").primaryKey(),
    accountId: text("account_id").notNull(),
    freelancerId: text("freelancer_id").notNull(),
    jobCiphertext: text("job_ciphertext").notNull(),
    status: text("status").notNull(),
    message: text("message").notNull(),
    connectsSpent: integer("connects_spent").notNull(),
    submittedAtTs: integer("submitted_at_ts").notNull(),
    viewedAtTs: integer("viewed_at_ts"),
    repliedAtTs: integer("replied_at_ts"),
  },
  (t) => [
    // A freelancer's proposal reaches a job at most once.
    uniqueIndex("sandbox_submissions_applied_uq")
      .on(t.freelancerId, t.jobCiphertext)
      .where(sql`status = 'applied'`),
  ],
);

/** Outcomes the user's bridge submitter reported through the signed callback, kept so a restart can find them. */
export const bridgeOutcomes = sqliteTable("bridge_outcomes", {
  applicationId: text("application_id").primaryKey(),
  status: text("status").notNull(),
  message: text("message").notNull(),
  receivedAtTs: integer("received_at_ts").notNull(),
});

/** Every delivery attempt of an event: when, how long, what came back. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventSeq: integer("event_seq")
      .notNull()
      .references(() => events.seq, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    startedAtTs: integer("started_at_ts").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
  },
  (t) => [index("webhook_attempts_event_idx").on(t.eventSeq)],
);

/**
 * Jobs the proposal-activity tracker watches (jobs in any feed, jobs applied to). `state` is the
 * tracker's TrackingState (counts history, checks, stop reason) as JSON.
 */
export const jobTracking = sqliteTable(
  "job_tracking",
  {
    jobCiphertext: text("job_ciphertext")
      .primaryKey()
      .references(() => jobs.ciphertext, { onDelete: "cascade" }),
    active: integer("active", { mode: "boolean" }).notNull(),
    state: text("state", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    lastCheckedAtTs: integer("last_checked_at_ts").notNull(),
  },
  (t) => [index("job_tracking_due_idx").on(t.lastCheckedAtTs).where(sql`active = 1`)],
);

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
