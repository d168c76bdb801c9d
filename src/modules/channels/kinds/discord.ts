/**
 * Discord: a channel webhook (https://discord.com/api/webhooks/<id>/<token>)
 * posts one embed per message, with mentions off. The hosts are fixed (or the
 * operator's test origin, JOBPILOT_DISCORD_WEBHOOK_ORIGIN), so it is a plain
 * fetch. The webhook's id is public (it names the webhook, and keys its
 * pace); the token after it is the secret.
 */
import { t } from "elysia";
import { sha256Hex } from "../../../lib/hash";
import { retryAfterMs as parseRetryAfter } from "../../../lib/retry-after";
import type { WebhookPayload } from "../../feeds/outbox-payload";
import type { AlertFacts, NoticeFacts, OutcomeFacts } from "../format";
import type { DigestContext, DigestItem } from "../render";
import { failed, httpError, isRetryableStatus, post, secondsToMs, succeeded, webhookSecrets, withoutSecrets } from "./http";
import { type ChannelKind, Invalid, isTestOrigin, MAX_URL_CHARS, MINUTE, maskUrl, parsedUrl, SECOND, text } from "./kind";
import { digestTitle, factLines, fitText, listDigest, MAX_TITLE } from "./text";

export interface DiscordConfig {
  webhookUrl: string;
}

export interface DiscordEmbed {
  title: string;
  url?: string;
  description: string;
  color: number;
  fields: { name: string; value: string; inline: boolean }[];
  footer?: { text: string };
  timestamp?: string;
}

/** The JSON body POSTed to a Discord webhook: one embed, mentions off. */
export interface DiscordMessage {
  type: "discord";
  body: { allowed_mentions: { parse: [] }; embeds: [DiscordEmbed] };
}

/** Discord's limits (characters). */
export const DISCORD_LIMITS = { title: 256, description: 4096, fieldValue: 1024, footer: 2048, embedTotal: 6000 } as const;

const DISCORD_WEBHOOK_PATH = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([A-Za-z0-9_-]+)$/;
const DISCORD_HOSTS = new Set(["discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"]);

const DiscordConfigSchema = t.Object(
  {
    webhookUrl: t.String({
      maxLength: MAX_URL_CHARS,
      description: "The channel webhook URL (`https://discord.com/api/webhooks/<id>/<token>`). Secret: shown masked after saving.",
    }),
  },
  { additionalProperties: false, description: "discord: a channel webhook." },
);

/** The Discord webhook's id (public: it names the webhook, the token after it is the secret). */
export function discordWebhookId(webhookUrl: string): string | null {
  const url = URL.parse(webhookUrl);
  return url === null ? null : (DISCORD_WEBHOOK_PATH.exec(url.pathname)?.[1] ?? null);
}

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
    title: fitText(f.title, DISCORD_LIMITS.title, discordEscape),
    ...(f.jobUrl === null ? {} : { url: f.jobUrl }),
    description: "",
    color: discordColor(f.matchingScore),
    fields: rest.filter(([label]) => label !== "Feed").map(([label, value]) => ({ name: label, value, inline: label !== "Client" && label !== "Skills" })),
    footer: { text: fitText(`Feed: ${f.feedTitle}`, DISCORD_LIMITS.footer, (s) => s.replace(/@(everyone|here)/gi, "@\u200d$1")) },
    ...(payload.publishTime === null ? {} : { timestamp: payload.publishTime }),
  };
  const head = `**${match![0]}:** ${match![1]}`;
  const room = Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.embedTotal - embedSize(embed)) - head.length - links.length - 4;
  embed.description = [head, fitText(f.description, room, discordEscape), links].filter((part) => part !== "").join("\n\n");
  return { type: "discord", body: discordBody(embed) };
}

function discordOutcome(f: OutcomeFacts): DiscordMessage {
  const links = [
    ...(f.jobUrl === null ? [] : [`[Open the job](${discordLinkUrl(f.jobUrl)})`]),
    ...(f.dashboardUrl === null ? [] : [`[Open in jobpilot](${discordLinkUrl(f.dashboardUrl)})`]),
  ].join(" · ");
  const embed: DiscordEmbed = {
    title: fitText(f.headline, DISCORD_LIMITS.title, discordEscape),
    ...(f.jobUrl === null ? {} : { url: f.jobUrl }),
    description: links,
    color: discordColor(f.stage === "viewed" ? 5 : 10),
    fields: f.lines.map(([label, value]) => ({ name: label, value: discordEscape(value), inline: true })),
    footer: { text: fitText(`Feed: ${f.feedTitle}`, DISCORD_LIMITS.footer, (s) => s.replace(/@(everyone|here)/gi, "@\u200d$1")) },
  };
  return { type: "discord", body: discordBody(embed) };
}

function discordNotice(f: NoticeFacts): DiscordMessage {
  const links = [
    ...(f.jobUrl === null ? [] : [`[Open the job](${discordLinkUrl(f.jobUrl)})`]),
    ...(f.dashboardUrl === null ? [] : [`[${f.dashboardLabel}](${discordLinkUrl(f.dashboardUrl)})`]),
  ].join(" · ");
  const room = DISCORD_LIMITS.description - links.length - 2;
  const body = f.body === null || f.body === "" ? "" : fitText(f.body, Math.min(room, 3000), discordEscape);
  const embed: DiscordEmbed = {
    title: fitText(f.headline, DISCORD_LIMITS.title, discordEscape),
    ...(f.dashboardUrl === null ? {} : { url: f.dashboardUrl }),
    description: [body, links].filter((part) => part !== "").join("\n\n"),
    color: discordColor(f.event === "application.held" ? 5 : 0),
    fields: f.lines.map(([label, value]) => ({ name: label, value: fitText(value, DISCORD_LIMITS.fieldValue, discordEscape), inline: true })),
    footer: { text: fitText(`Feed: ${f.feedTitle}`, DISCORD_LIMITS.footer, (s) => s.replace(/@(everyone|here)/gi, "@\u200d$1")) },
  };
  return { type: "discord", body: discordBody(embed) };
}

function discordDigest(items: DigestItem[], ctx: DigestContext): DiscordMessage {
  const total = items.length + ctx.more;
  return listDigest(items, ctx, DISCORD_LIMITS.description, (text) => text.length, {
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
        title: fitText(digestTitle(total, items), DISCORD_LIMITS.title, discordEscape),
        description: text.trim(),
        color: discordColor(10),
        fields: [],
      }),
    }),
  });
}

export const discord: ChannelKind<DiscordConfig, DiscordMessage> = {
  configSchema: DiscordConfigSchema,

  parse(input, origins) {
    const webhookUrl = text(input, "webhookUrl", MAX_URL_CHARS, "the webhook URL Discord shows");
    const url = parsedUrl(webhookUrl, "config.webhookUrl");
    const isKnownHost = url.protocol === "https:" && DISCORD_HOSTS.has(url.hostname) && url.port === "";
    if (!(isKnownHost || isTestOrigin(url, origins.discordWebhookOrigin)) || url.username || url.password || !DISCORD_WEBHOOK_PATH.test(url.pathname)) {
      throw new Invalid("config.webhookUrl", "must be a Discord webhook URL: https://discord.com/api/webhooks/<id>/<token>");
    }
    // ?thread_id=… posts into a forum thread; anything else (?wait) is ours to set.
    for (const key of url.searchParams.keys()) {
      if (key !== "thread_id" || !/^\d+$/.test(url.searchParams.get(key) ?? "")) {
        throw new Invalid("config.webhookUrl", "may carry only ?thread_id=<numeric id> as a query");
      }
    }
    if (url.hash) throw new Invalid("config.webhookUrl", "must not have a #fragment");
    return { webhookUrl };
  },

  secretFields: ["webhookUrl"],

  mask: (config) => ({ webhookUrl: maskUrl(config.webhookUrl) }),

  testReason: "Test alert, sent on request to check this Discord channel; a sample job, do not apply to it",
  renderAlert: discordAlert,
  renderOutcome: discordOutcome,
  renderNotice: discordNotice,
  renderDigest: discordDigest,

  async send(config, message, deps) {
    const secrets = webhookSecrets(config.webhookUrl);
    // ?wait=true makes Discord answer with the message (its id) instead of 204, and report errors it would otherwise swallow.
    const url = new URL(config.webhookUrl);
    url.searchParams.set("wait", "true");
    const attempt = await post(url.href, message.body, {}, deps.timeoutMs, null);
    if ("outcome" in attempt) return withoutSecrets(attempt.outcome, [url.href, ...secrets]);
    const { reply } = attempt;
    const json = (reply.json ?? {}) as { id?: unknown; message?: unknown; retry_after?: unknown };
    if (reply.status >= 200 && reply.status < 300) return succeeded(reply.status, typeof json.id === "string" ? json.id : undefined);
    const retryAfterMs = reply.status === 429 ? (secondsToMs(json.retry_after) ?? parseRetryAfter(reply.headers.get("retry-after"), deps.clock.now())) : null;
    return withoutSecrets(failed(reply.status, httpError("Discord", reply, json.message), isRetryableStatus(reply.status), retryAfterMs), [
      url.href,
      ...secrets,
    ]);
  },

  /**
   * 5 per 2 seconds per webhook (its rate-limit headers), and 30 per minute per webhook, the per-channel limit
   * Discord applies to webhook posts.
   */
  pace: (config) => [
    {
      key: `discord:${discordWebhookId(config.webhookUrl) ?? sha256Hex(config.webhookUrl).slice(0, 16)}`,
      rules: [
        { limit: 5, perMs: 2 * SECOND },
        { limit: 30, perMs: MINUTE },
      ],
    },
  ],

  form: {
    label: "Discord",
    inText: "Discord",
    test: { what: "a sample alert to the Discord channel", taker: "Discord" },
    intro: "A channel webhook posts one embed per job; nothing in a job can ping anyone.",
    fields: [
      {
        name: "webhookUrl",
        label: "Webhook URL",
        help: "Edit Channel → Integrations → Webhooks → New Webhook → Copy Webhook URL: https://discord.com/api/webhooks/…",
        isRequired: true,
        isSecret: true,
      },
    ],
  },
};
