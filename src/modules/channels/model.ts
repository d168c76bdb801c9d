/**
 * Notification channels, whatever their kind: the types, a config checked
 * and normalised at save time, and shown back with its secrets masked. Each
 * kind's own settings, messages and sending are one file under kinds/; this
 * file dispatches to them. Pure: no database, no network, so the API, the
 * deliverer and the dashboard share one definition.
 */
import { literalUnion } from "../../http/schemas";
import { type ChannelConfigs, type ChannelMessages, CHANNEL_KINDS, kindOf } from "./kinds/index";
import { Invalid } from "./kinds/kind";

// The kinds are kept with the schema's enums (the channels table's type column needs them too).
import { CHANNEL_TYPES, type ChannelType } from "../../db/enums";
export { CHANNEL_TYPES, type ChannelType, type ChannelConfigs, type ChannelMessages };

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

/** Words in a sentence, "a, b or c" (or "a and b"): the kinds named in descriptions, built from the kinds themselves. */
export function listInWords(words: readonly string[], conjunction: "or" | "and" = "or"): string {
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} ${conjunction} ${words.at(-1)}`;
}

export const ChannelTypeSchema = literalUnion(CHANNEL_TYPES, { description: `Where alerts go: ${listInWords(CHANNEL_TYPES)}.` });

/** One schema per kind, for the OpenAPI page and for callers that pick the kind's schema. */
export const CHANNEL_CONFIG_SCHEMAS = Object.fromEntries(CHANNEL_TYPES.map((type) => [type, CHANNEL_KINDS[type].configSchema])) as {
  [K in ChannelType]: (typeof CHANNEL_KINDS)[K]["configSchema"];
};

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

/**
 * Checks a channel's config at save time and returns it normalised (trimmed, defaults filled, chat id as a
 * string), or the first bad field as `config.<name>` with a message that names it and says what is wanted.
 * Sync and offline: whether a user-chosen host (ntfy server, SMTP server) is an allowed address is checked
 * on top by checkChannelDestination (send.ts).
 */
export function validateChannelConfig<T extends ChannelType>(type: T, config: unknown, origins: WebhookOrigins = NO_TEST_ORIGINS): ConfigCheck<T> {
  const kind = kindOf(type);
  try {
    if (typeof config !== "object" || config === null || Array.isArray(config)) throw new Invalid("config", "must be an object");
    const input = config as Record<string, unknown>;
    const known = Object.keys(kind.configSchema.properties);
    for (const key of Object.keys(input)) {
      if (!known.includes(key)) throw new Invalid(`config.${key}`, `is not a ${type} setting (expected ${known.join(", ")})`);
    }
    return { ok: true, config: kind.parse(input, origins) };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, field: err.field, message: err.message };
    throw err;
  }
}

// ---------------------------------------------------------------------------
// Secrets

/** The config fields that hold a secret (whole or in part): never returned or logged as they are. */
export function secretFields(type: ChannelType): readonly string[] {
  return CHANNEL_KINDS[type].secretFields;
}

/** The config with every secret masked: what API responses, the dashboard and logs show. */
export function maskConfig<T extends ChannelType>(type: T, config: ChannelConfigs[T]): ChannelConfigs[T] {
  return kindOf(type).mask(config);
}

export type ChannelMessage<T extends ChannelType = ChannelType> = ChannelMessages[T];
