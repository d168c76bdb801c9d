import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { APPLICATION_STATUSES } from "../../db/enums";
import { isOneOf } from "../../lib/one-of";
import * as applicationsRepo from "../applications/repo";
import { freelancers } from "../applications/service";
import { getFeed } from "../feeds/service";
import { listDeliveries, retryDelivery } from "../delivery/service";
import * as activityViews from "./activity-views";
import { dashboardFreelancersRoutes } from "./freelancers";
import { badOffsetPage, dashboardGuard, HIDDEN, needs, page, parseOffset, redirect, type ResponseState, errorAsPage } from "./http";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { sessionAuth } from "./service";
import type { AuthContext } from "../accounts/service";
import * as views from "./views";

/** The same page size and ceiling as GET /api/auto-apply-v2/applied-jobs and the deliveries API. */
const ACTIVITY_PAGE_SIZE = 50;

type Query = Record<string, string | undefined>;

/**
 * A service's AppError as a page: 404 for another account's (or no) feed or
 * event, the error's own status for any other 4xx. Anything else is a bug and
 * is rethrown.
 */
function errorPage(err: unknown, set: ResponseState, session: DashboardSession): string {
  return errorAsPage(err, set, session, "Could not do that");
}

/**
 * Dashboard pages for what happens after a feed matches: the account's
 * applications, its linked freelancers, and each feed's webhook deliveries.
 * Feed routes name the feed `:id`, as the feeds pages do (the router needs one name per position).
 * Every read goes through the API's services (or the repo function the
 * service itself uses) as the session's account.
 */
export function dashboardActivityRoutes(deps: Deps) {
  const { signedIn, open } = dashboardGuard(deps);

  /**
   * The names of the freelancers an agency applies as, when there is more than one (a solo account's one
   * freelancer needs no column). The list comes from the marketplace driver; when it cannot answer, the
   * page still says who applied, by id, if its rows name more than one.
   */
  async function whoApplied(auth: AuthContext, items: { app: { freelancerId: string } }[]): Promise<Map<string, string> | undefined> {
    let names = new Map<string, string>();
    try {
      names = new Map((await freelancers(deps, auth)).freelancers.map((f) => [f.id, f.name]));
    } catch (err) {
      deps.log.warn("dashboard: could not list freelancers", { accountId: auth.accountId, error: err instanceof Error ? err.message : String(err) });
    }
    const seen = new Set([...names.keys(), ...items.map((i) => i.app.freelancerId)]);
    return seen.size > 1 ? names : undefined;
  }

  return (
    new Elysia({ name: "dashboard-activity" })
      .get(
        `${DASHBOARD_PATH}/applications`,
        async ({ request, set, query }) => {
          const session = await signedIn(request, set);
          if (typeof session === "string") return session;
          const q = query as Query;
          const status = q.status === undefined || q.status === "" ? undefined : q.status;
          if (status !== undefined && !isOneOf(APPLICATION_STATUSES, status)) {
            return page(set, views.errorPage("Unknown status", `status must be one of ${APPLICATION_STATUSES.join(", ")}.`, session), 400);
          }
          const offset = parseOffset(q.offset);
          if (offset === undefined) return badOffsetPage(set, session);
          const auth = await sessionAuth(deps, session);
          // appliedJobs' own query, which also carries the engagement columns the API leaves out.
          const { items, total } = await applicationsRepo.listApplications(deps.db, auth.accountId, {
            limit: ACTIVITY_PAGE_SIZE,
            offset,
            status,
          });
          const review = await deps.drivers.companion.inReview(auth.accountId);
          const inReview = new Map(
            [...review].map(([id, r]) => [
              id,
              { reviewUrl: r.reviewUrl, deadlineTs: r.reviewSinceTs === null ? null : r.reviewSinceTs + deps.config.companionReviewTimeoutMs },
            ]),
          );
          const freelancerNames = await whoApplied(auth, items);
          return page(
            set,
            activityViews.applicationsPage(session, {
              items,
              total,
              limit: ACTIVITY_PAGE_SIZE,
              offset,
              status,
              statuses: APPLICATION_STATUSES,
              inReview,
              freelancerNames,
            }),
          );
        },
        HIDDEN,
      )
      // The Freelancers page and its forms (freelancers.ts).
      .use(dashboardFreelancersRoutes(deps))
      .get(
        `${DASHBOARD_PATH}/feeds/:id/deliveries`,
        async ({ request, set, params, query }) => {
          const session = await signedIn(request, set);
          if (typeof session === "string") return session;
          const offset = parseOffset((query as Query).offset);
          if (offset === undefined) return badOffsetPage(set, session);
          try {
            const auth = await sessionAuth(deps, session);
            const feed = await getFeed(deps, auth, params.id);
            const data = await listDeliveries(deps, auth, params.id, { limit: ACTIVITY_PAGE_SIZE, offset });
            return page(set, activityViews.deliveriesPage(session, { feedId: params.id, feedTitle: feed.title ?? "Untitled feed", ...data }));
          } catch (err) {
            return errorPage(err, set, session);
          }
        },
        HIDDEN,
      )
      .post(
        `${DASHBOARD_PATH}/feeds/:id/deliveries/:eventId/resend`,
        async ({ request, set, body, params }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          try {
            await retryDelivery(deps, await sessionAuth(deps, session), params.id, params.eventId);
          } catch (err) {
            return errorPage(err, set, session);
          }
          return redirect(set, `${DASHBOARD_PATH}/feeds/${encodeURIComponent(params.id)}/deliveries`);
        },
        needs("channels"),
      )
  );
}
