import type { ClientListEntry } from "../clients/model";
import type { FilteredJobItem } from "../feeds/model";
import { can } from "../members/permissions";
import { describedBy, errorSummary, fieldError, type FormErrors, type FormField } from "./form-errors";
import { html, type Html } from "./html";
import type { DashboardSession } from "./model";
import { csrfField, layout, when } from "./views";

/**
 * The client lists on the dashboard (issue 45): the Block / Favour form under every card and on the job page, the
 * "★ Favoured client" mark, the Clients page listing both lists with Remove, and a feed's filtered-out page.
 */

export const CLIENTS_PATH = "/dashboard/clients";
const removePath = (companyId: string) => `${CLIENTS_PATH}/${encodeURIComponent(companyId)}/remove`;
const jobPath = (ciphertext: string) => `/dashboard/jobs/${encodeURIComponent(ciphertext)}`;

/** A client's place on the lists, as a card or the job page shows it. */
export type ListMark = Pick<ClientListEntry, "list" | "reason"> | null | undefined;

/** The mark beside a card's title: favoured clients stand out; a blocked one's older jobs say so. */
export function listBadge(mark: ListMark): Html | false {
  if (!mark) return false;
  return mark.list === "favoured"
    ? html`<span class="badge favoured-badge" title="${mark.reason ?? "On the account's favoured list"}">★ Favoured client</span>`
    : html`<span class="badge blocked-badge" title="${mark.reason ?? "On the account's blocked list"}">Blocked client</span>`;
}

function removeButton(session: DashboardSession, companyId: string, back: string, label: string, name?: string): Html {
  return html`<form method="post" action="${removePath(companyId)}">${csrfField(session)}<input type="hidden" name="back" value="${back}"><button type="submit" class="small"${
    name ? html` aria-label="${label}: ${name}"` : ""
  }>${label}</button></form>`;
}

/**
 * Block client / Favour client with an optional reason (folded away on a card), or Remove when the client is on a
 * list already. `uid` keeps the reason's id unique on a page of cards; `back` is where the form returns.
 */
export function clientListForm(
  session: DashboardSession,
  opts: { companyId: string | null | undefined; mark: ListMark; back: string; uid: string; title: string; folded: boolean },
): Html | false {
  const { companyId, mark } = opts;
  if (!companyId || !can(session.role, "clients")) return false;
  if (mark) return removeButton(session, companyId, opts.back, mark.list === "blocked" ? "Unblock client" : "Remove from favoured", opts.title);
  const id = `reason-${opts.uid}`;
  const form = html`<form method="post" action="${CLIENTS_PATH}" class="client-form">${csrfField(session)}<input type="hidden" name="companyId" value="${companyId}"><input type="hidden" name="back" value="${opts.back}">
<label for="${id}" class="client-label">Reason (optional)</label><input type="text" id="${id}" name="reason" maxlength="500" placeholder="e.g. slow to pay">
<div class="actions client-actions"><button type="submit" name="list" value="blocked" class="small" aria-label="Block client: ${opts.title}">Block client</button><button type="submit" name="list" value="favoured" class="small" aria-label="Favour client: ${opts.title}">Favour client</button></div></form>`;
  return opts.folded ? html`<details class="client-list"><summary class="client-toggle">Client…</summary>${form}</details>` : form;
}

/** The job page's part: where the client stands, and the form. */
export function jobClientSection(
  session: DashboardSession,
  companyId: string | null | undefined,
  entry: ClientListEntry | null,
  back: string,
  title: string,
): Html {
  if (!companyId) return html`<p class="muted">This job does not name its client, so it cannot be blocked or favoured.</p>`;
  const status = entry
    ? html`<p>${listBadge(entry)} ${entry.list === "blocked" ? "Their new jobs do not enter your feeds." : "Their jobs are marked in your feeds."}${
        entry.reason && html` Reason: ${entry.reason}`
      } <span class="muted">(since ${when(Date.parse(entry.addedAt))})</span></p>`
    : html`<p class="muted">Block a client to keep their jobs out of every feed; favour one to mark their jobs.</p>`;
  return html`<div class="client-list-section">${status}${clientListForm(session, { companyId, mark: entry, back, uid: "job", title, folded: false })}</div>`;
}

/** The Clients page's add form: its fields, for the messages next to them. */
export const CLIENT_FORM_FIELDS: FormField[] = [
  { path: "companyId", id: "cl-companyId", label: "Company id" },
  { path: "list", id: "cl-list", label: "List" },
  { path: "reason", id: "cl-reason", label: "Reason" },
];

export interface ClientsPageData {
  clients: ClientListEntry[];
  /** Members' names by id, for "added by". */
  names: Map<string, string>;
  values?: Record<string, string | undefined>;
  errors?: FormErrors;
}

function clientsTable(session: DashboardSession, list: "blocked" | "favoured", data: ClientsPageData): Html {
  const rows = data.clients.filter((c) => c.list === list);
  if (rows.length === 0) return html`<p class="muted">${list === "blocked" ? "No blocked clients." : "No favoured clients."}</p>`;
  const mayChange = can(session.role, "clients");
  return html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Company id</th><th scope="col">Reason</th><th scope="col">Added</th>${mayChange && html`<th scope="col"><span class="visually-hidden">Actions</span></th>`}</tr></thead>
<tbody>${rows.map(
    (c) => html`<tr>
<td><code>${c.companyId}</code></td>
<td>${c.reason ?? html`<span class="muted">—</span>`}</td>
<td>${when(Date.parse(c.addedAt))}${c.addedBy && html`<br><span class="muted">by ${data.names.get(c.addedBy) ?? "a former member"}</span>`}</td>
${mayChange && html`<td>${removeButton(session, c.companyId, CLIENTS_PATH, "Remove", c.companyId)}</td>`}
</tr>`,
  )}</tbody></table></div>`;
}

export function clientsPage(session: DashboardSession, data: ClientsPageData): Html {
  const v = data.values ?? {};
  const e = data.errors;
  const add =
    can(session.role, "clients") &&
    html`<h2>Add a client</h2>
${errorSummary(e, "The client")}
<form method="post" action="${CLIENTS_PATH}">${csrfField(session)}<input type="hidden" name="back" value="${CLIENTS_PATH}">
<label for="cl-companyId">Company id</label>
${fieldError(e, "cl-companyId")}
<input type="text" id="cl-companyId" name="companyId" required maxlength="200" value="${v.companyId ?? ""}"${describedBy(e, "cl-companyId")}>
<p id="cl-companyIdHelp" class="muted">The client's id on the marketplace, as the API's <code>companyId</code> of a job shows it.</p>
<label for="cl-list">List</label>
${fieldError(e, "cl-list")}
<select id="cl-list" name="list"${describedBy(e, "cl-list", false)}><option value="blocked"${v.list !== "favoured" ? html` selected` : ""}>Blocked</option><option value="favoured"${v.list === "favoured" ? html` selected` : ""}>Favoured</option></select>
<label for="cl-reason">Reason (optional)</label>
${fieldError(e, "cl-reason")}
<input type="text" id="cl-reason" name="reason" value="${v.reason ?? ""}"${describedBy(e, "cl-reason")}>
<p id="cl-reasonHelp" class="muted">At most 500 characters; shown where their jobs are filtered out.</p>
<div><button type="submit">Add</button></div>
</form>`;
  return layout(
    "Clients",
    html`<p>Clients your account blocks or favours, shared by every member. A blocked client's new jobs never enter a feed (each feed's <em>Filtered out</em> list shows them); a favoured client's jobs are marked “★ Favoured client”. Block or favour a client from any job card, job page or Telegram alert.</p>
<h2>Blocked</h2>
${clientsTable(session, "blocked", data)}
<h2>Favoured</h2>
${clientsTable(session, "favoured", data)}
${add}`,
    session,
    "feeds",
  );
}

export interface FilteredPageData {
  feed: { id: string; title: string };
  jobs: FilteredJobItem[];
  total: number;
  offset: number;
  limit: number;
  /** The page's clients still on the blocked list: only those get an Unblock button. */
  blocked: Set<string>;
}

export function filteredPage(session: DashboardSession, data: FilteredPageData): Html {
  const self = `/dashboard/feeds/${encodeURIComponent(data.feed.id)}/filtered`;
  const back = data.offset > 0 ? `${self}?offset=${data.offset}` : self;
  const to = data.offset + data.jobs.length;
  const pager = html`<nav aria-label="Pages" class="pager">${data.offset > 0 && html`<a href="${self}?offset=${Math.max(0, data.offset - data.limit)}" rel="prev">Newer</a>`}${
    to < data.total && html`<a href="${self}?offset=${to}" rel="next">Older</a>`
  }</nav>`;
  const mayChange = can(session.role, "clients");
  const body =
    data.jobs.length === 0
      ? html`<p class="empty">Nothing filtered out: every job that passed this feed's filters went in.</p>`
      : html`<p class="muted">${data.offset + 1}–${to} of ${data.total}, newest first.</p>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Job</th><th scope="col">Why</th><th scope="col">When</th>${mayChange && html`<th scope="col"><span class="visually-hidden">Actions</span></th>`}</tr></thead>
<tbody>${data.jobs.map(
          (j) => html`<tr>
<td><a href="${jobPath(j.job.ciphertext)}">${j.job.title}</a></td>
<td>${j.reason}</td>
<td>${when(Date.parse(j.at))}</td>
${
  mayChange &&
  html`<td>${j.filter === "blocked-client" && j.companyId && data.blocked.has(j.companyId) ? removeButton(session, j.companyId, back, "Unblock", j.job.title) : ""}</td>`
}
</tr>`,
        )}</tbody></table></div>`;
  return layout(
    `Filtered out of “${data.feed.title}”`,
    html`<p>Jobs that passed the feed's filters but were kept out: their client is blocked, or a signal the feed drops was found. Unblocking a client lets their new jobs in; the ones listed here stay out. <a href="/dashboard/feeds/${encodeURIComponent(data.feed.id)}">Back to the feed</a> · <a href="${CLIENTS_PATH}">Clients</a></p>
${body}
${pager}`,
    session,
    "feeds",
    { wide: true },
  );
}
