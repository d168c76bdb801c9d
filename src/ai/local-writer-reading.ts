/**
 * Reading a job for the local writer, once per letter or answer: the client's need and problem in their
 * own words, approach steps from the posting's sentences and bullets, what the title is (a task, a role,
 * a topic), the key terms, the category whose phrase bank fills the gaps, and which skills the
 * freelancer's profile backs. Sentences that try to instruct the writer or name a price are never read.
 */
import type { Portfolio } from "./portfolio";
import { tokenize } from "../lib/text";
import { keyTermsOf } from "./local-writer-terms";
import { MONEY, withoutPrice } from "./local-writer-money";
import * as P from "./local-writer-phrases";
import {
  clause,
  dedupe,
  flip,
  fragment,
  gerund,
  hash,
  ing,
  isInjection,
  LATER_VERBS,
  lowerFirst,
  overlap,
  plain,
  SENTENCE_CHARS,
  article,
  countPhrase,
} from "./local-writer-text";
import type { JobType } from "../db/enums";

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
  /** The profile's portfolio (issue 44): the case studies a letter may cite and the years it may state. */
  portfolio?: Portfolio | null;
}

/** The need and the requirements come first in a posting; reading further only costs time. */
const SCAN_CHARS = 20_000;
const MAX_SENTENCES = 160;

/** Application logistics, not work to be done: never an approach step. */
const META = new RegExp(
  String.raw`\b(?:apply|applying|applicants?|application|proposals?|cover letter|bids?|bidding|interview|shortlist|hiring|contact (?:me|us)|message me|` +
    String.raw`send (?:me|us)|please (?:include|share|send|describe|list|tell|provide|attach|start)|budget|rate|payment (?:terms|schedule|method)|` +
    String.raw`(?:we|i)(?: will| can| would)? pay\b|paid (?:hourly|weekly|per|upon|on|after)|nda)\b`,
  "i",
);

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

const VERB_ALT = P.VERBS.filter((v) => v !== "set")
  .map((v) => v.replace(/[-\s]/g, "[-\\s]"))
  .join("|");

const GERUNDS = new Map(P.VERBS.map((v) => [ing(v.split(/[-\s]/)[0]!), v.split(/[-\s]/)[0]!]));

const ACTION = new RegExp(
  String.raw`(?:^|\b(?:to|will|'ll|must|should|shall|can|could|would|please|then|help(?: us| me)?|responsible for)\s+)(?:also\s+|then\s+|fully\s+)?(${VERB_ALT})\b`,
  "i",
);

const STEP_SPLIT = new RegExp(String.raw`\s*(?:,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?(?:also\s+)?|\s+then\s+)(?=(?:${VERB_ALT})\b)`, "i");
const DELIVERABLE =
  /\b(?:files?|source|svg|png|pdf|jpe?g|eps|reports?|documentation|docs|mockups?|logos?|designs?|dashboards?|csv|spreadsheets?|scripts?|guide|presentation|videos?|templates?)\b/i;
const LIST_LEAD = /^(?:deliverables?|requirements?|scope|tasks?|what (?:we|i) need|responsibilities)\s*:\s*/i;
const NEED =
  /\b(we|i)(?:'re|'m|'d| are| am| would)?\s+(?:currently\s+|urgently\s+|really\s+|also\s+|now\s+)?(need|want|require|looking for|seeking|searching for|like|hoping)\s+(.+)/i;
const NEED_START = /^(?:urgently\s+)?(looking for|need|needed|seeking|searching for|hiring)\s*:?\s+(.+)/i;
const PROBLEM = new RegExp(
  String.raw`\b(?:our|my|the)\s[^.!?]{0,60}?\b(?:(?:is|are|has|have|keeps?|takes?|gets?|feels?|looks?)\s+(?:really\s+|very\s+|too\s+|still\s+|extremely\s+|quite\s+)?` +
    String.raw`(?:slow|broken|failing|crashing|down|outdated|buggy|not\s+\w+|over\s+\d|\d+\s*(?:seconds|secs?|s)\b|dropping|losing|low|poor|messy|unreliable|unstable|manual|expensive)` +
    String.raw`|(?:crashes|fails|breaks|freezes|hangs|stopped|stops|doesn't|does not|won't|can't|cannot|isn't|aren't)\b)`,
  "i",
);
const ROLE =
  /\b(?:developer|engineer|designer|expert|specialist|consultant|writer|freelancer|programmer|architect|administrator|admin|assistant|analyst|marketer|scientist|editor|illustrator|copywriter|tester|manager|strategist|artist|animator|professional)s?\b/gi;
export const DETERMINER = /^(?:a|an|the|my|our|your|this|these|some|its|their|\d)\b/i;
/**
 * A requirement about the freelancer, not work to do ("Proven experience with logo design", "Must have a
 * portfolio", "3+ years with React"): never an approach step, or the letter would promise to "deliver" it.
 */
const QUALIFICATION = new RegExp(
  String.raw`^(?:(?:proven|demonstrated|solid|strong|excellent|good|great|deep|extensive|previous|prior|relevant|hands-on|professional|in-depth|advanced|basic|working)\s+)*` +
    String.raw`(?:experience|knowledge|understanding|skills?|proficiency|familiarity|expertise|background|track record|portfolio|attention|communication|english|ability)\b` +
    String.raw`|^(?:must|should)\s+(?:have|be|know|speak|possess)\b|^(?:at least|minimum of|min\.?)\s+\d|^\d+\+?\s*(?:years?|yrs)\b` +
    String.raw`|^(?:experienced|proficient|fluent|familiar|comfortable|available|able|native)\b|^(?:you|candidates?|applicants?|the freelancer)\s+(?:must|should|will need to)\s+(?:have|be)\b`,
  "i",
);

interface Sentence {
  text: string;
  bullet: boolean;
}

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
    if (QUALIFICATION.test(body)) continue;
    const lead = bullet || listed ? GERUNDS.get(body.match(/^\p{L}+/u)?.[0]?.toLowerCase() ?? "") : undefined;
    if (lead) body = lead + body.replace(/^\p{L}+/u, "");
    const found = ACTION.exec(body);
    let pieces: string[];
    if (found) pieces = joinShort(body.slice(found.index + found[0].length - found[1]!.length).split(STEP_SPLIT));
    else if ((bullet || listed) && DELIVERABLE.test(body) && body.split(/\s+/).length <= 16)
      pieces = [`deliver ${lowerFirst(body.replace(/^(?:the\s+)?deliver(?:y|ables?)\s*/i, ""), proper)}`];
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

interface Need {
  sv: string;
  obj: string;
}

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
    const sv =
      verb.startsWith("need") || verb === "require"
        ? "you need"
        : verb === "want"
          ? "you want"
          : verb === "like"
            ? "you'd like"
            : verb === "hoping"
              ? "you're hoping"
              : "you're looking for";
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

interface TitleReading {
  kind: "verb" | "role" | "topic" | "none";
  text: string;
}

function readTitle(rawTitle: string, proper: Set<string>): TitleReading {
  const cleaned = fragment(rawTitle, 16)
    .replace(/^(?:(?:urgent(?:ly)?|asap|hiring|looking for|seeking|wanted)\b[\s:!,-]*)+/i, "")
    .replace(/(?:[\s,!-]*\b(?:needed|wanted|required|asap|urgent(?:ly)?|for hire|now)\b[\s!.]*)+$/i, "");
  if (!cleaned || isInjection(cleaned)) return { kind: "none", text: "" };
  const text = flip(titleText(cleaned, proper)).replace(/[.!?]+$/, "");
  const words = text.split(/\s+/);
  const first = words[0]!.toLowerCase();
  // "Update product descriptions" is a task, "Document translation" is not: an ambiguous verb needs a determiner or a plural object.
  const object =
    words.length >= 2 &&
    (DETERMINER.test(words[1]!) || (/[^s]s$/i.test(words.at(-1)!) && !P.EVERYDAY_WORDS.has(words.at(-1)!.toLowerCase())) || /s$/.test(words.at(-1)!));
  if (P.CLEAR_VERBS.has(first) || (P.VERBS.includes(first) && object)) {
    return words.length >= 2 ? { kind: "verb", text: first + text.slice(first.length) } : { kind: "none", text: "" };
  }
  // The role is the last role word before the first preposition: "Expert Shopify Developer for …" → "expert Shopify developer".
  const lead = text.split(/\s(?:for|with|to|on|in)\s/i)[0]!;
  const role = [...lead.matchAll(ROLE)].at(-1);
  if (role) {
    const end = role.index + role[0].length;
    const head = text.slice(0, end);
    const tail = text
      .slice(end)
      .trim()
      .replace(/^(?:for|with)\s+(?!a\b|an\b|the\b|your\b|my\b)/i, (m) => `${m}your `);
    return { kind: "role", text: `${DETERMINER.test(head) ? "" : article(head) + " "}${head}${tail ? " " + tail : ""}` };
  }
  return { kind: "topic", text: DETERMINER.test(text) ? text : `the ${text}` };
}

/**
 * A skill tag of everyday words ("Logo Design", "Web Scraping", "Dashboard") is a description, not a name, so
 * it is written in lower case to read mid-sentence; a tag with any other word ("Beautiful Soup") stays as spelled.
 */
export function skillLabel(skill: string): string {
  const titled = skill.split(" ").filter((w) => /^\p{Lu}\p{Ll}+$/u.test(w));
  if (!titled.length || !titled.every((w) => P.EVERYDAY_WORDS.has(w.toLowerCase()))) return skill;
  return skill.replace(/(?<![\p{L}\p{N}])\p{Lu}\p{Ll}+(?![\p{L}\p{N}])/gu, (w) => w.toLowerCase());
}

/** Activities and fields that read without an article; other one-word labels are things ("dashboard"). */
const MASS_NOUN =
  /(?:ing|tion|sion|ment|ics|ogy|ysis|ity)$|^(?:design|research|content|data|seo|support|branding|copy|media|ecommerce|e-commerce|software|analytics|automation)$/;

/** A key term as the object of a sentence: "the dashboard" for a lower-case thing, names and fields as they are. */
export function asObject(term: string): string {
  return /^\p{Ll}[\p{Ll}-]*$/u.test(term) && P.EVERYDAY_WORDS.has(term) && !MASS_NOUN.test(term) ? `the ${term}` : term;
}

/** Whether the profile lists the skill: every word of it is in one of the profile's skills. */
export function isOwn(r: JobReading, skill: string): boolean {
  const words = tokenize(skill);
  return words.length > 0 && words.every((w) => r.profileWords.has(w));
}

const CATEGORY_OF = new Map<string, P.Category[]>();
for (const [name, bank] of Object.entries(P.CATEGORIES) as [P.Category, P.CategoryBank][]) {
  for (const w of bank.words.split(" ").filter(Boolean)) CATEGORY_OF.set(w, [...(CATEGORY_OF.get(w) ?? []), name]);
}

export interface JobReading {
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

export function readJob(job: WritingJob, profile: WriterProfile | null | undefined, salt: string): JobReading {
  const rawTitle = withoutPrice(plain(job?.title, 300).replace(/\s+/g, " "));
  const description = plain(job?.description, SCAN_CHARS);
  const seed = hash(`${rawTitle}\n${description}\n${salt}`);
  const jobSkills = dedupe((Array.isArray(job?.skills) ? job.skills.slice(0, 60) : []).map((s) => skillLabel(fragment(plain(s, 80), 5))));
  // Skills the portfolio names (its case studies, its years) are the freelancer's as much as the profile's list.
  const entered = [
    ...(Array.isArray(profile?.skills) ? profile!.skills!.slice(0, 60) : []),
    ...(profile?.portfolio?.caseStudies ?? []).flatMap((c) => c.skills),
    ...(profile?.portfolio?.skillYears ?? []).map((y) => y.skill),
  ];
  const profileSkills = dedupe(entered.slice(0, 120).map((s) => fragment(plain(s, 80), 5)));

  // Names the posting spells with a capital mid-sentence ("our Shopify store") keep it in the letter.
  const proper = new Set<string>();
  // Everyday words so spelled are an echo of a skill tag ("experience with Logo Design"), not a name.
  for (const m of description.slice(0, 5000).matchAll(/(?<=[\p{Ll}\p{N},;:] )\p{Lu}[\p{L}\p{N}.+#-]*/gu))
    if (!P.EVERYDAY_WORDS.has(m[0].toLowerCase())) proper.add(m[0].toLowerCase());
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
  const skills = jobSkills
    .map((s, i) => ({ s, r: relevance(s, i) }))
    .sort((a, b) => b.r - a.r)
    .map((x) => x.s);
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
    title.kind === "verb"
      ? gerund(title.text)
      : title.kind === "topic"
        ? title.text
        : terms[0]
          ? `this ${terms[0]} work`
          : category === "general"
            ? "this project"
            : `this ${P.CATEGORIES[category].work}`;
  return {
    seed,
    category,
    skills,
    terms,
    extraSkills,
    profileWords: new Set(tokenize(profileSkills.join(" "))),
    need,
    problem: problemOf(sentences, proper),
    title,
    topic,
    steps: stepsOf(sentences, proper),
    hasBudget: /\d/.test(plain(job?.budgetText, 200)),
  };
}
