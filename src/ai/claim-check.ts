/**
 * The claim check (issue 44): before a letter is shown or sent, every claim it makes about the freelancer is held
 * to what the freelancer entered — the profile's skills and the portfolio (case studies, past clients, years per
 * skill). What the letter cannot back is flagged with the words to highlight. The rules (docs/proposals-and-auto-apply.md):
 *
 * 1. years — "6 years", "since 2015" in a sentence about the freelancer: the years entered for the skill the
 *    sentence names (or, naming none, the most entered for any skill) must reach it.
 * 2. number — a percentage, multiple, amount or count in a sentence about the freelancer's past ("cut load time
 *    by 40%", "over 200 stores", "doubled sales"): it must appear in the portfolio, the job or the bid.
 * 3. client — a name after "for", "with", "at" or "from" in a sentence about the freelancer's past: it must be a
 *    past client or appear in a case study (or be the job's own client).
 * 4. technology — a technology the letter says the freelancer has or uses ("I've worked with Vue"): it must be in
 *    the profile's skills, a case study or the years list. One the letter only plans to use must be in the job
 *    or in those facts: a letter neither invents a stack nor claims one.
 * 5. experience — a past project ("I built a booking app for a clinic"): it must share at least two content words
 *    with a case study. Without case studies every such sentence is flagged.
 *
 * A sentence is about the freelancer when it speaks in the first person (I, my, we, our); plans and questions
 * ("I'd start by…", "Could you share…?") claim no past.
 */
import { tokenize } from "../lib/text";
import { type Portfolio, withAliases } from "./portfolio";
import { AMBIGUOUS, contentStem, GENERIC_STEMS, isTechName, stemsOf } from "./stem";

export type ClaimKind = "years" | "number" | "client" | "technology" | "experience";

export interface Claim {
  kind: ClaimKind;
  /** The words to highlight, exactly as they appear in the letter. */
  text: string;
  /** Where they start in the letter. */
  start: number;
  reason: string;
}

export interface ClaimFacts {
  skills: string[];
  portfolio: Portfolio | null;
  /** The job's title, skills and description: the client's own facts, which a letter may repeat. */
  jobText: string;
  /** The bid the application sends, as the letter may state it ("$55/hour"). */
  bidText: string | null;
  /** The account's own instructions for this letter (a feed's or an arm's prompt, a regeneration's): the user's word. */
  ownText?: string | null;
}

const FIRST_PERSON = /\b(?:I|I'm|I've|I'd|I'll|me|my|we|we've|we're|our)\b/i;
const PLAN = /\b(?:I'd|I would|I will|I'll|I can|I could|I'm happy to|I plan|I'm going to|we'd|we will|we can|would|could you|can you|let's)\b/i;
const PAST_PROJECT =
  /\b(?:I(?:'ve| have)?|we(?:'ve| have)?)\s+(?:recently\s+|also\s+|already\s+|just\s+)?(?:built|developed|delivered|created|shipped|launched|migrated|helped|led|designed|made|ran|rebuilt|implemented|optimi[sz]ed|automated|scaled|completed|done|did|worked on|worked for|set up)\b/i;
const SKILL_CLAIM =
  /\b(?:I(?:'ve| have)? (?:worked|work|been working) with|I use|I know|I'm (?:an? )?(?:expert|proficient|experienced|fluent|certified)|(?:my|I have|I've got|I bring)(?: \w+)? (?:experience|expertise|background) (?:with|in)|I speciali[sz]e in|I'm skilled in|hands-on with|I've used|I have used)\b/i;
const YEARS = /\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty)\+?\s*(?:years?|yrs)\b/gi;
const SINCE = /\bsince ((?:19|20)\d\d)\b/gi;
const NUMBER = /(?:[$€£]\s?\d[\d,.]*\s?[kKmM]?\b|\b\d[\d,.]*\s?(?:%|x\b|×|\+)|\b\d{2,}[\d,]*\b)/g;
const MULTIPLIER_WORDS = /\b(?:doubled?|tripled?|quadrupled?|halved|tenfold)\b/gi;
const CLIENT_AFTER = /\b(?:for|with|at|from|helped)\s+((?:[A-Z][\w&'.-]*)(?:\s+(?:[A-Z][\w&'.-]*|&|of))*)/g;
const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  fifteen: 15,
  twenty: 20,
};

/** Words that start with a capital for a reason other than being a client's name. */
const NOT_NAMES = new Set(["I", "The", "A", "An", "My", "Our", "Your", "This", "That", "It", "Upwork", "Monday", "Friday", "English", "US", "UK", "EU"]);

interface Sentence {
  text: string;
  start: number;
}

function sentences(letter: string): Sentence[] {
  const out: Sentence[] = [];
  const re = /[^.!?\n]+(?:[.!?]+(?=\s|$)|$)/g;
  for (const m of letter.matchAll(re)) {
    const text = m[0];
    const lead = text.length - text.trimStart().length;
    if (text.trim()) out.push({ text: text.trim(), start: m.index + lead });
  }
  return out;
}

/** The facts as lookups: technology tokens, content stems of the portfolio, its numbers and names. */
interface Known {
  tech: Set<string>;
  portfolioText: string;
  portfolioStems: Set<string>[];
  jobTokens: Set<string>;
  numbers: Set<string>;
  years: { skill: string; stems: Set<string>; years: number }[];
  names: string;
}

const digitsOf = (s: string): string => s.replace(/[^\d.]/g, "").replace(/\.$/, "");

function known(f: ClaimFacts): Known {
  const p = f.portfolio;
  const cases = p?.caseStudies ?? [];
  const caseTexts = cases.map((c) => [c.title, c.built, c.client, c.skills.join(", "), c.outcome].join(" \n "));
  // What the user wrote about themselves in their instructions backs a claim as a case study does.
  if (f.ownText?.trim()) caseTexts.push(f.ownText);
  const skillWords = [...f.skills, ...cases.flatMap((c) => c.skills), ...(p?.skillYears ?? []).map((s) => s.skill)];
  const portfolioText = caseTexts.join("\n");
  const numbers = new Set<string>();
  for (const text of [portfolioText, f.jobText, f.bidText ?? ""]) for (const m of text.matchAll(NUMBER)) numbers.add(digitsOf(m[0]));
  for (const m of portfolioText.matchAll(/\b\d+(?:\.\d+)?\b/g)) numbers.add(m[0]);
  return {
    tech: withAliases(tokenize([...skillWords, portfolioText].join(" "))),
    portfolioText: portfolioText.toLowerCase(),
    portfolioStems: caseTexts.map((t) => stemsOf(t)),
    jobTokens: withAliases(tokenize(f.jobText)),
    numbers,
    years: (p?.skillYears ?? []).map((s) => ({ skill: s.skill, stems: stemsOf(s.skill), years: s.years })),
    names: [...(p?.pastClients ?? []), ...cases.map((c) => `${c.client} ${c.title} ${c.built}`), f.jobText].join("\n").toLowerCase(),
  };
}

/** Words that say what was done rather than what it was about; they do not make a claim specific. */
const CLAIM_VERBS = stemsOf(
  "built developed delivered created shipped launched migrated helped led designed made ran rebuilt implemented optimised optimized automated scaled completed done did worked set similar before recently also project projects client clients",
);

function push(out: Claim[], s: Sentence, kind: ClaimKind, text: string, at: number, reason: string): void {
  const start = s.start + at;
  if (!out.some((c) => c.start === start && c.kind === kind)) out.push({ kind, text, start, reason });
}

/** Every claim in the letter the facts do not back, in the order they appear. */
export function checkClaims(letter: string, facts: ClaimFacts): Claim[] {
  const k = known(facts);
  const out: Claim[] = [];
  for (const s of sentences(typeof letter === "string" ? letter : "")) {
    if (!FIRST_PERSON.test(s.text) || s.text.endsWith("?")) continue;
    const plan = PLAN.test(s.text) && !PAST_PROJECT.test(s.text) && !SKILL_CLAIM.test(s.text);
    const stems = stemsOf(s.text);

    // 1. years
    if (!plan) {
      for (const m of s.text.matchAll(YEARS)) {
        const n = NUMBER_WORDS[m[1]!.toLowerCase()] ?? Number(m[1]);
        const named = k.years.filter((y) => [...y.stems].every((st) => stems.has(st)));
        const have = named.length ? Math.max(...named.map((y) => y.years)) : k.years.length ? Math.max(...k.years.map((y) => y.years)) : 0;
        if (have < n)
          push(
            out,
            s,
            "years",
            m[0],
            m.index,
            k.years.length
              ? `${m[0]} is more than the years entered${named.length ? ` for ${named[0]!.skill}` : ""} (${have})`
              : `no years of experience are entered`,
          );
      }
      for (const m of s.text.matchAll(SINCE)) {
        if (!k.portfolioText.includes(m[1]!)) push(out, s, "years", m[0], m.index, `${m[1]} is not in the portfolio`);
      }
    }

    const past =
      PAST_PROJECT.test(s.text) ||
      SKILL_CLAIM.test(s.text) ||
      /\b(?:my|our) (?:clients?|projects?|work|results?)\b/i.test(s.text) ||
      // "My dashboards cut load times by 75%": the freelancer's own work, with a result in the past.
      (/\b(?:my|our)\b/i.test(s.text) && /\b(?:\w+ed|cut|grew|built|made|won|saw)\b/i.test(s.text) && !plan);
    // 2. numbers in a claim about the past
    if (past) {
      for (const m of s.text.matchAll(NUMBER)) {
        const raw = m[0];
        if (/years?|yrs/i.test(s.text.slice(m.index + raw.length, m.index + raw.length + 8))) continue; // rule 1's
        if (/^(?:19|20)\d\d$/.test(raw.trim()) && k.portfolioText.includes(raw.trim())) continue;
        if (!k.numbers.has(digitsOf(raw))) push(out, s, "number", raw.trim(), m.index, `${raw.trim()} is not in the portfolio, the job or the bid`);
      }
      for (const m of s.text.matchAll(MULTIPLIER_WORDS)) {
        if (!k.portfolioText.includes(m[0].toLowerCase())) push(out, s, "number", m[0], m.index, `"${m[0]}" is not in the portfolio`);
      }
      // 3. clients
      for (const m of s.text.matchAll(CLIENT_AFTER)) {
        const name = m[1]!.replace(/[.'-]+$/, "");
        const words = name.split(/\s+/).filter((w) => !NOT_NAMES.has(w));
        if (words.length === 0) continue;
        if (words.every((w) => isTechName(w.toLowerCase()) || k.tech.has(w.toLowerCase()))) continue;
        if (k.names.includes(name.toLowerCase())) continue;
        push(out, s, "client", name, m.index + m[0].indexOf(m[1]!), `${name} is not one of the past clients or case studies`);
      }
    }

    // 4. technologies
    const claimsSkill = past;
    for (const m of s.text.matchAll(/[A-Za-z][A-Za-z0-9+#.]*/g)) {
      const token = m[0].toLowerCase().replace(/\.+$/, "");
      if (!isTechName(token) || k.tech.has(token)) continue;
      // "for you to react to", "good to go": a technology is written as a name (a capital, a digit, + or #); an
      // everyday word that is also one ("Go", "Swift") counts only mid-sentence.
      if (!/[A-Z0-9+#]/.test(m[0]) || (AMBIGUOUS.has(token) && m.index === 0)) continue;
      if (!claimsSkill && k.jobTokens.has(token)) continue;
      // The sentence's full stop is not part of the name ("Rust." → "Rust").
      const name = m[0].replace(/\.+$/, "");
      push(
        out,
        s,
        "technology",
        name,
        m.index,
        claimsSkill ? `${name} is not among the profile's skills or the portfolio` : `${name} is neither in the job nor among the freelancer's skills`,
      );
    }

    // 5. a past project needs a case study behind it
    const project = PAST_PROJECT.exec(s.text);
    if (project) {
      const specific = [...stems].filter((st) => !CLAIM_VERBS.has(st) && !GENERIC_STEMS.has(st) && contentStem(st) !== "");
      const backed = k.portfolioStems.some((cs) => specific.filter((st) => cs.has(st)).length >= 2);
      if (!backed)
        push(
          out,
          s,
          "experience",
          s.text.slice(project.index),
          project.index,
          k.portfolioStems.length ? "no case study in the portfolio backs this" : "the portfolio has no case studies to back this",
        );
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** One line per claim, for the model's rewrite round and for the review panel. */
export function describeClaims(claims: Claim[]): string {
  return claims.map((c) => `- "${c.text}": ${c.reason}`).join("\n");
}
