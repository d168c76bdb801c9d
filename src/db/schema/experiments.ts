/**
 * Randomized experiments on an account's own proposals (owned by modules/experiments).
 */
import { sqliteTable, text, integer, real, index, primaryKey, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { EXPERIMENT_ALLOCATIONS, EXPERIMENT_OBJECTIVES, EXPERIMENT_STATES } from "../enums";

/**
 * An experiment: 2–4 arms compared on one objective. `feedId` / `freelancerId` narrow it (an experiment on a feed
 * assigns the feed's jobs without being named); they are plain ids, not keys, so deleting the feed leaves the
 * results readable. `seed` makes the assignment reproducible (experiments/assign.ts).
 */
export const experiments = sqliteTable(
  "experiments",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    feedId: text("feed_id"),
    freelancerId: text("freelancer_id"),
    objective: text("objective", { enum: EXPERIMENT_OBJECTIVES }).notNull(),
    allocation: text("allocation", { enum: EXPERIMENT_ALLOCATIONS }).notNull(),
    seed: text("seed").notNull(),
    state: text("state", { enum: EXPERIMENT_STATES }).notNull(),
    createdAtTs: integer("created_at_ts").notNull(),
    updatedAtTs: integer("updated_at_ts").notNull(),
    stoppedAtTs: integer("stopped_at_ts"),
  },
  (t) => [index("experiments_account_idx").on(t.accountId, t.createdAtTs), index("experiments_feed_idx").on(t.accountId, t.feedId, t.state)],
);

/** One arm: what it varies (null = as without the experiment). Position 0 is the control. */
export const experimentArms = sqliteTable(
  "experiment_arms",
  {
    id: text("id").primaryKey(),
    experimentId: text("experiment_id")
      .notNull()
      .references(() => experiments.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    name: text("name").notNull(),
    prompt: text("prompt"),
    template: text("template"),
    bidMultiplier: real("bid_multiplier"),
    hourlyRate: real("hourly_rate"),
    fixedBid: real("fixed_bid"),
    boostBids: integer("boost_bids"),
    sendDelayMinutes: integer("send_delay_minutes"),
  },
  (t) => [uniqueIndex("experiment_arms_position_uq").on(t.experimentId, t.position)],
);

/**
 * The arm a job got, made once (at its first draft, or when it was applied to without one) and never changed, so
 * the arm analysed is the one the proposal went out with. `draftedLetter` is the letter drafted under the arm (null
 * when none was): apply compares the sent letter to it to mark a hand-edited proposal.
 */
export const experimentAssignments = sqliteTable(
  "experiment_assignments",
  {
    experimentId: text("experiment_id")
      .notNull()
      .references(() => experiments.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    jobCiphertext: text("job_ciphertext").notNull(),
    armId: text("arm_id").notNull(),
    assignedAtTs: integer("assigned_at_ts").notNull(),
    draftedLetter: text("drafted_letter"),
  },
  (t) => [
    primaryKey({ columns: [t.experimentId, t.jobCiphertext] }),
    index("experiment_assignments_arm_idx").on(t.experimentId, t.armId),
    // Every draft and apply looks up the job's assignment in any of the account's experiments.
    index("experiment_assignments_job_idx").on(t.accountId, t.jobCiphertext),
  ],
);
