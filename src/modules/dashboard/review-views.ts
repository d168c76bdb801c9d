import type { HeldApplication } from "../applications/review";
import type { FreelancerChoice } from "./automation-views";
import { html, type Html } from "./html";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { csrfField, layout, when } from "./views";

/**
 * The Review page: every application held for a person, with why it waits, its letter to edit, and for a letter
 * held as too similar the earlier one beside it (side by side on a wide screen, one above the other on a phone).
 */

export const REVIEW_PATH = `${DASHBOARD_PATH}/review`;
export const REVIEW_PAGE_SIZE = 50;

const jobPath = (ciphertext: string) => `${DASHBOARD_PATH}/jobs/${encodeURIComponent(ciphertext)}`;

/** The notices the list shows after an action (by the `done` query parameter). */
export const REVIEW_NOTICES: Record<string, string> = {
  approved: "Approved: the application is on its way, within the limits (working hours, caps and pacing still apply).",
  discarded: "Discarded: nothing was sent and nothing was charged.",
  gone: "That application was already handled (approved, discarded or sent meanwhile), so nothing changed.",
  missing: "That application is not one of this account's, so nothing changed.",
  empty: "The letter was empty, so nothing was sent; write a letter or discard the application.",
};

const KIND_LABELS: Record<HeldApplication["kind"], string> = { draft: "Draft", similar: "Similar letter", budget: "Over budget" };

function item(session: DashboardSession, a: HeldApplication, freelancers: FreelancerChoice[]): Html {
  const id = `held-${a.queueId}`;
  const who = freelancers.find((f) => f.id === a.freelancerId)?.name ?? a.freelancerId;
  const title = a.jobTitle ?? "Untitled job";
  const earlier = a.similarTo;
  const letter = html`<div class="letter-mine">
<label for="${id}-letter">Letter to send</label>
<textarea id="${id}-letter" name="coverLetter" rows="12" form="${id}-form">${a.coverLetter}</textarea>
</div>`;
  return html`<article class="held" aria-labelledby="${id}-title">
<h2 id="${id}-title" class="held-title"><a href="${jobPath(a.jobCiphertext)}">${title}</a></h2>
<p class="meta"><span class="badge">${KIND_LABELS[a.kind]}</span> for <strong>${who}</strong> · queued ${when(a.queuedAt)}</p>
<p class="why">${a.why}</p>
${
  earlier
    ? html`<div class="letters">
${letter}
<div class="letter-earlier">
<h3 class="label-like" id="${id}-earlier">Sent earlier${earlier.sentAt !== null && html` ${when(earlier.sentAt)}`} · ${Math.round(earlier.similarity * 100)} % alike</h3>
<pre class="wrap earlier" aria-labelledby="${id}-earlier">${earlier.coverLetter}</pre>
</div>
</div>`
    : letter
}
<form method="post" action="${REVIEW_PATH}/${encodeURIComponent(a.queueId)}/approve" id="${id}-form" class="actions">${csrfField(session)}
<button type="submit">Approve and send</button>
<button type="submit" class="danger" formaction="${REVIEW_PATH}/${encodeURIComponent(a.queueId)}/discard">Discard</button>
</form>
</article>`;
}

export function reviewPage(
  session: DashboardSession,
  data: { applications: HeldApplication[]; total: number; offset: number; freelancers: FreelancerChoice[]; heldCount: number },
  notice?: string,
): Html {
  const { applications, total, offset } = data;
  const prev = offset > 0 && html`<a href="${REVIEW_PATH}?offset=${Math.max(0, offset - REVIEW_PAGE_SIZE)}">Newer</a>`;
  const next = offset + applications.length < total && html`<a href="${REVIEW_PATH}?offset=${offset + REVIEW_PAGE_SIZE}">Older</a>`;
  return layout(
    "Review",
    html`${notice && html`<div class="notice" role="status"><p>${notice}</p></div>`}
<p class="muted">Applications waiting for you: drafts of a feed in draft mode, letters too like one already sent, and proposals that would break a Connects budget. Edit the letter if you like, then approve or discard. <a href="${DASHBOARD_PATH}/auto-apply">Limits and feed modes</a></p>
${
  applications.length === 0
    ? html`<p class="empty">Nothing is waiting for review.</p>`
    : html`<p>${total} ${total === 1 ? "application waits" : "applications wait"} for review.</p>
${applications.map((a) => item(session, a, data.freelancers))}`
}
${(prev || next) && html`<nav aria-label="Pages" class="pager">${prev} ${next}</nav>`}`,
    { ...session, heldCount: data.heldCount },
    "review",
    { wide: true },
  );
}
