import { t } from "elysia";
import { APPLY_MODES, OVER_BUDGET_ACTIONS } from "../../db/enums";
import { literalUnion, pageQuery } from "../../http/schemas";
import { LIMITS, LimitsPatch, WorkingHoursBody } from "./limits";

const nullableCount = (what: string) => t.Union([t.Integer({ minimum: 0 }), t.Null()], { description: what });

export const LimitsSchema = t.Object(
  {
    proposalsPerDay: t.Integer({ minimum: 0, description: LIMITS.proposalsPerDay.what }),
    proposalsPerHour: t.Integer({ minimum: 0, description: LIMITS.proposalsPerHour.what }),
    minGapMinutes: t.Integer({ minimum: 0, description: LIMITS.minGapMinutes.what }),
    companionReadsPerHour: t.Integer({ minimum: 0, description: LIMITS.companionReadsPerHour.what }),
    connectsPerDay: nullableCount(LIMITS.connectsPerDay.what),
    connectsPerWeek: nullableCount(LIMITS.connectsPerWeek.what),
    connectsPerMonth: nullableCount(LIMITS.connectsPerMonth.what),
    lowBalanceBelow: nullableCount(LIMITS.lowBalanceBelow.what),
    lowBudgetBelow: nullableCount(LIMITS.lowBudgetBelow.what),
    similarityThreshold: t.Number({ description: LIMITS.similarityThreshold.what }),
    workingHours: t.Union([WorkingHoursBody, t.Null()], { description: LIMITS.workingHours.what }),
  },
  { title: "AutomationLimits" },
);

const PeriodUsage = t.Object({
  from: t.Number({ description: "Unix ms: the period's start on the freelancer's wall clock (working hours' time zone, else UTC)" }),
  to: t.Number({ description: "Unix ms: its end" }),
  proposals: t.Integer({ description: "Submissions the governor let go in the period that are in flight or applied" }),
  connects: t.Integer({ description: "Connects they spent (as reported, else as expected)" }),
});

export const AutomationSchema = t.Object(
  {
    freelancerId: t.Nullable(
      t.String({ description: "The freelancer the limits and usage are for; null: the account's own limits and all its freelancers' usage" }),
    ),
    limits: LimitsSchema,
    accountSet: t.Record(t.String(), t.Unknown(), { description: "What the account set; every other limit is its default" }),
    freelancerSet: t.Nullable(t.Record(t.String(), t.Unknown(), { description: "What the freelancer overrides (with freelancerId)" })),
    usage: t.Object({ today: PeriodUsage, week: PeriodUsage, month: PeriodUsage, lastHour: t.Object({ proposals: t.Integer() }) }),
    balance: t.Nullable(
      t.Object({
        available: t.Integer(),
        source: t.String({ description: "companion, sandbox or manual: who read or set it" }),
        readAt: t.Number({ description: "Unix ms" }),
      }),
    ),
  },
  { title: "Automation" },
);

export const AutomationQuery = t.Object({ freelancerId: t.Optional(t.String({ minLength: 1, maxLength: 200 })) });

export const AutomationPatch = t.Composite(
  [
    LimitsPatch,
    t.Object({
      freelancerId: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "Change this freelancer's own limits instead of the account's" })),
    }),
  ],
  {
    additionalProperties: false,
  },
);

export const ConnectsBody = t.Object(
  {
    freelancerId: t.String({ minLength: 1, maxLength: 200 }),
    available: t.Integer({ minimum: 0, maximum: 1_000_000, description: "Connects the freelancer has now" }),
  },
  { additionalProperties: false },
);

export const FeedAutomationSchema = t.Object(
  {
    feedId: t.String(),
    applyMode: literalUnion(APPLY_MODES, {
      description: "alert: notify only (default); draft: write the letter and wait for one-click approval; auto: send within the limits",
    }),
    minScore: t.Nullable(t.Number({ description: "Draft and auto only act on matches scoring at least this; null: the feed's minScore" })),
    minExpectedUsd: t.Nullable(t.Number({ description: "…and worth at least this much (expected value in USD); null: no floor" })),
    overBudget: literalUnion(OVER_BUDGET_ACTIONS, {
      description: "skip: an application over a Connects budget ends not_enough_connects; review: it waits for approval",
    }),
    freelancerId: t.Nullable(t.String({ description: "The freelancer the feed's drafts and auto-applies go out as; null: the account's primary one" })),
    profileId: t.Nullable(t.String({ description: "…and the profile (that freelancer's default unless chosen)" })),
    memberIds: t.Array(t.String(), { description: "The members the feed is assigned to: their inbox shows its jobs first" }),
  },
  { title: "FeedAutomation" },
);

export const FeedAutomationBody = t.Object(
  {
    applyMode: t.Optional(literalUnion(APPLY_MODES, { description: "Omitted: unchanged" })),
    minScore: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 100 }), t.Null()])),
    minExpectedUsd: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 1_000_000 }), t.Null()])),
    overBudget: t.Optional(literalUnion(OVER_BUDGET_ACTIONS)),
    freelancerId: t.Optional(
      t.Union([t.String({ minLength: 1, maxLength: 200 }), t.Null()], {
        description: "Route the feed's jobs to this freelancer; null: back to the primary one",
      }),
    ),
    profileId: t.Optional(
      t.Union([t.String({ minLength: 1, maxLength: 200 }), t.Null()], { description: "…as this profile of theirs (default: their default profile)" }),
    ),
    memberIds: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 100, description: "Assign the feed to exactly these members" })),
  },
  { additionalProperties: false },
);

export const FeedParams = t.Object({ feedId: t.String({ minLength: 1, maxLength: 200 }) });

export const AuditQuery = t.Object({
  ...pageQuery(),
  freelancerId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  memberId: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "Only what this member did" })),
});

export const AuditSchema = t.Object(
  {
    entries: t.Array(
      t.Object({
        at: t.Number({ description: "Unix ms" }),
        action: t.String({
          description:
            "submit, wait, hold, refuse, queue, draft, skip, approve, discard, limits, feed_mode, and the team's: sign_in, member.invited, key.created, …",
        }),
        actor: t.Nullable(t.String({ description: "Who did it, as they were named then (a member, an API key); null: automation" })),
        memberId: t.Nullable(t.String()),
        keyId: t.Nullable(t.String()),
        freelancerId: t.Nullable(t.String()),
        applicationId: t.Nullable(t.String()),
        rule: t.String({ description: "The rule that allowed or stopped it, in words" }),
        detail: t.String(),
      }),
    ),
    total: t.Integer(),
    limit: t.Integer(),
    offset: t.Integer(),
  },
  { title: "AutomationAudit" },
);
