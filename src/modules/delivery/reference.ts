/**
 * The requests jobpilot sends to a feed's webhookUrl, described as OpenAPI 3.1 `webhooks`, so a
 * receiver can generate its types from /docs/json as a client does. One entry per event type; a job's
 * events carry WebhookPayload and a proposal's OutcomePayload (feeds/outbox-payload.ts), with `type` fixed.
 */
import type { OpenAPIV3_1 } from "openapi-types";
import { signatureHeaders } from "../../http/openapi-document";
import {
  APPLICATION_HELD_EVENT,
  BUDGET_LOW_EVENT,
  CONNECTS_LOW_EVENT,
  JOB_MATCHED_EVENT,
  PROPOSAL_HIRED_EVENT,
  PROPOSAL_REPLIED_EVENT,
  PROPOSAL_VIEWED_EVENT,
  WEBHOOK_TEST_EVENT,
} from "../feeds/admit";
import { OutcomePayloadSchema, WebhookPayloadSchema } from "../feeds/outbox-payload";
import { BudgetLowPayloadSchema, ConnectsLowPayloadSchema, HeldPayloadSchema } from "../feeds/outbox-payload-automation";

function event(
  type: string,
  operationId: string,
  summary: string,
  description: string,
  schema: "WebhookPayload" | "OutcomePayload" | "ConnectsLowPayload" | "BudgetLowPayload" | "HeldPayload" = "WebhookPayload",
): OpenAPIV3_1.PathItemObject {
  return {
    post: {
      operationId,
      tags: ["Webhooks"],
      summary,
      description:
        `${description} POSTed to the feed's webhookUrl, one event per request, signed the Standard Webhooks way with the feed's secret. ` +
        "Answer at once and work afterwards: only the status counts.",
      security: [],
      parameters: signatureHeaders,
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { allOf: [{ $ref: `#/components/schemas/${schema}` }, { type: "object", properties: { type: { const: type } } }] },
          },
        },
      },
      responses: {
        "2XX": { description: `Delivered: any 2xx within JOBPILOT_WEBHOOK_TIMEOUT_MS (10 s by default). The body is ignored.` },
        "429": {
          description: "Retried no sooner than its Retry-After (seconds, honoured within one to two times the scheduled delay)",
          headers: { "Retry-After": { description: "Seconds to wait", schema: { type: "integer", minimum: 0 } } },
        },
        default: {
          description:
            "Anything else (another status, a redirect, a timeout, a refused connection) is a failed attempt, retried on JOBPILOT_WEBHOOK_RETRY_SCHEDULE (30 s, 2 min, 10 min), with the same webhook-id.",
        },
      },
    },
  };
}

/** What app.ts hands the API reference: the payload schema and one webhook per event type. */
export const webhookReference = {
  schemas: {
    WebhookPayload: WebhookPayloadSchema as unknown as OpenAPIV3_1.SchemaObject,
    OutcomePayload: OutcomePayloadSchema as unknown as OpenAPIV3_1.SchemaObject,
    ConnectsLowPayload: ConnectsLowPayloadSchema as unknown as OpenAPIV3_1.SchemaObject,
    BudgetLowPayload: BudgetLowPayloadSchema as unknown as OpenAPIV3_1.SchemaObject,
    HeldPayload: HeldPayloadSchema as unknown as OpenAPIV3_1.SchemaObject,
  },
  webhooks: {
    jobMatched: event(JOB_MATCHED_EVENT, "jobMatched", "A new job entered a feed (job.matched)", "Sent once per job and feed, in match order per feed."),
    webhookTest: event(
      WEBHOOK_TEST_EVENT,
      "webhookTest",
      "A test event (webhook.test)",
      "Sent when the webhook URL is saved and on POST /api/v1/feeds/{feedId}/webhook/test, carrying an archived sample job; do not apply to it.",
    ),
    ...outcomeEvents(),
    ...automationEvents(),
  } satisfies Record<string, OpenAPIV3_1.PathItemObject>,
};

/** The three outcome events: opt-in per feed (outcomeEvents), once per proposal, stage and feed. */
function outcomeEvents(): Record<string, OpenAPIV3_1.PathItemObject> {
  const optIn =
    "Only to feeds with outcomeEvents: true that are not muted: the feed the job was applied from, else the account's feeds that hold the job. Sent once per proposal and feed, written in the same transaction as the stage; see docs/outcomes.md.";
  return {
    proposalViewed: event(
      PROPOSAL_VIEWED_EVENT,
      "proposalViewed",
      "The client viewed a proposal (proposal.viewed)",
      `The engagement sync saw the client open it. ${optIn}`,
      "OutcomePayload",
    ),
    proposalReplied: event(
      PROPOSAL_REPLIED_EVENT,
      "proposalReplied",
      "The client replied to a proposal (proposal.replied)",
      `The engagement sync saw a reply, or you recorded one (or a later stage). ${optIn}`,
      "OutcomePayload",
    ),
    proposalHired: event(
      PROPOSAL_HIRED_EVENT,
      "proposalHired",
      "A proposal led to a hire (proposal.hired)",
      `A driver reported the hire, or you recorded it (POST /api/v1/applications/{queueId}/outcome); application.valueUsd carries the value. ${optIn}`,
      "OutcomePayload",
    ),
  };
}

/** The automation events: to feeds in draft or auto mode (alerts) or the held application's feed; see docs/automation.md. */
function automationEvents(): Record<string, OpenAPIV3_1.PathItemObject> {
  const alertFeeds =
    "Carried by the feed of the application whose submission spent the Connects, else by every feed of the account in draft or auto mode; never by a muted feed.";
  return {
    connectsLow: event(
      CONNECTS_LOW_EVENT,
      "connectsLow",
      "A freelancer's Connects ran low (connects.low)",
      `Their available Connects fell under lowBalanceBelow (PATCH /api/v1/automation). Sent once, then again only after the balance was back at or above the threshold. ${alertFeeds}`,
      "ConnectsLowPayload",
    ),
    budgetLow: event(
      BUDGET_LOW_EVENT,
      "budgetLow",
      "A Connects budget is nearly spent (budget.low)",
      `A daily, weekly or monthly Connects budget (the account's or a freelancer's) has less than lowBudgetBelow left. Sent once per budget and period. ${alertFeeds}`,
      "BudgetLowPayload",
    ),
    applicationHeld: event(
      APPLICATION_HELD_EVENT,
      "applicationHeld",
      "An application waits for your approval (application.held)",
      "A feed's draft mode wrote it, or the governor held it (a letter too like one sent, a Connects budget). Written in the transaction that holds it, to the application's feed (else the account's feeds that hold the job), unless muted. Not sent when it was approved or discarded before its event went.",
      "HeldPayload",
    ),
  };
}
