import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy, type RoutePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import {
  CreateFeedBody,
  FeedDeleted,
  FeedEnvelope,
  FeedJobItem,
  FeedJobParams,
  FeedJobsQuery,
  FeedJobsResponse,
  FeedList,
  FeedParams,
  FeedPreview,
  FeedPreviewBody,
  FilteredJobsQuery,
  FilteredJobsResponse,
  PatchFeedBody,
  PatchFeedJobBody,
} from "./model";
import * as feeds from "./service";
import { listFilteredJobs } from "./filtered";
import { PREVIEW_JOBS_MAX, PREVIEW_SCORED_MAX, previewFeed } from "./preview";

const tags = ["Feeds"];
/**
 * The rules a feed's schema cannot express (service.ts checks them; each failure is one entry of
 * the 400's `details`), for the create and update descriptions.
 */
const CROSS_FIELD_RULES =
  "Rules across fields (400 naming each): with an empty profilePrompt no AI scoring runs and every match scores 5, so minScore must be 5 or lower; " +
  "an includes/excludes keyword may use * only at its end and must contain a letter or digit; excludedCountries and includedCountries take known countries " +
  "(English name, ISO-2 or ISO-3); profilePrompt and proposalGenerationPrompt are capped by the account's prompt ceiling (20,000 characters unless the operator set another); " +
  "webhookUrl must pass the SSRF check (a public http(s) address unless the operator allowed others).";

/** Validation errors in the spec's shape for feeds, and the feeds rate-limit bucket. */
const policy: RoutePolicy = { rateLimit: "feeds", validationErrors: "details" };
/** Creating, changing and deleting a feed (its webhook included) is the `feeds` permission. */
const manage: RoutePolicy = { ...policy, permission: "feeds" };
/** Marking a matched job read or starred is triage before a bid: bidders do it, viewers only look. */
const triage: RoutePolicy = { ...policy, permission: "draft" };

/** Feeds: saved searches plus an AI scoring profile, and (extension) the jobs matched into them. */
export function feedsRoutes(deps: Deps) {
  return new Elysia({ prefix: "/api/v1/feeds" })
    .use(authContext)
    .use(routePolicy)
    .get("", async ({ auth }) => ({ feeds: await feeds.listFeeds(deps, auth) }), {
      policy,
      response: { 200: FeedList, ...errorResponses(401, 429, 500) },
      detail: {
        tags,
        operationId: "listFeeds",
        summary: "List every feed on the account",
        description: "Oldest first. Webhook secrets are masked (`whsec_…abcd`).",
      },
    })
    .post(
      "",
      async ({ auth, body, set }) => {
        const feed = await feeds.createFeed(deps, auth, body);
        set.status = 201;
        return { feed };
      },
      {
        policy: manage,
        body: CreateFeedBody,
        response: { 201: FeedEnvelope, ...errorResponses(400, 401, 404, 409, 413, 415, 429, 500) },
        detail: {
          tags,
          operationId: "createFeed",
          summary: "Create a feed",
          description:
            "title and minScore are required. A feed matches only jobs first seen after it was created (no backfill). " +
            "409 when the account already has as many feeds as it may (200 unless the operator set another limit). " +
            "404 when channelIds names a channel that is not one of the account's. " +
            CROSS_FIELD_RULES,
        },
      },
    )
    .post("/preview", ({ auth, body }) => previewFeed(deps, auth, body), {
      policy: manage,
      body: FeedPreviewBody,
      response: { 200: FeedPreview, ...errorResponses(400, 401, 413, 415, 429, 500) },
      detail: {
        tags,
        operationId: "previewFeed",
        summary: "(extension) What a feed would have caught in the last 1, 7 or 30 days",
        description:
          "The feed-creation body (checked as creation checks it, the same 400s) plus days. Runs the filters, the account's client list, the signal rules and the local scorer over the jobs first seen in the window " +
          `and writes nothing: nothing enters a feed, nothing is sent, no model is called. Scored: the newest ${PREVIEW_SCORED_MAX} jobs through the filters (all with an empty prompt); listed: the newest ${PREVIEW_JOBS_MAX} matches. ` +
          "The archive is shared: these are the jobs any feed of the server could have matched.",
      },
    })
    .get("/:feedId", async ({ auth, params }) => ({ feed: await feeds.getFeed(deps, auth, params.feedId) }), {
      policy,
      params: FeedParams,
      response: { 200: FeedEnvelope, ...errorResponses(401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "getFeed",
        summary: "Get a feed",
        description: "404 for a feed that does not exist or belongs to another account. The webhook secret is masked.",
      },
    })
    .patch("/:feedId", async ({ auth, params, body }) => ({ feed: await feeds.patchFeed(deps, auth, params.feedId, body) }), {
      policy: manage,
      params: FeedParams,
      body: PatchFeedBody,
      response: { 200: FeedEnvelope, ...errorResponses(400, 401, 404, 413, 415, 429, 500) },
      detail: {
        tags,
        operationId: "updateFeed",
        summary: "Update a feed",
        description:
          "Only the provided fields change. Off-values: null for minHourlyRate, minFixedPrice, clientMinSpent, clientMinRating, clientMinReviews; usOnlyMode all; paymentVerifiedOnly false; jobTypes []; channelIds []. A body with no updatable field is a 400; 404 also when channelIds names a channel that is not one of the account's. " +
          `${CROSS_FIELD_RULES} The minScore rule applies to the feed as it would be after the change.`,
      },
    })
    .delete("/:feedId", ({ auth, params }) => feeds.deleteFeed(deps, auth, params.feedId), {
      policy: manage,
      params: FeedParams,
      response: { 200: FeedDeleted, ...errorResponses(401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "deleteFeed",
        summary: "Delete a feed and every job matched into it",
        description: "Pending webhook deliveries of the feed are dropped. Applications made from its jobs stay.",
      },
    })
    .post("/:feedId/webhook/rotate-secret", async ({ auth, params }) => ({ feed: await feeds.rotateWebhookSecret(deps, auth, params.feedId) }), {
      policy: manage,
      params: FeedParams,
      response: { 200: FeedEnvelope, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "rotateWebhookSecret",
        summary: "(extension) Rotate the webhook signing secret",
        description:
          "Returns the feed with the new secret in full (shown once). For JOBPILOT_WEBHOOK_ROTATION_WINDOW_MS deliveries carry signatures with both secrets.",
      },
    })
    .post(
      "/:feedId/webhook/test",
      async ({ auth, params, set }) => {
        const queued = await feeds.sendTestWebhook(deps, auth, params.feedId);
        set.status = 202;
        return queued;
      },
      {
        policy: manage,
        params: FeedParams,
        response: { 202: t.Object({ queued: t.Literal(true), eventId: t.String() }), ...errorResponses(400, 401, 404, 409, 429, 500) },
        detail: {
          tags,
          operationId: "sendTestWebhook",
          summary: "(extension) Send a webhook.test event now",
          description:
            "Carries the archived sample job. 409 on a muted feed (nothing is sent while notificationsMuted is true); 400 when the feed has no webhook URL or the endpoint is disabled.",
        },
      },
    )
    .get("/:feedId/jobs", ({ auth, params, query }) => feeds.listFeedJobs(deps, auth, params.feedId, query), {
      policy,
      params: FeedParams,
      query: FeedJobsQuery,
      response: { 200: FeedJobsResponse, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "listFeedJobs",
        summary: "(extension) The feed's matched jobs, newest first",
        description: "Filters: minScore (only jobs scored at or above it), unread=true (only jobs not marked read). total counts the jobs the filters keep.",
      },
    })
    .get("/:feedId/filtered", ({ auth, params, query }) => listFilteredJobs(deps, auth, params.feedId, query), {
      policy,
      params: FeedParams,
      query: FilteredJobsQuery,
      response: { 200: FilteredJobsResponse, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "listFilteredFeedJobs",
        summary: "(extension) Jobs the feed kept out, newest first",
        description:
          "Jobs that passed the feed's filters but were kept out by the account's client list (filter blocked-client) or one of the feed's signal rules (signal:<id>), with the reason. 404 for another account's feed.",
      },
    })
    .patch("/:feedId/jobs/:processedJobId", ({ auth, params, body }) => feeds.patchFeedJob(deps, auth, params.feedId, params.processedJobId, body), {
      policy: triage,
      params: FeedJobParams,
      body: PatchFeedJobBody,
      response: { 200: FeedJobItem, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "updateFeedJob",
        summary: "(extension) Mark a matched job read/unread or starred/unstarred",
        description: "Give read, starred or both; the others stay. Answers the entry as GET …/jobs lists it.",
      },
    });
}
