import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy, type RoutePolicy } from "../../http/route-policy";
import { errorResponses } from "../../http/schemas";
import { authContext } from "../accounts/auth-context";
import { ChannelParams } from "../channels/http-model";
import { createBindingCode, listBoundChats, unbindChat } from "./binding";
import { BindingCode, BoundChatList, ChatParams } from "./model";

const tags = ["Channels"];
/** Under /api/v1/channels, as the channel routes. */
const policy: RoutePolicy = { rateLimit: "feeds", validationErrors: "details" };
/** Binding and unbinding chats changes who may act on the channel's alerts: the `channels` permission. */
const manage: RoutePolicy = { ...policy, permission: "channels" };

/** (extension) Binding Telegram chats to the account, so they may act on alerts (see modules/telegram). */
export function telegramRoutes(deps: Deps) {
  return new Elysia({ prefix: "/api/v1/channels" })
    .use(authContext)
    .use(routePolicy)
    .post(
      "/:channelId/binding-code",
      async ({ auth, params, set }) => {
        const code = await createBindingCode(deps, auth, params.channelId);
        set.status = 201;
        return code;
      },
      {
        policy: manage,
        params: ChannelParams,
        response: { 201: BindingCode, ...errorResponses(400, 401, 404, 429, 500) },
        detail: {
          tags,
          operationId: "createTelegramBindingCode",
          summary: "(extension) A one-time code that binds a Telegram chat to the account",
          description:
            "Telegram channels only (400 otherwise). Send `command` (`/start <code>`) to the channel's bot from the chat that should act on alerts " +
            "(press Draft proposal, Apply, Not interested; use /feeds, /mute, /unmute, /status). The code works once, for 15 minutes, on this channel's bot; " +
            "a new code replaces the channel's earlier one. Only the code's hash is stored.",
        },
      },
    )
    .get("/:channelId/chats", async ({ auth, params }) => ({ chats: await listBoundChats(deps, auth, params.channelId) }), {
      policy,
      params: ChannelParams,
      response: { 200: BoundChatList, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "listTelegramChats",
        summary: "(extension) The Telegram chats bound through this channel",
        description: "The chats that may act on this account's alerts (buttons and commands), oldest binding first. Telegram channels only (400 otherwise).",
      },
    })
    .delete("/:channelId/chats/:chatId", ({ auth, params }) => unbindChat(deps, auth, params.channelId, params.chatId), {
      policy: manage,
      params: ChatParams,
      response: { 200: t.Object({ deleted: t.Literal(true), chatId: t.String() }), ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "unbindTelegramChat",
        summary: "(extension) Unbind a Telegram chat",
        description: "The chat can no longer act for the account (its buttons and commands are refused); alerts still go to the channel's chat id.",
      },
    });
}
