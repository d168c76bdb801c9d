/**
 * The local writer's proof paragraph (issue 44): the one or two case studies most relevant to the job
 * (./portfolio's retrieval), cited with what was built, for whom, the result and the link, exactly as the
 * freelancer entered them, and the years they entered for a skill the job needs. Nothing here is invented: the
 * claim check passes every sentence because each one quotes the portfolio.
 */
import { type CaseStudy, type Portfolio, relevantCaseStudies, type RetrievalJob } from "./portfolio";
import { skillLabel } from "./local-writer-reading";
import { hash, listOf, plain } from "./local-writer-text";

/** Lowercases a leading common word so a fragment reads inside a sentence; names and acronyms stay. */
function inSentence(text: string): string {
  const first = /^(\S+)/.exec(text)?.[1] ?? "";
  return /^(?:A|An|The|Built|Created|Developed|Designed|Rebuilt|Migrated|Cut|Reduced|Increased|Improved|Grew|Doubled|Tripled|Made|Wrote|Added|Launched|Shipped|Moved|Helped|Raised|Saved|Turned|Set|Replaced|Automated|Used|Sold|Won|Reached|Handled|Served|Processed)$/.test(
    first,
  )
    ? text[0]!.toLowerCase() + text.slice(1)
    : text;
}

/** A field as the letter quotes it: the freelancer's words (numbers and units kept), without markup or a trailing stop. */
function quote(text: string, words: number): string {
  const clean = plain(text, 600)
    .replace(/https?:\/\/\S*/gi, "")
    .replace(/[<>{}[\]*_#`]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  const cut = clean.split(" ").slice(0, words).join(" ");
  return cut.replace(/[.;:,\s]+$/, "");
}

const VERB_FIRST = /^(?:built|created|developed|designed|rebuilt|migrated|made|wrote|added|launched|shipped|moved|replaced|automated|set up)\b/i;

/** One case study as sentences: what it was and for whom, the result, the shared skills (first only), the link. */
export function citeOne(c: CaseStudy, shared: string[], first: boolean, seed: number): string[] {
  const title = quote(c.title, 12);
  const built = inSentence(quote(c.built, 30));
  const client = quote(c.client, 10);
  const outcome = quote(c.outcome, 24);
  const forWhom = client ? ` for ${/^(?:a|an|the)\s/i.test(client) || /^[A-Z]/.test(client) ? client : `a ${client}`}` : "";
  // A verb-first "built" reads as what I did; a noun phrase as what the project was.
  const what = !built ? "" : VERB_FIRST.test(built) ? `, where I ${built}` : `: ${built}`;
  const frames = first
    ? [
        () => `The closest match in my portfolio is "${title}"${forWhom}${what}.`,
        () => `A relevant project of mine is "${title}"${forWhom}${what}.`,
        () => `I've done this kind of work before, on "${title}"${forWhom}${what}.`,
      ]
    : [() => `I also delivered "${title}"${forWhom}${what}.`, () => `Another related project is "${title}"${forWhom}${what}.`];
  const lines = [frames[hash(`cite${first ? 1 : 2}`, seed) % frames.length]!()];
  if (outcome) lines.push(`The result: ${inSentence(outcome)}.`);
  if (shared.length && first) lines.push(`It used ${listOf(shared.slice(0, 3).map(skillLabel))}, as your project does.`);
  if (c.link) lines.push(`You can see it at ${c.link} and I'm happy to walk you through it.`);
  return lines;
}

export interface Proof {
  /** Sentences to place after the skills, in order. */
  sentences: string[];
  cited: CaseStudy[];
}

/** The proof sentences for this job from the portfolio: at most two case studies (one at low effort) and a years line. */
export function proofFor(portfolio: Portfolio | null | undefined, job: RetrievalJob, terms: string[], maxCases: number, seed: number): Proof {
  if (!portfolio) return { sentences: [], cited: [] };
  const picked = relevantCaseStudies(portfolio, job, maxCases);
  const sentences = picked.flatMap((r, i) => citeOne(r.study, r.sharedSkills, i === 0, seed));
  // Years only for a skill the letter names, so the number reads as relevant, and only as entered.
  const lower = terms.map((t) => t.toLowerCase());
  const years = portfolio.skillYears.find((y) => lower.includes(y.skill.toLowerCase()) && y.years >= 1);
  if (years) sentences.push(`I've worked with ${years.skill} for ${years.years} ${years.years === 1 ? "year" : "years"}.`);
  return { sentences, cited: picked.map((r) => r.study) };
}
