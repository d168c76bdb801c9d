/**
 * The local writer's cover letter: parts chosen from the job reading and the phrase bank, the user's
 * instructions honoured where a template can (word limit, "mention …", no rate, no list), then fitted
 * to the effort's word band by dropping optional sentences or adding fillers.
 */
import { bidText, type Bid } from "./local-writer-money";
import { proofFor } from "./local-writer-proof";
import * as P from "./local-writer-phrases";
import { asObject, DETERMINER, isOwn, readJob, type JobReading, type WriterProfile, type WritingJob } from "./local-writer-reading";
import {
  article,
  clampChars,
  clause,
  dedupe,
  dropDangling,
  fragment,
  gerund,
  hash,
  listOf,
  MAX_PROPOSAL_CHARS,
  overlap,
  picker,
  plain,
} from "./local-writer-text";

export type Effort = "low" | "medium" | "high";

export interface LocalProposalInput {
  job: WritingJob;
  profile?: WriterProfile | null;
  instructions?: string | null; // the user's own instructions for proposals in this feed
  effort: Effort;
  bid?: Bid | null; // null when the bid is not known yet: then no amount is named
}

/**
 * Word bands per effort, inside the 120–250 words a proposal should have (issue 44: clients read the first
 * lines and skim the rest; longer letters lose them).
 */
const BANDS: Record<Effort, readonly [number, number]> = { low: [120, 160], medium: [165, 210], high: [205, 250] };
const CASES: Record<Effort, number> = { low: 1, medium: 2, high: 2 };
const SKILL_COUNT: Record<Effort, number> = { low: 2, medium: 3, high: 4 };
const STEP_COUNT: Record<Effort, number> = { low: 1, medium: 3, high: 4 };
/** Keep value of the sentences a letter needs (opening, skills, the user's "mention …"): only a word limit below them drops any. */
const ESSENTIAL = 100;

// ---------------------------------------------------------------- the user's instructions

interface Wishes {
  maxWords: number | null;
  mentions: string[];
  noRate: boolean;
  noList: boolean;
}

const LIMIT_BEFORE =
  /\b(under|below|less than|fewer than|no more than|not more than|at most|max(?:imum)?|up to|within|limit(?:ed)? to|keep it to|about|around|roughly)\s*(?:of\s*)?(\d{1,4})\s*words?\b/i;
const LIMIT_AFTER = /\b(\d{1,4})\s*words?\s*(?:max(?:imum)?|or less|or fewer|at most|limit|tops)\b/i;
const MENTION = /\b(?:mention|highlight|emphasi[sz]e|stress|point out|bring up|showcase|refer to)\s+(.+)/i;
const NEGATED = /\b(?:don't|do not|dont|never|avoid|no need to|without|not)\b/i;
const NEXT_ORDER =
  /\s+(?:and|but|then)\s+(?=(?:keep|make|use|write|be|add|don't|do|avoid|sign|start|end|include|mention|highlight|stress|limit|say|ask|focus)\b)/i;

/** What a template engine can honour: a word limit, "mention/highlight …", no rate, no lists. The rest is ignored. */
function readInstructions(raw: unknown): Wishes {
  const text = plain(raw, 4000);
  const wishes: Wishes = {
    maxWords: null,
    mentions: [],
    noRate: false,
    noList: /\b(?:no|avoid|without|don't use|do not use)\s+(?:bullet|list|dash)/i.test(text),
  };
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

interface Piece {
  text: string;
  keep: number;
} // keep: trimming to a word band drops the lowest first
interface Block {
  pieces: Piece[];
  list?: boolean;
}

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
  dropDangling(words, 1);
  const ended = words
    .join(" ")
    .replace(/[\s,;:-]+$/u, "")
    .replace(/([^.!?])$/u, "$1.");
  return withSign ? `${ended}\n\n${signOff}` : ended;
}

/**
 * The posting's own steps (work first, hand-over of files last), topped up from the category bank when
 * there are too few: its first step (a look at what exists) goes in front, its hand-over step at the
 * end unless the posting names deliverables, its middle steps between.
 */
export function chooseSteps(r: JobReading, bank: P.CategoryBank, n: number, opening: string): string[] {
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

export function slotsFor(r: JobReading, count: number): P.Slots {
  const bank = P.CATEGORIES[r.category];
  return { skills: listOf(topTerms(r, count).map(asObject)) || "the tools this job needs", work: bank.work, thing: bank.thing, topic: r.topic };
}

export function writeProposalLocally(input: LocalProposalInput): string {
  const effort: Effort = input?.effort === "low" || input?.effort === "high" ? input.effort : "medium";
  const profile = input?.profile ?? null;
  const r = readJob(input?.job, profile, "");
  const pick = picker(r.seed);
  const bank = P.CATEGORIES[r.category];
  const wishes = readInstructions(input?.instructions);
  const s = slotsFor(r, SKILL_COUNT[effort]);

  const opening = r.need
    ? pick(P.NEED_OPENINGS, "open")(r.need.sv, r.need.obj)
    : r.title.kind === "verb"
      ? pick(P.VERB_OPENINGS, "open")(r.title.text)
      : r.title.kind === "role"
        ? pick(P.ROLE_OPENINGS, "open")(r.title.text)
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
    owned.length ? pick(P.OWN_SKILL_LINES, "own")(listOf(owned.map(asObject))) : "",
    planned.length ? pick(P.PLAN_LINES, "plan")(listOf(planned.map(asObject))) : owned.length ? "" : pick(P.PLAIN_PLAN, "plan")(s),
  ];
  const skillBlock: Block = { pieces: [{ text: intro + skillLines.filter(Boolean).join(" "), keep: ESSENTIAL }] };
  wishes.mentions.forEach((m, i) => {
    skillBlock.pieces.push({ text: mentionSentence(m, pick, i), keep: ESSENTIAL });
  });
  skillBlock.pieces.push({ text: pick(bank.principles, "category"), keep: 55 });
  const unlisted = r.extraSkills.find((x) => !s.skills.includes(x));
  if (effort === "high" && unlisted) skillBlock.pieces.push({ text: pick(P.EXTRA_SKILL_LINES, "extra")(unlisted), keep: 38 });

  // The portfolio's proof comes right after the skills: a cited project is what makes a client reply.
  const proof = proofFor(profile?.portfolio, input.job, top, CASES[effort], r.seed);
  const proofBlock: Block = { pieces: proof.sentences.map((text, i) => ({ text, keep: i === 0 ? ESSENTIAL : 88 - i * 4 })) };

  const steps = chooseSteps(r, bank, STEP_COUNT[effort], r.need?.obj ?? opening);
  const asList = effort !== "low" && !wishes.noList && hash("list", r.seed) % 2 === 0;
  const approach: Block = { pieces: [], list: asList };
  if (effort === "low") {
    // One line should be work, not a hand-over of files.
    const step = steps.find((x) => !x.startsWith("deliver ")) ?? bank.steps[0]!;
    approach.pieces.push({ text: pick(P.SINGLE_STEP, "single")(step, gerund(step)), keep: 85 });
  } else if (asList) {
    approach.pieces.push({ text: pick(P.APPROACH_INTROS, "intro"), keep: 84 });
    steps.forEach((step, i) => {
      approach.pieces.push({ text: `- ${P.cap(step)}`, keep: [85, 60, 50, 40][i]! });
    });
  } else {
    const middle = hash("middle", r.seed); // consecutive middle steps get different frames
    steps.forEach((step, i) => {
      const frame =
        i === 0 ? pick(P.FIRST_STEP, "first") : i === steps.length - 1 ? pick(P.LAST_STEP, "last") : P.MIDDLE_STEP[(middle + i) % P.MIDDLE_STEP.length]!;
      approach.pieces.push({ text: frame(step, gerund(step)), keep: [85, 60, 50, 40][i]! });
    });
  }

  const extras: Block = { pieces: [] };
  // What makes high effort worth it (budget, timing, a risk, an assumption) outlasts the later steps in 250 words.
  if (effort === "high") {
    if (r.hasBudget) extras.pieces.push({ text: pick(P.BUDGET_LINES, "budget"), keep: 58 });
    extras.pieces.push({ text: pick(P.TIMELINE_LINES, "timeline"), keep: 52 });
    extras.pieces.push({ text: pick(P.RISK_FRAMES, "risk")(pick(bank.risks, "risks")), keep: 56 });
    extras.pieces.push({ text: pick(P.ASSUMPTION_FRAMES, "assume")(pick(bank.assumptions, "assumptions")), keep: 50 });
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

  const fillers = P.FILLERS.map((f, i) => ({ text: f, order: hash(`filler${i}`, r.seed) }))
    .sort((a, b) => a.order - b.order)
    .map((f) => f.text);
  const [low, high] = BANDS[effort];
  const max = Math.min(high, wishes.maxWords ?? high);
  const blocks = [greeting, open, skillBlock, proofBlock, approach, extras, closing, signOff];
  return clampChars(fit(blocks, extras, fillers, Math.min(low, max), max), MAX_PROPOSAL_CHARS);
}
