import type { AccountView, KeyView } from "../accounts/model";
import { html, type Html } from "./html";
import type { DashboardSession } from "./model";

export function when(ts: number | null): string {
  return ts === null ? "—" : new Date(ts).toISOString().replace(/\.\d+Z$/, "Z").replace("T", " ");
}

/** The hidden field every state-changing form carries; checked against the session. */
export function csrfField(session: DashboardSession): Html {
  return html`<input type="hidden" name="csrf" value="${session.csrfToken}">`;
}

export function layout(title: string, body: Html, session?: DashboardSession): Html {
  const nav = session
    ? html`<nav aria-label="Dashboard"><a href="/dashboard">Overview</a><a href="/dashboard/keys">API keys</a><a href="/dashboard/feeds">Feeds</a><a href="/dashboard/applications">Applications</a><a href="/dashboard/freelancers">Freelancers</a></nav>
<form method="post" action="/dashboard/sign-out">${csrfField(session)}<button type="submit" class="link">Sign out</button></form>`
    : html`<nav aria-label="Dashboard"></nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · jobpilot</title>
<link rel="stylesheet" href="/dashboard/style.css">
</head>
<body>
<header><strong>jobpilot</strong>${nav}</header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}

export function linkConfirmPage(token: string): Html {
  return layout(
    "Sign in",
    html`<p>This one-time link signs you in to the dashboard. It works once and expires 15 minutes after it was made.</p>
<form method="post" action="/dashboard/link/${encodeURIComponent(token)}">
<button type="submit">Sign in</button>
</form>`,
  );
}

export function signInPage(message?: string): Html {
  return layout(
    "Sign in",
    html`${message && html`<p class="error" role="alert">${message}</p>`}
<form method="post" action="/dashboard/sign-in">
<label for="apiKey">API key</label>
<input type="password" id="apiKey" name="apiKey" autocomplete="off" required aria-describedby="apiKeyHelp">
<p id="apiKeyHelp" class="muted">Paste one of your account's API keys (<code>jp_live_…</code>). Or run <code>jobpilot dashboard link --account ID</code> on the server for a one-time sign-in link.</p>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function overviewPage(
  session: DashboardSession,
  data: { account: AccountView; activeKeys: number; totalKeys: number; feeds: number },
): Html {
  const { account } = data;
  return layout(
    "Overview",
    html`<p>Account <strong>${account.name}</strong> <span class="muted">(${account.kind}, ${account.id})</span></p>
<ul class="stats">
<li><strong>${account.credits}</strong> credits available</li>
<li><strong>${account.creditsHeld}</strong> credits held by applications in flight</li>
<li><strong>${data.activeKeys}</strong> active API keys <span class="muted">(${data.totalKeys} in all)</span></li>
<li><strong>${data.feeds}</strong> feeds</li>
</ul>`,
    session,
  );
}

export function keysPage(session: DashboardSession, keys: KeyView[], opts: { created?: { key: KeyView; apiKey: string }; message?: string } = {}): Html {
  const rows = keys.map(
    (k) => html`<tr>
<td>${k.label ?? html`<span class="muted">—</span>`}</td>
<td><code>${k.prefix}…</code></td>
<td>${when(k.createdAtTs)}</td>
<td>${when(k.lastUsedAtTs)}</td>
<td>${k.revokedAtTs === null
      ? html`<form method="post" action="/dashboard/keys/${k.id}/revoke">${csrfField(session)}<button type="submit" class="danger" aria-label="Revoke key ${k.label ?? k.prefix}">Revoke</button></form>`
      : html`Revoked ${when(k.revokedAtTs)}`}</td>
</tr>`,
  );
  return layout(
    "API keys",
    html`${opts.message && html`<p class="error" role="alert">${opts.message}</p>`}
${opts.created && html`<div class="notice" role="status">
<p>Created key <strong>${opts.created.key.label ?? opts.created.key.prefix}</strong>. Copy it now: it is stored only as a hash and will not be shown again.</p>
<code class="secret">${opts.created.apiKey}</code>
</div>`}
<div class="table-wrap">
<table>
<thead><tr><th scope="col">Label</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>
<h2>New key</h2>
<form method="post" action="/dashboard/keys">
${csrfField(session)}
<label for="label">Label</label>
<input type="text" id="label" name="label" maxlength="200" aria-describedby="labelHelp">
<p id="labelHelp" class="muted">What the key is for, e.g. production. Optional.</p>
<button type="submit">Create key</button>
</form>`,
    session,
  );
}

export function errorPage(title: string, message: string, session?: DashboardSession): Html {
  return layout(title, html`<p class="error" role="alert">${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`, session);
}
