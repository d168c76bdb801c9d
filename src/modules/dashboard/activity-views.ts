import type { Freelancer } from "../../marketplace/driver";
import type { ApplicationRow } from "../applications/repo";
import { html, raw, type Html } from "./html";
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

export function freelancersPage(session: DashboardSession, data: { freelancers: Freelancer[] } | { error: string }): Html {
  if ("error" in data) {
    return layout(
      "Freelancers",
      html`<p class="error" role="alert">${data.error}</p><p>Try again in a moment. <a href="/dashboard">Back to the dashboard</a></p>`,
      session,
      "freelancers",
    );
  }
  if (data.freelancers.length === 0) {
    return layout("Freelancers", html`<p class="empty">No freelancers are linked to this account yet.</p>`, session, "freelancers");
  }
  const sections = data.freelancers.map(
    (f) => html`<section>
<h2>${f.name} <span class="muted">(${f.id})</span></h2>
${f.baseHourlyRate !== null && html`<p>Base rate ${f.baseHourlyRate}/h</p>`}
<div class="table-wrap">
<table>
<thead><tr><th scope="col">Profile</th><th scope="col">Type</th><th scope="col">Rate</th><th scope="col">profileId</th></tr></thead>
<tbody>${f.profiles.map(
      (p) =>
        html`<tr><td>${p.name}</td><td>${p.type}</td><td>${p.hourlyRate === null ? "—" : `${p.hourlyRate} ${p.currency}/h`}</td><td><code>${p.profileId}</code></td></tr>`,
    )}</tbody>
</table>
</div>
</section>`,
  );
  return layout(
    "Freelancers",
    html`<p class="muted">Pass a <code>profileId</code> to apply to choose the profile; without one the primary profile is used.</p>
${sections}`,
    session,
    "freelancers",
  );
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
