import { iso } from "../../lib/time";
import type { ApplicationRow } from "../applications/repo";
import { TIMELINES } from "../applications/model";
import type { HistoryPointView, ProposalActivity } from "../jobs/activity";
import type { ClientScore, ScoreComponent } from "../jobs/client-score";
import type { NormalizedJob } from "../jobs/normalize";
import { budgetText } from "../jobs/service";
import { html, type Html } from "./html";
import type { DashboardSession } from "./model";
import { csrfField, externalLink, layout, when } from "./views";

/**
 * The job page of the dashboard: the archived document (as the by-ciphertext
 * API returns it) with client score, proposal activity and its history chart,
 * the caller's application, and the proposal and apply forms. Form values are
 * kept as the raw strings the user typed so a refused form comes back as is.
 */

/** The apply / proposal form as posted: every field a string (answers as `answer_<position>`). */
export type JobFormValues = Record<string, string | undefined>;

const EFFORTS = ["low", "medium", "high"] as const;

const jobPath = (ciphertext: string) => `/dashboard/jobs/${encodeURIComponent(ciphertext)}`;

export interface JobPageData {
  ciphertext: string;
  /** The archive service's answer (document plus proposalActivity, clientScore, matches). */
  archived: Record<string, any>;
  /** The document normalized, when it normalizes. */
  job: NormalizedJob | null;
  questions: { position: number; question: string }[];
  application: ApplicationRow | null;
}

export interface JobPageOpts {
  values?: JobFormValues;
  errors?: string[];
  notice?: string;
}

// ---------- the proposal history chart ----------

const CHART = { width: 360, height: 140, left: 36, right: 12, top: 12, bottom: 24 };

/**
 * Proposals over time as a small server-rendered SVG line chart (no script, no
 * inline style: the dashboard's CSP forbids both). Points without a proposal
 * count are skipped; with none left, a sentence instead of a chart.
 */
export function proposalChart(history: HistoryPointView[] | undefined): Html {
  const points = (history ?? [])
    .filter((p) => typeof p.proposals === "number" && Number.isFinite(p.proposals))
    .map((p, i) => ({ i, ts: p.at, at: Number.isFinite(p.at) ? iso(p.at) : "?", proposals: p.proposals as number }));
  if (points.length === 0) return html`<p class="muted">No proposal history recorded yet.</p>`;
  const { width, height, left, right, top, bottom } = CHART;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const times = points.map((p) => p.ts);
  const useTime = times.every(Number.isFinite) && Math.max(...times) > Math.min(...times);
  const minT = useTime ? Math.min(...times) : 0;
  const spanT = useTime ? Math.max(...times) - minT : Math.max(1, points.length - 1);
  const maxY = Math.max(1, ...points.map((p) => p.proposals));
  const xy = points.map((p) => {
    const fx = points.length === 1 ? 0.5 : ((useTime ? p.ts : p.i) - minT) / spanT;
    const x = left + fx * plotW;
    const y = top + plotH - (p.proposals / maxY) * plotH;
    return { x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10, p };
  });
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const label = `Proposals over time: ${first.proposals} at ${first.at}, ${last.proposals} at ${last.at} (${points.length} point${points.length === 1 ? "" : "s"}, peak ${maxY})`;
  const baseY = top + plotH;
  return html`<svg class="chart" role="img" aria-label="${label}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<title>${label}</title>
<line x1="${left}" y1="${top}" x2="${left}" y2="${baseY}" stroke="currentColor" stroke-width="1"/>
<line x1="${left}" y1="${baseY}" x2="${width - right}" y2="${baseY}" stroke="currentColor" stroke-width="1"/>
<text x="${left - 4}" y="${top + 4}" text-anchor="end" font-size="10" fill="currentColor">${maxY}</text>
<text x="${left - 4}" y="${baseY}" text-anchor="end" font-size="10" fill="currentColor">0</text>
<text x="${left}" y="${height - 6}" font-size="10" fill="currentColor">${first.at.slice(0, 16).replace("T", " ")}</text>
<text x="${width - right}" y="${height - 6}" text-anchor="end" font-size="10" fill="currentColor">${last.at.slice(0, 16).replace("T", " ")}</text>
${xy.length > 1 && html`<polyline points="${xy.map((q) => `${q.x},${q.y}`).join(" ")}" fill="none" stroke="currentColor" stroke-width="2"/>`}
${xy.map((q) => html`<circle cx="${q.x}" cy="${q.y}" r="3" fill="currentColor"><title>${q.p.proposals} proposals at ${q.p.at}</title></circle>`)}
</svg>`;
}

// ---------- sections ----------

const dash = (v: unknown) => (v === null || v === undefined || v === "" ? "—" : String(v));

function component(name: string, c: ScoreComponent | undefined): Html {
  if (!c) return html``;
  return html`<dt>${name}</dt><dd>${c.score === null ? "unknown" : `${c.score}/100`}${c.facts.length > 0 && html`<ul>${c.facts.map((f) => html`<li>${f}</li>`)}</ul>`}</dd>`;
}

function clientSection(score: ClientScore | null | undefined): Html {
  if (!score) return html`<p class="muted">No client score.</p>`;
  return html`<p><strong>${score.score === null ? "—" : score.score}</strong> ${score.label}</p>
<dl class="settings">
${component("Hires", score.components?.hires)}
${component("Money", score.components?.money)}
${component("Reputation", score.components?.reputation)}
${component("Engagement", score.components?.engagement)}
</dl>
${score.facts?.length > 0 && html`<h3>Facts</h3><ul>${score.facts.map((f) => html`<li>${f}</li>`)}</ul>`}
${score.flags?.length > 0 && html`<h3>Flags</h3><ul class="error">${score.flags.map((f) => html`<li>${f}</li>`)}</ul>`}
${score.perks?.length > 0 && html`<h3>Perks</h3><ul>${score.perks.map((f) => html`<li>${f}</li>`)}</ul>`}`;
}

function activitySection(a: ProposalActivity | null | undefined): Html {
  if (!a) return html`<p class="muted">No proposal activity known for this job.</p>`;
  const bid = a.bidStats;
  return html`<dl class="settings">
<dt>Proposals</dt><dd>${dash(a.proposals)}</dd>
<dt>Interviewing</dt><dd>${dash(a.interviewing)}</dd>
<dt>Hired</dt><dd>${dash(a.hired)}${a.positionsToHire !== null ? ` of ${a.positionsToHire}` : ""}</dd>
<dt>Invites sent</dt><dd>${dash(a.invitesSent)} <span class="muted">(${dash(a.unansweredInvites)} unanswered)</span></dd>
<dt>Client last active</dt><dd>${dash(a.lastClientActivity)}</dd>
<dt>Competition</dt><dd>${dash(a.competition)}</dd>
${bid && html`<dt>Bids</dt><dd>avg ${dash(bid.avg)}, min ${dash(bid.min)}, max ${dash(bid.max)} ${bid.currency ?? ""}</dd>`}
<dt>Source</dt><dd>${a.source}${a.tracking && html` <span class="muted">(${a.tracking.checks} checks, ${a.tracking.active ? "tracking" : `stopped: ${a.tracking.stoppedReason ?? ""}`})</span>`}</dd>
</dl>
<h3>History</h3>
${proposalChart(a.history)}`;
}

function applicationSection(app: ApplicationRow | null): Html {
  if (!app) return html`<p>You have not applied to this job.</p>`;
  return html`<dl class="settings">
<dt>Status</dt><dd><strong>${app.status}</strong>${app.statusMessage && html` <span class="muted">${app.statusMessage}</span>`}</dd>
<dt>Queue id</dt><dd><code>${app.id}</code></dd>
<dt>Applied at</dt><dd>${when(app.appliedAtTs)}</dd>
${app.errorMessage && html`<dt>Error</dt><dd class="error">${app.errorMessage}</dd>`}
<dt>Cover letter</dt><dd><pre class="wrap">${app.coverLetter}</pre></dd>
</dl>`;
}

function errorList(errors: string[] | undefined): Html | false {
  return !!errors?.length && html`<div class="error" role="alert"><p>That did not work:</p><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>`;
}

function proposalForm(session: DashboardSession, self: string, v: JobFormValues): Html {
  const effort = v.reasoningEffort ?? "low";
  return html`<form method="post" action="${self}/proposal">
${csrfField(session)}
<label for="reasoningEffort">Reasoning effort</label>
<select id="reasoningEffort" name="reasoningEffort" aria-describedby="reasoningEffortHelp">${EFFORTS.map(
    (e) => html`<option value="${e}"${e === effort ? html` selected` : ""}>${e}</option>`,
  )}</select>
<p id="reasoningEffortHelp" class="muted">More effort: a longer, more specific letter. Generating costs no credits; nothing is sent until you apply.</p>
<button type="submit">Generate a proposal</button>
</form>`;
}

function applyForm(session: DashboardSession, self: string, v: JobFormValues, questions: JobPageData["questions"]): Html {
  const timeline = v.timeline ?? "";
  return html`<form method="post" action="${self}/apply">
${csrfField(session)}
<label for="coverLetter">Cover letter</label>
<textarea id="coverLetter" name="coverLetter" rows="14" cols="80" required>${v.coverLetter ?? ""}</textarea>
${
  questions.length > 0 &&
  html`<fieldset><legend>Screening questions</legend>${questions.map(
    (q) => html`<label for="answer_${q.position}">${q.position + 1}. ${q.question}</label>
<textarea id="answer_${q.position}" name="answer_${q.position}" rows="4" cols="80">${v[`answer_${q.position}`] ?? ""}</textarea>`,
  )}</fieldset>`
}
<fieldset>
<legend>Bid</legend>
<label for="hourlyRate">Hourly rate (USD)</label>
<input type="text" id="hourlyRate" name="hourlyRate" inputmode="decimal" value="${v.hourlyRate ?? ""}" aria-describedby="hourlyRateHelp">
<p id="hourlyRateHelp" class="muted">Hourly jobs. Empty: the low end of the client's range, else 30.</p>
<label for="fixedBid">Fixed bid (USD)</label>
<input type="text" id="fixedBid" name="fixedBid" inputmode="decimal" value="${v.fixedBid ?? ""}" aria-describedby="fixedBidHelp">
<p id="fixedBidHelp" class="muted">Fixed-price jobs. Empty: the client's budget, else 100.</p>
<label for="timeline">Timeline</label>
<select id="timeline" name="timeline"><option value=""${timeline === "" ? html` selected` : ""}>From the posting</option>${TIMELINES.map(
    (t) => html`<option value="${t}"${t === timeline ? html` selected` : ""}>${t}</option>`,
  )}</select>
<label for="boostBids">Boost (Connects)</label>
<input type="text" id="boostBids" name="boostBids" inputmode="numeric" value="${v.boostBids ?? ""}" aria-describedby="boostBidsHelp">
<p id="boostBidsHelp" class="muted">Optional extra Connects to boost the proposal. Empty: none.</p>
</fieldset>
<p class="muted">Applying holds one credit; it is charged only when the application succeeds.</p>
<button type="submit">Apply</button>
</form>`;
}

export function jobPage(session: DashboardSession, data: JobPageData, opts: JobPageOpts = {}): Html {
  const { archived, job } = data;
  const self = jobPath(data.ciphertext);
  const title = String(job?.title ?? archived.title ?? "Untitled job");
  const description = String(job?.description ?? archived.description ?? "");
  const url = job?.url ?? "";
  const skills = job?.skills ?? [];
  const v = opts.values ?? {};
  return layout(
    title,
    html`${opts.notice && html`<div class="notice" role="status"><p>${opts.notice}</p></div>`}
${errorList(opts.errors)}
<p>${externalLink(url, "Open the job posting", html`<span class="muted">No link to the posting.</span>`)} · <code>${data.ciphertext}</code></p>
<dl class="settings">
<dt>Budget</dt><dd>${job ? dash(budgetText(job)) : "—"}</dd>
<dt>Job type</dt><dd>${dash(job?.jobType)}</dd>
<dt>Client country</dt><dd>${dash(job?.clientCountry)}</dd>
<dt>Skills</dt><dd>${skills.length ? skills.join(", ") : "—"}</dd>
<dt>Published</dt><dd>${job?.publishTimeTs ? when(job.publishTimeTs) : "—"}</dd>
</dl>
<h2>Description</h2>
<pre class="wrap">${description}</pre>
<h2>Client</h2>
${clientSection(archived.clientScore)}
<h2>Proposal activity</h2>
${activitySection(archived.proposalActivity)}
<h2>Your application</h2>
${applicationSection(data.application)}
<h2>Proposal</h2>
${proposalForm(session, self, v)}
<h2>Apply</h2>
${applyForm(session, self, v, data.questions)}`,
    session,
  );
}
