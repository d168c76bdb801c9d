import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { COMPANION_MODES, MARKETPLACE_DRIVERS, type MarketplaceDriverName } from "../../db/enums";
import { AppError } from "../../errors";
import { isOneOf } from "../../lib/one-of";
import { AUTO_MODE_WARNING } from "../../marketplace/companion/contract";
import { driverNameFor } from "../accounts/drivers";
import { findAccount } from "../accounts/repo";
import { setMarketplaceDriver } from "../accounts/service";
import { DEFAULT_LIMITS, effectiveLimits, type Limits } from "../automation/limits";
import { AutomationPatch, ConnectsBody, FeedAutomationBody } from "../automation/model";
import { type AutomationView, getAutomation, getFeedAutomation, patchAutomation, putFeedAutomation, setBalance } from "../automation/service";
import { listFeeds } from "../feeds/service";
import {
  CONNECTS_FIELDS,
  type FeedRow,
  feedFieldId,
  feedFields,
  feedModesSection,
  type FormValues,
  type FreelancerChoice,
  LIMIT_FIELDS,
  type LimitsSectionData,
  limitsSection,
  NULLABLE_LIMITS,
  NUMBER_LIMITS,
  type PageState,
} from "./automation-views";
import { freelancerChoices } from "./freelancers";
import { formErrors } from "./form-errors";
import { html, raw, type Html } from "./html";
import { dashboardGuard, errorDetails, field, formValues, HIDDEN, needs, numberOrText, page, redirect, schemaErrors } from "./http";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { sessionAuth } from "./service";
import * as views from "./views";
import { csrfField, layout, when } from "./views";

const PATH = `${DASHBOARD_PATH}/auto-apply`;

const DRIVER_LABELS: Record<MarketplaceDriverName, string> = {
  sandbox: "Sandbox — the simulated marketplace (try things out)",
  bridge: "Bridge — your own submitter (JOBPILOT_BRIDGE_URL)",
  companion: "Browser companion — the extension in your own logged-in browser",
};

interface AutoApplyView {
  own: string | null;
  effective: string;
  connected: boolean;
  lastSeenAt: number | null;
  mode: string;
  minGapMs: number;
  reviewTimeoutMs: number;
  limits: LimitsSectionData;
  feeds: FeedRow[];
}

function autoApplyPage(session: DashboardSession, v: AutoApplyView, error?: string, state: PageState = {}): Html {
  const option = (value: string, label: string, selected: boolean) => html`<option value="${value}"${selected ? raw(" selected") : ""}>${label}</option>`;
  return layout(
    "Auto-apply",
    html`${error && html`<p class="error" role="alert">${error}</p>`}
${state.notice && html`<div class="notice" role="status"><p>${state.notice}</p></div>`}
${limitsSection(session, v.limits, state)}
${feedModesSection(session, v.feeds, state)}
<section>
<h2>How proposals are submitted</h2>
<p>Now: <strong>${v.effective}</strong>${v.own === null && html` <span class="muted">(the server default)</span>`}.</p>
<form method="post" action="${PATH}/driver">${csrfField(session)}
<label for="driver">Driver</label>
<select id="driver" name="driver">
${option("default", "Server default (the browser companion once paired, else JOBPILOT_MARKETPLACE_DRIVER or the sandbox)", v.own === null)}
${MARKETPLACE_DRIVERS.map((d) => option(d, DRIVER_LABELS[d], v.own === d))}
</select>
<button type="submit">Save</button>
</form>
</section>
<section>
<h2>Browser companion</h2>
<p>${v.connected ? html`<span class="badge status-applied">connected</span>` : html`<span class="badge status-failed">offline</span>`} last seen ${when(v.lastSeenAt)}</p>
<p class="muted">One submission at a time, at least ${Math.round(v.minGapMs / 1000)} s apart. In review mode a filled form waits ${Math.round(v.reviewTimeoutMs / 60_000)} min for your click.</p>
<form method="post" action="${PATH}/mode">${csrfField(session)}
<fieldset>
<legend>Submission mode</legend>
<label><input type="radio" name="mode" value="review"${v.mode === "review" ? raw(" checked") : ""}> Review — the companion fills the form and you click submit (recommended)</label>
<label><input type="radio" name="mode" value="auto"${v.mode === "auto" ? raw(" checked") : ""}> Auto — the companion submits on its own</label>
</fieldset>
<p class="error"><strong>Warning:</strong> ${AUTO_MODE_WARNING}</p>
<label><input type="checkbox" name="acceptAutoSubmitRisk" value="yes"> I understand, and want auto mode</label>
<button type="submit">Save</button>
</form>
</section>`,
    session,
    "auto-apply",
  );
}

const SAVED: Record<string, string> = {
  limits: "Limits saved.",
  balance: "Connects balance saved.",
  feed: "Feed mode saved.",
};

/**
 * The limits form's strings → the API's PATCH body. An empty count or alert falls back to what it inherits (the
 * default, or for a freelancer the account's), an empty Connects budget is none. Only what differs from what holds
 * now is sent, so the audit log says what was changed, and a freelancer's untouched field keeps following the account.
 */
export function toLimitsPatch(values: FormValues, view: AutomationView, inherited: Limits): Record<string, unknown> {
  const own = (view.freelancerId === null ? view.accountSet : view.freelancerSet) ?? {};
  const body: Record<string, unknown> = {};
  if (view.freelancerId !== null) body.freelancerId = view.freelancerId;
  const now = (k: keyof Limits) => (own[k] === undefined ? inherited[k] : own[k]);
  for (const k of NUMBER_LIMITS) {
    const text = (values[k] ?? "").trim();
    const next = text !== "" ? numberOrText(text) : NULLABLE_LIMITS.has(k) && view.freelancerId === null ? null : inherited[k];
    if (next !== now(k)) body[k] = next;
  }
  const hours =
    values.whAny === "on"
      ? null
      : {
          timeZone: (values.whTimeZone ?? "").trim(),
          days: [0, 1, 2, 3, 4, 5, 6].filter((d) => values[`whDay${d}`] === "on"),
          start: (values.whStart ?? "").trim(),
          end: (values.whEnd ?? "").trim(),
        };
  if (JSON.stringify(hours) !== JSON.stringify(now("workingHours"))) body.workingHours = hours;
  return body;
}

/** The feed row's strings → the API's PUT body; an empty threshold is none. */
export function toFeedBody(values: FormValues): Record<string, unknown> {
  const num = (name: string) => {
    const text = (values[name] ?? "").trim();
    return text === "" ? null : numberOrText(text);
  };
  return { applyMode: values.applyMode ?? "", minScore: num("minScore"), minExpectedUsd: num("minExpectedUsd"), overBudget: values.overBudget ?? "" };
}

const isRefusal = (err: unknown): err is AppError => err instanceof AppError && (err.code === "bad_request" || err.code === "not_found");

/** The account's auto-apply settings: its driver, and the browser companion's review or auto mode. */
export function dashboardAutoApplyRoutes(deps: Deps) {
  const { signedIn, open } = dashboardGuard(deps);

  async function limitsData(session: DashboardSession, freelancerId: string | null, list: FreelancerChoice[]): Promise<LimitsSectionData> {
    const auth = await sessionAuth(deps, session);
    const view = await getAutomation(deps, auth, freelancerId ?? undefined);
    const balances =
      freelancerId === null ? await Promise.all(list.map(async (f) => ({ freelancer: f, balance: (await getAutomation(deps, auth, f.id)).balance }))) : [];
    // What an empty field falls back to: the defaults for the account, the account's own limits for a freelancer.
    const inherited = freelancerId === null ? DEFAULT_LIMITS : effectiveLimits(view.accountSet, undefined);
    return { view, freelancers: list, balances, inherited };
  }

  async function feedRows(session: DashboardSession): Promise<FeedRow[]> {
    const auth = await sessionAuth(deps, session);
    const feeds = await listFeeds(deps, auth);
    return Promise.all(feeds.map(async (f) => ({ feedId: f.id, title: f.title ?? f.id, automation: await getFeedAutomation(deps, auth, f.id) })));
  }

  async function view(session: DashboardSession, freelancerId: string | null = null): Promise<AutoApplyView> {
    const accountId = session.accountId;
    const seen = await deps.drivers.companion.presence(accountId);
    const list = await freelancerChoices(deps, session, "auto-apply page");
    const chosen = freelancerId !== null && list.some((f) => f.id === freelancerId) ? freelancerId : null;
    return {
      own: (await findAccount(deps.db, accountId))?.marketplaceDriver ?? null,
      effective: await driverNameFor(deps, accountId),
      connected: seen.connected,
      lastSeenAt: seen.lastSeenAt,
      mode: seen.mode,
      minGapMs: deps.config.companionMinGapMs,
      reviewTimeoutMs: deps.config.companionReviewTimeoutMs,
      limits: await limitsData(session, chosen, list),
      feeds: await feedRows(session),
    };
  }

  return new Elysia({ name: "dashboard-auto-apply" })
    .get(
      PATH,
      async ({ request, set }) => {
        const session = await signedIn(request, set);
        if (typeof session === "string") return session;
        const q = new URL(request.url).searchParams;
        const notice = SAVED[q.get("saved") ?? ""];
        return page(set, autoApplyPage(session, await view(session, q.get("freelancer") || null), undefined, { notice }));
      },
      HIDDEN,
    )
    .post(
      `${PATH}/limits`,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const values = formValues(body);
        const v = await view(session, values.freelancerId || null);
        const target = v.limits.view.freelancerId;
        // A freelancer that is not (or no longer) the account's must not fall through to the account's own limits.
        if (values.freelancerId && target === null) return page(set, views.errorPage("Not found", "This account has no such freelancer.", session), 404);
        const back = target === null ? PATH : `${PATH}?freelancer=${encodeURIComponent(target)}`;
        const patch = toLimitsPatch(values, v.limits.view, v.limits.inherited);
        const refuse = (details: string[]) =>
          page(set, autoApplyPage(session, v, undefined, { limits: { errors: formErrors(details, LIMIT_FIELDS), values } }), 400);
        // The API's schema check first, as its route does; then the service's own checks (time zone, a span of no time).
        const bad = schemaErrors(AutomationPatch, patch);
        if (bad.length > 0) return refuse(bad);
        if (Object.keys(patch).every((k) => k === "freelancerId")) return redirect(set, `${back}${back.includes("?") ? "&" : "?"}saved=limits#limits`);
        try {
          await patchAutomation(deps, await sessionAuth(deps, session), patch as Parameters<typeof patchAutomation>[2]);
        } catch (err) {
          if (!isRefusal(err)) throw err;
          return refuse(errorDetails(err));
        }
        return redirect(set, `${back}${back.includes("?") ? "&" : "?"}saved=limits#limits`);
      },
      needs("automation"),
    )
    .post(
      `${PATH}/connects`,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const values = formValues(body);
        const backTo = values.back?.startsWith(`${PATH}?freelancer=`) ? values.back : PATH;
        const available = (values.available ?? "").trim();
        // Empty stays text (numberOrText would read it as 0), so the schema check names the field.
        const input = { freelancerId: values.freelancerId ?? "", available: available === "" ? "" : numberOrText(available) };
        const refuse = async (details: string[]) =>
          page(
            set,
            autoApplyPage(session, await view(session, new URL(backTo, "http://x").searchParams.get("freelancer")), undefined, {
              connects: { errors: formErrors(details, CONNECTS_FIELDS), values },
            }),
            400,
          );
        const bad = schemaErrors(ConnectsBody, input);
        if (bad.length > 0) return refuse(bad);
        try {
          await setBalance(deps, await sessionAuth(deps, session), input as { freelancerId: string; available: number });
        } catch (err) {
          if (!isRefusal(err)) throw err;
          return refuse(err.code === "not_found" ? ["freelancerId is not one of this account's freelancers"] : errorDetails(err));
        }
        return redirect(set, `${backTo}${backTo.includes("?") ? "&" : "?"}saved=balance#balance-heading`);
      },
      needs("automation"),
    )
    .post(
      `${PATH}/feeds/:feedId`,
      async ({ request, set, body, params }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const values = formValues(body);
        const feedId = params.feedId;
        const input = toFeedBody(values);
        const refuse = async (details: string[], needs?: "workingHours" | "budget") =>
          page(
            set,
            autoApplyPage(session, await view(session), undefined, { feed: { feedId, errors: formErrors(details, feedFields(feedId)), values, needs } }),
            400,
          );
        const bad = schemaErrors(FeedAutomationBody, input);
        if (bad.length > 0) return refuse(bad);
        try {
          await putFeedAutomation(deps, await sessionAuth(deps, session), feedId, input as Parameters<typeof putFeedAutomation>[3]);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          if (err.code === "not_found") return page(set, views.errorPage("Not found", "This account has no such feed.", session), 404);
          if (err.code !== "bad_request") throw err;
          if (/^applyMode: auto needs working hours/.test(err.message)) return refuse([], "workingHours");
          if (/^applyMode: auto needs a Connects budget/.test(err.message)) return refuse([], "budget");
          return refuse(errorDetails(err));
        }
        return redirect(set, `${PATH}?saved=feed#${feedFieldId(feedId, "row")}`);
      },
      needs("feeds"),
    )
    .post(
      `${PATH}/driver`,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const driver = field(body, "driver");
        if (driver !== "default" && !isOneOf(MARKETPLACE_DRIVERS, driver)) {
          return page(set, autoApplyPage(session, await view(session), `Choose one of the drivers listed (got "${driver ?? ""}").`), 400);
        }
        await setMarketplaceDriver(deps, session.accountId, driver === "default" ? null : driver);
        return redirect(set, PATH);
      },
      needs("automation"),
    )
    .post(
      `${PATH}/mode`,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const mode = field(body, "mode");
        if (!isOneOf(COMPANION_MODES, mode)) {
          return page(set, autoApplyPage(session, await view(session), "Choose review or auto."), 400);
        }
        if (mode === "auto" && field(body, "acceptAutoSubmitRisk") !== "yes") {
          return page(set, autoApplyPage(session, await view(session), "Auto mode stays off until you tick the box under the warning."), 400);
        }
        await deps.drivers.companion.setMode(session.accountId, mode);
        return redirect(set, PATH);
      },
      needs("automation"),
    );
}
