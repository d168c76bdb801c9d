/**
 * The task an application applied from Telegram leaves behind when it
 * reaches its final status (applications enqueues it in the transaction that
 * writes the status: see apply's onSettled): the alert the user pressed
 * Apply under is edited to show the outcome, its buttons gone; a sent proposal's
 * alert gets the outcome buttons instead (outcomes.ts). A task, so a restart, a
 * Telegram outage or a 429 only delays the edit.
 */
import type { Deps } from "../../deps";
import { escapeHtml } from "../../lib/html";
import { funnelOf } from "../applications/funnel";
import { type ApplicationRow, findApplication } from "../applications/repo";
import { jobOfApplication } from "../applications/service";
import { findChannelById } from "../channels/repo";
import { TELEGRAM_LIMITS } from "../channels/kinds/telegram";
import { openChannel } from "../channels/service";
import type { InlineKeyboard } from "../channels/telegram-actions";
import type { ChannelSender } from "../delivery/channel-delivery";
import { feedJobPayload } from "../feeds/outbox-event-payload";
import { callBot, STATUS_LABELS } from "./chat";
import { outcomeKeyboard, stageLine } from "./outcomes";

export const TELEGRAM_SETTLED_TASK = "telegram.alert-settled";

/** Which alert to edit (the task's payload, with the application's id added by applications). */
export interface SettledAlert {
  botId: string;
  chatId: string;
  /** The channel the chat was bound through: its settings hold the bot token. */
  channelId: string;
  alertMessageId: number;
  feedJobId: string;
}

export async function editSettledAlert(deps: Deps, sender: ChannelSender, task: SettledAlert & { applicationId: string }): Promise<void> {
  const app = await findApplication(deps.db, task.applicationId);
  if (!app || app.status === "processing") return;
  const channel = await findChannelById(deps.db, task.channelId);
  const target = channel ? await openChannel(deps.secretKey, channel).catch(() => null) : null;
  // The channel was deleted, or now uses another bot: no token can edit that message any more.
  if (target?.type !== "telegram" || channel?.telegramBotId !== task.botId) return;

  const { text, keyboard } = await settledAlert(deps, sender, app, task.feedJobId);
  const out = await callBot(deps, target.config.botToken, "editMessageText", {
    chat_id: task.chatId,
    message_id: task.alertMessageId,
    text,
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
    ...(keyboard === undefined ? {} : { reply_markup: keyboard }),
  });
  if (out.ok || out.error?.includes("message is not modified")) return;
  // Rate limited, Telegram down, no answer: the task's retries come back for it.
  if (out.isRetryable) throw new Error(`could not edit the Telegram alert: ${out.error}`);
  deps.log.warn("the Telegram alert could not be edited with the application's outcome", { application: app.id, error: out.error });
}

/**
 * The alert of a settled application: the job's alert with the final status and, for a sent proposal, the stage
 * its funnel reached, under the outcome buttons that still move it forward (none for one that was not sent).
 * The settled task and an outcome press draw it the same way.
 */
export async function settledAlert(
  deps: Deps,
  sender: ChannelSender,
  app: ApplicationRow,
  feedJobId: string | null,
): Promise<{ text: string; keyboard: InlineKeyboard | undefined }> {
  const funnel = app.status === "applied" ? funnelOf(app, deps.config, deps.clock.now()) : null;
  const outcome = `<b>Application:</b> ${STATUS_LABELS[app.status] ?? escapeHtml(app.status)}${app.statusMessage ? ` — ${escapeHtml(app.statusMessage.slice(0, 500))}` : ""}${funnel ? stageLine(funnel) : ""}`;
  const payload = feedJobId === null ? null : await feedJobPayload(deps.db, deps.clock, feedJobId);
  const alert = payload ? sender.render("telegram", payload).text : null;
  let text: string;
  if (alert !== null && alert.length + outcome.length + 2 <= TELEGRAM_LIMITS.text) text = `${alert}\n\n${outcome}`;
  else {
    // The alert at full length leaves no room (or its job is gone): the title and the outcome.
    const title = payload?.title ?? (await jobOfApplication(deps.db, app).catch(() => null))?.job.title ?? "Your application";
    text = `<b>${escapeHtml(title.slice(0, 300))}</b>\n\n${outcome}`;
  }
  return { text, keyboard: funnel ? outcomeKeyboard(funnel) : undefined };
}
