import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy, type RoutePolicy } from "../../http/route-policy";
import { errorResponses } from "../../http/schemas";
import { authContext } from "../accounts/auth-context";
import { ChannelDeleted, ChannelEnvelope, ChannelList, ChannelParams, CreateChannelBody, PatchChannelBody } from "./http-model";
import * as channels from "./service";

const tags = ["Channels"];
/** Feed notification settings: validation errors with details, and the feeds rate-limit bucket. */
const policy: RoutePolicy = { rateLimit: "feeds", validationErrors: "details" };
/** Creating, changing and deleting a channel is the `channels` permission. */
const manage: RoutePolicy = { ...policy, permission: "channels" };

/** (extension) Notification channels: Telegram, Slack, Discord, ntfy and e-mail destinations that feeds alert. */
export function channelsRoutes(deps: Deps) {
  return new Elysia({ prefix: "/api/v1/channels" })
    .use(authContext)
    .use(routePolicy)
    .get("", async ({ auth }) => ({ channels: await channels.listChannels(deps, auth) }), {
      policy,
      response: { 200: ChannelList, ...errorResponses(401, 429, 500, 503) },
      detail: {
        tags,
        operationId: "listChannels",
        summary: "(extension) List the account's notification channels",
        description: "Oldest first, each with its settings masked, its delivery mode, and when it last delivered or why it last failed.",
      },
    })
    .post(
      "",
      async ({ auth, body, set }) => {
        const channel = await channels.createChannel(deps, auth, body);
        set.status = 201;
        return { channel };
      },
      {
        policy: manage,
        body: CreateChannelBody,
        response: { 201: ChannelEnvelope, ...errorResponses(400, 401, 409, 413, 415, 429, 500, 503) },
        detail: {
          tags,
          operationId: "createChannel",
          summary: "(extension) Add a notification channel",
          description:
            "Validated per kind (400 naming the field). Secrets are stored encrypted and never returned in full. Add the channel to feeds with their channelIds; POST /api/v1/channels/{channelId}/test sends a sample alert. " +
            "A Telegram bot token is checked with Telegram (getMe): 400 when Telegram refuses it, 503 when Telegram cannot be reached (nothing is saved), " +
            "409 when another account already holds the bot (one account per bot; several channels of one account may share it). " +
            "503 on PostgreSQL when JOBPILOT_SECRET_KEY is not set.",
        },
      },
    )
    .get("/:channelId", async ({ auth, params }) => ({ channel: await channels.getChannel(deps, auth, params.channelId) }), {
      policy,
      params: ChannelParams,
      response: { 200: ChannelEnvelope, ...errorResponses(401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "getChannel",
        summary: "(extension) Get a notification channel",
        description: "Its settings masked. Another account's channel is a 404.",
      },
    })
    .patch("/:channelId", async ({ auth, params, body }) => ({ channel: await channels.patchChannel(deps, auth, params.channelId, body) }), {
      policy: manage,
      params: ChannelParams,
      body: PatchChannelBody,
      response: { 200: ChannelEnvelope, ...errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 503) },
      detail: {
        tags,
        operationId: "updateChannel",
        summary: "(extension) Change a notification channel",
        description:
          "Only the given fields change; within config too, and a secret sent back as shown (masked) keeps the stored one. type cannot change. null clears digestEvery and quietHours. " +
          "A changed Telegram bot token is checked as on create (400, 503, 409).",
      },
    })
    .delete("/:channelId", ({ auth, params }) => channels.deleteChannel(deps, auth, params.channelId), {
      policy: manage,
      params: ChannelParams,
      response: { 200: ChannelDeleted, ...errorResponses(401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "deleteChannel",
        summary: "(extension) Delete a notification channel",
        description: "It leaves every feed's channelIds; its alerts not yet sent are skipped.",
      },
    });
}
