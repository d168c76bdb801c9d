/**
 * Key terms of a job for the local writer: the platforms and tools its title names, then its listed
 * skills by relevance, or a couple of tools the description names when it lists none.
 */
import { tokenize } from "../lib/text";
import { dedupe } from "./local-writer-text";
import * as P from "./local-writer-phrases";

/** Compiled on first use: at module load they slowed the binary's start (docs/performance.md, 'Why the code is as it is'), for a writer `serve` runs on its own threads. */
let toolPatterns: { name: string; pattern: RegExp; isAmbiguous: boolean }[] | undefined;
const compileToolPatterns = () =>
  [...P.TOOLS]
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
  toolPatterns ??= compileToolPatterns();
  for (const tool of toolPatterns) {
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
export function keyTermsOf(rawTitle: string, description: string, rankedSkills: string[]): string[] {
  const listed = new Map(rankedSkills.map((s) => [tokenize(s).join(" "), s]));
  const spelled = (name: string): string => listed.get(tokenize(name).join(" ")) ?? name;
  const described = rankedSkills.length ? [] : toolsIn(description.slice(0, 3000)).slice(0, 2);
  return dedupe([...toolsIn(rawTitle).map(spelled), ...rankedSkills, ...described]);
}
