import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { newestLiveKeyLabelledAt } from "../accounts/repo";
import { pairingText } from "../companion/model";
import { COMPANION_KEY_LABEL, createPairingCode, type PairingCode, unpairCompanion } from "../companion/service";
import { dashboardBase } from "../members/invite-mail";
import { html } from "./html";
import { dashboardGuard, HIDDEN, page, redirect, needs } from "./http";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { COMPANION_SOURCE_LABEL, sourceStatuses } from "./overview";
import { csrfField, layout, when } from "./views";

const COMPANION = `${DASHBOARD_PATH}/companion`;

/** The account's companion as the page shows it: paired since when (its key), connected or last seen when. */
interface PairedView {
  pairedAt: number;
  connected: boolean;
  lastSeenAt: number | null;
}

function pairedSection(session: DashboardSession, paired: PairedView | null) {
  if (!paired) return html`<p class="muted" data-test="companion-paired">No browser companion is paired with this account yet.</p>`;
  const { pairedAt, connected, lastSeenAt } = paired;
  // A companion is only used once it has polled since it was paired: until then applications go to the sandbox.
  const hasConnected = lastSeenAt !== null && lastSeenAt >= pairedAt;
  const state = connected
    ? html`<strong>Connected</strong> (last seen ${when(lastSeenAt)}). Applications to marketplace jobs go through it (jobs of the sandbox still go to the sandbox).`
    : hasConnected
      ? html`Not connected now: last seen ${when(lastSeenAt)}. Open the browser where it is installed.`
      : html`<strong class="error-text">Not connected yet.</strong> Open the extension's options page in the browser where it is installed: it says why it
cannot reach this server. Until it connects, applications go to the sandbox.`;
  return html`<p data-test="companion-paired">Paired since ${when(pairedAt)}. ${state}</p>
<form method="post" action="${COMPANION}/unpair">${csrfField(session)}<button type="submit">Unpair</button>
<span class="muted">revokes its key (labelled "${COMPANION_KEY_LABEL}", also listed on the <a href="/dashboard/keys">API keys</a> page); the extension stops at once</span></form>`;
}

function companionPage(
  session: DashboardSession,
  view: {
    server: string;
    code?: PairingCode;
    paired: PairedView | null;
    status?: { lastPollAtTs: number | null; lastNew: number; lastError: string | null };
  },
) {
  const status = view.status;
  const install = html`<ol class="steps">
<li><strong>Download</strong> <a href="/extension.zip" download>jobpilot-companion.zip</a>.</li>
<li><strong>Unzip</strong> it into a folder you keep (the browser loads the extension from there).</li>
<li><strong>Load unpacked</strong>: open <code>chrome://extensions</code>, turn on Developer mode, click "Load unpacked" and choose the folder.</li>
</ol>`;
  return layout(
    view.paired ? "Browser companion" : "Install the browser companion",
    html`<p>The browser companion is an extension for Chromium-based browsers. It reads the marketplace's job pages, searches and "find work" lists
<strong>in your own logged-in browser</strong> and sends the jobs to this server only, where they go through your feeds like any other job.</p>
<h2>This account's companion</h2>
${pairedSection(session, view.paired)}
${view.paired ? html`<details><summary>Install it in another browser</summary>${install}</details>` : install}
<h2>${view.paired ? "Pair again" : "Pair it with this server"}</h2>
<p>Copy the pairing line into the extension's options page (it holds the code and this server's address, <code>${view.server}</code>). The code works once,
for 10 minutes, and gets the extension its own API key. The extension asks you to allow it to reach this address: allow it.</p>
${
  view.code
    ? html`<div class="notice"><p>Pairing line (valid until ${when(view.code.expiresAt)}):</p>
<code class="secret" id="pairing-text" data-test="pairing-text">${pairingText(view.code.code, view.server)}</code>
<p><button type="button" data-copy="pairing-text" hidden>Copy</button> The code alone: <strong data-test="pairing-code">${view.code.code}</strong></p></div>`
    : html`<form method="post" action="${COMPANION}/pair">${csrfField(session)}<button type="submit">Make a pairing code</button></form>`
}
<h2>Captured jobs</h2>
${
  status
    ? html`<p data-test="companion-status">Last capture ${status.lastPollAtTs === null ? "never" : when(status.lastPollAtTs)}; ${status.lastNew} new jobs in the last batch.
${status.lastError ? html`<strong class="error-text">${status.lastError}</strong>` : html`Watching normally.`}</p>`
    : html`<p class="muted" data-test="companion-status">No jobs captured yet: open a marketplace search or job page in the browser where the companion runs.</p>`
}
<p>Try it on the sandbox marketplace: <a href="/sandbox/site/nx/search/jobs/">open the sandbox site</a> (log in there with one of your API keys).</p>`,
    session,
    "companion",
  );
}

/** The browser companion page: its paired state, the install steps, a pairing line, what it captured. */
export function dashboardCompanionRoutes(deps: Deps) {
  const { open } = dashboardGuard(deps);
  const statusOf = async (accountId: string) => (await sourceStatuses(deps.db, deps.config, accountId)).find((s) => s.name === COMPANION_SOURCE_LABEL);
  async function pairedOf(accountId: string): Promise<PairedView | null> {
    const pairedAt = await newestLiveKeyLabelledAt(deps.db, accountId, COMPANION_KEY_LABEL);
    if (pairedAt === null) return null;
    const seen = await deps.drivers.companion.presence(accountId);
    return { pairedAt, connected: seen.connected, lastSeenAt: seen.lastSeenAt };
  }
  const view = async (request: Request, accountId: string, code?: PairingCode) => ({
    server: dashboardBase(deps.config.publicUrl, request),
    code,
    paired: await pairedOf(accountId),
    status: await statusOf(accountId),
  });
  return new Elysia()
    .get(
      COMPANION,
      async ({ request, set }) => {
        const session = await open(request, set);
        if (typeof session === "string") return session;
        return page(set, companionPage(session, await view(request, session.accountId)));
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
        return page(set, companionPage(session, await view(request, session.accountId, code)));
      },
      needs("keys"),
    )
    .post(
      `${COMPANION}/unpair`,
      async ({ request, set, body }) => {
        const session = await open(request, set, body);
        if (typeof session === "string") return session;
        await unpairCompanion(deps, session.accountId);
        return redirect(set, COMPANION);
      },
      needs("keys"),
    );
}
