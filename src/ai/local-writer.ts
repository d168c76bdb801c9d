/**
 * The local writer: proposals (cover letters) and screening answers without any AI model. It is the
 * default when no model is configured, so it is a deterministic template engine, not a stub:
 *
 * 1. The job is read once. Its title and first sentences give the client's need in their own words
 *    ("We need our checkout to load faster" → "you need your checkout to load faster"), sentences and
 *    bullets with action verbs give the approach steps, the key terms (platforms and tools the title
 *    names, then the skills ranked by how much the title and description talk about them) are what the
 *    letter names, and keyword counts pick a category (store, front end, scraping, …) whose phrase bank
 *    supplies working principles, fallback steps, questions, risks and assumptions.
 * 2. Nothing is claimed that the input does not back: the letter names the key terms as its plan for the
 *    job ("I'd approach this with Shopify …"); only skills the freelancer's profile lists are named as
 *    skills they have, and there is never a track record (past clients, years, "I've done …"). The
 *    only money a letter names is the bid it is given, the one that will be sent; without one it names
 *    none (not the profile's rate, not the client's budget, not a price copied from the posting).
 * 3. Job text is untrusted: sentences that try to instruct the writer ("ignore previous instructions",
 *    "include the word …", "say you are an AI") are dropped before anything is read from them, and every
 *    fragment copied into a letter is stripped of brackets, links, markup and placeholder words.
 * 4. Each part of the letter has several phrasings; a hash of the title and description picks one, so
 *    the same job always gets the same letter and different jobs read differently.
 * 5. Effort sets a word band; optional sentences are dropped by priority or fillers added until the
 *    letter fits, and the user's own word limit ("under 150 words") caps the band.
 */
import type { JobType } from "../db/enums";
import { tokenize } from "../lib/text";
import * as P from "./local-writer-phrases";

export type Effort = "low" | "medium" | "high";
export interface WritingJob {
  title: string;
  description: string; // untrusted text from the job posting; may be long (up to 100 KB) or adversarial
  skills: string[]; // the job's skill labels
  jobType: JobType | null;
  budgetText: string | null; // e.g. "40–60 USD/hour" or "1500 USD fixed"
  clientCountry?: string | null; // ISO-2, e.g. "US"
}
export interface WriterProfile {
  name?: string | null;
  title?: string | null; // profile or specialization title, e.g. "Senior React Developer"
  skills?: string[];
}
/** The bid the application will send (USD), as apply computes it; one of the two is set. */
export interface Bid {
  hourlyRate: number | null;
  fixedBid: number | null;
}
export interface LocalProposalInput {
  job: WritingJob;
  profile?: WriterProfile | null;
  instructions?: string | null; // the user's own instructions for proposals in this feed
  effort: Effort;
  bid?: Bid | null; // null when the bid is not known yet: then no amount is named
}

/** Limits used by both writers; answers longer than this are cut at a sentence boundary. */
export const MAX_ANSWER_CHARS = 5000; // the marketplace's screening-answer box accepts 5,000 characters
export const MAX_PROPOSAL_CHARS = 5000;

/** The need and the requirements come first in a posting; reading further only costs time. */
const SCAN_CHARS = 20_000;
const MAX_SENTENCES = 160;
const SENTENCE_CHARS = 400;
/** Word bands per effort, a little inside the advertised ones (low 90–150, medium 150–230, high 230–350). */
const BANDS: Record<Effort, readonly [number, number]> = { low: [100, 140], medium: [165, 215], high: [250, 330] };
const SKILL_COUNT: Record<Effort, number> = { low: 2, medium: 3, high: 4 };
const STEP_COUNT: Record<Effort, number> = { low: 1, medium: 3, high: 4 };
/** Keep value of the sentences a letter needs (opening, skills, the user's "mention …"): only a word limit below them drops any. */
const ESSENTIAL = 100;

// ---------------------------------------------------------------- choosing phrasings

function hash(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A phrasing per part of the letter: the same job and part always get the same one. */
function picker(seed: number) {
  return <T>(list: readonly T[], part: string): T => list[hash(part, seed) % list.length]!;
}

// ---------------------------------------------------------------- untrusted text

/** Unicode-folded, without control or invisible characters, quotes made plain; at most max characters. */
function plain(text: unknown, max: number): string {
  if (typeof text !== "string") return "";
  return text.slice(0, max).normalize("NFKC").replace(/\r\n?/g, "\n").replace(/[^\P{Cc}\n]|\p{Cf}|\p{Cs}/gu, " ").replace(/[^\S\n]+/g, " ").replace(/[‘’´]/g, "'");
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
const MARKER_WORD = /\b(?:[Ss]tart|[Bb]egin|[Ee]nd|[Ff]inish|[Ss]ign)\b.{0,30}?\bwith\s+(?:the\s+)?(?:["“'][^"”']{1,30}["”']|[A-Z]{4,}\b)\W*$|["“'][A-Z]{3,}["”']/;

/** A price: "$300", "300 USD", "EUR 40", "50/hr". Posting text that names one is not copied (the letter's only figure is the bid). */
const MONEY = /[$€£¥₹]\s?\d|\b\d[\d,.]*\s?k?\s?(?:usd|eur|gbp|cad|aud|chf|inr|dollars?|euros?|pounds?|bucks)\b|\b(?:usd|eur|gbp|cad|aud|chf|inr)\s?\d|\b\d[\d,.]*\s?(?:\/\s?h(?:ou)?r|\/h|per hour|an hour)\b/i;

/** A title up to the price it names, if any: "Landing page for $300, quick job" → "Landing page". */
function withoutPrice(title: string): string {
  const m = MONEY.exec(title);
  if (!m) return title;
  return title.slice(0, m.index).replace(/(?:[\s,;:(–—-]+|\b(?:for|at|under|of|with|budget|around|about|up to|max|only|from|is)\b)+$/i, "");
}

/** Text that addresses whoever writes the proposal rather than describing the job. */
function isInjection(text: string): boolean {
  const t = text.slice(0, SENTENCE_CHARS * 2);
  return INJECTION.test(t) || MARKER_WORD.test(t);
}

/** Application logistics, not work to be done: never an approach step. */
const META = new RegExp(
  String.raw`\b(?:apply|applying|applicants?|application|proposals?|cover letter|bids?|bidding|interview|shortlist|hiring|contact (?:me|us)|message me|` +
    String.raw`send (?:me|us)|please (?:include|share|send|describe|list|tell|provide|attach|start)|budget|rate|payment|pay|nda)\b`,
  "i",
);

/** A fragment fit to appear in a letter: no links, brackets, markup, parentheticals or placeholder words. */
function fragment(text: string, maxWords = 24): string {
  const words = text
    .replace(/\[[^\]]{0,60}\]|\{[^}]{0,60}\}|<[^>]{0,60}>|\([^()]{0,200}\)/g, " ")
    .replace(/https?:\/\/\S*|www\.\S*|\S+@\S+/gi, " ")
    .replace(/(?<![A-Za-z+])#+/g, " ")
    .replace(/[[\]{}<>()*`|^~\\"“”«»=_]/g, " ")
    .replace(/\b(?:lorem|ipsum|xyz|your name|placeholder|todo|tbd|n\/a)\b/gi, " ")
    .split(/\s+/)
    .map((w) => w.replace(/^'+/, "").replace(/(?<!s)'+$/, ""))
    .filter((w) => w.length > 0 && w.length <= 40 && (/[\p{L}\p{N}]/u.test(w) || w === "&"));
  return words.slice(0, maxWords).join(" ").replace(/^[^\p{L}\p{N}.]+|^\.(?!\p{L})|[^\p{L}\p{N}+#]+$/gu, "");
}

const CLAUSE_END = /\s(?:so that|because|which|but|since|as well as|e\.g|i\.e|etc|if possible|asap)\b|[:;!?]|\s[-–—]+\s|,\s(?:and\s)?(?:we|i|it|this|they|please)\b/i;

/** The first clause of a sentence, at most maxWords long, not ending on a word that needs a continuation. */
function clause(text: string, maxWords: number): string {
  const end = CLAUSE_END.exec(text);
  let words = (end && end.index > 12 ? text.slice(0, end.index) : text).split(/\s+/).filter(Boolean);
  if (words.length > maxWords) {
    words = words.slice(0, maxWords);
    const comma = words.findLastIndex((w, i) => i >= 3 && w.endsWith(","));
    if (comma >= 0) words = words.slice(0, comma + 1);
  }
  while (words.length && P.DANGLING.has(words.at(-1)!.toLowerCase().replace(/[^\p{L}&]/gu, ""))) words.pop();
  return words.join(" ").replace(/[\s,.;:!?'-]+$/u, "");
}


/** The client's words turned to face them: "our store" → "your store"; their "you" (the freelancer) becomes "I"/"me". */
function flip(text: string): string {
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

function lowerFirst(text: string, proper: Set<string>): string {
  return text.replace(/^\p{L}[\p{L}\p{N}'.+#-]*/u, (w) => lowerWord(w, proper));
}

/** Titles are often Title Case or shouted; read them as running text, keeping what look like names. */
function titleText(title: string, proper: Set<string>): string {
  const words = title.match(/\p{L}[\p{L}\p{N}'.+#-]*/gu) ?? [];
  const letters = words.join("");
  const shouted = letters.length >= 6 && letters === letters.toUpperCase();
  return title.replace(/\p{L}[\p{L}\p{N}'.+#-]*/gu, (w) => {
    const lower = w.toLowerCase();
    if (proper.has(lower)) return shouted ? P.cap(lower) : w;
    if (shouted) return lower;
    const everyday = P.EVERYDAY_WORDS.has(lower) || P.DANGLING.has(lower) || LATER_VERBS.has(lower);
    return everyday && /^\p{Lu}[\p{Ll}'-]*$/u.test(w) ? lower : w;
  });
}

// ---------------------------------------------------------------- reading the job

const VERB_ALT = P.VERBS.filter((v) => v !== "set").map((v) => v.replace(/[-\s]/g, "[-\\s]")).join("|");

function ing(verb: string): string {
  const v = verb.toLowerCase();
  if (P.DOUBLED.has(v)) return v + v.at(-1) + "ing";
  if (v.endsWith("ie")) return v.slice(0, -2) + "ying";
  if (/(?:[^aeiouy]|u)e$/.test(v)) return v.slice(0, -1) + "ing";
  return v + "ing";
}
const GERUNDS = new Map(P.VERBS.map((v) => [ing(v.split(/[-\s]/)[0]!), v.split(/[-\s]/)[0]!]));

/** "build a dashboard" → "building a dashboard". */
function gerund(vp: string): string {
  return vp.replace(/^\p{L}+/u, (w) => ing(w)).replace(/(\b(?:and|then)\s+)([\p{L}-]+)/gu, (m, and: string, verb: string) => (LATER_VERBS.has(verb) ? and + ing(verb) : m));
}

const ACTION = new RegExp(String.raw`(?:^|\b(?:to|will|'ll|must|should|shall|can|could|would|please|then|help(?: us| me)?|responsible for)\s+)(?:also\s+|then\s+|fully\s+)?(${VERB_ALT})\b`, "i");
/** Verbs that follow "and" inside a step ("audit the apps and remove …"): they take -ing too. */
const LATER_VERBS = new Set([...P.VERBS.map((v) => v.split(/[-\s]/)[0]!), ...P.LATER_VERBS.split(" ")]);
const STEP_SPLIT = new RegExp(String.raw`\s*(?:,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?(?:also\s+)?|\s+then\s+)(?=(?:${VERB_ALT})\b)`, "i");
const DELIVERABLE = /\b(?:files?|source|svg|png|pdf|jpe?g|eps|reports?|documentation|docs|mockups?|logos?|designs?|dashboards?|csv|spreadsheets?|scripts?|guide|presentation|videos?|templates?)\b/i;
const LIST_LEAD = /^(?:deliverables?|requirements?|scope|tasks?|what (?:we|i) need|responsibilities)\s*:\s*/i;
const NEED = /\b(we|i)(?:'re|'m|'d| are| am| would)?\s+(?:currently\s+|urgently\s+|really\s+|also\s+|now\s+)?(need|want|require|looking for|seeking|searching for|like|hoping)\s+(.+)/i;
const NEED_START = /^(?:urgently\s+)?(looking for|need|needed|seeking|searching for|hiring)\s*:?\s+(.+)/i;
const PROBLEM = new RegExp(
  String.raw`\b(?:our|my|the)\s[^.!?]{0,60}?\b(?:(?:is|are|has|have|keeps?|takes?|gets?|feels?|looks?)\s+(?:really\s+|very\s+|too\s+|still\s+|extremely\s+|quite\s+)?` +
    String.raw`(?:slow|broken|failing|crashing|down|outdated|buggy|not\s+\w+|over\s+\d|\d+\s*(?:seconds|secs?|s)\b|dropping|losing|low|poor|messy|unreliable|unstable|manual|expensive)` +
    String.raw`|(?:crashes|fails|breaks|freezes|hangs|stopped|stops|doesn't|does not|won't|can't|cannot|isn't|aren't)\b)`,
  "i",
);
const ROLE = /\b(?:developer|engineer|designer|expert|specialist|consultant|writer|freelancer|programmer|architect|administrator|admin|assistant|analyst|marketer|scientist|editor|illustrator|copywriter|tester|manager|strategist|artist|animator|professional)s?\b/gi;
const DETERMINER = /^(?:a|an|the|my|our|your|this|these|some|its|their|\d)\b/i;

interface Sentence { text: string; bullet: boolean }

function sentencesOf(description: string): Sentence[] {
  const out: Sentence[] = [];
  for (const raw of description.split("\n")) {
    const bullet = /^\s*(?:[-*•·–—>]|\d{1,2}[.)])\s+/.test(raw);
    const line = raw.replace(/^\s*(?:[-*•·–—>]|\d{1,2}[.)])\s+/, "").trim();
    for (const part of line.split(/(?<=[.!?])\s+|;\s+/)) {
      const text = part.trim().slice(0, SENTENCE_CHARS);
      if (text && !isInjection(text) && !MONEY.test(text)) out.push({ text, bullet });
      if (out.length >= MAX_SENTENCES) return out;
    }
  }
  return out;
}

/** Approach steps in base verb form ("integrate Stripe payments"), in the order the posting lists them. */
function stepsOf(sentences: Sentence[], proper: Set<string>): string[] {
  const steps: string[] = [];
  for (const { text, bullet } of sentences) {
    if (steps.length >= 8) break;
    if (text.endsWith("?") || META.test(text)) continue;
    const listed = LIST_LEAD.test(text);
    let body = text.replace(LIST_LEAD, "");
    const lead = bullet || listed ? GERUNDS.get(body.match(/^\p{L}+/u)?.[0]?.toLowerCase() ?? "") : undefined;
    if (lead) body = lead + body.replace(/^\p{L}+/u, "");
    const found = ACTION.exec(body);
    let pieces: string[];
    if (found) pieces = joinShort(body.slice(found.index + found[0].length - found[1]!.length).split(STEP_SPLIT));
    else if ((bullet || listed) && DELIVERABLE.test(body) && body.split(/\s+/).length <= 16) pieces = [`deliver ${body.replace(/^(?:the\s+)?deliver(?:y|ables?)\s*/i, "")}`];
    else continue;
    for (const piece of pieces) {
      const step = flip(clause(fragment(piece, 40), 14));
      if (step.split(" ").length < 2 || isInjection(step)) continue;
      const normal = step.replace(/^\p{L}+/u, (w) => w.toLowerCase());
      if (!steps.some((s) => overlap(s, normal) >= 0.6)) steps.push(lowerFirst(normal, proper));
    }
  }
  return steps;
}

/** "handle errors", "avoid duplicates" are too thin alone: a piece under three words joins its neighbour. */
function joinShort(pieces: string[]): string[] {
  const out: string[] = [];
  let carry = "";
  for (const piece of pieces) {
    const joined = carry ? `${carry} and ${piece}` : piece;
    carry = joined.split(/\s+/).length < 3 ? joined : "";
    if (!carry) out.push(joined);
  }
  if (carry) out.length ? (out[out.length - 1] += ` and ${carry}`) : out.push(carry);
  return out;
}

/** Share of a's words that also occur in b. */
function overlap(a: string, b: string): number {
  const wa = tokenize(a);
  const wb = new Set(tokenize(b));
  return wa.length ? wa.filter((w) => wb.has(w)).length / wa.length : 0;
}

interface Need { sv: string; obj: string }

function needOf(sentences: Sentence[], proper: Set<string>): Need | undefined {
  for (const { text } of sentences.slice(0, 8)) {
    if (text.endsWith("?")) continue;
    const m = NEED.exec(text);
    const start = m ? undefined : NEED_START.exec(text);
    const verb = (m?.[2] ?? start?.[1] ?? "").toLowerCase();
    const rest = m?.[3] ?? start?.[2];
    if (!rest || (verb === "like" && !/'d|would/i.test(m?.[0] ?? "")) || (verb === "hoping" && !/^to\s/i.test(rest))) continue;
    const obj = flip(clause(fragment(rest, 40), 22));
    if (obj.split(" ").length < 3 || isInjection(obj)) continue;
    const sv = verb.startsWith("need") || verb === "require" ? "you need" : verb === "want" ? "you want" : verb === "like" ? "you'd like"
      : verb === "hoping" ? "you're hoping" : "you're looking for";
    return { sv, obj: lowerFirst(obj, proper) };
  }
  return undefined;
}

function problemOf(sentences: Sentence[], proper: Set<string>): string | undefined {
  for (const { text } of sentences.slice(0, 8)) {
    const m = PROBLEM.exec(text);
    if (!m) continue;
    const p = flip(clause(fragment(text.slice(m.index), 40), 18));
    if (p.split(" ").length >= 4 && !isInjection(p)) return lowerFirst(p, proper);
  }
  return undefined;
}

interface TitleReading { kind: "verb" | "role" | "topic" | "none"; text: string }

function readTitle(rawTitle: string, proper: Set<string>): TitleReading {
  const cleaned = fragment(rawTitle, 16)
    .replace(/^(?:(?:urgent(?:ly)?|asap|hiring|looking for|seeking|wanted)\b[\s:!,-]*)+/i, "")
    .replace(/(?:[\s,!-]*\b(?:needed|wanted|required|asap|urgent(?:ly)?|for hire|now)\b[\s!.]*)+$/i, "");
  if (!cleaned || isInjection(cleaned)) return { kind: "none", text: "" };
  const text = flip(titleText(cleaned, proper)).replace(/[.!?]+$/, "");
  const words = text.split(/\s+/);
  const first = words[0]!.toLowerCase();
  // "Update product descriptions" is a task, "Document translation" is not: an ambiguous verb needs a determiner or a plural object.
  const object = words.length >= 2 && (DETERMINER.test(words[1]!) || (/[^s]s$/i.test(words.at(-1)!) && !P.EVERYDAY_WORDS.has(words.at(-1)!.toLowerCase())) || /s$/.test(words.at(-1)!));
  if (P.CLEAR_VERBS.has(first) || (P.VERBS.includes(first) && object)) {
    return words.length >= 2 ? { kind: "verb", text: first + text.slice(first.length) } : { kind: "none", text: "" };
  }
  // The role is the last role word before the first preposition: "Expert Shopify Developer for …" → "expert Shopify developer".
  const lead = text.split(/\s(?:for|with|to|on|in)\s/i)[0]!;
  const role = [...lead.matchAll(ROLE)].at(-1);
  if (role) {
    const end = role.index + role[0].length;
    const head = text.slice(0, end);
    const tail = text.slice(end).trim().replace(/^(?:for|with)\s+(?!a\b|an\b|the\b|your\b|my\b)/i, (m) => `${m}your `);
    return { kind: "role", text: `${DETERMINER.test(head) ? "" : article(head) + " "}${head}${tail ? " " + tail : ""}` };
  }
  return { kind: "topic", text: DETERMINER.test(text) ? text : `the ${text}` };
}

function article(word: string): string {
  if (/^[A-Z]{2,}/.test(word)) return /^[AEFHILMNORSX]/.test(word) ? "an" : "a";
  return /^(?:[aeio]|u(?!ni|s[aeiu]|ti))/i.test(word) ? "an" : "a";
}

function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** Joined tokens with spaces around, so " node js " finds the skill "Node.js" as a phrase. */
function countPhrase(haystack: string, phrase: string[], limit: number): number {
  if (!phrase.length) return 0;
  const needle = ` ${phrase.join(" ")} `;
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0 && n < limit; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
}

const TOOL_PATTERNS = [...P.TOOLS]
  .sort((a, b) => b.length - a.length)
  .map((name) => ({
    name,
    // Not inside a longer name: "Vue" is not found in "Vue.js", nor "Java" in "JavaScript".
    pattern: new RegExp(String.raw`(?<![\p{L}\p{N}.+#])${name.replace(/[.+]/g, "\\$&")}(?![\p{L}\p{N}+#]|\.\p{L})`, "giu"),
    isAmbiguous: P.AMBIGUOUS_TOOLS.has(name.toLowerCase()),
  }));

/** Tools the text names, in order of appearance; where names overlap ("React Native"), the longest. */
function toolsIn(text: string): string[] {
  const found: { name: string; at: number; end: number }[] = [];
  for (const tool of TOOL_PATTERNS) {
    for (const m of text.matchAll(tool.pattern)) {
      const end = m.index + m[0].length;
      if (tool.isAmbiguous && !/^\p{Lu}/u.test(m[0])) continue; // "react to", "excel at"
      if (!found.some((f) => m.index < f.end && end > f.at)) found.push({ name: tool.name, at: m.index, end });
    }
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.name);
}

/**
 * What the letter should name, most telling first: the tools the title names (a "Shopify speed
 * optimisation" job is about Shopify even when its skills say "Page Speed Optimization"), then the
 * listed skills by relevance. A job with no skills listed (a pasted title and description) gets up to
 * two tools the description names instead; with a list, those are often incidental ("used on Instagram").
 * A tool the skills list also carries keeps the job's spelling.
 */
function keyTermsOf(rawTitle: string, description: string, rankedSkills: string[]): string[] {
  const listed = new Map(rankedSkills.map((s) => [tokenize(s).join(" "), s]));
  const spelled = (name: string): string => listed.get(tokenize(name).join(" ")) ?? name;
  const described = rankedSkills.length ? [] : toolsIn(description.slice(0, 3000)).slice(0, 2);
  return dedupe([...toolsIn(rawTitle).map(spelled), ...rankedSkills, ...described]);
}

/** Whether the profile lists the skill: every word of it is in one of the profile's skills. */
function isOwn(r: JobReading, skill: string): boolean {
  const words = tokenize(skill);
  return words.length > 0 && words.every((w) => r.profileWords.has(w));
}

const CATEGORY_OF = new Map<string, P.Category[]>();
for (const [name, bank] of Object.entries(P.CATEGORIES) as [P.Category, P.CategoryBank][]) {
  for (const w of bank.words.split(" ").filter(Boolean)) CATEGORY_OF.set(w, [...(CATEGORY_OF.get(w) ?? []), name]);
}

interface JobReading {
  seed: number;
  category: P.Category;
  skills: string[]; // job skills, most relevant first
  terms: string[]; // what the letter names: tools in the title, then the skills, then tools in the description
  extraSkills: string[]; // profile skills the posting mentions but does not list
  profileWords: Set<string>; // the words of the profile's skills
  need?: Need;
  problem?: string;
  title: TitleReading;
  topic: string;
  steps: string[];
  hasBudget: boolean;
}

function readJob(job: WritingJob, profile: WriterProfile | null | undefined, salt: string): JobReading {
  const rawTitle = withoutPrice(plain(job?.title, 300).replace(/\s+/g, " "));
  const description = plain(job?.description, SCAN_CHARS);
  const seed = hash(`${rawTitle}\n${description}\n${salt}`);
  const jobSkills = dedupe((Array.isArray(job?.skills) ? job.skills.slice(0, 60) : []).map((s) => fragment(plain(s, 80), 5)));
  const profileSkills = dedupe((Array.isArray(profile?.skills) ? profile!.skills!.slice(0, 60) : []).map((s) => fragment(plain(s, 80), 5)));

  // Names the posting spells with a capital mid-sentence ("our Shopify store") keep it in the letter.
  const proper = new Set<string>();
  for (const m of description.slice(0, 5000).matchAll(/(?<=[\p{Ll}\p{N},;:] )\p{Lu}[\p{L}\p{N}.+#-]*/gu)) proper.add(m[0].toLowerCase());
  for (const s of [...jobSkills, ...profileSkills]) for (const w of s.toLowerCase().split(" ")) if (!P.EVERYDAY_WORDS.has(w)) proper.add(w);

  const titleTokens = ` ${tokenize(rawTitle).join(" ")} `;
  const descTokens = ` ${tokenize(description).join(" ")} `;
  const ownSkills = new Set(profileSkills.map((s) => s.toLowerCase()));
  const mentions = (skill: string): number => {
    const t = tokenize(skill);
    return 3 * countPhrase(titleTokens, t, 1) + countPhrase(descTokens, t, 3);
  };
  // Most talked-about first; the freelancer's own skills and the client's listing order break ties.
  const relevance = (skill: string, i: number): number => mentions(skill) + (ownSkills.has(skill.toLowerCase()) ? 2 : 0) - i * 0.01;
  const skills = jobSkills.map((s, i) => ({ s, r: relevance(s, i) })).sort((a, b) => b.r - a.r).map((x) => x.s);
  const listed = new Set(skills.map((s) => s.toLowerCase()));
  const extraSkills = profileSkills.filter((s) => !listed.has(s.toLowerCase()) && mentions(s) >= 1);
  const terms = keyTermsOf(rawTitle, description, skills);

  const scores = new Map<P.Category, number>();
  const tally = (tokens: string[], weight: number): void => {
    for (const t of tokens) for (const c of CATEGORY_OF.get(t) ?? []) scores.set(c, (scores.get(c) ?? 0) + weight);
  };
  tally(tokenize(rawTitle), 3);
  tally(tokenize(jobSkills.join(" ")), 3);
  tally(tokenize(description.slice(0, 3000)), 1);
  let category: P.Category = "general";
  for (const [c, n] of scores) if (n >= 3 && n > (scores.get(category) ?? 0)) category = c;

  const sentences = sentencesOf(description);
  const title = readTitle(rawTitle, proper);
  const need = needOf(sentences, proper) ?? needOf([{ text: titleText(fragment(rawTitle, 16), proper), bullet: false }], proper);
  // The job as a noun phrase for sentences like "I'd put that straight to use on …".
  const topic =
    title.kind === "verb" ? gerund(title.text)
    : title.kind === "topic" ? title.text
    : terms[0] ? `this ${terms[0]} work`
    : category === "general" ? "this project"
    : `this ${P.CATEGORIES[category].work}`;
  return {
    seed, category, skills, terms, extraSkills, profileWords: new Set(tokenize(profileSkills.join(" "))), need, problem: problemOf(sentences, proper), title, topic, steps: stepsOf(sentences, proper),
    hasBudget: /\d/.test(plain(job?.budgetText, 200)),
  };
}

function dedupe(items: string[]): string[] {
  const seen = new Set<string>();
  return items.filter((s) => s && !seen.has(s.toLowerCase()) && !!seen.add(s.toLowerCase()));
}

// ---------------------------------------------------------------- the user's instructions

interface Wishes { maxWords: number | null; mentions: string[]; noRate: boolean; noList: boolean }

const LIMIT_BEFORE = /\b(under|below|less than|fewer than|no more than|not more than|at most|max(?:imum)?|up to|within|limit(?:ed)? to|keep it to|about|around|roughly)\s*(?:of\s*)?(\d{1,4})\s*words?\b/i;
const LIMIT_AFTER = /\b(\d{1,4})\s*words?\s*(?:max(?:imum)?|or less|or fewer|at most|limit|tops)\b/i;
const MENTION = /\b(?:mention|highlight|emphasi[sz]e|stress|point out|bring up|showcase|refer to)\s+(.+)/i;
const NEGATED = /\b(?:don't|do not|dont|never|avoid|no need to|without|not)\b/i;
const NEXT_ORDER = /\s+(?:and|but|then)\s+(?=(?:keep|make|use|write|be|add|don't|do|avoid|sign|start|end|include|mention|highlight|stress|limit|say|ask|focus)\b)/i;

/** What a template engine can honour: a word limit, "mention/highlight …", no rate, no lists. The rest is ignored. */
function readInstructions(raw: unknown): Wishes {
  const text = plain(raw, 4000);
  const wishes: Wishes = { maxWords: null, mentions: [], noRate: false, noList: /\b(?:no|avoid|without|don't use|do not use)\s+(?:bullet|list|dash)/i.test(text) };
  const before = LIMIT_BEFORE.exec(text);
  const after = before ? null : LIMIT_AFTER.exec(text);
  const n = Number(before?.[2] ?? after?.[1] ?? NaN);
  if (n > 0) wishes.maxWords = Math.max(5, /under|below|less|fewer/i.test(before?.[1] ?? "") ? n - 1 : n);
  for (const sentence of text.split(/[.!?;\n]+/).flatMap((x) => x.split(NEXT_ORDER))) {
    const m = MENTION.exec(sentence);
    if (!m || wishes.mentions.length >= 3) continue;
    const subject = clause(fragment(m[1]!, 30), 20);
    if (NEGATED.test(sentence.slice(0, m.index))) {
      if (/\b(?:rate|price|pricing|fee)\b/i.test(subject)) wishes.noRate = true;
      continue;
    }
    if (subject) wishes.mentions.push(subject);
  }
  return wishes;
}

function mentionSentence(subject: string, pick: ReturnType<typeof picker>, i: number): string {
  if (/^that\s+\S/i.test(subject)) return P.MENTION_CLAUSE(subject.replace(/^that\s+/i, ""));
  if (/^(?:my|our|how|why|the|a|an)\b/i.test(subject)) return pick(P.MENTION_OWN, `mention${i}`)(subject);
  return pick(P.MENTION_TOPIC, `mention${i}`)(subject);
}

// ---------------------------------------------------------------- composing a letter

interface Piece { text: string; keep: number } // keep: trimming to a word band drops the lowest first
interface Block { pieces: Piece[]; list?: boolean }

const countWords = (text: string): number => text.match(/\S+/g)?.length ?? 0;

function render(blocks: Block[]): string {
  const text = (b: Block): string => (b.list && !b.pieces.some((p) => p.text.startsWith("- ")) ? "" : b.pieces.map((p) => p.text).join(b.list ? "\n" : " "));
  return blocks.map(text).filter(Boolean).join("\n\n");
}

/**
 * Drops optional sentences (lowest keep first) while the letter is too long, then adds fillers while it
 * is too short. Under a tight word limit essentials go too, from the end, but never the greeting, the
 * opening sentence or the sign-off; only if those alone are too long are words cut.
 */
function fit(blocks: Block[], fillerBlock: Block, fillers: string[], min: number, max: number): string {
  const [greeting, open, signOff] = [blocks[0]!, blocks[1]!, blocks.at(-1)!];
  let text = render(blocks);
  while (countWords(text) > max) {
    let worst: { block: Block; index: number; keep: number } | null = null;
    for (const block of blocks) {
      if (block === greeting || block === signOff) continue;
      block.pieces.forEach((p, index) => {
        if (block === open && index === 0) return;
        if (!worst || p.keep <= worst.keep) worst = { block, index, keep: p.keep };
      });
    }
    if (!worst) return cutWords(text, render([signOff]), max);
    const { block, index } = worst as { block: Block; index: number };
    block.pieces.splice(index, 1);
    text = render(blocks);
  }
  for (const filler of fillers) {
    if (countWords(text) >= min) break;
    fillerBlock.pieces.push({ text: filler, keep: 10 });
    const longer = render(blocks);
    if (countWords(longer) <= max) text = longer;
    else fillerBlock.pieces.pop();
  }
  return text;
}

/** A word limit below even the opening: keep the first words, ended as a sentence, and the sign-off if there is room. */
function cutWords(text: string, signOff: string, max: number): string {
  const withSign = max - countWords(signOff) >= 8;
  const body = withSign ? text.slice(0, text.length - signOff.length) : text;
  const words = (body.match(/\S+/g) ?? []).slice(0, withSign ? max - countWords(signOff) : max);
  while (words.length > 1 && P.DANGLING.has(words.at(-1)!.toLowerCase().replace(/[^\p{L}&]/gu, ""))) words.pop();
  const ended = words.join(" ").replace(/[\s,;:-]+$/u, "").replace(/([^.!?])$/u, "$1.");
  return withSign ? `${ended}\n\n${signOff}` : ended;
}

function clampChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf(".\n"), cut.lastIndexOf("? "), cut.lastIndexOf("! "));
  if (end > max / 2) return cut.slice(0, end + 1);
  return cut.slice(0, max - 1).replace(/\s+\S*$|[\uD800-\uDBFF]$/u, "") + "…";
}

/**
 * The posting's own steps (work first, hand-over of files last), topped up from the category bank when
 * there are too few: its first step (a look at what exists) goes in front, its hand-over step at the
 * end unless the posting names deliverables, its middle steps between.
 */
function chooseSteps(r: JobReading, bank: P.CategoryBank, n: number, opening: string): string[] {
  const handover = (x: string): boolean => x.startsWith("deliver ");
  const fresh = r.steps.filter((x) => overlap(x, opening) < 0.8).slice(0, n);
  const steps = [...fresh.filter((x) => !handover(x)), ...fresh.filter(handover)];
  const [first, ...others] = bank.steps;
  const last = others.pop()!;
  const order = n === 1 ? [first!] : steps.some(handover) ? [first!, ...others] : [last, first!, ...others];
  let at = 0; // where the next middle step goes: after the first step and earlier middles
  for (const x of order) {
    if (steps.length >= n) break;
    if (steps.some((c) => overlap(c, x) >= 0.5)) continue;
    if (x === last) steps.push(x);
    else steps.splice(at++, 0, x);
  }
  // A step that only repeats the opening is used last, when neither the posting nor the bank has another.
  for (const x of r.steps) if (steps.length < n && !steps.includes(x)) steps.push(x);
  return steps;
}

/** The key terms a letter of this effort names, the profile's skills the posting mentions included. */
function topTerms(r: JobReading, count: number): string[] {
  return dedupe([...r.terms, ...r.extraSkills]).slice(0, count);
}

function slotsFor(r: JobReading, count: number): P.Slots {
  const bank = P.CATEGORIES[r.category];
  return { skills: listOf(topTerms(r, count)) || "the tools this job needs", work: bank.work, thing: bank.thing, topic: r.topic };
}

/** "50 USD/hour" or "a fixed 800 USD": the bid as a letter states it; "" when there is no usable bid. */
export function bidText(bid: Bid | null | undefined): string {
  const usable = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n > 0 && n < 100_000_000;
  const amount = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));
  if (usable(bid?.hourlyRate)) return `${amount(bid.hourlyRate)} USD/hour`;
  if (usable(bid?.fixedBid)) return `a fixed ${amount(bid.fixedBid)} USD`;
  return "";
}

export function writeProposalLocally(input: LocalProposalInput): string {
  const effort: Effort = input?.effort === "low" || input?.effort === "high" ? input.effort : "medium";
  const profile = input?.profile ?? null;
  const r = readJob(input?.job, profile, "");
  const pick = picker(r.seed);
  const bank = P.CATEGORIES[r.category];
  const wishes = readInstructions(input?.instructions);
  const s = slotsFor(r, SKILL_COUNT[effort]);

  const opening =
    r.need ? pick(P.NEED_OPENINGS, "open")(r.need.sv, r.need.obj)
    : r.title.kind === "verb" ? pick(P.VERB_OPENINGS, "open")(r.title.text)
    : r.title.kind === "role" ? pick(P.ROLE_OPENINGS, "open")(r.title.text)
    : pick(P.TOPIC_OPENINGS, "open")(r.title.kind === "topic" ? r.title.text : r.topic);
  const open: Block = { pieces: [{ text: opening, keep: ESSENTIAL }] };
  if (r.problem && overlap(r.problem, opening) < 0.6) open.pieces.push({ text: pick(P.PROBLEM_LINES, "problem")(r.problem), keep: 70 });
  if (effort !== "low") open.pieces.push({ text: pick(P.BRIDGES, "bridge")(s), keep: 45 });

  // The profile's skills the job needs are the freelancer's; the other key terms are the plan.
  const role = fragment(plain(profile?.title, 120), 8);
  const intro = role ? pick(P.ROLE_INTROS, "role")(DETERMINER.test(role) ? role : `${article(role)} ${role}`) : "";
  const top = topTerms(r, SKILL_COUNT[effort]);
  const owned = top.filter((x) => isOwn(r, x));
  const planned = top.filter((x) => !isOwn(r, x));
  const skillLines = [
    owned.length ? pick(P.OWN_SKILL_LINES, "own")(listOf(owned)) : "",
    planned.length ? pick(P.PLAN_LINES, "plan")(listOf(planned)) : owned.length ? "" : pick(P.PLAIN_PLAN, "plan")(s),
  ];
  const skillBlock: Block = { pieces: [{ text: intro + skillLines.filter(Boolean).join(" "), keep: ESSENTIAL }] };
  wishes.mentions.forEach((m, i) => skillBlock.pieces.push({ text: mentionSentence(m, pick, i), keep: ESSENTIAL }));
  skillBlock.pieces.push({ text: pick(bank.principles, "category"), keep: 55 });
  const unlisted = r.extraSkills.find((x) => !s.skills.includes(x));
  if (effort === "high" && unlisted) skillBlock.pieces.push({ text: pick(P.EXTRA_SKILL_LINES, "extra")(unlisted), keep: 38 });

  const steps = chooseSteps(r, bank, STEP_COUNT[effort], r.need?.obj ?? opening);
  const asList = effort !== "low" && !wishes.noList && hash("list", r.seed) % 2 === 0;
  const approach: Block = { pieces: [], list: asList };
  if (effort === "low") {
    // One line should be work, not a hand-over of files.
    const step = steps.find((x) => !x.startsWith("deliver ")) ?? bank.steps[0]!;
    approach.pieces.push({ text: pick(P.SINGLE_STEP, "single")(step, gerund(step)), keep: 85 });
  }
  else if (asList) {
    approach.pieces.push({ text: pick(P.APPROACH_INTROS, "intro"), keep: 84 });
    steps.forEach((step, i) => approach.pieces.push({ text: `- ${P.cap(step)}`, keep: [85, 60, 50, 40][i]! }));
  } else {
    const middle = hash("middle", r.seed); // consecutive middle steps get different frames
    steps.forEach((step, i) => {
      const frame = i === 0 ? pick(P.FIRST_STEP, "first") : i === steps.length - 1 ? pick(P.LAST_STEP, "last") : P.MIDDLE_STEP[(middle + i) % P.MIDDLE_STEP.length]!;
      approach.pieces.push({ text: frame(step, gerund(step)), keep: [85, 60, 50, 40][i]! });
    });
  }

  const extras: Block = { pieces: [] };
  if (effort === "high") {
    if (r.hasBudget) extras.pieces.push({ text: pick(P.BUDGET_LINES, "budget"), keep: 30 });
    extras.pieces.push({ text: pick(P.TIMELINE_LINES, "timeline"), keep: 28 });
    extras.pieces.push({ text: pick(P.RISK_FRAMES, "risk")(pick(bank.risks, "risks")), keep: 32 });
    extras.pieces.push({ text: pick(P.ASSUMPTION_FRAMES, "assume")(pick(bank.assumptions, "assumptions")), keep: 26 });
    const place = P.COUNTRIES[plain(input?.job?.clientCountry, 4).toUpperCase()];
    if (place) extras.pieces.push({ text: P.COUNTRY_LINE(place), keep: 20 });
  }

  const closing: Block = { pieces: [] };
  const bid = wishes.noRate ? "" : bidText(input?.bid);
  if (bid) closing.pieces.push({ text: pick(P.BID_LINES, "rate")(bid), keep: 90 });
  // A question built from two of the posting's own steps is the most specific one there is.
  const own = r.steps.filter((x) => overlap(x, r.need?.obj ?? opening) < 0.8);
  const stepQuestion = own.length >= 2 ? [pick(P.STEP_QUESTIONS, "stepq")(gerund(own[0]!), gerund(own[1]!))] : [];
  const questions = [...bank.questions, ...stepQuestion, ...stepQuestion, ...P.GENERAL_QUESTIONS.map((q) => q(s))];
  closing.pieces.push({ text: pick(questions, "question"), keep: 80 });
  closing.pieces.push({ text: pick(P.NEXT_STEPS, "next"), keep: effort === "low" ? 15 : 35 });

  const name = fragment(plain(profile?.name, 80), 6);
  const signOff: Block = { pieces: [{ text: name ? `${pick(P.SIGN_OFFS, "sign")}\n${name}` : pick(P.UNSIGNED_ENDINGS, "sign"), keep: ESSENTIAL }] };
  const greeting: Block = { pieces: [{ text: pick(P.GREETINGS, "greet"), keep: ESSENTIAL }] };

  const fillers = P.FILLERS.map((f, i) => ({ text: f, order: hash(`filler${i}`, r.seed) })).sort((a, b) => a.order - b.order).map((f) => f.text);
  const [low, high] = BANDS[effort];
  const max = Math.min(high, wishes.maxWords ?? high);
  const blocks = [greeting, open, skillBlock, approach, extras, closing, signOff];
  return clampChars(fit(blocks, extras, fillers, Math.min(low, max), max), MAX_PROPOSAL_CHARS);
}

// ---------------------------------------------------------------- screening answers

const Q_PORTFOLIO = /\b(?:portfolio|samples? of|work samples?|examples? of (?:your |previous |past |similar )?work|links? to|github|case stud(?:y|ies)|previous work|past work|show (?:me|us) (?:your|some|examples))\b/i;
const Q_RATE = /\b(?:rate|budget|price|pricing|cost|charge|quote|fee|how much)\b/i;
const Q_EXPERIENCE = /\b(?:have you (?:ever )?(?:worked|used|built|done|dealt|integrated|created|developed|designed|migrated|written)|experience|familiar(?:ity)? with|worked with|comfortable with|proficient|expertise|know)\b/i;
const Q_TIMEZONE = /\b(?:time ?zones?|overlap|working hours|business hours|based)\b/i;
const Q_AVAILABILITY = /\b(?:when (?:can|could|would) you start|start (?:date|immediately|right away|soon|on|today|tomorrow|next)|how soon|available|availability|hours? (?:per|a|each) week|full[- ]time|part[- ]time|commit)\b/i;
const Q_TIMELINE = /\b(?:how (?:long|quickly|fast)|timeline|time ?frame|estimate|deadline|turnaround|how many (?:hours|days|weeks)|eta|when (?:can|could|would|will) you (?:finish|complete|deliver))\b/i;
const Q_APPROACH = /\b(?:approach|how would you|how do you|how will you|describe|walk (?:me|us) through|plan|strategy|process|methodology|recent|similar|tell (?:me|us) about|explain)\b/i;
const Q_YES_NO = /^(?:are|do|can|will|is|have|would|did|could|does|should|has)\b/i;
const GENERIC_SUBJECT = /^(?:how|what|why|where|when|which|whether|if|similar|this|these|those|such|that|the same|it|them|projects?|work|jobs?|tasks?|anything|something|any)\b/i;

/** The technology an experience question asks about: a listed skill it names, else the words after "with/in/using". */
function askedAbout(question: string, cueAt: number, r: JobReading): string {
  const tokens = ` ${tokenize(question).join(" ")} `;
  const named = [...r.skills, ...r.extraSkills].filter((s) => countPhrase(tokens, tokenize(s), 1) > 0).sort((a, b) => b.length - a.length)[0];
  const after = /\b(?:with|in|using|of|on|know)\s+([^?.!,;]{2,60})/i.exec(question.slice(cueAt));
  const phrase = fragment(
    (after?.[1] ?? "").replace(/\s+(?:before|previously|in the past|yet|at all|so far|recently|projects?|development|tools?|stack)\b.*$/i, "").replace(/^(?:the|a|an)\s+/i, ""),
    5,
  );
  if (phrase && !GENERIC_SUBJECT.test(phrase)) return flip(phrase);
  return named ?? "";
}

/** The question's subject as a few of its own content words: "What tools do you use for testing?" → "tools and testing". */
function subjectOf(question: string): string {
  const groups: string[][] = [[]];
  for (const word of fragment(question, 40).split(" ")) {
    const bare = word.replace(/[^\p{L}\p{N}+#.'-]/gu, "").replace(/[.']+$/, "");
    if (bare && !P.QUESTION_WORDS.has(bare.toLowerCase())) groups.at(-1)!.push(bare);
    else if (groups.at(-1)!.length) groups.push([]);
  }
  return listOf(groups.filter((g) => g.length).slice(0, 2).map((g) => g.slice(0, 3).join(" ")));
}

export function answerQuestionLocally(input: { job: WritingJob; profile?: WriterProfile | null; question: string; bid?: Bid | null }): string {
  const question = plain(input?.question, 2000).replace(/\s+/g, " ").trim();
  const r = readJob(input?.job, input?.profile, question);
  const pick = picker(r.seed);
  const bank = P.CATEGORIES[r.category];
  // A question that tries to instruct the writer is answered in general terms, never restated.
  const q = isInjection(question) ? "" : question;
  // chooseSteps puts hand-overs last; if the posting gives nothing but deliverables, start with the bank's first step.
  const steps = chooseSteps(r, bank, 3, r.need?.obj ?? "");
  const first = steps[0]?.startsWith("deliver ") ? bank.steps[0]! : (steps[0] ?? bank.steps[0]!);
  const base = slotsFor(r, 3);
  const second = steps.find((x) => x !== first) ?? bank.steps.at(-1)!;
  const s: P.AnswerSlots = { ...base, asked: "", related: r.terms[1] ?? r.terms[0] ?? "the rest of the stack", vp: first, ing: gerund(first), ing2: gerund(second) };
  const bid = bidText(input?.bid);
  const experienceCue = Q_EXPERIENCE.exec(q);
  const asked = experienceCue ? askedAbout(q, experienceCue.index, r) : "";
  let text: string;
  if (Q_PORTFOLIO.test(q)) text = pick(P.PORTFOLIO_ANSWERS, "portfolio")(s);
  else if (Q_RATE.test(q)) {
    text = bid ? pick(P.RATE_ANSWERS.bid, "rate")(bid, s) : pick(r.hasBudget ? P.RATE_ANSWERS.budget : P.RATE_ANSWERS.open, "rate")(s);
  } else if (asked) {
    const related = [...r.terms, ...r.extraSkills].find((x) => !asked.toLowerCase().includes(x.toLowerCase()) && !x.toLowerCase().includes(asked.toLowerCase()));
    const slots = { ...s, asked, related: related ?? "the rest of the stack you describe" };
    // "Yes" only for a skill the profile lists; otherwise how it fits the plan, with no claim of having used it.
    if (isOwn(r, asked)) text = `${Q_YES_NO.test(q) ? "Yes, " : ""}${pick(P.EXPERIENCE_ANSWERS, "experience")(slots)}`;
    else text = pick(P.PLAN_ANSWERS, "experience")(slots);
  } else if (Q_TIMEZONE.test(q)) text = pick(P.TIMEZONE_ANSWERS, "timezone")(s);
  else if (Q_AVAILABILITY.test(q)) text = pick(P.AVAILABILITY_ANSWERS, "availability")(s);
  else if (Q_TIMELINE.test(q)) text = pick(P.TIMELINE_ANSWERS, "timeline")(s);
  else if (experienceCue && Q_YES_NO.test(q)) text = pick(P.SIMILAR_WORK_ANSWERS, "similar")(s);
  else if (Q_APPROACH.test(q) || experienceCue) text = pick(P.APPROACH_ANSWERS, "approach")(s);
  else if (Q_YES_NO.test(q)) text = pick(P.YES_ANSWERS, "yes")(s);
  else {
    const subject = subjectOf(q);
    text = subject ? pick(P.GENERIC_ANSWERS, "generic")({ ...s, asked: subject }) : pick(P.UNSUBJECTED_ANSWERS, "generic")(s);
  }
  return clampChars(text, MAX_ANSWER_CHARS);
}
