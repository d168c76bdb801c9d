/**
 * How alike two letters are: the Jaccard similarity of their 3-word shingles (every run of three consecutive words),
 * on lower-cased word tokens, so punctuation, case and spacing changes do not count as edits. The sandbox keeps its own
 * sketch-based measure (marketplace/sandbox/rules.ts), which is an adapter's model and not shared.
 */
import { tokenize } from "./text";

/**
 * A sent letter whose shingle similarity to the drafted one is below this was edited by hand (experiments mark it,
 * and their results can leave it out). 0.8 lets a greeting, a name or a sentence be touched up in a typical
 * 150-word letter (each changed word breaks up to three shingles) while a rewritten paragraph falls below it.
 */
export const EDITED_BY_HAND_BELOW = 0.8;

function shingles(text: string): Set<string> {
  const words = tokenize(text);
  const out = new Set<string>();
  // Under three words: the words themselves, so two short texts still compare.
  if (words.length < 3) for (const w of words) out.add(w);
  for (let i = 0; i + 3 <= words.length; i++) out.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return out;
}

function jaccard(x: Set<string>, y: Set<string>): number {
  if (x.size === 0 && y.size === 0) return 1;
  const [small, large] = x.size <= y.size ? [x, y] : [y, x];
  let common = 0;
  for (const s of small) if (large.has(s)) common++;
  return common / (x.size + y.size - common);
}

/** 0–1: |A ∩ B| / |A ∪ B| of the two texts' 3-word shingles; 1 for two texts with no words at all. */
export function shingleSimilarity(a: string, b: string): number {
  return jaccard(shingles(a), shingles(b));
}

/**
 * The text among `others` most like `text`, if any is at least `threshold` alike. `text` is shingled once; a pair
 * whose shingle counts differ more than the threshold allows (Jaccard ≤ smaller ÷ larger) skips the intersection.
 */
export function mostSimilar<T extends { text: string }>(text: string, others: readonly T[], threshold: number): { item: T; similarity: number } | null {
  const x = shingles(text);
  let best: { item: T; similarity: number } | null = null;
  for (const item of others) {
    const y = shingles(item.text);
    const [small, large] = x.size <= y.size ? [x.size, y.size] : [y.size, x.size];
    if (large > 0 && small / large < threshold) continue;
    const similarity = jaccard(x, y);
    if (similarity >= threshold && (best === null || similarity > best.similarity)) best = { item, similarity };
  }
  return best;
}

/** Whether `sent` differs from `drafted` beyond EDITED_BY_HAND_BELOW. */
export const isEditedByHand = (drafted: string, sent: string): boolean => shingleSimilarity(drafted, sent) < EDITED_BY_HAND_BELOW;
