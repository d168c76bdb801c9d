/**
 * State of the marketplace drivers: the sandbox marketplace and the bridge's reported outcomes
 * (owned by src/marketplace).
 */
import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, real, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { PROFILE_TYPES } from "../enums";

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
    uniqueIndex("sandbox_submissions_applied_uq").on(t.freelancerId, t.jobCiphertext).where(sql`status = 'applied'`),
  ],
);

/** Outcomes the user's bridge submitter reported through the signed callback, kept so a restart can find them. */
export const bridgeOutcomes = sqliteTable("bridge_outcomes", {
  applicationId: text("application_id").primaryKey(),
  status: text("status").notNull(),
  message: text("message").notNull(),
  receivedAtTs: integer("received_at_ts").notNull(),
});
