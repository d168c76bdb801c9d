import type { ApplyMode, OverBudgetAction } from "../../db/enums";
import { LIMITS, type Limits } from "../automation/limits";
import type { AutomationView, FeedAutomation } from "../automation/service";
import { describedBy, errorSummary, type FormErrors, type FormField, fieldError } from "./form-errors";
import { html, type Html } from "./html";
import { DASHBOARD_PATH, type DashboardSession } from "./model";
import { csrfField, when } from "./views";

/**
 * The governor's part of the Auto-apply page: today's usage in words, the limits form (the account's, or one
 * freelancer's overrides), the Connects balance set by hand, and each feed's apply mode. Every field is named by its
 * label (LIMITS' words), never by the API's field names.
 */

export const AUTO_APPLY_PATH = `${DASHBOARD_PATH}/auto-apply`;
export const AUDIT_PATH = `${DASHBOARD_PATH}/audit`;

export type FormValues = Record<string, string | undefined>;

export interface FreelancerChoice {
  id: string;
  name: string;
}

/** Counts first, then Connects budgets and alerts; the similarity threshold last (working hours have their own fieldset). */
export const NUMBER_LIMITS = [
  "proposalsPerDay",
  "proposalsPerHour",
  "minGapMinutes",
  "companionReadsPerHour",
  "connectsPerDay",
  "connectsPerWeek",
  "connectsPerMonth",
  "lowBalanceBelow",
  "lowBudgetBelow",
  "similarityThreshold",
] as const satisfies readonly (keyof Limits)[];
export type NumberLimit = (typeof NUMBER_LIMITS)[number];

/** The Connects budgets: an empty field means none (no cap); every other empty field falls back to what it inherits. */
export const NULLABLE_LIMITS = new Set<NumberLimit>(["connectsPerDay", "connectsPerWeek", "connectsPerMonth"]);

/** Monday first, as the week the budgets count in. */
const DAYS = [
  [1, "Mon"],
  [2, "Tue"],
  [3, "Wed"],
  [4, "Thu"],
  [5, "Fri"],
  [6, "Sat"],
  [0, "Sun"],
] as const;

export const LIMIT_FIELDS: FormField[] = [
  ...NUMBER_LIMITS.map((k) => ({ path: k, id: k, label: LIMITS[k].label })),
  { path: "workingHours.timeZone", id: "whTimeZone", label: "Time zone" },
  { path: "workingHours.days", id: "whDays", label: "Days" },
  { path: "workingHours.start", id: "whStart", label: "From" },
  { path: "workingHours.end", id: "whEnd", label: "Until" },
  { path: "workingHours", id: "whAny", label: "Working hours" },
  { path: "freelancerId", id: "freelancer", label: "Freelancer" },
];

export const CONNECTS_FIELDS: FormField[] = [
  { path: "freelancerId", id: "balanceFreelancer", label: "Freelancer" },
  { path: "available", id: "balanceAvailable", label: "Connects available" },
];

export const feedFieldId = (feedId: string, name: string) => `feed-${feedId}-${name}`;

export function feedFields(feedId: string): FormField[] {
  return [
    { path: "applyMode", id: feedFieldId(feedId, "applyMode"), label: "Mode" },
    { path: "minScore", id: feedFieldId(feedId, "minScore"), label: "Minimum score" },
    { path: "minExpectedUsd", id: feedFieldId(feedId, "minExpectedUsd"), label: "Minimum expected value ($)" },
    { path: "overBudget", id: feedFieldId(feedId, "overBudget"), label: "Over budget" },
  ];
}

export const MODE_LABELS: Record<ApplyMode, string> = {
  alert: "Notify only",
  draft: "Draft and wait for my approval",
  auto: "Send on its own within the limits",
};

export const OVER_BUDGET_LABELS: Record<OverBudgetAction, string> = { skip: "Don't send", review: "Wait for my review" };

/** The form's strings from what is stored: the limits this scope set itself, empty where it inherits. */
export function limitValues(set: Partial<Limits>, inherited: Limits): FormValues {
  const v: FormValues = {};
  for (const k of NUMBER_LIMITS) {
    const x = set[k];
    v[k] = x === undefined || x === null ? "" : String(x);
  }
  // Hours not set here follow the inherited ones: the form shows those, so saving it unchanged keeps them.
  const wh = set.workingHours === undefined ? inherited.workingHours : set.workingHours;
  if (wh) {
    v.whTimeZone = wh.timeZone;
    v.whStart = wh.start;
    v.whEnd = wh.end;
    for (const d of wh.days) v[`whDay${d}`] = "on";
  } else {
    v.whAny = "on";
  }
  return v;
}

const n = (x: number) => x.toLocaleString("en");
const PERIOD_WORDS = {
  connectsPerDay: { period: "today", none: "No daily Connects budget" },
  connectsPerWeek: { period: "this week", none: "No weekly Connects budget" },
  connectsPerMonth: { period: "this month", none: "No monthly Connects budget" },
} as const;

/** Today's usage against the limits in plain words: "7 of 15 proposals today", "58 of 120 Connects this week". */
export function usageLines(v: AutomationView): string[] {
  const { limits: l, usage: u } = v;
  const lines = [
    `${n(u.today.proposals)} of ${n(l.proposalsPerDay)} proposals today`,
    `${n(u.lastHour.proposals)} of ${n(l.proposalsPerHour)} in the last hour`,
  ];
  for (const [key, usage] of [
    ["connectsPerDay", u.today],
    ["connectsPerWeek", u.week],
    ["connectsPerMonth", u.month],
  ] as const) {
    const cap = l[key];
    const words = PERIOD_WORDS[key];
    lines.push(cap === null ? `${words.none} (${n(usage.connects)} spent ${words.period})` : `${n(usage.connects)} of ${n(cap)} Connects ${words.period}`);
  }
  return lines;
}

const SOURCE_WORDS: Record<string, string> = {
  companion: "read by the browser companion",
  sandbox: "read from the sandbox marketplace",
  manual: "set by hand",
};

export function balanceWords(b: AutomationView["balance"]): Html {
  if (b === null) return html`not known yet <span class="muted">(the browser companion reads it when it applies; or set it below)</span>`;
  return html`<strong>${n(b.available)}</strong> Connects, ${SOURCE_WORDS[b.source] ?? `read by ${b.source}`} ${when(b.readAt)}`;
}

export interface LimitsSectionData {
  view: AutomationView;
  freelancers: FreelancerChoice[];
  /** Each freelancer's balance (the account view lists them all). */
  balances: { freelancer: FreelancerChoice; balance: AutomationView["balance"] }[];
  /** The limits a field falls back to when left empty: the defaults (account), or the account's (a freelancer). */
  inherited: Limits;
}

export interface PageState {
  notice?: string;
  limits?: { errors: FormErrors; values: FormValues };
  connects?: { errors: FormErrors; values: FormValues };
  feed?: { feedId: string; errors: FormErrors; values: FormValues; needs?: "workingHours" | "budget" };
}

const freelancerName = (list: FreelancerChoice[], id: string | null) => (id === null ? null : (list.find((f) => f.id === id)?.name ?? id));

function numberInput(k: NumberLimit, v: FormValues, inherited: Limits, errors: FormErrors | undefined, forFreelancer: boolean): Html {
  const fallback = inherited[k];
  const placeholder = fallback === null ? "none" : String(fallback);
  const whose = forFreelancer ? "the account's" : "the default";
  const empty = NULLABLE_LIMITS.has(k) && !forFreelancer ? "Empty: none." : `Empty: ${whose} (${placeholder}).`;
  const step = k === "similarityThreshold" ? "0.01" : "1";
  return html`<div class="limit-field">
<label for="${k}">${LIMITS[k].label}</label>
${fieldError(errors, k)}
<input type="number" id="${k}" name="${k}" inputmode="${k === "similarityThreshold" ? "decimal" : "numeric"}" min="0" step="${step}" value="${v[k] ?? ""}" placeholder="${placeholder}"${describedBy(errors, k)}>
<p id="${k}Help" class="muted hint">${LIMITS[k].what} ${empty}</p>
</div>`;
}

function workingHoursFieldset(v: FormValues, errors: FormErrors | undefined, inherited: Limits): Html {
  const checked = (on: boolean) => (on ? html` checked` : "");
  const fallback = inherited.workingHours;
  return html`<fieldset class="working-hours" aria-describedby="whHelp">
<legend>${LIMITS.workingHours.label}</legend>
<p id="whHelp" class="muted hint">${LIMITS.workingHours.what}${fallback && ` Inherited: ${fallback.start}–${fallback.end} ${fallback.timeZone}.`}</p>
${fieldError(errors, "whAny")}
<label><input type="checkbox" id="whAny" name="whAny" value="on"${checked(v.whAny === "on")}> Any time (no working hours)</label>
<label for="whTimeZone">Time zone</label>
${fieldError(errors, "whTimeZone")}
<input type="text" id="whTimeZone" name="whTimeZone" value="${v.whTimeZone ?? ""}" placeholder="Europe/Berlin" autocomplete="off"${describedBy(errors, "whTimeZone")}>
<p id="whTimeZoneHelp" class="muted hint">An IANA name such as Europe/Berlin or America/New_York; days and weeks count on this clock.</p>
<fieldset class="days" id="whDays"${describedBy(errors, "whDays", false)}>
<legend>Days</legend>
${fieldError(errors, "whDays")}
${DAYS.map(([d, name]) => html`<label><input type="checkbox" name="whDay${d}" value="on"${checked(v[`whDay${d}`] === "on")}> ${name}</label>`)}
</fieldset>
<div class="time-pair">
<div><label for="whStart">From</label>
${fieldError(errors, "whStart")}
<input type="time" id="whStart" name="whStart" value="${v.whStart ?? ""}"${describedBy(errors, "whStart", false)}></div>
<div><label for="whEnd">Until</label>
${fieldError(errors, "whEnd")}
<input type="time" id="whEnd" name="whEnd" value="${v.whEnd ?? ""}"${describedBy(errors, "whEnd")}>
<p id="whEndHelp" class="muted hint">Before “From” for hours that run past midnight.</p></div>
</div>
</fieldset>`;
}

/** "Limits and usage": the picker, the usage words, the balance, the limits form and the balance form. */
export function limitsSection(session: DashboardSession, d: LimitsSectionData, state: PageState): Html {
  const v = d.view;
  const fid = v.freelancerId;
  const name = freelancerName(d.freelancers, fid);
  const forFreelancer = fid !== null;
  const values = state.limits?.values ?? limitValues((forFreelancer ? v.freelancerSet : v.accountSet) ?? {}, d.inherited);
  const errors = state.limits?.errors;
  const connectsErrors = state.connects?.errors;
  const firstBalance = fid === null ? d.balances[0]?.balance : v.balance;
  const connectsValues = state.connects?.values ?? {
    freelancerId: fid ?? d.freelancers[0]?.id ?? "",
    available: firstBalance ? String(firstBalance.available) : "",
  };
  const zone = v.limits.workingHours?.timeZone ?? "UTC";
  const self = fid === null ? AUTO_APPLY_PATH : `${AUTO_APPLY_PATH}?freelancer=${encodeURIComponent(fid)}`;
  return html`<section aria-labelledby="limits-heading" id="limits">
<h2 id="limits-heading">Limits and usage</h2>
${
  d.freelancers.length > 0 &&
  html`<form method="get" action="${AUTO_APPLY_PATH}" class="picker">
<label for="freelancer">Limits of</label>
<select id="freelancer" name="freelancer">
<option value=""${fid === null ? html` selected` : ""}>All freelancers (account)</option>
${d.freelancers.map((f) => html`<option value="${f.id}"${f.id === fid ? html` selected` : ""}>${f.name}</option>`)}
</select>
<button type="submit">Show</button>
</form>`
}
<h3>${name === null ? "Today, all freelancers together" : `Today, ${name}`}</h3>
<ul class="usage">${usageLines(v).map((line) => html`<li>${line}</li>`)}</ul>
<p class="muted">${name === null ? "The proposal caps apply to each freelancer; the account's Connects budgets count all of them. " : ""}Days, weeks (Monday to Sunday) and months on the clock of ${zone}. <a href="${AUDIT_PATH}${fid === null ? "" : `?freelancer=${encodeURIComponent(fid)}`}">What automation did: the audit log</a></p>
${
  forFreelancer
    ? html`<p>Connects balance: ${balanceWords(v.balance)}</p>`
    : d.balances.length > 0 && html`<ul class="balances">${d.balances.map((b) => html`<li>${b.freelancer.name}: ${balanceWords(b.balance)}</li>`)}</ul>`
}
${state.limits && errorSummary(errors, "Your change to the limits")}
<form method="post" action="${AUTO_APPLY_PATH}/limits" class="limits-form" novalidate>${csrfField(session)}
${fid !== null && html`<input type="hidden" name="freelancerId" value="${fid}">`}
<h3>${name === null ? "The account's limits" : `${name}'s own limits`}</h3>
<p class="muted">${
    name === null
      ? "Each freelancer follows these unless they have their own. An empty field keeps the default shown in it."
      : "These override the account's limits for this freelancer only. An empty field follows the account's value shown in it."
  }</p>
<div class="limit-grid">
${NUMBER_LIMITS.map((k) => numberInput(k, values, d.inherited, errors, forFreelancer))}
</div>
${workingHoursFieldset(values, errors, d.inherited)}
<button type="submit">Save limits</button>
</form>
${
  d.freelancers.length > 0 &&
  html`<h3 id="balance-heading">Connects balance</h3>
${state.connects && errorSummary(connectsErrors, "The balance")}
<form method="post" action="${AUTO_APPLY_PATH}/connects" class="balance-form" aria-labelledby="balance-heading" novalidate>${csrfField(session)}
<input type="hidden" name="back" value="${self}">
<label for="balanceFreelancer">Freelancer</label>
${fieldError(connectsErrors, "balanceFreelancer")}
<select id="balanceFreelancer" name="freelancerId"${describedBy(connectsErrors, "balanceFreelancer", false)}>${d.freelancers.map(
    (f) => html`<option value="${f.id}"${f.id === connectsValues.freelancerId ? html` selected` : ""}>${f.name}</option>`,
  )}</select>
<label for="balanceAvailable">Connects available</label>
${fieldError(connectsErrors, "balanceAvailable")}
<input type="number" id="balanceAvailable" name="available" min="0" step="1" inputmode="numeric" value="${connectsValues.available ?? ""}"${describedBy(connectsErrors, "balanceAvailable")}>
<p id="balanceAvailableHelp" class="muted hint">What the marketplace shows now. Automation sends nothing a freelancer cannot pay for.</p>
<button type="submit">Save balance</button>
</form>`
}
</section>`;
}

export interface FeedRow {
  feedId: string;
  title: string;
  automation: FeedAutomation;
}

/** What auto mode still needs, in words, with a link to where it is set. */
function needsWords(needs: "workingHours" | "budget"): Html {
  return needs === "workingHours"
    ? html`“Send on its own” needs working hours first: <a href="#whAny">set them in the limits form</a>.`
    : html`“Send on its own” needs a Connects budget first (a day, a week or a month): <a href="#connectsPerDay">set one in the limits form</a>.`;
}

function feedRow(session: DashboardSession, f: FeedRow, state: PageState): Html {
  const mine = state.feed?.feedId === f.feedId ? state.feed : undefined;
  const a = f.automation;
  const v: FormValues = mine?.values ?? {
    applyMode: a.applyMode,
    minScore: a.minScore === null ? "" : String(a.minScore),
    minExpectedUsd: a.minExpectedUsd === null ? "" : String(a.minExpectedUsd),
    overBudget: a.overBudget,
  };
  const errors = mine?.errors;
  const id = (name: string) => feedFieldId(f.feedId, name);
  const formId = id("form");
  const modeError = mine?.needs
    ? html`<p class="field-error error-text" id="${id("applyMode")}Error">${needsWords(mine.needs)}</p>`
    : fieldError(errors, id("applyMode"));
  const modeInvalid = mine?.needs !== undefined || (errors?.byId.get(id("applyMode"))?.length ?? 0) > 0;
  const option = (value: string, label: string, chosen: string | undefined) =>
    html`<option value="${value}"${value === chosen ? html` selected` : ""}>${label}</option>`;
  return html`<tr id="${id("row")}">
<td data-label="Feed" class="primary"><a href="${DASHBOARD_PATH}/feeds/${encodeURIComponent(f.feedId)}">${f.title}</a></td>
<td data-label="Mode"><label class="visually-hidden" for="${id("applyMode")}">Mode for ${f.title}</label>
${modeError}
<select id="${id("applyMode")}" name="applyMode" form="${formId}"${modeInvalid ? html` aria-invalid="true" aria-describedby="${id("applyMode")}Error"` : ""}>${(
    Object.keys(MODE_LABELS) as ApplyMode[]
  ).map((m) => option(m, MODE_LABELS[m], v.applyMode))}</select></td>
<td data-label="Minimum score"><label class="visually-hidden" for="${id("minScore")}">Minimum score for ${f.title}</label>
${fieldError(errors, id("minScore"))}
<input type="number" id="${id("minScore")}" name="minScore" form="${formId}" min="0" max="100" step="any" value="${v.minScore ?? ""}" placeholder="the feed's"${describedBy(errors, id("minScore"), false)}></td>
<td data-label="Minimum expected value ($)"><label class="visually-hidden" for="${id("minExpectedUsd")}">Minimum expected value in dollars for ${f.title}</label>
${fieldError(errors, id("minExpectedUsd"))}
<input type="number" id="${id("minExpectedUsd")}" name="minExpectedUsd" form="${formId}" min="0" step="0.01" value="${v.minExpectedUsd ?? ""}" placeholder="none"${describedBy(errors, id("minExpectedUsd"), false)}></td>
<td data-label="Over budget"><label class="visually-hidden" for="${id("overBudget")}">Over budget for ${f.title}</label>
${fieldError(errors, id("overBudget"))}
<select id="${id("overBudget")}" name="overBudget" form="${formId}">${(Object.keys(OVER_BUDGET_LABELS) as OverBudgetAction[]).map((o) =>
    option(o, OVER_BUDGET_LABELS[o], v.overBudget),
  )}</select></td>
<td class="unlabelled"><form method="post" action="${AUTO_APPLY_PATH}/feeds/${encodeURIComponent(f.feedId)}" id="${formId}" novalidate>${csrfField(session)}<button type="submit" aria-label="Save the mode of ${f.title}">Save</button></form></td>
</tr>`;
}

/** Each feed's apply mode: a row per feed, its controls tied to the row's own form. */
export function feedModesSection(session: DashboardSession, feeds: FeedRow[], state: PageState): Html {
  return html`<section aria-labelledby="modes-heading" id="modes">
<h2 id="modes-heading">What each feed does with a match</h2>
<p class="muted">Minimum score empty: the feed's own. Minimum expected value empty: no floor. “Over budget” is what happens to a proposal that would break a Connects budget.</p>
${
  feeds.length === 0
    ? html`<p class="empty">No feeds yet. <a href="${DASHBOARD_PATH}/feeds">Create a feed</a> first.</p>`
    : html`<div class="table-wrap"><table class="cards feed-modes">
<thead><tr><th scope="col">Feed</th><th scope="col">Mode</th><th scope="col">Minimum score</th><th scope="col">Minimum expected value ($)</th><th scope="col">Over budget</th><th scope="col"><span class="visually-hidden">Save</span></th></tr></thead>
<tbody>${feeds.map((f) => feedRow(session, f, state))}</tbody>
</table></div>`
}
</section>`;
}
