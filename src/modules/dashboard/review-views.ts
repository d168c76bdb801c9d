import type { HeldApplication } from "../applications/review";
import type { FreelancerChoice } from "./automation-views";
import { html, type Html } from "./html";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { can } from "../members/permissions";
import { csrfField, layout, when } from "./views";
import { FILL_IN } from "../../ai/local-writer";

/** The label of a held application's letter; its errors use the same words. */
export const LETTER_LABEL = "Letter to send";

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
  returned: "Sent back: its drafter sees your comment here and can ask again.",
  requested: "Queued for approval: an owner or admin approves it, or sends it back with a comment, before anything is sent.",
  gone: "That application was already handled (approved, discarded or sent meanwhile), so nothing changed.",
  missing: "That application is not one of this account's, so nothing changed.",
  empty: "The letter was empty, so nothing was sent; write a letter or discard the application.",
};

const KIND_LABELS: Record<HeldApplication["kind"], string> = {
  draft: "Draft",
  similar: "Similar letter",
  budget: "Over budget",
  approval: "Waiting for approval",
  returned: "Sent back",
  claims: "Unbacked claims",
  "fill-in": "Answers to fill in",
};

/**
 * A form refused before anything changed: a send-back without a comment, or an approval with a "[your …]" slot left
 * in the letter or an answer. Each message sits next to its field (`comment`, `coverLetter`, `answer_<position>`),
 * which shows what was typed again.
 */
export interface ReviewFormError {
  queueId: string;
  /** Messages by field name, in the words of the field's label. */
  fields: Record<string, string>;
  /** What was typed, by field name. */
  typed: Record<string, string>;
}

/** A screening answer's label: its question (or its number, when the job no longer says). */
export const answerLabel = (a: { question: string | null; position: number }) => a.question ?? `Question ${a.position + 1}`;

/** The form field of the answer at a position. */
export const answerField = (position: number) => `answer_${position}`;

/** The bid in words: "45 USD/hour" or "900 USD fixed". */
const bidWords = (a: HeldApplication) => (a.hourlyRate !== null ? `${a.hourlyRate} USD/hour` : a.fixedBid !== null ? `${a.fixedBid} USD fixed` : "—");

/** A field's error, shown above it, and the attributes that tie the field to it. */
function errorOf(id: string, message: string | undefined): { note: Html | false; attrs: Html | string } {
  return message
    ? { note: html`<p id="${id}Error" class="field-error error-text">${message}</p>`, attrs: html` aria-invalid="true" aria-describedby="${id}Error"` }
    : { note: false, attrs: "" };
}

/**
 * The screening answers it would send, with their questions. For an approver each is a field of the approve form, its
 * "[your …]" slots (what only the freelancer knows) marked below it; for anyone else they are only read.
 */
function answersSection(id: string, a: HeldApplication, editable: boolean, error?: ReviewFormError): Html | false {
  if (a.answers.length === 0) return false;
  const heading = html`<h3 class="label-like" id="${id}-answers">Screening answers</h3>`;
  if (!editable) {
    return html`${heading}
<dl class="answers" aria-labelledby="${id}-answers">${a.answers.map((x) => html`<dt>${answerLabel(x)}</dt><dd><pre class="wrap">${x.answer}</pre></dd>`)}</dl>`;
  }
  const mine = error?.queueId === a.queueId ? error : undefined;
  return html`<div class="fill-in">${heading}${a.answers.map((x) => {
    const name = answerField(x.position);
    const fid = `${id}-${name}`;
    const text = mine?.typed[name] ?? x.answer;
    const slots = [...text.matchAll(new RegExp(FILL_IN.source, "g"))].map((m) => m[0]);
    const { note, attrs } = errorOf(fid, mine?.fields[name]);
    return html`<label for="${fid}">${answerLabel(x)}</label>
${note}
<textarea id="${fid}" name="${name}" rows="4" form="${id}-form"${attrs}>${text}</textarea>
${slots.length > 0 && html`<p class="hint">Still to fill in: ${slots.map((s, i) => html`${i > 0 ? ", " : ""}<mark>${s}</mark>`)}</p>`}`;
  })}</div>`;
}

/** What an approver weighs beside the letter: the job, the bid and the screening answers. */
function jobAndBid(id: string, a: HeldApplication, answers: Html | false): Html {
  return html`<div class="held-job">
<h3 class="label-like" id="${id}-job">The job</h3>
<dl class="settings" aria-labelledby="${id}-job">
<dt>Budget</dt><dd>${a.jobBudget ?? "—"}</dd>
<dt>Bid</dt><dd><strong>${bidWords(a)}</strong></dd>
</dl>
${a.jobDescription && html`<details><summary>Description</summary><pre class="wrap">${a.jobDescription}</pre></details>`}
${answers}
</div>`;
}

/** The letter with every flagged claim marked, and why each is flagged: what a reviewer fixes before sending. */
function claimsPanel(id: string, a: HeldApplication): Html | false {
  if (a.claims.length === 0) return false;
  const parts: (string | Html)[] = [];
  let at = 0;
  for (const c of [...a.claims].sort((x, y) => x.start - y.start)) {
    if (c.start < at || a.coverLetter.slice(c.start, c.start + c.text.length) !== c.text) continue;
    parts.push(a.coverLetter.slice(at, c.start), html`<mark>${c.text}</mark>`);
    at = c.start + c.text.length;
  }
  parts.push(a.coverLetter.slice(at));
  return html`<div class="claims">
<h3 class="label-like" id="${id}-claims">Claims your profile and portfolio do not back</h3>
<pre class="wrap" aria-labelledby="${id}-claims">${parts}</pre>
<ul>${a.claims.map((c) => html`<li><mark>${c.text}</mark>: ${c.reason}</li>`)}</ul>
<p class="hint">Remove or correct them in the letter, or add what is true to the freelancer's portfolio.</p>
</div>`;
}

function item(session: DashboardSession, a: HeldApplication, freelancers: FreelancerChoice[], error?: ReviewFormError): Html {
  const id = `held-${a.queueId}`;
  const who = freelancers.find((f) => f.id === a.freelancerId)?.name ?? a.freelancerId;
  const title = a.jobTitle ?? "Untitled job";
  const earlier = a.similarTo;
  const approver = can(session.role, "approve");
  // A bidder edits and re-asks only their own draft that was sent back; everything else they only see.
  const mayAskAgain = a.kind === "returned" && a.draftedById !== null && a.draftedById === session.memberId;
  const editable = approver || mayAskAgain;
  const action = (what: string) => `${REVIEW_PATH}/${encodeURIComponent(a.queueId)}/${what}`;
  const mine = error?.queueId === a.queueId ? error : undefined;
  const letterError = errorOf(`${id}-letter`, mine?.fields.coverLetter);
  const letter = html`<div class="letter-mine">
<label for="${id}-letter">${mayAskAgain && !approver ? "Your letter (edit it, then ask again)" : LETTER_LABEL}</label>
${letterError.note}
${
  editable
    ? html`<textarea id="${id}-letter" name="coverLetter" rows="12" form="${id}-form"${letterError.attrs}>${mine?.typed.coverLetter ?? a.coverLetter}</textarea>`
    : html`<pre class="wrap" id="${id}-letter">${a.coverLetter}</pre>`
}
</div>`;
  // The approver fills in or corrects the answers with the letter; a member's draft shows them with the job and bid.
  const answers = answersSection(id, a, approver, error);
  const side = earlier
    ? html`<div class="letter-earlier">
<h3 class="label-like" id="${id}-earlier">Sent earlier${earlier.sentAt !== null && html` ${when(earlier.sentAt)}`} · ${Math.round(earlier.similarity * 100)} % alike</h3>
<pre class="wrap earlier" aria-labelledby="${id}-earlier">${earlier.coverLetter}</pre>
</div>`
    : a.kind === "approval" || a.kind === "returned"
      ? jobAndBid(id, a, answers)
      : claimsPanel(id, a);
  const answersBelow = !earlier && (a.kind === "approval" || a.kind === "returned") ? false : answers;
  const commentError = mine?.fields.comment;
  const comment =
    a.reviewComment &&
    html`<div class="notice review-comment"><p><strong>${a.kind === "returned" ? "Sent back" : "Sent back earlier"}:</strong></p><pre class="wrap">${a.reviewComment}</pre></div>`;
  let actions: Html | false = false;
  if (approver) {
    actions = html`<form method="post" action="${action("approve")}" id="${id}-form" class="actions">${csrfField(session)}
<button type="submit">Approve and send</button>
<button type="submit" class="danger" formaction="${action("discard")}">Discard</button>
</form>
${
  a.kind === "approval" &&
  html`<form method="post" action="${action("send-back")}" class="send-back" novalidate>${csrfField(session)}
<label for="${id}-comment">Send back with a comment</label>
${commentError && html`<p id="${id}-commentError" class="field-error error-text">${commentError}</p>`}
<textarea id="${id}-comment" name="comment" rows="3" required${commentError ? html` aria-invalid="true" aria-describedby="${id}-commentError"` : ""}>${commentError ? (mine?.typed.comment ?? "") : ""}</textarea>
<button type="submit">Send back</button>
</form>`
}`;
  } else if (mayAskAgain) {
    actions = html`<form method="post" action="${action("request-approval")}" id="${id}-form" class="actions">${csrfField(session)}
<button type="submit">Request approval again</button>
</form>`;
  }
  return html`<article class="held" aria-labelledby="${id}-title">
<h2 id="${id}-title" class="held-title"><a href="${jobPath(a.jobCiphertext)}">${title}</a></h2>
<p class="meta"><span class="badge">${KIND_LABELS[a.kind]}</span> for <strong>${who}</strong>${a.draftedBy && html` · drafted by <strong>${a.draftedBy}</strong>`} · queued ${when(a.queuedAt)}</p>
<p class="why">${a.why}</p>
${comment}
${side ? html`<div class="letters">${letter}${side}</div>` : letter}
${answersBelow}
${actions}
</article>`;
}

export function reviewPage(
  session: DashboardSession,
  data: { applications: HeldApplication[]; total: number; offset: number; freelancers: FreelancerChoice[]; heldCount: number },
  notice?: string,
  error?: ReviewFormError,
): Html {
  const { applications, total, offset } = data;
  const approver = can(session.role, "approve");
  const prev = offset > 0 && html`<a href="${REVIEW_PATH}?offset=${Math.max(0, offset - REVIEW_PAGE_SIZE)}">Newer</a>`;
  const next = offset + applications.length < total && html`<a href="${REVIEW_PATH}?offset=${offset + REVIEW_PAGE_SIZE}">Older</a>`;
  const intro = approver
    ? html`Applications waiting for you: members' drafts asking for approval, drafts of a feed in draft mode, letters too like one already sent, and proposals that would break a Connects budget. Edit the letter if you like, then approve, send a member's draft back with a comment, or discard it.`
    : html`Your drafts waiting for an owner or admin, and the ones sent back to you with a comment: edit the letter, then ask again.`;
  return layout(
    "Review",
    html`${notice && html`<div class="notice" role="status"><p>${notice}</p></div>`}
${error && html`<div class="error" role="alert"><p>That did not work: ${Object.values(error.fields).join(" ")}</p></div>`}
<p class="muted">${intro} <a href="${DASHBOARD_PATH}/auto-apply">Limits and feed modes</a></p>
${
  applications.length === 0
    ? html`<p class="empty">Nothing is waiting for review.</p>`
    : html`<p>${total} ${total === 1 ? "application waits" : "applications wait"} for review.</p>
${applications.map((a) => item(session, a, data.freelancers, error))}`
}
${(prev || next) && html`<nav aria-label="Pages" class="pager">${prev} ${next}</nav>`}`,
    { ...session, heldCount: data.heldCount },
    "review",
    { wide: true },
  );
}
