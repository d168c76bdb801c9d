/**
 * A matched job (the webhook payload) as each platform's message: Telegram
 * HTML, Slack Block Kit, a Discord embed, an ntfy notification, a multipart
 * e-mail, each made by its kind (kinds/). Pure, so tests snapshot the exact
 * output.
 *
 * Job text is untrusted: a title may be `<b>x</b>`, `*bold*`, `@everyone`,
 * `<!channel>`, `[link](http://evil)` or `<@U123>`. Every piece of it is
 * escaped for the format it lands in, and must show as text and ping no one:
 * HTML entities for Telegram and e-mail, `&<>` entities for Slack (its only
 * control characters; titles also go in plain_text), backslashes for Discord
 * markdown plus a zero-width joiner in @everyone/@here and
 * `allowed_mentions: {parse: []}`; ntfy is sent as plain text.
 *
 * Each platform's limit is met after escaping, by cutting the description
 * at a sentence (kinds/text.ts fitText).
 */
import type { OutcomePayload, WebhookPayload } from "../feeds/outbox-payload";
import type { AutomationPayload } from "../feeds/outbox-payload-automation";
import { type AlertFacts, alertFacts, countryOf, noticeFacts, outcomeFacts, summaryLine } from "./format";
import { kindOf } from "./kinds/index";
import type { ChannelMessages, ChannelType } from "./model";

export interface AlertContext {
  /** The job's page in the dashboard, or null when the server has no public URL. */
  dashboardJobUrl: string | null;
  nowTs: number;
  /** The job's expected-value line, computed once when the alert is built (modules/value); absent: none shown. */
  expectedValue?: string | null;
}

export interface DigestContext {
  /** Jobs of the window left out of the list (the caller chose the top N); the renderer adds any it cannot fit. */
  more: number;
  dashboardUrl: string | null;
  nowTs: number;
}

/** One job as its platform's message. `payload` is the job-matched (or webhook-test) webhook payload. */
export function renderAlert<T extends ChannelType>(type: T, payload: WebhookPayload, ctx: AlertContext): ChannelMessages[T] {
  const kind = kindOf(type);
  const facts = alertFacts(payload, ctx);
  if (payload.type === "webhook.test") facts.reason = kind.testReason;
  return kind.renderAlert(facts, payload);
}

/**
 * A proposal's outcome (proposal.viewed / replied / hired) as its platform's message: a short alert, "Client
 * replied: <title>", with when, what it cost, and links to the job and to its page in the dashboard.
 */
export function renderOutcomeAlert<T extends ChannelType>(type: T, payload: OutcomePayload, ctx: AlertContext): ChannelMessages[T] {
  return kindOf(type).renderOutcome(outcomeFacts(payload, ctx));
}

/**
 * An automation event as its platform's message, in plain words: "Connects low: Ana has 12 Connects left (alert
 * under 30)", "Budget: 104 of 120 Connects this week spent", "Waiting for your approval: <title> — why" (with the
 * letter), linking to the dashboard's review page. Telegram's Approve / Discard buttons are the sender's to add.
 */
export function renderAutomationAlert<T extends ChannelType>(type: T, payload: AutomationPayload, ctx: { reviewUrl: string | null }): ChannelMessages[T] {
  return kindOf(type).renderNotice(noticeFacts(payload, ctx));
}

/**
 * One message listing several jobs (already chosen and ordered by the caller), ending "and K more" with a
 * link to the dashboard when some are left out. Jobs that would break the platform's limit are left out too
 * and counted in K.
 */
export function renderDigest<T extends ChannelType>(type: T, payloads: WebhookPayload[], ctx: DigestContext): ChannelMessages[T] {
  const items = payloads.map((payload) => {
    const facts = alertFacts(payload, { dashboardJobUrl: null, nowTs: ctx.nowTs });
    return { facts, summary: summaryLine(facts, countryOf(payload)) };
  });
  return kindOf(type).renderDigest(items, ctx);
}

export interface DigestItem {
  facts: AlertFacts;
  /** "8.5/10 · $100–$150/hr · Germany · 12 min ago" */
  summary: string;
}
