/**
 * The request and response shapes of /api/v1/channels (kinds/ holds each
 * kind's config and messages). Each kind's config is checked by
 * validateChannelConfig, whose messages name the field; the schema here only
 * says it is an object, and documents the kinds (their lists built from the
 * kinds, so a new kind shows up here by itself).
 */
import { t } from "elysia";
import { CHANNEL_MODES } from "../../db/enums";
import { literalUnion } from "../../http/schemas";
import { CHANNEL_KINDS } from "./kinds/index";
import { CHANNEL_TYPES, ChannelTypeSchema, listInWords } from "./model";

/** Each kind's config fields as the description lists them: `ntfy {serverUrl?, topic, …}`, optional ones marked `?`. */
const kindSettings = CHANNEL_TYPES.map((type) => {
  const schema = CHANNEL_KINDS[type].configSchema;
  const fields = Object.keys(schema.properties).map((field) => (schema.required?.includes(field) ? field : `${field}?`));
  return `${type} {${fields.join(", ")}}`;
}).join("; ");

/** The kinds whose config has the private-network opt-in (those with a user-chosen server). */
const privateNetworkKinds = listInWords(
  CHANNEL_TYPES.filter((type) => "allowPrivateNetwork" in CHANNEL_KINDS[type].configSchema.properties),
  "and",
);

/** Most channels one account may have. */
export const MAX_CHANNELS_PER_ACCOUNT = 50;

const ChannelMode = literalUnion(CHANNEL_MODES, {
  description: "instant (default): one message per matched job. digest: one message every digestEvery listing the window's jobs.",
});

export const DIGEST_EVERY_PATTERN = "^[1-9][0-9]{0,3}(m|h)$";
const DigestEvery = t.String({
  pattern: DIGEST_EVERY_PATTERN,
  description: 'Digest mode: how often a digest goes out, "15m" to "24h" (minutes or hours). Default "1h" when mode is digest.',
  error: 'digestEvery must be minutes or hours like "15m" or "1h", between 5m and 24h',
});

const ClockTime = (what: string) =>
  t.String({
    pattern: "^([01][0-9]|2[0-3]):[0-5][0-9]$",
    description: `${what}, HH:MM (24 h)`,
    error: `quietHours: ${what.toLowerCase()} must be HH:MM (24 h)`,
  });

export const QuietHours = t.Object(
  {
    from: ClockTime("Start"),
    to: ClockTime("End"),
    timeZone: t.String({ minLength: 1, maxLength: 64, description: "IANA time zone, e.g. Europe/Berlin." }),
  },
  {
    additionalProperties: false,
    description: "Hours in which instant alerts are held and sent as one digest when they end; may span midnight (22:00 to 07:00).",
  },
);

const ConfigInput = t.Record(t.String(), t.Unknown(), {
  description:
    `The kind's settings: ${kindSettings}. ` +
    "allowPrivateNetwork (boolean, default false) lets an ntfy or SMTP server on your own network (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) be used; loopback and link-local stay refused. " +
    "On PATCH only the given fields change, and a secret sent back as it is shown (masked) keeps the stored one.",
});

const Name = t.String({ minLength: 1, maxLength: 100, description: "Your name for the channel, e.g. “Phone” or “#leads”." });

/** What a client may write; on create type, name and config are required. */
const channelFields = {
  type: ChannelTypeSchema,
  name: Name,
  config: ConfigInput,
  mode: ChannelMode,
  digestEvery: t.Nullable(DigestEvery),
  quietHours: t.Nullable(QuietHours),
};
const { type, name, config, ...deliveryFields } = channelFields;

export const CreateChannelBody = t.Object({ type, name, config, ...t.Partial(t.Object(deliveryFields)).properties }, { title: "ChannelCreate" });
export type CreateChannelBody = typeof CreateChannelBody.static;

/** `type` may be sent back (a form does) but cannot change. */
export const PatchChannelBody = t.Partial(t.Object(channelFields), { title: "ChannelPatch" });
export type PatchChannelBody = typeof PatchChannelBody.static;

export const Channel = t.Object(
  {
    id: t.String({ format: "uuid" }),
    type: ChannelTypeSchema,
    name: t.String(),
    config: t.Record(t.String(), t.Union([t.String(), t.Boolean(), t.Null()]), {
      description:
        "The kind's settings (as on create) with every secret masked: bot tokens and ntfy tokens as ••••abcd, webhook URLs as their origin and ••••, the SMTP password as ••••. Never returned in full. " +
        `allowPrivateNetwork: true appears on ${privateNetworkKinds} channels that allow a private-network server.`,
    }),
    mode: ChannelMode,
    digestEvery: t.Nullable(t.String()),
    quietHours: t.Nullable(QuietHours),
    createdAt: t.Integer({ description: "Unix ms" }),
    lastDeliveryAt: t.Nullable(t.Integer({ description: "Unix ms of the newest alert delivered" })),
    lastError: t.Nullable(t.String({ description: "Why the newest failed attempt failed; cleared by the next delivery" })),
  },
  { title: "Channel" },
);
export type Channel = typeof Channel.static;

export const ChannelParams = t.Object({ channelId: t.String({ maxLength: 100 }) });
export const ChannelEnvelope = t.Object({ channel: Channel });
export const ChannelList = t.Object({ channels: t.Array(Channel) });
export const ChannelDeleted = t.Object({ deleted: t.Literal(true), channelId: t.String() });

export const ChannelTestResult = t.Object(
  {
    ok: t.Boolean({ description: "The platform accepted the sample alert." }),
    statusCode: t.Nullable(t.Integer({ description: "The platform's HTTP status (SMTP reply code for e-mail); null when no answer came." })),
    error: t.Nullable(t.String({ description: "Why it failed, with no secret in it." })),
    retryAfterMs: t.Nullable(t.Integer({ description: "The platform asked to wait this long before the next message." })),
    messageId: t.Optional(t.String({ description: "The platform's id of the sent message, when it gives one." })),
    durationMs: t.Integer(),
  },
  { title: "ChannelTestResult" },
);
export type ChannelTestResult = typeof ChannelTestResult.static;
