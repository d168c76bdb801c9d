import { Elysia } from "elysia";
import { SIGNAL_IDS } from "../jobs/signals";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { CreateFeedBody, FeedPreviewBody, PatchFeedBody, type Feed, type FeedPreview } from "../feeds/model";
import { previewFeed } from "../feeds/preview";
import * as feeds from "../feeds/service";
import { countFiltered } from "../feeds/filtered";
import * as channels from "../channels/service";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { sessionAuth } from "./service";
import * as feedViews from "./feeds-views";
import { inboxCards, parseFeedListQuery, unreadCount } from "./inbox-data";
import * as views from "./views";
import { sandboxRate } from "./inbox";
import {
  dashboardGuard,
  HIDDEN,
  page,
  redirect,
  type ResponseState,
  formValues,
  numberOrText,
  errorAsPage,
  errorDetails,
  schemaErrors,
  needs,
  isHtmx,
  fragment,
} from "./http";

/**
 * The dashboard's feed pages: list, create, detail with matched jobs, edit,
 * mute, secret rotation and delete. Every change goes through the feeds
 * service with the session's AuthContext, so the API's rules apply; the form
 * is also checked against the API's body schema first, because the API
 * route (not the service) enforces it.
 */

const PAGE_SIZE = 25;
const FEEDS = `${DASHBOARD_PATH}/feeds`;

/** Comma- or newline-separated text → trimmed, non-empty items. */
function splitList(text: string | undefined): string[] {
  return (text ?? "")
    .split(/[,\n\r]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Form strings → the JSON body the service expects. Creating: empty optional fields are
 * omitted. Editing (PATCH): empty numbers become null (clears the filter), everything
 * shown on the form is sent, except a webhook URL that did not change (re-saving it
 * would re-enable a disabled endpoint and send a test event).
 */
function toBody(v: feedViews.FeedFormValues, current?: Feed): Record<string, unknown> {
  const editing = current !== undefined;
  const body: Record<string, unknown> = {};
  body.title = v.title ?? "";
  body.profilePrompt = v.profilePrompt ?? "";
  if ((v.minScore ?? "").trim() !== "") body.minScore = numberOrText(v.minScore!);
  body.includes = splitList(v.includes);
  body.excludes = splitList(v.excludes);
  for (const name of ["minHourlyRate", "minFixedPrice", "clientMinSpent", "clientMinRating", "clientMinReviews"] as const) {
    const text = (v[name] ?? "").trim();
    if (text !== "") body[name] = numberOrText(text);
    else if (editing) body[name] = null;
  }
  if (v.countryFilterMode !== undefined) body.countryFilterMode = v.countryFilterMode;
  body.excludedCountries = splitList(v.excludedCountries);
  body.includedCountries = splitList(v.includedCountries);
  const platforms = feedViews.PLATFORMS.filter((p) => v[`platform_${p.value}`]).map((p) => p.value);
  if (platforms.length) body.platforms = platforms;
  // No box ticked means every platform; a PATCH cannot unset the list, so name them all.
  else if (editing && current.platforms?.length) body.platforms = feedViews.PLATFORMS.map((p) => p.value);
  body.jobTypes = feedViews.JOB_TYPES.filter((j) => v[`jobType_${j.value}`]).map((j) => j.value);
  if (v.emailFound !== undefined) body.emailFound = v.emailFound;
  if (v.usOnlyMode !== undefined) body.usOnlyMode = v.usOnlyMode;
  body.paymentVerifiedOnly = v.paymentVerifiedOnly !== undefined;
  body.notificationsMuted = v.notificationsMuted !== undefined;
  // Sent only from a form that showed the signal fields (the box unticked sends nothing).
  if (v.signalsShown !== undefined) {
    body.alertFavoured = v.alertFavoured !== undefined;
    const rules: Record<string, string> = {};
    for (const id of SIGNAL_IDS) if (v[`signal_${id}`] !== undefined) rules[id] = v[`signal_${id}`]!;
    body.signalRules = rules;
  }
  const prompt = v.proposalGenerationPrompt ?? "";
  if (prompt !== "" || editing) body.proposalGenerationPrompt = prompt;
  // Sent only from a form that showed the boxes (a PATCH without them keeps the feed's channels).
  if (v.channelsShown !== undefined) {
    const ids = feedViews.tickedChannelIds(v);
    if (ids.length > 0 || editing) body.channelIds = ids;
  }
  const url = (v.webhookUrl ?? "").trim();
  if (!editing) {
    if (url !== "") body.webhookUrl = url;
  } else if (url !== (current.webhookUrl ?? "")) {
    body.webhookUrl = url === "" ? null : url;
  }
  return body;
}

/** A refusal the form can show: bad input, or a ticked channel deleted meanwhile (the message names it). */
function isFormError(err: unknown): err is AppError {
  return err instanceof AppError && (err.code === "bad_request" || (err.code === "not_found" && err.message.startsWith("Channel not found")));
}

export function dashboardFeedRoutes(deps: Deps) {
  const { open } = dashboardGuard(deps);
  /** The account's channels, for the form's boxes. */
  const accountChannels = async (session: DashboardSession) => channels.listChannels(deps, await sessionAuth(deps, session));

  async function run(request: Request, set: ResponseState, body: unknown, fn: (session: DashboardSession) => string | Promise<string>): Promise<string> {
    const session = await open(request, set, body);
    if (typeof session === "string") return session;
    try {
      return await fn(session);
    } catch (err) {
      return errorAsPage(err, set, session, "Cannot do that", (message) => `${message}: this account has no such feed or job.`);
    }
  }

  return new Elysia({ name: "dashboard-feeds" })
    .get(
      FEEDS,
      ({ request, set }) =>
        run(request, set, undefined, async (session) =>
          page(set, feedViews.feedListPage(session, await feeds.listFeeds(deps, await sessionAuth(deps, session)))),
        ),
      HIDDEN,
    )
    .get(
      `${FEEDS}/new`,
      ({ request, set }) =>
        run(request, set, undefined, async (session) =>
          page(
            set,
            feedViews.feedFormPage(session, {
              values: { minScore: "5", countryFilterMode: "exclude", emailFound: "all", usOnlyMode: "all", alertFavoured: "on" },
              channels: await accountChannels(session),
            }),
          ),
        ),
      needs("feeds"),
    )
    .post(
      FEEDS,
      ({ request, set, body }) =>
        run(request, set, body, async (session) => {
          const values = formValues(body);
          const json = toBody(values);
          const channels = await accountChannels(session);
          const refusedWith = (details: string[]) =>
            page(set, feedViews.feedFormPage(session, { values, errors: feedViews.feedFormErrors(details), channels }), 400);
          const invalid = schemaErrors(CreateFeedBody, json);
          if (invalid.length) return refusedWith(invalid);
          let feed: Feed;
          try {
            feed = await feeds.createFeed(deps, await sessionAuth(deps, session), json);
          } catch (err) {
            if (isFormError(err)) return refusedWith(errorDetails(err));
            throw err;
          }
          // 200, not a redirect: the secret is in this response only.
          if (feed.webhookSecret) return page(set, feedViews.secretPage(session, feed, "Feed created"));
          return redirect(set, `${FEEDS}/${feed.id}`);
        }),
      needs("feeds"),
    )
    .post(
      feedViews.PREVIEW_PATH,
      ({ request, set, body }) =>
        run(request, set, body, async (session) => {
          const values = formValues(body);
          const days = feedViews.previewDaysOf(values);
          // The fields that decide what matches; the webhook and channels are checked when the feed is saved
          // (the SSRF check resolves the host: not on every keystroke). A title is not needed to preview.
          const { webhookUrl: _w, channelIds: _c, ...fields } = toBody(values);
          const json = { ...fields, title: typeof fields.title === "string" && fields.title.trim() !== "" ? fields.title : "Preview", days };
          const auth = await sessionAuth(deps, session);
          let result: FeedPreview | undefined;
          let details = schemaErrors(FeedPreviewBody, json);
          if (details.length === 0) {
            try {
              result = await previewFeed(deps, auth, json);
            } catch (err) {
              if (!isFormError(err)) throw err;
              details = errorDetails(err);
            }
          }
          const errors = details.length ? feedViews.feedFormErrors(details) : undefined;
          // Live (htmx): the panel alone, its refusal in the panel; without script, the whole form again.
          if (isHtmx(request)) return fragment(set, feedViews.previewPanel(result ?? null, days, { errors, body: json }));
          const feed = values.previewFeedId ? await feeds.getFeed(deps, auth, values.previewFeedId) : undefined;
          const preview = result && { result, body: json };
          return page(set, feedViews.feedFormPage(session, { values, errors, feed, channels: await accountChannels(session), preview }), errors ? 400 : 200);
        }),
      needs("feeds"),
    )
    .get(
      `${FEEDS}/:id`,
      ({ request, set, params, query }) =>
        run(request, set, undefined, async (session) => {
          const auth = await sessionAuth(deps, session);
          const feed = await feeds.getFeed(deps, auth, params.id);
          const list = parseFeedListQuery(query as Record<string, string | undefined>);
          if ("error" in list) return page(set, views.errorPage("Bad filter", list.error, session), 400);
          // The feed's matches as the inbox's cards (same data, same rendering, same triage forms).
          const { items, total } = await feeds.listInbox(deps, auth, { feedId: feed.id, show: list.show }, { limit: PAGE_SIZE, offset: list.offset });
          const cards = await inboxCards(deps, auth, items, deps.clock.now());
          const data = {
            list,
            cards,
            total,
            limit: PAGE_SIZE,
            unread: await unreadCount(deps, auth),
            filtered: await countFiltered(deps.db, feed.id),
            sandboxJobsPerMinute: sandboxRate(deps.config),
          };
          return page(set, feedViews.feedDetailPage(session, feed, data, await channels.listChannels(deps, auth)));
        }),
      HIDDEN,
    )
    .get(
      `${FEEDS}/:id/edit`,
      ({ request, set, params }) =>
        run(request, set, undefined, async (session) => {
          const feed = await feeds.getFeed(deps, await sessionAuth(deps, session), params.id);
          return page(set, feedViews.feedFormPage(session, { values: feedViews.feedToForm(feed), feed, channels: await accountChannels(session) }));
        }),
      needs("feeds"),
    )
    .post(
      `${FEEDS}/:id`,
      ({ request, set, body, params }) =>
        run(request, set, body, async (session) => {
          const auth = await sessionAuth(deps, session);
          const current = await feeds.getFeed(deps, auth, params.id);
          const values = formValues(body);
          const json = toBody(values, current);
          const channels = await accountChannels(session);
          const refusedWith = (details: string[]) =>
            page(set, feedViews.feedFormPage(session, { values, errors: feedViews.feedFormErrors(details), feed: current, channels }), 400);
          const invalid = schemaErrors(PatchFeedBody, json);
          if (invalid.length) return refusedWith(invalid);
          let feed: Feed;
          try {
            feed = await feeds.patchFeed(deps, auth, current.id, json);
          } catch (err) {
            if (isFormError(err)) return refusedWith(errorDetails(err));
            throw err;
          }
          // A first webhook URL creates the secret: shown in full on this response only.
          if (feed.webhookSecret && !feed.webhookSecret.startsWith("whsec_…")) return page(set, feedViews.secretPage(session, feed, "Feed saved"));
          return redirect(set, `${FEEDS}/${feed.id}`);
        }),
      needs("feeds"),
    )
    .post(
      `${FEEDS}/:id/mute`,
      ({ request, set, body, params }) =>
        run(request, set, body, async (session) => {
          const auth = await sessionAuth(deps, session);
          const current = await feeds.getFeed(deps, auth, params.id);
          await feeds.patchFeed(deps, auth, current.id, { notificationsMuted: !current.notificationsMuted });
          return redirect(set, `${FEEDS}/${current.id}`);
        }),
      needs("feeds"),
    )
    .post(
      `${FEEDS}/:id/rotate-secret`,
      ({ request, set, body, params }) =>
        run(request, set, body, async (session) => {
          const feed = await feeds.rotateWebhookSecret(deps, await sessionAuth(deps, session), params.id);
          return page(set, feedViews.secretPage(session, feed, "Webhook secret rotated"));
        }),
      needs("feeds"),
    )
    .get(
      `${FEEDS}/:id/delete`,
      ({ request, set, params }) =>
        run(request, set, undefined, async (session) =>
          page(set, feedViews.deleteConfirmPage(session, await feeds.getFeed(deps, await sessionAuth(deps, session), params.id))),
        ),
      needs("feeds"),
    )
    .post(
      `${FEEDS}/:id/delete`,
      ({ request, set, body, params }) =>
        run(request, set, body, async (session) => {
          await feeds.deleteFeed(deps, await sessionAuth(deps, session), params.id);
          return redirect(set, FEEDS);
        }),
      needs("feeds"),
    );
}
