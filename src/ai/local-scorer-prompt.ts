/**
 * The local scorer's reading of a profile prompt (see local-scorer.ts, steps 1 and 2): weighted terms,
 * alternatives joined by "or", negative terms, adjacent words as phrases, and the indexes a job scan
 * looks words up in. Parsed once per prompt and cached.
 */
import { tokenize } from "../lib/text";
import {
  ALIASES,
  CLAUSE_BREAK,
  CONTRAST,
  contentStem,
  GENERIC_STEMS,
  heuristicWeight,
  HYPHEN_JOIN,
  HYPHENATED,
  isTechnical,
  JS_OWNERS,
  LIST_BREAK,
  listEnd,
  NEGATED_AUX,
  NEGATORS,
  NOT_A_NEGATION,
  WISH,
} from "./stem";

const MAX_PROMPT_CHARS = 8_000;
const MAX_TERMS = 48;

interface Term {
  stem: string;
  surface: string;
  base: number;
  count: number;
  listed: boolean;
}
interface Word {
  stem: string;
  raw: string;
  surface: string;
}
type PairIndex = Map<string, Map<string, number>>;

/** A prompt read once: terms and negatives plus the indexes a job scan needs. */
export interface ParsedPrompt {
  terms: Term[];
  termIndex: Map<string, number>; // stem (and alias stems) → term
  phrases: { a: number; b: number }[]; // adjacent wanted words
  phraseIndex: PairIndex; // first stem → second stem → phrase
  compoundIndex: Map<string, number>; // the phrase written as one word → phrase
  negatives: string[]; // how each negative reads in a reason
  negIndex: Map<string, number>;
  negPhraseIndex: PairIndex;
  joinPrefixes: Map<string, Set<string>>; // split compounds: first part → first two letters of the rest
  group: number[]; // alternatives ("Python or Go"): each term's group, the lowest term index in it
  heads: Set<number>; // headKey of every stem above: job words starting otherwise are not stemmed
}

function addPair(index: PairIndex, a: string, b: string, value: number): void {
  let inner = index.get(a);
  if (!inner) index.set(a, (inner = new Map()));
  if (!inner.has(b)) inner.set(b, value);
}

/** Records how a stem may be split in two ("front" + "en…" of "frontend"), so a job scan joins only pairs that could form it. */
function addPrefixes(prefixes: Map<string, Set<string>>, stem: string): void {
  for (let i = 1; i < stem.length; i++) {
    const head = stem.slice(0, i);
    let next = prefixes.get(head);
    if (!next) prefixes.set(head, (next = new Set()));
    next.add(stem.slice(i, i + 2));
  }
}

function parsePrompt(prompt: string): ParsedPrompt {
  const p: ParsedPrompt = {
    terms: [],
    termIndex: new Map(),
    phrases: [],
    phraseIndex: new Map(),
    compoundIndex: new Map(),
    negatives: [],
    negIndex: new Map(),
    negPhraseIndex: new Map(),
    joinPrefixes: new Map(),
    group: [],
    heads: new Set(),
  };
  // Negative scopes as words; null marks a gap (stopword or list break) so phrases do not span it.
  const negativeRuns: (Word | null)[][] = [];
  const limited = prompt.slice(0, MAX_PROMPT_CHARS);
  // Reasons show "long-term" as the user wrote it, not the joined token.
  const written = new Map<string, string>();
  for (const [word] of limited.matchAll(HYPHENATED)) written.set(tokenize(word).join(""), word.toLowerCase());
  const text = limited.replace(HYPHEN_JOIN, "$1");

  for (const clause of text.split(CLAUSE_BREAK)) {
    const segments = clause.split(",").map((seg) => seg.split(LIST_BREAK).map(tokenize));
    let negative: (Word | null)[] | null = null;
    let carryUntil = -1;
    for (const [si, pieces] of segments.entries()) {
      if (negative && si > carryUntil) negative = null;
      for (const tokens of pieces) {
        const listed = tokens.filter((t) => contentStem(t)).length <= 2;
        let prev: Word | null = null; // the wanted word just before, for phrases
        let prev2: Word | null = null; // and the one before that, if adjacent
        let before = -1; // the term before a pending "or", for alternatives
        negative?.push(null);
        for (let i = 0; i < tokens.length; i++) {
          const raw = tokens[i]!;
          const next = tokens[i + 1];
          const negator = NEGATORS.has(raw) || (raw === "t" && NEGATED_AUX.has(tokens[i - 1] ?? ""));
          if (negator && !(next && NOT_A_NEGATION.has(next))) {
            negative = [];
            negativeRuns.push(negative);
            carryUntil = listEnd(segments, si);
            prev = prev2 = null;
            continue;
          }
          if (negative && (CONTRAST.has(raw) || (WISH.has(raw) && negative.some(Boolean)))) negative = null;
          if (raw === "js" && prev && JS_OWNERS.has(prev.raw)) continue;
          const stem = contentStem(raw);
          if (!stem) {
            before = raw === "or" && prev ? (p.termIndex.get(prev.stem) ?? -1) : -1;
            // "React Native or Flutter": the whole phrase before "or" is the alternative, unless it starts generic ("senior React").
            const first = prev2 ? p.termIndex.get(prev2.stem) : undefined;
            if (before >= 0 && first !== undefined && !GENERIC_STEMS.has(prev2!.stem)) join(p.group, first, before);
            prev = prev2 = null;
            negative?.push(null);
            continue;
          }
          const word = { stem, raw, surface: written.get(raw) ?? raw };
          if (negative) {
            negative.push(word);
            prev = prev2 = null;
            before = -1;
            continue;
          }
          const index = addTerm(p, word, prev, listed);
          if (before >= 0 && index !== undefined) join(p.group, before, index);
          before = -1;
          prev2 = prev;
          prev = word;
        }
      }
    }
  }
  buildNegatives(p, negativeRuns);
  p.group = p.group.map((_, i) => root(p.group, i));
  const lookedUp = [p.termIndex, p.negIndex, p.compoundIndex, p.phraseIndex, p.negPhraseIndex, ...p.negPhraseIndex.values()];
  for (const index of lookedUp) for (const stem of index.keys()) p.heads.add(headKey(stem));
  return p;
}

function addTerm(p: ParsedPrompt, word: Word, prev: Word | null, listed: boolean): number | undefined {
  let index = p.termIndex.get(word.stem);
  if (index === undefined) {
    if (p.terms.length >= MAX_TERMS) return undefined;
    index = p.terms.length;
    p.group.push(index);
    p.terms.push({ stem: word.stem, surface: word.surface.slice(0, 24), base: heuristicWeight(word.stem, word.raw), count: 0, listed: false });
    for (const s of [word.stem, ...(ALIASES.get(word.stem) ?? [])]) {
      if (!p.termIndex.has(s)) p.termIndex.set(s, index);
      addPrefixes(p.joinPrefixes, s);
    }
  }
  const term = p.terms[index]!;
  term.count++;
  term.listed ||= listed;
  const prevIndex = prev ? p.termIndex.get(prev.stem) : undefined;
  if (prev && prevIndex !== undefined && prevIndex !== index && !p.phraseIndex.get(prev.stem)?.has(word.stem)) {
    const phrase = p.phrases.length;
    p.phrases.push({ a: prevIndex, b: index });
    addPair(p.phraseIndex, prev.stem, word.stem, phrase);
    // "front end" in the prompt also matches "frontend" in the job.
    const joined = contentStem(prev.raw + word.raw);
    if (joined && !p.compoundIndex.has(joined)) p.compoundIndex.set(joined, phrase);
  }
  return index;
}

/** Union-find over terms: "React Native or Flutter" is satisfied by either side. */
function root(group: number[], i: number): number {
  while (group[i] !== i) i = group[i]!;
  return i;
}

function join(group: number[], a: number, b: number): void {
  const [ra, rb] = [root(group, a), root(group, b)];
  if (ra !== rb) group[Math.max(ra, rb)] = Math.min(ra, rb);
}

/**
 * Negative scopes become negative terms. A lone word ("no WordPress") is one
 * term. A run of words is a phrase ("no data entry" penalises "data entry",
 * not every job that mentions data); technical names in a run also count
 * alone ("no WordPress sites" still catches "WordPress"). Words the prompt
 * also wants never count alone: "React, not React Native" penalises only the phrase.
 */
function buildNegatives(p: ParsedPrompt, scopes: (Word | null)[][]): void {
  const seen = new Set<string>();
  const add = (key: string, surface: string): number | undefined => {
    if (seen.has(key)) return undefined;
    seen.add(key);
    p.negatives.push(surface.slice(0, 30));
    return p.negatives.length - 1;
  };
  const runs: Word[][] = [];
  for (const scope of scopes) {
    let run: Word[] = [];
    for (const word of [...scope, null]) {
      if (word) run.push(word);
      else if (run.length) {
        runs.push(run);
        run = [];
      }
    }
  }
  for (const run of runs) {
    run.forEach((word, i) => {
      const next = run[i + 1];
      if (next) {
        const index = add(`${word.stem} ${next.stem}`, `${word.surface} ${next.surface}`);
        if (index !== undefined) {
          addPair(p.negPhraseIndex, word.stem, next.stem, index);
          addPrefixes(p.joinPrefixes, word.stem);
          const joined = contentStem(word.raw + next.raw);
          if (joined && !p.negIndex.has(joined)) p.negIndex.set(joined, index);
        }
      }
      if (p.termIndex.has(word.stem) || (run.length > 1 && !isTechnical(word.raw))) return;
      const index = add(word.stem, word.surface);
      if (index === undefined) return;
      for (const s of [word.stem, ...(ALIASES.get(word.stem) ?? [])]) {
        if (!p.negIndex.has(s)) p.negIndex.set(s, index);
        addPrefixes(p.joinPrefixes, s);
      }
    });
  }
}

/** The first two letters of a word as a number: a stem always starts like its word, so this filters words cheaply. */
export function headKey(word: string): number {
  return word.charCodeAt(0) * 65536 + (word.length > 1 ? word.charCodeAt(1) : 0);
}

/** Feeds score many jobs against one prompt: each prompt is parsed once (parsed prompts are never mutated). */
const promptCache = new Map<string, ParsedPrompt>();
const PROMPT_CACHE_LIMIT = 64;

/** The prompt parsed, from the cache when it was seen lately. */
export function promptFor(text: string): ParsedPrompt {
  let p = promptCache.get(text);
  if (!p) {
    if (promptCache.size >= PROMPT_CACHE_LIMIT) promptCache.clear();
    promptCache.set(text, (p = parsePrompt(text)));
  }
  return p;
}
