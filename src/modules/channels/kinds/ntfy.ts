/**
 * ntfy: a push notification published to a topic on ntfy.sh or a
 * self-hosted server, as plain text. The server is the user's choice, so it
 * goes through the webhook SSRF guard (lib/ssrf.ts): resolved once, refused
 * unless public or allowed by JOBPILOT_WEBHOOK_ALLOW_PRIVATE / _ALLOWLIST or
 * by the channel's own allowPrivateNetwork (LAN ranges only), and connected
 * to by the checked address. An access token, when given, is the secret.
 */
import { t } from "elysia";
import { retryAfterMs as parseRetryAfter } from "../../../lib/retry-after";
import type { AlertFacts, NoticeFacts, OutcomeFacts } from "../format";
import type { DigestContext, DigestItem } from "../render";
import { failed, httpError, isRetryableStatus, post, privateNetworkEgress, succeeded, withoutSecrets } from "./http";
import {
  AllowPrivateNetwork,
  type ChannelKind,
  Invalid,
  MAX_URL_CHARS,
  MINUTE,
  maskSecret,
  parsedUrl,
  privateNetworkField,
  privateNetworkFlag,
  privateNetworkOf,
  text,
} from "./kind";
import { digestTitle, factLines, fitText, listDigest, utf8Bytes } from "./text";

export const DEFAULT_NTFY_SERVER = "https://ntfy.sh";

export interface NtfyConfig {
  /** Without a trailing slash; DEFAULT_NTFY_SERVER when none was given. */
  serverUrl: string;
  topic: string;
  token: string | null;
  /** Present (true) only when the server may be on a private network: see PRIVATE_NETWORK_CIDRS. */
  allowPrivateNetwork?: true;
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

export const NTFY_LIMITS = {
  /** ntfy.sh refuses (or turns into an attachment) a message over 4,096 bytes; some room for the JSON around it. */
  messageBytes: 3900,
  title: 200,
} as const;

const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

const NtfyConfigSchema = t.Object(
  {
    serverUrl: t.Optional(t.String({ maxLength: MAX_URL_CHARS, description: `The ntfy server (http or https); default ${DEFAULT_NTFY_SERVER}.` })),
    topic: t.String({ pattern: NTFY_TOPIC.source, description: "The topic to publish to: 1 to 64 letters, digits, `-` and `_`." }),
    token: t.Optional(t.Nullable(t.String({ maxLength: 512, description: "An access token (`tk_…`) for a protected topic. Secret: shown masked." }))),
    allowPrivateNetwork: AllowPrivateNetwork("ntfy server"),
  },
  { additionalProperties: false, description: "ntfy: a topic on a public or self-hosted ntfy server." },
);

/** The priority ntfy shows (1 min … 5 urgent) for a matching score of 0 to 10. */
export function ntfyPriority(score: number): NtfyMessage["priority"] {
  if (score >= 9) return 5;
  if (score >= 7.5) return 4;
  if (score >= 5) return 3;
  if (score >= 2.5) return 2;
  return 1;
}

function ntfyActions(pairs: [label: string, url: string | null][]): NtfyAction[] {
  return pairs.flatMap(([label, url]) => (url === null ? [] : [{ action: "view" as const, label, url }]));
}

function ntfyAlert(f: AlertFacts): NtfyMessage {
  const head = factLines(f, (s) => s)
    .map(([label, value]) => `${label}: ${value}`)
    .join("\n");
  const room = NTFY_LIMITS.messageBytes - utf8Bytes(head) - 2;
  const description = fitText(f.description, room, (s) => s, utf8Bytes);
  return {
    type: "ntfy",
    title: fitText(`${f.score} · ${f.title}`, NTFY_LIMITS.title),
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

/** An outcome is news to act on: a hire rings loudest, a view is an ordinary notification. */
const NTFY_OUTCOME = { viewed: { priority: 3, tag: "eyes" }, replied: { priority: 4, tag: "speech_balloon" }, hired: { priority: 5, tag: "tada" } } as const;

function ntfyOutcome(f: OutcomeFacts): NtfyMessage {
  return factsNtfy(f, null, NTFY_OUTCOME[f.stage], f.jobUrl ?? f.dashboardUrl, [
    ["Open the job", f.jobUrl],
    ["Open in jobpilot", f.dashboardUrl],
  ]);
}

/** A review request rings high (someone must act); a Connects alert at the default. */
const NTFY_NOTICE = {
  "connects.low": { priority: 4, tag: "warning" },
  "budget.low": { priority: 3, tag: "moneybag" },
  "application.held": { priority: 4, tag: "hourglass" },
} as const;

function ntfyNotice(f: NoticeFacts): NtfyMessage {
  return factsNtfy(f, f.body, NTFY_NOTICE[f.event], f.dashboardUrl ?? f.jobUrl, [
    [f.dashboardLabel, f.dashboardUrl],
    ["Open the job", f.jobUrl],
  ]);
}

/** An outcome's or a notice's message: the headline as title; the facts, the feed and any body as the message. */
function factsNtfy(
  f: { headline: string; lines: [string, string][]; feedTitle: string },
  body: string | null,
  ring: { priority: NtfyMessage["priority"]; tag: string },
  click: string | null,
  actions: [label: string, url: string | null][],
): NtfyMessage {
  const lines = [...f.lines, ["Feed", f.feedTitle]].map(([label, value]) => `${label}: ${value}`).join("\n");
  const text = body === null || body === "" ? lines : `${lines}\n\n${body}`;
  return {
    type: "ntfy",
    title: fitText(f.headline, NTFY_LIMITS.title),
    message: fitText(text, NTFY_LIMITS.messageBytes, (s) => s, utf8Bytes),
    priority: ring.priority,
    tags: [ring.tag],
    click,
    actions: ntfyActions(actions),
  };
}

function ntfyDigest(items: DigestItem[], ctx: DigestContext): NtfyMessage {
  const total = items.length + ctx.more;
  return listDigest(items, ctx, NTFY_LIMITS.messageBytes, utf8Bytes, {
    heading: () => "",
    item: ({ facts, summary }) => `• ${facts.title}\n  ${summary}`,
    more: (k) => `and ${k} more`,
    separator: "\n",
    done: (text) => ({
      type: "ntfy",
      title: fitText(digestTitle(total, items), NTFY_LIMITS.title),
      message: text.trim(),
      priority: 3,
      tags: ["briefcase"],
      click: ctx.dashboardUrl,
      actions: ntfyActions([["Open jobpilot", ctx.dashboardUrl]]),
    }),
  });
}

export const ntfy: ChannelKind<NtfyConfig, NtfyMessage> = {
  configSchema: NtfyConfigSchema,

  parse(input) {
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

  secretFields: ["token"],

  mask: (config) => ({
    serverUrl: config.serverUrl,
    topic: config.topic,
    token: config.token === null ? null : maskSecret(config.token),
    ...privateNetworkOf(config),
  }),

  destination: (config) => ({ field: "config.serverUrl", url: `${config.serverUrl}/` }),

  testReason: "Test alert, sent on request to check this ntfy topic; a sample job, do not apply to it",
  renderAlert: ntfyAlert,
  renderOutcome: ntfyOutcome,
  renderNotice: ntfyNotice,
  renderDigest: ntfyDigest,

  async send(config, message, deps) {
    const secrets = [config.token];
    // The JSON form of publishing: POST to the server's root with the topic in the body.
    const body = {
      topic: config.topic,
      title: message.title,
      message: message.message,
      priority: message.priority,
      tags: message.tags,
      ...(message.click === null ? {} : { click: message.click }),
      ...(message.actions.length === 0 ? {} : { actions: message.actions }),
    };
    const headers: Record<string, string> = config.token === null ? {} : { authorization: `Bearer ${config.token}` };
    const egress = privateNetworkEgress(config, deps.egress);
    const attempt = await post(`${config.serverUrl}/`, body, headers, deps.timeoutMs, { egress, resolve: deps.resolve });
    if ("outcome" in attempt) return withoutSecrets(attempt.outcome, secrets);
    const { reply } = attempt;
    const json = (reply.json ?? {}) as { id?: unknown; error?: unknown };
    if (reply.status >= 200 && reply.status < 300) return succeeded(reply.status, typeof json.id === "string" ? json.id : undefined);
    const retryAfterMs = reply.status === 429 ? parseRetryAfter(reply.headers.get("retry-after"), deps.clock.now()) : null;
    return withoutSecrets(failed(reply.status, httpError("ntfy", reply, json.error), isRetryableStatus(reply.status), retryAfterMs), secrets);
  },

  /**
   * 12 per minute per server, ntfy.sh's sustained rate for one client (one request per 5 s after a burst of
   * 60); self-hosted servers get the same, to be safe.
   */
  pace: (config) => [{ key: `ntfy:${config.serverUrl}`, rules: [{ limit: 12, perMs: MINUTE }] }],

  form: {
    label: "ntfy",
    inText: "ntfy",
    test: { what: "a sample notification to the topic", taker: "the ntfy server" },
    intro: "Push notifications to the ntfy app, from ntfy.sh or your own server.",
    fields: [
      { name: "serverUrl", label: "Server URL", help: "Empty: https://ntfy.sh. Your own server: its https address.", placeholder: "https://ntfy.sh" },
      {
        name: "topic",
        label: "Topic",
        help: "1 to 64 letters, digits, - and _. On ntfy.sh anyone who knows it can read it: pick a long random one.",
        isRequired: true,
      },
      { name: "token", label: "Access token", help: "Optional: a tk_… token for a protected topic.", isSecret: true },
      privateNetworkField("ntfy server"),
    ],
  },
};
