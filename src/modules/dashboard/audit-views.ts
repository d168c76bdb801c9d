import { LIMITS, type Limits } from "../automation/limits";
import type { AuditEntry } from "../automation/service";
import type { WorkingHours } from "../automation/working-hours";
import { parseHeldReason } from "../applications/review";
import { AUDIT_PATH, type FreelancerChoice, MODE_LABELS, OVER_BUDGET_LABELS } from "./automation-views";
import { html, type Html } from "./html";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { layout, when } from "./views";

/**
 * The audit log as a page: what automation did, newest first, 50 a page, for the account or one freelancer. The
 * log's details are written for the API (a limits change is its JSON body); here they are put in the form's words.
 */

export const AUDIT_PAGE_SIZE = 50;

export const ACTION_WORDS: Record<string, string> = {
  submit: "Sent",
  wait: "Put off",
  hold: "Held for review",
  refuse: "Refused",
  queue: "Queued",
  draft: "Drafted",
  skip: "Skipped",
  approve: "Approved",
  discard: "Discarded",
  limits: "Limits changed",
  feed_mode: "Feed mode changed",
  request_approval: "Approval requested",
  send_back: "Sent back",
  sign_in: "Signed in",
  sign_in_failed: "Sign-in failed",
  "member.invited": "Member invited",
  "member.role_changed": "Role changed",
  "member.removed": "Member removed",
  "key.created": "Key created",
  "key.revoked": "Key revoked",
  "account.bidders_may_send": "Sending setting changed",
};

const DAY_NAMES = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

function hoursWords(h: WorkingHours | null): string {
  if (h === null) return "any time";
  const days = [1, 2, 3, 4, 5, 6, 0].filter((d) => h.days.includes(d)).map((d) => DAY_NAMES[d]);
  return `${days.join(", ")} ${h.start}–${h.end} (${h.timeZone})`;
}

function limitsWords(json: string): string {
  try {
    const patch = JSON.parse(json) as Partial<Limits>;
    const parts = Object.entries(patch).flatMap(([k, v]) => {
      const meta = LIMITS[k as keyof Limits];
      if (!meta) return [];
      const value = k === "workingHours" ? hoursWords(v as WorkingHours | null) : v === null ? "none" : String(v);
      return [`${meta.label}: ${value}`];
    });
    return parts.length ? parts.join("; ") : "nothing changed";
  } catch {
    return "limits changed";
  }
}

function feedModeWords(detail: string, feedTitles: Map<string, string>): string {
  const m = /^feed (\S+): (\{.*\})$/.exec(detail);
  if (!m) return detail;
  try {
    const v = JSON.parse(m[2]!) as {
      applyMode: keyof typeof MODE_LABELS;
      autoMinScore: number | null;
      autoMinExpectedUsd: number | null;
      overBudget: keyof typeof OVER_BUDGET_LABELS;
    };
    const title = feedTitles.get(m[1]!) ?? "a feed no longer here";
    return [
      `“${title}”: ${MODE_LABELS[v.applyMode] ?? v.applyMode}`,
      `minimum score ${v.autoMinScore ?? "the feed's"}`,
      `minimum expected value ${v.autoMinExpectedUsd === null ? "none" : `$${v.autoMinExpectedUsd}`}`,
      `over budget: ${OVER_BUDGET_LABELS[v.overBudget] ?? v.overBudget}`,
    ].join("; ");
  } catch {
    return detail;
  }
}

function heldWords(reason: string): string {
  const h = parseHeldReason(reason);
  if (h.kind === "similar") return `a letter ${Math.round((h.similarity ?? 0) * 100)} % like one sent before`;
  if (h.kind === "fill-in") return "screening answers to fill in";
  if (h.kind === "budget") return `over the ${h.period === "day" ? "daily" : h.period === "week" ? "weekly" : "monthly"} Connects budget`;
  return "a draft waiting for approval";
}

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;

/** Instants in a detail as <time> (the dashboard script shows them in the reader's time), the rest as text. */
function withTimes(text: string): Html {
  const parts: (Html | string)[] = [];
  let last = 0;
  for (const m of text.matchAll(ISO)) {
    parts.push(text.slice(last, m.index));
    parts.push(when(Date.parse(m[0])));
    last = m.index! + m[0].length;
  }
  parts.push(text.slice(last));
  return html`${parts}`;
}

export function detailWords(e: AuditEntry, feedTitles: Map<string, string>): Html {
  if (e.action === "limits") return html`${limitsWords(e.detail)}`;
  if (e.action === "feed_mode") return html`${feedModeWords(e.detail, feedTitles)}`;
  const held = /^was held: (\S+)(.*)$/.exec(e.detail);
  if (held) return html`Was held: ${heldWords(held[1]!)}${held[2]}`;
  // "held for review" under the action "Held for review" says nothing more.
  if (e.detail.toLowerCase() === (ACTION_WORDS[e.action] ?? "").toLowerCase()) return html`<span class="muted">—</span>`;
  const text = e.detail.charAt(0).toUpperCase() + e.detail.slice(1);
  return withTimes(text);
}

export interface AuditPageData {
  entries: (AuditEntry & { jobCiphertext: string | null; jobTitle: string | null })[];
  total: number;
  offset: number;
  freelancerId: string | null;
  freelancers: FreelancerChoice[];
  feedTitles: Map<string, string>;
}

export function auditPage(session: DashboardSession, d: AuditPageData): Html {
  const name = (id: string | null) => (id === null ? html`<span class="muted">the account</span>` : (d.freelancers.find((f) => f.id === id)?.name ?? id));
  const q = (offset: number) => {
    const p = new URLSearchParams();
    if (d.freelancerId) p.set("freelancer", d.freelancerId);
    if (offset > 0) p.set("offset", String(offset));
    const s = p.toString();
    return s ? `${AUDIT_PATH}?${s}` : AUDIT_PATH;
  };
  const prev = d.offset > 0 && html`<a href="${q(Math.max(0, d.offset - AUDIT_PAGE_SIZE))}">Newer</a>`;
  const next = d.offset + d.entries.length < d.total && html`<a href="${q(d.offset + AUDIT_PAGE_SIZE)}">Older</a>`;
  const rows = d.entries.map(
    (e) => html`<tr>
<td data-label="When">${when(e.at)}</td>
<td data-label="Action" class="primary">${ACTION_WORDS[e.action] ?? e.action}</td>
<td data-label="Who">${e.actor ?? html`<span class="muted">automation</span>`}</td>
<td data-label="Freelancer">${name(e.freelancerId)}</td>
<td data-label="Rule">${e.rule}</td>
<td data-label="Detail" class="detail">${detailWords(e, d.feedTitles)}</td>
<td data-label="Job">${e.jobCiphertext === null ? html`<span class="muted">—</span>` : html`<a href="${DASHBOARD_PATH}/jobs/${encodeURIComponent(e.jobCiphertext)}">${e.jobTitle ?? "The job"}</a>`}</td>
</tr>`,
  );
  return layout(
    "Audit log",
    html`<p class="muted">Everything automation did or was stopped from doing, and every change a person made, with who did it and the rule that decided it, newest first. Kept 90 days. <a href="${DASHBOARD_PATH}/auto-apply">Back to Auto-apply</a></p>
${
  d.freelancers.length > 0 &&
  html`<form method="get" action="${AUDIT_PATH}" class="picker">
<label for="freelancer">Freelancer</label>
<select id="freelancer" name="freelancer">
<option value=""${d.freelancerId === null ? html` selected` : ""}>All freelancers (account)</option>
${d.freelancers.map((f) => html`<option value="${f.id}"${f.id === d.freelancerId ? html` selected` : ""}>${f.name}</option>`)}
</select>
<button type="submit">Show</button>
</form>`
}
${
  d.entries.length === 0
    ? html`<p class="empty">${d.offset > 0 ? "No more entries." : "Nothing in the audit log yet."}</p>`
    : html`<p class="muted">${d.offset + 1}–${d.offset + d.entries.length} of ${d.total}</p>
<div class="table-wrap"><table class="cards audit">
<thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Who</th><th scope="col">Freelancer</th><th scope="col">Rule</th><th scope="col">Detail</th><th scope="col">Job</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
${(prev || next) && html`<nav aria-label="Pages" class="pager">${prev} ${next}</nav>`}`,
    session,
    "auto-apply",
    { wide: true },
  );
}
