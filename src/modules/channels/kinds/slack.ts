/**
 * Slack: an incoming webhook (https://hooks.slack.com/services/…) posts one
 * Block Kit message to one channel. The host is fixed (or the operator's
 * test origin, JOBPILOT_SLACK_WEBHOOK_ORIGIN), so it is a plain fetch with no
 * user-chosen address to guard. The webhook URL is the secret.
 */
import { t } from "elysia";
import { sha256Hex } from "../../../lib/hash";
import { retryAfterMs as parseRetryAfter } from "../../../lib/retry-after";
import type { AlertFacts, NoticeFacts, OutcomeFacts } from "../format";
import type { DigestContext, DigestItem } from "../render";
import { failed, httpError, isRetryableStatus, post, succeeded, webhookSecrets, withoutSecrets } from "./http";
import { type ChannelKind, Invalid, isTestOrigin, MAX_URL_CHARS, maskUrl, parsedUrl, SECOND, text } from "./kind";
import { digestTitle, factLines, fitText, MAX_LINE, MAX_TITLE } from "./text";

export interface SlackConfig {
  webhookUrl: string;
}

/** The JSON body POSTed to a Slack incoming webhook. */
export interface SlackMessage {
  type: "slack";
  body: { text: string; blocks: unknown[]; mrkdwn: false; unfurl_links: false; unfurl_media: false };
}

/** Slack's limits (characters, and blocks per message). */
export const SLACK_LIMITS = { header: 150, section: 3000, field: 2000, buttonText: 75, url: 3000, blocks: 50 } as const;

const SLACK_WEBHOOK_PATH = /^\/(?:services|workflows|triggers)\/[^?#]+$/;

const SlackConfigSchema = t.Object(
  {
    webhookUrl: t.String({
      maxLength: MAX_URL_CHARS,
      description: "The incoming-webhook URL (`https://hooks.slack.com/services/…`). Secret: shown masked after saving.",
    }),
  },
  { additionalProperties: false, description: "slack: an incoming webhook." },
);

/** Slack's control characters; everything else shows as written. */
export function slackEscape(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

const plain = (text: string) => ({ type: "plain_text", text, emoji: false });
const mrkdwn = (text: string) => ({ type: "mrkdwn", text, verbatim: true });

function slackButton(text: string, url: string | null): unknown[] {
  return url === null || url.length > SLACK_LIMITS.url ? [] : [{ type: "button", text: plain(text), url }];
}

function slackBody(fallback: string, blocks: unknown[]): SlackMessage["body"] {
  return { text: fitText(fallback, SLACK_LIMITS.section, slackEscape), blocks, mrkdwn: false, unfurl_links: false, unfurl_media: false };
}

function slackAlert(f: AlertFacts): SlackMessage {
  const [match, ...rest] = factLines(f, slackEscape);
  const fields = rest.filter(([label]) => label !== "Skills" && label !== "Feed").map(([label, value]) => mrkdwn(`*${label}*\n${value}`));
  const blocks: unknown[] = [
    { type: "header", text: plain(fitText(f.title, SLACK_LIMITS.header, slackEscape)) },
    { type: "section", text: plain(`${match![0]}: ${match![1]}`) },
  ];
  if (fields.length > 0) blocks.push({ type: "section", fields });
  if (f.skills.length > 0) blocks.push({ type: "context", elements: [plain(fitText(`Skills: ${f.skills.join(", ")}`, MAX_LINE, slackEscape))] });
  if (f.description !== "") blocks.push({ type: "section", text: plain(fitText(f.description, SLACK_LIMITS.section, slackEscape)) });
  const buttons = [...slackButton("Open the job", f.jobUrl), ...slackButton("Open in jobpilot", f.dashboardUrl)];
  if (buttons.length > 0) blocks.push({ type: "actions", elements: buttons });
  blocks.push({ type: "context", elements: [plain(fitText(`Feed: ${f.feedTitle}`, MAX_LINE, slackEscape))] });
  return { type: "slack", body: slackBody(`New job (${f.score}): ${f.title}`, blocks) };
}

function slackOutcome(f: OutcomeFacts): SlackMessage {
  const blocks: unknown[] = [{ type: "header", text: plain(fitText(f.headline, SLACK_LIMITS.header, slackEscape)) }];
  if (f.lines.length > 0) blocks.push({ type: "section", fields: f.lines.map(([label, value]) => mrkdwn(`*${label}*\n${slackEscape(value)}`)) });
  const buttons = [...slackButton("Open the job", f.jobUrl), ...slackButton("Open in jobpilot", f.dashboardUrl)];
  if (buttons.length > 0) blocks.push({ type: "actions", elements: buttons });
  blocks.push({ type: "context", elements: [plain(fitText(`Feed: ${f.feedTitle}`, MAX_LINE, slackEscape))] });
  return { type: "slack", body: slackBody(f.headline, blocks) };
}

function slackNotice(f: NoticeFacts): SlackMessage {
  const blocks: unknown[] = [{ type: "section", text: mrkdwn(`*${fitText(f.headline, SLACK_LIMITS.section - 2, slackEscape)}*`) }];
  if (f.lines.length > 0)
    blocks.push({ type: "section", fields: f.lines.map(([label, value]) => mrkdwn(`*${label}*\n${fitText(value, MAX_LINE, slackEscape)}`)) });
  if (f.body !== null && f.body !== "") blocks.push({ type: "section", text: plain(fitText(f.body, SLACK_LIMITS.section, slackEscape)) });
  const buttons = [...slackButton("Open the job", f.jobUrl), ...slackButton(f.dashboardLabel, f.dashboardUrl)];
  if (buttons.length > 0) blocks.push({ type: "actions", elements: buttons });
  blocks.push({ type: "context", elements: [plain(fitText(`Feed: ${f.feedTitle}`, MAX_LINE, slackEscape))] });
  return { type: "slack", body: slackBody(f.headline, blocks) };
}

function slackDigest(items: DigestItem[], ctx: DigestContext): SlackMessage {
  const total = items.length + ctx.more;
  // Header, the items, then "and K more" and the dashboard button: within Slack's 50 blocks.
  const kept = items.slice(0, SLACK_LIMITS.blocks - 3);
  const more = total - kept.length;
  const title = digestTitle(total, items);
  const blocks: unknown[] = [{ type: "header", text: plain(fitText(title, SLACK_LIMITS.header, slackEscape)) }];
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

export const slack: ChannelKind<SlackConfig, SlackMessage> = {
  configSchema: SlackConfigSchema,

  parse(input, origins) {
    const webhookUrl = text(input, "webhookUrl", MAX_URL_CHARS, "the incoming-webhook URL Slack shows");
    const url = parsedUrl(webhookUrl, "config.webhookUrl");
    if (isTestOrigin(url, origins.slackWebhookOrigin)) return { webhookUrl };
    if (
      url.protocol !== "https:" ||
      url.hostname !== "hooks.slack.com" ||
      url.port !== "" ||
      url.username ||
      url.password ||
      !SLACK_WEBHOOK_PATH.test(url.pathname)
    ) {
      throw new Invalid("config.webhookUrl", "must be a Slack incoming-webhook URL: https://hooks.slack.com/services/…");
    }
    return { webhookUrl };
  },

  secretFields: ["webhookUrl"],

  mask: (config) => ({ webhookUrl: maskUrl(config.webhookUrl) }),

  testReason: "Test alert, sent on request to check this Slack channel; a sample job, do not apply to it",
  renderAlert: slackAlert,
  renderOutcome: slackOutcome,
  renderNotice: slackNotice,
  renderDigest: slackDigest,

  async send(config, message, deps) {
    const secrets = webhookSecrets(config.webhookUrl);
    const attempt = await post(config.webhookUrl, message.body, {}, deps.timeoutMs, null);
    if ("outcome" in attempt) return withoutSecrets(attempt.outcome, secrets);
    const { reply } = attempt;
    if (reply.status >= 200 && reply.status < 300) return succeeded(reply.status);
    // Slack says what is wrong in plain words: no_service (webhook removed), channel_is_archived, invalid_blocks…
    const retryAfterMs = reply.status === 429 ? parseRetryAfter(reply.headers.get("retry-after"), deps.clock.now()) : null;
    return withoutSecrets(failed(reply.status, httpError("Slack", reply, null), isRetryableStatus(reply.status), retryAfterMs), secrets);
  },

  /** 1 per second per incoming webhook. */
  pace: (config) => [{ key: `slack:${sha256Hex(config.webhookUrl).slice(0, 16)}`, rules: [{ limit: 1, perMs: SECOND }] }],

  form: {
    label: "Slack",
    inText: "Slack",
    test: { what: "a sample alert to the Slack channel", taker: "Slack" },
    intro: "An incoming webhook posts to one Slack channel.",
    fields: [
      {
        name: "webhookUrl",
        label: "Webhook URL",
        help: "api.slack.com/apps → your app → Incoming Webhooks → Add New Webhook: https://hooks.slack.com/services/…",
        isRequired: true,
        isSecret: true,
      },
    ],
  },
};
