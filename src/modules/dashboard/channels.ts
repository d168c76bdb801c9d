import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import type { AuthContext } from "../accounts/service";
import { type Channel, CreateChannelBody, PatchChannelBody } from "../channels/http-model";
import { CHANNEL_TYPES, type ChannelType, isChannelType, listInWords } from "../channels/model";
import * as channels from "../channels/service";
import { listFeeds } from "../feeds/service";
import { channelSenderOf } from "../delivery/channel-delivery";
import { sendChannelTest } from "../delivery/channel-test";
import { listChannelDeliveries } from "../delivery/service";
import { createBindingCode, listBoundChats, unbindChat } from "../telegram/binding";
import * as views from "./channels-views";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { sessionAuth } from "./service";
import { dashboardGuard, errorAsPage, errorDetails, formValues, HIDDEN, page, redirect, type ResponseState, schemaErrors, needs } from "./http";
import { errorPage } from "./views";
// Bundled as text by `bun build --compile`, as index.ts does with htmx.
import TIME_ZONE_SOURCE from "./time-zone.browser.js" with { type: "text" };

/** What a link with an unknown kind is told: the kinds there are. */
const PICK_A_KIND = `Pick ${listInWords(CHANNEL_TYPES)}.`;

/**
 * The dashboard's notification channel pages. Every change goes through the
 * channels service (and the test through the same code as the API's test
 * route) with the session's AuthContext, so the API's rules apply; the form is
 * checked against the API's body schema first, as the feed pages do.
 */

const CHANNELS = `${DASHBOARD_PATH}/channels`;
const TIME_ZONE_SCRIPT = views.TIME_ZONE_SCRIPT;
/** Events shown on a channel's page. */
const RECENT_DELIVERIES = 20;

/**
 * Form strings → the JSON body the channels service expects. Creating: empty settings are left out (the
 * service then names the missing ones). Editing (PATCH): every setting shown is sent, a masked secret as it
 * was shown (which keeps the saved one); unticked quiet hours clear them.
 */
function toBody(type: ChannelType, v: views.ChannelFormValues, editing: boolean): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const f of views.formOf(type).fields) {
    // A box is sent only when ticked; a creating form leaves an unticked one out, an edit turns it off.
    if (f.isFlag) {
      if (v[`config_${f.name}`] !== undefined) config[f.name] = true;
      else if (editing) config[f.name] = false;
      continue;
    }
    const value = (v[`config_${f.name}`] ?? "").trim();
    if (value !== "") config[f.name] = value;
    else if (editing) config[f.name] = f.isRequired ? "" : null;
  }
  const body: Record<string, unknown> = { name: v.name ?? "", config };
  if (!editing) body.type = type;
  body.mode = v.mode ?? "instant";
  if (body.mode === "digest") body.digestEvery = v.digestEvery ?? "1h";
  else if (editing) body.digestEvery = null;
  if (v.quietHours !== undefined) body.quietHours = { from: v.quietFrom ?? "", to: v.quietTo ?? "", timeZone: (v.quietTimeZone ?? "").trim() };
  else if (editing) body.quietHours = null;
  return body;
}

export function dashboardChannelRoutes(deps: Deps) {
  const { open } = dashboardGuard(deps);
  const sender = channelSenderOf(deps);

  async function run(
    request: Request,
    set: ResponseState,
    body: unknown,
    fn: (session: DashboardSession, auth: AuthContext) => string | Promise<string>,
  ): Promise<string> {
    const session = await open(request, set, body);
    if (typeof session === "string") return session;
    try {
      return await fn(session, await sessionAuth(deps, session));
    } catch (err) {
      return errorAsPage(err, set, session, "Cannot do that", (message) =>
        message.startsWith("Channel not found") ? `${message}: this account has no such channel.` : message,
      );
    }
  }

  async function detail(auth: AuthContext, channel: Channel) {
    return {
      channel,
      feeds: await listFeeds(deps, auth),
      deliveries: await listChannelDeliveries(deps, auth, channel.id, RECENT_DELIVERIES),
      chats: channel.type === "telegram" ? await listBoundChats(deps, auth, channel.id) : [],
    };
  }

  /**
   * Saves the form through `save`; a refusal the user can mend re-shows the form with its messages (400), and so
   * does a platform that could not be reached to check a setting (503: the same form can be sent again).
   */
  async function saved(
    set: ResponseState,
    refusedWith: (errors: string[], status?: number) => string,
    invalid: string[],
    save: () => Promise<Channel>,
  ): Promise<string> {
    if (invalid.length) return refusedWith(invalid);
    let channel: Channel;
    try {
      channel = await save();
    } catch (err) {
      if (err instanceof AppError && (err.code === "bad_request" || err.code === "conflict")) return refusedWith(errorDetails(err));
      if (err instanceof AppError && err.code === "unavailable" && err.userFacing) return refusedWith([err.message], err.status);
      throw err;
    }
    return redirect(set, `${CHANNELS}/${encodeURIComponent(channel.id)}`);
  }

  return (
    new Elysia({ name: "dashboard-channels" })
      // The channel form's one script (a real file, linted, embedded in the binary): the browser's own time zone as the quiet hours' default.
      .get(
        TIME_ZONE_SCRIPT,
        ({ set }) => {
          set.headers["content-type"] = "text/javascript; charset=utf-8";
          set.headers["cache-control"] = "public, max-age=3600";
          return TIME_ZONE_SOURCE;
        },
        HIDDEN,
      )
      .get(
        CHANNELS,
        ({ request, set }) =>
          run(request, set, undefined, async (session, auth) => page(set, views.channelListPage(session, await channels.listChannels(deps, auth)))),
        HIDDEN,
      )
      .get(
        `${CHANNELS}/new`,
        ({ request, set, query }) =>
          run(request, set, undefined, (session) => {
            const type = (query as Record<string, string | undefined>).type;
            if (type === undefined || type === "") return redirect(set, CHANNELS);
            if (!isChannelType(type)) return page(set, errorPage("Unknown kind", PICK_A_KIND, session), 400);
            return page(set, views.channelFormPage(session, { type, values: { mode: "instant", digestEvery: "1h" } }));
          }),
        needs("channels"),
      )
      .post(
        CHANNELS,
        ({ request, set, body }) =>
          run(request, set, body, (session, auth) => {
            const values = formValues(body);
            const type = values.type;
            if (!isChannelType(type)) return page(set, errorPage("Unknown kind", PICK_A_KIND, session), 400);
            const json = toBody(type, values, false);
            const refusedWith = (details: string[], status = 400) =>
              page(set, views.channelFormPage(session, { type, values, errors: views.channelFormErrors(type, details) }), status);
            return saved(set, refusedWith, schemaErrors(CreateChannelBody, json), () => channels.createChannel(deps, auth, json as CreateChannelBody));
          }),
        needs("channels"),
      )
      .get(
        `${CHANNELS}/:id`,
        ({ request, set, params }) =>
          run(request, set, undefined, async (session, auth) =>
            page(set, views.channelDetailPage(session, await detail(auth, await channels.getChannel(deps, auth, params.id)))),
          ),
        HIDDEN,
      )
      .get(
        `${CHANNELS}/:id/edit`,
        ({ request, set, params }) =>
          run(request, set, undefined, async (session, auth) => {
            const channel = await channels.getChannel(deps, auth, params.id);
            return page(set, views.channelFormPage(session, { type: channel.type, values: views.channelToForm(channel), channel }));
          }),
        needs("channels"),
      )
      .post(
        `${CHANNELS}/:id`,
        ({ request, set, body, params }) =>
          run(request, set, body, async (session, auth) => {
            const current = await channels.getChannel(deps, auth, params.id);
            const values = formValues(body);
            const json = toBody(current.type, values, true);
            const refusedWith = (details: string[], status = 400) =>
              page(
                set,
                views.channelFormPage(session, { type: current.type, values, errors: views.channelFormErrors(current.type, details), channel: current }),
                status,
              );
            return saved(set, refusedWith, schemaErrors(PatchChannelBody, json), () => channels.patchChannel(deps, auth, current.id, json as PatchChannelBody));
          }),
        needs("channels"),
      )
      .post(
        `${CHANNELS}/:id/test`,
        ({ request, set, body, params }) =>
          run(request, set, body, async (session, auth) => {
            const channel = await channels.getChannel(deps, auth, params.id);
            let test: views.TestOutcome | { refused: string };
            let status = 200;
            try {
              test = await sendChannelTest(deps, sender, auth, channel.id);
            } catch (err) {
              // The platform's pace allows no message yet: said on the page, with the API's status.
              if (!(err instanceof AppError) || err.code !== "rate_limited") throw err;
              test = { refused: err.message };
              status = err.status;
            }
            // Read after the test: its outcome is the channel's last delivery or last error now.
            return page(set, views.channelDetailPage(session, { ...(await detail(auth, await channels.getChannel(deps, auth, channel.id))), test }), status);
          }),
        needs("channels"),
      )
      .post(
        `${CHANNELS}/:id/binding-code`,
        ({ request, set, body, params }) =>
          run(request, set, body, async (session, auth) => {
            const channel = await channels.getChannel(deps, auth, params.id);
            const bindingCode = await createBindingCode(deps, auth, channel.id);
            // 200, not a redirect: the code is in this response only.
            return page(set, views.channelDetailPage(session, { ...(await detail(auth, channel)), bindingCode }));
          }),
        needs("channels"),
      )
      .post(
        `${CHANNELS}/:id/chats/:chatId/unbind`,
        ({ request, set, body, params }) =>
          run(request, set, body, async (_session, auth) => {
            await unbindChat(deps, auth, params.id, params.chatId);
            return redirect(set, `${CHANNELS}/${encodeURIComponent(params.id)}`);
          }),
        needs("channels"),
      )
      .get(
        `${CHANNELS}/:id/delete`,
        ({ request, set, params }) =>
          run(request, set, undefined, async (session, auth) => page(set, views.deleteChannelPage(session, await channels.getChannel(deps, auth, params.id)))),
        needs("channels"),
      )
      .post(
        `${CHANNELS}/:id/delete`,
        ({ request, set, body, params }) =>
          run(request, set, body, async (_session, auth) => {
            await channels.deleteChannel(deps, auth, params.id);
            return redirect(set, CHANNELS);
          }),
        needs("channels"),
      )
  );
}
