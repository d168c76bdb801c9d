import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy, type RoutePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses, literalUnion, pageQuery } from "../../http/schemas";
import { DELIVERY_STATUSES } from "../feeds/admit";
import { listDeliveries, retryDelivery } from "./service";

const DeliveryStatus = literalUnion(DELIVERY_STATUSES);

const Delivery = t.Object(
  {
    eventId: t.String(),
    type: t.String({ description: "job.matched or webhook.test" }),
    status: t.String({ description: "pending, retrying, delivered, failed, suppressed (same job within 24 h) or skipped" }),
    jobId: t.Nullable(t.String()),
    processedJobId: t.Nullable(t.String()),
    createdAt: t.Integer({ description: "Unix ms" }),
    attempts: t.Array(
      t.Object({
        attempt: t.Integer(),
        at: t.Integer({ description: "Unix ms" }),
        durationMs: t.Integer(),
        statusCode: t.Nullable(t.Integer()),
        error: t.Nullable(t.String()),
      }),
    ),
    nextAttemptAt: t.Nullable(t.Integer({ description: "Unix ms" })),
    deliveredAt: t.Nullable(t.Integer({ description: "Unix ms" })),
    lastError: t.Nullable(t.String()),
  },
  { title: "WebhookDelivery" },
);

const params = t.Object({ feedId: t.String({ maxLength: 100 }) });
const tags = ["Feeds"];
/** Under /api/v1/feeds, so as the feed routes: validation errors in the spec's shape, the feeds bucket. */
const policy: RoutePolicy = { rateLimit: "feeds", validationErrors: "details" };

/** (extension) Webhook delivery history of a feed, and resending an event. */
export function webhooksRoutes(deps: Deps) {
  return new Elysia({ prefix: "/api/v1/feeds" })
    .use(authContext)
    .use(routePolicy)
    .get("/:feedId/deliveries", ({ auth, params, query }) => listDeliveries(deps, auth, params.feedId, query), {
      policy,
      params,
      query: t.Object({
        ...pageQuery(),
        status: t.Optional(DeliveryStatus),
      }),
      response: {
        200: t.Object({
          endpoint: t.Object({
            url: t.Nullable(t.String()),
            disabledAt: t.Nullable(t.Integer({ description: "Unix ms" })),
            disabledReason: t.Nullable(t.String()),
            failingSince: t.Nullable(t.Integer({ description: "Unix ms" })),
          }),
          deliveries: t.Array(Delivery),
          total: t.Integer(),
          limit: t.Integer(),
          offset: t.Integer(),
        }),
        ...errorResponses(400, 401, 404, 429, 500),
      },
      detail: {
        tags,
        operationId: "listDeliveries",
        summary: "(extension) The feed's webhook events and their attempts, newest first",
        description: "With the endpoint's state (disabled, failing since). Filter by status; page with limit and offset.",
      },
    })
    .post(
      "/:feedId/deliveries/:eventId/retry",
      async ({ auth, params, set }) => {
        const queued = await retryDelivery(deps, auth, params.feedId, params.eventId);
        set.status = 202;
        return queued;
      },
      {
        policy,
        params: t.Object({ feedId: t.String({ maxLength: 100 }), eventId: t.String({ maxLength: 100 }) }),
        response: { 202: t.Object({ queued: t.Literal(true), eventId: t.String() }), ...errorResponses(400, 401, 404, 409, 429, 500) },
        detail: {
          tags,
          operationId: "retryDelivery",
          summary: "(extension) Send an event again now",
          description: "One more attempt for a failed event, at once. 409 on a muted feed or for an event already delivered.",
        },
      },
    );
}
