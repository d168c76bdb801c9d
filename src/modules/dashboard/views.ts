import { webUrl } from "../../lib/web-url";
import { APPLICATION_STATUSES } from "../../db/enums";
import { iso } from "../../lib/time";
import type { KeyView } from "../accounts/model";
import { COMPANION_KEY_LABEL } from "../companion/service";
import { describedBy, errorSummary, fieldError, formErrors } from "./form-errors";
import { html, type Html } from "./html";
import type { DashboardSession } from "./model";
import { formatTime, type FeedMatches } from "./overview";
import type { OverviewData } from "./service";
import { can, mayGrant, type Permission, ROLE_ORDER } from "../members/permissions";

/** An absolute UTC time; the dashboard script turns it into "3 minutes ago" in the reader's language. */
export function when(ts: number | null): Html | string {
  if (ts === null) return "—";
  const at = iso(ts);
  return html`<time datetime="${at}">${at.replace(/\.\d+Z$/, "Z").replace("T", " ")}</time>`;
}

/**
 * The one way a page links somewhere outside the dashboard (a job posting):
 * only an absolute http or https URL becomes an href, whatever was stored, so a
 * javascript: or data: link never reaches a page; anything else shows `fallback`.
 */
export function externalLink(url: string | null | undefined, text: Html | string, fallback: Html | string = text): Html | string {
  const href = webUrl(url);
  return href === null ? fallback : html`<a href="${href}" rel="noopener noreferrer">${text}</a>`;
}

/** The hidden field every state-changing form carries; checked against the session. */
export function csrfField(session: DashboardSession): Html {
  return tokenField(session.csrfToken);
}

/** A form's CSRF token: the session's, or on a sign-in form the pre-session one its cookie holds. */
function tokenField(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

/** The dashboard's sections, in the navigation's order; a page names the one it belongs to. */
const SECTIONS = [
  { id: "inbox", href: "/dashboard", label: "Inbox" },
  { id: "review", href: "/dashboard/review", label: "Review" },
  { id: "overview", href: "/dashboard/overview", label: "Overview" },
  { id: "feeds", href: "/dashboard/feeds", label: "Feeds" },
  { id: "applications", href: "/dashboard/applications", label: "Applications" },
  { id: "analytics", href: "/dashboard/analytics", label: "Analytics" },
  { id: "experiments", href: "/dashboard/experiments", label: "Experiments" },
  { id: "auto-apply", href: "/dashboard/auto-apply", label: "Auto-apply" },
  { id: "channels", href: "/dashboard/channels", label: "Channels" },
  { id: "freelancers", href: "/dashboard/freelancers", label: "Freelancers" },
  { id: "companion", href: "/dashboard/companion", label: "Browser companion" },
  { id: "team", href: "/dashboard/team", label: "Team" },
  { id: "keys", href: "/dashboard/keys", label: "API keys" },
] as const;

/** Sections only some roles may open: the nav shows them to those roles alone (the pages refuse the rest with a 403). */
const SECTION_NEEDS: Partial<Record<(typeof SECTIONS)[number]["id"], readonly Permission[]>> = {
  team: ["members", "keys"],
  keys: ["keys"],
};

const isShown = (s: (typeof SECTIONS)[number], session: NavSession) => SECTION_NEEDS[s.id]?.some((p) => can(session.role, p)) ?? true;

export type Section = (typeof SECTIONS)[number]["id"];

/** A session as pages get it: with the number of applications waiting for review, for the nav's "Review (3)". */
export type NavSession = DashboardSession & { heldCount?: number };

const navLabel = (s: (typeof SECTIONS)[number], session: NavSession) =>
  s.id === "review" && session.heldCount
    ? html`${s.label} <span class="nav-count" aria-label="${session.heldCount} waiting">${session.heldCount}</span>`
    : s.label;

export function layout(
  title: string,
  body: Html,
  session?: NavSession,
  current?: Section,
  opts: { documentTitle?: string; wide?: boolean; scripts?: string[] } = {},
): Html {
  const here = SECTIONS.find((s) => s.id === current);
  // On a phone the eleven links would fill the first screen of every page: a <details> toggles them (no script),
  // its summary naming where you are. It is the nav's sibling, not its parent, so on wide screens the CSS can
  // hide the toggle and always show the links (a closed <details> never renders its own children).
  const nav = session
    ? html`<details class="menu"><summary>Menu${here && html`<span class="muted"> · ${here.label}</span>`}</summary></details>
<nav aria-label="Dashboard">${SECTIONS.filter((s) => isShown(s, session)).map((s) => html`<a href="${s.href}"${s.id === current ? html` aria-current="page"` : ""}>${navLabel(s, session)}</a>`)}</nav>
<form method="post" action="/dashboard/sign-out">${csrfField(session)}<button type="submit" class="link">Sign out</button></form>`
    : html`<nav aria-label="Dashboard"></nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${opts.documentTitle ?? title} · jobpilot</title>
<link rel="stylesheet" href="/dashboard/style.css">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"defaultSettleDelay":0,"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"[45]..","swap":true,"error":true}]}'>
<script src="/dashboard/htmx.js" defer></script>
<script src="/dashboard/app.js" defer></script>
${(opts.scripts ?? []).map(
  (src) => html`<script src="${src}" defer></script>
`,
)}</head>
<body>
<header><strong>jobpilot</strong>${nav}</header>
<main id="main"${opts.wide ? html` class="wide"` : ""}>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}

export function linkConfirmPage(token: string, csrf: string, message?: string): Html {
  return layout(
    "Sign in",
    html`${message && html`<p class="error" role="alert">${message}</p>`}
<p>This one-time link signs you in to the dashboard. It works once and expires 15 minutes after it was made.</p>
<form method="post" action="/dashboard/link/${encodeURIComponent(token)}">
${tokenField(csrf)}
<button type="submit">Sign in</button>
</form>`,
  );
}

/** A refused sign-in: the message goes next to the field it is about (`field`), or above both forms. */
export interface SignInErrors {
  field?: "apiKey" | "email" | "password";
  message: string;
  /** The address typed, shown again so only the password needs retyping. */
  email?: string;
}

const signInFieldError = (errors: SignInErrors | undefined, id: string): Html | false =>
  errors?.field === id && html`<p class="field-error error-text" id="${id}Error">${errors.message}</p>`;
const signInInvalid = (errors: SignInErrors | undefined, id: string, help: string): Html =>
  errors?.field === id ? html` aria-invalid="true" aria-describedby="${id}Error${help ? ` ${help}` : ""}"` : html`${help && html` aria-describedby="${help}"`}`;

/** Two ways in: a member's e-mail and password, or an API key (for accounts with no member yet). */
export function signInPage(csrf: string, message?: string, errors?: SignInErrors): Html {
  return layout(
    "Sign in",
    html`${message && html`<p class="error" role="alert">${message}</p>`}
<form method="post" action="/dashboard/sign-in/password">
${tokenField(csrf)}
<h2>With your e-mail and password</h2>
<label for="email">E-mail</label>
<input type="email" id="email" name="email" autocomplete="username" required value="${errors?.email ?? ""}"${signInInvalid(errors, "email", "")}>
${signInFieldError(errors, "email")}
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${signInInvalid(errors, "password", "")}>
${signInFieldError(errors, "password")}
<p><button type="submit">Sign in with password</button></p>
</form>
<form method="post" action="/dashboard/sign-in">
${tokenField(csrf)}
<h2>With an API key</h2>
<label for="apiKey">API key</label>
<input type="password" id="apiKey" name="apiKey" autocomplete="off" required${signInInvalid(errors, "apiKey", "apiKeyHelp")}>
${signInFieldError(errors, "apiKey")}
<p id="apiKeyHelp" class="muted">Paste one of your account's API keys (<code>jp_live_…</code>). Or run <code>jobpilot dashboard link --account ID</code> on the server for a one-time sign-in link.</p>
<button type="submit">Sign in with key</button>
</form>`,
  );
}

/** The form a one-time member link opens: a new password, twice. */
export function setPasswordPage(
  token: string,
  csrf: string,
  who: { email: string },
  errors?: { field: "password" | "repeat" | "email" | "name"; message: string },
  typed: { email?: string; name?: string } = {},
): Html {
  const err = (id: string) => errors?.field === id && html`<p class="field-error error-text" id="${id}Error">${errors.message}</p>`;
  const invalid = (id: string, help: string) =>
    errors?.field === id ? html` aria-invalid="true" aria-describedby="${id}Error ${help}"` : html` aria-describedby="${help}"`;
  // The first owner (printed by the first-run banner) has no address yet: they choose it here, with their name.
  const unclaimed = who.email === "";
  return layout(
    unclaimed ? "Set up the owner's sign-in" : "Set your password",
    html`${
      unclaimed
        ? html`<p>You own this jobpilot server's first account. Choose the e-mail and password you will sign in with. This link works once.</p>`
        : html`<p>Choose a password for <strong>${who.email}</strong>. This link works once.</p>`
    }
<form method="post" action="/dashboard/set-password?token=${encodeURIComponent(token)}">
${tokenField(csrf)}
${
  unclaimed &&
  html`<label for="email">Your e-mail</label>
<input type="email" id="email" name="email" autocomplete="username" maxlength="254" required value="${typed.email ?? ""}"${invalid("email", "emailHelp")}>
${err("email")}
<p id="emailHelp" class="muted">Your sign-in name; the team's invitations and the audit log use it.</p>
<label for="name">Your name</label>
<input type="text" id="name" name="name" autocomplete="name" maxlength="100" value="${typed.name ?? ""}"${invalid("name", "nameHelp")}>
${err("name")}
<p id="nameHelp" class="muted">How the dashboard names you. Optional: the part of the address before @.</p>`
}
<label for="password">New password</label>
<input type="password" id="password" name="password" autocomplete="new-password" required${invalid("password", "passwordHelp")}>
${err("password")}
<p id="passwordHelp" class="muted">At least 10 characters.</p>
<label for="repeat">Repeat the password</label>
<input type="password" id="repeat" name="repeat" autocomplete="new-password" required${invalid("repeat", "repeatHelp")}>
${err("repeat")}
<p id="repeatHelp" class="muted">The same again, to catch a typo.</p>
<button type="submit">Set password and sign in</button>
</form>`,
  );
}

/**
 * One feed's matches per day as a small bar chart with labelled axes, on the
 * scale `max` shared by every chart beside it (so equal bars mean equal counts),
 * with the numbers as a visually hidden table.
 */
function matchesChart(f: FeedMatches, locale: string, max: number): Html {
  const barW = 18;
  const gap = 6;
  const left = 26;
  const top = 6;
  const h = 48;
  const bottom = 18;
  const plotW = f.days.length * (barW + gap) - gap;
  const width = left + plotW;
  const height = top + h + bottom;
  const day = (ts: number, opts: Intl.DateTimeFormatOptions) => {
    try {
      return new Intl.DateTimeFormat(locale, { ...opts, timeZone: "UTC" }).format(new Date(ts));
    } catch {
      return new Date(ts).toISOString().slice(0, 10);
    }
  };
  const bars = f.days.map((d, i) => {
    const bh = d.count === 0 ? 1 : Math.max(2, Math.round((d.count / max) * h));
    return html`<rect x="${left + i * (barW + gap)}" y="${top + h - bh}" width="${barW}" height="${bh}" class="${d.count === 0 ? "bar-zero" : "bar"}"><title>${d.count} on ${day(d.dayStartTs, { day: "numeric", month: "short" })}</title></rect>`;
  });
  const first = f.days[0]!;
  const last = f.days[f.days.length - 1]!;
  const label = `${f.title}: ${f.total} ${f.total === 1 ? "match" : "matches"} in the last 7 days (bars per UTC day, scale 0 to ${max} matches)`;
  return html`<figure class="chart">
<figcaption><a href="/dashboard/feeds/${f.feedId}">${f.title}</a> <span class="muted">${f.total} in 7 days</span></figcaption>
<svg role="img" aria-label="${label}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">
<text x="${left - 4}" y="${top + 8}" text-anchor="end" font-size="10" fill="currentColor">${max}</text>
<text x="${left - 4}" y="${top + h}" text-anchor="end" font-size="10" fill="currentColor">0</text>
<line x1="${left - 2}" y1="${top}" x2="${left - 2}" y2="${top + h}" stroke="currentColor" stroke-width="1"/>
${bars}
<text x="${left}" y="${height - 4}" font-size="10" fill="currentColor">${day(first.dayStartTs, { day: "numeric", month: "short" })}</text>
<text x="${width}" y="${height - 4}" text-anchor="end" font-size="10" fill="currentColor">${day(last.dayStartTs, { day: "numeric", month: "short" })}</text>
</svg>
<div class="visually-hidden"><table><caption>Matches per day for ${f.title}</caption>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col">Matches</th></tr></thead>
<tbody>${f.days.map((d) => html`<tr><td>${day(d.dayStartTs, { weekday: "short", day: "numeric", month: "short" })}</td><td>${d.count}</td></tr>`)}</tbody>
</table></div>
</figure>`;
}

/** The busiest day of any feed: the one scale the charts side by side share. */
function sharedMax(matches: FeedMatches[]): number {
  return Math.max(1, ...matches.flatMap((f) => f.days.map((d) => d.count)));
}

export function overviewPage(session: DashboardSession, data: OverviewData, locale = "en"): Html {
  const { account, nowTs } = data;
  const t = (ts: number | null) => formatTime(ts, nowTs, locale);
  const statuses = APPLICATION_STATUSES.filter((s) => data.applications.week[s]);
  const applicationsSection =
    statuses.length === 0
      ? html`<p class="empty">No applications this week.</p>`
      : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Status</th><th scope="col">Today</th><th scope="col">This week</th></tr></thead>
<tbody>${statuses.map((s) => html`<tr><th scope="row"><span class="badge status-${s}">${s.replaceAll("_", " ")}</span></th><td>${data.applications.today[s] ?? 0}</td><td>${data.applications.week[s]}</td></tr>`)}</tbody>
</table></div>`;
  const anyMatches = data.matches.some((f) => f.total > 0);
  const matchesSection =
    data.matches.length === 0
      ? html`<p class="empty">No feeds yet. <a href="/dashboard/feeds">Create a feed</a> to start matching jobs.</p>`
      : anyMatches
        ? html`<p class="muted">Matches per UTC day; every chart uses the same scale (0 to ${sharedMax(data.matches)} matches a day).</p>
<div class="charts">${data.matches.map((f) => matchesChart(f, locale, sharedMax(data.matches)))}</div>`
        : html`<p class="empty">No matches in the last 7 days.</p>`;
  const webhookSection =
    data.webhookProblems.length === 0
      ? html`<p class="empty">All webhooks healthy.</p>`
      : html`<ul class="problems">${data.webhookProblems.map(
          (p) => html`<li>
<a href="/dashboard/feeds/${p.feedId}/deliveries">${p.title}</a>
${
  p.disabledAtTs !== null
    ? html`<span class="badge status-disabled">disabled</span> ${t(p.disabledAtTs)}${p.disabledReason && html`<br><span class="muted">${p.disabledReason}</span>`}`
    : html`<span class="badge status-failed">failing</span> since ${t(p.failingSinceTs)}`
}
</li>`,
        )}</ul>`;
  const sourcesSection =
    data.sources.length === 0
      ? html`<p class="empty">No sources enabled.</p>`
      : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Source</th><th scope="col">Last poll</th><th scope="col">New jobs</th><th scope="col">Last error</th></tr></thead>
<tbody>${data.sources.map(
          (s) => html`<tr>
<th scope="row">${s.name}</th>
<td>${s.lastPollAtTs === null ? html`<span class="muted">never</span>` : t(s.lastPollAtTs)}</td>
<td>${s.lastNew}</td>
<td>${s.lastError === null ? html`<span class="muted">—</span>` : html`<span class="error-text">${s.lastError}</span> ${t(s.lastErrorAtTs)}${s.consecutiveFailures > 1 && html` <span class="muted">(${s.consecutiveFailures} failures in a row)</span>`}`}</td>
</tr>`,
        )}</tbody>
</table></div>`;
  return layout(
    "Overview",
    html`<p>Account <strong>${account.name}</strong> <span class="muted">(${account.kind}, ${account.id})</span></p>
<ul class="stats">
<li><strong>${account.credits}</strong> credits available</li>
<li><strong>${account.creditsHeld}</strong> credits held by applications in flight</li>
<li><strong>${data.aiScoring.used}</strong> AI scorings this month <span class="muted">(${data.aiScoring.allowance === null ? "unlimited" : html`of ${data.aiScoring.allowance}`})</span></li>
<li><strong>${data.activeKeys}</strong> active API keys <span class="muted">(${data.totalKeys} in all)</span></li>
<li><strong>${data.feeds}</strong> feeds</li>
</ul>
<section aria-labelledby="ov-applications"><h2 id="ov-applications">Applications</h2>
<p class="muted">Today and this week (Monday to Sunday, UTC).</p>
${applicationsSection}
</section>
<section aria-labelledby="ov-matches"><h2 id="ov-matches">Matches per feed, last 7 days</h2>
${matchesSection}
</section>
<section aria-labelledby="ov-webhooks"><h2 id="ov-webhooks">Webhook health</h2>
${webhookSection}
</section>
<section aria-labelledby="ov-sources"><h2 id="ov-sources">Job sources</h2>
<p class="muted">Shared by every account on this server.</p>
${sourcesSection}
</section>`,
    session,
    "overview",
  );
}

export function keysPage(
  session: DashboardSession,
  keys: KeyView[],
  opts: { created?: { key: KeyView; apiKey: string }; message?: string } = {},
  time?: { nowTs: number; locale: string },
): Html {
  // Relative, localised times when the handler knows the request's language; the plain UTC form otherwise.
  const at = (ts: number | null) => (time ? formatTime(ts, time.nowTs, time.locale) : when(ts));
  // The one field of the form: a refusal of it (too long a label) is shown by it, in its label's words.
  const errors =
    opts.message === undefined
      ? undefined
      : formErrors(
          [opts.message],
          [
            { path: "label", id: "label", label: "Label" },
            { path: "role", id: "role", label: "Role" },
          ],
        );
  const rows = keys.map(
    (k) => html`<tr>
<td data-label="Label" class="primary">${k.label ?? html`<span class="muted">—</span>`}${keyRole(session, k) && html` <span class="badge">${keyRole(session, k) === "session" ? "signed in with" : "browser companion"}</span>`}</td>
<td data-label="Prefix"><code>${k.prefix}…</code></td>
<td data-label="Role">${k.role}</td>
<td data-label="Created">${at(k.createdAtTs)}</td>
<td data-label="Last used">${at(k.lastUsedAtTs)}</td>
<td data-label="Status" class="unlabelled">${
      k.revokedAtTs === null
        ? html`<form method="get" action="/dashboard/keys/${k.id}/revoke"><button type="submit" class="danger" aria-label="Revoke key ${k.label ?? k.prefix}">Revoke</button></form>`
        : html`Revoked ${at(k.revokedAtTs)}`
    }</td>
</tr>`,
  );
  return layout(
    "API keys",
    html`${errorSummary(errors, "The key")}
${
  opts.created &&
  html`<div class="notice" role="status">
<p>Created key <strong>${opts.created.key.label ?? opts.created.key.prefix}</strong>. Copy it now: it is stored only as a hash and will not be shown again.</p>
<code class="secret" id="new-secret">${opts.created.apiKey}</code> <button type="button" data-copy="new-secret" hidden>Copy</button>
</div>`
}
<div class="table-wrap">
<table class="cards">
<thead><tr><th scope="col">Label</th><th scope="col">Prefix</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>
<h2>New key</h2>
<form method="post" action="/dashboard/keys">
${csrfField(session)}
<label for="label">Label</label>
${fieldError(errors, "label")}
<input type="text" id="label" name="label" maxlength="200"${describedBy(errors, "label")}>
<p id="labelHelp" class="muted">What the key is for, e.g. production. Optional.</p>
<label for="role">Role</label>
${fieldError(errors, "role")}
<select id="role" name="role"${describedBy(errors, "role")}>${grantableRoles(session.role).map((r) => html`<option value="${r}"${r === session.role ? html` selected` : ""}>${r}</option>`)}</select>
<p id="roleHelp" class="muted">What programs using the key may do: at most your own role (${session.role}). A key never acts above its member's current role.</p>
<button type="submit">Create key</button>
</form>`,
    session,
    "keys",
  );
}

/** The roles someone with `role` may hand out (to a key or an invited member), most powerful first. */
export function grantableRoles(role: DashboardSession["role"]): DashboardSession["role"][] {
  return ROLE_ORDER.filter((r) => mayGrant(role, r));
}

/** What a key is to the person on the keys page: the one this session signed in with, the browser companion's, or neither. */
function keyRole(session: DashboardSession, key: KeyView): "session" | "companion" | null {
  if (key.id === session.keyId) return "session";
  return key.label === COMPANION_KEY_LABEL ? "companion" : null;
}

/**
 * The step before a key is revoked, which cannot be undone: it names the key and says what stops working,
 * above all when it is the key this session signed in with (revoking it signs you out) or the companion's.
 */
export function revokeKeyConfirmPage(session: DashboardSession, key: KeyView): Html {
  const name = key.label ?? `${key.prefix}…`;
  const role = keyRole(session, key);
  const consequence =
    role === "session"
      ? html`<p class="error" role="alert"><strong>This is the key you are signed in with.</strong> Revoking it signs you out of the dashboard at once; sign in again with another key.</p>`
      : role === "companion"
        ? html`<p class="error" role="alert"><strong>This is the browser companion's key.</strong> Revoking it unpairs the companion: it stops sending jobs and applying until you pair it again on the <a href="/dashboard/companion">Browser companion</a> page.</p>`
        : html`<p>Every program using this key is refused from the moment it is revoked.</p>`;
  return layout(
    `Revoke the key ${name}?`,
    html`${consequence}
<p>The key <strong>${name}</strong> (<code>${key.prefix}…</code>) stops working for good; it cannot be restored.</p>
<form method="post" action="/dashboard/keys/${key.id}/revoke">${csrfField(session)}<button type="submit" class="danger">Revoke key ${name}</button></form>
<p><a href="/dashboard/keys">Cancel</a></p>`,
    session,
    "keys",
  );
}

export function errorPage(title: string, message: string, session?: DashboardSession): Html {
  return layout(title, html`<p class="error" role="alert">${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`, session);
}
