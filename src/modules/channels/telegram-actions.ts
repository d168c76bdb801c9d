/**
 * The inline buttons of interactive Telegram and what their callback data
 * says. Telegram hands a button's `callback_data` (at most 64 bytes) back
 * when it is pressed; ours is a letter or two for the action and the id it
 * acts on (`d:<feed job id>`), at most 39 bytes. The bot never trusts it: the id is looked
 * up under the account the pressing chat is bound to (modules/telegram).
 *
 * Here, beside the renderers, because the deliverer puts the alert's buttons
 * on the message and the bot reads them back: one definition for both.
 */
import { isUuid } from "../../lib/ids";

export const TELEGRAM_ACTIONS = {
  /** Alert: write a cover letter for the job (id: the feed job). */
  draft: "d",
  /** Alert: write a letter and apply with it (id: the feed job). */
  apply: "a",
  /** Alert: mark the job read in its feed (id: the feed job). */
  notInterested: "n",
  /** Alert: put the job's client on the account's blocked list (id: the feed job; its client is read from the job). */
  blockClient: "b",
  /** Blocked alert: take that client off the blocked list again (id: the feed job). */
  unblockClient: "ub",
  /** Draft: apply with the letter shown (id: the draft). */
  applyDraft: "w",
  /** Draft: write the letter again (id: the draft). */
  regenerate: "r",
  /** Draft: ask for an instruction (a reply to the bot's question), then write the letter again with it (id: the draft). */
  instruct: "ri",
  /** /feeds: mute the feed (id: the feed). */
  mute: "m",
  /** /feeds: unmute the feed (id: the feed). */
  unmute: "u",
  /** Applied alert: record the client's reply, an interview, a hire or a loss (id: the application's queue id). */
  outcomeReplied: "or",
  outcomeInterview: "oi",
  outcomeHired: "oh",
  outcomeLost: "ol",
  /** Waiting for approval: approve the held application (id: its queue id). */
  approveHeld: "ha",
  /** Waiting for approval: discard it (id: its queue id). */
  discardHeld: "hd",
} as const;

export type TelegramAction = keyof typeof TELEGRAM_ACTIONS;

const BY_CODE = new Map(Object.entries(TELEGRAM_ACTIONS).map(([action, code]) => [code as string, action as TelegramAction]));

export interface InlineButton {
  text: string;
  callback_data: string;
}

export interface InlineKeyboard {
  inline_keyboard: InlineButton[][];
}

/** A button that does `action` on `id` (a UUID, so the data stays far within Telegram's 64 bytes). */
export function actionButton(text: string, action: TelegramAction, id: string): InlineButton {
  return { text, callback_data: `${TELEGRAM_ACTIONS[action]}:${id}` };
}

/** The action and id a pressed button carries, or null for anything that is not one of ours. */
export function parseAction(data: unknown): { action: TelegramAction; id: string } | null {
  if (typeof data !== "string" || data.length > 64) return null;
  const colon = data.indexOf(":");
  const action = BY_CODE.get(data.slice(0, colon));
  const id = data.slice(colon + 1);
  return action !== undefined && isUuid(id) ? { action, id } : null;
}

/** The label of the alert's block button (the bot's tests and docs/alerts.md name it). */
export const BLOCK_CLIENT_LABEL = "🚫 Block client";

/** The buttons under a matched job's alert; Block client only when the job names its client (a company id). */
export function alertKeyboard(feedJobId: string, hasClient = false): InlineKeyboard {
  const notInterested = actionButton("Not interested", "notInterested", feedJobId);
  return {
    inline_keyboard: [
      [actionButton("Draft proposal", "draft", feedJobId), actionButton("Apply", "apply", feedJobId)],
      hasClient ? [notInterested, actionButton(BLOCK_CLIENT_LABEL, "blockClient", feedJobId)] : [notInterested],
    ],
  };
}

/**
 * The buttons under a held application's alert ("Waiting for your approval"). One whose screening answers wait to be
 * filled in (kind fill-in) is approved on the dashboard's Review page, where they can be edited: only Discard here.
 */
export function heldKeyboard(queueId: string, kind?: string): InlineKeyboard {
  const discard = actionButton("Discard", "discardHeld", queueId);
  return { inline_keyboard: [kind === "fill-in" ? [discard] : [actionButton("Approve", "approveHeld", queueId), discard]] };
}
