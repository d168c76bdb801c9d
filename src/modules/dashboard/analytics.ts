import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import type { AuthContext } from "../accounts/service";
import type { FunnelQuery } from "../analytics/model";
import { funnelAnalytics, ledgerCsv, speedToLead } from "../analytics/service";
import { listFeeds } from "../feeds/service";
import { ANALYTICS, analyticsPage, RANGES, type AnalyticsData, type AnalyticsFilters, type RangeValue } from "./analytics-views";
import { dashboardGuard, HIDDEN, page, type ResponseState } from "./http";
import type { DashboardSession } from "./model";
import { sessionAuth } from "./service";
import * as views from "./views";

/**
 * The dashboard's Analytics page and its CSV download: the same services as GET /api/v1/analytics/funnel,
 * /speed and /ledger.csv (the API's routes take an API key; the dashboard's take its session cookie), read as
 * the session's account.
 */

const DAY_MS = 86_400_000;
const encoder = new TextEncoder();

/** `?range=&feed=` → the filters, or the message naming the bad one (a 400 page). */
export function parseFilters(query: Record<string, string | undefined>): AnalyticsFilters | string {
  const range = query.range === undefined || query.range === "" ? "30" : query.range;
  if (!RANGES.some((r) => r.value === range)) return `Sent in must be one of: ${RANGES.map((r) => r.label.toLowerCase()).join(", ")}.`;
  const feed = (query.feed ?? "").trim();
  if (feed.length > 100) return "Feed is not one of your feeds.";
  return { range: range as RangeValue, feedId: feed === "" ? undefined : feed };
}

/** The filters as the analytics services take them: sent (or, for speed, published) from the range's start on. */
function serviceQuery(filters: AnalyticsFilters, nowTs: number): { from?: number; feedId?: string } {
  const days = RANGES.find((r) => r.value === filters.range)!.days;
  return { ...(days === null ? {} : { from: nowTs - days * DAY_MS }), ...(filters.feedId ? { feedId: filters.feedId } : {}) };
}

/** Everything the page shows, in one place: the funnel split three ways, the speed to lead, the feeds for the filter. */
export async function loadAnalytics(deps: Deps, auth: AuthContext, filters: AnalyticsFilters): Promise<AnalyticsData> {
  const q = serviceQuery(filters, deps.clock.now());
  const split = (groupBy: FunnelQuery["groupBy"]) => funnelAnalytics(deps, auth, { ...q, groupBy });
  const byFeed = await split("feed");
  const byPostAge = await split("postAge");
  const byScore = await split("scoreBand");
  const byMember = await split("member");
  const speed = await speedToLead(deps, auth, q);
  const feeds = (await listFeeds(deps, auth)).map((f) => ({ id: f.id, title: f.title ?? f.id }));
  // A filtered page with nothing in it is not a new account: only one that never sent gets the empty state.
  const filtered = q.from !== undefined || q.feedId !== undefined;
  const everSent = byFeed.total.sent > 0 || (filtered && (await funnelAnalytics(deps, auth, {})).total.sent > 0);
  return {
    filters,
    feeds,
    total: byFeed.total,
    byFeed: byFeed.groups,
    byPostAge: byPostAge.groups,
    byScore: byScore.groups,
    byMember: byMember.groups,
    suggestion: byScore.suggestion ?? null,
    speed,
    everSent,
    connectPriceUsd: deps.config.connectPriceUsd,
  };
}

/** The ledger's chunks as a download, pulled a page at a time as the browser reads. */
function csvResponse(chunks: AsyncIterable<string>): Response {
  const iterator = chunks[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": 'attachment; filename="jobpilot-ledger.csv"',
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

export function dashboardAnalyticsRoutes(deps: Deps) {
  const { signedIn } = dashboardGuard(deps);

  /** A filter the services refused (a feed of another account is not found) as a page naming the filter. */
  function refused(err: unknown, set: ResponseState, session: DashboardSession): string {
    if (!(err instanceof AppError) || err.status < 400 || err.status >= 500) throw err;
    const message = err.code === "not_found" ? "Feed is not one of your feeds: pick one from the list." : err.message;
    return page(set, views.errorPage("Bad filter", message, session), err.code === "not_found" ? 404 : 400);
  }

  return new Elysia({ name: "dashboard-analytics" })
    .get(
      ANALYTICS,
      async ({ request, set, query }) => {
        const session = await signedIn(request, set);
        if (typeof session === "string") return session;
        const filters = parseFilters(query);
        if (typeof filters === "string") return page(set, views.errorPage("Bad filter", filters, session), 400);
        try {
          return page(set, analyticsPage(session, await loadAnalytics(deps, await sessionAuth(deps, session), filters)));
        } catch (err) {
          return refused(err, set, session);
        }
      },
      HIDDEN,
    )
    .get(
      `${ANALYTICS}/ledger.csv`,
      async ({ request, set, query }) => {
        const session = await signedIn(request, set);
        if (typeof session === "string") return session;
        const filters = parseFilters(query);
        if (typeof filters === "string") return page(set, views.errorPage("Bad filter", filters, session), 400);
        try {
          return csvResponse(await ledgerCsv(deps, await sessionAuth(deps, session), serviceQuery(filters, deps.clock.now())));
        } catch (err) {
          return refused(err, set, session);
        }
      },
      HIDDEN,
    );
}
