import { describe, expect, test } from "bun:test";
import { evaluate, loadSets } from "../../scripts/eval-scorer";
import { scoreLocally } from "../../src/ai/local-scorer";

// Issue 44's goal for the built-in scorer, on the labelled set in tests/fixtures/scoring (6 profiles × 80 jobs).
describe("the built-in scorer on the labelled set", () => {
  const sets = loadSets();
  const result = evaluate(sets);

  test("the set is at least 6 profiles × 80 jobs, with every kind of trap", () => {
    expect(sets.length).toBeGreaterThanOrEqual(6);
    for (const set of sets) expect(set.jobs.length).toBeGreaterThanOrEqual(80);
    for (const kind of ["match", "synonym", "partial", "near-miss", "negation", "spam", "unrelated"]) expect(result.byKind[kind]?.n ?? 0).toBeGreaterThan(20);
  });

  test("ranks like the labels: overall Spearman ≥ 0.75, and ≥ 0.7 for every profile", () => {
    expect(result.spearman).toBeGreaterThanOrEqual(0.75);
    for (const p of result.perProfile) expect(p.spearman).toBeGreaterThanOrEqual(0.7);
  });

  test("score ≥ 6 against label ≥ 6: precision ≥ 0.85 at recall ≥ 0.7", () => {
    expect(result.precision).toBeGreaterThanOrEqual(0.85);
    expect(result.recall).toBeGreaterThanOrEqual(0.7);
  });

  test("spam does not win, negations and near-misses stay low, synonyms are found", () => {
    expect(result.byKind.spam!.meanScore).toBeLessThan(2);
    expect(result.byKind["near-miss"]!.meanScore).toBeLessThan(4);
    expect(result.byKind.negation!.meanScore).toBeLessThan(4);
    expect(result.byKind.synonym!.meanScore).toBeGreaterThan(5);
    expect(result.byKind.unrelated!.meanScore).toBeLessThan(1);
  });

  test("no spam job reaches the default alert threshold of 6", () => {
    for (const set of sets) {
      for (const job of set.jobs.filter((j) => j.kind === "spam")) expect([job.id, scoreLocally(set.profile.prompt, job).score < 6]).toEqual([job.id, true]);
    }
  });
});
