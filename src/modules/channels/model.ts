/**
 * Notification channels: the five kinds, the settings ("config") each needs,
 * how a config is checked and normalised at save time, and how it is shown
 * back (secrets masked). Pure: no database, no network, so the API, the
 * deliverer and the dashboard share one definition.
 *
 * The TypeBox schemas document each kind's config on the OpenAPI page; the
 * checks with messages a person can act on are in validateChannelConfig (a
 * schema alone would answer "must match pattern"), and a test keeps the two
 * in agreement.
 */
import { t } from "elysia";
import { literalUnion } from "../../http/schemas";

// The kinds are kept with the schema's enums (the channels table's type column needs them too).
import { CHANNEL_TYPES, type ChannelType } from "../../db/enums";
export { CHANNEL_TYPES, type ChannelType };

/**
 * The IANA zone names quiet hours accept: the ones this runtime knows, plus "UTC" (which
 * supportedValuesOf may leave out). Read on first use (~5 ms, kept off the binary's start).
 */
let timeZones: readonly string[] | undefined;
export function timeZoneNames(): readonly string[] {
  if (!timeZones) {
    const known = Intl.supportedValuesOf("timeZone");
    timeZones = known.includes("UTC") ? known : [...known, "UTC"];
  }
  return timeZones;
}

/**
 * An exact zone name, not whatever Intl.DateTimeFormat would take: it also takes "est", "europe/berlin"
 * and other spellings that the quiet-hours form would then show back as if they were names.
 */
export function isTimeZone(name: string): boolean {
  return timeZoneNames().includes(name);
}

export function isChannelType(value: unknown): value is ChannelType {
  return typeof value === "string" && (CHANNEL_TYPES as readonly string[]).includes(value);
}

export const ChannelTypeSchema = literalUnion(CHANNEL_TYPES, { description: "Where alerts go: telegram, slack, discord, ntfy or email." });

export const DEFAULT_NTFY_SERVER = "https://ntfy.sh";

const TELEGRAM_TOKEN = /^\d+:[A-Za-z0-9_-]{30,}$/;
const TELEGRAM_CHAT_ID = /^-?\d{1,20}$/;
/** A public channel or group by its username (Telegram: 5 to 32 letters, digits and underscores). */
const TELEGRAM_CHAT_NAME = /^@[A-Za-z][A-Za-z0-9_]{3,31}$/;
const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
const DISCORD_WEBHOOK_PATH = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([A-Za-z0-9_-]+)$/;
const SLACK_WEBHOOK_PATH = /^\/(?:services|workflows|triggers)\/[^?#]+$/;
const DISCORD_HOSTS = new Set(["discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"]);

const MAX_URL_CHARS = 2048;

/**
 * The per-channel opt-in for a user-chosen server (ntfy, SMTP) on the user's own network. It admits the
 * address ranges a home or office LAN uses, and nothing else: loopback, link-local (cloud metadata lives at
 * 169.254.169.254) and the other special ranges stay refused unless the operator allows private addresses
 * server-wide, because they reach jobpilot's own machine rather than the user's network.
 */
export const PRIVATE_NETWORK_CIDRS = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"] as const;

const AllowPrivateNetwork = (server: string) =>
  t.Optional(
    t.Boolean({
      description:
        `true: the ${server} may be on a private network (10/8, 172.16/12, 192.168/16, CGNAT 100.64/10, IPv6 unique local fc00::/7), e.g. a server on your LAN. ` +
        "Loopback, link-local and other special addresses stay refused unless the server allows private addresses for all webhooks. Default false.",
    }),
  );
const MAX_RECIPIENTS = 20;

export const TelegramConfigSchema = t.Object(
  {
    botToken: t.String({
      maxLength: 256,
      pattern: TELEGRAM_TOKEN.source,
      description: "The bot's token from @BotFather (`123456789:AA…`). Secret: shown masked after saving.",
    }),
    chatId: t.Union([t.String({ maxLength: 33 }), t.Integer()], {
      description: "Who receives the alerts: a user's or group's numeric id (groups and channels are negative) or a public channel's `@username`.",
    }),
  },
  { additionalProperties: false, description: "telegram: a bot and the chat it writes to." },
);

export const SlackConfigSchema = t.Object(
  {
    webhookUrl: t.String({
      maxLength: MAX_URL_CHARS,
      description: "The incoming-webhook URL (`https://hooks.slack.com/services/…`). Secret: shown masked after saving.",
    }),
  },
  { additionalProperties: false, description: "slack: an incoming webhook." },
);

export const DiscordConfigSchema = t.Object(
  {
    webhookUrl: t.String({
      maxLength: MAX_URL_CHARS,
      description: "The channel webhook URL (`https://discord.com/api/webhooks/<id>/<token>`). Secret: shown masked after saving.",
    }),
  },
  { additionalProperties: false, description: "discord: a channel webhook." },
);

export const NtfyConfigSchema = t.Object(
  {
    serverUrl: t.Optional(t.String({ maxLength: MAX_URL_CHARS, description: `The ntfy server (http or https); default ${DEFAULT_NTFY_SERVER}.` })),
    topic: t.String({ pattern: NTFY_TOPIC.source, description: "The topic to publish to: 1 to 64 letters, digits, `-` and `_`." }),
    token: t.Optional(t.Nullable(t.String({ maxLength: 512, description: "An access token (`tk_…`) for a protected topic. Secret: shown masked." }))),
    allowPrivateNetwork: AllowPrivateNetwork("ntfy server"),
  },
  { additionalProperties: false, description: "ntfy: a topic on a public or self-hosted ntfy server." },
);

export const EmailConfigSchema = t.Object(
  {
    smtpUrl: t.String({
      maxLength: MAX_URL_CHARS,
      description:
        "`smtps://user:password@host:465` (TLS from the start) or `smtp://user:password@host:587` (STARTTLS when the server offers it); user and password URL-encoded. The password is shown masked.",
    }),
    from: t.String({ maxLength: 320, description: "Sender address, optionally with a name: `jobpilot <alerts@example.com>`." }),
    to: t.String({ maxLength: 4000, description: `Recipient address, or several separated by commas (at most ${MAX_RECIPIENTS}).` }),
    allowPrivateNetwork: AllowPrivateNetwork("SMTP server"),
  },
  { additionalProperties: false, description: "email: an SMTP server and the addresses alerts go from and to." },
);

/** One schema per kind, for the OpenAPI page and for callers that pick the kind's schema. */
export const CHANNEL_CONFIG_SCHEMAS = {
  telegram: TelegramConfigSchema,
  slack: SlackConfigSchema,
  discord: DiscordConfigSchema,
  ntfy: NtfyConfigSchema,
  email: EmailConfigSchema,
} as const;

/** A config as validateChannelConfig returns it (and as it is stored): every field present, in one spelling. */
export interface TelegramConfig {
  botToken: string;
  /** Always a string: "123456789", "-1001234567890" or "@channelname". */
  chatId: string;
}
export interface SlackConfig {
  webhookUrl: string;
}
export interface DiscordConfig {
  webhookUrl: string;
}
export interface NtfyConfig {
  /** Without a trailing slash; DEFAULT_NTFY_SERVER when none was given. */
  serverUrl: string;
  topic: string;
  token: string | null;
  /** Present (true) only when the server may be on a private network: see PRIVATE_NETWORK_CIDRS. */
  allowPrivateNetwork?: true;
}
export interface EmailConfig {
  smtpUrl: string;
  from: string;
  /** One address or several joined by ", ". */
  to: string;
  /** Present (true) only when the SMTP server may be on a private network: see PRIVATE_NETWORK_CIDRS. */
  allowPrivateNetwork?: true;
}

export interface ChannelConfigs {
  telegram: TelegramConfig;
  slack: SlackConfig;
  discord: DiscordConfig;
  ntfy: NtfyConfig;
  email: EmailConfig;
}
export type ChannelConfig<T extends ChannelType = ChannelType> = ChannelConfigs[T];

/** A channel as the platform code needs it: its kind and its (decrypted, validated) config. */
export type ChannelTarget = { [K in ChannelType]: { type: K; config: ChannelConfigs[K] } }[ChannelType];

/** What one attempt to send a message came to. Errors never contain a token, password or webhook URL. */
export interface SendOutcome {
  ok: boolean;
  /** The HTTP status, or the SMTP reply code for e-mail; null when no answer came (timeout, refused connection, blocked address). */
  statusCode: number | null;
  /** The platform said when to try again (Telegram `parameters.retry_after`, Discord `retry_after`, Slack and ntfy `Retry-After`). */
  retryAfterMs: number | null;
  error: string | null;
  /**
   * Whether trying again later can help: false when the platform refused the message or the settings for
   * good (a 4xx other than 408/429, an SMTP 5xx, a rejected login, a blocked address).
   */
  isRetryable: boolean;
  /** The platform's id of the sent message (Telegram message_id, Discord message id, ntfy id, SMTP Message-ID). */
  messageId?: string;
}

/**
 * Test-only origins that stand in for hooks.slack.com and discord.com (settings JOBPILOT_SLACK_WEBHOOK_ORIGIN,
 * JOBPILOT_DISCORD_WEBHOOK_ORIGIN); empty strings in production.
 */
export interface WebhookOrigins {
  slackWebhookOrigin: string;
  discordWebhookOrigin: string;
}

const NO_TEST_ORIGINS: WebhookOrigins = { slackWebhookOrigin: "", discordWebhookOrigin: "" };

export type ConfigCheck<T extends ChannelType = ChannelType> = { ok: true; config: ChannelConfigs[T] } | { ok: false; field: string; message: string };

class Invalid extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field} ${message}`);
  }
}

const KNOWN_FIELDS: Record<ChannelType, readonly string[]> = {
  telegram: ["botToken", "chatId"],
  slack: ["webhookUrl"],
  discord: ["webhookUrl"],
  ntfy: ["serverUrl", "topic", "token", "allowPrivateNetwork"],
  email: ["smtpUrl", "from", "to", "allowPrivateNetwork"],
};

/**
 * Checks a channel's config at save time and returns it normalised (trimmed, defaults filled, chat id as a
 * string), or the first bad field as `config.<name>` with a message that names it and says what is wanted.
 * Sync and offline: whether a user-chosen host (ntfy server, SMTP server) is an allowed address is checked
 * on top by checkChannelDestination (send.ts).
 */
export function validateChannelConfig<T extends ChannelType>(type: T, config: unknown, origins: WebhookOrigins = NO_TEST_ORIGINS): ConfigCheck<T> {
  try {
    if (typeof config !== "object" || config === null || Array.isArray(config)) throw new Invalid("config", "must be an object");
    const input = config as Record<string, unknown>;
    for (const key of Object.keys(input)) {
      if (!KNOWN_FIELDS[type].includes(key)) throw new Invalid(`config.${key}`, `is not a ${type} setting (expected ${KNOWN_FIELDS[type].join(", ")})`);
    }
    return { ok: true, config: NORMALISE[type](input, origins) as ChannelConfigs[T] };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, field: err.field, message: err.message };
    throw err;
  }
}

function text(input: Record<string, unknown>, key: string, max: number, what: string): string {
  const value = input[key];
  if (value === undefined || value === null) throw new Invalid(`config.${key}`, `is required (${what})`);
  if (typeof value !== "string") throw new Invalid(`config.${key}`, `must be a string (${what})`);
  const trimmed = value.trim();
  if (trimmed === "") throw new Invalid(`config.${key}`, `must not be empty (${what})`);
  if (trimmed.length > max) throw new Invalid(`config.${key}`, `must be at most ${max} characters`);
  return trimmed;
}

/** The private-network opt-in as stored: `{ allowPrivateNetwork: true }` when on, nothing when off or absent. */
function privateNetworkFlag(input: Record<string, unknown>): { allowPrivateNetwork?: true } {
  const value = input.allowPrivateNetwork;
  if (value === undefined || value === null || value === false) return {};
  if (value !== true) throw new Invalid("config.allowPrivateNetwork", "must be true or false");
  return { allowPrivateNetwork: true };
}

function parsedUrl(raw: string, field: string): URL {
  const url = URL.parse(raw);
  if (url === null) throw new Invalid(field, "must be an absolute URL");
  return url;
}

const NORMALISE: { [K in ChannelType]: (input: Record<string, unknown>, origins: WebhookOrigins) => ChannelConfigs[K] } = {
  telegram(input) {
    const botToken = text(input, "botToken", 256, "the token @BotFather gave the bot");
    if (!TELEGRAM_TOKEN.test(botToken)) throw new Invalid("config.botToken", "must be a bot token as @BotFather gives it, like 123456789:AAF1x…");
    const raw = input.chatId;
    let chatId: string;
    if (typeof raw === "number") {
      if (!Number.isSafeInteger(raw)) throw new Invalid("config.chatId", "must be a whole number");
      chatId = String(raw);
    } else chatId = text(input, "chatId", 33, "a numeric chat id or a channel's @username");
    if (!TELEGRAM_CHAT_ID.test(chatId) && !TELEGRAM_CHAT_NAME.test(chatId)) {
      throw new Invalid("config.chatId", "must be a numeric chat id (groups and channels are negative, e.g. -1001234567890) or a public channel's @username");
    }
    return { botToken, chatId };
  },

  slack(input, origins) {
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

  discord(input, origins) {
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

  ntfy(input) {
    let serverUrl = DEFAULT_NTFY_SERVER;
    if (input.serverUrl !== undefined && input.serverUrl !== null && input.serverUrl !== "") {
      const raw = text(input, "serverUrl", MAX_URL_CHARS, "the ntfy server's address");
      const url = parsedUrl(raw, "config.serverUrl");
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Invalid("config.serverUrl", "must be an http or https URL");
      if (url.username || url.password) throw new Invalid("config.serverUrl", "must not contain a user or password (use config.token)");
      if (url.search || url.hash) throw new Invalid("config.serverUrl", "must not have a ?query or #fragment");
      serverUrl = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
    }
    const topic = text(input, "topic", 64, "the topic to publish to");
    if (!NTFY_TOPIC.test(topic)) throw new Invalid("config.topic", "must be 1 to 64 letters, digits, '-' or '_'");
    let token: string | null = null;
    if (input.token !== undefined && input.token !== null && input.token !== "") {
      token = text(input, "token", 512, "an ntfy access token");
      if (!/^[\x21-\x7e]+$/.test(token)) throw new Invalid("config.token", "must be printable ASCII without spaces");
    }
    return { serverUrl, topic, token, ...privateNetworkFlag(input) };
  },

  email(input) {
    const smtpUrl = text(input, "smtpUrl", MAX_URL_CHARS, "smtps://user:password@host:465 or smtp://user:password@host:587");
    parseSmtpUrl(smtpUrl, "config.smtpUrl");
    const from = text(input, "from", 320, "the sender address");
    if (parseMailbox(from) === null) throw new Invalid("config.from", "must be an e-mail address, optionally with a name: jobpilot <alerts@example.com>");
    const to = text(input, "to", 4000, "one or more comma-separated addresses")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "");
    if (to.length === 0) throw new Invalid("config.to", "must name at least one address");
    if (to.length > MAX_RECIPIENTS) throw new Invalid("config.to", `must name at most ${MAX_RECIPIENTS} addresses`);
    for (const address of to)
      if (parseMailbox(address) === null) throw new Invalid("config.to", `has an invalid address: ${JSON.stringify(address.slice(0, 100))}`);
    return { smtpUrl, from, to: to.join(", "), ...privateNetworkFlag(input) };
  },
};

function isTestOrigin(url: URL, origin: string): boolean {
  return origin !== "" && url.origin === origin.replace(/\/+$/, "");
}

/** An SMTP URL taken apart: how to connect and log in. */
export interface SmtpTarget {
  /** smtps: TLS from the first byte (default port 465); smtp: plain, upgraded by STARTTLS when offered (default 587). */
  isImplicitTls: boolean;
  hostname: string;
  port: number;
  user: string | null;
  password: string | null;
}

/** Parses an smtp:// or smtps:// URL; throws a field error (for validation) when it is not one. */
function parseSmtpUrl(raw: string, field: string): SmtpTarget {
  const url = parsedUrl(raw, field);
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") throw new Invalid(field, "must start with smtps:// (TLS) or smtp:// (STARTTLS)");
  // Non-special schemes keep the host as written: the brackets of an IPv6 literal stay on.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (hostname === "") throw new Invalid(field, "must name the server: smtps://user:password@smtp.example.com:465");
  if (url.pathname !== "" && url.pathname !== "/") throw new Invalid(field, "must not have a path");
  if (url.search || url.hash) throw new Invalid(field, "must not have a ?query or #fragment");
  const isImplicitTls = url.protocol === "smtps:";
  const port = url.port === "" ? (isImplicitTls ? 465 : 587) : Number(url.port);
  let user: string | null = null;
  let password: string | null = null;
  try {
    user = url.username === "" ? null : decodeURIComponent(url.username);
    password = url.password === "" ? null : decodeURIComponent(url.password);
  } catch {
    throw new Invalid(field, "has a user or password with a broken %-escape");
  }
  if (password !== null && user === null) throw new Invalid(field, "has a password but no user");
  return { isImplicitTls, hostname, port, user, password };
}

/** The SMTP URL of a validated email config, taken apart. */
export function smtpTarget(config: EmailConfig): SmtpTarget {
  return parseSmtpUrl(config.smtpUrl, "config.smtpUrl");
}

const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/** "a@b.c" or "Name <a@b.c>" → its address and name; null when it is neither. */
export function parseMailbox(text: string): { name: string | null; address: string } | null {
  const named = /^([^<>"\r\n\\,;]*)<([^<>\s]+)>$/.exec(text.trim());
  const name = named ? named[1]!.trim() || null : null;
  const address = named ? named[2]! : text.trim();
  const at = address.lastIndexOf("@");
  if (at <= 0 || address.length > 254) return null;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local) || !DOMAIN.test(domain)) return null;
  return { name, address };
}

// ---------------------------------------------------------------------------
// Secrets

/** The config fields that hold a secret (whole or in part): never returned or logged as they are. */
export function secretFields(type: ChannelType): readonly string[] {
  return SECRET_FIELDS[type];
}

const SECRET_FIELDS: Record<ChannelType, readonly string[]> = {
  telegram: ["botToken"],
  slack: ["webhookUrl"],
  discord: ["webhookUrl"],
  ntfy: ["token"],
  email: ["smtpUrl"],
};

export const MASK = "••••";

/**
 * A secret as it may be shown: "••••" and, for long secrets, their last 4 characters so a person can tell two
 * apart ("••••x9Qa"). Short ones (passwords) show nothing of themselves.
 */
export function maskSecret(secret: string): string {
  return secret.length >= 16 ? `${MASK}${secret.slice(-4)}` : MASK;
}

/** A webhook URL as it may be shown: its origin, then the masked path ("https://hooks.slack.com/••••Xy12"). */
function maskUrl(raw: string): string {
  const url = URL.parse(raw);
  return url === null ? maskSecret(raw) : `${url.origin}/${maskSecret(url.pathname + url.search)}`;
}

/** The SMTP URL with its password masked; user, host and port stay readable. */
function maskSmtpUrl(raw: string): string {
  const url = URL.parse(raw);
  if (url === null) return MASK;
  const user = url.username ? `${url.username}${url.password ? `:${MASK}` : ""}@` : "";
  return `${url.protocol}//${user}${url.host}`;
}

/** The config with every secret masked: what API responses, the dashboard and logs show. */
export function maskConfig<T extends ChannelType>(type: T, config: ChannelConfigs[T]): ChannelConfigs[T] {
  const target = { type, config } as ChannelTarget;
  switch (target.type) {
    case "telegram":
      return { botToken: maskSecret(target.config.botToken), chatId: target.config.chatId } satisfies TelegramConfig as ChannelConfigs[T];
    case "slack":
    case "discord":
      return { webhookUrl: maskUrl(target.config.webhookUrl) } as ChannelConfigs[T];
    case "ntfy":
      return {
        serverUrl: target.config.serverUrl,
        topic: target.config.topic,
        token: target.config.token === null ? null : maskSecret(target.config.token),
        ...(target.config.allowPrivateNetwork ? { allowPrivateNetwork: true as const } : {}),
      } satisfies NtfyConfig as ChannelConfigs[T];
    case "email":
      return {
        smtpUrl: maskSmtpUrl(target.config.smtpUrl),
        from: target.config.from,
        to: target.config.to,
        ...(target.config.allowPrivateNetwork ? { allowPrivateNetwork: true as const } : {}),
      } satisfies EmailConfig as ChannelConfigs[T];
  }
}

/** The Discord webhook's id (public: it names the webhook, the token after it is the secret). */
export function discordWebhookId(webhookUrl: string): string | null {
  const url = URL.parse(webhookUrl);
  return url === null ? null : (DISCORD_WEBHOOK_PATH.exec(url.pathname)?.[1] ?? null);
}

/** The bot's numeric id: the part of its token before the colon, which Telegram shows publicly. */
export function telegramBotId(botToken: string): string {
  return botToken.slice(0, Math.max(0, botToken.indexOf(":")));
}

/** Whether the chat is a group or channel (negative id or @username) rather than a private chat with one user. */
export function isTelegramGroupChat(chatId: string): boolean {
  return chatId.startsWith("-") || chatId.startsWith("@");
}

// ---------------------------------------------------------------------------
// Rendered messages (render.ts builds them, send.ts sends them)

/** Telegram sendMessage in HTML parse mode. `replyMarkup` (inline buttons) is passed through as given. */
export interface TelegramMessage {
  type: "telegram";
  /** HTML parse-mode text, at most 4,096 characters. */
  text: string;
  replyMarkup?: unknown;
}

/** The JSON body POSTed to a Slack incoming webhook. */
export interface SlackMessage {
  type: "slack";
  body: { text: string; blocks: unknown[]; mrkdwn: false; unfurl_links: false; unfurl_media: false };
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

export interface NtfyAction {
  action: "view";
  label: string;
  url: string;
  clear?: boolean;
}

/** An ntfy publish (JSON form; the topic is added from the channel's config). Plain text, no markdown. */
export interface NtfyMessage {
  type: "ntfy";
  title: string;
  message: string;
  /** 1 (min) to 5 (max, "urgent"). */
  priority: 1 | 2 | 3 | 4 | 5;
  tags: string[];
  click: string | null;
  actions: NtfyAction[];
}

/** A multipart e-mail: the same content as plain text and as HTML. */
export interface EmailMessage {
  type: "email";
  subject: string;
  text: string;
  html: string;
}

export interface ChannelMessages {
  telegram: TelegramMessage;
  slack: SlackMessage;
  discord: DiscordMessage;
  ntfy: NtfyMessage;
  email: EmailMessage;
}
export type ChannelMessage<T extends ChannelType = ChannelType> = ChannelMessages[T];
