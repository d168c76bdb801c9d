/**
 * What a notification channel kind is (ChannelKind), and the parts every kind
 * builds its config checks and masking from. Each kind is one file beside this
 * one (telegram.ts, slack.ts, …) exporting one ChannelKind; index.ts collects
 * them in a Record<ChannelType, …>, so a new kind is one file plus the entry
 * the compiler asks for there.
 *
 * The kinds import values only from this folder and from below modules/ (lib,
 * db/enums, http/schemas): modules/channels dispatches to them, so an import
 * back into it would make a folder cycle (tests/architecture.test.ts).
 */
import type { TObject } from "@sinclair/typebox";
import { t } from "elysia";
import type { Clock } from "../../../lib/clock";
import type { EgressPolicy, Resolver } from "../../../lib/ssrf";
import type { WebhookPayload } from "../../feeds/outbox-payload";
import type { AlertFacts, NoticeFacts, OutcomeFacts } from "../format";
import type { SendOutcome, WebhookOrigins } from "../model";
import type { PaceBucket } from "../pace";
import type { DigestContext, DigestItem } from "../render";

/** The platform base URLs that are settings (JOBPILOT_TELEGRAM_API_URL); the Config has this shape. */
export interface ChannelApiSettings {
  telegramApiUrl: string;
}

/** What one send needs besides the channel and its message. */
export interface SendDeps {
  /** One attempt's deadline, connection to last byte. */
  timeoutMs: number;
  settings: ChannelApiSettings;
  /** Where user-chosen servers (ntfy, SMTP) may be: the webhook policy. */
  egress: EgressPolicy;
  resolve?: Resolver;
  /** For a Retry-After given as a date. */
  clock: Clock;
}

/** One of a kind's settings as the dashboard's form shows it (the API's config field of the same name). */
export interface ConfigFormField {
  name: string;
  label: string;
  help: string;
  isRequired?: boolean;
  /** A secret shown masked: sending the masked text back keeps the stored value. */
  isSecret?: boolean;
  placeholder?: string;
  /** A yes/no setting, shown as a checkbox and sent as true or false. */
  isFlag?: boolean;
}

/** One kind of notification channel: its settings, its messages, how they are sent and at what pace. */
export interface ChannelKind<C, M> {
  /**
   * The config's schema, for the OpenAPI page and the API's field list: its properties are the settings a
   * request may carry. The checks with messages a person can act on are `parse` (a schema alone would
   * answer "must match pattern"); a test keeps the two in agreement.
   */
  configSchema: TObject;
  /**
   * The config checked at save time and normalised (trimmed, defaults filled), or an Invalid naming the
   * first bad field. Sync and offline: a user-chosen server's address is checked on top (`destination`).
   */
  parse(input: Record<string, unknown>, origins: WebhookOrigins): C;
  /** The config fields that hold a secret (whole or in part): never returned or logged as they are. */
  secretFields: readonly string[];
  /** The config with every secret masked: what API responses, the dashboard and logs show. */
  mask(config: C): C;
  /**
   * The server the user chose (ntfy's, the SMTP one), as the config field naming it and a URL whose host the
   * egress policy checks; absent for kinds whose hosts are fixed.
   */
  destination?(config: C): { field: string; url: string };
  /**
   * What the kind's test alert says it is. The sample payload's own reason is the webhook's ("sent when the
   * webhook URL is saved"), which is not how a channel gets one: its test is sent only on request.
   */
  testReason: string;
  /** One job as the platform's message. */
  renderAlert(facts: AlertFacts, payload: WebhookPayload): M;
  /** A proposal viewed, replied to or hired, as a short message (see render.ts renderOutcomeAlert). */
  renderOutcome(facts: OutcomeFacts): M;
  /** An automation event (Connects low, budget low, waiting for approval) as a short message (see render.ts renderAutomationAlert). */
  renderNotice(facts: NoticeFacts): M;
  /** Several jobs of one feed as one message (see render.ts renderDigest). */
  renderDigest(items: DigestItem[], ctx: DigestContext): M;
  /** One attempt to send the message; no retry, no waiting (the deliverer owns both). */
  send(config: C, message: M, deps: SendDeps): Promise<SendOutcome>;
  /** The platform limits a message to this channel counts against (see pace.ts). */
  pace(config: C): PaceBucket[];
  /** The dashboard's words for the kind and its form. */
  form: {
    label: string;
    /** The label inside a sentence ("e-mail" where the heading says "E-mail"). */
    inText: string;
    intro: string;
    fields: ConfigFormField[];
    test: { what: string; taker: string };
  };
}

// ---------------------------------------------------------------------------
// Config checks

/** A bad config field: `field` is its body path (`config.<name>`), the message names it and says what is wanted. */
export class Invalid extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field} ${message}`);
  }
}

export const MAX_URL_CHARS = 2048;

/** A required text setting, trimmed; `what` says in words what belongs there. */
export function text(input: Record<string, unknown>, key: string, max: number, what: string): string {
  const value = input[key];
  if (value === undefined || value === null) throw new Invalid(`config.${key}`, `is required (${what})`);
  if (typeof value !== "string") throw new Invalid(`config.${key}`, `must be a string (${what})`);
  const trimmed = value.trim();
  if (trimmed === "") throw new Invalid(`config.${key}`, `must not be empty (${what})`);
  if (trimmed.length > max) throw new Invalid(`config.${key}`, `must be at most ${max} characters`);
  return trimmed;
}

export function parsedUrl(raw: string, field: string): URL {
  const url = URL.parse(raw);
  if (url === null) throw new Invalid(field, "must be an absolute URL");
  return url;
}

/** Whether the URL is on the operator's test stand-in for a platform's fixed host (empty: none). */
export function isTestOrigin(url: URL, origin: string): boolean {
  return origin !== "" && url.origin === origin.replace(/\/+$/, "");
}

/**
 * The per-channel opt-in for a user-chosen server (ntfy, SMTP) on the user's own network. It admits the
 * address ranges a home or office LAN uses, and nothing else: loopback, link-local (cloud metadata lives at
 * 169.254.169.254) and the other special ranges stay refused unless the operator allows private addresses
 * server-wide, because they reach jobpilot's own machine rather than the user's network.
 */
export const PRIVATE_NETWORK_CIDRS = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"] as const;

/** The opt-in's schema, in the words of the kind's server. */
export const AllowPrivateNetwork = (server: string) =>
  t.Optional(
    t.Boolean({
      description:
        `true: the ${server} may be on a private network (10/8, 172.16/12, 192.168/16, CGNAT 100.64/10, IPv6 unique local fc00::/7), e.g. a server on your LAN. ` +
        "Loopback, link-local and other special addresses stay refused unless the server allows private addresses for all webhooks. Default false.",
    }),
  );

/** The opt-in as stored: `{ allowPrivateNetwork: true }` when on, nothing when off or absent. */
export function privateNetworkFlag(input: Record<string, unknown>): { allowPrivateNetwork?: true } {
  const value = input.allowPrivateNetwork;
  if (value === undefined || value === null || value === false) return {};
  if (value !== true) throw new Invalid("config.allowPrivateNetwork", "must be true or false");
  return { allowPrivateNetwork: true };
}

/** The opt-in as a stored config carries it: the key only when on. */
export function privateNetworkOf(config: { allowPrivateNetwork?: true }): { allowPrivateNetwork?: true } {
  return config.allowPrivateNetwork ? { allowPrivateNetwork: true } : {};
}

/** The opt-in's form field (the dashboard), in the words of the kind's server. */
export const privateNetworkField = (server: string): ConfigFormField => ({
  name: "allowPrivateNetwork",
  label: "Allow a private-network address for this server",
  help: `Tick it when the ${server} is on your own network (an address such as 192.168.x.x, 10.x.x.x or a Tailscale 100.x.x.x one). This machine's own addresses (localhost) and link-local ones stay refused.`,
  isFlag: true,
});

// ---------------------------------------------------------------------------
// Masking

export const MASK = "••••";

/**
 * A secret as it may be shown: "••••" and, for long secrets, their last 4 characters so a person can tell two
 * apart ("••••x9Qa"). Short ones (passwords) show nothing of themselves.
 */
export function maskSecret(secret: string): string {
  return secret.length >= 16 ? `${MASK}${secret.slice(-4)}` : MASK;
}

/** A webhook URL as it may be shown: its origin, then the masked path ("https://hooks.slack.com/••••Xy12"). */
export function maskUrl(raw: string): string {
  const url = URL.parse(raw);
  return url === null ? maskSecret(raw) : `${url.origin}/${maskSecret(url.pathname + url.search)}`;
}

// ---------------------------------------------------------------------------
// Pace

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;

/** A kind as it fits the Record of all kinds (see index.ts), whatever its config and message. */
export type AnyChannelKind = ChannelKind<any, any>;

/** The config and message types of a kind. */
export type ConfigOf<K> = K extends ChannelKind<infer C, any> ? C : never;
export type MessageOf<K> = K extends ChannelKind<any, infer M> ? M : never;
