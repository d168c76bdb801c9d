/**
 * PostgreSQL twin of src/db/schema/applications.ts (owned by modules/applications).
 */
import { sql } from "drizzle-orm";
import { pgTable, text, integer, doublePrecision, boolean, index, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { jobs } from "./jobs";
import { APPLICATION_OUTCOMES, APPLICATION_PHASES, APPLICATION_STATUSES, OUTCOME_CHECKS, APPLICATION_ORIGINS } from "../enums";
import { int64, jsonText } from "./columns";
import type { SettledTask } from "../schema/applications";

export const applications = pgTable(
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
    creditHeld: boolean("credit_held").notNull(),
    coverLetter: text("cover_letter").notNull(),
    hourlyRate: doublePrecision("hourly_rate"),
    fixedBid: doublePrecision("fixed_bid"),
    timeline: text("timeline").notNull(),
    boostBids: integer("boost_bids").notNull().default(0),
    answers: jsonText("answers").notNull().$type<{ position: number; answer: string }[]>(),
    autoFill: boolean("auto_fill").notNull(),
    explicitPositions: jsonText("explicit_positions").notNull().$type<number[]>(),
    appliedAtTs: int64("applied_at_ts").notNull(),
    processedAtTs: int64("processed_at_ts"),
    loggedOutSinceTs: int64("logged_out_since_ts"),
    viewed: boolean("viewed").notNull().default(false),
    replied: boolean("replied").notNull().default(false),
    viewedAtTs: int64("viewed_at_ts"),
    lastCheckedAtTs: int64("last_checked_at_ts"),
    outcomeCheck: text("outcome_check", { enum: OUTCOME_CHECKS }),
    outcomeCheckedAtTs: int64("outcome_checked_at_ts"),
    onSettled: jsonText("on_settled").$type<SettledTask>(),
    repliedAtTs: int64("replied_at_ts"),
    interviewAtTs: int64("interview_at_ts"),
    hiredAtTs: int64("hired_at_ts"),
    outcome: text("outcome", { enum: APPLICATION_OUTCOMES }),
    outcomeAtTs: int64("outcome_at_ts"),
    valueUsd: doublePrecision("value_usd"),
    outcomeNote: text("outcome_note"),
    connectsRequired: integer("connects_required"),
    boostConnects: integer("boost_connects"),
    /**
     * What analytics groups by, as it stood when the application was made (feeds and their matches may be pruned or
     * deleted later): the feed the job was applied from (or the account's best-scoring feed that matched it), that
     * match's score, and the bid relative to the job's budget (hourly rate ÷ the budget's top, or fixed bid ÷ budget).
     */
    feedId: text("feed_id"),
    score: doublePrecision("score"),
    bidRatio: doublePrecision("bid_ratio"),
    /** The job's source and publish time, copied at apply time so analytics reads no job row (jobs hold whole documents). */
    source: text("source"),
    publishTimeTs: int64("publish_time_ts"),
    /** The experiment and arm the proposal went out under, and whether its letter was edited by hand (see the SQLite twin). */
    experimentId: text("experiment_id"),
    armId: text("arm_id"),
    editedByHand: boolean("edited_by_hand"),
    /**
     * Who asked for it (a person, or a feed's draft / auto mode) and what the governor (modules/automation) decided:
     * when it let the submission go (what the caps and budgets count), the Connects it expected it to cost, and why
     * it holds the application for a person's review (null: not held).
     */
    origin: text("origin", { enum: APPLICATION_ORIGINS }),
    governedAtTs: int64("governed_at_ts"),
    estimatedConnects: integer("estimated_connects"),
    heldReason: text("held_reason"),
    draftedBy: text("drafted_by"),
    approvedBy: text("approved_by"),
    sentBy: text("sent_by"),
    reviewComment: text("review_comment"),
  },
  (t) => [
    index("applications_account_idx").on(t.accountId, t.appliedAtTs),
    index("applications_job_idx").on(t.accountId, t.jobCiphertext),
    // The 409 rule as a constraint: one live (processing or applied) application per account and job.
    uniqueIndex("applications_live_uq").on(t.accountId, t.jobCiphertext).where(sql`status IN ('processing', 'applied')`),
    index("applications_status_idx").on(t.status),
    // An experiment's per-arm counts (modules/experiments through applications/experiment-outcomes.ts).
    index("applications_experiment_idx").on(t.experimentId, t.armId, t.status),
    // The governor's caps and budgets: a freelancer's submissions it let go, by when.
    index("applications_governor_idx").on(t.accountId, t.freelancerId, t.governedAtTs),
    // The outcome check's scan: settled applications of a driver not checked yet, by when they settled.
    index("applications_outcome_check_idx").on(t.driver, t.outcomeCheckedAtTs, t.processedAtTs),
    // Analytics: an account's sent proposals by when they were sent, with every column the funnel reads, so
    // it never reads the rows themselves (each carries its cover letter, and the later columns sit past it).
    index("applications_analytics_idx").on(
      t.accountId,
      t.status,
      t.processedAtTs,
      t.feedId,
      t.freelancerId,
      t.score,
      t.bidRatio,
      t.boostBids,
      t.source,
      t.publishTimeTs,
      t.viewedAtTs,
      t.replied,
      t.repliedAtTs,
      t.interviewAtTs,
      t.hiredAtTs,
      t.valueUsd,
      t.connectsRequired,
      t.boostConnects,
      t.draftedBy,
      t.sentBy,
    ),
  ],
);
