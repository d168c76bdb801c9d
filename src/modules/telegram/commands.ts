/**
 * Commands typed in a chat: /start <code> binds it; a bound chat may then
 * /feeds (with mute toggles), /mute and /unmute a feed (by its number in
 * /feeds, its id or its title), ask /status (today's applications) and /help.
 * Anything else, and every command in an unbound chat, gets a short answer
 * and changes nothing. Plain messages are ignored, so the bot stays quiet in
 * groups.
 */
import { escapeHtml } from "../../lib/html";
import { isUuid } from "../../lib/ids";
import { utcDayStart } from "../../lib/time";
import { appliedJobs } from "../applications/service";
import type { AuthContext } from "../accounts/service";
import { getAccount } from "../accounts/service";
import { actionButton, type InlineKeyboard } from "../channels/telegram-actions";
import { type FeedRow, listFeeds } from "../feeds/repo";
import { patchFeed } from "../feeds/service";
import { redeemBindingCode } from "./binding";
import { type BotContext, boundChat, NOT_BOUND, STATUS_LABELS, say } from "./chat";
import type { TgMessage } from "./model";

/** `/name`, `/name@bot`, then arguments. */
const COMMAND = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{1,64}))?(?:\s+([\s\S]*))?$/;

export const HELP = [
  "<b>jobpilot</b> — act on your job alerts from here.",
  "",
  "Under each alert: <b>Draft proposal</b> writes a cover letter (then <b>Apply with this</b>, <b>Regenerate</b>, or <b>Regenerate with an instruction</b> and reply with how it should differ), <b>Apply</b> writes one and applies at once, <b>Not interested</b> marks the job read in its feed. The alert is updated when the application is done.",
  "",
  "/feeds — your feeds, with buttons to mute or unmute each",
  "/mute &lt;feed&gt; — stop a feed's alerts (its number in /feeds, its id or its title)",
  "/unmute &lt;feed&gt; — start them again",
  "/status — today's applications and credits",
  "/help — this message",
].join("\n");

const HOW_TO_BIND =
  "Hello! I send jobpilot alerts and let you act on them. This chat is not linked to a jobpilot account yet: in jobpilot, open your Telegram channel, create a binding code and send <code>/start &lt;code&gt;</code> here.";

/** Most feeds /feeds lists (and offers buttons for): Telegram caps a message at 4,096 characters. */
const MAX_LISTED_FEEDS = 40;
const MAX_LISTED_APPLICATIONS = 15;

export async function handleMessage(ctx: BotContext, msg: TgMessage): Promise<void> {
  const m = COMMAND.exec(msg.text?.trim() ?? "");
  if (!m) return;
  const [, name, mention, rest] = m;
  // In a group, /feeds@other_bot is another bot's.
  if (mention && ctx.bot.username && mention.toLowerCase() !== ctx.bot.username.toLowerCase()) return;
  const command = name!.toLowerCase();
  const args = (rest ?? "").trim();
  const chatId = msg.chat.id;
  if (command === "start" && args !== "") return bind(ctx, msg, args);
  const bound = await boundChat(ctx, chatId);
  if (!bound) return say(ctx, chatId, command === "start" || command === "help" ? HOW_TO_BIND : escapeHtml(NOT_BOUND));
  const { auth } = bound;
  switch (command) {
    case "start":
    case "help":
      return say(ctx, chatId, HELP);
    case "feeds": {
      const list = await feedsMessage(ctx, auth);
      return say(ctx, chatId, list.html, { keyboard: list.keyboard });
    }
    case "mute":
    case "unmute":
      return say(ctx, chatId, await setMuted(ctx, auth, args, command === "mute"));
    case "status":
      return say(ctx, chatId, await statusMessage(ctx, auth));
    default:
      return say(ctx, chatId, `I do not know /${escapeHtml(command)}.\n\n${HELP}`);
  }
}

async function bind(ctx: BotContext, msg: TgMessage, code: string): Promise<void> {
  const outcome = await redeemBindingCode(ctx.deps, ctx.bot, msg.chat, code);
  let html: string;
  if (outcome.ok) html = `This chat is now linked to jobpilot (channel “${escapeHtml(outcome.channelName)}”): the buttons under alerts work here.\n\n${HELP}`;
  else if (outcome.reason === "expired") html = "This code has expired. Create a new one in jobpilot and send /start with it within 15 minutes.";
  else if (outcome.reason === "other_account")
    html = "This chat is already linked to another jobpilot account. Unlink it there first (the channel's bound chats in jobpilot), then send the code again.";
  else html = "This code is not valid. Codes work once: create a new one in jobpilot for the Telegram channel that uses this bot.";
  return say(ctx, msg.chat.id, html);
}

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The account's feeds, numbered as /mute and /unmute take them, each with a button that toggles it. */
export async function feedsMessage(ctx: BotContext, auth: AuthContext): Promise<{ html: string; keyboard?: InlineKeyboard }> {
  const feeds = await listFeeds(ctx.deps.db, auth.accountId);
  if (feeds.length === 0) return { html: "You have no feeds yet. Create one in jobpilot, then alerts arrive here." };
  const shown = feeds.slice(0, MAX_LISTED_FEEDS);
  const lines = shown.map((f, i) => `${i + 1}. ${escapeHtml(cut(f.title, 60))} — ${f.notificationsMuted ? "🔕 muted" : "🔔 alerts on"}`);
  if (feeds.length > shown.length) lines.push(`… and ${feeds.length - shown.length} more (use /mute with a title)`);
  const keyboard = shown.map((f, i) => [
    actionButton(`${f.notificationsMuted ? "Unmute" : "Mute"} ${i + 1}. ${cut(f.title, 40)}`, f.notificationsMuted ? "unmute" : "mute", f.id),
  ]);
  return { html: `<b>Your feeds</b>\n${lines.join("\n")}`, keyboard: { inline_keyboard: keyboard } };
}

/** The feed an argument names: its number in /feeds, its id, its title, or a part of one title only. */
function findFeed(feeds: FeedRow[], arg: string): FeedRow | string {
  if (arg === "") return "Say which feed: its number in /feeds, its id or its title, e.g. /mute 2.";
  if (/^\d+$/.test(arg)) return feeds[Number(arg) - 1] ?? `There is no feed ${escapeHtml(arg)}: /feeds lists ${feeds.length}.`;
  if (isUuid(arg)) return feeds.find((f) => f.id === arg.toLowerCase()) ?? "No feed of yours has that id.";
  const wanted = arg.toLowerCase();
  const exact = feeds.filter((f) => f.title.toLowerCase() === wanted);
  const candidates = exact.length > 0 ? exact : feeds.filter((f) => f.title.toLowerCase().includes(wanted));
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) return `No feed is called “${escapeHtml(cut(arg, 60))}”. /feeds lists them.`;
  return `Several feeds match “${escapeHtml(cut(arg, 60))}”: use its number from /feeds.`;
}

async function setMuted(ctx: BotContext, auth: AuthContext, arg: string, muted: boolean): Promise<string> {
  const found = findFeed(await listFeeds(ctx.deps.db, auth.accountId), arg);
  if (typeof found === "string") return found;
  const title = escapeHtml(found.title);
  if (found.notificationsMuted === muted) return `“${title}” is already ${muted ? "muted" : "sending alerts"}.`;
  await patchFeed(ctx.deps, auth, found.id, { notificationsMuted: muted });
  return muted ? `🔕 Muted “${title}”: no alerts from it until you /unmute it.` : `🔔 Unmuted “${title}”: its alerts come here again.`;
}

async function statusMessage(ctx: BotContext, auth: AuthContext): Promise<string> {
  const since = utcDayStart(ctx.deps.clock.now());
  // Newest first: the page ends at the first application from before today.
  const { jobs } = await appliedJobs(ctx.deps, auth, { limit: 100 });
  const today = jobs.filter((j) => j.appliedAt >= since);
  const { credits } = await getAccount(ctx.deps, auth.accountId);
  if (today.length === 0) return `No applications today (since 00:00 UTC).\nCredits left: ${credits}.`;
  const counts = new Map<string, number>();
  for (const j of today) counts.set(j.applicationStatus, (counts.get(j.applicationStatus) ?? 0) + 1);
  const summary = [...counts].map(([status, n]) => `${n} ${STATUS_LABELS[status] ?? status}`).join(", ");
  const lines = today
    .slice(0, MAX_LISTED_APPLICATIONS)
    .map((j) => `• ${escapeHtml(cut(j.title, 80))} — ${STATUS_LABELS[j.applicationStatus] ?? j.applicationStatus}`);
  if (today.length > lines.length) lines.push(`… and ${today.length - lines.length} more`);
  return `<b>Today's applications</b> (since 00:00 UTC): ${today.length} — ${summary}\n${lines.join("\n")}\n\nCredits left: ${credits}.`;
}
