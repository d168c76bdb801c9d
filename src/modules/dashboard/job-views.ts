import type { ApplicationRow } from "../applications/repo";
import { signalFlags } from "./signals-views";
import type { ExpectedValue } from "../value/model";
import { expectedValueLine } from "./value-views";
import type { ApplicationFunnel } from "../applications/model";
import { TIMELINES } from "../applications/model";
import type { HistoryPointView, ProposalActivity } from "../jobs/activity";
import type { ClientScore, ScoreComponent } from "../jobs/client-score";
import type { NormalizedJob } from "../jobs/normalize";
import { budgetText } from "../jobs/service";
import { defaultBid } from "../applications/service";
import type { FreelancerProfile } from "../../marketplace/driver";
import type { ClientSnapshot } from "../clients/service";
import type { ArmInExperiment, JobExperimentChoices } from "../experiments/service";
import type { ClaimView } from "../members/claims";
import type { Retrieved } from "../../ai/portfolio";
import { INSTRUCTION_MAX_LENGTH } from "../proposals/model";
import type { VersionRow } from "../proposals/repo";
import { can } from "../members/permissions";
import { clientCharts, timeChart } from "./charts";
import { html, raw, type Html } from "./html";
import type { DashboardSession } from "./model";
import { csrfField, externalLink, layout, when } from "./views";
import { outcomeSection, type OutcomeState } from "./outcome-views";
import type { ClientListEntry } from "../clients/model";
import { jobClientSection } from "./clients-views";

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
  /** The client's spend and hires across its archived jobs (clients service), oldest first. */
  clientHistory: ClientSnapshot[];
  /** The sent application's funnel (applications/funnel.ts), null unless it was sent. */
  funnel?: ApplicationFunnel | null;
  /** When the page was made: the outcome form's latest time. */
  nowTs?: number;
  /** What applying is worth against its Connects (marketplace jobs), as on the inbox card. */
  value?: ExpectedValue | null;
  /** The member drafting this job (the session's own claim, taken as the page opened, or another member's). */
  claim?: ClaimView | null;
  /** Who drafted, approved and sent the application, by name (null: an API key of no member, or automation). */
  people?: { draftedBy: string | null; approvedBy: string | null; sentBy: string | null };
  /** The profile the job's feed routes to (routing): the apply form's default when it is listed. */
  routedProfileId?: string;
  /** The client's entry on the account's lists (issue 45), null when on neither. */
  clientList?: ClientListEntry | null;
}

export interface JobPageOpts {
  values?: JobFormValues;
  errors?: string[];
  notice?: string;
}

// ---------- the charts ----------

/** Proposals over time (points without a proposal count are skipped). */
export function proposalChart(history: HistoryPointView[] | undefined): Html {
  const points = (history ?? [])
    .filter((p) => typeof p.proposals === "number" && Number.isFinite(p.proposals))
    .map((p) => ({ ts: p.at, value: p.proposals as number }));
  return timeChart(points, { name: "Proposals", yLabel: "proposals", empty: "No proposal history recorded yet." });
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

/**
 * An application's status in a reader's words (the API's values are for programs): one label, used by the
 * panel, the job page and the inbox card alike, so they never disagree.
 */
export function statusLabel(app: Pick<ApplicationRow, "status" | "phase"> & { heldReason?: string | null }): string {
  switch (app.status) {
    case "processing":
      if (app.phase === "queued" && app.heldReason === "approval") return "Waiting for approval";
      if (app.phase === "queued" && app.heldReason === "returned") return "Sent back for changes";
      return app.phase === "queued" ? "Application queued" : "Sending the application";
    case "applied":
      return "Applied";
    case "failed":
      return "Application failed";
    case "not_available":
      return "Not sent: the job is no longer available";
    case "not_eligible":
      return "Not sent: not eligible for this job";
    case "not_enough_connects":
      return "Not sent: not enough Connects";
    case "logged_out":
      return "Not sent: the marketplace session was logged out";
  }
}

/** "Priya Nair — Data Engineer" for the profile an application went out as, or null when the marketplace no longer lists it. */
function appliedAs(app: ApplicationRow, profiles: ProfileChoice[]): string | null {
  const p = profiles.find((c) => c.profileId === app.profileId);
  return p ? `${p.freelancerName} — ${p.name}` : null;
}

/**
 * The application's record. `withStatus` is false beside the live status block (applicationStatus), which
 * already says it and keeps saying it as it changes; this record is drawn once and would contradict it.
 */
function applicationSection(
  app: ApplicationRow | null,
  profiles: ProfileChoice[],
  withStatus: boolean,
  under?: ArmInExperiment | null,
  people?: JobPageData["people"],
): Html {
  if (!app) return html`<p>You have not applied to this job.</p>`;
  const as = appliedAs(app, profiles);
  // A null person is a key of no member, or for a feed's draft or auto mode, automation.
  const nobody = app.origin === "draft" || app.origin === "auto" ? "automation" : "an API key";
  const waiting = app.status === "processing" && app.phase === "queued" && app.heldReason !== null && app.heldReason !== "approved";
  return html`<dl class="settings">
${withStatus && html`<dt>Status</dt><dd><strong>${statusLabel(app)}</strong>${app.statusMessage && html` <span class="muted">${app.statusMessage}</span>`}</dd>`}
<dt>Applied as</dt><dd>${as ?? html`<code>${app.freelancerId}</code>${app.profileId && html`, profile <code>${app.profileId}</code>`}`}</dd>
${people && html`<dt>Drafted by</dt><dd>${people.draftedBy ?? nobody}</dd>`}
${people?.approvedBy && html`<dt>Approved by</dt><dd>${people.approvedBy}</dd>`}
${people && !waiting && html`<dt>Sent by</dt><dd>${people.sentBy ?? (app.approvedBy !== null ? "—" : nobody)}</dd>`}
${app.reviewComment && html`<dt>Approver's comment</dt><dd><pre class="wrap">${app.reviewComment}</pre></dd>`}
${under && html`<dt>Experiment</dt><dd><a href="${experimentPath(under.id)}">${under.name}</a>, arm “${under.armName}”${app.editedByHand === true && html` <span class="muted">(letter edited by hand: left out of the results)</span>`}</dd>`}
<dt>Queue id</dt><dd><code>${app.id}</code></dd>
<dt>Applied at</dt><dd>${when(app.appliedAtTs)}</dd>
${withStatus && app.errorMessage && html`<dt>Error</dt><dd class="error">${app.errorMessage}</dd>`}
<dt>Cover letter</dt><dd><pre class="wrap">${app.coverLetter}</pre></dd>
</dl>`;
}

function errorList(errors: string[] | undefined): Html | false {
  return !!errors?.length && html`<div class="error" role="alert"><p>That did not work:</p><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>`;
}

/** A profile the apply form offers, with the freelancer it belongs to. */
export interface ProfileChoice extends FreelancerProfile {
  freelancerName: string;
}

/**
 * The panel's form posts with htmx and gets the panel back; the page's form is plain and gets a page. While
 * it is sent, both buttons are disabled and the request marker goes on Apply, not on the form (whose marker
 * would show the "Writing the proposal" progress, which belongs to the other button).
 */
function enhance(panel: string | undefined, action: string): Html | string {
  return panel === undefined
    ? ""
    : html` hx-post="${action}" hx-target="#panel" hx-swap="innerHTML" hx-indicator="find .apply-button" hx-disabled-elt="find .apply-button, find .draft-button"`;
}

/** Ids are unique per document; the panel sits next to the list, so its fields carry a prefix. */
const idOf = (panel: string | undefined, name: string) => (panel === undefined ? name : `p-${name}`);

function panelField(panel: string | undefined): Html | string {
  return panel === undefined ? "" : html`<input type="hidden" name="panel" value="${panel}">`;
}

/** The profile whose name shares most words with the job's title and skills; the first (primary) on a tie. */
export function bestProfile(profiles: ProfileChoice[], job: NormalizedJob | null): string | undefined {
  const words = (t: string) =>
    new Set(
      t
        .toLowerCase()
        .split(/[^a-z0-9+#]+/)
        .filter((w) => w.length > 2),
    );
  const jobWords = words(`${job?.title ?? ""} ${(job?.skills ?? []).join(" ")}`);
  let best: ProfileChoice | undefined;
  let bestScore = -1;
  for (const p of profiles) {
    const score = [...words(p.name)].filter((w) => jobWords.has(w)).length;
    if (score > bestScore) [best, bestScore] = [p, score];
  }
  return best?.profileId;
}

function fieldError(fieldErrors: Record<string, string> | undefined, name: string, id: string): Html | string {
  const message = fieldErrors?.[name];
  return message ? html`<p id="${id}Error" class="error-text field-error">${message}</p>` : "";
}

/** The label of the freelancer/profile picker; its errors use the same words. */
export const PROFILE_LABEL = "Apply as";

/** The label of the experiment picker. */
export const EXPERIMENT_LABEL = "Experiment";

/** The label of the apply form's letter; its errors use the same words. */
export const COVER_LETTER_LABEL = "Cover letter";

/** A screening question's label in the apply form ("1. When can you start?"); its errors use the same words. */
export const questionLabel = (q: { position: number; question: string }) => `${q.position + 1}. ${q.question}`;

/** The label of the regeneration instruction; its errors use the same words. */
export const INSTRUCTION_LABEL = "Instruction for the next draft";

/**
 * The profile the form preselects: the one posted, else the one the job's feed routes to, else the best fit. One
 * function, so the picker and the case studies shown beside it (job.ts) always speak of the same profile.
 */
export function chosenProfile(v: JobFormValues, data: JobPageData, profiles: ProfileChoice[]): string | undefined {
  const routed = profiles.some((p) => p.profileId === data.routedProfileId) ? data.routedProfileId : undefined;
  return v.profileId || routed || bestProfile(profiles, data.job);
}

/** What the picked profile's portfolio gives the letter: the case studies it would cite (relevantCaseStudies). */
export interface CitedCaseStudies {
  profile: ProfileChoice;
  /** How many case studies the portfolio has: 0 when none were entered. */
  caseStudies: number;
  cited: Retrieved[];
}

/**
 * The Freelancers page's portfolio editor of a profile: its text field, inside a folded <details> that the browser
 * unfolds when a link's fragment names something inside it.
 */
const portfolioEditor = (profileId: string) => `/dashboard/freelancers#pf-${encodeURIComponent(profileId)}-md`;

/**
 * The case studies the letter cites for the picked freelancer, so the user sees what it will claim before writing
 * it; without a portfolio, where to enter one. Read for the profile the form preselects, which is one the account's
 * driver lists.
 */
function citedSection(session: DashboardSession, c: CitedCaseStudies | null | undefined, id: (n: string) => string): Html | string {
  if (!c) return "";
  const who = `${c.profile.freelancerName} — ${c.profile.name}`;
  if (c.caseStudies === 0) {
    const editor = html`<a href="${portfolioEditor(c.profile.profileId)}">the Freelancers page</a>`;
    return html`<p class="cited muted" id="${id("cited")}">No portfolio for ${who} yet, so the letter cites no case studies: ${
      can(session.role, "freelancers") ? html`add one on ${editor}.` : html`an owner or admin adds one on ${editor}.`
    }</p>`;
  }
  if (c.cited.length === 0) {
    const n = c.caseStudies === 1 ? "the one case study" : `the ${c.caseStudies} case studies`;
    return html`<p class="cited muted" id="${id("cited")}">None of ${n} in the portfolio of ${who} fits this job, so the letter cites none.</p>`;
  }
  return html`<div class="cited" id="${id("cited")}">
<p class="label-like">Case studies the letter cites</p>
<ul>${c.cited.map(
    ({ study }) =>
      html`<li><strong>${study.title}</strong>${study.client && html` — for ${study.client}`}${study.outcome && html`<br>${study.outcome}`}${
        study.link && html` · ${externalLink(study.link, html`See the work<span class="visually-hidden">: ${study.title}</span>`, "")}`
      }</li>`,
  )}</ul>
<p class="muted">From the portfolio of ${who}: the ${c.cited.length === 1 ? "one" : "ones"} closest to this job's title and skills.</p>
</div>`;
}

const WRITERS: Record<string, string> = { model: "written by the model", local: "written by the local writer", template: "the experiment's template" };

/**
 * Every letter written for the job, newest first (proposalVersions): when, with which instruction, which one an
 * application sent. In the form, each has a button that puts its text back into the letter (`self`: the job's
 * path); beside a settled application the list is only read.
 */
function versionsSection(versions: VersionRow[] | undefined, letter: string | undefined, self?: string): Html | string {
  if (!versions || versions.length === 0) return "";
  const current = letter?.trim();
  return html`<details class="versions"><summary>Versions of this letter <span class="muted">(${versions.length})</span></summary>
<ul class="versions-list">${versions.map((v) => {
    const inLetter = self !== undefined && current === v.letter.trim();
    return html`<li>
<p><strong>Version ${v.number}</strong> · ${when(v.createdAtTs)}${v.sentApplicationId !== null && html` <span class="badge status-applied">Sent</span>`}${
      inLetter && html` <span class="badge">In the letter now</span>`
    }</p>
<p class="muted">${v.instruction ? html`Instruction: “${v.instruction}”` : "No instruction"} · ${WRITERS[v.writer] ?? v.writer}${
      v.claims.length > 0 && ` · ${v.claims.length === 1 ? "1 claim" : `${v.claims.length} claims`} flagged`
    }</p>
${self !== undefined && !inLetter && html`<p><button type="submit" class="link" formaction="${self}/version" name="version" value="${v.id}">Load version ${v.number} into the letter</button></p>`}
</li>`;
  })}</ul>
</details>`;
}

const experimentPath = (id: string) => `/dashboard/experiments/${encodeURIComponent(id)}`;

/** "In the experiment “X”: arm “B”", the experiment's name a link to its results. */
function inExperiment(a: ArmInExperiment): Html {
  return html`In the experiment <a href="${experimentPath(a.id)}">“${a.name}”</a>: arm “${a.armName}”`;
}

/** What "Automatic" means for this job, in words: the experiment the rules would put it in, or that none would. */
function automaticWords(c: JobExperimentChoices): string {
  if (c.automatic) {
    return `Automatic: this job joins “${c.automatic.name}”, ${c.automatic.ofFeed ? "the experiment of its feed" : "your experiment for jobs from any feed"}.`;
  }
  const limited = c.freelancerLimited ? " An experiment limited to one freelancer takes it when you apply as them." : "";
  return `Automatic: no running experiment takes this job on its own, so it goes out as usual.${limited}`;
}

/**
 * The experiment part of the form: nothing without a running experiment; the job's arm when it has one (it keeps
 * it, so there is nothing to choose, and the hidden field names that experiment to apply); else the picker.
 */
function experimentPicker(
  c: JobExperimentChoices | undefined,
  v: JobFormValues,
  id: (n: string) => string,
  fieldErrors: Record<string, string> | undefined,
): Html | string {
  if (!c || c.running.length === 0) return "";
  if (c.assigned) {
    return html`<p class="experiment-line">${inExperiment(c.assigned)} (chosen at random; it stays with this job).</p>
<input type="hidden" name="experimentId" value="${c.assigned.id}">`;
  }
  const chosen = v.experimentId ?? "";
  const error = fieldErrors?.experimentId;
  return html`<label for="${id("experimentId")}">${EXPERIMENT_LABEL}</label>
${fieldError(fieldErrors, "experimentId", id("experimentId"))}
<select id="${id("experimentId")}" name="experimentId"${error ? html` aria-invalid="true"` : ""} aria-describedby="${error ? `${id("experimentId")}Error ` : ""}${id("experimentId")}Help"><option value="">Automatic</option>${c.running.map(
    (e) => html`<option value="${e.id}"${e.id === chosen ? html` selected` : ""}>${e.name}</option>`,
  )}</select>
<p id="${id("experimentId")}Help" class="muted">${automaticWords(c)} The arm is chosen at random when you first draft or apply, and stays with the job.</p>`;
}

/**
 * The confirmation the `a` shortcut opens (app script) before it sends anything: a key pressed by mistake
 * must not spend a credit and the freelancer's Connects. Cancel has the focus, so Enter or Esc backs out;
 * Tab then Enter sends. Clicking Apply is deliberate and sends at once.
 */
function confirmDialog(id: (n: string) => string, asks: boolean): Html {
  return html`<dialog id="${id("confirmApply")}" class="confirm-apply" aria-labelledby="${id("confirmApplyTitle")}" aria-describedby="${id("confirmApplyText")}" data-confirm-apply>
<h4 id="${id("confirmApplyTitle")}">${asks ? "Ask for approval?" : "Send this application?"}</h4>
<p id="${id("confirmApplyText")}">${asks ? "An owner or admin approves it before it goes out" : "It goes out"} as <strong data-confirm-as></strong> and holds one credit.${asks ? "" : " It cannot be changed once sent."}</p>
<div class="actions"><button type="button" data-confirm-cancel autofocus>Cancel</button> <button type="button" data-confirm-send>${asks ? "Request approval" : "Send application"}</button></div>
</dialog>`;
}

/**
 * Whether the session's role asks for approval instead of sending (a bidder, unless the account lets bidders
 * send): the form's button says "Request approval" and the apply handler queues it for an approver.
 */
export const asksForApproval = (session: Pick<DashboardSession, "role" | "biddersMaySend">) =>
  !can(session.role, "send", { biddersMaySend: session.biddersMaySend }) && can(session.role, "draft");

/** "14:32" UTC for a claim's times. */
const hhmm = (ts: number) => `${new Date(ts).toISOString().slice(11, 16)} UTC`;

/**
 * Who is drafting the job: the session's own claim ("You are drafting this job"), or another member's with their
 * name and until when; a Release button for the holder, and for an owner or admin on anyone's.
 */
export function claimStatus(session: DashboardSession, data: JobPageData): Html | false {
  const c = data.claim;
  if (!c) return false;
  const mayRelease = c.mine || can(session.role, "approve");
  const words = c.mine
    ? html`<strong>You are drafting this job</strong> — other members cannot send a proposal for it until ${hhmm(c.expiresAt)} (renewed while you draft).`
    : html`<strong>${c.memberName} is drafting this job</strong> — until ${hhmm(c.expiresAt)}. Ask them, or wait: a proposal from you would be refused meanwhile.`;
  return html`<div class="notice claim" role="status" id="claim"><p>${words}</p>${
    mayRelease &&
    html`<form method="post" action="${jobPath(data.ciphertext)}/release" class="inline">${csrfField(session)}<button type="submit" class="small">Release</button></form>`
  }</div>`;
}

/**
 * The one form of a job that is not applied to yet: who applies, the letter (written on request), the answers
 * and the bid. One form, so that "Generate a proposal" (its own formaction) posts the picked freelancer and
 * everything typed so far, and the form comes back with all of it kept, the letter written for that person.
 */
function applyForm(
  session: DashboardSession,
  self: string,
  v: JobFormValues,
  data: JobPageData,
  opts: {
    fieldErrors?: Record<string, string>;
    profiles?: ProfileChoice[];
    panel?: string;
    experiments?: JobExperimentChoices;
    cited?: CitedCaseStudies | null;
    versions?: VersionRow[];
  },
): Html {
  const { panel, fieldErrors } = opts;
  const id = (n: string) => idOf(panel, n);
  const timeline = v.timeline ?? "";
  const effort = v.reasoningEffort ?? "low";
  const job = data.job;
  // Only the bid the job's type takes, filled with the amount apply would send when left empty.
  const bid = job && job.platform !== "web" ? defaultBid(job) : null;
  const showHourly = !bid || bid.hourlyRate !== null;
  const showFixed = !bid || bid.fixedBid !== null;
  const hourly = v.hourlyRate ?? (bid?.hourlyRate != null ? String(bid.hourlyRate) : "");
  const fixed = v.fixedBid ?? (bid?.fixedBid != null ? String(bid.fixedBid) : "");
  const profiles = opts.profiles ?? [];
  const chosen = chosenProfile(v, data, profiles);
  const asks = asksForApproval(session);
  const described = (name: string, help: string) => (fieldErrors?.[name] ? `${id(name)}Error ${help}` : help);
  const invalid = (name: string) => (fieldErrors?.[name] ? html` aria-invalid="true"` : "");
  // The first submit button is the one Enter in a text field presses; a disabled one makes Enter do nothing,
  // so a stray Enter neither rewrites the letter nor sends the application.
  return html`<form method="post" action="${self}/apply"${enhance(panel, `${self}/apply`)} novalidate>
<button type="submit" disabled hidden aria-hidden="true" tabindex="-1"></button>
${csrfField(session)}${panelField(panel)}
${
  profiles.length > 0 &&
  html`<label for="${id("profileId")}">${PROFILE_LABEL}</label>
${fieldError(fieldErrors, "profileId", id("profileId"))}
<select id="${id("profileId")}" name="profileId"${invalid("profileId")} aria-describedby="${described("profileId", `${id("profileId")}Help`)}">${profiles.map(
    (p) =>
      html`<option value="${p.profileId}"${p.profileId === chosen ? html` selected` : ""}>${p.freelancerName} — ${p.name}${p.hourlyRate !== null ? ` (${p.hourlyRate} ${p.currency}/h)` : ""}</option>`,
  )}</select>
<p id="${id("profileId")}Help" class="muted">Preselected: the profile that best fits the job's title and skills. The letter introduces this freelancer, and the application goes out as them.</p>`
}
${experimentPicker(opts.experiments, v, id, fieldErrors)}
<label for="${id("reasoningEffort")}">Reasoning effort</label>
<select id="${id("reasoningEffort")}" name="reasoningEffort" aria-describedby="${id("reasoningEffortHelp")}">${EFFORTS.map(
    (e) => html`<option value="${e}"${e === effort ? html` selected` : ""}>${e}</option>`,
  )}</select>
<p id="${id("reasoningEffortHelp")}" class="muted">More effort: a longer, more specific letter. Generating costs no credits; nothing is sent until you apply.</p>
${citedSection(session, opts.cited, id)}
<label for="${id("instruction")}">${INSTRUCTION_LABEL} <span class="muted">(optional)</span></label>
${fieldError(fieldErrors, "instruction", id("instruction"))}
<input type="text" id="${id("instruction")}" name="instruction" maxlength="${INSTRUCTION_MAX_LENGTH}" value="${v.instruction ?? ""}"${invalid("instruction")} aria-describedby="${described("instruction", `${id("instruction")}Help`)}">
<p id="${id("instruction")}Help" class="muted">How the next letter should differ, e.g. “shorter”, “mention the Shopify app”, “less formal”. Every letter is kept below as a version.</p>
<button type="submit" class="draft-button" formaction="${self}/proposal" data-progress="${id("progress")}" data-key="d">Generate a proposal</button>
<div id="${id("progress")}" class="progress" role="status" aria-live="polite"><span class="spinner" aria-hidden="true"></span> <span class="progress-text">Writing the proposal…</span><ol class="stages"></ol></div>
<label for="${id("coverLetter")}">${COVER_LETTER_LABEL}</label>
${fieldError(fieldErrors, "coverLetter", id("coverLetter"))}
<textarea id="${id("coverLetter")}" name="coverLetter" rows="14" cols="80" required${fieldErrors?.coverLetter ? html` aria-invalid="true" aria-describedby="${id("coverLetter")}Error"` : ""}>${v.coverLetter ?? ""}</textarea>
${versionsSection(opts.versions, v.coverLetter, self)}
${
  data.questions.length > 0 &&
  html`<fieldset><legend>Screening questions <span class="muted">(every one needs an answer)</span></legend>${data.questions.map((q) => {
    const name = `answer_${q.position}`;
    const error = fieldErrors?.[name];
    return html`<label for="${id(name)}">${questionLabel(q)}</label>
${fieldError(fieldErrors, name, id(name))}
<textarea id="${id(name)}" name="${name}" rows="4" cols="80" required${error ? html` aria-invalid="true" aria-describedby="${id(name)}Error"` : ""}>${v[name] ?? ""}</textarea>`;
  })}</fieldset>`
}
<fieldset>
<legend>Bid</legend>
${
  showHourly &&
  html`<label for="${id("hourlyRate")}">Hourly rate (USD)</label>
${fieldError(fieldErrors, "hourlyRate", id("hourlyRate"))}
<input type="text" id="${id("hourlyRate")}" name="hourlyRate" inputmode="decimal" value="${hourly}" aria-describedby="${described("hourlyRate", `${id("hourlyRate")}Help`)}">
<p id="${id("hourlyRate")}Help" class="muted">${bid ? "Filled with the low end of the client's range (else 30)." : "Hourly jobs. Empty: the low end of the client's range, else 30."}</p>`
}
${
  showFixed &&
  html`<label for="${id("fixedBid")}">Fixed bid (USD)</label>
${fieldError(fieldErrors, "fixedBid", id("fixedBid"))}
<input type="text" id="${id("fixedBid")}" name="fixedBid" inputmode="decimal" value="${fixed}" aria-describedby="${described("fixedBid", `${id("fixedBid")}Help`)}">
<p id="${id("fixedBid")}Help" class="muted">${bid ? "Filled with the client's budget (else 100)." : "Fixed-price jobs. Empty: the client's budget, else 100."}</p>`
}
<label for="${id("timeline")}">Timeline</label>
<select id="${id("timeline")}" name="timeline"><option value=""${timeline === "" ? html` selected` : ""}>From the posting</option>${TIMELINES.map(
    (t) => html`<option value="${t}"${t === timeline ? html` selected` : ""}>${t}</option>`,
  )}</select>
<label for="${id("boostBids")}">Boost (Connects)</label>
<input type="text" id="${id("boostBids")}" name="boostBids" inputmode="numeric" value="${v.boostBids ?? ""}" aria-describedby="${id("boostBids")}Help">
<p id="${id("boostBids")}Help" class="muted">Optional extra Connects to boost the proposal. Empty: none.</p>
</fieldset>
<p class="muted">${asks ? "Your role sends through an approver: an owner or admin sees the letter, answers and bid, then approves it or sends it back with a comment. " : ""}Applying holds one credit; it is charged only when the application succeeds.</p>
<button type="submit" class="apply-button" data-key="a">${asks ? "Request approval" : "Apply"}</button>
${confirmDialog(id, asks)}
</form>`;
}

/** An application that is not final is polled (htmx) until it is; without script the page shows it as it was. */
export function applicationStatus(app: ApplicationRow, ciphertext: string, panel?: string): Html {
  const moving = app.status === "processing";
  const poll = `${jobPath(ciphertext)}/status${panel ? `?panel=${encodeURIComponent(panel)}` : ""}`;
  return html`<div class="app-status"${moving ? html` hx-get="${poll}" hx-trigger="load delay:1s" hx-swap="outerHTML"` : ""} role="status" aria-live="polite">
<p><strong class="badge status-${app.status}">${statusLabel(app)}</strong>${app.statusMessage && html` <span class="muted">${app.statusMessage}</span>`}</p>
${app.errorMessage && html`<p class="error">${app.errorMessage}</p>`}
<p><a href="/dashboard/applications">All applications</a></p>
</div>`;
}

export interface JobViewOpts extends JobPageOpts {
  fieldErrors?: Record<string, string>;
  /** The outcome form as posted, with its errors, or the notice after recording. */
  outcome?: OutcomeState;
  profiles?: ProfileChoice[];
  /** The experiment picker's choices (jobExperimentChoices); none shown when undefined or nothing runs. */
  experiments?: JobExperimentChoices;
  /** The experiment and arm the job's application went out under, when it did. */
  appliedUnder?: ArmInExperiment | null;
  /** The case studies the letter would cite for the preselected profile; null when no listed profile is picked. */
  cited?: CitedCaseStudies | null;
  /** The job's letters, newest first (proposalVersions). */
  versions?: VersionRow[];
}

/** An application in flight or sent: the job shows its status instead of the forms (a failed one may be retried). */
export const isSettledApplication = (app: ApplicationRow | null): app is ApplicationRow => app !== null && app.status !== "failed";

/** The proposal and apply part of a job (page or panel): the form, or the application's status once applied. */
function applySections(session: DashboardSession, data: JobPageData, opts: JobViewOpts, panel: string | undefined, h: "h2" | "h3"): Html {
  const self = jobPath(data.ciphertext);
  const v = opts.values ?? {};
  const profiles = opts.profiles ?? [];
  if (isSettledApplication(data.application)) {
    return html`${raw(`<${h}>`)}Your application${raw(`</${h}>`)}
${applicationStatus(data.application, data.ciphertext, panel)}
${data.funnel && outcomeSection(session, data.funnel, { panel, state: opts.outcome, heading: h === "h2" ? "h3" : "h4", nowTs: data.nowTs ?? Date.now() })}
${applicationSection(data.application, profiles, false, opts.appliedUnder, data.people)}
${versionsSection(opts.versions, undefined)}`;
  }
  return html`${raw(`<${h}>`)}Your application${raw(`</${h}>`)}
${claimStatus(session, data)}
${applicationSection(data.application, profiles, true, opts.appliedUnder, data.people)}
${raw(`<${h}>`)}Proposal and bid${raw(`</${h}>`)}
${applyForm(session, self, v, data, { fieldErrors: opts.fieldErrors, profiles, panel, experiments: opts.experiments, cited: opts.cited, versions: opts.versions })}`;
}

function factsList(data: JobPageData): Html {
  const { job } = data;
  const skills = job?.skills ?? [];
  return html`<dl class="settings">
<dt>Budget</dt><dd>${job ? dash(budgetText(job)) : "—"}</dd>
<dt>Job type</dt><dd>${dash(job?.jobType)}</dd>
<dt>Client country</dt><dd>${dash(job?.clientCountry)}</dd>
<dt>Skills</dt><dd>${skills.length ? skills.join(", ") : "—"}</dd>
<dt>Published</dt><dd>${job?.publishTimeTs ? when(job.publishTimeTs) : "—"}</dd>
</dl>`;
}

export function jobPage(session: DashboardSession, data: JobPageData, opts: JobViewOpts = {}): Html {
  const { archived, job } = data;
  const title = String(job?.title ?? archived.title ?? "Untitled job");
  const description = String(job?.description ?? archived.description ?? "");
  const url = job?.url ?? "";
  return layout(
    title,
    html`${opts.notice && html`<div class="notice" role="status"><p>${opts.notice}</p></div>`}
${errorList(opts.errors)}
<p>${externalLink(url, "Open the job posting", html`<span class="muted">No link to the posting.</span>`)} · <code>${data.ciphertext}</code></p>
${signalFlags(archived.signals)}
${data.value && expectedValueLine(data.value)}
${factsList(data)}
<h2>Description</h2>
<pre class="wrap">${description}</pre>
<h2>Client</h2>
${jobClientSection(session, job?.companyId, data.clientList ?? null, jobPath(data.ciphertext), title)}
${clientSection(archived.clientScore)}
<h3>Spend and hires over time</h3>
${clientCharts(data.clientHistory)}
<h2>Proposal activity</h2>
${activitySection(archived.proposalActivity)}
${applySections(session, data, opts, undefined, "h2")}`,
    session,
    "inbox",
  );
}

/**
 * The same job as the inbox's side panel (an htmx fragment): description, client
 * facts and the activity chart first, then the draft and apply forms, which post
 * to the job page's own handlers and get this panel back.
 */
export function jobPanel(session: DashboardSession, data: JobPageData, entryId: string, opts: JobViewOpts = {}): Html {
  const { archived, job } = data;
  const title = String(job?.title ?? archived.title ?? "Untitled job");
  const description = String(job?.description ?? archived.description ?? "");
  return html`<div class="panel-head"><h2 id="panel-title" tabindex="-1">${title}</h2>
<p><a href="${jobPath(data.ciphertext)}">Open as a page</a> · ${externalLink(job?.url, "the posting", "")} <button type="button" class="link" data-close-panel hidden>Close</button></p></div>
${opts.notice && html`<div class="notice" role="status"><p>${opts.notice}</p></div>`}
${errorList(opts.errors)}
${isSettledApplication(data.application) && applySections(session, data, opts, entryId, "h3")}
${signalFlags(archived.signals)}
${factsList(data)}
<details open><summary>Description</summary><pre class="wrap">${description}</pre></details>
<h3>Client</h3>
${jobClientSection(session, job?.companyId, data.clientList ?? null, "/dashboard", title)}
${clientSection(archived.clientScore)}
<h4>Spend and hires over time</h4>
${clientCharts(data.clientHistory)}
<h3>Proposal activity</h3>
${activitySection(archived.proposalActivity)}
${!isSettledApplication(data.application) && applySections(session, data, opts, entryId, "h3")}
${data.application && applicationBadge(data.application, entryId, true)}`;
}

export function noApplication(): Html {
  return html`<div class="app-status"><p>You have not applied to this job.</p></div>`;
}

/**
 * The application's badge on an inbox card (an empty placeholder without one). While the application is
 * in flight it polls its entry's status (htmx) and replaces itself until the status is final; `oob` sends it
 * along with the panel so the card follows an application made there.
 */
export function applicationBadge(app: ApplicationRow | null, entryId: string, oob = false): Html {
  const swap = oob ? html` hx-swap-oob="true"` : "";
  if (!app) return html`<span id="card-status-${entryId}"${swap}></span>`;
  const moving = app.status === "processing";
  const poll = moving ? html` hx-get="/dashboard/inbox/${encodeURIComponent(entryId)}/status" hx-trigger="load delay:1s" hx-swap="outerHTML"` : "";
  return html`<span id="card-status-${entryId}"${swap}${poll}><span class="badge status-${app.status}">${statusLabel(app)}</span></span>`;
}
