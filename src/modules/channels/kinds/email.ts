/**
 * E-mail: alerts sent through the user's SMTP server (nodemailer) as a
 * multipart mail, the same content as plain text and as HTML. The server is
 * the user's choice, so its name is resolved once through the webhook SSRF
 * guard (refused unless public, allowed server-wide, or on the user's LAN
 * with allowPrivateNetwork) and connected to by the checked address; the SMTP
 * URL's password is the secret.
 */
import { t } from "elysia";
import { escapeHtml } from "../../../lib/html";
import { resolvePinned } from "../../../lib/ssrf";
import type { AlertFacts, NoticeFacts, OutcomeFacts } from "../format";
import type { SendOutcome } from "../model";
import type { DigestContext, DigestItem } from "../render";
import { failed, failureOutcome, privateNetworkEgress, succeeded, withoutSecrets } from "./http";
import {
  AllowPrivateNetwork,
  type ChannelKind,
  Invalid,
  MASK,
  MAX_URL_CHARS,
  MINUTE,
  parsedUrl,
  privateNetworkField,
  privateNetworkFlag,
  privateNetworkOf,
  SECOND,
  type SendDeps,
  text,
} from "./kind";
import { sha256Hex } from "../../../lib/hash";
import { digestTitle, factLines, fitText, oneLine } from "./text";

export interface EmailConfig {
  smtpUrl: string;
  from: string;
  /** One address or several joined by ", ". */
  to: string;
  /** Present (true) only when the SMTP server may be on a private network: see PRIVATE_NETWORK_CIDRS. */
  allowPrivateNetwork?: true;
}

/** A multipart e-mail: the same content as plain text and as HTML. */
export interface EmailMessage {
  type: "email";
  subject: string;
  text: string;
  html: string;
}

export const EMAIL_LIMITS = {
  subject: 200,
  /** No hard limit in e-mail; a bound so a 50,000-character description does not become the whole mail. */
  description: 20_000,
} as const;

const MAX_RECIPIENTS = 20;

const EmailConfigSchema = t.Object(
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

// ---------------------------------------------------------------------------
// Addresses

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

/** The SMTP URL with its password masked; user, host and port stay readable. */
function maskSmtpUrl(raw: string): string {
  const url = URL.parse(raw);
  if (url === null) return MASK;
  const user = url.username ? `${url.username}${url.password ? `:${MASK}` : ""}@` : "";
  return `${url.protocol}//${user}${url.host}`;
}

// ---------------------------------------------------------------------------
// Messages

/** A subject is one header line: no line breaks whatever the title holds. */
function subject(text: string): string {
  return fitText(oneLine(text), EMAIL_LIMITS.subject);
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
  const description = fitText(f.description, EMAIL_LIMITS.description);
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

function emailOutcome(f: OutcomeFacts): EmailMessage {
  return factsEmail(
    f.headline,
    [...f.lines, ["Feed", f.feedTitle]],
    [
      ...(f.jobUrl === null ? [] : [["Open the job", f.jobUrl] as [string, string]]),
      ...(f.dashboardUrl === null ? [] : [["Open in jobpilot", f.dashboardUrl] as [string, string]]),
    ],
  );
}

function emailNotice(f: NoticeFacts): EmailMessage {
  const body = f.body === null || f.body === "" ? "" : fitText(f.body, EMAIL_LIMITS.description);
  return factsEmail(
    f.headline,
    [...f.lines, ["Feed", f.feedTitle]],
    [
      ...(f.dashboardUrl === null ? [] : [[f.dashboardLabel, f.dashboardUrl] as [string, string]]),
      ...(f.jobUrl === null ? [] : [["Open the job", f.jobUrl] as [string, string]]),
    ],
    body,
  );
}

/**
 * An outcome's or a notice's email: the headline, a table of facts, a notice's quoted body, then the links. Only a
 * notice passes `body` (possibly ""): its HTML keeps a line for the quote even when there is none.
 */
function factsEmail(headline: string, facts: [string, string][], links: [string, string][], body?: string): EmailMessage {
  const text = [
    headline,
    facts.map(([label, value]) => `${label}: ${value}`).join("\n"),
    body ?? "",
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
  const quote =
    body === undefined
      ? []
      : [
          body === ""
            ? ""
            : `<blockquote style="margin:0 0 16px;padding:0 12px;border-left:3px solid #ccc;white-space:pre-wrap">${escapeHtml(body)}</blockquote>`,
        ];
  const html = htmlPage(
    [
      `<h2 style="margin:0 0 12px;font-size:18px">${escapeHtml(headline)}</h2>`,
      `<table style="border-collapse:collapse;margin:0 0 16px">\n${rows}\n</table>`,
      ...quote,
      links.length === 0 ? "" : `<p>${links.map(([label, url]) => htmlLink(label, url)).join(" · ")}</p>`,
    ].join("\n"),
  );
  return { type: "email", subject: subject(headline), text, html };
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

// ---------------------------------------------------------------------------
// Sending

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

async function sendEmail(config: EmailConfig, message: EmailMessage, deps: SendDeps): Promise<SendOutcome> {
  const smtp = smtpTarget(config);
  const secrets = [config.smtpUrl, smtp.password];
  let address: string;
  try {
    address = await resolvePinned(smtp.hostname, privateNetworkEgress(config, deps.egress), deps.timeoutMs, deps.resolve);
  } catch (err) {
    return withoutSecrets(failureOutcome(err, deps.timeoutMs), secrets);
  }
  const isNameHost = !isIpLiteral(smtp.hostname);
  // Loaded when the first e-mail goes out: most installations send none, and it is a large module to evaluate at start.
  const { default: nodemailer } = await import("nodemailer");
  const transport = nodemailer.createTransport({
    // The checked address itself, so a second DNS answer cannot send the password elsewhere; TLS still
    // checks the certificate against the name the user gave.
    host: address,
    port: smtp.port,
    secure: smtp.isImplicitTls,
    ...(smtp.user === null ? {} : { auth: { user: smtp.user, pass: smtp.password ?? "" } }),
    ...(isNameHost ? { tls: { servername: smtp.hostname } } : {}),
    connectionTimeout: deps.timeoutMs,
    greetingTimeout: deps.timeoutMs,
    socketTimeout: deps.timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    const info = await transport.sendMail({
      from: config.from,
      to: config.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      // RFC 3834: a machine wrote this, so vacation responders and other auto-replies must not answer it.
      headers: { "Auto-Submitted": "auto-generated" },
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    const code = Number(/^\d{3}/.exec(String(info.response ?? ""))?.[0] ?? Number.NaN);
    return succeeded(Number.isFinite(code) ? code : null, info.messageId);
  } catch (err) {
    return withoutSecrets(smtpOutcome(err as SmtpError, deps.timeoutMs), secrets);
  } finally {
    transport.close();
  }
}

/** Whether a host is an IP address as a URL reads it ("10.0.0.1", "0x7f.1", "::1"): no name to send as SNI. */
function isIpLiteral(hostname: string): boolean {
  const read = URL.parse(`http://${hostname.includes(":") ? `[${hostname}]` : hostname}/`)?.hostname ?? "";
  return read.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(read);
}

/** An SMTP failure as an outcome: a 4xx reply is temporary (RFC 5321) and worth a retry, a 5xx and a refused login are not. */
function smtpOutcome(err: SmtpError, timeoutMs: number): SendOutcome {
  const code = typeof err.responseCode === "number" ? err.responseCode : null;
  const said = (err.response ?? err.message ?? "").replace(/\s+/g, " ").trim();
  if (code !== null) return failed(code, `SMTP ${code}: ${said}`, code >= 400 && code < 500);
  switch (err.code) {
    case "ETIMEDOUT":
    case "EABORT":
      return failed(null, `no answer within ${timeoutMs} ms`, true);
    case "EAUTH":
    case "ENOAUTH":
      return failed(null, `SMTP login refused: ${said}`, false);
    case "ECONNECTION":
    case "ESOCKET":
    case "EDNS":
    case "ETLS":
    case "EPROTOCOL":
      return failed(null, `connection failed: ${said}`, true);
    default:
      return failed(null, `SMTP error${err.code ? ` ${err.code}` : ""}: ${said}`, false);
  }
}

export const email: ChannelKind<EmailConfig, EmailMessage> = {
  configSchema: EmailConfigSchema,

  parse(input) {
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

  secretFields: ["smtpUrl"],

  mask: (config) => ({ smtpUrl: maskSmtpUrl(config.smtpUrl), from: config.from, to: config.to, ...privateNetworkOf(config) }),

  destination(config) {
    const { hostname } = smtpTarget(config);
    return { field: "config.smtpUrl", url: `http://${hostname.includes(":") ? `[${hostname}]` : hostname}/` };
  },

  testReason: "Test e-mail, sent on request to check this e-mail channel; a sample job, do not apply to it",
  renderAlert: emailAlert,
  renderOutcome: emailOutcome,
  renderNotice: emailNotice,
  renderDigest: emailDigest,
  send: sendEmail,

  /**
   * 1 per second and 30 per minute per SMTP server and login, well under what mail providers allow before
   * they throttle or flag a sender.
   */
  pace(config) {
    const smtp = smtpTarget(config);
    return [
      {
        key: `email:${smtp.hostname}:${smtp.port}:${sha256Hex(smtp.user ?? "").slice(0, 12)}`,
        rules: [
          { limit: 1, perMs: SECOND },
          { limit: 30, perMs: MINUTE },
        ],
      },
    ];
  },

  form: {
    label: "E-mail",
    inText: "e-mail",
    test: { what: "a sample alert e-mail to the recipients", taker: "the SMTP server" },
    intro: "Alerts sent through your SMTP server, as text and HTML.",
    fields: [
      {
        name: "smtpUrl",
        label: "SMTP URL",
        help: "smtps://user:password@host:465 (TLS) or smtp://user:password@host:587 (STARTTLS); user and password URL-encoded.",
        isRequired: true,
        isSecret: true,
      },
      { name: "from", label: "From", help: "The sender, optionally with a name: jobpilot <alerts@example.com>", isRequired: true },
      { name: "to", label: "To", help: "One or more addresses, separated by commas (at most 20).", isRequired: true },
      privateNetworkField("SMTP server"),
    ],
  },
};
