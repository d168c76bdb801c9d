/**
 * PostgreSQL twin of src/db/schema/experiments.ts (owned by modules/experiments).
 */
import { pgTable, text, integer, doublePrecision, index, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { EXPERIMENT_ALLOCATIONS, EXPERIMENT_OBJECTIVES, EXPERIMENT_STATES } from "../enums";
import { int64 } from "./columns";

export const experiments = pgTable(
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
    createdAtTs: int64("created_at_ts").notNull(),
    updatedAtTs: int64("updated_at_ts").notNull(),
    stoppedAtTs: int64("stopped_at_ts"),
  },
  (t) => [index("experiments_account_idx").on(t.accountId, t.createdAtTs), index("experiments_feed_idx").on(t.accountId, t.feedId, t.state)],
);

export const experimentArms = pgTable(
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
    bidMultiplier: doublePrecision("bid_multiplier"),
    hourlyRate: doublePrecision("hourly_rate"),
    fixedBid: doublePrecision("fixed_bid"),
    boostBids: integer("boost_bids"),
    sendDelayMinutes: integer("send_delay_minutes"),
  },
  (t) => [uniqueIndex("experiment_arms_position_uq").on(t.experimentId, t.position)],
);

export const experimentAssignments = pgTable(
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
    assignedAtTs: int64("assigned_at_ts").notNull(),
    draftedLetter: text("drafted_letter"),
  },
  (t) => [
    primaryKey({ columns: [t.experimentId, t.jobCiphertext] }),
    index("experiment_assignments_arm_idx").on(t.experimentId, t.armId),
    // Every draft and apply looks up the job's assignment in any of the account's experiments.
    index("experiment_assignments_job_idx").on(t.accountId, t.jobCiphertext),
  ],
);
