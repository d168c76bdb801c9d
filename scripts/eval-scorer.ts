/**
 * Measures the built-in scorer on the labelled set (tests/fixtures/scoring/*.json, issue 44): Spearman rank
 * correlation of scores with the labels, per profile and overall, and precision/recall of `score >= 6` against
 * `label >= 6`. Run: bun run scripts/eval-scorer.ts [--json]. The figures go to docs/feeds-and-scoring.md.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scoreLocally } from "../src/ai/local-scorer";

interface LabelledJob {
  id: string;
  kind: string;
  label: number;
  title: string;
  skills: string[];
  description: string;
}
interface LabelledSet {
  profile: { id: string; prompt: string };
  jobs: LabelledJob[];
}

const DIR = join(import.meta.dir, "..", "tests", "fixtures", "scoring");

/** Average ranks (ties share the mean rank), 1-based. */
function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]!.x === order[i]!.x) j++;
    for (let k = i; k <= j; k++) out[order[k]!.i] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

export function spearman(a: number[], b: number[]): number {
  const [ra, rb] = [ranks(a), ranks(b)];
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const [ma, mb] = [mean(ra), mean(rb)];
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i]! - ma) * (rb[i]! - mb);
    da += (ra[i]! - ma) ** 2;
    db += (rb[i]! - mb) ** 2;
  }
  return da === 0 || db === 0 ? 0 : num / Math.sqrt(da * db);
}

export interface Evaluation {
  perProfile: { id: string; spearman: number }[];
  spearman: number;
  precision: number;
  recall: number;
  byKind: Record<string, { n: number; meanScore: number; meanLabel: number }>;
}

export function loadSets(): LabelledSet[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(DIR, f), "utf8")) as LabelledSet);
}

export function evaluate(sets: LabelledSet[]): Evaluation {
  const all: { score: number; label: number; kind: string }[] = [];
  const perProfile = sets.map((set) => {
    const rows = set.jobs.map((j) => ({ score: scoreLocally(set.profile.prompt, j).score, label: j.label, kind: j.kind }));
    all.push(...rows);
    return {
      id: set.profile.id,
      spearman: spearman(
        rows.map((r) => r.score),
        rows.map((r) => r.label),
      ),
    };
  });
  const tp = all.filter((r) => r.score >= 6 && r.label >= 6).length;
  const predicted = all.filter((r) => r.score >= 6).length;
  const actual = all.filter((r) => r.label >= 6).length;
  const byKind: Evaluation["byKind"] = {};
  for (const r of all) {
    const k = (byKind[r.kind] ??= { n: 0, meanScore: 0, meanLabel: 0 });
    k.n++;
    k.meanScore += r.score;
    k.meanLabel += r.label;
  }
  for (const k of Object.values(byKind)) {
    k.meanScore = Math.round((k.meanScore / k.n) * 10) / 10;
    k.meanLabel = Math.round((k.meanLabel / k.n) * 10) / 10;
  }
  return {
    perProfile,
    spearman: spearman(
      all.map((r) => r.score),
      all.map((r) => r.label),
    ),
    precision: predicted ? tp / predicted : 0,
    recall: actual ? tp / actual : 0,
    byKind,
  };
}

if (import.meta.main) {
  const sets = loadSets();
  const e = evaluate(sets);
  if (process.argv.includes("--json")) console.log(JSON.stringify(e, null, 2));
  else {
    const f = (x: number) => x.toFixed(2);
    console.log(`${sets.length} profiles, ${sets.reduce((n, s) => n + s.jobs.length, 0)} jobs`);
    for (const p of e.perProfile) console.log(`  ${p.id.padEnd(22)} Spearman ${f(p.spearman)}`);
    console.log(`overall Spearman ${f(e.spearman)}; score >= 6 vs label >= 6: precision ${f(e.precision)}, recall ${f(e.recall)}`);
    for (const [k, v] of Object.entries(e.byKind)) console.log(`  ${k.padEnd(10)} n=${v.n} mean score ${v.meanScore} mean label ${v.meanLabel}`);
  }
}
