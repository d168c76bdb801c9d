import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { isOneOf } from "../../lib/one-of";
import { CLIENT_LISTS } from "../../db/enums";
import { entriesOf, listClientLists, putClientList, removeClientList } from "../clients/lists";
import { listFilteredJobs } from "../feeds/filtered";
import { getFeed } from "../feeds/service";
import { memberNames } from "../members/repo";
import * as clientViews from "./clients-views";
import { formErrors } from "./form-errors";
import { badOffsetPage, dashboardGuard, errorAsPage, formValues, HIDDEN, needs, page, parseOffset, redirect, type ResponseState } from "./http";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { sessionAuth } from "./service";

/**
 * The client lists on the dashboard (issue 45): the Block / Favour forms of the cards and the job page post here,
 * and so do the Clients page's; every change goes through the same service as PUT/DELETE /api/v1/client-lists.
 * A feed's filtered-out page lives here too, since its one action is Unblock.
 */

const FILTERED_PAGE_SIZE = 50;

/** Where a form returns: a dashboard path it came from, never another site. */
function backOf(raw: string | undefined): string {
  return raw?.startsWith(DASHBOARD_PATH) && !raw.startsWith("//") && !raw.includes("\\") ? raw : clientViews.CLIENTS_PATH;
}

export function dashboardClientRoutes(deps: Deps) {
  const { open } = dashboardGuard(deps);

  async function clientsPage(set: ResponseState, session: DashboardSession, extra: Pick<clientViews.ClientsPageData, "values" | "errors"> = {}, status = 200) {
    const { clients } = await listClientLists(deps, session);
    const names = await memberNames(
      deps.db,
      session.accountId,
      clients.flatMap((c) => (c.addedBy ? [c.addedBy] : [])),
    );
    return page(set, clientViews.clientsPage(session, { clients, names, ...extra }), status);
  }

  return new Elysia({ name: "dashboard-clients" })
    .get(
      clientViews.CLIENTS_PATH,
      async ({ request, set }) => {
        const session = await open(request, set);
        if (typeof session === "string") return session;
        return clientsPage(set, session);
      },
      HIDDEN,
    )
    .post(
      clientViews.CLIENTS_PATH,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const values = formValues(body);
        const list = values.list ?? "";
        try {
          if (!isOneOf(CLIENT_LISTS, list)) throw new AppError("bad_request", "list must be one of blocked, favoured");
          await putClientList(deps, await sessionAuth(deps, session), values.companyId ?? "", { list, reason: values.reason });
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== "bad_request") throw err;
          // Shown on the Clients page's form (the cards' is one line), with what was typed, next to its field.
          return clientsPage(set, session, { values, errors: formErrors([err.message], clientViews.CLIENT_FORM_FIELDS) }, 400);
        }
        return redirect(set, backOf(values.back));
      },
      needs("clients"),
    )
    .post(
      `${clientViews.CLIENTS_PATH}/:companyId/remove`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        try {
          await removeClientList(deps, await sessionAuth(deps, session), params.companyId);
        } catch (err) {
          return errorAsPage(err, set, session, "Not removed");
        }
        return redirect(set, backOf(formValues(body).back));
      },
      needs("clients"),
    )
    .get(
      `${DASHBOARD_PATH}/feeds/:id/filtered`,
      async ({ request, set, params, query }) => {
        const session = await open(request, set);
        if (typeof session === "string") return session;
        const offset = parseOffset(typeof query.offset === "string" ? query.offset : undefined);
        if (offset === undefined) return badOffsetPage(set, session);
        const auth = await sessionAuth(deps, session);
        let listed: Awaited<ReturnType<typeof listFilteredJobs>>;
        try {
          listed = await listFilteredJobs(deps, auth, params.id, { limit: FILTERED_PAGE_SIZE, offset });
        } catch (err) {
          return errorAsPage(err, set, session, "Cannot show that", (m) => `${m}: this account has no such feed.`);
        }
        const feed = await getFeed(deps, auth, params.id);
        const entries = await entriesOf(
          deps.db,
          auth.accountId,
          listed.jobs.map((j) => j.companyId),
        );
        const blocked = new Set([...entries.values()].filter((e) => e.list === "blocked").map((e) => e.companyId));
        return page(set, clientViews.filteredPage(session, { feed: { id: feed.id, title: feed.title ?? "Feed" }, ...listed, blocked }));
      },
      HIDDEN,
    );
}
