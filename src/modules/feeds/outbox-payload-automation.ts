/**
 * The bodies of the automation events a feed's webhook receives (connects.low, budget.low, application.held),
 * and their builders. Like WebhookPayloadSchema these schemas are the single description: the OpenAPI page shows
 * them (delivery/reference.ts) and the builders return their types. The envelope (type, id, createdAt, feedId,
 * feedTitle) is job.matched's; what follows is about the account's Connects or one application, not a job.
 */
import { t } from "elysia";
import { literalUnion } from "../../http/schemas";
import { type AlertFacts, APPLICATION_HELD_EVENT, BUDGET_LOW_EVENT, CONNECTS_LOW_EVENT } from "./admit";

const IsoTime = (description: string) => t.String({ format: "date-time", description });
const EventId = t.String({ description: "Unique event id (evt_…), also sent as the `webhook-id` header; use it to drop redeliveries." });
const FeedId = t.String({ description: "The feed that carries the event (see docs/automation.md, 'Alerts', for which feeds do)." });
const FeedTitle = t.String({ description: "The feed's display name." });

const FreelancerFields = {
  freelancerId: t.String({ description: "The freelancer (GET /api/auto-apply-v2/freelancers lists them)." }),
  freelancerName: t.Nullable(t.String({ description: "The freelancer's name when jobpilot knew it at the time; null otherwise." })),
};

/** What follows the type in both Connects alerts: the event, the feed, and the submission that raised it, if one did. */
const AlertEnvelope = {
  id: EventId,
  createdAt: IsoTime("When the alert was raised (ISO 8601, UTC)."),
  feedId: FeedId,
  feedTitle: FeedTitle,
  jobId: t.Nullable(t.String({ description: "The job whose submission spent the Connects, when a submission raised the alert; null otherwise." })),
};

export const ConnectsLowPayloadSchema = t.Object(
  {
    type: t.Literal(CONNECTS_LOW_EVENT, { description: "`connects.low`: a freelancer's available Connects fell under the alert threshold." }),
    ...AlertEnvelope,
    balance: t.Object(
      {
        ...FreelancerFields,
        available: t.Integer({ description: "Connects left when the alert was raised." }),
        threshold: t.Integer({ minimum: 0, description: "The alert threshold (lowBalanceBelow): alerted when available falls under it." }),
        readAt: IsoTime("When the balance was last read (by a driver) or set (PUT /api/v1/automation/connects)."),
        estimated: t.Boolean({
          description: "true: `available` is the balance read at readAt less the Connects governed submissions spent since; false: as read.",
        }),
      },
      { description: "The balance that crossed the threshold. Sent once until the balance is back at or above the threshold." },
    ),
  },
  { title: "ConnectsLowPayload", description: "Body of the POST sent when a freelancer's Connects run low." },
);
export type ConnectsLowPayload = typeof ConnectsLowPayloadSchema.static;

export const BudgetLowPayloadSchema = t.Object(
  {
    type: t.Literal(BUDGET_LOW_EVENT, { description: "`budget.low`: a Connects budget has less than the alert threshold left." }),
    ...AlertEnvelope,
    budget: t.Object(
      {
        scope: literalUnion(["account", "freelancer"] as const, {
          description: "account: the account's budget (every freelancer counts); freelancer: that freelancer's own budget.",
        }),
        ...FreelancerFields,
        period: literalUnion(["day", "week", "month"] as const, { description: "The budget: connectsPerDay, connectsPerWeek or connectsPerMonth." }),
        periodKey: t.String({
          description: "The period it is about: 2026-12-02, 2026-12-W1 (the week starting Monday the 1st) or 2026-12; sent once per key.",
        }),
        from: IsoTime("The period's start."),
        to: IsoTime("The period's end (exclusive)."),
        cap: t.Integer({ minimum: 0, description: "The budget, in Connects." }),
        spent: t.Integer({ minimum: 0, description: "Connects spent in the period so far." }),
        left: t.Integer({ description: "cap − spent (0 or less: the budget is used up)." }),
        threshold: t.Integer({ minimum: 0, description: "The alert threshold (lowBudgetBelow): alerted when less than this is left." }),
      },
      { description: "The budget and what is left of it when the alert was raised." },
    ),
  },
  { title: "BudgetLowPayload", description: "Body of the POST sent when a Connects budget is nearly spent." },
);
export type BudgetLowPayload = typeof BudgetLowPayloadSchema.static;

/** Why an application is held, as applications/review.ts reads held_reason. */
export const HELD_KINDS = ["draft", "similar", "budget", "approval", "returned", "claims", "fill-in"] as const;

export const HeldPayloadSchema = t.Object(
  {
    type: t.Literal(APPLICATION_HELD_EVENT, { description: "`application.held`: an application waits for your approval." }),
    id: EventId,
    createdAt: IsoTime("When the application was held (ISO 8601, UTC)."),
    jobId: t.String({ description: "The job's ciphertext (same as application.job.ciphertext)." }),
    feedId: FeedId,
    feedTitle: FeedTitle,
    processedJobId: t.Nullable(t.String({ description: "The job's entry in this feed, when it has one." })),
    application: t.Object(
      {
        queueId: t.String({
          description:
            "The application; approve it with POST /api/v1/applications/{queueId}/approve, discard it with …/discard, or use the dashboard's review page.",
        }),
        job: t.Object(
          {
            ciphertext: t.String({ description: "The job's ciphertext." }),
            title: t.String({ description: "The job's title as archived." }),
            url: t.String({ description: "Link to the job posting; empty string when the source gave none." }),
          },
          { description: "The job applied to." },
        ),
        freelancerId: t.String({ description: "The freelancer it would be sent as." }),
        kind: literalUnion(HELD_KINDS, {
          description:
            "draft: the feed's draft mode wrote it; similar: the letter is too like one sent in the last 30 days; budget: sending it would break a Connects budget; approval: a member without the send permission asks for approval (returned, sent back to its drafter, sends no event); claims: the letter claims what the profile and portfolio do not back; fill-in: auto-filled screening answers need something only the freelancer knows (marked [your …]).",
        }),
        draftedBy: t.Optional(t.Nullable(t.String({ description: "The member who drafted it; null: an API key of no member, or automation." }))),
        why: t.String({ description: "Why it waits, in words (as the review list says it)." }),
        coverLetter: t.String({ description: "The letter that would be sent." }),
        reviewUrl: t.Nullable(t.String({ description: "The dashboard's review page (at JOBPILOT_PUBLIC_URL); null when the server has no public address." })),
      },
      { description: "The held application, read when the event is sent: one approved or discarded meanwhile sends no event." },
    ),
  },
  { title: "HeldPayload", description: "Body of the POST sent when an application is held for your review." },
);
export type HeldPayload = typeof HeldPayloadSchema.static;

export type AutomationPayload = ConnectsLowPayload | BudgetLowPayload | HeldPayload;

const iso = (ts: number) => {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? new Date(0).toISOString() : d.toISOString();
};

/** The payload of connects.low or budget.low from the facts the alert was raised with. Pure. */
export function buildAlertPayload(input: {
  eventId: string;
  createdAtTs: number;
  feed: { id: string; title: string };
  jobCiphertext: string | null;
  facts: AlertFacts;
}): ConnectsLowPayload | BudgetLowPayload {
  const { facts: f } = input;
  const envelope = { id: input.eventId, createdAt: iso(input.createdAtTs), feedId: input.feed.id, feedTitle: input.feed.title, jobId: input.jobCiphertext };
  if (f.kind === "balance") {
    return {
      type: CONNECTS_LOW_EVENT,
      ...envelope,
      balance: {
        freelancerId: f.freelancerId,
        freelancerName: f.freelancerName,
        available: f.available,
        threshold: f.threshold,
        readAt: iso(f.readAtTs),
        estimated: f.estimated,
      },
    };
  }
  return {
    type: BUDGET_LOW_EVENT,
    ...envelope,
    budget: {
      scope: f.scope,
      freelancerId: f.freelancerId,
      freelancerName: f.freelancerName,
      period: f.period,
      periodKey: f.periodKey,
      from: iso(f.fromTs),
      to: iso(f.toTs),
      cap: f.cap,
      spent: f.spent,
      left: f.cap - f.spent,
      threshold: f.threshold,
    },
  };
}

/** The payload of application.held. Pure. */
export function buildHeldPayload(input: {
  eventId: string;
  createdAtTs: number;
  feed: { id: string; title: string };
  processedJobId: string | null;
  application: HeldPayload["application"];
}): HeldPayload {
  return {
    type: APPLICATION_HELD_EVENT,
    id: input.eventId,
    createdAt: iso(input.createdAtTs),
    jobId: input.application.job.ciphertext,
    feedId: input.feed.id,
    feedTitle: input.feed.title,
    processedJobId: input.processedJobId,
    application: input.application,
  };
}

export function isAutomationPayload(payload: { type: string }): payload is AutomationPayload {
  return payload.type === CONNECTS_LOW_EVENT || payload.type === BUDGET_LOW_EVENT || payload.type === APPLICATION_HELD_EVENT;
}
