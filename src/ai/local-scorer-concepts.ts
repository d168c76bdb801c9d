/**
 * The local scorer's second reading (see local-scorer.ts, step 5): the prompt and the job as concepts (./concepts)
 * rather than words. It adds what words alone miss and corrects what they get wrong:
 * - synonyms and abbreviations count ("WP", "TSX", "back office", "sluggish page loads");
 * - the prompt's headline (its first phrase: "Shopify app developer") names the anchors: a job with none of them,
 *   even implied, is at most a partial fit;
 * - a job built on an alternative to an anchor (Vue or React Native for React, a Shopify theme for Shopify apps)
 *   and without the anchor itself is a near-miss;
 * - a job that negates an anchor ("not a React project", "migrating off WooCommerce") counts against;
 * - a job whose work is another trade (writing, data entry, video) than the prompt's, or that rules out
 *   development ("no coding") for a developer, is a mismatch;
 * - scam signs and keyword piles (./job-signals) damp the score whatever else matches.
 */
import {
  CONCEPTS,
  conceptMentions,
  type ConceptReading,
  impliedBy,
  impliedStrongly,
  mentionsIn,
  negatedIn,
  present,
  readJobConcepts,
  rivals,
  scanConcepts,
} from "./concepts";
import { keywordStuffed, scamSignals } from "./job-signals";
import type { ScoringJob } from "./local-scorer";

/** Roles: a job whose tags or title make it one of these is another trade unless the prompt asks for it. */
const ROLES = [
  "role-writing",
  "role-data-entry",
  "role-video",
  "role-teaching",
  "role-design",
  "role-translation",
  "role-recruiting",
  "role-security",
  "role-qa",
  "role-photo",
  "role-social",
];

/** Weights of a prompt concept: a technology in the headline, a topic there, anything else. */
const ANCHOR_TECH = 3;
const ANCHOR_TOPIC = 2;
const OTHER = 1;
/** How much a concept found only in the description, or only implied by another, counts. */
const IN_DESCRIPTION = 0.6;
const IN_DESCRIPTION_REPEATED = 0.75;
const IMPLIED = 0.8;

/** Score multipliers. */
const NO_ANCHOR = 0.5;
const NEAR_ANCHOR = 0.75;
const TOPIC_NEGATED = 0.75;
const RIVAL = 0.4;
const ANCHOR_NEGATED = 0.3;
const UNWANTED_STRONG = 0.35;
const UNWANTED_IN_DESCRIPTION = 0.7;
const UNWANTED_ONCE = 0.85;
const OTHER_TRADE = 0.35;
const SCAM = 0.1;
const UNDERPAID = 0.55;
const EMPLOYMENT_FACTOR = 0.6;
/** Without a rate in the prompt, pay below this per hour is a beginner's rate, not a professional's. */
const FLOOR_RATE = 15;
const EMPLOYMENT =
  /\b(?:on[- ]site|onsite|in[- ]office|in the office \d|relocat(?:e|ion)|permanent (?:position|role|employee|contract)|full[- ]time (?:employee|employment|position|role|job)|w-?2 (?:employee|position))\b/i;
const HOURLY = /\$\s?(\d+(?:\.\d+)?)(?:\s?(?:-|–|to)\s?\$?(\d+(?:\.\d+)?))?\s*(?:\/\s?|per\s|an\s|a\s)(?:h|hr|hrs|hour)\b/gi;

/** The highest hourly rate a text names ("$20–30/hr" → 30), or null. */
function hourlyIn(text: string): number | null {
  let best: number | null = null;
  for (const m of text.slice(0, 20_000).matchAll(HOURLY)) {
    const v = Number(m[2] ?? m[1]);
    if (Number.isFinite(v) && (best === null || v > best)) best = v;
  }
  return best;
}

/** "pays $25/h, under your $60/h": the job names an hourly rate below the prompt's (or below a beginner's rate). */
function underpaid(prompt: string, job: ScoringJob): string | null {
  const offered = hourlyIn(`${job.title ?? ""} ${job.description ?? ""}`);
  if (offered === null) return null;
  const wanted = hourlyIn(prompt);
  const floor = wanted ?? FLOOR_RATE;
  if (offered >= floor) return null;
  return wanted !== null ? `pays $${offered}/h, under your $${wanted}/h` : `pays $${offered}/h`;
}
const STUFFED = 0.3;

interface PromptConcepts {
  weights: Map<string, number>;
  anchors: string[];
  unwanted: string[];
  roles: Set<string>;
  wantsDevelopment: boolean;
}

function readPrompt(prompt: string): PromptConcepts {
  const text = prompt.slice(0, 8_000);
  // The headline: up to the first colon or full stop; if it names no technology, the whole first sentence.
  const firstBreak = text.search(/[.:;!?\n](?:\s|$)/);
  const sentenceEnd = text.search(/[.;!?\n](?:\s|$)/);
  const readHead = (end: number): ConceptReading => {
    const r: ConceptReading = new Map();
    scanConcepts(end < 0 ? text : text.slice(0, end), r, false, true);
    return r;
  };
  let head = readHead(firstBreak);
  // "DevOps engineer: Kubernetes, Terraform and AWS": a headline of one topic is named by the list after it.
  const named = [...head].filter(([id, hit]) => hit.desc > 0 && !id.startsWith("role-"));
  if (named.length < 2 && !named.some(([id]) => CONCEPTS.get(id)!.tech)) head = readHead(sentenceEnd);
  const all: ConceptReading = new Map();
  scanConcepts(text, all, false, true);

  const weights = new Map<string, number>();
  const anchors: string[] = [];
  const unwanted: string[] = [];
  const roles = new Set<string>();
  for (const [id, hit] of all) {
    if (hit.desc === 0) {
      // "No new site builds": roles are judged as trades below, not as unwanted words.
      if (hit.negated > 0 && !id.startsWith("role-")) unwanted.push(id);
      continue;
    }
    if (id.startsWith("role-")) {
      roles.add(id);
      continue;
    }
    const inHead = (head.get(id)?.desc ?? 0) > 0;
    if (inHead) anchors.push(id);
    weights.set(id, inHead ? (CONCEPTS.get(id)!.tech ? ANCHOR_TECH : ANCHOR_TOPIC) : OTHER);
  }
  const wantsDevelopment = roles.has("role-dev") || [...weights.keys()].some((id) => CONCEPTS.get(id)!.tech && id !== "figma" && id !== "sketch");
  return { weights, anchors, unwanted, roles, wantsDevelopment };
}

const cache = new Map<string, PromptConcepts>();
function promptConcepts(prompt: string): PromptConcepts {
  let p = cache.get(prompt);
  if (!p) {
    if (cache.size >= 64) cache.clear();
    cache.set(prompt, (p = readPrompt(prompt)));
  }
  return p;
}

export interface ConceptJudgement {
  /** 0–10 from the share of the prompt's concepts the job has, or null when the prompt has too few concepts to judge by. */
  base: number | null;
  /** Multiplies the score: near-misses, negations, other trades, scam signs. */
  factor: number;
  /** Multiplier for concepts the prompt does not want, to take instead of the word-level one when lower. */
  unwantedFactor: number;
  matched: string[];
  missing: string[];
  /** Sentences for the reason: what counted against. */
  against: string[];
}

function strengthOf(reading: ConceptReading, id: string): number {
  const how = present(reading, id);
  if (how === "strong") return 1;
  if (how === "implied") return IMPLIED;
  if (how === "desc") return (reading.get(id)?.desc ?? 0) >= 2 ? IN_DESCRIPTION_REPEATED : IN_DESCRIPTION;
  return 0;
}

export function judgeConcepts(prompt: string, job: ScoringJob): ConceptJudgement {
  const p = promptConcepts(prompt);
  const { reading, descriptionWords } = readJobConcepts(job);
  const against: string[] = [];
  let factor = 1;

  const scam = scamSignals(job);
  if (scam.length > 0) {
    factor *= SCAM;
    against.push(`Warning: ${scam.map((s) => s.say).join(", ")}`);
  } else if (
    keywordStuffed(job, {
      title: conceptMentions(typeof job.title === "string" ? job.title : "").total,
      description: { ...mentionsIn(reading), words: descriptionWords },
    })
  ) {
    factor *= STUFFED;
    against.push("Warning: a list of keywords, not a described task");
  }

  const judged = p.weights.size >= 2;
  let base: number | null = null;
  const matched: string[] = [];
  const missing: string[] = [];
  if (judged) {
    let total = 0;
    let got = 0;
    let anchorWeight = 0;
    const ordered = [...p.weights].sort((a, b) => b[1] - a[1]);
    for (const [id, w] of ordered) {
      total += w;
      if (p.anchors.includes(id)) anchorWeight += w;
      const s = strengthOf(reading, id);
      got += w * s;
      (s > 0 ? matched : missing).push(CONCEPTS.get(id)!.say);
    }
    // A job rarely needs everything a profile offers: the anchors and a couple more make a full match.
    const enough = Math.min(total, anchorWeight + 3 * OTHER);
    base = 10 * Math.min(1, got / enough) ** 0.7;

    const anchorsFound = p.anchors.filter((id) => strengthOf(reading, id) > 0);
    const techAnchors = p.anchors.filter((id) => CONCEPTS.get(id)!.tech);
    if (techAnchors.length > 0 && !techAnchors.some((id) => anchorsFound.includes(id))) {
      // Without the main technology the job is a partial fit at best; less so when it has what that technology is
      // part of ("Shopify" for "Shopify apps") or the headline's topic ("web scraping" for a Python scraper).
      const near = anchorsFound.length > 0 || techAnchors.some((id) => impliedBy(id).some((parent) => present(reading, parent) === "strong"));
      factor *= near ? NEAR_ANCHOR : NO_ANCHOR;
      against.push(`missing ${CONCEPTS.get(techAnchors[0]!)!.say}`);
    } else if (anchorsFound.length === 0 && p.anchors.length > 0) {
      factor *= NO_ANCHOR;
      against.push(`missing ${CONCEPTS.get(p.anchors[0]!)!.say}`);
    }
    const negated = p.anchors.find((id) => negatedIn(reading, id));
    if (negated) {
      // Ruling out a technology of the headline is a different job; ruling out a topic only takes it away.
      factor *= CONCEPTS.get(negated)!.tech ? ANCHOR_NEGATED : TOPIC_NEGATED;
      against.push(`the job rules out ${CONCEPTS.get(negated)!.say}`);
    }
    const rival = rivalOf(p, reading);
    if (rival && !negated) {
      factor *= RIVAL;
      against.push(`${CONCEPTS.get(rival.theirs)!.say} instead of ${CONCEPTS.get(rival.ours)!.say}`);
    }
  }

  // Another trade: the job's title or tags make it writing, data entry, recruiting… and it names none of the prompt's own roles.
  const ownRole = [...p.roles].some((id) => reading.get(id)?.strong && !negatedIn(reading, id));
  const trade = ownRole ? undefined : ROLES.find((id) => reading.get(id)?.strong && !negatedIn(reading, id) && !p.roles.has(id) && !p.weights.has(id));
  // Only a title says it plainly enough ("… in Figma (no coding)", "NOT a designer role – …").
  const titleRulesOut = (id: string): boolean => !!reading.get(id)?.negatedInTitle && negatedIn(reading, id);
  const ruledOut = [...p.roles].find(titleRulesOut) ?? (p.wantsDevelopment && titleRulesOut("role-dev") ? "role-dev" : undefined);
  if (trade) {
    factor *= OTHER_TRADE;
    against.push(`${CONCEPTS.get(trade)!.say} work, not yours`);
  } else if (ruledOut) {
    factor *= OTHER_TRADE;
    against.push(`the job rules out ${CONCEPTS.get(ruledOut)!.say}`);
  }

  const pay = underpaid(prompt, job);
  if (pay) {
    factor *= UNDERPAID;
    against.push(pay);
  }
  if (EMPLOYMENT.test(`${job.title ?? ""} ${job.description ?? ""}`) && !EMPLOYMENT.test(prompt)) {
    factor *= EMPLOYMENT_FACTOR;
    against.push("an on-site or salaried position");
  }

  let unwantedFactor = 1;
  for (const id of p.unwanted) {
    const how = present(reading, id);
    const mentions = reading.get(id)?.desc ?? 0;
    const f =
      how === "strong" || (how === "implied" && impliedStrongly(reading, id))
        ? UNWANTED_STRONG
        : how === "desc"
          ? mentions >= 2
            ? UNWANTED_IN_DESCRIPTION
            : UNWANTED_ONCE
          : 1;
    if (f < unwantedFactor) {
      unwantedFactor = f;
      against.push(`${CONCEPTS.get(id)!.say}, which you do not want`);
    }
  }
  return { base, factor, unwantedFactor, matched, missing, against };
}

/** A prompt technology the job replaces with an alternative: the alternative is named strongly and ours is absent. */
function rivalOf(p: PromptConcepts, reading: ConceptReading): { ours: string; theirs: string } | null {
  const wanted = [...p.weights.keys()].filter((id) => CONCEPTS.get(id)!.tech);
  const wantedAll = new Set(wanted.flatMap((id) => [id, ...impliedBy(id)]));
  for (const ours of wanted) {
    if (present(reading, ours)) continue;
    for (const [theirs, hit] of reading) {
      if (wantedAll.has(theirs) || !(hit.strong || hit.desc >= 2) || negatedIn(reading, theirs)) continue;
      if (rivals(ours, theirs)) return { ours, theirs };
    }
  }
  return null;
}
