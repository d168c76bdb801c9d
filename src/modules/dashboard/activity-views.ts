import type { ApplicationRow } from "../applications/repo";
import { html, raw, type Html } from "./html";
import { describedBy, errorSummary, fieldError, type FormErrors, formErrors } from "./form-errors";
import type { DashboardSession } from "./model";
import { csrfField, externalLink, layout, when } from "./views";

/** Seconds between reloads while something on the page is still moving. */
const REFRESH_SECONDS = 5;

/** The layout with a meta refresh in <head>: pages reload themselves without any script. */
function refreshing(page: Html): Html {
  return raw(page.value.replace("</head>", `<meta http-equiv="refresh" content="${REFRESH_SECONDS}">\n</head>`));
}

export interface ApplicationItem {
  app: ApplicationRow;
  title: string;
  url: string;
}

export interface ApplicationsPageData {
  items: ApplicationItem[];
  total: number;
  limit: number;
  offset: number;
  status: string | undefined;
  statuses: readonly string[];
  /** Submissions whose form the browser companion filled and that wait for the user's click, by application id. */
  inReview: Map<string, { reviewUrl: string | null; deadlineTs: number | null }>;
  /** Set when the account applies as more than one freelancer: their names by freelancer id (a missing one shows its id). */
  freelancerNames?: Map<string, string>;
}

/** Review mode: the status stays processing (the spec's value); the dashboard says what it waits for and links the tab. */
function reviewNote(review: { reviewUrl: string | null; deadlineTs: number | null } | undefined): Html | "" {
  if (!review) return "";
  return html`<br><strong class="badge status-review">Waiting for your review</strong>
<br><span class="muted">The browser companion filled the proposal form; check it and click submit yourself${review.deadlineTs !== null && html` before ${when(review.deadlineTs)}`}.</span>
${review.reviewUrl && html`<br><a href="${review.reviewUrl}" rel="noopener noreferrer">Show the filled form</a>`}`;
}

function statusBadge(app: ApplicationRow): Html {
  const label = app.status === "processing" && app.phase === "queued" ? "queued" : app.status.replaceAll("_", " ");
  return html`<strong class="badge status-${app.status}">${label}</strong>`;
}

function engagement(app: ApplicationRow): Html {
  // A reply recorded by hand (the Outcome form) counts even before the marketplace was first checked.
  if (app.lastCheckedAtTs === null && !app.viewed && !app.replied) return html`<span class="muted">not checked yet</span>`;
  const parts = [app.viewed ? "viewed" : "not viewed", app.replied ? "replied" : "no reply"].join(", ");
  return html`${parts}${app.viewedAtTs !== null && html`<br><span class="muted">viewed ${when(app.viewedAtTs)}</span>`}`;
}

function credits(app: ApplicationRow): string {
  if (app.status === "applied") return "1 charged";
  if (app.creditHeld) return "1 held";
  return "0";
}

function pageLink(data: ApplicationsPageData, offset: number): string {
  const q = new URLSearchParams();
  if (data.status) q.set("status", data.status);
  if (offset > 0) q.set("offset", String(offset));
  const s = q.toString();
  return `/dashboard/applications${s ? `?${s}` : ""}`;
}

export function applicationsPage(session: DashboardSession, data: ApplicationsPageData): Html {
  const moving = data.items.some((i) => i.app.status === "processing");
  // An agency applies as several freelancers: then each row says who applied.
  const byWhom = data.freelancerNames !== undefined;
  // Each cell carries its column's name, which the narrow-screen CSS shows when the rows become cards.
  const rows = data.items.map(
    ({ app, title, url }) => html`<tr>
<td data-label="Job" class="primary">${externalLink(url, title)}${app.status === "applied" && html`<a class="row-action" href="/dashboard/jobs/${encodeURIComponent(app.jobCiphertext)}#outcome">Outcome and funnel</a>`}</td>
${byWhom && html`<td data-label="Freelancer">${data.freelancerNames?.get(app.freelancerId) ?? app.freelancerId}</td>`}
<td data-label="Status">${statusBadge(app)}${app.statusMessage && html`<br><span class="muted">${app.statusMessage}</span>`}${app.status === "processing" && reviewNote(data.inReview.get(app.id))}</td>
<td data-label="Applied">${when(app.appliedAtTs)}</td>
<td data-label="Credits">${credits(app)}</td>
<td data-label="Cover letter" class="unlabelled"><details><summary>Cover letter</summary><p class="cover-letter">${app.coverLetter}</p></details></td>
<td data-label="Error">${app.errorMessage ? html`<span class="error">${app.errorMessage}</span>` : html`<span class="muted">—</span>`}</td>
<td data-label="Engagement">${engagement(app)}</td>
</tr>`,
  );
  const filter = html`<form method="get" action="/dashboard/applications">
<label for="status">Status</label>
<select id="status" name="status">
<option value="">All</option>
${data.statuses.map((s) => html`<option value="${s}"${data.status === s ? raw(" selected") : ""}>${s.replaceAll("_", " ")}</option>`)}
</select>
<button type="submit">Filter</button>
</form>`;
  const prev = data.offset > 0 ? html`<a href="${pageLink(data, Math.max(0, data.offset - data.limit))}" rel="prev">Newer</a>` : "";
  const next = data.offset + data.limit < data.total ? html`<a href="${pageLink(data, data.offset + data.limit)}" rel="next">Older</a>` : "";
  const shownFrom = data.items.length === 0 ? 0 : data.offset + 1;
  const body =
    data.total === 0 && !data.status
      ? html`<p class="empty">No applications yet — apply to a job from a feed.</p>`
      : html`${filter}
${
  data.items.length === 0
    ? html`<p class="empty">No applications${data.status ? html` with status ${data.status.replaceAll("_", " ")}` : ""} here.</p>`
    : html`<p class="muted">Showing ${shownFrom}–${data.offset + data.items.length} of ${data.total}, newest first.${moving && ` This page reloads every ${REFRESH_SECONDS} seconds while an application is in flight.`}</p>
<div class="table-wrap">
<table class="applications cards">
<thead><tr><th scope="col">Job</th>${byWhom && html`<th scope="col">Freelancer</th>`}<th scope="col">Status</th><th scope="col">Applied</th><th scope="col">Credits</th><th scope="col">Cover letter</th><th scope="col">Error</th><th scope="col">Engagement</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`
}
<nav aria-label="Pages" class="pager">${prev} ${next}</nav>`;
  const page = layout("Applications", body, session, "applications", { wide: true });
  return moving ? refreshing(page) : page;
}

export interface RosterProfile {
  profileId: string;
  type: string;
  name: string;
  hourlyRate: number | null;
  currency: string;
  /** Null when the driver does not say (the marketplace's roster). */
  skills: string[] | null;
}

export interface RosterFreelancer {
  id: string;
  name: string;
  baseHourlyRate: number | null;
  country: string | null;
  /** The account's own freelancer: editable, never removable. */
  own: boolean;
  profiles: RosterProfile[];
}

export interface FreelancerSettings {
  workingHours: { timeZone: string; days: number[]; start: string; end: string } | null;
  /** Whether the freelancer has its own working hours (else the account's apply). */
  ownHours: boolean;
  balance: { available: number; source: string; readAt: number } | null;
}

export interface FeedRouting {
  id: string;
  title: string;
  freelancerId: string | null;
  profileId: string | null;
  memberIds: string[];
}

interface PageBase {
  driver: string;
  /** The roster is jobpilot's to change (the sandbox driver); else it comes from the marketplace. */
  editable: boolean;
  canEdit: boolean;
  canRoute: boolean;
  notice?: string;
  /**
   * A refused change: which form (its id prefix: "new", "f-<id>", "f-<id>-p", "p-<profileId>", "s-<id>", "r-<feedId>",
   * or "page" for a button alone), the service's messages naming the field, and what was typed, to show it again.
   */
  refusal?: FreelancersRefusal;
}

export interface FreelancersRefusal {
  form: string;
  messages: string[];
  values: Record<string, string | undefined>;
  /** Set while rendering when its form is on the page; else the page shows it at the top. */
  placed?: boolean;
}

export type FreelancersPageData =
  | (PageBase & { error: string })
  | (PageBase & {
      freelancers: RosterFreelancer[];
      settings: Map<string, FreelancerSettings>;
      feeds: FeedRouting[];
      members: { id: string; name: string }[];
      /** Per profile id: its portfolio in the import format, and how many case studies it has. */
      portfolios: Map<string, { markdown: string; caseStudies: number }>;
    });

const DAY_NAMES = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const FREELANCERS_PATH = "/dashboard/freelancers";

/**
 * A form field with its label; ids are made unique per freelancer/profile so every label points at its control. A
 * refusal naming the field is shown by it, and what was typed is kept.
 */
function input(id: string, name: string, label: string, value: string | number | null | undefined, extra = "", form?: RefusedForm): Html {
  const shown = form?.errors ? form.values[name] : value;
  return html`<p><label for="${id}">${label}</label> ${form && fieldError(form.errors, id)}<input type="text" id="${id}" name="${name}" value="${shown ?? ""}"${raw(extra)}${form ? describedBy(form.errors, id, false) : ""}></p>`;
}

/** One form's refusal, mapped to its fields (undefined errors: the form was not the one refused). */
interface RefusedForm {
  errors: FormErrors | undefined;
  values: Record<string, string | undefined>;
}

/** The refusal of the form with this id prefix, by field: `fields` maps the service's names to the form's controls. */
function refusedForm(refusal: FreelancersRefusal | undefined, form: string, fields: Record<string, [string, string]>): RefusedForm {
  if (refusal?.form !== form) return { errors: undefined, values: {} };
  refusal.placed = true;
  const list = Object.entries(fields).map(([path, [suffix, label]]) => ({ path, id: `${form}-${suffix}`, label }));
  return { errors: formErrors(refusal.messages, list), values: refusal.values };
}

const FREELANCER_FIELDS: Record<string, [string, string]> = {
  name: ["name", "Name"],
  hourlyRate: ["rate", "Base hourly rate"],
  country: ["country", "Country"],
};
const PROFILE_FIELDS: Record<string, [string, string]> = {
  name: ["name", "Title"],
  hourlyRate: ["rate", "Hourly rate"],
  skills: ["skills", "Skills"],
};
const SETTINGS_FIELDS: Record<string, [string, string]> = {
  "workingHours.timeZone": ["tz", "Time zone"],
  "workingHours.start": ["start", "From"],
  "workingHours.end": ["end", "To"],
  "workingHours.days": ["days", "Days"],
  available: ["connects", "Connects balance"],
};
/** `open` for a folded section whose form was refused, so its messages are in view. */
const openIf = (form: RefusedForm) => (form.errors ? raw(" open") : "");

function profileRows(session: DashboardSession, f: RosterFreelancer, editable: boolean, refusal: FreelancersRefusal | undefined): Html {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Profiles of ${f.name}">
<table>
<thead><tr><th scope="col">Profile</th><th scope="col">Type</th><th scope="col">Rate</th><th scope="col">Skills</th><th scope="col">profileId</th></tr></thead>
<tbody>${f.profiles.map(
    (p) =>
      html`<tr><td>${p.name}</td><td>${p.type}</td><td>${p.hourlyRate === null ? "—" : `${p.hourlyRate} ${p.currency}/h`}</td><td>${p.skills === null ? html`<span class="muted">—</span>` : p.skills.join(", ") || html`<span class="muted">none</span>`}</td><td><code>${p.profileId}</code></td></tr>`,
  )}</tbody>
</table>
</div>
${
  editable &&
  f.profiles.map((p) => {
    const pid = `p-${p.profileId}`;
    const base = `${FREELANCERS_PATH}/${encodeURIComponent(f.id)}/profiles/${encodeURIComponent(p.profileId)}`;
    const form = refusedForm(refusal, pid, PROFILE_FIELDS);
    return html`<details${openIf(form)}><summary>Edit profile “${p.name}”</summary>
<form method="post" action="${base}" class="inline-form">${csrfField(session)}
${errorSummary(form.errors, "The profile")}
${input(`${pid}-name`, "name", "Title", p.name, ' maxlength="100" required', form)}
${input(`${pid}-rate`, "hourlyRate", "Hourly rate (USD)", p.hourlyRate, ' inputmode="decimal"', form)}
${input(`${pid}-skills`, "skills", "Skills (comma-separated)", (p.skills ?? []).join(", "), "", form)}
<button type="submit">Save profile</button>
</form>
${p.type !== "default" && html`<form method="post" action="${base}/remove">${csrfField(session)}<button type="submit" class="danger">Remove profile “${p.name}”</button></form>`}
</details>`;
  })
}`;
}

const PORTFOLIO_FIELDS: Record<string, [string, string]> = { text: ["md", "Portfolio"] };

const PORTFOLIO_EXAMPLE = `# Case studies
## Checkout speed-up for a fashion store
- Built: Rewrote the Liquid templates and deferred third-party scripts
- Client: Lumen Apparel
- Skills: Shopify, Liquid, JavaScript
- Outcome: Mobile checkout from 7 s to 2.1 s
- Link: https://example.com/lumen

# Past clients
- Lumen Apparel

# Years of experience
- Shopify: 5`;

/**
 * A profile's portfolio as one Markdown text (the import format): what letters cite and the claim check holds
 * them to. Editable on every driver, since jobpilot keeps it, not the marketplace.
 */
function portfolioForm(session: DashboardSession, f: RosterFreelancer, data: Extract<FreelancersPageData, { freelancers: unknown }>): Html {
  return html`${f.profiles.map((p) => {
    const id = `pf-${p.profileId}`;
    const form = refusedForm(data.refusal, id, PORTFOLIO_FIELDS);
    const stored = data.portfolios.get(p.profileId);
    const count = stored?.caseStudies ?? 0;
    const text = form.errors ? (form.values.text ?? "") : count > 0 || (stored && stored.markdown.trim() !== "# Case studies") ? stored!.markdown : "";
    return html`<details${openIf(form)}><summary>Portfolio of “${p.name}” <span class="muted">— ${count === 1 ? "1 case study" : `${count} case studies`}</span></summary>
<form method="post" action="${FREELANCERS_PATH}/${encodeURIComponent(f.id)}/profiles/${encodeURIComponent(p.profileId)}/portfolio">${csrfField(session)}
${errorSummary(form.errors, "The portfolio")}
<p class="hint">Letters cite the one or two case studies closest to each job, and flag any claim this portfolio and the profile's skills do not back. One <code>## Title</code> per case study, then <code>- Built:</code>, <code>- Client:</code>, <code>- Skills:</code>, <code>- Outcome:</code>, <code>- Link:</code>; a <code># Past clients</code> and a <code># Years of experience</code> list (<code>- Skill: years</code>).</p>
<p><label for="${id}-md">Portfolio</label> ${fieldError(form.errors, `${id}-md`)}<textarea id="${id}-md" name="text" rows="14" placeholder="${PORTFOLIO_EXAMPLE}"${describedBy(form.errors, `${id}-md`, false)}>${text}</textarea></p>
<button type="submit">Save portfolio</button>
</form>
</details>`;
  })}`;
}

function settingsForm(session: DashboardSession, f: RosterFreelancer, s: FreelancerSettings | undefined, refusal: FreelancersRefusal | undefined): Html {
  const id = `s-${f.id}`;
  const form = refusedForm(refusal, id, SETTINGS_FIELDS);
  const wh = s?.workingHours ?? null;
  const now = wh ? `${wh.timeZone}, ${wh.start}–${wh.end}, ${wh.days.map((d) => DAY_NAMES[d]).join(" ")}${s?.ownHours ? "" : " (the account's)"}` : "any time";
  // Folded: the roster reads first; the summary says what is set now.
  return html`<details${openIf(form)}><summary>Working hours and Connects <span class="muted">— now: ${now}; ${s?.balance ? `${s.balance.available} Connects` : "balance unknown"}</span></summary>
<form method="post" action="${FREELANCERS_PATH}/${encodeURIComponent(f.id)}/settings">${csrfField(session)}
${errorSummary(form.errors, "The settings")}
<fieldset class="working-hours"><legend>Working hours of ${f.name}</legend>
${input(`${id}-tz`, "timeZone", "Time zone (IANA, e.g. Europe/Berlin; empty: unchanged)", wh?.timeZone, "", form)}
<div class="time-pair">${input(`${id}-start`, "start", "From (HH:MM)", wh?.start ?? "09:00", "", form)}${input(`${id}-end`, "end", "To (HH:MM)", wh?.end ?? "17:00", "", form)}</div>
<fieldset class="days" id="${id}-days"><legend>Days</legend>${fieldError(form.errors, `${id}-days`)}${DAY_NAMES.map(
    (d, i) => html`<label><input type="checkbox" name="days" value="${i}"${(wh?.days ?? [1, 2, 3, 4, 5]).includes(i) ? raw(" checked") : ""}> ${d}</label>`,
  )}</fieldset>
</fieldset>
<p>Balance: ${s?.balance ? html`${s.balance.available} Connects <span class="muted">(${s.balance.source}, ${when(s.balance.readAt)})</span>` : "unknown"}.</p>
${input(`${id}-connects`, "available", "Connects balance (set by hand; empty: unchanged)", "", ' inputmode="numeric"', form)}
<button type="submit">Save settings</button>
</form>
</details>`;
}

function freelancerSection(session: DashboardSession, f: RosterFreelancer, data: Extract<FreelancersPageData, { freelancers: unknown }>): Html {
  const editable = data.editable && data.canEdit;
  const fid = `f-${f.id}`;
  const base = `${FREELANCERS_PATH}/${encodeURIComponent(f.id)}`;
  const edit = refusedForm(data.refusal, fid, FREELANCER_FIELDS);
  const addProfile = refusedForm(data.refusal, `${fid}-p`, PROFILE_FIELDS);
  return html`<section aria-labelledby="${fid}-heading">
<h2 id="${fid}-heading">${f.name} <span class="muted">(${f.id})</span>${f.own && html` <span class="badge">account's own</span>`}</h2>
<p>${f.baseHourlyRate !== null && `Base rate ${f.baseHourlyRate}/h`}${f.country !== null && ` · ${f.country}`}</p>
${profileRows(session, f, editable, data.refusal)}
${
  editable &&
  html`<details${openIf(edit)}${openIf(addProfile)}><summary>Edit ${f.name}</summary>
<form method="post" action="${base}">${csrfField(session)}
${errorSummary(edit.errors, "The freelancer")}
${input(`${fid}-name`, "name", "Name", f.name, ' maxlength="100" required', edit)}
${input(`${fid}-rate`, "hourlyRate", "Base hourly rate (USD)", f.baseHourlyRate, ' inputmode="decimal"', edit)}
${input(`${fid}-country`, "country", "Country (two letters)", f.country, ' maxlength="2"', edit)}
<button type="submit">Save</button>
</form>
<form method="post" action="${base}/profiles">${csrfField(session)}
<fieldset><legend>Add a profile</legend>
${errorSummary(addProfile.errors, "The profile")}
${input(`${fid}-p-name`, "name", "Title", "", ' maxlength="100" required', addProfile)}
${input(`${fid}-p-rate`, "hourlyRate", "Hourly rate (USD)", "", ' inputmode="decimal"', addProfile)}
${input(`${fid}-p-skills`, "skills", "Skills (comma-separated)", "", "", addProfile)}
<button type="submit">Add profile</button>
</fieldset>
</form>
${!f.own && html`<form method="post" action="${base}/remove">${csrfField(session)}<button type="submit" class="danger">Remove ${f.name}</button></form>`}
</details>`
}
${data.canEdit && portfolioForm(session, f, data)}
${data.canEdit && settingsForm(session, f, data.settings.get(f.id), data.refusal)}
</section>`;
}

function routingSection(session: DashboardSession, data: Extract<FreelancersPageData, { freelancers: unknown }>): Html {
  if (data.feeds.length === 0) return html`<section id="routing"><h2>Feed routing</h2><p class="muted">No feeds yet.</p></section>`;
  const options = (feed: FeedRouting) =>
    html`<option value=""${feed.freelancerId === null ? raw(" selected") : ""}>The account's primary freelancer</option>${data.freelancers.flatMap((f) =>
      f.profiles.map((p) => html`<option value="${p.profileId}"${feed.profileId === p.profileId ? raw(" selected") : ""}>${f.name} — ${p.name}</option>`),
    )}`;
  return html`<section id="routing" aria-labelledby="routing-heading"><h2 id="routing-heading">Feed routing</h2>
<p class="muted">Who each feed's drafts and auto-applies go out as, and which members it is assigned to (their inbox shows its jobs first).</p>
${data.feeds.map((feed) => {
  const id = `r-${feed.id}`;
  const names = feed.memberIds.map((m) => data.members.find((x) => x.id === m)?.name ?? m);
  const form = refusedForm(data.refusal, id, {
    profileId: ["profile", "Goes out as"],
    freelancerId: ["profile", "Goes out as"],
    memberIds: ["members", "Members"],
  });
  return html`<form method="post" action="${FREELANCERS_PATH}/routing/${encodeURIComponent(feed.id)}">${csrfField(session)}
<fieldset${data.canRoute ? "" : raw(" disabled")}><legend>${feed.title}</legend>
${errorSummary(form.errors, "The routing")}
<p><label for="${id}-profile">Goes out as</label> ${fieldError(form.errors, `${id}-profile`)}<select id="${id}-profile" name="profileId"${describedBy(form.errors, `${id}-profile`, false)}>${options(feed)}</select></p>
${
  data.members.length === 0
    ? html`<p class="muted">No members to assign yet.</p>`
    : html`<p id="${id}-members">Members: ${fieldError(form.errors, `${id}-members`)}${data.members.map(
        (m) => html`<label><input type="checkbox" name="memberIds" value="${m.id}"${feed.memberIds.includes(m.id) ? raw(" checked") : ""}> ${m.name}</label> `,
      )}</p>`
}
<p class="muted">Now: ${names.length === 0 ? "no members" : names.join(", ")}.</p>
${data.canRoute && html`<button type="submit">Save routing</button>`}
</fieldset>
</form>`;
})}
</section>`;
}

/** The Freelancers page: the roster (editable on the sandbox driver), each freelancer's settings, the feed routing. */
export function freelancersPage(session: DashboardSession, data: FreelancersPageData): Html {
  // The top holds a notice, and a refusal whose form is not on the page (a button alone, a driver without the form).
  const top = () => html`${data.notice && html`<div class="notice" role="status"><p>${data.notice}</p></div>`}
${data.refusal && !data.refusal.placed && html`<div class="error" role="alert"><p>Not saved: ${data.refusal.messages.join(" ")}</p></div>`}`;
  const intro = data.editable
    ? html`<p class="muted">On the sandbox marketplace this account's freelancers are kept here: add, edit and remove them and their profiles. Pass a <code>profileId</code> to apply to choose the profile; without one the primary profile is used.</p>`
    : html`<p class="muted">On the ${data.driver} driver the freelancers come from the marketplace: change them there. Working hours and Connects are jobpilot's and can be set here.</p>`;
  if ("error" in data) {
    return layout(
      "Freelancers",
      html`${top()}${intro}<p class="error" role="alert">${data.error}</p><p>Try again in a moment. <a href="/dashboard">Back to the dashboard</a></p>`,
      session,
      "freelancers",
    );
  }
  const adding = refusedForm(data.refusal, "new", FREELANCER_FIELDS);
  const add =
    data.editable &&
    data.canEdit &&
    html`<section aria-labelledby="add-heading"><h2 id="add-heading">Add a freelancer</h2>
<form method="post" action="${FREELANCERS_PATH}">${csrfField(session)}
${errorSummary(adding.errors, "The freelancer")}
${input("new-name", "name", "Name", "", ' maxlength="100" required', adding)}
${input("new-rate", "hourlyRate", "Base hourly rate (USD)", "", ' inputmode="decimal"', adding)}
${input("new-country", "country", "Country (two letters, default US)", "", ' maxlength="2"', adding)}
<button type="submit">Add freelancer</button>
</form></section>`;
  const list =
    data.freelancers.length === 0
      ? html`<p class="empty">No freelancers are linked to this account yet.</p>`
      : html`${data.freelancers.map((f) => freelancerSection(session, f, data))}`;
  const routing = routingSection(session, data);
  return layout("Freelancers", html`${top()}${intro}${list}${add}${routing}`, session, "freelancers");
}

export interface DeliveryAttempt {
  attempt: number;
  at: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

export interface DeliveryItem {
  eventId: string;
  type: string;
  status: string;
  jobId: string | null;
  createdAt: number;
  attempts: DeliveryAttempt[];
  nextAttemptAt: number | null;
  deliveredAt: number | null;
  lastError: string | null;
  /** "webhook", or one of the feed's channels (name and type null once it is deleted). */
  target: "webhook" | { channelId: string; type: string | null; name: string | null };
  /** The digest that carried (or carries) this channel alert, if it was held for one. */
  digestEventId: string | null;
  digestSize?: number;
}

export interface DeliveriesPageData {
  feedId: string;
  feedTitle: string;
  endpoint: { url: string | null; disabledAt: number | null; disabledReason: string | null; failingSince: number | null };
  deliveries: DeliveryItem[];
  total: number;
  limit: number;
  offset: number;
  message?: string;
}

function targetLabel(target: DeliveryItem["target"]): Html | string {
  if (target === "webhook") return "the webhook";
  if (target.name === null) return html`a deleted channel <code>${target.channelId}</code>`;
  return html`<a href="/dashboard/channels/${encodeURIComponent(target.channelId)}">${target.name}</a> <span class="muted">(${target.type})</span>`;
}

export function deliveriesPage(session: DashboardSession, data: DeliveriesPageData): Html {
  const base = `/dashboard/feeds/${encodeURIComponent(data.feedId)}/deliveries`;
  const moving = data.deliveries.some((d) => d.status === "pending");
  const events = data.deliveries.map(
    (d) => html`<section class="delivery">
<h2 id="${d.eventId}"><code>${d.eventId}</code> <span class="muted">${d.type}</span></h2>
<p>To ${targetLabel(d.target)}${d.digestSize !== undefined && html` · a digest of ${d.digestSize} ${d.digestSize === 1 ? "alert" : "alerts"}`}</p>
<p><strong class="badge status-${d.status}">${d.status}</strong> · created ${when(d.createdAt)}${d.jobId && html` · job <code>${d.jobId}</code>`}${d.deliveredAt && html` · delivered ${when(d.deliveredAt)}`}${d.status === "held" ? html` · goes with the channel's digest at ${when(d.nextAttemptAt)}` : d.nextAttemptAt && d.status !== "delivered" && html` · next attempt ${when(d.nextAttemptAt)}`}${d.digestEventId && html` · in the digest <a href="#${d.digestEventId}"><code>${d.digestEventId}</code></a>`}</p>
${d.lastError && html`<p class="error">${d.lastError}</p>`}
${
  d.attempts.length === 0
    ? html`<p class="muted">No attempts yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Attempt</th><th scope="col">At</th><th scope="col">Status code</th><th scope="col">Duration</th><th scope="col">Error</th></tr></thead>
<tbody>${d.attempts.map(
        (a) => html`<tr><td>${a.attempt}</td><td>${when(a.at)}</td><td>${a.statusCode ?? "—"}</td><td>${a.durationMs} ms</td><td>${a.error ?? "—"}</td></tr>`,
      )}</tbody>
</table></div>`
}
${
  d.status !== "delivered" &&
  d.status !== "held" &&
  d.status !== "in_digest" &&
  html`<form method="post" action="${base}/${encodeURIComponent(d.eventId)}/resend">${csrfField(session)}<button type="submit" aria-label="Resend ${d.eventId}">Resend</button></form>`
}
</section>`,
  );
  const prev = data.offset > 0 ? html`<a href="${base}?offset=${Math.max(0, data.offset - data.limit)}" rel="prev">Newer</a>` : "";
  const next = data.offset + data.limit < data.total ? html`<a href="${base}?offset=${data.offset + data.limit}" rel="next">Older</a>` : "";
  const page = layout(
    `Deliveries · ${data.feedTitle}`,
    html`${data.message && html`<p class="error" role="alert">${data.message}</p>`}
<p>Webhook URL: ${data.endpoint.url ? html`<code>${data.endpoint.url}</code>` : html`<span class="muted">none</span>`}</p>
${data.endpoint.disabledAt && html`<p class="error">Disabled ${when(data.endpoint.disabledAt)}${data.endpoint.disabledReason && html`: ${data.endpoint.disabledReason}`}</p>`}
${data.endpoint.failingSince && html`<p class="error">Failing since ${when(data.endpoint.failingSince)}</p>`}
${data.deliveries.length === 0 ? html`<p class="empty">No webhook or channel events for this feed yet.</p>` : events}
<nav aria-label="Pages" class="pager">${prev} ${next}</nav>`,
    session,
    "feeds",
  );
  return moving ? refreshing(page) : page;
}
