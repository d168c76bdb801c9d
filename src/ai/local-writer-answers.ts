/**
 * The local writer's screening answers: the question's kind (portfolio, rate, experience with X, time
 * zone, availability, timeline, approach, yes/no) picks a phrase bank; experience is claimed only for a
 * skill the profile lists, and a question that tries to instruct the writer is answered in general terms.
 */
import { tokenize } from "../lib/text";
import { chooseSteps, slotsFor } from "./local-writer-letter";
import { bidText, type Bid } from "./local-writer-money";
import * as P from "./local-writer-phrases";
import { isOwn, readJob, type JobReading, type WriterProfile, type WritingJob } from "./local-writer-reading";
import { clampChars, countPhrase, flip, fragment, gerund, isInjection, listOf, MAX_ANSWER_CHARS, picker, plain } from "./local-writer-text";

const Q_PORTFOLIO =
  /\b(?:portfolio|samples? of|work samples?|examples? of (?:your |previous |past |similar )?work|links? to|github|case stud(?:y|ies)|previous work|past work|show (?:me|us) (?:your|some|examples))\b/i;
const Q_RATE = /\b(?:rate|budget|price|pricing|cost|charge|quote|fee|how much)\b/i;
const Q_EXPERIENCE =
  /\b(?:have you (?:ever )?(?:worked|used|built|done|dealt|integrated|created|developed|designed|migrated|written)|experience|familiar(?:ity)? with|worked with|comfortable with|proficient|expertise|know)\b/i;
const Q_TIMEZONE = /\b(?:time ?zones?|overlap|working hours|business hours|based)\b/i;
const Q_AVAILABILITY =
  /\b(?:when (?:can|could|would) you start|start (?:date|immediately|right away|soon|on|today|tomorrow|next)|how soon|available|availability|hours? (?:per|a|each) week|full[- ]time|part[- ]time|commit)\b/i;
const Q_TIMELINE =
  /\b(?:how (?:long|quickly|fast)|timeline|time ?frame|estimate|deadline|turnaround|how many (?:hours|days|weeks)|eta|when (?:can|could|would|will) you (?:finish|complete|deliver))\b/i;
const Q_APPROACH =
  /\b(?:approach|how would you|how do you|how will you|describe|walk (?:me|us) through|plan|strategy|process|methodology|recent|similar|tell (?:me|us) about|explain)\b/i;
const Q_YES_NO = /^(?:are|do|can|will|is|have|would|did|could|does|should|has)\b/i;
const GENERIC_SUBJECT =
  /^(?:how|what|why|where|when|which|whether|if|similar|this|these|those|such|that|the same|it|them|projects?|work|jobs?|tasks?|anything|something|any)\b/i;

/** The technology an experience question asks about: a listed skill it names, else the words after "with/in/using". */
function askedAbout(question: string, cueAt: number, r: JobReading): string {
  const tokens = ` ${tokenize(question).join(" ")} `;
  const named = [...r.skills, ...r.extraSkills].filter((s) => countPhrase(tokens, tokenize(s), 1) > 0).sort((a, b) => b.length - a.length)[0];
  const after = /\b(?:with|in|using|of|on|know)\s+([^?.!,;]{2,60})/i.exec(question.slice(cueAt));
  const phrase = fragment(
    (after?.[1] ?? "")
      .replace(/\s+(?:before|previously|in the past|yet|at all|so far|recently|projects?|development|tools?|stack)\b.*$/i, "")
      .replace(/^(?:the|a|an)\s+/i, ""),
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
  return listOf(
    groups
      .filter((g) => g.length)
      .slice(0, 2)
      .map((g) => g.slice(0, 3).join(" ")),
  );
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
  const s: P.AnswerSlots = {
    ...base,
    asked: "",
    related: r.terms[1] ?? r.terms[0] ?? "the rest of the stack",
    vp: first,
    ing: gerund(first),
    ing2: gerund(second),
  };
  const bid = bidText(input?.bid);
  const experienceCue = Q_EXPERIENCE.exec(q);
  const asked = experienceCue ? askedAbout(q, experienceCue.index, r) : "";
  let text: string;
  if (Q_PORTFOLIO.test(q)) text = pick(P.PORTFOLIO_ANSWERS, "portfolio")(s);
  else if (Q_RATE.test(q)) {
    text = bid ? pick(P.RATE_ANSWERS.bid, "rate")(bid, s) : pick(r.hasBudget ? P.RATE_ANSWERS.budget : P.RATE_ANSWERS.open, "rate")(s);
  } else if (asked) {
    const related = [...r.terms, ...r.extraSkills].find(
      (x) => !asked.toLowerCase().includes(x.toLowerCase()) && !x.toLowerCase().includes(asked.toLowerCase()),
    );
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
