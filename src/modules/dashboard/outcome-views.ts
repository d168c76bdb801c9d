import { iso } from "../../lib/time";
import { RECORDABLE_OUTCOMES, type ApplicationFunnel, type RecordableOutcome } from "../applications/model";
import type { FormErrors } from "./form-errors";
import { describedBy, fieldError } from "./form-errors";
import { html, raw, type Html } from "./html";
import type { DashboardSession } from "./model";
import { csrfField, when } from "./views";

/**
 * "What happened?" on a sent proposal: its funnel (sent → viewed → replied → interview → hired, the outcome,
 * the Connects it cost) and the small form that records an outcome through the applications module's
 * recordOutcome. The same section sits on the job page and in the inbox's side panel; htmx swaps it in place,
 * without script the form posts and the page comes back.
 */

export const outcomePath = (queueId: string) => `/dashboard/applications/${encodeURIComponent(queueId)}/outcome`;

/** The form's labels; its errors use the same words. */
export const OUTCOME_LABELS = { outcome: "What happened?", valueUsd: "Contract value (USD)", at: "When", note: "Note" } as const;

const CHOICE_WORDS: Record<RecordableOutcome, string> = {
  replied: "The client replied",
  interview: "Interview",
  hired: "Hired",
  lost: "Lost (someone else got it, or the job closed)",
  withdrawn: "I withdrew",
};

export type OutcomeValues = Record<string, string | undefined>;

export interface OutcomeState {
  values?: OutcomeValues;
  errors?: FormErrors;
  notice?: string;
}

/**
 * The API's messages about an outcome, in the form's words: the field a message starts with becomes its label
 * (only the start: "at" is also an English word inside sentences), and what only a program needs (Unix ms) goes.
 * A conflict (409) is about the choice itself, so it sits next to "What happened?".
 */
export function outcomeErrors(details: string[], conflict = false): FormErrors {
  const byId = new Map<string, string[]>();
  const general: string[] = [];
  const all: FormErrors["all"] = [];
  for (const detail of details) {
    let message = detail
      .replace(/ \(Unix ms\)/g, "")
      .replace("leave it out for now", "leave it empty for now")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z/g, (at) => `${at.slice(0, 16).replace("T", " ")} UTC`);
    let id: string | null = conflict ? "outcome" : null;
    for (const [path, label] of Object.entries(OUTCOME_LABELS)) {
      if (message.startsWith(`${path} `)) {
        message = `${label}${message.slice(path.length)}`;
        id = path;
        break;
      }
    }
    // Messages naming no field of the form (an application never sent) are about the choice too.
    id ??= "outcome";
    byId.set(id, [...(byId.get(id) ?? []), message]);
    all.push({ id, message });
  }
  return { byId, general, all };
}

const stageRow = (label: string, at: number | null, pending = "not yet") =>
  html`<li class="${at === null ? "stage pending" : "stage reached"}"><span class="stage-name">${label}</span> <span class="stage-at">${at === null ? html`<span class="muted">${pending}</span>` : when(at)}</span></li>`;

function outcomeText(f: ApplicationFunnel): Html {
  switch (f.outcome) {
    case null:
      return f.inConversation ? html`Open: in conversation with the client` : html`Open: waiting for the client`;
    case "hired":
      return html`<strong>Hired</strong>${f.valueUsd !== null && html`, contract value $${f.valueUsd.toLocaleString("en-US")}`} (${when(f.outcomeAt)})`;
    case "lost":
      return html`<strong>Lost</strong> (${when(f.outcomeAt)})`;
    case "withdrawn":
      return html`<strong>Withdrawn</strong> (${when(f.outcomeAt)})`;
    case "no_reply":
      return html`<strong>No reply</strong> <span class="muted">(none by ${when(f.outcomeAt)}; a reply or an outcome recorded later still counts)</span>`;
  }
}

function connectsText(f: ApplicationFunnel): Html {
  if (f.connectsRequired === null) return html`<span class="muted">not reported by the marketplace</span>`;
  const spent = f.connectsRequired + (f.boostConnects ?? 0);
  return html`${spent} Connects${f.boostConnects ? ` (${f.boostConnects} of them boost)` : ""}${f.connectsCostUsd !== null && html`, $${f.connectsCostUsd.toFixed(2)}`}`;
}

/** The proposal's funnel: one line per stage with its time. */
export function funnelList(f: ApplicationFunnel): Html {
  return html`<ol class="funnel-stages" aria-label="Funnel of this proposal">
${stageRow("Sent", f.stages.sent)}
${stageRow("Viewed", f.stages.viewed, f.stages.replied !== null ? "not reported" : "not yet")}
${stageRow("Replied", f.stages.replied)}
${stageRow("Interview", f.stages.interview)}
${stageRow("Hired", f.stages.hired)}
</ol>
<dl class="settings">
<dt>Outcome</dt><dd>${outcomeText(f)}</dd>
<dt>Connects spent</dt><dd>${connectsText(f)}</dd>
${f.note && html`<dt>Note</dt><dd>${f.note}</dd>`}
</dl>`;
}

/** "2026-12-02T10:15" in UTC, the value a datetime-local field shows (the browser's zone is applied by app.js). */
const localValue = (ts: number) => iso(ts).slice(0, 16);

/**
 * The funnel and the form of one sent proposal. `panel` is the inbox entry when the section sits in the side
 * panel: its ids take a prefix (the page's own ids are unique) and the form says where it came from.
 */
export function outcomeSection(
  session: DashboardSession,
  f: ApplicationFunnel,
  opts: { panel?: string; state?: OutcomeState; heading: "h3" | "h4"; nowTs: number },
): Html {
  const { panel, state = {} } = opts;
  const id = (n: string) => (panel === undefined ? `outcome-${n}` : `p-outcome-${n}`);
  const v = state.values ?? {};
  const errors = state.errors;
  // Errors are keyed by the API's field; controls by their id.
  const byControl: FormErrors | undefined = errors && { ...errors, byId: new Map([...errors.byId].map(([k, m]) => [id(k), m])) };
  const picked = v.outcome ?? "";
  const action = outcomePath(f.queueId);
  const h = opts.heading;
  const sectionId = panel === undefined ? "outcome" : "p-outcome";
  const enhance = html` hx-post="${action}" hx-target="#${sectionId}" hx-swap="outerHTML" hx-disabled-elt="find button[type=submit]"`;
  return html`<section id="${sectionId}" class="outcome" aria-labelledby="${id("title")}">
${raw(`<${h} id="${id("title")}">`)}Outcome${raw(`</${h}>`)}
${funnelList(f)}
<form method="post" action="${action}"${enhance} class="outcome-form" novalidate>
${csrfField(session)}${panel !== undefined && html`<input type="hidden" name="panel" value="${panel}">`}
<input type="hidden" name="tz" value="${v.tz ?? ""}" data-time-zone>
<fieldset id="${id("outcome")}"${describedBy(byControl, id("outcome"), false)}>
<legend>${OUTCOME_LABELS.outcome}</legend>
${fieldError(byControl, id("outcome"))}
<div class="choices">${RECORDABLE_OUTCOMES.map(
    (o) =>
      html`<label class="choice"><input type="radio" name="outcome" value="${o}"${picked === o ? html` checked` : ""}${o === "hired" ? html` data-hired` : ""}> ${CHOICE_WORDS[o]}</label>`,
  )}</div>
</fieldset>
<div class="hired-only">
<label for="${id("valueUsd")}">${OUTCOME_LABELS.valueUsd} <span class="muted">(optional)</span></label>
${fieldError(byControl, id("valueUsd"))}
<input type="text" inputmode="decimal" id="${id("valueUsd")}" name="valueUsd" value="${v.valueUsd ?? f.valueUsd ?? ""}"${describedBy(byControl, id("valueUsd"))}>
<p id="${id("valueUsd")}Help" class="muted">For a hire only: the hourly rate × the hours you expect, or the fixed price. It is what analytics counts as the value won.</p>
</div>
<label for="${id("at")}">${OUTCOME_LABELS.at} <span class="muted">(optional)</span></label>
${fieldError(byControl, id("at"))}
<input type="datetime-local" id="${id("at")}" name="at" value="${v.at ?? ""}" max="${localValue(opts.nowTs)}" data-local-max${describedBy(byControl, id("at"))}>
<p id="${id("at")}Help" class="muted">Empty: now. In your time zone, <span data-time-zone-name>UTC</span>; not in the future, not before the proposal was sent.</p>
<label for="${id("note")}">${OUTCOME_LABELS.note} <span class="muted">(optional)</span></label>
${fieldError(byControl, id("note"))}
<textarea id="${id("note")}" name="note" rows="2" maxlength="2000"${describedBy(byControl, id("note"))}>${v.note ?? f.note ?? ""}</textarea>
<p id="${id("note")}Help" class="muted">Your own words on it (up to 2000 characters); it replaces the note saved before.</p>
<button type="submit">Record</button>
${state.notice && html`<p class="notice" role="status">${state.notice}</p>`}
</form>
</section>`;
}
