import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { COMPANION_KEY_LABEL, createPairingCode, type PairingCode } from "../pairing/service";
import { html } from "./html";
import { dashboardGuard, HIDDEN, page } from "./http";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { COMPANION_SOURCE_LABEL, sourceStatuses } from "./overview";
import { csrfField, layout, when } from "./views";

const COMPANION = `${DASHBOARD_PATH}/companion`;

/** The server's address as the browser reached it (or JOBPILOT_PUBLIC_URL): what the extension's options page needs. */
function serverUrl(deps: Deps, request: Request): string {
  return (deps.config.publicUrl ?? new URL(request.url).origin).replace(/\/+$/, "");
}

function companionPage(
  session: DashboardSession,
  view: { server: string; code?: PairingCode; status?: { lastPollAtTs: number | null; lastNew: number; lastError: string | null } },
) {
  const status = view.status;
  return layout(
    "Install the browser companion",
    html`<p>The browser companion is an extension for Chromium-based browsers. It reads the marketplace's job pages, searches and "find work" lists
<strong>in your own logged-in browser</strong> and sends the jobs to this server only, where they go through your feeds like any other job.</p>
<ol class="steps">
<li><strong>Download</strong> <a href="/extension.zip" download>jobpilot-companion.zip</a>.</li>
<li><strong>Unzip</strong> it into a folder you keep (the browser loads the extension from there).</li>
<li><strong>Load unpacked</strong>: open <code>chrome://extensions</code>, turn on Developer mode, click "Load unpacked" and choose the folder.</li>
</ol>
<h2>Pair it with this server</h2>
<p>In the extension's options, enter the server address <code>${view.server}</code> and a pairing code. The code works once, for 10 minutes, and gets the
extension its own API key (labelled "${COMPANION_KEY_LABEL}"; revoke it on the <a href="/dashboard/keys">API keys</a> page to unpair).</p>
${
  view.code
    ? html`<p class="notice">Pairing code: <strong data-test="pairing-code">${view.code.code}</strong> (valid until ${when(view.code.expiresAt)})</p>`
    : html`<form method="post" action="${COMPANION}/pair">${csrfField(session)}<button type="submit">Make a pairing code</button></form>`
}
<h2>Status</h2>
${
  status
    ? html`<p data-test="companion-status">Last capture ${status.lastPollAtTs === null ? "never" : when(status.lastPollAtTs)}; ${status.lastNew} new jobs in the last batch.
${status.lastError ? html`<strong class="error-text">${status.lastError}</strong>` : html`Watching normally.`}</p>`
    : html`<p class="muted" data-test="companion-status">No companion has sent anything yet.</p>`
}
<p>Try it on the sandbox marketplace: <a href="/sandbox/site/nx/search/jobs/">open the sandbox site</a> (log in there with one of your API keys).</p>`,
    session,
    "companion",
  );
}

/** The "Install the browser companion" page: the three steps, a pairing code, the companion's status. */
export function dashboardCompanionRoutes(deps: Deps) {
  const { open } = dashboardGuard(deps);
  const statusOf = async (accountId: string) => (await sourceStatuses(deps.db, deps.config, accountId)).find((s) => s.name === COMPANION_SOURCE_LABEL);
  return new Elysia()
    .get(
      COMPANION,
      async ({ request, set }) => {
        const session = await open(request, set);
        if (typeof session === "string") return session;
        return page(set, companionPage(session, { server: serverUrl(deps, request), status: await statusOf(session.accountId) }));
      },
      HIDDEN,
    )
    .post(
      `${COMPANION}/pair`,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        const code = await createPairingCode(deps, session.accountId);
        // 200, not a redirect: the code is shown on this response only.
        return page(set, companionPage(session, { server: serverUrl(deps, request), code, status: await statusOf(session.accountId) }));
      },
      HIDDEN,
    );
}
