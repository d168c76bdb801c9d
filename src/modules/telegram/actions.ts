/**
 * Buttons pressed under the bot's messages. Every press is answered
 * (answerCallbackQuery: Telegram shows a spinner until then), at once when
 * the work takes a while (writing a letter); a press in an unbound chat only
 * gets the refusal. The id a button carries is looked up under the chat's
 * account, never taken on trust.
 *
 *  - Draft proposal: the letter (model or local writer, the feed's proposal
 *    prompt) as a reply, with Apply with this / Regenerate / Regenerate with
 *    an instruction. The last asks (force-reply) how the next letter should
 *    differ; the chat's reply to that question is the instruction, and the
 *    new letter comes as a new draft (handleInstructionReply).
 *  - Apply (and Apply with this): the API's apply, with a letter written now
 *    (or the draft's); the application's final status edits the alert later
 *    (settled.task.ts). A 402/409/4xx is said in the chat.
 *  - Not interested: the job is marked read in its feed.
 *  - Mute / Unmute under /feeds: the feed changes and the list is redrawn.
 *  - Replied / Interview / Hired / Lost under an applied alert: the funnel's
 *    recordOutcome, then the alert shows the stage reached (outcomes.ts).
 *  - Approve / Discard under "Waiting for your approval": the review API's
 *    reviewHeld, then the message says "Approved — sending" or "Discarded".
 *  - Block client under an alert (a job that names its client): the client
 *    goes on the account's blocked list, as PUT /api/v1/client-lists does, and
 *    the alert says so with an Undo, which takes it off again.
 */
import { AppError, clientMessage } from "../../errors";
import { escapeHtml } from "../../lib/html";
import { newId } from "../../lib/ids";
import { recordOutcome } from "../applications/funnel";
import { findAccountApplication } from "../applications/repo";
import { reviewHeld } from "../applications/review";
import { apply } from "../applications/service";
import { jobSummaries } from "../jobs/repo";
import { TELEGRAM_LIMITS } from "../channels/kinds/telegram";
import { fitText } from "../channels/kinds/text";
import { channelSenderOf } from "../delivery/channel-delivery";
import { actionButton, parseAction, type InlineKeyboard, type TelegramAction } from "../channels/telegram-actions";
import { clientListEntry, putClientList, removeClientList } from "../clients/lists";
import { feedJobPayload } from "../feeds/outbox-event-payload";
import { findFeed, findFeedJobForAccount, type FeedJobRow } from "../feeds/repo";
import { patchFeed, patchFeedJob, resolveJobRef } from "../feeds/service";
import { getExperiment } from "../experiments/service";
import { INSTRUCTION_MAX_LENGTH } from "../proposals/model";
import { generateProposal } from "../proposals/service";
import { type BotContext, type BoundChat, boundChat, callBot, edit, NOT_BOUND, refusalOf, say, sendMessage } from "./chat";
import { feedsMessage } from "./commands";
import type { TgCallbackQuery, TgMessage } from "./model";
import { OUTCOME_BUTTONS, RECORDED } from "./outcomes";
import * as repo from "./repo";
import { settledAlert, TELEGRAM_SETTLED_TASK, type SettledAlert } from "./settled.task";

/** Drafts older than this are forgotten: their Apply with this button then says so. */
const DRAFT_KEEP_MS = 7 * 24 * 3_600_000;
/** Regenerate moves through the writer's efforts, so the local writer (same job, same words) writes another letter. */
const EFFORTS = ["low", "medium", "high"] as const;
type Effort = (typeof EFFORTS)[number];

const GONE = "This job is not in your feeds any more.";

interface Press {
  ctx: BotContext;
  bound: BoundChat;
  /** The message the button is under. */
  message: TgMessage;
  /** The id the button carries (a feed job, a draft or a feed), not yet checked. */
  id: string;
  /** Answers the press (once; later calls do nothing). `alert`: a dialog instead of a passing notice. */
  answer: (text?: string, alert?: boolean) => Promise<void>;
}

const ACTIONS: Record<TelegramAction, (p: Press) => Promise<void>> = {
  draft: async (p) => {
    const entry = await feedEntry(p);
    if (!entry) return p.answer(GONE, true);
    await p.answer("Writing a cover letter…");
    const letter = await writeLetter(p.ctx, p.bound, entry, "low");
    await sendDraft(p.ctx, p.bound, { feedJobId: entry.id, alertMessageId: p.message.messageId, effort: "low" }, letter, p.message.messageId);
  },

  apply: async (p) => {
    const entry = await feedEntry(p);
    if (!entry) return p.answer(GONE, true);
    await p.answer("Writing a cover letter and applying…");
    const letter = await writeLetter(p.ctx, p.bound, entry, "low");
    await applyWith(p, entry, letter.text, p.message.messageId);
  },

  applyDraft: async (p) => {
    const found = await draftAndEntry(p);
    if (!found) return;
    const { draft, entry } = found;
    await p.answer("Applying…");
    await applyWith(p, entry, draft.coverLetter, draft.alertMessageId);
  },

  regenerate: async (p) => {
    const found = await draftAndEntry(p);
    if (!found) return;
    const { draft, entry } = found;
    await p.answer("Writing another letter…");
    const effort = EFFORTS[(EFFORTS.indexOf(draft.effort as Effort) + 1) % EFFORTS.length]!;
    const letter = await writeLetter(p.ctx, p.bound, entry, effort);
    await repo.updateDraft(p.ctx.deps.db, draft.id, { coverLetter: letter.text, effort });
    await edit(p.ctx, p.bound.chat.chatId, p.message.messageId, draftHtml(letter), draftKeyboard(draft.id));
  },

  // The question is a force-reply, so the chat's input opens as a reply to it; the reply is read by
  // handleInstructionReply, which finds the draft by the question's message id.
  instruct: async (p) => {
    const found = await draftAndEntry(p);
    if (!found) return;
    await p.answer("Reply with your instruction.");
    const asked = await sendMessage(p.ctx, p.bound.chat.chatId, INSTRUCTION_QUESTION, {
      replyTo: p.message.messageId,
      keyboard: { force_reply: true, input_field_placeholder: "e.g. shorter, mention the Shopify app", selective: true },
    });
    if (asked !== null) await repo.updateDraft(p.ctx.deps.db, found.draft.id, { promptMessageId: asked });
  },

  notInterested: async (p) => {
    const entry = await feedEntry(p);
    if (!entry) return p.answer(GONE, true);
    await patchFeedJob(p.ctx.deps, p.bound.auth, entry.feedId, entry.id, { read: true });
    const feed = await findFeed(p.ctx.deps.db, p.bound.chat.accountId, entry.feedId);
    await p.answer(`Marked as read${feed ? ` in “${feed.title.slice(0, 100)}”` : ""}.`);
  },

  blockClient: async (p) => {
    const alert = await alertOfEntry(p);
    if (!alert) return;
    await putClientList(p.ctx.deps, p.bound.auth, alert.companyId, { list: "blocked", reason: BLOCKED_FROM_TELEGRAM });
    await p.answer("Client blocked: their jobs will not enter your feeds again.");
    await edit(p.ctx, p.bound.chat.chatId, p.message.messageId, withLine(alert, BLOCKED_LINE), {
      inline_keyboard: [[actionButton("Undo", "unblockClient", alert.feedJobId)]],
    });
  },

  // Only a block is undone: a client favoured or unblocked elsewhere since stays as it is now.
  unblockClient: async (p) => {
    const alert = await alertOfEntry(p);
    if (!alert) return;
    if ((await clientListEntry(p.ctx.deps, p.bound.chat.accountId, alert.companyId))?.list === "blocked")
      await removeClientList(p.ctx.deps, p.bound.auth, alert.companyId);
    await p.answer("Client unblocked.");
    await edit(p.ctx, p.bound.chat.chatId, p.message.messageId, alert.text, alert.keyboard);
  },

  approveHeld: (p) => reviewPressed(p, "approve"),
  discardHeld: (p) => reviewPressed(p, "discard"),

  mute: (p) => toggleMute(p, true),
  unmute: (p) => toggleMute(p, false),

  ...(Object.fromEntries(OUTCOME_BUTTONS.map((b) => [b.action, (p: Press) => recordPressed(p, b.outcome)])) as Record<
    (typeof OUTCOME_BUTTONS)[number]["action"],
    (p: Press) => Promise<void>
  >),
};

export async function handleCallback(ctx: BotContext, cq: TgCallbackQuery): Promise<void> {
  let isAnswered = false;
  const answer = async (text?: string, alert = false) => {
    if (isAnswered) return;
    isAnswered = true;
    const out = await callBot(ctx.deps, ctx.bot.token, "answerCallbackQuery", {
      callback_query_id: cq.id,
      ...(text ? { text: text.slice(0, 200), show_alert: alert } : {}),
    });
    if (!out.ok) ctx.deps.log.warn("telegram answerCallbackQuery failed", { bot: ctx.bot.id, error: out.error });
  };
  try {
    const action = parseAction(cq.data);
    if (!action || !cq.message) return await answer("This button no longer works.");
    const bound = await boundChat(ctx, cq.message.chat.id);
    if (!bound) return await answer(NOT_BOUND, true);
    try {
      await ACTIONS[action.action]({ ctx, bound, message: cq.message, id: action.id, answer });
    } catch (err) {
      const refusal = refusalOf(err);
      // Not the caller's doing (the database, a bug): say so, and let the poller log it.
      const said = refusal ?? "Something went wrong on jobpilot's side. Try again in a moment.";
      // Answered already when the work started: the refusal goes in the chat.
      if (isAnswered) await say(ctx, bound.chat.chatId, escapeHtml(said), { replyTo: cq.message.messageId });
      else await answer(said, true);
      if (refusal === null) throw err;
    }
  } finally {
    await answer();
  }
}

const INSTRUCTION_QUESTION = `✏️ <b>How should the next letter differ?</b> Reply to this message with your instruction, e.g. “shorter”, “mention the Shopify app” or “less formal” (at most ${INSTRUCTION_MAX_LENGTH} characters).`;

/**
 * A message that replies to the bot's instruction question (see `instruct`): the letter is written again with it
 * (kept with the job's versions, as generate-proposal keeps every letter) and comes as a new draft with its own
 * buttons, so the earlier draft's Apply with this still sends the letter shown above it. A reply to any other
 * message, or in a chat no account bound, is ignored like every plain message. Throws only when the database does.
 */
export async function handleInstructionReply(ctx: BotContext, msg: TgMessage): Promise<void> {
  if (msg.replyToMessageId === null || !msg.text) return;
  const bound = await boundChat(ctx, msg.chat.id);
  if (!bound) return;
  const draft = await repo.findDraftByPrompt(ctx.deps.db, bound.chat.accountId, bound.chat, msg.replyToMessageId);
  if (!draft) return;
  const chatId = bound.chat.chatId;
  const instruction = msg.text.trim();
  if (instruction === "") return;
  if (instruction.length > INSTRUCTION_MAX_LENGTH) {
    await say(
      ctx,
      chatId,
      `That instruction has ${instruction.length} characters; at most ${INSTRUCTION_MAX_LENGTH} fit. Reply to the question again with a shorter one.`,
      { replyTo: msg.messageId },
    );
    return;
  }
  const entry = await findFeedJobForAccount(ctx.deps.db, bound.chat.accountId, draft.feedJobId);
  if (!entry) {
    await say(ctx, chatId, escapeHtml(GONE), { replyTo: msg.messageId });
    return;
  }
  // Writing takes seconds: "typing…" in the chat's header says the reply was heard (a failure changes nothing).
  await callBot(ctx.deps, ctx.bot.token, "sendChatAction", { chat_id: chatId, action: "typing" });
  try {
    const letter = await writeLetter(ctx, bound, entry, draft.effort as Effort, instruction);
    await sendDraft(ctx, bound, { feedJobId: entry.id, alertMessageId: draft.alertMessageId, effort: draft.effort }, letter, msg.messageId);
  } catch (err) {
    const refusal = refusalOf(err);
    await say(ctx, chatId, escapeHtml(refusal ?? "Something went wrong on jobpilot's side. Try again in a moment."), { replyTo: msg.messageId });
    if (refusal === null) throw err;
  }
}

/** Stores a new draft of the letter and sends it, as a reply to `replyTo`, with its buttons. */
async function sendDraft(
  ctx: BotContext,
  bound: BoundChat,
  of: Pick<repo.DraftRow, "feedJobId" | "alertMessageId" | "effort">,
  letter: Letter,
  replyTo: number,
): Promise<void> {
  const draft: repo.DraftRow = {
    id: newId(),
    accountId: bound.chat.accountId,
    botId: ctx.bot.id,
    chatId: bound.chat.chatId,
    ...of,
    coverLetter: letter.text,
    createdAtTs: ctx.deps.clock.now(),
    promptMessageId: null,
  };
  await repo.deleteDraftsBefore(ctx.deps.db, draft.createdAtTs - DRAFT_KEEP_MS);
  await repo.insertDraft(ctx.deps.db, draft);
  await say(ctx, bound.chat.chatId, draftHtml(letter), { replyTo, keyboard: draftKeyboard(draft.id) });
}

/** The feed job a button names, if it is one of the chat's account's. */
function feedEntry(p: Press): Promise<FeedJobRow | undefined> {
  return findFeedJobForAccount(p.ctx.deps.db, p.bound.chat.accountId, p.id);
}

/** The reason a client blocked from an alert gets on the account's list. */
export const BLOCKED_FROM_TELEGRAM = "Blocked from a Telegram alert";
const BLOCKED_LINE = "🚫 <b>Client blocked</b>: their jobs will not enter your feeds again.";

/** The alert's text with a line under it, when both fit in one message; else the job's title with it (as settledAlert does). */
function withLine(alert: { text: string; title: string }, line: string): string {
  if (alert.text.length + line.length + 2 <= TELEGRAM_LIMITS.text) return `${alert.text}\n\n${line}`;
  return `<b>${escapeHtml(alert.title.slice(0, 300))}</b>\n\n${line}`;
}

/**
 * The alert a Block client / Undo button is under, drawn again as it was sent, with the job's client; else the press
 * is answered (the job left the account's feeds, or it names no client) and null.
 */
async function alertOfEntry(
  p: Press,
): Promise<{ feedJobId: string; companyId: string; title: string; text: string; keyboard: InlineKeyboard | undefined } | null> {
  const entry = await feedEntry(p);
  const payload = entry ? await feedJobPayload(p.ctx.deps.db, p.ctx.deps.clock, entry.id) : null;
  if (!entry || !payload) {
    await p.answer(GONE, true);
    return null;
  }
  if (payload.companyId === null) {
    await p.answer("This job does not name its client, so there is no client to block.", true);
    return null;
  }
  const rendered = channelSenderOf(p.ctx.deps).render("telegram", payload);
  const keyboard = rendered.replyMarkup as InlineKeyboard | undefined;
  return { feedJobId: entry.id, companyId: payload.companyId, title: payload.title, text: rendered.text, keyboard };
}

/** The draft a button names and its feed job, if both are still the chat's account's; else the press is answered saying so. */
async function draftAndEntry(p: Press): Promise<{ draft: repo.DraftRow; entry: FeedJobRow } | null> {
  const draft = await repo.findDraft(p.ctx.deps.db, p.bound.chat.accountId, p.bound.chat, p.id);
  if (!draft) {
    await p.answer("This draft is no longer available: press Draft proposal under the alert again.", true);
    return null;
  }
  const entry = await findFeedJobForAccount(p.ctx.deps.db, p.bound.chat.accountId, draft.feedJobId);
  if (!entry) {
    await p.answer(GONE, true);
    return null;
  }
  return { draft, entry };
}

interface Letter {
  title: string;
  text: string;
  /** The regeneration's instruction, said above the letter. */
  instruction?: string;
  /** The experiment and arm the letter was written under (docs/experiments.md: the feed's experiment, else one for all feeds). */
  experiment?: { name: string; arm: string };
}

/**
 * A letter for the job, written as the API's generate-proposal writes it (with the feed's proposal prompt, or its
 * experiment arm's, and the regeneration's instruction when there is one).
 */
async function writeLetter(ctx: BotContext, bound: BoundChat, entry: FeedJobRow, effort: Effort, instruction?: string): Promise<Letter> {
  const { job } = await resolveJobRef(ctx.deps, bound.auth, entry.id);
  const body = { jobId: entry.id, feedId: entry.feedId, reasoningEffort: effort, ...(instruction ? { instruction } : {}) };
  const written = await generateProposal(ctx.deps, bound.auth, body);
  const letter: Letter = { title: job.title, text: written.proposal, ...(instruction ? { instruction } : {}) };
  if (written.experiment) {
    const experiment = await getExperiment(ctx.deps, bound.auth, written.experiment.id);
    letter.experiment = { name: experiment.name, arm: written.experiment.armName };
  }
  return letter;
}

/** Applies through the API's apply; the final status comes back as a task that edits the alert. */
async function applyWith(p: Press, entry: FeedJobRow, coverLetter: string, alertMessageId: number): Promise<void> {
  const { chat } = p.bound;
  const settled: SettledAlert = { botId: p.ctx.bot.id, chatId: chat.chatId, channelId: chat.channelId, alertMessageId, feedJobId: entry.id };
  const queued = await apply(
    p.ctx.deps,
    p.bound.auth,
    // Screening questions cannot be answered from a chat: the writer answers them, as autoFillOtherQuestions does.
    { jobId: entry.id, coverLetter, autoFillOtherQuestions: true },
    { onSettled: { kind: TELEGRAM_SETTLED_TASK, payload: { ...settled } } },
  );
  await say(
    p.ctx,
    chat.chatId,
    `📨 Application queued (${queued.creditsRemaining} credit${queued.creditsRemaining === 1 ? "" : "s"} left; one is charged only if it succeeds). The alert will show how it went.`,
    { replyTo: p.message.messageId },
  );
}

async function toggleMute(p: Press, muted: boolean): Promise<void> {
  const feed = await findFeed(p.ctx.deps.db, p.bound.chat.accountId, p.id);
  if (!feed) return p.answer("This feed no longer exists.", true);
  if (feed.notificationsMuted !== muted) await patchFeed(p.ctx.deps, p.bound.auth, feed.id, { notificationsMuted: muted });
  await p.answer(`${muted ? "Muted" : "Unmuted"} “${feed.title.slice(0, 100)}”.`);
  const list = await feedsMessage(p.ctx, p.bound.auth);
  await edit(p.ctx, p.bound.chat.chatId, p.message.messageId, list.html, list.keyboard);
}

/**
 * An outcome button: recorded as the API records it, under the chat's account (another account's application is
 * "not found", like a made-up id). A refusal (a backwards move: 409) is the answer and nothing changes; once
 * recorded, the alert is redrawn with the stage reached and the buttons still open.
 */
async function recordPressed(p: Press, outcome: (typeof OUTCOME_BUTTONS)[number]["outcome"]): Promise<void> {
  try {
    await recordOutcome(p.ctx.deps, p.bound.auth, p.id, { outcome });
  } catch (err) {
    // The funnel's own words ("already at interview … would move it backwards"), not the apply refusals' "Not applied:".
    if (err instanceof AppError && err.status < 500) return p.answer(clientMessage(err), true);
    throw err;
  }
  await p.answer(RECORDED[outcome]);
  const app = await findAccountApplication(p.ctx.deps.db, p.bound.chat.accountId, p.id);
  if (!app) return;
  const { text, keyboard } = await settledAlert(p.ctx.deps, channelSenderOf(p.ctx.deps), app, app.processedJobId);
  // No keyboard (lost): the edit drops the buttons, as the settled alert's does.
  await edit(p.ctx, p.bound.chat.chatId, p.message.messageId, text, keyboard);
}

/** Why Approve is not offered for a fill-in hold (telegram cannot edit the answers). */
export const FILL_IN_ON_DASHBOARD = "Fill the answers in on the dashboard's Review page, then approve it there.";

/**
 * Approve or Discard under a held application's alert: decided as the review API decides, under the chat's account
 * (another account's application is "not found", like a made-up id). One already decided (another press, the
 * dashboard) is the review's 409, said in the answer; the alert then drops its buttons all the same.
 */
async function reviewPressed(p: Press, decision: "approve" | "discard"): Promise<void> {
  const app = await findAccountApplication(p.ctx.deps.db, p.bound.chat.accountId, p.id);
  const title = app ? ((await jobSummaries(p.ctx.deps.db, [app.jobCiphertext])).get(app.jobCiphertext)?.title ?? "") : "";
  try {
    await reviewHeld(p.ctx.deps, p.bound.auth, p.id, decision);
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    // A "[your …]" slot left in an answer or the letter (a fill-in hold): it still waits, to be filled in where it can be edited.
    if (err.code === "bad_request") return p.answer(`${clientMessage(err)}. ${FILL_IN_ON_DASHBOARD}`, true);
    await p.answer(clientMessage(err), true);
    if (app) await edit(p.ctx, p.bound.chat.chatId, p.message.messageId, `<b>No longer waiting for review:</b> ${escapeHtml(title.slice(0, 300))}`);
    return;
  }
  await p.answer(decision === "approve" ? "Approved: it goes out within the governor's limits." : "Discarded: nothing was sent or charged.");
  const head = decision === "approve" ? "✅ <b>Approved — sending</b>" : "🗑 <b>Discarded</b>";
  // No keyboard: the edit drops Approve / Discard, so the decision cannot be pressed twice.
  await edit(p.ctx, p.bound.chat.chatId, p.message.messageId, title === "" ? head : `${head}\n${escapeHtml(title.slice(0, 300))}`);
}

function draftHtml(letter: Letter): string {
  const head = `✍️ <b>Cover letter</b> for <i>${escapeHtml(letter.title.slice(0, 200))}</i>\n`;
  // Said above the letter so the freelancer knows why it reads as it does, and that editing it much takes it out of the test.
  const arm = letter.experiment
    ? `🧪 Experiment “${escapeHtml(letter.experiment.name.slice(0, 100))}”: arm “${escapeHtml(letter.experiment.arm.slice(0, 60))}”, picked at random for this job.\n`
    : "";
  const asked = letter.instruction ? `✏️ Instruction: “${escapeHtml(letter.instruction)}”\n` : "";
  return `${head}${arm}${asked}\n${fitText(letter.text, TELEGRAM_LIMITS.text - head.length - arm.length - asked.length - 10, escapeHtml)}`;
}

function draftKeyboard(draftId: string) {
  return {
    inline_keyboard: [
      [actionButton("Apply with this", "applyDraft", draftId), actionButton("Regenerate", "regenerate", draftId)],
      [actionButton("Regenerate with an instruction", "instruct", draftId)],
    ],
  };
}
