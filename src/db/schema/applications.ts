/**
 * Proposals queued and sent (owned by modules/applications).
 */
import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, real, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { jobs } from "./jobs";
import { APPLICATION_OUTCOMES, APPLICATION_PHASES, APPLICATION_STATUSES, OUTCOME_CHECKS, APPLICATION_ORIGINS } from "../enums";

/** A task to enqueue when an application settles: its kind, and the payload (the application id is added). */
export interface SettledTask {
  kind: string;
  payload: Record<string, unknown>;
}

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
    /** The reported outcome checked against the next "my proposals" read (companion driver); null until checked. */
    outcomeCheck: text("outcome_check", { enum: OUTCOME_CHECKS }),
    outcomeCheckedAtTs: integer("outcome_checked_at_ts"),
    /**
     * A task the caller asked for when the application reaches its final status (e.g. Telegram edits the
     * alert it was applied from): enqueued in the transaction that writes the status, so it is never lost.
     */
    onSettled: text("on_settled", { mode: "json" }).$type<SettledTask>(),
    /**
     * The funnel past viewed (see applications/funnel.ts). Stage times only go from null to a time; `outcome`
     * (hired, lost, withdrawn) is a person's, or a driver's hire or loss when nothing is recorded yet; no reading overwrites it.
     */
    repliedAtTs: integer("replied_at_ts"),
    interviewAtTs: integer("interview_at_ts"),
    hiredAtTs: integer("hired_at_ts"),
    outcome: text("outcome", { enum: APPLICATION_OUTCOMES }),
    outcomeAtTs: integer("outcome_at_ts"),
    /** The contract value in USD as the person recorded it with `hired`. */
    valueUsd: real("value_usd"),
    outcomeNote: text("outcome_note"),
    /** Connects the driver reported spending, written with the final status (once); null when it cannot tell. */
    connectsRequired: integer("connects_required"),
    boostConnects: integer("boost_connects"),
    /**
     * What analytics groups by, as it stood when the application was made (feeds and their matches may be pruned or
     * deleted later): the feed the job was applied from (or the account's best-scoring feed that matched it), that
     * match's score, and the bid relative to the job's budget (hourly rate ÷ the budget's top, or fixed bid ÷ budget).
     */
    feedId: text("feed_id"),
    score: real("score"),
    bidRatio: real("bid_ratio"),
    /** The job's source and publish time, copied at apply time so analytics reads no job row (jobs hold whole documents). */
    source: text("source"),
    publishTimeTs: integer("publish_time_ts"),
    /**
     * The experiment and arm the proposal went out under (modules/experiments, the assignment made at its draft or
     * here), and whether the sent letter was edited by hand beyond the threshold of lib/text-similarity.ts (null:
     * no drafted letter to compare with). Analysis may exclude hand-edited proposals.
     */
    experimentId: text("experiment_id"),
    armId: text("arm_id"),
    editedByHand: integer("edited_by_hand", { mode: "boolean" }),
    /**
     * Who asked for it (a person, or a feed's draft / auto mode) and what the governor (modules/automation) decided:
     * when it let the submission go (what the caps and budgets count), the Connects it expected it to cost, and why
     * it holds the application for a person's review (null: not held).
     */
    origin: text("origin", { enum: APPLICATION_ORIGINS }),
    governedAtTs: integer("governed_at_ts"),
    estimatedConnects: integer("estimated_connects"),
    heldReason: text("held_reason"),
    /**
     * The people behind it (members of the account; null: an API key of no member, or automation): who drafted it,
     * who approved it, who sent it, and the approver's comment when it was sent back for changes.
     */
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
