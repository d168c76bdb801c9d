import { t } from "elysia";
import { EXPERIMENT_ALLOCATIONS, EXPERIMENT_OBJECTIVES } from "../../db/enums";
import { literalUnion } from "../../http/schemas";
import { BID_LIMITS } from "../../lib/bid-limits";

/** How far an arm may scale the bid that would otherwise go out: a tenth to ten times (the result is kept within BID_LIMITS). */
export const BID_MULTIPLIER_LIMITS = { minimum: 0.1, maximum: 10 } as const;
/** The longest send delay an arm may test: a week. */
export const MAX_SEND_DELAY_MINUTES = 10_080;

export const ArmBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100, description: "Unique within the experiment. The first arm is the control." }),
    prompt: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 20_000,
        description: "Writing instructions for this arm's letters (instead of the feed's proposalGenerationPrompt).",
      }),
    ),
    template: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 20_000,
        description: "A fixed letter for this arm instead of a written one; {{title}}, {{skills}} and {{name}} are filled from the job and the freelancer.",
      }),
    ),
    bidMultiplier: t.Optional(t.Number({ ...BID_MULTIPLIER_LIMITS, description: "Times the bid that would otherwise go out (the caller's or the default)." })),
    hourlyRate: t.Optional(t.Number({ ...BID_LIMITS.hourlyRate, description: "USD per hour for hourly jobs, instead of the caller's or the default." })),
    fixedBid: t.Optional(t.Number({ ...BID_LIMITS.fixedBid, description: "USD for fixed-price jobs, instead of the caller's or the default." })),
    boostBids: t.Optional(t.Integer({ ...BID_LIMITS.boostBids, description: "Boost Connects for this arm; 0 makes a holdout." })),
    sendDelayMinutes: t.Optional(t.Integer({ minimum: 0, maximum: MAX_SEND_DELAY_MINUTES, description: "Minutes the submission waits after apply." })),
  },
  { title: "ExperimentArmInput" },
);
export type ArmBody = typeof ArmBody.static;

export const CreateExperimentBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200 }),
    feedId: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Jobs applied to from this feed are assigned without naming the experiment." })),
    freelancerId: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "Only applications going out as this freelancer." })),
    objective: t.Optional(
      literalUnion(EXPERIMENT_OBJECTIVES, { default: "replies", description: "What the arms are compared on. Default replies (per proposal)." }),
    ),
    allocation: t.Optional(
      literalUnion(EXPERIMENT_ALLOCATIONS, { default: "equal", description: "equal (default) or thompson (more jobs to the leading arm)." }),
    ),
    arms: t.Array(ArmBody, { minItems: 2, maxItems: 4 }),
  },
  { title: "CreateExperimentRequest" },
);
export type CreateExperimentBody = typeof CreateExperimentBody.static;

export const ExperimentParams = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

/** [low, high]: an array of two in the OpenAPI document (3.0 has no tuples), a pair in TypeScript. */
const Interval = t.Unsafe<[number, number]>(t.Array(t.Number(), { minItems: 2, maxItems: 2, description: "95 % interval [low, high], as fractions" }));

export const Arm = t.Object(
  {
    id: t.String(),
    position: t.Integer({ description: "0 is the control" }),
    name: t.String(),
    prompt: t.Nullable(t.String()),
    template: t.Nullable(t.String()),
    bidMultiplier: t.Nullable(t.Number()),
    hourlyRate: t.Nullable(t.Number()),
    fixedBid: t.Nullable(t.Number()),
    boostBids: t.Nullable(t.Integer()),
    sendDelayMinutes: t.Nullable(t.Integer()),
  },
  { title: "ExperimentArm" },
);

export const Experiment = t.Object(
  {
    id: t.String(),
    name: t.String(),
    feedId: t.Nullable(t.String()),
    freelancerId: t.Nullable(t.String()),
    objective: literalUnion(EXPERIMENT_OBJECTIVES),
    allocation: literalUnion(EXPERIMENT_ALLOCATIONS),
    state: t.Union([t.Literal("running"), t.Literal("stopped")]),
    createdAt: t.Integer({ description: "Unix ms" }),
    updatedAt: t.Integer({ description: "Unix ms" }),
    stoppedAt: t.Nullable(t.Integer({ description: "Unix ms" })),
    arms: t.Array(Arm),
  },
  { title: "Experiment" },
);
export type Experiment = typeof Experiment.static;

export const ArmResult = t.Object(
  {
    ...Arm.properties,
    assigned: t.Integer({ description: "Jobs assigned to this arm (drafted or applied to)" }),
    sent: t.Integer({ description: "Proposals sent under this arm and counted (hand-edited ones left out)" }),
    trials: t.Integer({ description: "What the rate divides by: sent, or Connects spent for replies_per_connect" }),
    successes: t.Integer({ description: "Replies, interviews or hires among them, per the objective" }),
    rate: t.Nullable(t.Number({ description: "successes ÷ trials; null before any" })),
    ci95: Interval,
    excludedEdited: t.Integer({ description: "Sent proposals left out because their letter was edited by hand beyond the threshold" }),
    probabilityBest: t.Nullable(t.Number({ description: "Posterior probability that this arm has the highest rate (display only)" })),
    lift: t.Nullable(
      t.Object({
        absolute: t.Nullable(t.Number({ description: "rate − the control's rate (fraction)" })),
        ci95: t.Nullable(Interval),
        alwaysValid95: t.Nullable(Interval),
        pValue: t.Nullable(t.Number()),
      }),
    ),
  },
  { title: "ExperimentArmResult" },
);
export type ArmResult = typeof ArmResult.static;

export const ExperimentResults = t.Object(
  {
    experiment: t.Object({ ...Experiment.properties, arms: t.Array(ArmResult) }),
    decision: t.String({ description: "running, winner:<armId>, no_difference or stopped" }),
    reason: t.String(),
  },
  { title: "ExperimentResults" },
);
export type ExperimentResults = typeof ExperimentResults.static;

export const ExperimentEnvelope = t.Object({ experiment: Experiment }, { title: "ExperimentEnvelope" });
export const ExperimentList = t.Object({ experiments: t.Array(Experiment) }, { title: "ExperimentList" });

/** What generate-proposal and apply answer with when the job is in an experiment (an extension of the spec's responses). */
export const AssignedArm = t.Object(
  { id: t.String({ description: "The experiment" }), armId: t.String(), armName: t.String() },
  { title: "ExperimentAssignment" },
);
export type AssignedArm = typeof AssignedArm.static;
