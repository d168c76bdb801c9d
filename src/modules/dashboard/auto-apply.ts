import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { COMPANION_MODES, MARKETPLACE_DRIVERS, type MarketplaceDriverName } from "../../db/enums";
import { isOneOf } from "../../lib/one-of";
import { AUTO_MODE_WARNING } from "../../marketplace/companion/contract";
import { driverNameFor } from "../accounts/drivers";
import { findAccount } from "../accounts/repo";
import { setMarketplaceDriver } from "../accounts/service";
import { html, raw, type Html } from "./html";
import { dashboardGuard, field, HIDDEN, page, redirect } from "./http";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
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
}

function autoApplyPage(session: DashboardSession, v: AutoApplyView, error?: string): Html {
  const option = (value: string, label: string, selected: boolean) => html`<option value="${value}"${selected ? raw(" selected") : ""}>${label}</option>`;
  return layout(
    "Auto-apply",
    html`${error && html`<p class="error" role="alert">${error}</p>`}
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

/** The account's auto-apply settings: its driver, and the browser companion's review or auto mode. */
export function dashboardAutoApplyRoutes(deps: Deps) {
  const { signedIn, open } = dashboardGuard(deps);
  async function view(accountId: string): Promise<AutoApplyView> {
    const seen = await deps.drivers.companion.presence(accountId);
    return {
      own: (await findAccount(deps.db, accountId))?.marketplaceDriver ?? null,
      effective: await driverNameFor(deps, accountId),
      connected: seen.connected,
      lastSeenAt: seen.lastSeenAt,
      mode: seen.mode,
      minGapMs: deps.config.companionMinGapMs,
      reviewTimeoutMs: deps.config.companionReviewTimeoutMs,
    };
  }

  return new Elysia({ name: "dashboard-auto-apply" })
    .get(
      PATH,
      async ({ request, set }) => {
        const session = await signedIn(request, set);
        if (!session) return "";
        return page(set, autoApplyPage(session, await view(session.accountId)));
      },
      HIDDEN,
    )
    .post(
      `${PATH}/driver`,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const driver = field(body, "driver");
        if (driver !== "default" && !isOneOf(MARKETPLACE_DRIVERS, driver)) {
          return page(set, autoApplyPage(session, await view(session.accountId), `Choose one of the drivers listed (got "${driver ?? ""}").`), 400);
        }
        await setMarketplaceDriver(deps, session.accountId, driver === "default" ? null : driver);
        return redirect(set, PATH);
      },
      HIDDEN,
    )
    .post(
      `${PATH}/mode`,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const mode = field(body, "mode");
        if (!isOneOf(COMPANION_MODES, mode)) {
          return page(set, autoApplyPage(session, await view(session.accountId), "Choose review or auto."), 400);
        }
        if (mode === "auto" && field(body, "acceptAutoSubmitRisk") !== "yes") {
          return page(set, autoApplyPage(session, await view(session.accountId), "Auto mode stays off until you tick the box under the warning."), 400);
        }
        await deps.drivers.companion.setMode(session.accountId, mode);
        return redirect(set, PATH);
      },
      HIDDEN,
    );
}
