/**
 * One update from a bot's getUpdates, handled: a command typed in a chat
 * (commands.ts) or a button pressed under one of the bot's messages
 * (actions.ts). Whatever a chat acts on is looked up under the account the
 * chat is bound to: a button's id from another account's alert is "not
 * found", like a made-up one.
 *
 * Handlers call the same services as the API (feeds, proposals,
 * applications), so every check, credit rule and outcome is the API's; what
 * the API would answer as a 4xx is said in the chat.
 */
import { handleCallback, handleInstructionReply } from "./actions";
import type { BotContext } from "./chat";
import { handleMessage } from "./commands";
import { readUpdate } from "./model";

/** Handles one update; throws only when the database fails (the poller logs it and moves on). */
export async function handleUpdate(ctx: BotContext, raw: unknown): Promise<void> {
  const update = readUpdate(raw);
  if (update === null) return;
  if (update.callbackQuery) return handleCallback(ctx, update.callbackQuery);
  const msg = update.message;
  // A reply that is not a command may answer the bot's instruction question (actions.ts); commands are commands.
  if (msg?.text && msg.replyToMessageId !== null && !msg.text.trim().startsWith("/")) return handleInstructionReply(ctx, msg);
  if (msg?.text) return handleMessage(ctx, msg);
}
