import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy, type RoutePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses, literalUnion, pageQuery } from "../../http/schemas";
import { DELIVERY_STATUSES } from "../feeds/admit";
import { listDeliveries, retryDelivery } from "./service";
import { ChannelParams, ChannelTestResult } from "../channels/http-model";
import { ChannelTypeSchema } from "../channels/model";
import { channelSenderOf } from "./channel-delivery";
import { sendChannelTest } from "./channel-test";

const DeliveryStatus = literalUnion(DELIVERY_STATUSES);

const Delivery = t.Object(
  {
    eventId: t.String(),
    type: t.String({ description: "job.matched, webhook.test, or (channels) channel.digest: one message carrying a window's held alerts" }),
    target: t.Union(
      [
        t.Literal("webhook", { description: "The feed's webhook URL" }),
        t.Object(
          {
            channelId: t.String(),
            type: t.Nullable(ChannelTypeSchema, { description: "null once the channel is deleted" }),
            name: t.Nullable(t.String({ description: "null once the channel is deleted" })),
          },
          { description: "One of the feed's notification channels" },
        ),
      ],
      { description: "(extension) Where the event goes: each target has its own events, attempts and de-duplication" },
    ),
    status: t.String({
      description:
        "pending, retrying, delivered, failed, suppressed (same job within 24 h) or skipped; a channel alert may also be held (for its digest, until nextAttemptAt) or in_digest (its digest is on its way; it takes the digest's outcome)",
    }),
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
    digestEventId: t.Nullable(
      t.String({
        description:
          "(extension) A channel alert held for a digest (digest mode or quiet hours): the channel.digest event that carried it, once its window closed; its attempts are the digest's. null otherwise.",
      }),
    ),
    digestSize: t.Optional(t.Integer({ description: "(extension) On a channel.digest event: how many alerts it carries." })),
  },
  { title: "WebhookDelivery" },
);

const params = t.Object({ feedId: t.String({ maxLength: 100 }) });
const tags = ["Feeds"];
/** Under /api/v1/feeds, so as the feed routes: validation errors in the spec's shape, the feeds bucket. */
const policy: RoutePolicy = { rateLimit: "feeds", validationErrors: "details" };
/** Resending an event and testing a channel send to the account's destinations: the `channels` permission. */
const deliver: RoutePolicy = { ...policy, permission: "channels" };

/** (extension) Delivery history of a feed (its webhook and channels), and resending an event. */
export function deliveriesRoutes(deps: Deps) {
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
        summary: "(extension) The feed's outbox events (webhook and channels) and their attempts, newest first",
        description:
          "Each event with its target (the webhook, or one of the feed's channels) and the endpoint's state (disabled, failing since). Filter by status; page with limit and offset. Channel alerts held for a digest, and the digests (channel.digest), are listed too.",
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
        policy: deliver,
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

/** (extension) POST /api/v1/channels/{channelId}/test: the sample alert, sent now (see channel-test.ts). */
export function channelTestRoutes(deps: Deps) {
  const sender = channelSenderOf(deps);
  return new Elysia({ prefix: "/api/v1/channels" })
    .use(authContext)
    .use(routePolicy)
    .post("/:channelId/test", ({ auth, params }) => sendChannelTest(deps, sender, auth, params.channelId), {
      policy: deliver,
      params: ChannelParams,
      response: { 200: ChannelTestResult, ...errorResponses(401, 404, 429, 500) },
      detail: {
        tags: ["Channels"],
        operationId: "testChannel",
        summary: "(extension) Send a sample alert to the channel now",
        description:
          "Renders the archived sample job as this channel's message and sends it at once; answers with the outcome (ok, the platform's status, its error). 429 with Retry-After when the platform's pace allows no message yet.",
      },
    });
}
