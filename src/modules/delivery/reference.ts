/**
 * The requests jobpilot sends to a feed's webhookUrl, described as OpenAPI 3.1 `webhooks`, so a
 * receiver can generate its types from /docs/json as a client does. One entry per event type;
 * both carry the one payload schema (feeds/outbox-payload.ts) with `type` fixed.
 */
import type { OpenAPIV3_1 } from "openapi-types";
import { signatureHeaders } from "../../http/openapi-document";
import { JOB_MATCHED_EVENT, WEBHOOK_TEST_EVENT } from "../feeds/admit";
import { WebhookPayloadSchema } from "../feeds/outbox-payload";

function event(type: string, operationId: string, summary: string, description: string): OpenAPIV3_1.PathItemObject {
  return {
    post: {
      operationId,
      tags: ["Webhooks"],
      summary,
      description:
        `${description} POSTed to the feed's webhookUrl, one job per request, signed the Standard Webhooks way with the feed's secret. ` +
        "Answer at once and work afterwards: only the status counts.",
      security: [],
      parameters: signatureHeaders,
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { allOf: [{ $ref: "#/components/schemas/WebhookPayload" }, { type: "object", properties: { type: { const: type } } }] },
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
  schemas: { WebhookPayload: WebhookPayloadSchema as unknown as OpenAPIV3_1.SchemaObject },
  webhooks: {
    jobMatched: event(JOB_MATCHED_EVENT, "jobMatched", "A new job entered a feed (job.matched)", "Sent once per job and feed, in match order per feed."),
    webhookTest: event(
      WEBHOOK_TEST_EVENT,
      "webhookTest",
      "A test event (webhook.test)",
      "Sent when the webhook URL is saved and on POST /api/v1/feeds/{feedId}/webhook/test, carrying an archived sample job; do not apply to it.",
    ),
  } satisfies Record<string, OpenAPIV3_1.PathItemObject>,
};
