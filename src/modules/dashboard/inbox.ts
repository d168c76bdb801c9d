import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { isUuid } from "../../lib/ids";
import type { AuthContext } from "../accounts/service";
import * as applicationsRepo from "../applications/repo";
import * as feeds from "../feeds/service";
import { dashboardGuard, errorAsPage, field, fragment, HIDDEN, isHtmx, page, redirect, type ResponseState, needs } from "./http";
import {
  feedListQuery,
  filterQuery,
  INBOX_PAGE_SIZE,
  inboxCards,
  routedFilter,
  parseFeedListQuery,
  parseInboxQuery,
  unreadCount as countUnread,
  type InboxQuery,
} from "./inbox-data";
import * as inboxViews from "./inbox-views";
import { applicationBadge } from "./job-views";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { sessionAuth } from "./service";
import * as views from "./views";
import { COMPANION_SOURCE_LABEL, sourceStatuses } from "./overview";
import { SANDBOX_NAME } from "../../sources/sandbox";

/**
 * The inbox routes: the page at /dashboard, its htmx fragments (more cards,
 * the "N new" badge and the new cards themselves, a card's application
 * status) and the triage form. Reads and writes go through the feeds service
 * as the session's account. The side panel is the job page's own route and
 * view (job.ts, asked with ?panel=<entry> by htmx).
 */

const INBOX = `${DASHBOARD_PATH}/inbox`;
const ACTIONS: Record<string, feeds.TriageChange> = {
  read: { read: true },
  unread: { read: false },
  star: { starred: true },
  unstar: { starred: false },
  dismiss: { dismissed: true },
  undismiss: { dismissed: false },
};

type Query = Record<string, string | undefined>;

/** The sandbox's jobs a minute when serve polls it (the empty inbox says what to expect), else null. */
export function sandboxRate(config: Pick<Deps["config"], "sources" | "sandboxJobsPerMinute">): number | null {
  return config.sources.split(",").includes(SANDBOX_NAME) ? config.sandboxJobsPerMinute : null;
}

export function dashboardInboxRoutes(deps: Deps) {
  const { open } = dashboardGuard(deps);

  /** Signs in (and checks CSRF on a POST), then runs `fn`; a service's 4xx becomes a page with that status. */
  async function run(
    request: Request,
    set: ResponseState,
    body: unknown,
    fn: (session: DashboardSession, auth: AuthContext) => Promise<string>,
  ): Promise<string> {
    const session = await open(request, set, body);
    if (typeof session === "string") return session;
    try {
      return await fn(session, await sessionAuth(deps, session));
    } catch (err) {
      return errorAsPage(err, set, session, "Cannot do that");
    }
  }

  /** The query string as a filter, or a 400 page naming the bad field (`since` too, for the badge and new cards, which need it). */
  function parsed(set: ResponseState, session: DashboardSession, query: Query, needsSince = false): InboxQuery | string {
    const q = parseInboxQuery(query);
    const error = "error" in q ? q.error : needsSince && q.sinceTs === undefined ? "since must be a time in Unix milliseconds" : null;
    if (error !== null) return page(set, views.errorPage("Bad filter", error, session), 400);
    return q as InboxQuery;
  }

  const unreadCount = (auth: AuthContext) => countUnread(deps, auth);

  /** A page of cards for `q` (its snapshot time fixed at the first page's load). */
  async function listing(auth: AuthContext, q: InboxQuery) {
    const nowTs = deps.clock.now();
    const untilTs = q.untilTs ?? nowTs;
    const filter = await routedFilter(deps, auth, { ...q.filter, untilTs });
    const { items, total } = await feeds.listInbox(deps, auth, filter, { limit: INBOX_PAGE_SIZE, offset: q.offset });
    const cards = await inboxCards(deps, auth, items, nowTs);
    // The badge counts what arrived after the snapshot (or after the newest card when that is later).
    const newest = items.reduce((m, i) => Math.max(m, Date.parse(i.matchedAt)), 0);
    return { cards, total, untilTs, sinceTs: Math.max(untilTs, newest) };
  }

  return new Elysia({ name: "dashboard-inbox" })
    .get(
      DASHBOARD_PATH,
      ({ request, set, query }) =>
        run(request, set, undefined, async (session, auth) => {
          const q = parsed(set, session, query as Query);
          if (typeof q === "string") return q;
          const list = await listing(auth, q);
          // The landing page says when the browser companion has stopped bringing jobs in (a login or bot check
          // in the user's browser), as the overview's source list does.
          const companion = (await sourceStatuses(deps.db, deps.config, auth.accountId)).find((s) => s.name === COMPANION_SOURCE_LABEL);
          const data = {
            query: q,
            ...list,
            unread: await unreadCount(auth),
            feeds: await feeds.listFeeds(deps, auth),
            companionNeedsYou: companion?.lastError ?? null,
            sandboxJobsPerMinute: sandboxRate(deps.config),
          };
          return page(set, inboxViews.inboxPage(session, data));
        }),
      HIDDEN,
    )
    .get(
      `${INBOX}/cards`,
      ({ request, set, query }) =>
        run(request, set, undefined, async (session, auth) => {
          const q = parsed(set, session, query as Query);
          if (typeof q === "string") return q;
          const list = await listing(auth, q);
          return fragment(set, inboxViews.moreCards(session, { query: q, ...list, unread: 0, feeds: [] }));
        }),
      HIDDEN,
    )
    .get(
      `${INBOX}/new`,
      ({ request, set, query }) =>
        run(request, set, undefined, async (session, auth) => {
          const q = parsed(set, session, query as Query, true);
          if (typeof q === "string") return q;
          const since = q.sinceTs!;
          const fresh = await feeds.countInbox(deps, auth, { ...q.filter, afterTs: since });
          const unread = await unreadCount(auth);
          // Polled every few seconds: an unchanged answer is a bodiless 304 the browser fills from its cache.
          const etag = `W/"${fresh.count}-${fresh.newestTs ?? 0}-${unread}"`;
          const out = fragment(set, inboxViews.newBadge(q.filter, since, fresh.count, unread));
          set.headers["cache-control"] = "private, no-cache";
          set.headers.etag = etag;
          if (request.headers.get("if-none-match") === etag) {
            set.status = 304;
            return "";
          }
          return out;
        }),
      HIDDEN,
    )
    .get(
      `${INBOX}/fresh`,
      ({ request, set, query }) =>
        run(request, set, undefined, async (session, auth) => {
          const q = parsed(set, session, query as Query, true);
          if (typeof q === "string") return q;
          const since = q.sinceTs!;
          const { items } = await feeds.listInbox(deps, auth, { ...q.filter, afterTs: since }, { limit: INBOX_PAGE_SIZE, offset: 0 });
          const cards = await inboxCards(deps, auth, items, deps.clock.now());
          const newest = items.reduce((m, i) => Math.max(m, Date.parse(i.matchedAt)), since);
          return fragment(set, inboxViews.freshCards(session, cards, q.filter, newest, await unreadCount(auth), filterQuery(q.filter)));
        }),
      HIDDEN,
    )
    .get(
      `${INBOX}/:id/status`,
      ({ request, set, params }) =>
        run(request, set, undefined, async (_session, auth) => {
          const item = await feeds.getInboxItem(deps, auth, params.id);
          const app = (await applicationsRepo.latestForJob(deps.db, auth.accountId, item.job.ciphertext)) ?? null;
          return fragment(set, applicationBadge(app, item.processedJobId));
        }),
      HIDDEN,
    )
    .post(
      `${INBOX}/:id`,
      ({ request, set, params, body }) =>
        run(request, set, body, async (session, auth) => {
          const action = field(body, "action") ?? "";
          const change = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
          if (!change) {
            return page(set, views.errorPage("Bad request", `action must be one of ${Object.keys(ACTIONS).join(", ")}`, session), 400);
          }
          if (!isUuid(params.id)) throw new AppError("not_found", "Job not found in your feeds");
          const item = await feeds.triageInboxItem(deps, auth, params.id, change);
          // The list's own query string comes back so the reader lands where they were (the inbox, or the
          // card's feed page when `list` says so); only our own query strings are accepted, never echoed raw.
          const feedPage = field(body, "list") === "feed";
          const backFields = Object.fromEntries(new URLSearchParams(field(body, "back") ?? ""));
          let backQuery = "";
          if (feedPage) {
            const back = parseFeedListQuery(backFields);
            if (!("error" in back)) backQuery = feedListQuery(back);
          } else {
            const back = parseInboxQuery(backFields);
            if (!("error" in back)) backQuery = filterQuery(back.filter, { offset: back.offset, until: back.untilTs });
          }
          if (isHtmx(request)) {
            const [card] = await inboxCards(deps, auth, [item], deps.clock.now());
            const unread = await unreadCount(auth);
            return fragment(set, inboxViews.triagedCard(session, card!, { back: backQuery, feedPage }, unread));
          }
          const list = feedPage ? `${DASHBOARD_PATH}/feeds/${encodeURIComponent(item.feedId)}` : DASHBOARD_PATH;
          return redirect(set, `${list}${backQuery ? `?${backQuery}` : ""}#card-${item.processedJobId}`);
        }),
      needs("draft"),
    );
}
