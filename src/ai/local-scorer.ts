/**
 * The local scorer: rates a job 0–10 against a feed's plain-language profile
 * prompt without any AI model. It is the default when no model is configured,
 * so it has to be deterministic, explainable and fast.
 *
 * How it judges:
 * 1. The prompt becomes weighted terms (stems, see ./stem). Rare terms weigh
 *    more: with corpus statistics by IDF, otherwise by a heuristic (technical
 *    names and long words above generic job words). Repeated or list-like
 *    terms ("Python, Django, Postgres") get a little extra.
 * 2. Terms after "no", "not", "without", "avoid", "except", "never",
 *    "don't want" up to the end of that clause are negative terms. Terms
 *    joined by "or" are alternatives: either one satisfies the group.
 * 3. Each term is looked up in the job: in the title or skills it counts fully,
 *    only in the description it counts partly (more if repeated, less in a
 *    very long description). Adjacent prompt words found as the same phrase in
 *    the job ("machine learning") add a bonus; "front-end", "front end" and
 *    "frontend" meet, as do spellings like "k8s"/"kubernetes".
 * 4. The weighted coverage maps to 0–10 through a concave curve; every
 *    negative term present multiplies the score down.
 *
 * Steps 1 and 2 (reading the prompt) are local-scorer-prompt.ts; this file scans the job and scores.
 */
import { tokenize } from "../lib/text";
import { judgeConcepts } from "./local-scorer-concepts";
import { headKey, promptFor, type ParsedPrompt } from "./local-scorer-prompt";
import { AMBIGUOUS, contentStem, corpusWeight, GENERIC_STEMS, MAX_TEXT_CHARS } from "./stem";

export interface ScoringJob {
  title: string;
  description: string;
  skills: string[];
}
/** Document frequencies of stems across the job archive, to weight rare terms; optional. */
export interface CorpusStats {
  totalDocs: number;
  docFreq(stem: string): number;
}
export interface LocalScore {
  score: number;
  reason: string;
}
/** The stems a text contributes (after stopwords), for maintaining CorpusStats. */
export { stemsOf } from "./stem";

const MAX_SKILLS = 200;
const MAX_REASON = 200;
/** Share of the word-level fit in a score the concept reading decides. */
const WORD_SHARE = 0.2;
/** How much a description-only match can count, relative to a title/skills match. */
const DESCRIPTION_MAX = 0.75;
/** Share of a phrase's word weights added when the job contains the phrase itself. */
const PHRASE_BONUS = 0.3;
/** Score multipliers for one negative term present in the job. */
const NEGATIVE_IN_TITLE_OR_SKILLS = 0.3;
const NEGATIVE_IN_DESCRIPTION = 0.45;
const NEGATIVE_REPEATED_IN_DESCRIPTION = 0.4;

// ---------------------------------------------------------------- the job

/** Per term, phrase and negative: found in title/skills (strong), and how often in the description. */
interface Hits {
  termStrong: Uint8Array;
  termDesc: Uint32Array;
  phraseFound: Uint8Array;
  negStrong: Uint8Array;
  negDesc: Uint32Array;
  anyContent: boolean; // the job has at least one meaningful word
}

function scanField(p: ParsedPrompt, text: string, strong: boolean, hits: Hits): number {
  const tokens = tokenize(text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text);
  const markTerm = (i: number): void => void (strong ? (hits.termStrong[i] = 1) : hits.termDesc[i]!++);
  const markNeg = (i: number): void => void (strong ? (hits.negStrong[i] = 1) : hits.negDesc[i]!++);
  const markWord = (stem: string): void => {
    const t = p.termIndex.get(stem);
    if (t !== undefined) markTerm(t);
    const n = p.negIndex.get(stem);
    if (n !== undefined) markNeg(n);
  };
  let prevStem = "";
  let prevRaw = "";
  for (const raw of tokens) {
    // Stemming every word of a long description is the main cost; most words cannot be a prompt term.
    const stem = p.heads.has(headKey(raw)) || !hits.anyContent ? contentStem(raw) : "";
    if (stem) {
      hits.anyContent = true;
      markWord(stem);
      const c = p.compoundIndex.get(stem);
      if (c !== undefined) {
        hits.phraseFound[c] = 1;
        markTerm(p.phrases[c]!.a);
        markTerm(p.phrases[c]!.b);
      }
      if (prevStem) {
        const ph = p.phraseIndex.get(prevStem)?.get(stem);
        if (ph !== undefined) hits.phraseFound[ph] = 1;
        const np = p.negPhraseIndex.get(prevStem)?.get(stem);
        if (np !== undefined) markNeg(np);
      }
    }
    // "front end" / "front-end" in the job also meets "frontend" in the prompt.
    let current = stem;
    const joined = prevRaw && p.joinPrefixes.get(prevRaw)?.has(raw.slice(0, 2)) ? contentStem(prevRaw + raw) : "";
    if (joined) {
      markWord(joined);
      // "on-call support" in the job then meets the prompt's phrase "on-call support".
      if (p.phraseIndex.has(joined) || p.negPhraseIndex.has(joined)) current = joined;
    }
    prevStem = current;
    prevRaw = raw;
  }
  return tokens.length;
}

// ---------------------------------------------------------------- score and reason

export function scoreLocally(prompt: string, job: ScoringJob, stats?: CorpusStats): LocalScore {
  const text = typeof prompt === "string" ? prompt : "";
  const p = promptFor(text);
  if (p.terms.length === 0 && p.negatives.length === 0) return { score: 5, reason: "No prompt terms to match; neutral score." };

  const [nt, nn] = [p.terms.length, p.negatives.length];
  const hits: Hits = {
    termStrong: new Uint8Array(nt),
    termDesc: new Uint32Array(nt),
    phraseFound: new Uint8Array(p.phrases.length),
    negStrong: new Uint8Array(nn),
    negDesc: new Uint32Array(nn),
    anyContent: false,
  };
  scanField(p, typeof job?.title === "string" ? job.title : "", true, hits);
  const skills = Array.isArray(job?.skills) ? job.skills.slice(0, MAX_SKILLS) : [];
  for (const skill of skills) if (typeof skill === "string") scanField(p, skill.slice(0, 200), true, hits);
  const descWords = scanField(p, typeof job?.description === "string" ? job.description : "", false, hits);
  if (!hits.anyContent) return { score: 5, reason: "The job has no text to judge; neutral score." };

  // Long descriptions mention everything once: a lone mention there is weaker evidence (700 words ≈ a long post).
  const lengthFactor = Math.max(1, Math.sqrt(descWords / 700));
  // Repeated and list-like prompt terms weigh a little more.
  const weights = p.terms.map((t) => corpusWeight(t.stem, t.base, stats) * Math.min(1.5, 1 + 0.25 * (t.count - 1)) * (t.listed ? 1.2 : 1));
  const strength = p.terms.map((t, i) => {
    if (hits.termStrong[i]) return 1;
    const tf = hits.termDesc[i]!;
    if (tf === 0) return 0;
    return DESCRIPTION_MAX * (tf / (tf + 0.4 * lengthFactor)) * (AMBIGUOUS.has(t.stem) ? 0.5 : 1);
  });

  let negativeFactor = 1;
  const negativesFound: string[] = [];
  p.negatives.forEach((neg, i) => {
    const inDesc = hits.negDesc[i]!;
    if (!hits.negStrong[i] && inDesc === 0) return;
    negativesFound.push(neg);
    negativeFactor *= hits.negStrong[i] ? NEGATIVE_IN_TITLE_OR_SKILLS : inDesc >= 2 ? NEGATIVE_REPEATED_IN_DESCRIPTION : NEGATIVE_IN_DESCRIPTION;
  });

  let base: number;
  if (p.terms.length === 0) base = 5;
  else {
    // Alternatives count once: the group weighs what its heaviest member weighs and scores its best match.
    const groupWeight = new Float64Array(p.terms.length);
    const groupGot = new Float64Array(p.terms.length);
    p.group.forEach((g, i) => {
      groupWeight[g] = Math.max(groupWeight[g]!, weights[i]!);
      groupGot[g] = Math.max(groupGot[g]!, weights[i]! * strength[i]!);
    });
    let total = 0;
    let got = 0;
    for (let g = 0; g < p.terms.length; g++) {
      total += groupWeight[g]!;
      got += groupGot[g]!;
    }
    p.phrases.forEach((ph, i) => {
      if (hits.phraseFound[i]) got += PHRASE_BONUS * (weights[ph.a]! + weights[ph.b]!) * Math.min(strength[ph.a]!, strength[ph.b]!);
    });
    const coverage = Math.min(1, got / total);
    // Concave: sharing a generic word or two lifts a job off zero, but only wide coverage reaches 8+.
    base = 10 * coverage ** 0.6;
  }
  const concepts = judgeConcepts(text, job);
  // Words and concepts each see what the other misses (a synonym; a term that only looks the same): the better
  // reading of the fit counts, then every reason against it.
  // The concept reading saturates sooner, so a little of the word reading stays in to order two good fits.
  const fitted = concepts.base === null ? base : Math.max(base, (1 - WORD_SHARE) * concepts.base + WORD_SHARE * base);
  const against = Math.min(negativeFactor, concepts.unwantedFactor) * concepts.factor;
  const score = Math.round(Math.min(10, Math.max(0, fitted * against)) * 10) / 10;
  const words = explain(p, weights, strength, hits, negativesFound);
  const extra = [
    concepts.base !== null && concepts.base > base + 1 && concepts.matched.length ? `Also reads as ${concepts.matched.slice(0, 3).join(", ")}.` : "",
    concepts.against.length ? `Against: ${concepts.against.join("; ")}.` : "",
  ].filter(Boolean);
  return { score, reason: withExtra(words, extra) };
}

/** The word-level reason, shortened as needed so the concept notes fit after it. */
function withExtra(words: string, extra: string[]): string {
  if (extra.length === 0) return words;
  const tail = ` ${extra.join(" ")}`.slice(0, MAX_REASON - 60);
  const room = MAX_REASON - tail.length;
  return (words.length <= room ? words : `${words.slice(0, room - 1)}…`) + tail;
}

interface Item {
  text: string;
  weight: number;
}

function explain(p: ParsedPrompt, weights: number[], strength: number[], hits: Hits, negatives: string[]): string {
  if (p.terms.length === 0) {
    return fit((cap) => `No wanted terms in the prompt; ${negatives.length ? `negative: ${list(negatives, cap)}` : "no unwanted terms found"}.`);
  }
  const strong: Item[] = [];
  const desc: Item[] = [];
  const missing: Item[] = [];
  const shown = new Set<number>();
  // A matched phrase reads as one item: "machine learning", not "machine, learning".
  p.phrases.forEach((ph, i) => {
    if (!hits.phraseFound[i] || shown.has(ph.a) || shown.has(ph.b)) return;
    // Only pairs of specific words: "senior react" is an accident of word order, "machine learning" a phrase.
    if (!strength[ph.a] || !strength[ph.b] || GENERIC_STEMS.has(p.terms[ph.a]!.stem) || GENERIC_STEMS.has(p.terms[ph.b]!.stem)) return;
    shown.add(ph.a).add(ph.b);
    const item = { text: `${p.terms[ph.a]!.surface} ${p.terms[ph.b]!.surface}`, weight: weights[ph.a]! + weights[ph.b]! };
    (hits.termStrong[ph.a] && hits.termStrong[ph.b] ? strong : desc).push(item);
  });
  p.terms.forEach((t, i) => {
    if (shown.has(i)) return;
    const item = { text: t.surface, weight: weights[i]! };
    if (hits.termStrong[i]) strong.push(item);
    else if (strength[i]! > 0) desc.push(item);
    else if (!p.group.some((g, j) => g === p.group[i] && strength[j]! > 0)) missing.push(item);
  });
  const order = (items: Item[]): string[] => items.sort((a, b) => b.weight - a.weight).map((x) => x.text);
  const [s, d, m] = [order(strong), order(desc), order(missing)];
  return fit((cap) => {
    let text =
      s.length && d.length
        ? `Matches ${list(s, cap)} (title/skills) and ${list(d, cap)} (description)`
        : s.length
          ? `Matches ${list(s, cap)} (title/skills)`
          : d.length
            ? `Matches ${list(d, cap)} (description only)`
            : "Matches none of the prompt terms";
    if (m.length) text += `; missing ${list(m, Math.min(cap, 3))}`;
    text += ".";
    if (negatives.length) text += ` Negative: ${list(negatives, Math.min(cap, 3))}.`;
    return text;
  });
}

function list(items: string[], cap: number): string {
  const head = items.slice(0, cap).join(", ");
  return items.length > cap ? `${head} +${items.length - cap} more` : head;
}

/** Shortens lists until the sentence fits the reason's length limit. */
function fit(build: (cap: number) => string): string {
  for (const cap of [5, 4, 3, 2, 1]) {
    const text = build(cap);
    if (text.length <= MAX_REASON) return text;
  }
  return build(1).slice(0, MAX_REASON - 1) + "…";
}
