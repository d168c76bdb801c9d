/**
 * What every channel says about a job, in words, before any platform's
 * markup: the facts of an alert (budget, client, scores, age, skills, links).
 * Each kind (kinds/) turns these into its platform's message, cutting text to
 * its limits with kinds/text.ts; keeping the wording here means a Telegram
 * alert and an e-mail never disagree about a job.
 *
 * Everything here is plain text straight from the job (untrusted): each
 * renderer escapes it for its own format.
 */
import type { OutcomePayload, WebhookPayload } from "../feeds/outbox-payload";
import type { AutomationPayload } from "../feeds/outbox-payload-automation";
import { webUrl } from "../../lib/web-url";
import { cutAtSentence, oneLine } from "./kinds/text";

/** Skills shown in an alert; the job has the rest. */
export const MAX_SKILLS_SHOWN = 6;
const MAX_TITLE_CHARS = 300;

export interface AlertFacts {
  title: string;
  /** The posting, only when it is an http(s) link. */
  jobUrl: string | null;
  /** The job in the dashboard, only when it is an http(s) link. */
  dashboardUrl: string | null;
  /** "8.5/10". */
  score: string;
  matchingScore: number;
  reason: string | null;
  /** "$100–$150/hr", "$500 fixed"; null when the job names no amount. */
  budget: string | null;
  /** "Germany · payment verified · rated 4.6 (33 reviews) · $104K spent"; null when nothing is known. */
  client: string | null;
  /** "92/100 (Excellent)", or the label alone for a client with no history. */
  clientScore: string | null;
  /** "12 min ago"; null when the posting time is unknown. */
  posted: string | null;
  /** The expected value against the Connects, "worth ~$3.10; costs $2.40 in Connects" (modules/value); null when not computed. */
  value: string | null;
  /** The job's signals in words ("Reposted: near-identical to a job of 12 Nov (no hire)"), at most MAX_FLAGS_SHOWN. */
  flags: string[];
  skills: string[];
  /** Tidied: at most one blank line in a row, trimmed. */
  description: string;
  feedTitle: string;
}

/** Signals an alert shows at most (a job rarely carries more than two). */
const MAX_FLAGS_SHOWN = 4;

export function alertFacts(payload: WebhookPayload, ctx: { dashboardJobUrl: string | null; nowTs: number; expectedValue?: string | null }): AlertFacts {
  return {
    title: cutAtSentence(oneLine(payload.title) || "(untitled job)", MAX_TITLE_CHARS),
    jobUrl: webUrl(payload.url),
    dashboardUrl: webUrl(ctx.dashboardJobUrl),
    score: scoreText(payload.matchingScore),
    matchingScore: payload.matchingScore,
    reason: payload.scoreReason === null || payload.scoreReason.trim() === "" ? null : oneLine(payload.scoreReason),
    budget: budgetText(payload.budget),
    client: clientText(payload.client),
    clientScore: clientScoreText(payload.client.clientScore),
    posted: payload.publishTime === null ? null : relativeTime(Date.parse(payload.publishTime), ctx.nowTs),
    value: ctx.expectedValue ?? null,
    flags: (payload.signals ?? [])
      .map((sig) => oneLine(sig.say))
      .filter((say) => say !== "")
      .slice(0, MAX_FLAGS_SHOWN),
    skills: payload.skills
      .map(oneLine)
      .filter((s) => s !== "")
      .slice(0, MAX_SKILLS_SHOWN),
    description: tidyText(payload.description),
    feedTitle: oneLine(payload.feedTitle),
  };
}

/** What every channel says about a proposal that was viewed, replied to or hired (an outcome event), before markup. */
export interface OutcomeFacts {
  stage: OutcomePayload["application"]["stage"];
  /** "Client replied: Build a React dashboard", "Hired: … ($1,200)". */
  headline: string;
  title: string;
  jobUrl: string | null;
  dashboardUrl: string | null;
  /** Label and value, in order: when it happened, when the proposal was sent, what it cost, the value. */
  lines: [label: string, value: string][];
  feedTitle: string;
}

const OUTCOME_WORDS = { viewed: "Proposal viewed", replied: "Client replied", hired: "Hired" } as const;

export function outcomeFacts(payload: OutcomePayload, ctx: { dashboardJobUrl: string | null; nowTs: number }): OutcomeFacts {
  const app = payload.application;
  const title = cutAtSentence(oneLine(app.jobTitle) || "(untitled job)", MAX_TITLE_CHARS);
  const value = app.valueUsd === null ? null : money(app.valueUsd, "USD");
  const lines: [string, string][] = [];
  const when = relativeTime(Date.parse(app.stageAt), ctx.nowTs);
  if (when !== null) lines.push([app.stage === "viewed" ? "Viewed" : app.stage === "replied" ? "Replied" : "Hired", when]);
  const sent = relativeTime(Date.parse(app.sentAt), ctx.nowTs);
  if (sent !== null) lines.push(["Sent", sent]);
  if (value !== null) lines.push(["Value", value]);
  if (app.connectsCostUsd !== null) lines.push(["Connects", money(app.connectsCostUsd, "USD")]);
  if (app.outcome !== null && app.outcome !== "hired") lines.push(["Now", app.outcome]);
  return {
    stage: app.stage,
    headline: `${OUTCOME_WORDS[app.stage]}: ${title}${value === null ? "" : ` (${value})`}`,
    title,
    jobUrl: webUrl(app.jobUrl),
    dashboardUrl: webUrl(ctx.dashboardJobUrl),
    lines,
    feedTitle: oneLine(payload.feedTitle),
  };
}

/**
 * What every channel says about an automation event (connects.low, budget.low, application.held), before markup:
 * a plain headline ("Connects low: Ana has 12 Connects left (alert under 30)"), a few labelled facts, and for a
 * held application its letter, with a link to where a person acts on it.
 */
export interface NoticeFacts {
  event: AutomationPayload["type"];
  headline: string;
  lines: [label: string, value: string][];
  /** Text shown whole under the facts (a held application's letter), cut by each kind to its limit; null: none. */
  body: string | null;
  jobUrl: string | null;
  /** The dashboard's review page, only when it is an http(s) link. */
  dashboardUrl: string | null;
  /** The dashboard link's words. */
  dashboardLabel: string;
  feedTitle: string;
}

const PERIOD_WORDS = { day: "today", week: "this week", month: "this month" } as const;

const freelancerWords = (id: string, name: string | null) => oneLine(name ?? "") || `freelancer ${oneLine(id)}`;

export function noticeFacts(payload: AutomationPayload, ctx: { reviewUrl: string | null }): NoticeFacts {
  const base = { jobUrl: null, dashboardUrl: webUrl(ctx.reviewUrl), dashboardLabel: "Open in jobpilot", body: null, feedTitle: oneLine(payload.feedTitle) };
  if (payload.type === "connects.low") {
    const b = payload.balance;
    const who = freelancerWords(b.freelancerId, b.freelancerName);
    const lines: [string, string][] = [
      ["Read", `${new Date(b.readAt).toISOString().slice(0, 16).replace("T", " ")} UTC${b.estimated ? " (less what was spent since)" : ""}`],
    ];
    return { ...base, event: payload.type, headline: `Connects low: ${who} has ${b.available} Connects left (alert under ${b.threshold})`, lines };
  }
  if (payload.type === "budget.low") {
    const b = payload.budget;
    const whose = b.scope === "account" ? "the account's budget" : `${freelancerWords(b.freelancerId, b.freelancerName)}'s budget`;
    const lines: [string, string][] = [
      ["Left", `${Math.max(0, b.left)} Connects (alert under ${b.threshold})`],
      ["Budget", `${whose}, ${b.periodKey}`],
    ];
    return { ...base, event: payload.type, headline: `Budget: ${b.spent} of ${b.cap} Connects ${PERIOD_WORDS[b.period]} spent`, lines };
  }
  const app = payload.application;
  const title = cutAtSentence(oneLine(app.job.title) || "(untitled job)", MAX_TITLE_CHARS);
  return {
    ...base,
    event: payload.type,
    // A member's draft says who wrote it; the other kinds say why they wait.
    headline:
      app.kind === "approval"
        ? `Waiting for approval: ${title} — drafted by ${oneLine(app.draftedBy ?? "") || "a member"}`
        : `Waiting for your approval: ${title} — ${oneLine(app.why)}`,
    lines: [["Freelancer", oneLine(app.freelancerId)]],
    body: tidyText(app.coverLetter),
    jobUrl: webUrl(app.job.url),
    dashboardUrl: webUrl(app.reviewUrl ?? ctx.reviewUrl),
    dashboardLabel: "Review in jobpilot",
  };
}

/** A job's one-line summary for digests: "8.5/10 · $100–$150/hr · Germany · 12 min ago". */
export function summaryLine(facts: AlertFacts, country: string | null): string {
  return [facts.score, facts.budget, country, facts.posted].filter((part) => part !== null).join(" · ");
}

export function scoreText(score: number): string {
  return `${Math.round(score * 10) / 10}/10`;
}

function clientScoreText(clientScore: WebhookPayload["client"]["clientScore"]): string | null {
  if (clientScore === null) return null;
  return clientScore.score === null ? clientScore.label : `${Math.round(clientScore.score)}/100 (${clientScore.label})`;
}

function clientText(client: WebhookPayload["client"]): string | null {
  const parts: string[] = [];
  const country = client.countryName ?? client.country;
  if (country) parts.push(country);
  if (client.paymentVerified === true) parts.push("payment verified");
  if (client.paymentVerified === false) parts.push("payment not verified");
  if (client.rating !== null) {
    const rating = `rated ${client.rating.toFixed(1)}`;
    parts.push(client.reviews === null ? rating : `${rating} (${client.reviews} ${client.reviews === 1 ? "review" : "reviews"})`);
  }
  // The payload gives spend without a currency; the marketplace, the only source that reports it, counts in USD.
  if (client.totalSpent !== null) parts.push(`${money(client.totalSpent, "USD", true)} spent`);
  return parts.length === 0 ? null : parts.join(" · ");
}

/** The client's country for one-line summaries. */
export function countryOf(payload: WebhookPayload): string | null {
  return payload.client.countryName ?? payload.client.country;
}

function budgetText(budget: WebhookPayload["budget"]): string | null {
  const { hourlyMin: min, hourlyMax: max, fixedAmount, currency } = budget;
  if (min !== null && max !== null) return min === max ? `${money(min, currency)}/hr` : `${money(min, currency)}–${money(max, currency)}/hr`;
  if (min !== null) return `from ${money(min, currency)}/hr`;
  if (max !== null) return `up to ${money(max, currency)}/hr`;
  if (fixedAmount !== null) return `${money(fixedAmount, currency)} fixed`;
  return null;
}

const moneyFormats = new Map<string, Intl.NumberFormat | null>();

/**
 * An amount with its currency ("$150", "€1,200", "1,200 XYZ"), whole numbers without cents; compact for
 * large totals ("$104K"). A null currency prints the bare number, not a guessed one.
 */
export function money(amount: number, currency: string | null, compact = false): string {
  const fractionDigits = compact || Number.isInteger(amount) ? 0 : 2;
  const key = `${currency}|${compact}|${fractionDigits}`;
  let format = moneyFormats.get(key);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat("en-US", {
        ...(currency === null ? {} : { style: "currency", currency, currencyDisplay: "narrowSymbol" }),
        ...(compact ? { notation: "compact", maximumFractionDigits: 1 } : { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }),
      });
    } catch {
      format = null; // not an ISO 4217 code Intl knows
    }
    moneyFormats.set(key, format);
  }
  if (format !== null) return format.format(amount);
  return `${new Intl.NumberFormat("en-US", { maximumFractionDigits: fractionDigits }).format(amount)} ${currency}`;
}

/** "just now", "12 min ago", "3 h ago", "2 days ago", or the date for anything older than a month. */
export function relativeTime(ts: number, nowTs: number): string | null {
  if (!Number.isFinite(ts)) return null;
  const minutes = Math.floor((nowTs - ts) / 60_000);
  if (minutes < 1) return "just now"; // also a posting time a little ahead of our clock
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days < 31) return days === 1 ? "1 day ago" : `${days} days ago`;
  return `on ${new Date(ts).toISOString().slice(0, 10)}`;
}

/** Trims every line and keeps at most one blank line in a row. */
function tidyText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
