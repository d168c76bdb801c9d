/**
 * PostgreSQL twin of src/db/schema/marketplace.ts (owned by src/marketplace).
 */
import { sql } from "drizzle-orm";
import { pgTable, text, integer, doublePrecision, boolean, index, uniqueIndex } from "drizzle-orm/pg-core";
import { COMPANION_MODES, COMPANION_TASK_STATES, PROFILE_TYPES } from "../enums";
import { int64, jsonText } from "./columns";

export const sandboxFreelancers = pgTable(
  "sandbox_freelancers",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    name: text("name").notNull(),
    avatarUrl: text("avatar_url"),
    baseHourlyRate: doublePrecision("base_hourly_rate"),
    country: text("country").notNull(),
    jobSuccessScore: integer("job_success_score").notNull(),
    connects: integer("connects").notNull(),
    createdAtTs: int64("created_at_ts").notNull(),
  },
  (t) => [index("sandbox_freelancers_account_idx").on(t.accountId)],
);

export const sandboxProfiles = pgTable(
  "sandbox_profiles",
  {
    profileId: text("profile_id").primaryKey(),
    freelancerId: text("freelancer_id")
      .notNull()
      .references(() => sandboxFreelancers.id, { onDelete: "cascade" }),
    type: text("type", { enum: PROFILE_TYPES }).notNull(),
    name: text("name").notNull(),
    hourlyRate: doublePrecision("hourly_rate"),
    currency: text("currency").notNull(),
    skills: jsonText("skills").notNull().$type<string[]>(),
  },
  (t) => [index("sandbox_profiles_freelancer_idx").on(t.freelancerId)],
);

export const sandboxSessions = pgTable("sandbox_sessions", {
  accountId: text("account_id").primaryKey(),
  valid: boolean("valid").notNull(),
  restorable: boolean("restorable").notNull(),
  updatedAtTs: int64("updated_at_ts").notNull(),
});

export const sandboxClosedJobs = pgTable("sandbox_closed_jobs", {
  jobCiphertext: text("job_ciphertext").primaryKey(),
  closedAtTs: int64("closed_at_ts").notNull(),
});

export const sandboxSubmissions = pgTable(
  "sandbox_submissions",
  {
    applicationId: text("application_id").primaryKey(),
    accountId: text("account_id").notNull(),
    freelancerId: text("freelancer_id").notNull(),
    jobCiphertext: text("job_ciphertext").notNull(),
    status: text("status").notNull(),
    message: text("message").notNull(),
    connectsSpent: integer("connects_spent").notNull(),
    submittedAtTs: int64("submitted_at_ts").notNull(),
    viewedAtTs: int64("viewed_at_ts"),
    repliedAtTs: int64("replied_at_ts"),
    interviewAtTs: int64("interview_at_ts"),
    hiredAtTs: int64("hired_at_ts"),
    /** The client passed on it (hired someone else or closed the job). */
    lostAtTs: int64("lost_at_ts"),
    /** The outcome model's draw at submission (sandbox/rules.ts): each stage's delay, or null when it never comes. */
    plan: jsonText("plan").$type<Record<string, unknown>>(),
  },
  (t) => [uniqueIndex("sandbox_submissions_applied_uq").on(t.freelancerId, t.jobCiphertext).where(sql`status = 'applied'`)],
);

export const bridgeOutcomes = pgTable("bridge_outcomes", {
  applicationId: text("application_id").primaryKey(),
  status: text("status").notNull(),
  message: text("message").notNull(),
  receivedAtTs: int64("received_at_ts").notNull(),
  /** The Connects an applied outcome said it cost (null: not reported), kept with it so any node or a restart reads them. */
  connectsRequired: integer("connects_required"),
  boostConnects: integer("boost_connects"),
  connectsAvailable: integer("connects_available"),
});

/**
 * Work handed to the browser companion extension (marketplace/companion): one row per operation, claimed by
 * the extension's long poll and answered by its outcome POST. In the database, not in memory, so a restart or
 * another node on the same PostgreSQL sees what was handed out and reconciles instead of sending twice.
 */
export const companionTasks = pgTable(
  "companion_tasks",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    type: text("type").notNull(),
    applicationId: text("application_id"),
    body: jsonText("body").notNull().$type<Record<string, unknown>>(),
    state: text("state", { enum: COMPANION_TASK_STATES }).notNull(),
    createdAtTs: int64("created_at_ts").notNull(),
    claimedAtTs: int64("claimed_at_ts"),
    reviewSinceTs: int64("review_since_ts"),
    reviewUrl: text("review_url"),
    endedAtTs: int64("ended_at_ts"),
    answer: jsonText("answer").$type<Record<string, unknown>>(),
  },
  (t) => [index("companion_tasks_account_state_idx").on(t.accountId, t.state, t.createdAtTs), index("companion_tasks_application_idx").on(t.applicationId)],
);

/** Per account: the companion's submission mode, when it was last connected, its pacing and its last freelancers list. */
export const companions = pgTable("companions", {
  accountId: text("account_id").primaryKey(),
  mode: text("mode", { enum: COMPANION_MODES }).notNull(),
  autoAcceptedAtTs: int64("auto_accepted_at_ts"),
  lastSeenTs: int64("last_seen_ts"),
  lastSubmitEndedTs: int64("last_submit_ended_ts"),
  freelancers: jsonText("freelancers").$type<unknown[]>(),
  freelancersAtTs: int64("freelancers_at_ts"),
});
