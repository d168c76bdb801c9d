/**
 * The job archive and the proposal-activity tracker's watch list (owned by modules/jobs).
 */
import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, real, index } from "drizzle-orm/sqlite-core";
import { JOB_TYPES, PLATFORMS } from "../enums";

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
    /** What the job's text and its client's history signal, computed at ingest (issue 45; modules/jobs/signals.ts). */
    signals: text("signals", { mode: "json" }).$type<Record<string, unknown>[]>(),
    source: text("source").notNull(),
    document: text("document", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    firstSeenAtTs: integer("first_seen_at_ts").notNull(),
    exploredAtTs: integer("explored_at_ts").notNull(),
    updatedAtTs: integer("updated_at_ts").notNull(),
  },
  (t) => [
    // By client and posting time (the publish time, else first seen), holding what a repost's first look reads
    // (signals.ts): each client's newest few jobs come from the index alone, and the walk stops there. Lookups by
    // company alone use its first column.
    index("jobs_company_posted_idx").on(t.companyId, sql`COALESCE(${t.publishTimeTs}, ${t.firstSeenAtTs})`, t.ciphertext, t.url, t.title),
    // The feed preview reads a window newest first, ties by ciphertext, with the columns its filters read, from this
    // index alone: the rows themselves are spread over pages by their documents (docs/performance.md, "Feed preview").
    index("jobs_first_seen_idx").on(
      t.firstSeenAtTs,
      t.ciphertext,
      t.platform,
      t.jobType,
      t.hourlyMin,
      t.hourlyMax,
      t.fixedBudget,
      t.clientCountry,
      t.clientTotalSpent,
      t.paymentVerified,
      t.clientRating,
      t.clientReviews,
      t.usOnly,
      t.emailFound,
      t.companyId,
    ),
  ],
);

/**
 * The words feeds match on (title, description, skill labels), one row a job beside its archived row: the feed
 * preview scans these for 100,000 jobs in a fraction of a second, where a column of the jobs row sits after the
 * document and reading it walks the document's overflow pages (docs/performance.md, "Feed preview"). Written with
 * the job, in its transaction. A job archived before issue 45 has none; the preview then reads its document.
 */
export const jobTexts = sqliteTable(
  "job_texts",
  {
    jobCiphertext: text("job_ciphertext")
      .primaryKey()
      .references(() => jobs.ciphertext, { onDelete: "cascade" }),
    firstSeenAtTs: integer("first_seen_at_ts").notNull(),
    fields: text("fields", { mode: "json" }).notNull().$type<{ title: string; description: string; skills: string[] }>(),
  },
  (t) => [index("job_texts_first_seen_idx").on(t.firstSeenAtTs)],
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
