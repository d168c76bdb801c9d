import { PLATFORMS } from "../../db/enums";
import { countryName, normalizeCountry } from "../../lib/countries";
import type { Feed } from "../feeds/model";
import { budgetText } from "../jobs/service";
import { html, type Html } from "./html";
import { filterQuery, INBOX_PAGE_SIZE, type InboxCard, type InboxQuery } from "./inbox-data";
import { applicationBadge, isSettledApplication } from "./job-views";
import type { DashboardSession } from "./model";
import { expectedValueLine } from "./value-views";
import { clientListForm, listBadge } from "./clients-views";
import { signalFlags } from "./signals-views";
import { csrfField, layout, when } from "./views";

/**
 * The inbox: every feed's new matches as cards, filters, paging that keeps its
 * place, triage buttons (plain forms, posted in place by htmx), a side panel
 * the cards open into (the job page without JavaScript), and a "N new" badge
 * that polls and inserts new matches only when clicked.
 */

const INBOX = "/dashboard";
const jobPath = (ciphertext: string) => `/dashboard/jobs/${encodeURIComponent(ciphertext)}`;
const entryPath = (id: string) => `/dashboard/inbox/${encodeURIComponent(id)}`;

/** The keyboard shortcuts, shown by `?` and in the README. */
export const SHORTCUTS = [
  ["j / k", "next / previous job"],
  ["o", "open the job in the side panel"],
  ["s", "star or unstar"],
  ["x", "dismiss (not interested)"],
  ["d", "draft a proposal in the panel"],
  ["a", "apply from the panel (asks first)"],
  ["Esc", "close the panel"],
  ["?", "show these keys"],
] as const;

/**
 * The client's country as words ("Germany" for "DE" or "DEU"), else as the source wrote it. Text, not a flag
 * emoji: without an emoji font (Debian's Chromium has none) a flag is two empty boxes.
 */
function countryText(country: string | null): string | null {
  const code = normalizeCountry(country);
  return (code && countryName(code)) || country;
}

function band(score: number, high: number, mid: number): "high" | "mid" | "low" {
  return score >= high ? "high" : score >= mid ? "mid" : "low";
}

function matchBadge(card: InboxCard): Html {
  const { matchingScore, scoreReason, scoreSource } = card.item;
  const text = `Match ${Math.round(matchingScore * 10) / 10}/10`;
  return html`<span class="badge score score-${band(matchingScore, 7, 4)}" title="${scoreReason ?? `Scored by ${scoreSource}`}">${text}</span>${
    scoreReason && html`<details class="reason"><summary>Why</summary><p>${scoreReason}</p></details>`
  }`;
}

function clientBadge(card: InboxCard): Html {
  if (card.clientScore === null) return html`<span class="badge">${card.clientLabel}</span>`;
  return html`<span class="badge score score-${band(card.clientScore, 65, 45)}" title="Client score ${card.clientScore}/100">Client ${card.clientScore} · ${card.clientLabel}</span>`;
}

const money = (n: number) => (n >= 1000 ? `$${Math.round(n / 100) / 10}k` : `$${Math.round(n)}`);

/** The card's facts as short items; unknown ones are left out rather than shown as dashes. */
function facts(card: InboxCard): (Html | string)[] {
  const { job, client, item } = card;
  const out: (Html | string)[] = [];
  const budget = job ? budgetText(job) : null;
  if (budget) out.push(budget);
  if (job?.jobType) out.push(job.jobType === "HOURLY" ? "Hourly" : "Fixed price");
  const country = countryText(job?.clientCountry ?? item.job.clientCountry);
  if (country || client.name) out.push([client.name, country].filter(Boolean).join(", "));
  if (client.paymentVerified === true) out.push(html`<span class="good">Payment verified</span>`);
  else if (client.paymentVerified === false) out.push(html`<span class="error-text">Payment unverified</span>`);
  if (client.spent !== null) out.push(`${money(client.spent)} spent`);
  if (client.rating !== null) out.push(`★ ${client.rating.toFixed(1)}${client.reviews !== null ? ` (${client.reviews})` : ""}`);
  if (client.hireRate !== null) out.push(`${Math.round(client.hireRate * 100)}% hire rate`);
  if (card.proposals !== null) out.push(`${card.proposals} proposals${card.competition ? ` · ${card.competition} competition` : ""}`);
  if (card.connects !== null) out.push(`${card.connects} Connects`);
  out.push(`via ${item.job.source}`);
  return out;
}

/** Unread and not applied to: a job with an application (but a failed one) is dealt with, wherever it was applied from. */
const isNew = (card: InboxCard) => !card.item.read && !isSettledApplication(card.application);

/**
 * Where a card sits: `back` is its list's query string and `feedPage` says the list is its feed's page
 * rather than the inbox, so a form posted without JavaScript returns to the same place; `oob` sends the
 * card out of band (beside the side panel) to replace the one on the page.
 */
export interface CardPlace {
  back: string;
  feedPage?: boolean;
  oob?: boolean;
}

function triageButton(session: DashboardSession, card: InboxCard, place: CardPlace, action: string, label: string, key?: string): Html {
  const path = entryPath(card.item.processedJobId);
  return html`<form method="post" action="${path}" hx-post="${path}" hx-target="#card-${card.item.processedJobId}" hx-swap="outerHTML">${csrfField(session)}<input type="hidden" name="action" value="${action}"><input type="hidden" name="back" value="${place.back}">${
    place.feedPage && html`<input type="hidden" name="list" value="feed">`
  }<button type="submit" class="small"${key ? html` data-key="${key}"` : ""} aria-label="${label}: ${card.item.job.title}">${label}</button></form>`;
}

/** The list a card sits in, as a path a plain form can return to. */
function listPath(feedId: string, place: CardPlace): string {
  const path = place.feedPage ? `/dashboard/feeds/${encodeURIComponent(feedId)}` : INBOX;
  return place.back ? `${path}?${place.back}` : path;
}

/** Who is drafting the job (a live claim), so nobody else starts on it: "Ana drafting" (or "You are drafting"). */
function claimBadge(session: DashboardSession, card: InboxCard): Html | false {
  const c = card.claim;
  if (!c) return false;
  const mine = c.memberId === session.memberId;
  return html`<span class="badge claim-badge" title="Claimed until ${new Date(c.expiresAtTs).toISOString().slice(11, 16)} UTC">${mine ? "You are drafting" : `${c.memberName} drafting`}</span>`;
}

/** One match as a card, on the inbox or its feed's page (one rendering for both). */
export function inboxCard(session: DashboardSession, card: InboxCard, where: string | CardPlace): Html {
  const place = typeof where === "string" ? { back: where } : where;
  const { item } = card;
  const id = item.processedJobId;
  const swap = place.oob ? html` hx-swap-oob="true"` : "";
  const classes = ["card", item.read ? "read" : "unread", item.starredAt ? "starred" : "", item.dismissedAt ? "dismissed" : ""].filter(Boolean).join(" ");
  if (item.dismissedAt !== null) {
    return html`<article class="${classes}" id="card-${id}" data-entry="${id}" aria-label="${item.job.title} (dismissed)"${swap}>
<p><span class="muted">Dismissed:</span> ${item.job.title}</p>
<div class="actions">${triageButton(session, card, place, "undismiss", "Undo")}</div>
</article>`;
  }
  return html`<article class="${classes}" id="card-${id}" data-entry="${id}" aria-labelledby="title-${id}"${swap}>
<div class="card-head">
<h2 id="title-${id}"><a class="open" href="${jobPath(item.job.ciphertext)}" hx-get="${jobPath(item.job.ciphertext)}?panel=${id}" hx-target="#panel" hx-swap="innerHTML">${item.job.title}</a></h2>
<div class="badges">${card.yours && html`<span class="badge yours-badge" title="From a feed assigned to you">Your feeds</span>`}${isNew(card) && html`<span class="badge unread-badge">New</span>`}${item.starredAt !== null && html`<span class="badge starred-badge">★ Starred</span>`}${matchBadge(card)}${clientBadge(card)}${applicationBadge(card.application, id)}${claimBadge(session, card)}${listBadge(card.clientList)}</div>
</div>
<p class="meta"><a href="/dashboard/feeds/${encodeURIComponent(item.feedId)}">${item.feedTitle}</a> · posted ${item.job.publishTime ? when(Date.parse(item.job.publishTime)) : "—"} · matched ${when(Date.parse(item.matchedAt))}</p>
<ul class="facts">${facts(card).map((f) => html`<li>${f}</li>`)}</ul>
${signalFlags(card.signals)}
${card.value && expectedValueLine(card.value)}
<div class="actions">
${item.read ? triageButton(session, card, place, "unread", "Mark unread") : triageButton(session, card, place, "read", "Mark read")}
${item.starredAt !== null ? triageButton(session, card, place, "unstar", "Unstar", "s") : triageButton(session, card, place, "star", "Star", "s")}
${triageButton(session, card, place, "dismiss", "Dismiss", "x")}
${clientListForm(session, { companyId: card.job?.companyId, mark: card.clientList, back: listPath(item.feedId, place), uid: id, title: item.job.title, folded: true })}
</div>
</article>`;
}

export interface InboxPageData {
  query: InboxQuery;
  cards: InboxCard[];
  total: number;
  unread: number;
  /** The newest match time the page shows or knows of: the badge counts matches after it. */
  sinceTs: number;
  /** The list's snapshot time (pages past the first are counted up to it). */
  untilTs: number;
  feeds: Feed[];
  /** What the browser companion reported when it stopped capturing ("needs you: …"), or null. */
  companionNeedsYou?: string | null;
  /** The sandbox's jobs a minute when it is one of the sources serve polls, else null (for the empty inbox). */
  sandboxJobsPerMinute?: number | null;
}

/** "4 jobs a minute", "a job every 100 minutes": a rate under one a minute reads as an interval. */
function sandboxRate(perMinute: number): string {
  if (perMinute >= 1) return `${Number(perMinute.toFixed(1))} job${perMinute === 1 ? "" : "s"} a minute`;
  const minutes = Math.round(1 / perMinute);
  return minutes <= 1 ? "about a job a minute" : `a job every ${minutes} minutes`;
}

/**
 * What an empty list can expect (issue 45): feeds see only jobs first seen after they were made, so a new one starts
 * empty; the preview shows what it would have caught already, and the sandbox can post faster.
 */
export function whatToExpect(sandboxJobsPerMinute: number | null | undefined, previewHref: string): Html {
  const rate =
    sandboxJobsPerMinute == null
      ? "New jobs arrive as the sources post them."
      : `New jobs arrive as the sources post them: the sandbox posts ${sandboxRate(sandboxJobsPerMinute)}, so the first match can take several minutes.`;
  return html`<p class="empty">${rate} A feed matches only jobs first seen after it was created; to see what it would have caught in the last days, <a href="${previewHref}">preview it</a>.${
    sandboxJobsPerMinute != null &&
    html` To make the sandbox post faster, set <code>JOBPILOT_SANDBOX_JOBS_PER_MINUTE</code> (up to 6000; docs/configuration.md) and restart the server.`
  }</p>`;
}

/** The "Older" link (a full page without JavaScript; with htmx it appends the next cards in place). */
function pager(data: InboxPageData): Html {
  const { query, cards, total } = data;
  const next = query.offset + cards.length;
  const older = next < total ? filterQuery(query.filter, { offset: next, until: data.untilTs }) : null;
  const newer = query.offset > 0 ? filterQuery(query.filter, { offset: Math.max(0, query.offset - INBOX_PAGE_SIZE), until: data.untilTs }) : null;
  return html`<nav aria-label="Pages" class="pager" id="pager">${newer !== null && html`<a href="${INBOX}?${newer}" rel="prev">Newer</a>`}${
    older !== null &&
    html`<a href="${INBOX}?${older}" rel="next" hx-get="/dashboard/inbox/cards?${older}" hx-target="#pager" hx-swap="outerHTML" hx-push-url="${INBOX}?${older}">Older matches</a>`
  }</nav>`;
}

/** More cards for the list and the pager after them (htmx "Older matches"). */
export function moreCards(session: DashboardSession, data: InboxPageData): Html {
  const back = filterQuery(data.query.filter, { offset: data.query.offset, until: data.untilTs });
  return html`${data.cards.map((c) => inboxCard(session, c, back))}${pager(data)}`;
}

/**
 * The "N new" badge. It polls (htmx, with the ETag the server sent, so an unchanged answer is a 304) and
 * inserts the new cards at the top only when clicked, so nothing moves under the reader's pointer.
 */
export function newBadge(filter: InboxQuery["filter"], sinceTs: number, count: number, unread: number, oob = false): Html {
  const poll = `/dashboard/inbox/new?${filterQuery(filter, { since: sinceTs })}`;
  return html`<div id="new-badge" class="new-badge" hx-get="${poll}" hx-trigger="every 5s" hx-swap="outerHTML" data-unread="${unread}"${oob ? html` hx-swap-oob="true"` : ""}>${
    count > 0 &&
    html`<button type="button" hx-get="/dashboard/inbox/fresh?${filterQuery(filter, { since: sinceTs })}" hx-target="#cards" hx-swap="afterbegin">${count} new</button>`
  }</div>`;
}

/** New cards for the top of the list, with the badge reset to count from the newest of them. */
export function freshCards(session: DashboardSession, cards: InboxCard[], filter: InboxQuery["filter"], sinceTs: number, unread: number, back: string): Html {
  return html`${cards.map((c) => inboxCard(session, c, back))}${newBadge(filter, sinceTs, 0, unread, true)}`;
}

function filters(data: InboxPageData): Html {
  const f = data.query.filter;
  const show = [
    ["unread", "Unread"],
    ["starred", "Starred"],
    ["all", "All"],
    ["dismissed", "Dismissed"],
  ] as const;
  return html`<form method="get" action="${INBOX}" class="filters" role="search" aria-label="Filter matches">
<div><label for="f-q">Search</label><input type="search" id="f-q" name="q" value="${f.text ?? ""}" maxlength="200" placeholder="title or skill"></div>
<div><label for="f-feed">Feed</label><select id="f-feed" name="feed"><option value="">All feeds</option>${data.feeds.map(
    (feed) => html`<option value="${feed.id}"${feed.id === f.feedId ? html` selected` : ""}>${feed.title}</option>`,
  )}</select></div>
<div><label for="f-min">Score at least</label><input type="number" id="f-min" name="min" min="0" max="10" step="0.5" value="${f.minScore ?? ""}"></div>
<div><label for="f-show">Show</label><select id="f-show" name="show">${show.map(
    ([v, label]) => html`<option value="${v}"${v === f.show ? html` selected` : ""}>${label}</option>`,
  )}</select></div>
<div><label for="f-platform">Platform</label><select id="f-platform" name="platform"><option value="">All platforms</option>${PLATFORMS.map(
    (p) => html`<option value="${p}"${p === f.platform ? html` selected` : ""}>${p.replaceAll("_", " ")}</option>`,
  )}</select></div>
<div><button type="submit">Filter</button></div>
</form>`;
}

/** The cards and the side panel they open into, with `below` under the cards: the inbox's list and a feed page's. */
export function cardsAndPanel(session: DashboardSession, cards: InboxCard[], place: CardPlace, below: Html): Html {
  return html`<div class="inbox">
<section aria-label="Matches" class="list">
<div id="cards">${cards.map((c) => inboxCard(session, c, place))}</div>
${below}
</section>
<aside id="panel" class="panel" aria-label="Job details" tabindex="-1"><p class="muted panel-hint">Open a job to read it, draft and apply here.</p></aside>
</div>`;
}

export function shortcutsHelp(): Html {
  return html`<details id="keys-help" class="keys-help"><summary>Keyboard shortcuts</summary><dl>${SHORTCUTS.map(
    ([k, what]) => html`<dt><kbd>${k}</kbd></dt><dd>${what}</dd>`,
  )}</dl></details>`;
}

export function inboxPage(session: DashboardSession, data: InboxPageData): Html {
  const back = filterQuery(data.query.filter, { offset: data.query.offset, until: data.query.offset > 0 ? data.untilTs : undefined });
  const from = data.cards.length === 0 ? 0 : data.query.offset + 1;
  const empty =
    data.feeds.length === 0
      ? html`<p class="empty">No feeds yet. <a href="/dashboard/feeds/new">Create a feed</a>: the jobs it matches arrive here.</p>`
      : html`<p class="empty">Nothing here${data.query.filter.show === "unread" ? ": every match is read" : ""}. New matches appear at the top as they arrive.</p>`;
  // The preview to link: the new feed's form, the one feed's, or the list to pick one from.
  const only = data.feeds.length === 1 ? data.feeds[0]!.id : null;
  const previewHref =
    data.feeds.length === 0 ? "/dashboard/feeds/new#preview" : only ? `/dashboard/feeds/${encodeURIComponent(only)}/edit#preview` : "/dashboard/feeds";
  const expect = data.total === 0 && data.query.filter.show !== "dismissed" && whatToExpect(data.sandboxJobsPerMinute, previewHref);
  return layout(
    "Inbox",
    html`${
      data.companionNeedsYou
        ? html`<p class="notice" role="status" data-test="companion-needs-you">Browser companion: ${data.companionNeedsYou}. <a href="/dashboard/companion">Open its page</a>.</p>`
        : ""
    }${filters(data)}
<div class="inbox-bar"><p class="muted" id="inbox-count">${data.total === 0 ? "No matches." : `${from}–${data.query.offset + data.cards.length} of ${data.total}, newest first.`} ${unreadCountView(data.unread)}</p>
${newBadge(data.query.filter, data.sinceTs, 0, data.unread)}</div>
${cardsAndPanel(
  session,
  data.cards,
  { back },
  html`${data.cards.length === 0 && empty}${data.cards.length === 0 && expect}
${pager(data)}`,
)}
${shortcutsHelp()}`,
    session,
    "inbox",
    { documentTitle: data.unread > 0 ? `(${data.unread}) Inbox` : "Inbox", wide: true },
  );
}

/**
 * A card after a triage action (or opened in the panel: `place.oob`, swapped in beside the panel), with the
 * unread count, and so the tab title, brought up to date at once.
 */
export function triagedCard(session: DashboardSession, card: InboxCard, place: CardPlace, unread: number): Html {
  return html`${inboxCard(session, card, place)}${unreadCountView(unread, true)}`;
}

/** "N unread" (the app script copies it into the tab title); `oob` replaces the one on the page. */
export function unreadCountView(unread: number, oob = false): Html {
  return html`<span id="unread-count" data-unread="${unread}"${oob ? html` hx-swap-oob="true"` : ""}>${unread} unread</span>`;
}
