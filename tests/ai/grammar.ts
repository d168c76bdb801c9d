/**
 * Checkable grammar rules for the local writer's letters and answers (issue 44): the mistakes a template
 * engine makes when it pastes job text into a frame, each as a rule a test can assert. The writer's own
 * slot for the freelancer ("[your start date]") is exempt, as are quoted portfolio titles and links.
 */
import { isTechName } from "../../src/ai/stem";
import * as P from "../../src/ai/local-writer-phrases";

/** The local writer's visible slot for what only the freelancer can fill in. */
export const PLACEHOLDER_SLOT = /\[your [^\][]{2,80}\]/g;

/** Words that are capitalised for a reason wherever they stand. */
const ALWAYS = new Set(
  "I I'd I'm I'll I've English Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August September October November December Eastern Pacific Central Mountain Greenwich".split(
    " ",
  ),
);
const TOOL_WORDS = new Set(P.TOOLS.flatMap((t) => t.split(" ")));
const COUNTRY_WORDS = new Set(Object.values(P.COUNTRIES).flatMap((c) => c.split(" ")));

export interface GrammarContext {
  /** The job's title, skills and description, the profile and the question: where names may come from. */
  sources: string[];
  /** The job's title, whose Title Case words may be names ("Family Bakery") once everyday words are set aside. */
  titles?: string[];
  /** The freelancer's own title ("Senior Full-Stack Developer"), capitalised as they wrote it. */
  own?: string[];
}

/** Capitalised words the input backs as names: mid-sentence capitals and non-everyday title or skill words. */
function namesIn(ctx: GrammarContext): Set<string> {
  const names = new Set<string>();
  const add = (w: string): void => {
    if (!P.EVERYDAY_WORDS.has(w.toLowerCase()) && !P.DANGLING.has(w.toLowerCase())) names.add(w);
  };
  for (const text of ctx.sources) for (const m of text.matchAll(/(?<=[\p{Ll}\p{N},;:()] )\p{Lu}[\p{L}\p{N}.+#'-]*/gu)) add(m[0].replace(/[.'-]+$/, ""));
  for (const title of ctx.titles ?? []) for (const m of title.matchAll(/\p{Lu}[\p{L}\p{N}.+#'-]*/gu)) add(m[0].replace(/[.'-]+$/, ""));
  for (const text of ctx.own ?? []) for (const m of text.matchAll(/\p{Lu}[\p{L}\p{N}.+#'-]*/gu)) names.add(m[0]);
  // A short label with one name in it is a name as a whole: "Beautiful Soup", "Senior Full-Stack Developer".
  for (const label of ctx.sources.filter((s) => s.length < 40)) {
    const words = label.match(/\p{Lu}[\p{L}\p{N}.+#'-]*/gu) ?? [];
    if (words.some((w) => !P.EVERYDAY_WORDS.has(w.toLowerCase()) && !P.DANGLING.has(w.toLowerCase()))) for (const w of words) names.add(w);
  }
  return names;
}

function sentencesOf(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=\S)/))
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Every rule the text breaks, as short descriptions with the offending words; [] when it reads. */
export function grammarProblems(text: string, ctx: GrammarContext, opts: { letter?: boolean } = {}): string[] {
  const problems: string[] = [];
  // Slots, quoted titles and links are the freelancer's words, not the writer's.
  const body = text
    .replace(PLACEHOLDER_SLOT, "X")
    .replace(/"[^"\n]{1,120}"/g, "X")
    .replace(/https?:\/\/\S+?(?=[.,;]?(?:\s|$))/g, "X");
  if (/[[\]{}<>]/.test(body)) problems.push(`a bracket outside the writer's slot format: ${body.match(/.{0,20}[[\]{}<>].{0,20}/)?.[0]}`);
  for (const m of body.matchAll(/\b(\p{L}+)\s+\1\b/giu)) problems.push(`doubled word: "${m[0]}"`);
  for (const m of body.matchAll(/[^\S\n]{2,}|\s[,.;:!?]|[,;:]\s*[,.;:!?]|\.\.(?!\.)|,\./g)) problems.push(`empty slot or stray punctuation: "${m[0]}"`);
  for (const m of body.matchAll(/\b(?:with|for|of|by|and|or|the|a|an|at|from|using)\s*[.,;:!?]/gi)) problems.push(`a word left without its object: "${m[0]}"`);
  for (const m of body.matchAll(/\ba (?=[aeio][a-z])(?!one\b)\w+|\ban (?=[bcdfgjklmnpqrstvwxz][a-z])(?!hour|honest)\w+/g)) problems.push(`a/an: "${m[0]}"`);
  if (/(?:^|\s)i(?=\s|'[a-z])/.test(body)) problems.push('lower-case "i"');
  const names = namesIn(ctx);
  for (const raw of sentencesOf(body)) {
    const sentence = raw.replace(/^-\s+/, "");
    const bullet = raw.startsWith("- ");
    if (!/^[\p{Lu}\p{N}X"]/u.test(sentence)) problems.push(`sentence does not start with a capital: "${sentence.slice(0, 40)}"`);
    const closing = opts.letter && /^(?:Hi|Hello|Hi there|Dear \S+|Best regards|Kind regards|Thanks|Best|Thank you|Regards),$/.test(sentence);
    const nameLine = opts.letter && /^\p{Lu}[\p{L}'-]*(?: \p{Lu}[\p{L}'-]*){0,3}$/u.test(sentence);
    const listIntro = opts.letter && sentence.endsWith(":");
    if (!/[.!?]$/.test(sentence) && !closing && !nameLine && !listIntro && !bullet)
      problems.push(`sentence does not end with punctuation: "${sentence.slice(-40)}"`);
    // A capital right after a lower-case word is a name, or a pasted fragment that does not read ("I'd deliver Present …").
    for (const m of sentence.matchAll(/(?<=\p{Ll}[,;:]? )\p{Lu}[\p{L}\p{N}.+#'’-]*/gu)) {
      const word = m[0].replace(/[.'’-]+$/, "");
      if (ALWAYS.has(word) || names.has(word) || TOOL_WORDS.has(word) || COUNTRY_WORDS.has(word) || word === "X") continue;
      if (/^\p{Lu}[\p{L}\p{N}]*[\p{Lu}\p{N}.+#]/u.test(word) || isTechName(word.toLowerCase())) continue; // JavaScript, GA4, USD, Node.js
      problems.push(`capitalised word mid-sentence that is not a name: "${sentence.slice(Math.max(0, m.index - 20), m.index + word.length + 10)}"`);
    }
  }
  return problems;
}
