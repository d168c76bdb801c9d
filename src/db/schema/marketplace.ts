/**
 * State of the marketplace drivers: the sandbox marketplace and the bridge's reported outcomes
 * (owned by src/marketplace).
 */
import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, real, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { COMPANION_MODES, COMPANION_TASK_STATES, PROFILE_TYPES } from "../enums";

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
    interviewAtTs: integer("interview_at_ts"),
    hiredAtTs: integer("hired_at_ts"),
    /** The client passed on it (hired someone else or closed the job). */
    lostAtTs: integer("lost_at_ts"),
    /** The outcome model's draw at submission (sandbox/rules.ts): each stage's delay, or null when it never comes. */
    plan: text("plan", { mode: "json" }).$type<Record<string, unknown>>(),
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
  /** The Connects an applied outcome said it cost (null: not reported), kept with it so any node or a restart reads them. */
  connectsRequired: integer("connects_required"),
  boostConnects: integer("boost_connects"),
  /** The freelancer's Connects left as the report said (null: not said): the balance the submit task records, on any node. */
  connectsAvailable: integer("connects_available"),
});

/**
 * Work handed to the browser companion extension (marketplace/companion): one row per operation, claimed by
 * the extension's long poll and answered by its outcome POST. In the database, not in memory, so a restart or
 * another node on the same PostgreSQL sees what was handed out and reconciles instead of sending twice.
 */
export const companionTasks = sqliteTable(
  "companion_tasks",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    type: text("type").notNull(),
    applicationId: text("application_id"),
    body: text("body", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    state: text("state", { enum: COMPANION_TASK_STATES }).notNull(),
    createdAtTs: integer("created_at_ts").notNull(),
    claimedAtTs: integer("claimed_at_ts"),
    reviewSinceTs: integer("review_since_ts"),
    reviewUrl: text("review_url"),
    endedAtTs: integer("ended_at_ts"),
    answer: text("answer", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [index("companion_tasks_account_state_idx").on(t.accountId, t.state, t.createdAtTs), index("companion_tasks_application_idx").on(t.applicationId)],
);

/** Per account: the companion's submission mode, when it was last connected, its pacing and its last freelancers list. */
export const companions = sqliteTable("companions", {
  accountId: text("account_id").primaryKey(),
  mode: text("mode", { enum: COMPANION_MODES }).notNull(),
  autoAcceptedAtTs: integer("auto_accepted_at_ts"),
  lastSeenTs: integer("last_seen_ts"),
  lastSubmitEndedTs: integer("last_submit_ended_ts"),
  freelancers: text("freelancers", { mode: "json" }).$type<unknown[]>(),
  freelancersAtTs: integer("freelancers_at_ts"),
});
