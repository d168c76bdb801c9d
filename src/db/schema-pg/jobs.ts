/**
 * PostgreSQL twin of src/db/schema/jobs.ts (owned by modules/jobs).
 */
import { sql } from "drizzle-orm";
import { pgTable, text, integer, doublePrecision, boolean, index } from "drizzle-orm/pg-core";
import { JOB_TYPES, PLATFORMS } from "../enums";
import { int64, jsonText } from "./columns";

export const jobs = pgTable(
  "jobs",
  {
    ciphertext: text("ciphertext").primaryKey(),
    jobUid: text("job_uid"),
    platform: text("platform", { enum: PLATFORMS }).notNull(),
    title: text("title").notNull(),
    url: text("url").notNull(),
    jobType: text("job_type", { enum: JOB_TYPES }),
    hourlyMin: doublePrecision("hourly_min"),
    hourlyMax: doublePrecision("hourly_max"),
    fixedBudget: doublePrecision("fixed_budget"),
    clientCountry: text("client_country"),
    clientTotalSpent: doublePrecision("client_total_spent"),
    paymentVerified: boolean("payment_verified"),
    clientRating: doublePrecision("client_rating"),
    clientReviews: integer("client_reviews"),
    usOnly: boolean("us_only"),
    emailFound: boolean("email_found").notNull(),
    publishTimeTs: int64("publish_time_ts"),
    companyId: text("company_id"),
    signals: jsonText("signals").$type<Record<string, unknown>[]>(),
    source: text("source").notNull(),
    document: jsonText("document").notNull().$type<Record<string, unknown>>(),
    firstSeenAtTs: int64("first_seen_at_ts").notNull(),
    exploredAtTs: int64("explored_at_ts").notNull(),
    updatedAtTs: int64("updated_at_ts").notNull(),
  },
  (t) => [
    // By client and posting time (the publish time, else first seen), holding what a repost's first look reads
    // (signals.ts): each client's newest few jobs come from the index alone, and the walk stops there. Lookups by
    // company alone use its first column.
    index("jobs_company_posted_idx").on(t.companyId, sql`COALESCE(${t.publishTimeTs}, ${t.firstSeenAtTs})`, t.ciphertext, t.url, t.title),
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

/** See src/db/schema/jobs.ts. */
export const jobTexts = pgTable(
  "job_texts",
  {
    jobCiphertext: text("job_ciphertext")
      .primaryKey()
      .references(() => jobs.ciphertext, { onDelete: "cascade" }),
    firstSeenAtTs: int64("first_seen_at_ts").notNull(),
    fields: jsonText("fields").notNull().$type<{ title: string; description: string; skills: string[] }>(),
  },
  (t) => [index("job_texts_first_seen_idx").on(t.firstSeenAtTs)],
);

export const jobTracking = pgTable(
  "job_tracking",
  {
    jobCiphertext: text("job_ciphertext")
      .primaryKey()
      .references(() => jobs.ciphertext, { onDelete: "cascade" }),
    active: boolean("active").notNull(),
    state: jsonText("state").notNull().$type<Record<string, unknown>>(),
    lastCheckedAtTs: int64("last_checked_at_ts").notNull(),
  },
  // SQLite's `active = 1`: booleans are 0/1 there.
  (t) => [index("job_tracking_due_idx").on(t.lastCheckedAtTs).where(sql`active = true`)],
);
