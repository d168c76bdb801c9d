/**
 * The "[your …]" slots the local writer leaves for what only the freelancer knows (ai/local-writer FILL_IN). A slot
 * must never reach a client: apply refuses a letter or answer that still has one, the submit task holds drafted
 * answers that have one for review (`fill-in:<n>`), and an approval is refused until they are filled in: with what
 * is true, not emptied (an approver who clears a drafted answer would send the client a blank one).
 */
import { FILL_IN } from "../../ai/local-writer";
import { AppError } from "../../errors";

/** held_reason of an application whose drafted answers wait to be filled in: `fill-in:<answers with a slot>`. */
export const FILL_IN_HOLD = "fill-in";

export type Answer = { position: number; answer: string };

/** The first slot left in a text, or null. */
export const slotIn = (text: string): string | null => FILL_IN.exec(text)?.[0] ?? null;

/** A slot left in the letter (index null) or in an answer (its index in the list and its question's position). */
export interface SlotLeft {
  slot: string;
  answer: { index: number; position: number } | null;
}

/** Every text that still has a slot: the letter first, then the answers in their order. */
export function slotsLeft(coverLetter: string, answers: readonly Answer[]): SlotLeft[] {
  const out: SlotLeft[] = [];
  const inLetter = slotIn(coverLetter);
  if (inLetter !== null) out.push({ slot: inLetter, answer: null });
  answers.forEach((a, index) => {
    const slot = slotIn(a.answer);
    if (slot !== null) out.push({ slot, answer: { index, position: a.position } });
  });
  return out;
}

/** The first of these answers left blank (its index in the list and its question's position), or null. */
export function blankAnswer(answers: readonly Answer[]): { index: number; position: number } | null {
  const index = answers.findIndex((a) => a.answer.trim() === "");
  return index < 0 ? null : { index, position: answers[index]!.position };
}

/**
 * The 400 for the first slot left, naming its field as the caller's body has it (`coverLetter`,
 * `questionAnswers[1].answer`); `fieldOf` names an answer the body did not send (kept from the application).
 */
export function assertFilledIn(
  coverLetter: string,
  answers: readonly Answer[],
  fieldOf = (a: { index: number; position: number }) => `questionAnswers[${a.index}].answer`,
): void {
  const [first] = slotsLeft(coverLetter, answers);
  if (!first) return;
  const field = first.answer === null ? "coverLetter" : fieldOf(first.answer);
  throw new AppError("bad_request", `${field} still has "${first.slot}" to fill in`);
}
