/**
 * The outcome buttons under an applied alert (issue 40): Replied, Interview, Hired, Lost. A press records the
 * outcome through the funnel's own recordOutcome, so its rules (stages only move forward, lost is final, another
 * account's application is "not found") are the API's; the alert then shows the stage reached and keeps only the
 * buttons that would still move the proposal forward.
 */
import { escapeHtml } from "../../lib/html";
import type { ApplicationFunnel, RecordableOutcome } from "../applications/model";
import { actionButton, type InlineKeyboard, type TelegramAction } from "../channels/telegram-actions";

/** The buttons, in funnel order: what each records and says. Withdrawn stays with the dashboard and the API. */
export const OUTCOME_BUTTONS = [
  { action: "outcomeReplied", outcome: "replied", text: "Replied" },
  { action: "outcomeInterview", outcome: "interview", text: "Interview" },
  { action: "outcomeHired", outcome: "hired", text: "Hired" },
  { action: "outcomeLost", outcome: "lost", text: "Lost" },
] as const satisfies readonly { action: TelegramAction; outcome: RecordableOutcome; text: string }[];

/** What the press answers once the outcome is recorded (a hire's value cannot be typed under a button). */
export const RECORDED: Record<(typeof OUTCOME_BUTTONS)[number]["outcome"], string> = {
  replied: "Recorded: the client replied.",
  interview: "Recorded: interview.",
  hired: "Recorded: hired 🎉 Add the contract's value in the dashboard.",
  lost: "Recorded: lost.",
};

const STAGE_LABELS = {
  viewed: "👀 viewed",
  replied: "💬 replied",
  interview: "📅 interview",
  hired: "🎉 hired",
  lost: "❌ lost",
  withdrawn: "↩️ withdrawn",
  no_reply: "🔇 no reply",
} as const;

/** The stage the funnel reached, as the alert shows it; null while the proposal is only sent. */
export function stageLabel(funnel: ApplicationFunnel): string | null {
  // A hire that fell through keeps its hire time: the outcome (lost) is what stands.
  if (funnel.outcome === "lost" || funnel.outcome === "withdrawn") return STAGE_LABELS[funnel.outcome];
  if (funnel.stages.hired !== null) return STAGE_LABELS.hired;
  if (funnel.stages.interview !== null) return STAGE_LABELS.interview;
  if (funnel.stages.replied !== null) return STAGE_LABELS.replied;
  if (funnel.outcome === "no_reply") return STAGE_LABELS.no_reply;
  if (funnel.stages.viewed !== null) return STAGE_LABELS.viewed;
  return null;
}

/** The alert's outcome line for a sent proposal, or "" while it is only sent. */
export function stageLine(funnel: ApplicationFunnel): string {
  const label = stageLabel(funnel);
  return label === null ? "" : `\n<b>Outcome:</b> ${escapeHtml(label)}`;
}

/**
 * The buttons that still move the proposal forward: none once it is lost or withdrawn (final), only Lost once
 * hired (a contract that fell through), and otherwise every later stage plus Lost. None for an application that
 * was never sent: it has no outcome to record.
 */
export function outcomeKeyboard(funnel: ApplicationFunnel): InlineKeyboard | undefined {
  if (funnel.applicationStatus !== "applied" || funnel.outcome === "lost" || funnel.outcome === "withdrawn") return undefined;
  const rank = funnel.stages.hired !== null ? 3 : funnel.stages.interview !== null ? 2 : funnel.stages.replied !== null ? 1 : 0;
  const open = OUTCOME_BUTTONS.filter((b, i) => b.outcome === "lost" || i >= rank);
  return { inline_keyboard: [open.map((b) => actionButton(b.text, b.action, funnel.queueId))] };
}
