import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { dashboardBase, inviteAndSend } from "../members/invite-mail";
import { changeRole, listTeam, memberOf, removeMember, setBiddersMaySend } from "../members/service";
import { dashboardGuard, errorAsPage, formValues, needs, page, redirect, type ResponseState } from "./http";
import { removeMemberConfirmPage, type TeamPageData, teamPage } from "./members-views";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { localeFrom } from "./overview";
import { sessionAuth } from "./service";

const TEAM = `${DASHBOARD_PATH}/team`;

const SAVED_NOTICES: Record<string, string> = {
  role: "Role saved: it applies to their sessions and keys at once.",
  removed: "Member removed: their sessions ended and their keys were revoked.",
  settings: "Sending setting saved.",
};

/** A 4xx the user can act on (a bad role, the last owner): shown on the page; anything else goes to the error handler. */
const isRefusal = (err: unknown): err is AppError => err instanceof AppError && err.status >= 400 && err.status < 500 && err.code !== "not_found";

/**
 * The Team page (issue 43): owners invite members (the link is e-mailed through the account's e-mail channel, or
 * shown once), change roles, remove members and decide whether bidders may send. Every change goes through the
 * members service the API's /api/v1/members routes call, as the session's member, so the same rules and audit
 * entries apply.
 */
export function dashboardTeamRoutes(deps: Deps) {
  const { signedIn, open } = dashboardGuard(deps);

  async function teamData(request: Request, session: DashboardSession, extra: Partial<TeamPageData> = {}): Promise<TeamPageData> {
    const members = await listTeam(deps, await sessionAuth(deps, session));
    return { members, nowTs: deps.clock.now(), locale: localeFrom(request.headers.get("accept-language")), ...extra };
  }

  const show = async (request: Request, set: ResponseState, session: DashboardSession, extra: Partial<TeamPageData>, status = 200) =>
    page(set, teamPage(session, await teamData(request, session, extra)), status);

  return (
    new Elysia({ name: "dashboard-team" })
      .get(
        TEAM,
        async ({ request, set }) => {
          const session = await signedIn(request, set);
          if (typeof session === "string") return session;
          const notice = SAVED_NOTICES[new URL(request.url).searchParams.get("saved") ?? ""];
          return show(request, set, session, { notice });
        },
        needs("read"),
      )
      .post(
        TEAM,
        async ({ request, set, body }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          const v = formValues(body);
          const input = { email: (v.email ?? "").trim(), name: (v.name ?? "").trim() || undefined, role: (v.role ?? "").trim() };
          try {
            const invited = await inviteAndSend(deps, await sessionAuth(deps, session), input, dashboardBase(deps.config.publicUrl, request));
            // 200, not a redirect: an invitation link that was not e-mailed is shown on this response only.
            return show(request, set, session, { invited });
          } catch (err) {
            if (!isRefusal(err)) throw err;
            return show(request, set, session, { inviteError: { message: err.message, values: v } }, err.status);
          }
        },
        needs("members"),
      )
      .post(
        `${TEAM}/settings`,
        async ({ request, set, body }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          await setBiddersMaySend(deps, await sessionAuth(deps, session), formValues(body).biddersMaySend === "on");
          return redirect(set, `${TEAM}?saved=settings`);
        },
        needs("members"),
      )
      .post(
        `${TEAM}/:id/role`,
        async ({ request, set, body, params }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          try {
            await changeRole(deps, await sessionAuth(deps, session), params.id, (formValues(body).role ?? "").trim());
          } catch (err) {
            if (!isRefusal(err)) return errorAsPage(err, set, session, "Could not change the role");
            return show(request, set, session, { refusal: err.message }, err.status);
          }
          return redirect(set, `${TEAM}?saved=role`);
        },
        needs("members"),
      )
      // Removing cannot be undone: the Team page links here, and only this page's form removes.
      .get(
        `${TEAM}/:id/remove`,
        async ({ request, set, params }) => {
          const session = await signedIn(request, set);
          if (typeof session === "string") return session;
          try {
            return page(set, removeMemberConfirmPage(session, await memberOf(deps, session.accountId, params.id)));
          } catch (err) {
            return errorAsPage(err, set, session, "Could not find the member");
          }
        },
        needs("members"),
      )
      .post(
        `${TEAM}/:id/remove`,
        async ({ request, set, body, params }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          try {
            await removeMember(deps, await sessionAuth(deps, session), params.id);
          } catch (err) {
            if (!isRefusal(err)) return errorAsPage(err, set, session, "Could not remove the member");
            return show(request, set, session, { refusal: err.message }, err.status);
          }
          // Removing oneself ends one's own session: the next page is the sign-in page.
          return redirect(set, params.id === session.memberId ? `${DASHBOARD_PATH}/sign-in` : `${TEAM}?saved=removed`);
        },
        needs("members"),
      )
  );
}
