import type { Channel } from "../channels/http-model";
import { SIGNAL_IDS, type SignalId } from "../jobs/signals";
import { PREVIEW_DAYS, type Feed, type FeedPreview } from "../feeds/model";
import { html, type Html } from "./html";
import { feedListQuery, type FeedListQuery, type InboxCard } from "./inbox-data";
import { cardsAndPanel, shortcutsHelp, unreadCountView, whatToExpect } from "./inbox-views";
import type { DashboardSession } from "./model";
import { csrfField, layout, when } from "./views";
import { KINDS_IN_TEXT } from "./channels-views";
import { describedBy, errorSummary, fieldError, type FormErrors, type FormField, formErrors } from "./form-errors";

/**
 * The feed pages of the dashboard. Forms keep the user's raw text (FeedFormValues)
 * so a refused form comes back exactly as typed; feeds.ts turns it into the
 * JSON body the feeds service expects.
 */

/** A feed form as posted: every field a string; a checkbox is present ("on") only when ticked. */
export type FeedFormValues = Record<string, string | undefined>;

export const PLATFORMS = [
  { value: "marketplace", label: "Marketplace" },
  { value: "professional_network", label: "Professional network" },
  { value: "web", label: "Web (job boards)" },
] as const;
export const JOB_TYPES = [
  { value: "HOURLY", label: "Hourly" },
  { value: "FIXED", label: "Fixed price" },
] as const;

const base = (feedId: string) => `/dashboard/feeds/${encodeURIComponent(feedId)}`;

/** The form values that show a saved feed (the edit page's starting point). */
export function feedToForm(feed: Feed): FeedFormValues {
  const num = (v: number | null | undefined) => (v === null || v === undefined ? "" : String(v));
  const list = (v: string[] | undefined) => (v ?? []).join("\n");
  const values: FeedFormValues = {
    title: feed.title ?? "",
    profilePrompt: feed.profilePrompt ?? "",
    minScore: num(feed.minScore),
    includes: list(feed.includes),
    excludes: list(feed.excludes),
    minHourlyRate: num(feed.minHourlyRate),
    minFixedPrice: num(feed.minFixedPrice),
    clientMinSpent: num(feed.clientMinSpent),
    clientMinRating: num(feed.clientMinRating),
    clientMinReviews: num(feed.clientMinReviews),
    countryFilterMode: feed.countryFilterMode ?? "exclude",
    excludedCountries: list(feed.excludedCountries),
    includedCountries: list(feed.includedCountries),
    emailFound: feed.emailFound ?? "all",
    usOnlyMode: feed.usOnlyMode ?? "all",
    proposalGenerationPrompt: feed.proposalGenerationPrompt ?? "",
    webhookUrl: feed.webhookUrl ?? "",
  };
  if (feed.paymentVerifiedOnly) values.paymentVerifiedOnly = "on";
  if (feed.notificationsMuted) values.notificationsMuted = "on";
  if (feed.alertFavoured !== false) values.alertFavoured = "on";
  for (const id of SIGNAL_IDS) values[`signal_${id}`] = feed.signalRules?.[id] ?? "warn";
  for (const p of feed.platforms ?? []) values[`platform_${p}`] = "on";
  for (const j of feed.jobTypes ?? []) values[`jobType_${j}`] = "on";
  for (const id of feed.channelIds ?? []) values[`channel_${id}`] = "on";
  return values;
}

/**
 * Every field of the feed form: its label, and the API's name for it (the feed's JSON field) when that
 * differs from the control's name. The form renders its labels from here and the refusals are reworded
 * with them (form-errors.ts), so a message reads "Minimum score must be…" next to that field.
 */
const FEED_LABELS = {
  title: "Title",
  profilePrompt: "Profile prompt",
  minScore: "Minimum score",
  includes: "Include keywords",
  excludes: "Exclude keywords",
  minHourlyRate: "Minimum hourly rate",
  minFixedPrice: "Minimum fixed price",
  jobTypes: "Job types",
  clientMinSpent: "Client minimum spent",
  paymentVerifiedOnly: "Payment-verified clients only",
  clientMinRating: "Client minimum rating",
  clientMinReviews: "Client minimum reviews",
  countryFilterMode: "Country filter",
  excludedCountries: "Excluded countries",
  includedCountries: "Included countries",
  usOnlyMode: "US-only jobs",
  platforms: "Platforms",
  emailFound: "Contact email",
  proposalGenerationPrompt: "Proposal instructions",
  webhookUrl: "Webhook URL",
  channelIds: "Channels",
  notificationsMuted: "Mute notifications",
  signalRules: "Signals",
  alertFavoured: "Alert favoured clients whatever the score",
} as const;
type FeedField = keyof typeof FEED_LABELS;

/** The feed form's fields for form-errors.ts: each control's id is the feed's JSON field name. */
export const FEED_FORM_FIELDS: FormField[] = Object.entries(FEED_LABELS).map(([path, label]) => ({ path, id: path, label }));

/** The API's refusal of a feed form, sorted onto its fields in the labels' words. */
export function feedFormErrors(details: string[]): FormErrors {
  return formErrors(details, FEED_FORM_FIELDS);
}

function help(id: string, text: string): Html {
  return html`<p id="${id}Help" class="muted">${text}</p>`;
}

/** What every control of the form shares: the label, its message when refused, the help under it. */
interface Shown {
  v: FeedFormValues;
  errors?: FormErrors;
}

function textInput(f: Shown, name: FeedField, explain: string, opts: { numeric?: boolean; required?: boolean; type?: string } = {}): Html {
  return html`<label for="${name}">${FEED_LABELS[name]}</label>
${fieldError(f.errors, name)}
<input type="${opts.type ?? "text"}" id="${name}" name="${name}" value="${f.v[name] ?? ""}"${opts.numeric ? html` inputmode="decimal"` : ""}${opts.required ? html` required` : ""}${describedBy(f.errors, name)}>
${help(name, explain)}`;
}

function textArea(f: Shown, name: FeedField, explain: string): Html {
  return html`<label for="${name}">${FEED_LABELS[name]}</label>
${fieldError(f.errors, name)}
<textarea id="${name}" name="${name}" rows="4" cols="60"${describedBy(f.errors, name)}>${f.v[name] ?? ""}</textarea>
${help(name, explain)}`;
}

function select(f: Shown, name: FeedField, explain: string, options: { value: string; label: string }[]): Html {
  const current = f.v[name] ?? options[0]!.value;
  return html`<label for="${name}">${FEED_LABELS[name]}</label>
${fieldError(f.errors, name)}
<select id="${name}" name="${name}"${describedBy(f.errors, name)}>${options.map(
    (o) => html`<option value="${o.value}"${o.value === current ? html` selected` : ""}>${o.label}</option>`,
  )}</select>
${help(name, explain)}`;
}

function checkbox(v: FeedFormValues, name: string, label: string): Html {
  return html`<label for="${name}"><input type="checkbox" id="${name}" name="${name}" value="on"${v[name] ? html` checked` : ""}> ${label}</label>`;
}

/** A yes/no field of the feed itself (not one box of a group): its label comes from FEED_LABELS. */
function flag(f: Shown, name: FeedField): Html {
  return html`${fieldError(f.errors, name)}${checkbox(f.v, name, FEED_LABELS[name])}`;
}

/** A group of boxes (platforms, job types, channels): its heading carries the field's id, for the summary's link. */
function groupHeading(f: Shown, name: FeedField): Html {
  return html`<p id="${name}">${FEED_LABELS[name]}</p>
${fieldError(f.errors, name)}`;
}

/** The ticked channel boxes of a posted feed form, in the order shown (the feed's channelIds order). */
export function tickedChannelIds(v: FeedFormValues): string[] {
  return Object.keys(v)
    .filter((name) => name.startsWith("channel_") && v[name] !== undefined)
    .map((name) => name.slice("channel_".length));
}

function channelBoxes(f: Shown, channels: Channel[]): Html {
  const { v } = f;
  // The marker tells the handler the boxes were on the form, so none ticked means "no channels".
  return html`${groupHeading(f, "channelIds")}
<input type="hidden" name="channelsShown" value="1">
${
  channels.length === 0
    ? html`<p class="muted">No channels yet: <a href="/dashboard/channels">add a ${KINDS_IN_TEXT} channel</a>, then tick it here.</p>`
    : html`${channels.map((c) => checkbox(v, `channel_${c.id}`, `${c.name} (${c.type})`))}
<p class="muted">Each ticked channel gets this feed's alerts too, as it is set to send them (at once, or in digests); <a href="/dashboard/channels">manage channels</a>.</p>`
}`;
}

/** What each signal is, under its select (docs/jobs-and-clients.md, "Signals", has the rules and thresholds). */
const SIGNAL_LABELS: Record<SignalId, { label: string; help: string }> = {
  repost: { label: "Reposted jobs", help: "The same client posted a near-identical job in the last 30 days." },
  ghost: { label: "Ghost clients", help: "The client posted many jobs and hired for none." },
  scam: {
    label: "Scam risk",
    help: "Asks to talk off the platform, for money, personal data or unpaid tests; pays in crypto or by cheque; a new unverified client with an outsized, urgent budget.",
  },
  "low-budget": { label: "Low budget", help: "A fixed price under a third of what similar jobs pay." },
};

/** One Warn/Drop select per signal and the favoured-clients box; the marker says they were on the form. */
function signalFields(f: Shown): Html {
  const { v } = f;
  return html`${groupHeading(f, "signalRules")}
<input type="hidden" name="signalsShown" value="1">
${SIGNAL_IDS.map((id) => {
  const name = `signal_${id}`;
  const current = v[name] ?? "warn";
  return html`<label for="${name}">${SIGNAL_LABELS[id].label}</label>
<select id="${name}" name="${name}" aria-describedby="${name}Help">${[
    { value: "warn", label: "Warn (show the flag)" },
    { value: "drop", label: "Drop (keep the job out)" },
  ].map((o) => html`<option value="${o.value}"${o.value === current ? html` selected` : ""}>${o.label}</option>`)}</select>
${help(name, SIGNAL_LABELS[id].help)}`;
})}
<p class="muted">A dropped job is listed in the feed's filtered-out view with the reason. A blocked client's jobs never enter.</p>
${flag(f, "alertFavoured")}
<p class="muted">A favoured client's job that passes the filters enters the feed and alerts even under the minimum score.</p>`;
}

function feedFormFields(f: Shown, channels: Channel[]): Html {
  const { v } = f;
  return html`<fieldset>
<legend>Basics</legend>
${textInput(f, "title", "The feed's name, shown in lists and notifications.", { required: true })}
${textArea(f, "profilePrompt", "Describe your ideal job in plain words; each matching job is scored 0–10 against it. Leave empty for no AI scoring: every match then scores 5.")}
${textInput(f, "minScore", "0 to 10. Jobs scoring at or above it enter the feed and notify you. Must be 5 or lower when the profile prompt is empty.", { numeric: true, required: true })}
</fieldset>
<fieldset>
<legend>Keywords</legend>
${textArea(f, "includes", "Comma- or newline-separated. A job must contain at least one (title, description or skills); whole words or phrases, any case; a trailing * matches word starts (develop*). Empty: no requirement.")}
${textArea(f, "excludes", "Comma- or newline-separated, same syntax. A job containing any of them is dropped.")}
</fieldset>
<fieldset>
<legend>Budget</legend>
${textInput(f, "minHourlyRate", "Hourly jobs paying less are dropped. Empty: no minimum.", { numeric: true })}
${textInput(f, "minFixedPrice", "Fixed-price jobs with a smaller budget are dropped. Empty: no minimum.", { numeric: true })}
${groupHeading(f, "jobTypes")}
${JOB_TYPES.map((j) => checkbox(v, `jobType_${j.value}`, j.label))}
<p class="muted">Marketplace only. Tick none to keep both types.</p>
</fieldset>
<fieldset>
<legend>Client</legend>
${textInput(f, "clientMinSpent", "Clients who have spent less in total are dropped. Empty: no minimum.", { numeric: true })}
${flag(f, "paymentVerifiedOnly")}
<p class="muted">Marketplace only. Drops clients reported as payment-unverified; jobs whose status cannot be read still enter.</p>
${textInput(f, "clientMinRating", "Marketplace only. 0 to 5. A client without reviews counts as unrated and is dropped by any floor above 0. Empty: no floor.", { numeric: true })}
${textInput(f, "clientMinReviews", "Marketplace only. A whole number of reviews the client must have. Empty: no minimum.", { numeric: true })}
${select(
  f,
  "countryFilterMode",
  "Exclude: the excluded countries below are dropped. Include: only the included countries below are kept (and jobs whose client country is unknown are dropped).",
  [
    { value: "exclude", label: "Exclude the listed countries" },
    { value: "include", label: "Include only the listed countries" },
  ],
)}
${textArea(f, "excludedCountries", "Comma- or newline-separated English names, ISO-2 or ISO-3 codes. Used in exclude mode.")}
${textArea(f, "includedCountries", "Same format. Used in include mode; empty means no filter.")}
${select(f, "usOnlyMode", "Marketplace only. Filters on where the job requires talent to be, not the client's country.", [
  { value: "all", label: "All jobs" },
  { value: "include", label: "Only jobs restricted to US-based talent" },
  { value: "exclude", label: "Drop jobs restricted to US-based talent" },
])}
</fieldset>
<fieldset>
<legend>Other</legend>
${groupHeading(f, "platforms")}
${PLATFORMS.map((p) => checkbox(v, `platform_${p.value}`, p.label))}
<p class="muted">Where jobs come from. Tick none to match every platform.</p>
${select(f, "emailFound", "With “only jobs with an email”, jobs enter only when a contact email was found in them.", [
  { value: "all", label: "All jobs" },
  { value: "email_found", label: "Only jobs with an email" },
])}
${textArea(f, "proposalGenerationPrompt", "Used when generating proposals for jobs in this feed. Empty: the generic prompt.")}
</fieldset>
<fieldset>
<legend>Signals</legend>
${signalFields(f)}
</fieldset>
<fieldset>
<legend>Notifications</legend>
${textInput(f, "webhookUrl", "An http(s) address that receives a POST for each job entering the feed, signed with a secret shown once. Empty: no webhook. An address on a private network works only when the server is set up to allow it.", { type: "url" })}
${channelBoxes(f, channels)}
${flag(f, "notificationsMuted")}
<p class="muted">Jobs are still matched and scored, but no notifications are sent.</p>
</fieldset>`;
}

/** Where the feed form posts for a preview (the Preview button, and the panel's live updates). */
export const PREVIEW_PATH = "/dashboard/feeds/preview";

export function feedFormPage(
  session: DashboardSession,
  opts: { values: FeedFormValues; channels: Channel[]; errors?: FormErrors; feed?: Feed; preview?: { result: FeedPreview; body: Record<string, unknown> } },
): Html {
  const editing = opts.feed;
  const action = editing ? base(editing.id) : "/dashboard/feeds";
  const days = previewDaysOf(opts.values);
  return layout(
    editing ? `Edit ${editing.title}` : "New feed",
    html`${errorSummary(opts.errors, "The feed")}
<form method="post" action="${action}" id="feed-form">
${csrfField(session)}
${editing && html`<input type="hidden" name="previewFeedId" value="${editing.id}">`}
${feedFormFields({ v: opts.values, errors: opts.errors }, opts.channels)}
<fieldset class="preview-controls">
<legend>Preview</legend>
<label for="previewDays">What would this feed have caught in the last</label>
<select id="previewDays" name="previewDays">${PREVIEW_DAYS.map((d) => html`<option value="${d}"${d === days ? html` selected` : ""}>${d === 1 ? "1 day" : `${d} days`}</option>`)}</select>
<button type="submit" formaction="${PREVIEW_PATH}" class="secondary">Preview</button>
<p class="muted">A preview runs the filters and the local scorer over the jobs already archived. Nothing enters the feed and nothing is sent. With script on, it updates as you type.</p>
</fieldset>
<button type="submit">${editing ? "Save changes" : "Create feed"}</button>
</form>
<section id="preview" aria-labelledby="preview-heading" aria-live="polite" hx-post="${PREVIEW_PATH}" hx-include="#feed-form" hx-trigger="input from:#feed-form delay:500ms, change from:#feed-form delay:500ms" hx-sync="this:replace" hx-swap="innerHTML">
${previewPanel(opts.preview?.result ?? null, days, { body: opts.preview?.body })}
</section>
<p><a href="${editing ? base(editing.id) : "/dashboard/feeds"}">Cancel</a></p>`,
    session,
    "feeds",
  );
}

/** The preview window a form asks for: 1, 7 or 30 days (7 unless it says otherwise). */
export function previewDaysOf(v: FeedFormValues): (typeof PREVIEW_DAYS)[number] {
  const n = Number(v.previewDays);
  return (PREVIEW_DAYS as readonly number[]).includes(n) ? (n as (typeof PREVIEW_DAYS)[number]) : 7;
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** A droppedBy key in the form's words, for "12 dropped for having one of the exclude keywords (wordpress)". */
function droppedByWords(filter: string, feedBody: Record<string, unknown>): string {
  const label = (FEED_LABELS as Record<string, string>)[filter];
  const list = feedBody[filter];
  if (filter === "blocked-client") return "your blocked clients";
  if (filter.startsWith("signal:")) return `the signal rule ${filter.slice("signal:".length)}`;
  if (filter === "minScore") return `the minimum score (${feedBody.minScore})`;
  if (filter === "includes" && Array.isArray(list)) return `having none of the include keywords (${list.join(", ")})`;
  if (filter === "excludes" && Array.isArray(list)) return `having one of the exclude keywords (${list.join(", ")})`;
  if (label && Array.isArray(list) && list.length > 0) return `${label.toLowerCase()}: ${list.join(", ")}`;
  if (Array.isArray(list) && list.length > 0) return `${filter}: ${list.join(", ")}`;
  if (typeof list === "number" || typeof list === "string") return `${filter} (${list})`;
  return label ? `${filter} (${label.toLowerCase()})` : filter;
}

/**
 * The preview's panel: counts, the score histogram (one meter per bucket), what dropped how many and the first
 * matches with their scores. The same markup for the page (no script) and for the live updates.
 */
export function previewPanel(preview: FeedPreview | null, days: number, opts: { errors?: FormErrors; body?: Record<string, unknown> } = {}): Html {
  const heading = html`<h2 id="preview-heading">Preview: last ${days === 1 ? "day" : `${days} days`}</h2>`;
  if (opts.errors) return html`${heading}${errorSummary(opts.errors, "The preview")}`;
  if (!preview)
    return html`${heading}<p class="muted">Press Preview (or, with script on, change a filter) to see what this feed would have caught of the jobs already archived.</p>`;
  const body = opts.body ?? {};
  const max = Math.max(1, ...preview.scoreHistogram.map((b) => b.count));
  const dropped = Object.entries(preview.droppedBy).sort((a, b) => b[1] - a[1]);
  return html`${heading}
<p class="preview-counts"><strong>${count(preview.matched, "job")} matched</strong> of ${count(preview.total, "job")} first seen since <time datetime="${preview.from}">${preview.from.slice(0, 16).replace("T", " ")} UTC</time>: ${count(preview.passed, "job")} through the filters, ${preview.scored.toLocaleString("en")} scored${
    preview.unscored > 0 ? html` (the newest ${preview.scoredMax}; ${count(preview.unscored, "older job")} not scored)` : ""
  }.</p>
<p class="muted">A preview only: nothing enters the feed and nothing is sent.</p>
${
  dropped.length > 0 &&
  html`<h3>Dropped</h3><ul class="preview-dropped">${dropped.map(([filter, n]) => html`<li>${n.toLocaleString("en")} dropped ${/^having /.test(droppedByWords(filter, body)) ? "for" : "by"} ${droppedByWords(filter, body)}</li>`)}</ul>`
}
${
  preview.scored > 0 &&
  html`<h3>Scores</h3>
<table class="histogram"><caption class="muted">${count(preview.scored, "scored job")} by score</caption>
<thead><tr><th scope="col">Score</th><th scope="col">Jobs</th><th scope="col"><span class="visually-hidden">Share</span></th></tr></thead>
<tbody>${preview.scoreHistogram.map(
    (b) =>
      html`<tr${b.to <= Number(body.minScore ?? 0) ? html` class="below"` : ""}><th scope="row">${b.from}–${b.to}</th><td>${b.count}</td><td><meter min="0" max="${max}" value="${b.count}" aria-label="${b.count} jobs scored ${b.from} to ${b.to}">${b.count}</meter></td></tr>`,
  )}</tbody></table>`
}
<h3>First matches</h3>
${
  preview.jobs.length === 0
    ? html`<p class="empty">None: nothing in the last ${days === 1 ? "day" : `${days} days`} passes every filter at this minimum score. Loosen a filter above, or look further back.</p>`
    : html`<ol class="preview-jobs">${preview.jobs.map(
        (j) =>
          html`<li><span class="score">${j.matchingScore}</span> <a href="/dashboard/jobs/${encodeURIComponent(j.job.ciphertext)}">${j.job.title}</a> <span class="muted">· ${j.job.platform.replaceAll("_", " ")} · <time datetime="${j.firstSeenAt}">${j.firstSeenAt.slice(0, 16).replace("T", " ")} UTC</time>${j.favoured ? " · favoured client" : ""}${j.flags.map((f) => html` · <span class="flag">${f.say}</span>`)}</span></li>`,
      )}</ol>`
}`;
}

function yesNo(b: boolean | undefined): string {
  return b ? "yes" : "no";
}

export function feedListPage(session: DashboardSession, feeds: Feed[]): Html {
  const body =
    feeds.length === 0
      ? html`<p>No feeds yet — create one and matching jobs appear here as they arrive.</p>`
      : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Title</th><th scope="col">Min score</th><th scope="col">Keywords</th><th scope="col">Platforms</th><th scope="col">Webhook</th><th scope="col">Muted</th></tr></thead>
<tbody>${feeds.map(
          (f) => html`<tr>
<td><a href="${base(f.id)}">${f.title}</a></td>
<td>${f.minScore}</td>
<td>${(f.includes ?? []).length ? (f.includes ?? []).join(", ") : html`<span class="muted">any</span>`}${(f.excludes ?? []).length ? html`<br><span class="muted">not: ${(f.excludes ?? []).join(", ")}</span>` : ""}</td>
<td>${f.platforms?.length ? f.platforms.join(", ") : "all"}</td>
<td>${f.webhookUrl ? (f.webhookDisabledAtTs ? "set (disabled)" : "set") : "none"}</td>
<td>${yesNo(f.notificationsMuted)}</td>
</tr>`,
        )}</tbody>
</table></div>`;
  return layout(
    "Feeds",
    html`<p><a href="/dashboard/feeds/new">New feed</a> · <a href="/dashboard/clients">Blocked and favoured clients</a></p>${body}`,
    session,
    "feeds",
  );
}

export function secretPage(session: DashboardSession, feed: Feed, heading: string): Html {
  return layout(
    heading,
    html`<div class="notice" role="status">
<p>The webhook signing secret of <strong>${feed.title}</strong> is below. Copy it now: it will not be shown again.</p>
<code class="secret" id="new-secret">${feed.webhookSecret ?? ""}</code> <button type="button" data-copy="new-secret" hidden>Copy</button>
</div>
<p><a href="${base(feed.id)}">Go to the feed</a></p>`,
    session,
    "feeds",
  );
}

/** The feed's settings in one line: what it matches and where it notifies (its channels linked). */
function summaryLine(feed: Feed, channels: Channel[]): Html {
  const parts: (Html | string)[] = [`score ≥ ${feed.minScore}`];
  parts.push(feed.includes?.length ? `keywords: ${feed.includes.join(", ")}` : "any keywords");
  if (feed.excludes?.length) parts.push(`not: ${feed.excludes.join(", ")}`);
  parts.push(feed.platforms?.length ? feed.platforms.join(", ").replaceAll("_", " ") : "all platforms");
  parts.push(feed.webhookUrl ? "webhook on" : "no webhook");
  for (const id of feed.channelIds ?? []) {
    const c = channels.find((x) => x.id === id);
    parts.push(c ? html`<a href="/dashboard/channels/${encodeURIComponent(id)}">${c.name}</a>` : id);
  }
  if (feed.notificationsMuted) parts.push("muted");
  return html`${parts.map((p, i) => html`${i > 0 && " · "}${p}`)}`;
}

function settingsSummary(feed: Feed, channels: Channel[]): Html {
  const list = (v: string[] | undefined, none: string) => (v?.length ? v.join(", ") : none);
  const num = (v: number | null | undefined) => (v === null || v === undefined ? "—" : String(v));
  const countries =
    feed.countryFilterMode === "include" ? `only ${list(feed.includedCountries, "any (empty list)")}` : `excluding ${list(feed.excludedCountries, "none")}`;
  return html`<dl class="settings">
<dt>Minimum score</dt><dd>${feed.minScore}</dd>
<dt>Profile prompt</dt><dd>${feed.profilePrompt ? feed.profilePrompt : html`<span class="muted">empty (every match scores 5)</span>`}</dd>
<dt>Include keywords</dt><dd>${list(feed.includes, "any")}</dd>
<dt>Exclude keywords</dt><dd>${list(feed.excludes, "none")}</dd>
<dt>Minimum hourly / fixed</dt><dd>${num(feed.minHourlyRate)} / ${num(feed.minFixedPrice)}</dd>
<dt>Job types</dt><dd>${list(feed.jobTypes, "all")}</dd>
<dt>Client</dt><dd>min spent ${num(feed.clientMinSpent)}, min rating ${num(feed.clientMinRating)}, min reviews ${num(feed.clientMinReviews)}, payment verified only: ${yesNo(feed.paymentVerifiedOnly)}</dd>
<dt>Client countries</dt><dd>${countries}</dd>
<dt>US-only jobs</dt><dd>${feed.usOnlyMode ?? "all"}</dd>
<dt>Platforms</dt><dd>${list(feed.platforms, "all")}</dd>
<dt>Contact email</dt><dd>${feed.emailFound === "email_found" ? "only jobs with an email" : "all jobs"}</dd>
<dt>Webhook</dt><dd>${
    feed.webhookUrl
      ? html`${feed.webhookUrl} <span class="muted">(secret ${feed.webhookSecret ?? "—"})</span>${feed.webhookDisabledAtTs && html`<br><span class="error">Disabled ${when(feed.webhookDisabledAtTs)}: ${feed.webhookDisabledReason ?? ""}. Save the URL again to re-enable it.</span>`}`
      : "none"
  }</dd>
<dt>Channels</dt><dd>${
    feed.channelIds?.length
      ? feed.channelIds.map((id, i) => {
          const c = channels.find((x) => x.id === id);
          return html`${i > 0 && ", "}${c ? html`<a href="/dashboard/channels/${encodeURIComponent(id)}">${c.name}</a>` : id}`;
        })
      : "none"
  }</dd>
<dt>Notifications</dt><dd>${feed.notificationsMuted ? "muted" : "on"}</dd>
</dl>`;
}

export interface FeedPageData {
  list: FeedListQuery;
  cards: InboxCard[];
  total: number;
  limit: number;
  /** The account's unread matches across its feeds (the count the triage buttons keep up to date). */
  unread: number;
  /** How many jobs the feed kept out (blocked clients, dropped signals): the "Filtered out (n)" link. */
  filtered?: number;
  /** The sandbox's jobs a minute when serve polls it, else null: an empty feed says what to expect. */
  sandboxJobsPerMinute?: number | null;
}

const SHOW_LABELS = [
  ["unread", "Unread"],
  ["starred", "Starred"],
  ["all", "All"],
  ["dismissed", "Dismissed"],
] as const;

export function feedDetailPage(session: DashboardSession, feed: Feed, data: FeedPageData, channels: Channel[] = []): Html {
  const self = base(feed.id);
  const { list } = data;
  const link = (q: FeedListQuery) => {
    const s = feedListQuery(q);
    return s ? `${self}?${s}` : self;
  };
  const from = data.cards.length === 0 ? 0 : list.offset + 1;
  const to = list.offset + data.cards.length;
  const pager = html`<nav aria-label="Pages" class="pager">${list.offset > 0 && html`<a href="${link({ ...list, offset: Math.max(0, list.offset - data.limit) })}" rel="prev">Newer</a>`}${
    to < data.total && html`<a href="${link({ ...list, offset: to })}" rel="next">Older</a>`
  }</nav>`;
  const empty = html`<p class="empty">${
    list.show === "all" ? "No matches yet — jobs appear here as they arrive." : `No ${list.show === "unread" ? "unread" : list.show} matches.`
  }</p>${data.total === 0 && list.show !== "dismissed" && whatToExpect(data.sandboxJobsPerMinute, `${self}/edit#preview`)}`;
  return layout(
    feed.title ?? "Feed",
    html`<p class="summary">${summaryLine(feed, channels)} · <a href="${self}/edit">Edit</a></p>
<p><a href="/dashboard?feed=${encodeURIComponent(feed.id)}&amp;show=all">Triage in the inbox</a> · <a href="${self}/filtered">Filtered out (${data.filtered ?? 0})</a> · <a href="${self}/deliveries">Deliveries</a> · <a href="/dashboard/experiments/new?feed=${encodeURIComponent(feed.id)}">Test a second letter style</a> · <a href="/dashboard/feeds">All feeds</a></p>
<h2>Matched jobs</h2>
<nav aria-label="Show" class="show-links">${SHOW_LABELS.map(
      ([show, label], i) => html`${i > 0 && " · "}<a href="${link({ show, offset: 0 })}"${show === list.show ? html` aria-current="page"` : ""}>${label}</a>`,
    )}</nav>
<div class="inbox-bar"><p class="muted">${data.total === 0 ? "No matches here." : `${from}–${to} of ${data.total}, newest first.`} <a href="/dashboard">Inbox</a>: ${unreadCountView(data.unread)}</p></div>
${cardsAndPanel(
  session,
  data.cards,
  { back: feedListQuery(list), feedPage: true },
  html`${data.cards.length === 0 && empty}
${pager}`,
)}
${shortcutsHelp()}
<h2>Settings</h2>
<details><summary>All settings</summary>
${settingsSummary(feed, channels)}
</details>
<form method="post" action="${self}/mute">${csrfField(session)}<button type="submit">${feed.notificationsMuted ? "Unmute notifications" : "Mute notifications"}</button></form>
${
  feed.webhookSecret &&
  html`<form method="post" action="${self}/rotate-secret">${csrfField(session)}<button type="submit">Rotate webhook secret</button></form>
<p class="muted">Rotating shows a new secret once; the old one keeps signing alongside it for a while so receivers can switch.</p>`
}
<p><a href="${self}/delete">Delete this feed</a></p>`,
    session,
    "feeds",
    { documentTitle: data.unread > 0 ? `(${data.unread}) ${feed.title ?? "Feed"}` : undefined, wide: true },
  );
}

export function deleteConfirmPage(session: DashboardSession, feed: Feed): Html {
  return layout(
    `Delete ${feed.title}?`,
    html`<p>This deletes the feed <strong>${feed.title}</strong> AND all of its matched jobs. It cannot be undone.</p>
<form method="post" action="${base(feed.id)}/delete">${csrfField(session)}<button type="submit" class="danger">Delete feed and its matched jobs</button></form>
<p><a href="${base(feed.id)}">Cancel</a></p>`,
    session,
    "feeds",
  );
}
