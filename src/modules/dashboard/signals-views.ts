/**
 * A job's signals (issue 45; modules/jobs/signals.ts) as the dashboard shows them: one warning line each, on the
 * inbox card and at the top of the job page, a repost linking to the earlier job.
 */
import { type JobSignal, signalsOf } from "../jobs/signals";
import { html, type Html } from "./html";

const jobPath = (ciphertext: string) => `/dashboard/jobs/${encodeURIComponent(ciphertext)}`;

/** Nothing when the job carries no signal; takes the stored value as it is (signalsOf drops anything else). */
export function signalFlags(stored: readonly JobSignal[] | unknown): Html {
  const signals = signalsOf(stored);
  if (signals.length === 0) return html``;
  return html`<ul class="signal-flags error" aria-label="Warnings">${signals.map(
    (s) => html`<li data-signal="${s.id}">⚠ ${s.say}${s.earlier && html` · <a href="${jobPath(s.earlier.ciphertext)}">the earlier job</a>`}</li>`,
  )}</ul>`;
}
