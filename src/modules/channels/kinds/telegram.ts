/**
 * Telegram: a bot (its token from @BotFather) writes to one chat, a user, a
 * group or a channel, through the Bot API in HTML parse mode. Its host is
 * JOBPILOT_TELEGRAM_API_URL (api.telegram.org), an operator's setting, so
 * there is no user-chosen address to guard. The Bot API call itself
 * (telegramCall) also serves the interactive bot (modules/telegram).
 */
import { t } from "elysia";
import { escapeHtml } from "../../../lib/html";
import type { AlertFacts, NoticeFacts, OutcomeFacts } from "../format";
import type { SendOutcome } from "../model";
import type { DigestContext, DigestItem } from "../render";
import { failed, httpError, isRetryableStatus, post, secondsToMs, succeeded, withoutSecrets } from "./http";
import { type ChannelApiSettings, type ChannelKind, Invalid, MINUTE, maskSecret, SECOND, text } from "./kind";
import { digestTitle, factLines, fitText, listDigest, MAX_LINE, MAX_TITLE } from "./text";

/** A config as parse returns it (and as it is stored). */
export interface TelegramConfig {
  botToken: string;
  /** Always a string: "123456789", "-1001234567890" or "@channelname". */
  chatId: string;
}

/** Telegram sendMessage in HTML parse mode. `replyMarkup` (inline buttons) is passed through as given. */
export interface TelegramMessage {
  type: "telegram";
  /** HTML parse-mode text, at most 4,096 characters. */
  text: string;
  replyMarkup?: unknown;
}

/** Telegram's limits (characters). */
export const TELEGRAM_LIMITS = { text: 4096 } as const;

const TELEGRAM_TOKEN = /^\d+:[A-Za-z0-9_-]{30,}$/;
const TELEGRAM_CHAT_ID = /^-?\d{1,20}$/;
/** A public channel or group by its username (Telegram: 5 to 32 letters, digits and underscores). */
const TELEGRAM_CHAT_NAME = /^@[A-Za-z][A-Za-z0-9_]{3,31}$/;

const TelegramConfigSchema = t.Object(
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

/** The bot's numeric id: the part of its token before the colon, which Telegram shows publicly. */
export function telegramBotId(botToken: string): string {
  return botToken.slice(0, Math.max(0, botToken.indexOf(":")));
}

/** Whether the chat is a group or channel (negative id or @username) rather than a private chat with one user. */
export function isTelegramGroupChat(chatId: string): boolean {
  return chatId.startsWith("-") || chatId.startsWith("@");
}

// ---------------------------------------------------------------------------
// Messages (HTML parse mode)

/** Telegram's HTML mode takes &lt; &gt; &amp; &quot; and numeric entities, which is what escapeHtml writes. */
const telegramEscape = escapeHtml;

function telegramLinks(f: Pick<AlertFacts, "jobUrl" | "dashboardUrl">): string {
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
  const room = TELEGRAM_LIMITS.text - head.length - links.length - 4;
  const description = fitText(f.description, room, telegramEscape);
  return { type: "telegram", text: [head, description, links].filter((part) => part !== "").join("\n\n") };
}

function telegramOutcome(f: OutcomeFacts): TelegramMessage {
  const lines = f.lines.map(([label, value]) => `<b>${label}:</b> ${telegramEscape(value)}`);
  const links = telegramLinks(f);
  const text = [
    [`<b>${fitText(f.headline, MAX_TITLE, telegramEscape)}</b>`, ...lines, `<b>Feed:</b> ${fitText(f.feedTitle, MAX_LINE, telegramEscape)}`].join("\n"),
    links,
  ].filter((part) => part !== "");
  return { type: "telegram", text: text.join("\n\n") };
}

function telegramNotice(f: NoticeFacts): TelegramMessage {
  const lines = f.lines.map(([label, value]) => `<b>${label}:</b> ${telegramEscape(value)}`);
  const links = [
    ...(f.jobUrl === null ? [] : [`<a href="${escapeHtml(f.jobUrl)}">Open the job</a>`]),
    ...(f.dashboardUrl === null ? [] : [`<a href="${escapeHtml(f.dashboardUrl)}">${f.dashboardLabel}</a>`]),
  ].join(" · ");
  const head = [
    `<b>${fitText(f.headline, MAX_TITLE * 2, telegramEscape)}</b>`,
    ...lines,
    `<b>Feed:</b> ${fitText(f.feedTitle, MAX_LINE, telegramEscape)}`,
  ].join("\n");
  // The letter gets what the head and the links leave of the message's limit.
  const room = TELEGRAM_LIMITS.text - head.length - links.length - 4;
  const body = f.body === null || f.body === "" ? "" : fitText(f.body, room, telegramEscape);
  return { type: "telegram", text: [head, body, links].filter((part) => part !== "").join("\n\n") };
}

function telegramDigest(items: DigestItem[], ctx: DigestContext): TelegramMessage {
  return listDigest(items, ctx, TELEGRAM_LIMITS.text, (text) => text.length, {
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

// ---------------------------------------------------------------------------
// The Bot API

export interface TelegramDeps {
  /** One attempt's deadline, connection to last byte. For getUpdates, longer than its long-poll `timeout`. */
  timeoutMs: number;
  settings: ChannelApiSettings;
}

export type TelegramCallOutcome = SendOutcome & { result: unknown };

/**
 * One Bot API call (`sendMessage`, `editMessageText`, `answerCallbackQuery`, `getUpdates`, …): POST
 * <JOBPILOT_TELEGRAM_API_URL>/bot<token>/<method> with a JSON body. `result` is the API's `result` on
 * success, null otherwise. A 429 carries `parameters.retry_after` (seconds) as retryAfterMs. `signal`
 * ends the call early (a long-polling getUpdates when its poller stops).
 */
export async function telegramCall(deps: TelegramDeps, token: string, method: string, body: unknown, signal?: AbortSignal): Promise<TelegramCallOutcome> {
  const url = `${deps.settings.telegramApiUrl.replace(/\/+$/, "")}/bot${token}/${method}`;
  const attempt = await post(url, body, {}, deps.timeoutMs, null, signal);
  if ("outcome" in attempt) return { ...withoutSecrets(attempt.outcome, [url, token]), result: null };
  const { reply } = attempt;
  const json = (reply.json ?? {}) as {
    ok?: unknown;
    result?: unknown;
    description?: unknown;
    parameters?: { retry_after?: unknown; migrate_to_chat_id?: unknown };
  };
  if (reply.status >= 200 && reply.status < 300 && json.ok === true) return { ...succeeded(reply.status), result: json.result ?? null };
  let error = httpError("Telegram", reply, json.description);
  const migrated = json.parameters?.migrate_to_chat_id;
  if (typeof migrated === "number") error += ` (the group is now the supergroup ${migrated}: use that as the chat id)`;
  const retryAfterMs = reply.status === 429 ? secondsToMs(json.parameters?.retry_after) : null;
  return { ...withoutSecrets(failed(reply.status, error, isRetryableStatus(reply.status), retryAfterMs), [url, token]), result: null };
}

/** What Telegram says of a bot token: the bot's id (getMe's `result.id`), a refusal, or no usable answer. */
export type TelegramTokenCheck = { ok: true; botId: string } | { ok: false; isRefused: boolean; error: string };

/**
 * Asks Telegram whose bot a token is (getMe). The id before the token's colon is public and proves nothing:
 * only Telegram accepting the token does. A 4xx other than 429 (401 Unauthorized, 404 for a malformed token)
 * or an `ok: false` answer is a refusal; no answer, a 5xx, a 429 or a reply without a bot id is "not now".
 */
export async function checkTelegramToken(deps: TelegramDeps, token: string): Promise<TelegramTokenCheck> {
  const me = await telegramCall(deps, token, "getMe", {});
  const status = me.statusCode;
  if (!me.ok) {
    const isRefused = status !== null && status !== 429 && status < 500;
    return { ok: false, isRefused, error: me.error ?? "no answer" };
  }
  const id = (me.result as { id?: unknown } | null)?.id;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id <= 0) return { ok: false, isRefused: false, error: "Telegram's getMe answer named no bot" };
  return { ok: true, botId: String(id) };
}

export const telegram: ChannelKind<TelegramConfig, TelegramMessage> = {
  configSchema: TelegramConfigSchema,

  parse(input) {
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

  secretFields: ["botToken"],

  mask: (config) => ({ botToken: maskSecret(config.botToken), chatId: config.chatId }),

  testReason: "Test alert, sent on request to check this Telegram chat; a sample job, do not apply to it",
  renderAlert: telegramAlert,
  renderOutcome: telegramOutcome,
  renderNotice: telegramNotice,
  renderDigest: telegramDigest,

  async send(config, message, deps) {
    const body = {
      chat_id: config.chatId,
      text: message.text,
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      ...(message.replyMarkup === undefined ? {} : { reply_markup: message.replyMarkup }),
    };
    const { result, ...outcome } = await telegramCall(deps, config.botToken, "sendMessage", body);
    const id = (result as { message_id?: unknown } | null)?.message_id;
    return typeof id === "number" ? { ...outcome, messageId: String(id) } : outcome;
  },

  /**
   * 1 per second per chat; 20 per minute in a group or channel (negative id or @name); 30 per second per bot
   * across all its chats (the Bot API FAQ's numbers).
   */
  pace(config) {
    const bot = telegramBotId(config.botToken);
    const chatRules = [{ limit: 1, perMs: SECOND }];
    if (isTelegramGroupChat(config.chatId)) chatRules.push({ limit: 20, perMs: MINUTE });
    return [
      { key: `telegram:chat:${bot}:${config.chatId}`, rules: chatRules },
      { key: `telegram:bot:${bot}`, rules: [{ limit: 30, perMs: SECOND }] },
    ];
  },

  form: {
    label: "Telegram",
    inText: "Telegram",
    test: { what: "a sample alert to the chat", taker: "Telegram" },
    intro: "A bot writes to a chat: you, a group or a channel. Create the bot with @BotFather, then send it a message so it may write to you.",
    fields: [
      {
        name: "botToken",
        label: "Bot token",
        help: "From @BotFather (/newbot): 123456789:AAF…",
        isRequired: true,
        isSecret: true,
        placeholder: "123456789:AAF…",
      },
      {
        name: "chatId",
        label: "Chat id",
        help: "Your numeric chat id (send the bot a message, then read message.chat.id from getUpdates), a group's negative id, or a public channel's @username.",
        isRequired: true,
      },
    ],
  },
};
