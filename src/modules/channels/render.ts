/**
 * A matched job (the webhook payload) as each platform's message: Telegram
 * HTML, Slack Block Kit, a Discord embed, an ntfy notification, a multipart
 * e-mail. Pure, so tests snapshot the exact output.
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
 * at a sentence (format.ts fitText).
 */
import { escapeHtml } from "../../lib/html";
import type { WebhookPayload } from "../webhooks/model";
import { type AlertFacts, alertFacts, countryOf, fitText, oneLine, summaryLine, utf8Bytes } from "./format";
import type { ChannelMessages, ChannelType, DiscordEmbed, DiscordMessage, EmailMessage, NtfyAction, NtfyMessage, SlackMessage, TelegramMessage } from "./model";

export interface AlertContext {
  /** The job's page in the dashboard, or null when the server has no public URL. */
  dashboardJobUrl: string | null;
  nowTs: number;
}

export interface DigestContext {
  /** Jobs of the window left out of the list (the caller chose the top N); the renderer adds any it cannot fit. */
  more: number;
  dashboardUrl: string | null;
  nowTs: number;
}

/** Platform limits (characters unless named otherwise). */
export const LIMITS = {
  telegramText: 4096,
  slackHeader: 150,
  slackSection: 3000,
  slackField: 2000,
  slackButtonText: 75,
  slackUrl: 3000,
  slackBlocks: 50,
  discordTitle: 256,
  discordDescription: 4096,
  discordFieldValue: 1024,
  discordFooter: 2048,
  discordEmbedTotal: 6000,
  /** ntfy.sh refuses (or turns into an attachment) a message over 4,096 bytes; some room for the JSON around it. */
  ntfyMessageBytes: 3900,
  ntfyTitle: 200,
  emailSubject: 200,
  /** No hard limit in e-mail; a bound so a 50,000-character description does not become the whole mail. */
  emailDescription: 20_000,
} as const;

/**
 * Fields shown before the description, bounded so they always leave it room; MAX_LINE, escaped, also stays
 * within a Slack field (2,000) and a Discord field value (1,024).
 */
const MAX_TITLE = 300;
const MAX_REASON = 600;
const MAX_LINE = 400;

type Renderers = { [K in ChannelType]: (f: AlertFacts, payload: WebhookPayload) => ChannelMessages[K] };
type DigestRenderers = { [K in ChannelType]: (items: DigestItem[], ctx: DigestContext) => ChannelMessages[K] };

/**
 * What a channel's test alert says it is. The sample payload's own reason is the webhook's ("sent when the
 * webhook URL is saved"), which is not how a channel gets one: its test is sent only on request.
 */
const TEST_REASON: Record<ChannelType, string> = {
  telegram: "Test alert, sent on request to check this Telegram chat; a sample job, do not apply to it",
  slack: "Test alert, sent on request to check this Slack channel; a sample job, do not apply to it",
  discord: "Test alert, sent on request to check this Discord channel; a sample job, do not apply to it",
  ntfy: "Test alert, sent on request to check this ntfy topic; a sample job, do not apply to it",
  email: "Test e-mail, sent on request to check this e-mail channel; a sample job, do not apply to it",
};

/** One job as its platform's message. `payload` is the job-matched (or webhook-test) webhook payload. */
export function renderAlert<T extends ChannelType>(type: T, payload: WebhookPayload, ctx: AlertContext): ChannelMessages[T] {
  const facts = alertFacts(payload, ctx);
  if (payload.type === "webhook.test") facts.reason = TEST_REASON[type];
  return (ALERT[type] as Renderers[T])(facts, payload);
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
  return (DIGEST[type] as DigestRenderers[T])(items, ctx);
}

interface DigestItem {
  facts: AlertFacts;
  /** "8.5/10 · $100–$150/hr · Germany · 12 min ago" */
  summary: string;
}

const jobsCount = (n: number) => (n === 1 ? "1 new job" : `${n} new jobs`);

/**
 * A digest's heading: how many jobs, and the feed they matched ("3 new jobs — React contracts"), since one chat
 * or channel may take the digests of several feeds. A digest is of one feed, so its first job names it.
 */
function digestTitle(total: number, items: DigestItem[]): string {
  const feed = items[0]?.facts.feedTitle ?? "";
  return feed === "" ? jobsCount(total) : `${jobsCount(total)} — ${feed}`;
}

/** The priority ntfy shows (1 min … 5 urgent) for a matching score of 0 to 10. */
export function ntfyPriority(score: number): NtfyMessage["priority"] {
  if (score >= 9) return 5;
  if (score >= 7.5) return 4;
  if (score >= 5) return 3;
  if (score >= 2.5) return 2;
  return 1;
}

/** The labelled facts shown under the title, in order; `escapeFor` is the format's escaping. */
function factLines(f: AlertFacts, escapeFor: (s: string) => string): [label: string, value: string][] {
  const lines: [string, string][] = [];
  lines.push(["Match", f.reason === null ? f.score : `${f.score} — ${fitText(f.reason, MAX_REASON, escapeFor)}`]);
  if (f.budget !== null) lines.push(["Budget", escapeFor(f.budget)]);
  if (f.client !== null) lines.push(["Client", escapeFor(f.client)]);
  if (f.clientScore !== null) lines.push(["Client score", escapeFor(f.clientScore)]);
  if (f.posted !== null) lines.push(["Posted", f.posted]);
  if (f.skills.length > 0) lines.push(["Skills", fitText(f.skills.join(", "), MAX_LINE, escapeFor)]);
  lines.push(["Feed", fitText(f.feedTitle, MAX_LINE, escapeFor)]);
  return lines;
}

// ---------------------------------------------------------------------------
// Telegram (HTML parse mode)

/** Telegram's HTML mode takes &lt; &gt; &amp; &quot; and numeric entities, which is what escapeHtml writes. */
const telegramEscape = escapeHtml;

function telegramLinks(f: AlertFacts): string {
  const links: string[] = [];
  if (f.jobUrl !== null) links.push(`<a href="${escapeHtml(f.jobUrl)}">Open the job</a>`);
  if (f.dashboardUrl !== null) links.push(`<a href="${escapeHtml(f.dashboardUrl)}">Open in jobpilot</a>`);
  return links.join(" · ");
}

function telegramAlert(f: AlertFacts): TelegramMessage {
  const head = [
    `<b>${fitText(f.title, MAX_TITLE, telegramEscape)}</b>`,
    ...factLines(f, telegramEscape).map(([label, value]) => `<b>${label}:</b> ${value}`),
  ].join("\n");
  const links = telegramLinks(f);
  // Telegram counts the text after parsing the tags; counting them too keeps a margin.
  const room = LIMITS.telegramText - head.length - links.length - 4;
  const description = fitText(f.description, room, telegramEscape);
  return { type: "telegram", text: [head, description, links].filter((part) => part !== "").join("\n\n") };
}

function telegramDigest(items: DigestItem[], ctx: DigestContext): TelegramMessage {
  return listDigest(items, ctx, LIMITS.telegramText, (text) => text.length, {
    heading: (n) => `<b>${fitText(digestTitle(n, items), MAX_LINE, telegramEscape)}</b>`,
    item: ({ facts, summary }) => {
      const title = fitText(facts.title, MAX_TITLE, telegramEscape);
      return `${facts.jobUrl === null ? `<b>${title}</b>` : `<a href="${escapeHtml(facts.jobUrl)}">${title}</a>`}\n${telegramEscape(summary)}`;
    },
    more: (k) => `and ${k} more${ctx.dashboardUrl === null ? "" : ` — <a href="${escapeHtml(ctx.dashboardUrl)}">open jobpilot</a>`}`,
    separator: "\n\n",
    done: (text) => ({ type: "telegram", text }),
  });
}

/**
 * A digest as one text: heading, as many items as fit within `limit` (measured by `measure`), and "and K
 * more" for the rest. Shared by the text-shaped formats (Telegram, Discord's description, ntfy).
 */
function listDigest<M>(
  items: DigestItem[],
  ctx: DigestContext,
  limit: number,
  measure: (text: string) => number,
  parts: { heading: (total: number) => string; item: (item: DigestItem) => string; more: (k: number) => string; separator: string; done: (text: string) => M },
): M {
  const total = items.length + ctx.more;
  const heading = parts.heading(total);
  // Room for the longest "and K more" line whatever K ends up being.
  const reserve = measure(parts.more(total)) + measure(parts.separator);
  const kept: string[] = [];
  let used = measure(heading);
  for (const item of items) {
    const text = parts.item(item);
    const size = measure(parts.separator) + measure(text);
    if (used + size + reserve > limit) break;
    kept.push(text);
    used += size;
  }
  const more = total - kept.length;
  return parts.done([heading, ...kept, ...(more > 0 ? [parts.more(more)] : [])].join(parts.separator));
}

// ---------------------------------------------------------------------------
// Slack (Block Kit)

/** Slack's control characters; everything else shows as written. */
export function slackEscape(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

const plain = (text: string) => ({ type: "plain_text", text, emoji: false });
const mrkdwn = (text: string) => ({ type: "mrkdwn", text, verbatim: true });

function slackButton(text: string, url: string | null): unknown[] {
  return url === null || url.length > LIMITS.slackUrl ? [] : [{ type: "button", text: plain(text), url }];
}

function slackBody(fallback: string, blocks: unknown[]): SlackMessage["body"] {
  return { text: fitText(fallback, LIMITS.slackSection, slackEscape), blocks, mrkdwn: false, unfurl_links: false, unfurl_media: false };
}

function slackAlert(f: AlertFacts): SlackMessage {
  const [match, ...rest] = factLines(f, slackEscape);
  const fields = rest.filter(([label]) => label !== "Skills" && label !== "Feed").map(([label, value]) => mrkdwn(`*${label}*\n${value}`));
  const blocks: unknown[] = [
    { type: "header", text: plain(fitText(f.title, LIMITS.slackHeader, slackEscape)) },
    { type: "section", text: plain(`${match![0]}: ${match![1]}`) },
  ];
  if (fields.length > 0) blocks.push({ type: "section", fields });
  if (f.skills.length > 0) blocks.push({ type: "context", elements: [plain(fitText(`Skills: ${f.skills.join(", ")}`, MAX_LINE, slackEscape))] });
  if (f.description !== "") blocks.push({ type: "section", text: plain(fitText(f.description, LIMITS.slackSection, slackEscape)) });
  const buttons = [...slackButton("Open the job", f.jobUrl), ...slackButton("Open in jobpilot", f.dashboardUrl)];
  if (buttons.length > 0) blocks.push({ type: "actions", elements: buttons });
  blocks.push({ type: "context", elements: [plain(fitText(`Feed: ${f.feedTitle}`, MAX_LINE, slackEscape))] });
  return { type: "slack", body: slackBody(`New job (${f.score}): ${f.title}`, blocks) };
}

function slackDigest(items: DigestItem[], ctx: DigestContext): SlackMessage {
  const total = items.length + ctx.more;
  // Header, the items, then "and K more" and the dashboard button: within Slack's 50 blocks.
  const kept = items.slice(0, LIMITS.slackBlocks - 3);
  const more = total - kept.length;
  const title = digestTitle(total, items);
  const blocks: unknown[] = [{ type: "header", text: plain(fitText(title, LIMITS.slackHeader, slackEscape)) }];
  for (const { facts, summary } of kept) {
    const text = plain(`${fitText(facts.title, MAX_TITLE, slackEscape)}\n${slackEscape(summary)}`);
    const button = slackButton("Open", facts.jobUrl);
    blocks.push(button.length > 0 ? { type: "section", text, accessory: button[0] } : { type: "section", text });
  }
  if (more > 0) blocks.push({ type: "section", text: plain(`and ${more} more`) });
  const dashboard = slackButton("Open jobpilot", ctx.dashboardUrl);
  if (dashboard.length > 0) blocks.push({ type: "actions", elements: dashboard });
  return { type: "slack", body: slackBody(title, blocks) };
}

// ---------------------------------------------------------------------------
// Discord (one embed)

/**
 * Discord markdown made inert: a backslash before every character that formats, links or mentions
 * (`\ * _ ~ ` | [ ] < >`), before `#`, `-` and `+` that would start a heading or list, and a zero-width
 * joiner inside @everyone and @here (allowed_mentions already stops the ping; this stops the highlight).
 */
export function discordEscape(text: string): string {
  return text
    .replace(/[\\*_~`|[\]<>]/g, "\\$&")
    .replace(/^([ \t]*)([#+-])/gm, "$1\\$2")
    .replace(/@(everyone|here)/gi, "@\u200d$1");
}

/** A URL inside a masked link `[text](url)`: parentheses and spaces would end it early. */
function discordLinkUrl(url: string): string {
  return url.replace(/[() ]/g, (c) => (c === "(" ? "%28" : c === ")" ? "%29" : "%20"));
}

function discordColor(score: number): number {
  return score >= 8 ? 0x2e7d32 : score >= 5 ? 0xf9a825 : 0x757575;
}

function discordBody(embed: DiscordEmbed): DiscordMessage["body"] {
  return { allowed_mentions: { parse: [] }, embeds: [embed] };
}

/** Embed text outside its own limits: Discord also refuses an embed whose texts add up to more than 6,000. */
function embedSize(embed: DiscordEmbed): number {
  return (
    embed.title.length + embed.description.length + (embed.footer?.text.length ?? 0) + embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0)
  );
}

function discordAlert(f: AlertFacts, payload: WebhookPayload): DiscordMessage {
  const [match, ...rest] = factLines(f, discordEscape);
  const links = [
    ...(f.jobUrl === null ? [] : [`[Open the job](${discordLinkUrl(f.jobUrl)})`]),
    ...(f.dashboardUrl === null ? [] : [`[Open in jobpilot](${discordLinkUrl(f.dashboardUrl)})`]),
  ].join(" · ");
  const embed: DiscordEmbed = {
    title: fitText(f.title, LIMITS.discordTitle, discordEscape),
    ...(f.jobUrl === null ? {} : { url: f.jobUrl }),
    description: "",
    color: discordColor(f.matchingScore),
    fields: rest.filter(([label]) => label !== "Feed").map(([label, value]) => ({ name: label, value, inline: label !== "Client" && label !== "Skills" })),
    footer: { text: fitText(`Feed: ${f.feedTitle}`, LIMITS.discordFooter, (s) => s.replace(/@(everyone|here)/gi, "@\u200d$1")) },
    ...(payload.publishTime === null ? {} : { timestamp: payload.publishTime }),
  };
  const head = `**${match![0]}:** ${match![1]}`;
  const room = Math.min(LIMITS.discordDescription, LIMITS.discordEmbedTotal - embedSize(embed)) - head.length - links.length - 4;
  embed.description = [head, fitText(f.description, room, discordEscape), links].filter((part) => part !== "").join("\n\n");
  return { type: "discord", body: discordBody(embed) };
}

function discordDigest(items: DigestItem[], ctx: DigestContext): DiscordMessage {
  const total = items.length + ctx.more;
  return listDigest(items, ctx, LIMITS.discordDescription, (text) => text.length, {
    heading: () => "",
    item: ({ facts, summary }) => {
      const title = fitText(facts.title, MAX_TITLE, discordEscape);
      return `${facts.jobUrl === null ? `**${title}**` : `[${title}](${discordLinkUrl(facts.jobUrl)})`}\n${discordEscape(summary)}`;
    },
    more: (k) => `and ${k} more${ctx.dashboardUrl === null ? "" : ` — [open jobpilot](${discordLinkUrl(ctx.dashboardUrl)})`}`,
    separator: "\n\n",
    done: (text) => ({
      type: "discord",
      body: discordBody({
        title: fitText(digestTitle(total, items), LIMITS.discordTitle, discordEscape),
        description: text.trim(),
        color: discordColor(10),
        fields: [],
      }),
    }),
  });
}

// ---------------------------------------------------------------------------
// ntfy (plain text)

function ntfyActions(pairs: [label: string, url: string | null][]): NtfyAction[] {
  return pairs.flatMap(([label, url]) => (url === null ? [] : [{ action: "view" as const, label, url }]));
}

function ntfyAlert(f: AlertFacts): NtfyMessage {
  const head = factLines(f, (s) => s)
    .map(([label, value]) => `${label}: ${value}`)
    .join("\n");
  const room = LIMITS.ntfyMessageBytes - utf8Bytes(head) - 2;
  const description = fitText(f.description, room, (s) => s, utf8Bytes);
  return {
    type: "ntfy",
    title: fitText(`${f.score} · ${f.title}`, LIMITS.ntfyTitle),
    message: [head, description].filter((part) => part !== "").join("\n\n"),
    priority: ntfyPriority(f.matchingScore),
    tags: ["briefcase"],
    click: f.jobUrl ?? f.dashboardUrl,
    actions: ntfyActions([
      ["Open the job", f.jobUrl],
      ["Open in jobpilot", f.dashboardUrl],
    ]),
  };
}

function ntfyDigest(items: DigestItem[], ctx: DigestContext): NtfyMessage {
  const total = items.length + ctx.more;
  return listDigest(items, ctx, LIMITS.ntfyMessageBytes, utf8Bytes, {
    heading: () => "",
    item: ({ facts, summary }) => `• ${facts.title}\n  ${summary}`,
    more: (k) => `and ${k} more`,
    separator: "\n",
    done: (text) => ({
      type: "ntfy",
      title: fitText(digestTitle(total, items), LIMITS.ntfyTitle),
      message: text.trim(),
      priority: 3,
      tags: ["briefcase"],
      click: ctx.dashboardUrl,
      actions: ntfyActions([["Open jobpilot", ctx.dashboardUrl]]),
    }),
  });
}

// ---------------------------------------------------------------------------
// E-mail (multipart: text and HTML)

/** A subject is one header line: no line breaks whatever the title holds. */
function subject(text: string): string {
  return fitText(oneLine(text), LIMITS.emailSubject);
}

/** Plain text as HTML paragraphs: escaped, blank lines between paragraphs, single line breaks kept. */
function htmlParagraphs(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((p) => `<p style="margin:0 0 12px">${escapeHtml(p).replaceAll("\n", "<br>")}</p>`)
    .join("\n");
}

function htmlLink(text: string, url: string): string {
  return `<a href="${escapeHtml(url)}">${escapeHtml(text)}</a>`;
}

function htmlPage(body: string): string {
  return `<!doctype html>\n<html><body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;line-height:1.45;color:#222">\n${body}\n</body></html>`;
}

function emailAlert(f: AlertFacts): EmailMessage {
  const facts = factLines(f, (s) => s);
  const description = fitText(f.description, LIMITS.emailDescription);
  const links: [string, string][] = [
    ...(f.jobUrl === null ? [] : [["Open the job", f.jobUrl] as [string, string]]),
    ...(f.dashboardUrl === null ? [] : [["Open in jobpilot", f.dashboardUrl] as [string, string]]),
  ];
  const text = [
    f.title,
    facts.map(([label, value]) => `${label}: ${value}`).join("\n"),
    description,
    links.map(([label, url]) => `${label}: ${url}`).join("\n"),
  ]
    .filter((part) => part !== "")
    .join("\n\n");
  const rows = facts
    .map(
      ([label, value]) =>
        `<tr><th align="left" valign="top" style="padding:2px 12px 2px 0">${label}</th><td style="padding:2px 0">${escapeHtml(value)}</td></tr>`,
    )
    .join("\n");
  const html = htmlPage(
    [
      `<h2 style="margin:0 0 12px;font-size:18px">${f.jobUrl === null ? escapeHtml(f.title) : htmlLink(f.title, f.jobUrl)}</h2>`,
      `<table style="border-collapse:collapse;margin:0 0 16px">\n${rows}\n</table>`,
      description === "" ? "" : htmlParagraphs(description),
      links.length === 0 ? "" : `<p>${links.map(([label, url]) => htmlLink(label, url)).join(" · ")}</p>`,
    ]
      .filter((part) => part !== "")
      .join("\n"),
  );
  const budget = f.budget === null ? "" : ` · ${f.budget}`;
  return { type: "email", subject: subject(`${f.score} · ${f.title}${budget}`), text, html };
}

function emailDigest(items: DigestItem[], ctx: DigestContext): EmailMessage {
  const total = items.length + ctx.more;
  const dashboard = ctx.dashboardUrl;
  const title = digestTitle(total, items);
  const text = [
    title,
    ...items.map(({ facts, summary }) => [facts.title, summary, facts.jobUrl].filter((x) => x !== null).join("\n")),
    ...(ctx.more > 0 ? [`and ${ctx.more} more${dashboard === null ? "" : `: ${dashboard}`}`] : []),
    ...(ctx.more === 0 && dashboard !== null ? [`Open jobpilot: ${dashboard}`] : []),
  ].join("\n\n");
  const list = items
    .map(
      ({ facts, summary }) =>
        `<li style="margin:0 0 10px">${facts.jobUrl === null ? escapeHtml(facts.title) : htmlLink(facts.title, facts.jobUrl)}<br><span style="color:#555">${escapeHtml(summary)}</span></li>`,
    )
    .join("\n");
  const tail = ctx.more > 0 ? `and ${ctx.more} more` : "";
  const html = htmlPage(
    [
      `<h2 style="margin:0 0 12px;font-size:18px">${escapeHtml(title)}</h2>`,
      `<ul style="padding-left:18px">\n${list}\n</ul>`,
      tail === "" && dashboard === null
        ? ""
        : `<p>${[tail, dashboard === null ? "" : htmlLink("Open jobpilot", dashboard)].filter((x) => x !== "").join(" — ")}</p>`,
    ]
      .filter((part) => part !== "")
      .join("\n"),
  );
  const top = items[0] === undefined ? "" : ` — top: ${items[0].facts.title}`;
  return { type: "email", subject: subject(`${title}${top}`), text, html };
}

const ALERT: Renderers = { telegram: telegramAlert, slack: slackAlert, discord: discordAlert, ntfy: ntfyAlert, email: emailAlert };
const DIGEST: DigestRenderers = { telegram: telegramDigest, slack: slackDigest, discord: discordDigest, ntfy: ntfyDigest, email: emailDigest };
