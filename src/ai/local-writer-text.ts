/**
 * Wording helpers of the local writer (see local-writer.ts): choosing a phrasing, making untrusted job
 * text fit to quote (injection dropped, fragments cleaned, the client's words turned to face them), verb
 * forms, lists, and the character limits both writers share.
 */
import { tokenize } from "../lib/text";
import * as P from "./local-writer-phrases";

/** Limits used by both writers; answers longer than this are cut at a sentence boundary. */
export const MAX_ANSWER_CHARS = 5000; // the marketplace's screening-answer box accepts 5,000 characters
export const MAX_PROPOSAL_CHARS = 5000;

/** Sentences longer than this are cut; injection checks read at most twice as much. */
export const SENTENCE_CHARS = 400;

// ---------------------------------------------------------------- choosing phrasings

export function hash(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A phrasing per part of the letter: the same job and part always get the same one. */
export function picker(seed: number) {
  return <T>(list: readonly T[], part: string): T => list[hash(part, seed) % list.length]!;
}

// ---------------------------------------------------------------- untrusted text

/** Unicode-folded, without control or invisible characters, quotes made plain; at most max characters. */
export function plain(text: unknown, max: number): string {
  if (typeof text !== "string") return "";
  return text
    .slice(0, max)
    .normalize("NFKC")
    .replace(/\r\n?/g, "\n")
    .replace(/[^\P{Cc}\n]|\p{Cf}|\p{Cs}/gu, " ")
    .replace(/[^\S\n]+/g, " ")
    .replace(/[‘’´]/g, "'");
}

const INJECTION = new RegExp(
  [
    String.raw`\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}?\b(?:instructions?|prompts?|rules|guidelines|directions|above|previous|prior|earlier|everything|system)\b`,
    String.raw`\b(?:system|developer)\s*(?:prompt|message|instructions?|override)\b|^\s*(?:system|assistant|user)\s*:`,
    String.raw`\b(?:you are|you're|act as|acting as|pretend|roleplay|role-play|say|admit|state|confirm|reveal|tell (?:me|us))\b.{0,30}?\b(?:ai|bot|robot|chatgpt|gpt|llm|language model|assistant|human)\b`,
    String.raw`\b(?:include|use|add|write|put|insert|type|repeat|mention|say|contain)\b.{0,40}?\b(?:the|this|a|these|following|secret|special|magic|code)\s+(?:words?|phrases?|code ?words?|keywords?|password|emoji|string|token)\b`,
    String.raw`\b(?:your|the|this)\s+(?:reply|response|answer|proposal|application|cover letter|message|bid|output)\b`,
    String.raw`\b(?:prompt injection|jailbreak|new instructions|these instructions|following instructions|previous instructions)\b`,
    String.raw`\b(?:first|last|opening|top|beginning|start|end)\s+(?:line|sentence|word|paragraph)\b|\b(?:so (?:i|we) know|to prove|to show) (?:that )?you(?:'ve| have)? (?:read|are)\b`,
  ].join("|"),
  "i",
);
/** "Start with BANANA", 'end with "ok"': a marker the poster wants echoed back, a test for bots. */
const MARKER_WORD =
  /\b(?:[Ss]tart|[Bb]egin|[Ee]nd|[Ff]inish|[Ss]ign)\b.{0,30}?\bwith\s+(?:the\s+)?(?:["“'][^"”']{1,30}["”']|[A-Z]{4,}\b)\W*$|["“'][A-Z]{3,}["”']/;

/** Text that addresses whoever writes the proposal rather than describing the job. */
export function isInjection(text: string): boolean {
  const t = text.slice(0, SENTENCE_CHARS * 2);
  return INJECTION.test(t) || MARKER_WORD.test(t);
}

/** A fragment fit to appear in a letter: no links, brackets, markup, parentheticals or placeholder words. */
export function fragment(text: string, maxWords = 24): string {
  const words = text
    .replace(/\[[^\]]{0,60}\]|\{[^}]{0,60}\}|<[^>]{0,60}>|\([^()]{0,200}\)/g, " ")
    .replace(/https?:\/\/\S*|www\.\S*|\S+@\S+/gi, " ")
    .replace(/(?<![A-Za-z+])#+/g, " ")
    .replace(/[[\]{}<>()*`|^~\\"“”«»=_]/g, " ")
    .replace(/\b(?:lorem|ipsum|xyz|your name|placeholder|todo|tbd|n\/a)\b/gi, " ")
    .split(/\s+/)
    .map((w) => w.replace(/^'+/, "").replace(/(?<!s)'+$/, ""))
    .filter((w) => w.length > 0 && w.length <= 40 && (/[\p{L}\p{N}]/u.test(w) || w === "&"));
  return words
    .slice(0, maxWords)
    .join(" ")
    .replace(/^[^\p{L}\p{N}.]+|^\.(?!\p{L})|[^\p{L}\p{N}+#]+$/gu, "");
}

const CLAUSE_END =
  /\s(?:so that|because|which|but|since|as well as|e\.g|i\.e|etc|if possible|asap)\b|[:;!?]|\s[-–—]+\s|,\s(?:and\s)?(?:we|i|it|this|they|please)\b/i;

/** The first clause of a sentence, at most maxWords long, not ending on a word that needs a continuation. */
export function clause(text: string, maxWords: number): string {
  const end = CLAUSE_END.exec(text);
  let words = (end && end.index > 12 ? text.slice(0, end.index) : text).split(/\s+/).filter(Boolean);
  if (words.length > maxWords) {
    words = words.slice(0, maxWords);
    const comma = words.findLastIndex((w, i) => i >= 3 && w.endsWith(","));
    if (comma >= 0) words = words.slice(0, comma + 1);
  }
  dropDangling(words, 0);
  return words.join(" ").replace(/[\s,.;:!?'-]+$/u, "");
}

/** Pops words a sentence cannot end on ("and", "the", "with"…) off the end, leaving at least `keep` words. */
export function dropDangling(words: string[], keep: number): void {
  while (
    words.length > keep &&
    P.DANGLING.has(
      words
        .at(-1)!
        .toLowerCase()
        .replace(/[^\p{L}&]/gu, ""),
    )
  )
    words.pop();
}

/** The client's words turned to face them: "our store" → "your store"; their "you" (the freelancer) becomes "I"/"me". */
export function flip(text: string): string {
  let prev = "";
  let youSubject = false;
  return text.replace(/\p{L}[\p{L}']*/gu, (word) => {
    const lower = word.toLowerCase();
    let out = word;
    if (word === "US" || (lower === "i" && word !== "I")) out = word;
    else if (lower === "you") out = P.SUBJECT_AFTER.has(prev) ? "I" : "me";
    else if ((lower === "am" || lower === "was") && prev === "i") out = lower === "am" ? "are" : "were";
    else if ((lower === "are" || lower === "were") && youSubject) out = lower === "are" ? "am" : "was";
    else out = P.CLIENT_TO_YOU[lower] ?? P.YOU_TO_ME[lower] ?? word;
    youSubject = lower === "you" && out === "I";
    prev = lower;
    return out;
  });
}

/** Lower-cases a sentence-initial or title-case common word, keeping names the job spells with a capital mid-sentence. */
function lowerWord(word: string, proper: Set<string>): string {
  if (word === "I" || proper.has(word.toLowerCase()) || !/^\p{Lu}[\p{Ll}'-]*$/u.test(word)) return word;
  return word.toLowerCase();
}

export function lowerFirst(text: string, proper: Set<string>): string {
  return text.replace(/^\p{L}[\p{L}\p{N}'.+#-]*/u, (w) => lowerWord(w, proper));
}

// ---------------------------------------------------------------- wording

export function ing(verb: string): string {
  const v = verb.toLowerCase();
  if (P.DOUBLED.has(v)) return v + v.at(-1) + "ing";
  if (v.endsWith("ie")) return v.slice(0, -2) + "ying";
  if (/(?:[^aeiouy]|u)e$/.test(v)) return v.slice(0, -1) + "ing";
  return v + "ing";
}

/** Verbs that follow "and" inside a step ("audit the apps and remove …"): they take -ing too. */
export const LATER_VERBS = new Set([...P.VERBS.map((v) => v.split(/[-\s]/)[0]!), ...P.LATER_VERBS.split(" ")]);

/** "build a dashboard" → "building a dashboard". */
export function gerund(vp: string): string {
  return vp
    .replace(/^\p{L}+/u, (w) => ing(w))
    .replace(/(\b(?:and|then)\s+)([\p{L}-]+)/gu, (m, and: string, verb: string) => (LATER_VERBS.has(verb) ? and + ing(verb) : m));
}

/** Share of a's words that also occur in b. */
export function overlap(a: string, b: string): number {
  const wa = tokenize(a);
  const wb = new Set(tokenize(b));
  return wa.length ? wa.filter((w) => wb.has(w)).length / wa.length : 0;
}

export function article(word: string): string {
  if (/^[A-Z]{2,}/.test(word)) return /^[AEFHILMNORSX]/.test(word) ? "an" : "a";
  return /^(?:[aeio]|u(?!ni|s[aeiu]|ti))/i.test(word) ? "an" : "a";
}

export function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** Joined tokens with spaces around, so " node js " finds the skill "Node.js" as a phrase. */
export function countPhrase(haystack: string, phrase: string[], limit: number): number {
  if (!phrase.length) return 0;
  const needle = ` ${phrase.join(" ")} `;
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0 && n < limit; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
}

export function dedupe(items: string[]): string[] {
  const seen = new Set<string>();
  return items.filter((s) => s && !seen.has(s.toLowerCase()) && !!seen.add(s.toLowerCase()));
}

export function clampChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf(".\n"), cut.lastIndexOf("? "), cut.lastIndexOf("! "));
  if (end > max / 2) return cut.slice(0, end + 1);
  return cut.slice(0, max - 1).replace(/\s+\S*$|[\uD800-\uDBFF]$/u, "") + "…";
}
