import { Elysia } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import type { AuthContext } from "../accounts/service";
import { freelancers } from "../applications/service";
import { AutomationPatch, ConnectsBody, FeedAutomationBody } from "../automation/model";
import { getAutomation, patchAutomation, putFeedAutomation, setBalance } from "../automation/service";
import { listFeeds as listFeedRows, matchesOfJob } from "../feeds/repo";
import { FreelancerPatch, NewFreelancerBody, NewProfileBody, ProfilePatch } from "../freelancers/model";
import {
  addProfile,
  createFreelancer,
  managedFreelancers,
  removeFreelancer,
  removeProfile,
  rosterMode,
  updateFreelancer,
  updateProfile,
} from "../freelancers/service";
import { can } from "../members/permissions";
import { EMPTY_PORTFOLIO, portfolioMarkdown } from "../../ai/portfolio";
import { PortfolioImportBody } from "../proposals/model";
import { parseImport, portfolioOf, savePortfolio } from "../proposals/portfolio";
import { membersOfFeed } from "../members/routing";
import { listMembers } from "../members/service";
import { type FreelancerSettings, type FreelancersPageData, freelancersPage, type RosterFreelancer } from "./activity-views";
import type { FreelancerChoice } from "./automation-views";
import { dashboardGuard, errorAsPage, formValues, HIDDEN, needs, numberOrText, page, redirect, type ResponseState, schemaErrors } from "./http";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { sessionAuth } from "./service";

/**
 * The account's freelancers for a page's select and names. None when the marketplace cannot list them: the page
 * still works, naming freelancers by id. Given `page`, the failure is logged as being for that page.
 */
export async function freelancerChoices(deps: Deps, session: DashboardSession, page?: string): Promise<FreelancerChoice[]> {
  try {
    return (await freelancers(deps, await sessionAuth(deps, session))).freelancers.map((f) => ({ id: f.id, name: f.name }));
  } catch (err) {
    if (page !== undefined) {
      deps.log.warn(`dashboard: could not list freelancers for the ${page}`, {
        accountId: session.accountId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    return [];
  }
}

const FREELANCERS = `${DASHBOARD_PATH}/freelancers`;

/** Which form of the page a refusal belongs to (its id prefix there) and what was typed into it. */
type Form = { form: string; values: Record<string, string | undefined> };
/** A button alone (remove): its refusal goes above the page. */
const PAGE_FORM: Form = { form: "page", values: {} };

const SAVED_NOTICES: Record<string, string> = {
  added: "Freelancer added.",
  changed: "Freelancer saved.",
  removed: "Freelancer removed.",
  profile: "Profile saved.",
  "profile-removed": "Profile removed.",
  settings: "Settings saved.",
  routing: "Feed routing saved.",
  portfolio: "Portfolio saved.",
};

/** Comma- or line-separated skills as the API's list. */
const skillsOf = (text: string | undefined) =>
  (text ?? "")
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** A form's optional number: absent when empty, else a number (or the text, so the schema check names the field). */
function optionalNumber(out: Record<string, unknown>, key: string, text: string | undefined): void {
  const v = (text ?? "").trim();
  if (v !== "") out[key] = numberOrText(v);
}

function optionalText(out: Record<string, unknown>, key: string, text: string | undefined): void {
  const v = (text ?? "").trim();
  if (v !== "") out[key] = v;
}

/** Everything the page shows: the roster (the sandbox's own, else the driver's), each one's settings, the feeds' routing. */
export async function loadFreelancersPage(deps: Deps, session: DashboardSession): Promise<FreelancersPageData> {
  const auth = await sessionAuth(deps, session);
  const mode = await rosterMode(deps, auth.accountId);
  const policy = { biddersMaySend: session.biddersMaySend };
  const base = {
    driver: mode.driver,
    editable: mode.editable,
    canEdit: can(session.role, "freelancers", policy),
    canRoute: can(session.role, "feeds", policy),
  };
  let roster: RosterFreelancer[];
  const settings = new Map<string, FreelancerSettings>();
  try {
    roster = mode.editable
      ? await managedFreelancers(deps, auth)
      : (await freelancers(deps, auth)).freelancers.map((f) => ({
          id: f.id,
          name: f.name,
          baseHourlyRate: f.baseHourlyRate,
          country: null,
          own: false,
          profiles: f.profiles.map((p) => ({ ...p, skills: null })),
        }));
    // Each freelancer's working hours and balance, read as GET /api/v1/automation?freelancerId= reads them.
    for (const f of roster) {
      const a = await getAutomation(deps, auth, f.id);
      settings.set(f.id, { workingHours: a.limits.workingHours, ownHours: a.freelancerSet?.workingHours !== undefined, balance: a.balance });
    }
  } catch (err) {
    if (err instanceof AppError && err.status >= 400 && err.status < 500) throw err;
    // The driver talks to the marketplace (or a bridge): its trouble is shown, not turned into a 5xx.
    deps.log.warn("dashboard: could not list freelancers", { accountId: session.accountId, error: err instanceof Error ? err.message : String(err) });
    return { ...base, error: "The freelancers could not be loaded from the marketplace right now." };
  }
  const feeds = [];
  for (const f of await listFeedRows(deps.db, auth.accountId)) {
    feeds.push({
      id: f.id,
      title: f.title || "Untitled feed",
      freelancerId: f.freelancerId,
      profileId: f.profileId,
      memberIds: await membersOfFeed(deps.db, f.id),
    });
  }
  const members = (await listMembers(deps, auth.accountId)).map((m) => ({ id: m.id, name: m.name }));
  const portfolios = new Map<string, { markdown: string; caseStudies: number }>();
  for (const p of roster.flatMap((f) => f.profiles)) {
    const { portfolio } = await portfolioOf(deps.db, auth.accountId, p.profileId);
    portfolios.set(p.profileId, { markdown: portfolioMarkdown(portfolio), caseStudies: portfolio.caseStudies.length });
  }
  return { ...base, freelancers: roster, settings, feeds, members, portfolios };
}

/**
 * The Freelancers page and its forms (issue 43): on the sandbox driver an agency adds, edits and removes its
 * freelancers and their profiles here; on every driver it sets jobpilot's own settings per freelancer (working
 * hours, the Connects balance) and routes each feed to a freelancer and to members. Every change goes through the
 * services the API's routes call (freelancers, automation), as the session's member.
 */
export function dashboardFreelancersRoutes(deps: Deps) {
  const { signedIn, open } = dashboardGuard(deps);

  /**
   * The page again with what went wrong and its status: the messages (naming the field) by the fields of `form`
   * (its id prefix on the page, "page" for a button alone), with what was typed.
   */
  async function refused(set: ResponseState, session: DashboardSession, status: number, messages: string[], form: Form): Promise<string> {
    return page(set, freelancersPage(session, { ...(await loadFreelancersPage(deps, session)), refusal: { ...form, messages } }), status);
  }

  /**
   * Runs a change: the API's schema check first (as its route does), then the service; a 4xx AppError re-shows the
   * page with its message, anything else is rethrown to the one error handler. Success goes back to the page.
   */
  async function change(
    set: ResponseState,
    session: DashboardSession,
    schema: TSchema | null,
    input: unknown,
    fn: (auth: AuthContext) => Promise<unknown>,
    saved: string,
    form: Form,
    anchor = "",
  ): Promise<string> {
    if (schema) {
      const bad = schemaErrors(schema, input);
      if (bad.length > 0) return refused(set, session, 400, bad, form);
    }
    try {
      await fn(await sessionAuth(deps, session));
    } catch (err) {
      if (!(err instanceof AppError) || err.status < 400 || err.status >= 500) throw err;
      return refused(set, session, err.status, [err.message], form);
    }
    return redirect(set, `${FREELANCERS}?saved=${saved}${anchor}`);
  }

  const freelancerBody = (v: Record<string, string | undefined>) => {
    const out: Record<string, unknown> = {};
    optionalText(out, "name", v.name);
    optionalNumber(out, "hourlyRate", v.hourlyRate);
    optionalText(out, "country", v.country);
    return out;
  };
  const profileBody = (v: Record<string, string | undefined>) => {
    const out: Record<string, unknown> = {};
    optionalText(out, "name", v.name);
    optionalNumber(out, "hourlyRate", v.hourlyRate);
    if (v.skills !== undefined) out.skills = skillsOf(v.skills);
    return out;
  };

  return new Elysia({ name: "dashboard-freelancers" })
    .get(
      FREELANCERS,
      async ({ request, set }) => {
        const session = await signedIn(request, set);
        if (typeof session === "string") return session;
        const notice = SAVED_NOTICES[new URL(request.url).searchParams.get("saved") ?? ""];
        try {
          return page(set, freelancersPage(session, { ...(await loadFreelancersPage(deps, session)), notice }));
        } catch (err) {
          return errorAsPage(err, set, session, "Could not load the freelancers");
        }
      },
      HIDDEN,
    )
    .post(
      FREELANCERS,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const v = formValues(body);
        const input = freelancerBody(v);
        if (input.name === undefined) input.name = "";
        return change(set, session, NewFreelancerBody, input, (auth) => createFreelancer(deps, auth, input as typeof NewFreelancerBody.static), "added", {
          form: "new",
          values: v,
        });
      },
      needs("freelancers"),
    )
    .post(
      `${FREELANCERS}/routing/:feedId`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const v = formValues(body);
        // One select names the profile (its freelancer follows); the members are checkboxes, all sent as memberIds.
        const picked = (v.profileId ?? "").trim();
        const raw = (body as Record<string, unknown> | null)?.memberIds;
        const memberIds = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((m): m is string => typeof m === "string" && m !== "");
        const input = picked === "" ? { freelancerId: null, memberIds } : { profileId: picked, memberIds };
        return change(
          set,
          session,
          FeedAutomationBody,
          input,
          (auth) => putFeedAutomation(deps, auth, params.feedId, input),
          "routing",
          { form: `r-${params.feedId}`, values: v },
          "#routing",
        );
      },
      needs("feeds"),
    )
    .post(
      `${FREELANCERS}/:id`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const v = formValues(body);
        const input = freelancerBody(v);
        return change(set, session, FreelancerPatch, input, (auth) => updateFreelancer(deps, auth, params.id, input), "changed", {
          form: `f-${params.id}`,
          values: v,
        });
      },
      needs("freelancers"),
    )
    .post(
      `${FREELANCERS}/:id/remove`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        return change(set, session, null, null, (auth) => removeFreelancer(deps, auth, params.id), "removed", PAGE_FORM);
      },
      needs("freelancers"),
    )
    .post(
      `${FREELANCERS}/:id/settings`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const v = formValues(body);
        const raw = (body as Record<string, unknown> | null)?.days;
        const days = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((d) => Number(d));
        const zone = (v.timeZone ?? "").trim();
        // Working hours change only when the time zone is filled in; the balance only when a number is.
        const patch =
          zone === "" ? null : { freelancerId: params.id, workingHours: { timeZone: zone, days, start: (v.start ?? "").trim(), end: (v.end ?? "").trim() } };
        const balanceText = (v.available ?? "").trim();
        const balance = balanceText === "" ? null : { freelancerId: params.id, available: numberOrText(balanceText) };
        const form = { form: `s-${params.id}`, values: v };
        if (patch) {
          const bad = schemaErrors(AutomationPatch, patch).map((m) => m.replace(/^workingHours\.days.*/, "workingHours.days: tick at least one day"));
          if (bad.length > 0) return refused(set, session, 400, bad, form);
        }
        if (balance) {
          const bad = schemaErrors(ConnectsBody, balance);
          if (bad.length > 0) return refused(set, session, 400, bad, form);
        }
        return change(
          set,
          session,
          null,
          null,
          async (auth) => {
            if (patch) await patchAutomation(deps, auth, patch as Parameters<typeof patchAutomation>[2]);
            if (balance) await setBalance(deps, auth, balance as { freelancerId: string; available: number });
          },
          "settings",
          form,
        );
      },
      needs("freelancers"),
    )
    .post(
      `${FREELANCERS}/:id/profiles`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const v = formValues(body);
        const input = profileBody(v);
        if (input.name === undefined) input.name = "";
        return change(set, session, NewProfileBody, input, (auth) => addProfile(deps, auth, params.id, input as typeof NewProfileBody.static), "profile", {
          form: `f-${params.id}-p`,
          values: v,
        });
      },
      needs("freelancers"),
    )
    .post(
      `${FREELANCERS}/:id/profiles/:profileId`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const v = formValues(body);
        const input = profileBody(v);
        return change(set, session, ProfilePatch, input, (auth) => updateProfile(deps, auth, params.id, params.profileId, input), "profile", {
          form: `p-${params.profileId}`,
          values: v,
        });
      },
      needs("freelancers"),
    )
    .post(
      `${FREELANCERS}/:id/profiles/:profileId/portfolio`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const v = formValues(body);
        const text = v.text ?? "";
        // An emptied text clears the portfolio; anything else is read as the API's Markdown import reads it.
        return change(
          set,
          session,
          PortfolioImportBody,
          { format: "markdown", text: text.trim() === "" ? "# Case studies" : text },
          (auth) => savePortfolio(deps, auth, params.profileId, text.trim() === "" ? EMPTY_PORTFOLIO : parseImport("markdown", text)),
          "portfolio",
          { form: `pf-${params.profileId}`, values: v },
        );
      },
      needs("freelancers"),
    )
    .post(
      `${FREELANCERS}/:id/profiles/:profileId/remove`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        return change(set, session, null, null, (auth) => removeProfile(deps, auth, params.id, params.profileId), "profile-removed", PAGE_FORM);
      },
      needs("freelancers"),
    );
}

/**
 * The profile a feed the job matched routes its jobs to (the first such feed): the job page's apply
 * form preselects it, as draft and auto mode send as it. Undefined when no feed of the job routes.
 */
export async function routedProfileOf(db: Deps["db"], accountId: string, jobCiphertext: string): Promise<string | undefined> {
  const feedIds = new Set((await matchesOfJob(db, accountId, jobCiphertext)).map((m) => m.feedId));
  if (feedIds.size === 0) return undefined;
  return (await listFeedRows(db, accountId)).find((f) => feedIds.has(f.id) && f.profileId !== null)?.profileId ?? undefined;
}
