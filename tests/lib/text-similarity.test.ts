import { describe, expect, test } from "bun:test";
import { EDITED_BY_HAND_BELOW, isEditedByHand, shingleSimilarity } from "../../src/lib/text-similarity";

const LETTER =
  "Hello, I read your post about the React dashboard closely. I have built three dashboards like it for logistics clients, " +
  "with charts, filters and exports, and I write tests as I go so changes stay safe. I can start this week and send a first " +
  "preview within five days. Happy to share two recent examples that match your description. Best regards, Ana";

describe("text similarity (3-word shingles)", () => {
  test("case, punctuation and spacing do not count; identical texts are 1, unrelated ones near 0", () => {
    expect(shingleSimilarity(LETTER, LETTER.toUpperCase().replaceAll(",", " ;"))).toBe(1);
    expect(shingleSimilarity(LETTER, "Monthly bookkeeping and bank reconciliation in QuickBooks for a small shop.")).toBe(0);
    expect(shingleSimilarity("", "")).toBe(1);
  });

  test(`a touched-up letter stays at or above ${EDITED_BY_HAND_BELOW}; a rewritten one falls below`, () => {
    expect(isEditedByHand(LETTER, LETTER.replace("Best regards, Ana", "Thanks, Ana"))).toBe(false);
    const rewritten = `${LETTER.split(". ").slice(0, 2).join(". ")}. I would rather talk about your goals first: what should the dashboard change for your team, and by when?`;
    expect(shingleSimilarity(LETTER, rewritten)).toBeLessThan(EDITED_BY_HAND_BELOW);
    expect(isEditedByHand(LETTER, rewritten)).toBe(true);
  });
});
