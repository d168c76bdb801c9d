/**
 * The sandbox website's pages. They copy the structure public sources document for the real marketplace's
 * pages (extension/src/adapter.ts cites each selector): an embedded state object in `script#__NUXT_DATA__`
 * (Nuxt 3's flattened form), `data-test` attributes on tiles and fields, the login form's ids, the apply
 * form's fields, confirmation modal and alerts. The look is plain; the structure is the point.
 */
import { escapeHtml } from "../../../lib/html";
import type { JobDocument } from "../../../sources/document";

/** Already-escaped markup. */
class Markup {
  constructor(readonly value: string) {}
}
type Part = Markup | string | number | null | undefined | false | Part[];
const renderPart = (v: Part): string =>
  v instanceof Markup ? v.value : Array.isArray(v) ? v.map(renderPart).join("") : v === null || v === undefined || v === false ? "" : escapeHtml(String(v));
function h(strings: TemplateStringsArray, ...values: Part[]): Markup {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += renderPart(values[i]!) + strings[i + 1]!;
  return new Markup(out);
}

/**
 * A value in Nuxt 3's payload form (devalue's flattened array: item 0 is the root, containers hold indices),
 * inside a script element: `<` is escaped so no string in it can close the element.
 */
export function nuxtPayload(value: unknown): Markup {
  const items: unknown[] = [];
  const add = (v: unknown): number => {
    if (v === undefined) return -1;
    const index = items.length;
    items.push(null);
    if (Array.isArray(v)) items[index] = v.map(add);
    else if (typeof v === "object" && v !== null) items[index] = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, add(x)]));
    else items[index] = v;
    return index;
  };
  const root = items.length;
  items.push(null);
  items[root] = ["Reactive", add(value)];
  return new Markup(`<script type="application/json" id="__NUXT_DATA__" data-ssr="true">${JSON.stringify(items).replace(/</g, "\\u003c")}</script>`);
}

export interface Chrome {
  base: string;
  signedInAs: string | null;
}

function layout(chrome: Chrome, title: string, body: Markup, state?: unknown): string {
  return h`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222}header{background:#14a800;color:#fff;padding:10px 20px;display:flex;gap:18px;align-items:center}
header a{color:#fff}main{max-width:960px;margin:20px auto;padding:0 20px}article{border-bottom:1px solid #ddd;padding:12px 0}.up-alert-danger{background:#fde8e8;border:1px solid #d33;padding:10px;margin:10px 0}
.up-modal{position:fixed;inset:20% 25%;background:#fff;border:2px solid #333;padding:20px}.sandbox-note{font-size:12px;color:#666}</style></head>
<body><header data-test="Header"><strong>Sandbox marketplace</strong>
<a href="${chrome.base}/nx/search/jobs/">Search</a><a href="${chrome.base}/nx/find-work/most-recent">Find work</a><a href="${chrome.base}/nx/proposals">My proposals</a>
<span>${chrome.signedInAs ? `Signed in (${chrome.signedInAs})` : h`<a href="${chrome.base}/ab/account-security/login">Log in</a>`}</span></header>
<main>${body}
<p class="sandbox-note">A simulated marketplace served by jobpilot for testing the browser companion. Nothing here is real.</p></main>
${state === undefined ? "" : nuxtPayload(state)}</body></html>`.value;
}

const money = (n: unknown) => (typeof n === "number" ? `$${n.toLocaleString("en-US", { maximumFractionDigits: 2 })}` : typeof n === "string" ? `$${n}` : "");

function budgetLine(doc: JobDocument): string {
  const tile = doc.jobTile?.job ?? {};
  if (tile.jobType === "HOURLY") {
    return tile.hourlyBudgetMin ? `Hourly: ${money(tile.hourlyBudgetMin)}${tile.hourlyBudgetMax ? ` - ${money(tile.hourlyBudgetMax)}` : ""}` : "Hourly";
  }
  return "Fixed-price";
}

/** A search result as the marketplace's `userJobSearchV1` returns it (title, description, jobTile, client summary). */
function searchResult(doc: JobDocument) {
  return {
    id: doc.id,
    title: doc.title,
    description: doc.description,
    ontologySkills: doc.ontologySkills,
    jobTile: doc.jobTile,
    upworkHistoryData: doc.upworkHistoryData,
    connectPrice: doc.connectPrice,
  };
}

function tile(chrome: Chrome, doc: JobDocument): Markup {
  const job = doc.jobTile?.job ?? {};
  const client = (doc.upworkHistoryData?.client ?? {}) as Record<string, any>;
  const ciphertext = String(job.ciphertext);
  return h`<article data-ev-job-uid="${doc.id}" data-test="JobTile">
<time data-test="job-pubilshed-date" datetime="${String(job.publishTime ?? "")}"><span>Posted</span> <span>${String(job.publishTime ?? "")}</span></time>
<h2 class="job-tile-title"><a data-test="job-tile-title-link" href="${chrome.base}/jobs/${ciphertext}">${doc.title}</a></h2>
<ul data-test="JobInfo"><li data-test="job-type-label">${budgetLine(doc)}</li>
${job.jobType === "FIXED" && job.fixedPriceAmount ? h`<li data-test="is-fixed-price">Est. budget: <strong>${money(job.fixedPriceAmount.amount)}</strong></li>` : ""}</ul>
<div data-test="UpCLineClamp JobDescription"><p>${doc.description.slice(0, 400)}</p></div>
<div>${(doc.ontologySkills ?? []).map((s) => h`<span data-test="token"><span>${s.prefLabel}</span></span> `)}</div>
<ul data-test="JobInfoClient">${client.paymentVerificationStatus === "VERIFIED" ? h`<li data-test="payment-verified">Payment verified</li>` : ""}
${client.totalSpent?.amount ? h`<li data-test="total-spent"><strong>${money(client.totalSpent.amount)}</strong> spent</li>` : ""}
<li data-test="location">${String(client.country ?? "")}</li></ul></article>`;
}

export function searchPage(chrome: Chrome, query: string, docs: JobDocument[], heading: string): string {
  const body = h`<h1>${heading}</h1>
<form method="get" action="${chrome.base}/nx/search/jobs/"><input name="q" value="${query}" aria-label="Search for jobs"><button>Search</button></form>
<section data-test="job-tile-list">${docs.length === 0 ? h`<p>No jobs match.</p>` : docs.map((d) => tile(chrome, d))}</section>`;
  return layout(chrome, heading, body, { data: { search: { results: docs.map(searchResult), paging: { total: docs.length } } } });
}

/** The client panel of a job page; absent for a visitor or a client whose stats the marketplace does not show. */
function aboutClient(details: Record<string, any>, authenticated: boolean): Markup | "" {
  const info = authenticated ? details.buyer?.info : details.buyer;
  if (!info?.stats) return "";
  return h`<section data-test="about-client-container"><h2>About the client</h2>
<p data-qa="client-location"><strong>${String(info.location?.country ?? "")}</strong> ${String(info.location?.city ?? "")}</p>
<p data-qa="client-spend"><span>${money(info.stats.totalCharges?.amount)} total spent</span></p>
<p data-qa="client-rating">${String(info.stats.score ?? "")} of ${String(info.stats.feedbackCount ?? 0)} reviews</p></section>`;
}

/**
 * A job page: the details a logged-in freelancer gets (`jobAuthDetails`) or a visitor's (`jobPubDetails`,
 * without the client's stats, which the marketplace withholds from visitors); a closed job says so.
 */
export function jobPage(chrome: Chrome, doc: JobDocument, opts: { authenticated: boolean; closed: boolean }): string {
  const auth = doc.authJobDetailsResponse?.data?.jobAuthDetails;
  const pub = doc.jobDetailsResponse?.data?.jobPubDetails;
  const ciphertext = String(doc.jobTile?.job?.ciphertext);
  let details: Record<string, any> | undefined;
  let authenticated = false;
  if (opts.authenticated && auth) [details, authenticated] = [auth, true];
  else if (pub) {
    const { buyerExtra: _hidden, ...rest } = pub;
    details = opts.authenticated ? pub : { ...rest, buyer: { ...pub.buyer, stats: undefined, company: undefined } };
  }
  const body = h`${opts.closed ? h`<div class="up-alert-danger" role="alert">This job is no longer available.</div>` : ""}
<div class="job-details-content"><h4 data-test="job-title">${doc.title}</h4>
<p>${budgetLine(doc)} · ${doc.connectPrice ?? ""} Connects to apply</p>
<div data-test="Description"><p>${doc.description}</p></div>
${details ? aboutClient(details, authenticated) : ""}
${opts.closed ? "" : h`<a data-test="apply-button" href="${chrome.base}/nx/proposals/job/${ciphertext}/apply/">Apply now</a>`}</div>`;
  return layout(chrome, doc.title, body, details ? { data: { jobDetails: { job: details, isLoggedIn: opts.authenticated } } } : { data: {} });
}

export function privateJobPage(chrome: Chrome): string {
  return layout(
    chrome,
    "This job is private",
    h`<div data-test="job-private" class="up-alert-danger"><h1>This job is private</h1><p>Only freelancers the client invited can view it.</p></div>`,
  );
}

export function notFoundPage(chrome: Chrome): string {
  return layout(chrome, "Not found", h`<div class="up-alert-danger" role="alert"><h1>This job was not found</h1></div>`);
}

export function loginPage(chrome: Chrome, redir: string, csrf: string, message?: string): string {
  const body = h`<h1>Log in to the sandbox marketplace</h1>${message ? h`<div class="up-alert-danger" role="alert">${message}</div>` : ""}
<form method="post" action="${chrome.base}/ab/account-security/login">
<input type="hidden" name="redir" value="${redir}">
<input type="hidden" name="csrf" value="${csrf}">
<label for="login_username">Username or email</label> <input id="login_username" name="username" autocomplete="username"><br>
<label for="login_password">Password (the sandbox takes one of your jobpilot API keys)</label> <input id="login_password" name="password" type="password" autocomplete="current-password"><br>
<button id="login_password_continue" type="submit">Log in</button></form>`;
  return layout({ ...chrome, signedInAs: null }, "Log in", body);
}

export function challengePage(chrome: Chrome, back: string): string {
  const body = h`<div id="challenge-running"><h1>Verify you are human</h1><p>The sandbox shows this page on demand, as the marketplace's bot check would.</p>
<form id="challenge-form" method="get" action="${back}"><button type="submit">I am human</button></form></div>`;
  return layout(chrome, "Just a moment...", body);
}

export interface ApplyView {
  doc: JobDocument;
  connectsRequired: number;
  connectsAvailable: number;
  profiles: { profileId: string; label: string; hourlyRate: number | null }[];
  questions: { position: number; question: string }[];
  error?: string;
  values?: Record<string, string>;
}

const DURATIONS = ["Less than 1 month", "1 to 3 months", "3 to 6 months", "More than 6 months"];

/** The apply form (the marketplace's /nx/proposals/job/~…/apply/): Connects, profile, terms, cover letter, questions, boost, confirmation. */
export function applyPage(chrome: Chrome, view: ApplyView): string {
  const { doc, values = {} } = view;
  const ciphertext = String(doc.jobTile?.job?.ciphertext);
  const hourly = doc.jobTile?.job?.jobType === "HOURLY";
  const short = view.connectsRequired > view.connectsAvailable;
  const defaultRate = view.profiles[0]?.hourlyRate ?? 30;
  const body = h`<h1>Submit a proposal</h1><h2>${doc.title}</h2>
${view.error ? h`<div class="up-alert-danger" role="alert">${view.error}</div>` : ""}
<p data-test="connects-required">Required Connects to submit: ${view.connectsRequired}</p>
<p data-test="connects-available">Available Connects: ${view.connectsAvailable}</p>
${
  short
    ? h`<div class="fe-proposal-more-connects-needed-dialog" role="dialog"><p>More Connects needed: this proposal needs ${view.connectsRequired} Connects and you have ${view.connectsAvailable}. Buy additional Connects to submit.</p></div>`
    : ""
}
<form id="proposal-form" method="post" action="${chrome.base}/nx/proposals/job/${ciphertext}/apply/">
<div class="up-form-group"><label for="profile">Propose with a profile</label>
<select id="profile" name="profileId" data-test="profile-select">${view.profiles.map((p) => h`<option value="${p.profileId}" ${values.profileId === p.profileId ? new Markup("selected") : ""}>${p.label}</option>`)}</select></div>
${
  hourly
    ? h`<div class="up-form-group"><label for="step-rate">Hourly rate</label> <input id="step-rate" data-test="hourly-rate-input" name="hourlyRate" inputmode="decimal" value="${values.hourlyRate ?? defaultRate.toFixed(2)}"></div>`
    : h`<div class="up-form-group"><label for="milestone-amount">Milestone 1 Amount</label> <input id="milestone-amount" data-test="milestone-amount-input" name="fixedBid" inputmode="decimal" value="${values.fixedBid ?? ""}"></div>`
}
<div class="up-form-group"><label for="duration">How long will this project take?</label>
<select id="duration" name="timeline" data-test="duration-select"><option value="">Select a duration</option>${DURATIONS.map((d) => h`<option ${values.timeline === d ? new Markup("selected") : ""}>${d}</option>`)}</select></div>
<div class="up-form-group"><label for="cover-letter" id="cover_letter_label">Cover Letter</label>
<textarea id="cover-letter" name="coverLetter" data-test="cover-letter-textarea" rows="8">${values.coverLetter ?? ""}</textarea></div>
<div class="fe-proposal-job-questions">${view.questions.map(
    (q) => h`<div class="fe-proposal-question up-form-group"><label for="question-${q.position}">${q.question} 0/5000 characters</label>
<textarea id="question-${q.position}" name="answer_${q.position}" rows="3">${values[`answer_${q.position}`] ?? ""}</textarea></div>`,
  )}</div>
<div class="up-form-group"><label for="boost">Bid ${view.connectsRequired + 1} Connects or higher to be ranked in 1st place.</label> <input id="boost" name="boostBids" placeholder="Connects" inputmode="numeric" value="${values.boostBids ?? ""}"></div>
<button type="button" class="up-btn-primary" data-test="submit-proposal" onclick="document.getElementById('confirm-modal').hidden=false">Send for ${view.connectsRequired} Connects</button>
<div class="up-modal" id="confirm-modal" role="dialog" aria-label="Confirm" hidden><p>Are you sure? Connects will be spent when you submit.</p>
<label><input type="checkbox" name="confirmed" value="yes" required> I understand the proposal cannot be edited after it is sent.</label>
<div class="up-modal-footer"><button type="button" onclick="document.getElementById('confirm-modal').hidden=true">Cancel</button>
<button type="submit" class="up-btn-primary" data-test="confirm-submit">Submit proposal</button></div></div>
</form>`;
  return layout(chrome, "Submit a proposal", body);
}

/** The page of a job that no longer takes proposals, or that the freelancer may not apply to. */
export function applyRefusedPage(chrome: Chrome, title: string, message: string): string {
  return layout(chrome, title, h`<h1>${title}</h1><div class="up-alert-danger fe-proposal-job-details-error" role="alert">${message}</div>`);
}

export interface ProposalRow {
  applicationId: string;
  jobCiphertext: string;
  status: string;
  message: string;
  submittedAtTs: number;
  viewed: boolean;
  replied: boolean;
}

/** "My proposals": every proposal this account sent through the sandbox, newest first. */
export function proposalsPage(chrome: Chrome, rows: ProposalRow[], notice?: string): string {
  const body = h`<h1>My proposals</h1>${notice ? h`<div class="up-alert-success" role="status" data-test="proposal-submitted">${notice}</div>` : ""}
<ul data-test="proposal-list">${rows.map(
    (
      r,
    ) => h`<li data-test="proposal-item" data-job-ciphertext="${r.jobCiphertext}" data-proposal-id="${r.applicationId}" data-status="${r.status}" data-viewed="${String(r.viewed)}" data-replied="${String(r.replied)}">
<a href="${chrome.base}/jobs/${r.jobCiphertext}">${r.jobCiphertext}</a> · <span data-test="proposal-status">${r.status}</span> · <time datetime="${new Date(r.submittedAtTs).toISOString()}">${new Date(r.submittedAtTs).toISOString()}</time> · ${r.message}</li>`,
  )}</ul>`;
  return layout(chrome, "My proposals", body);
}

/** The freelancers and profiles this account may propose with, one item per profile (the companion's freelancers.list). */
export function profilesPage(
  chrome: Chrome,
  freelancers: {
    freelancer: { id: string; name: string; baseHourlyRate: number | null };
    profiles: { profileId: string; type: string; name: string; hourlyRate: number | null; currency: string }[];
  }[],
): string {
  const rate = (v: number | null) => (v === null ? "" : String(v));
  const body = h`<h1>Your profiles</h1><ul data-test="freelancer-profiles">${freelancers.flatMap(({ freelancer: f, profiles }) =>
    profiles.map(
      (p) =>
        h`<li data-test="freelancer-profile" data-freelancer-id="${f.id}" data-freelancer-name="${f.name}" data-freelancer-rate="${rate(f.baseHourlyRate)}" data-profile-id="${p.profileId}" data-profile-type="${p.type}" data-profile-name="${p.name}" data-profile-rate="${rate(p.hourlyRate)}" data-currency="${p.currency}">${f.name} — ${p.name}${p.hourlyRate === null ? "" : ` · $${p.hourlyRate}/hr`}</li>`,
    ),
  )}</ul>`;
  return layout(chrome, "Your profiles", body);
}
