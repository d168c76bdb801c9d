/**
 * The local writer's screening answers. A question is split into its parts ("What's your rate, and when can
 * you start?"), parts that try to instruct the writer are dropped, and each part's kind (portfolio, rate,
 * years, experience with X, a technical topic, personal facts, time zone, availability, timeline, similar
 * work, approach, yes/no) picks what to say. What only the freelancer knows — a start date, weekly hours,
 * a time zone, experience with a skill the profile does not list, a link the portfolio lacks — is left as a
 * visible "[your …]" slot (FILL_IN) rather than guessed; experience is claimed only for the profile's skills,
 * and cases and years only as the portfolio gives them.
 */
import { tokenize } from "../lib/text";
import { chooseSteps, slotsFor } from "./local-writer-letter";
import { bidText, type Bid } from "./local-writer-money";
import * as P from "./local-writer-phrases";
import { citeOne } from "./local-writer-proof";
import { isOwn, readJob, type JobReading, type WriterProfile, type WritingJob } from "./local-writer-reading";
import {
  clampChars,
  clause,
  countPhrase,
  dedupe,
  flip,
  fragment,
  gerund,
  isInjection,
  listOf,
  MAX_ANSWER_CHARS,
  overlap,
  picker,
  plain,
} from "./local-writer-text";
import { TOPICS } from "./local-writer-topics";
import { relevantCaseStudies, type CaseStudy } from "./portfolio";

/** The slot an answer leaves for what only the freelancer knows: "[your start date]". Review finds them by this. */
export const FILL_IN = /\[your [^\][]{2,80}\]/;
const slot = (what: string): string => `[your ${what}]`;

const Q_PORTFOLIO =
  /\b(?:portfolio|samples? of|work samples?|examples? of|links? to|github|gitlab|behance|dribbble|case stud(?:y|ies)|previous work|past work|show (?:me|us)|(?:sites?|apps?|projects?|stores?|logos?|designs?) (?:you(?:'ve| have)|u) (?:built|done|made|designed|worked on|created))\b/i;
const Q_RATE = /\b(?:rate(?![- ]?limit)|rates|budget|price|pricing|cost|charge|quote|fee|how much (?:do|would|will|does|is|for)|per hour)\b/i;
const Q_RATE_TERMS =
  /\b(?:include|includes|including|cover|covers|extra for|additional for)\s+(?:the\s+|any\s+)?(.+?)(?:\s+(?:if|when|after|once|in case)\b.*)?[?.!]?$/i;
const Q_YEARS = /\bhow many years\b|\byears of (?:experience|exp)\b|\bhow long have (?:you|u) (?:been )?(?:work|us|do|develop|code|design)/i;
const Q_EXPERIENCE =
  /\b(?:have (?:you|u) (?:ever )?(?:worked|used|built|done|dealt|integrated|created|developed|designed|migrated|written)|experience|experienced|familiar(?:ity)? with|worked with|comfortable with|proficient|expertise|know)\b/i;
const Q_PERSONAL: [RegExp, string][] = [
  [/\bcitizen(?:ship)?\b|\bvisa\b|\bwork permit\b|\bauthori[sz]ed to work\b|\blegally (?:able|allowed)\b/i, "citizenship or work authorisation"],
  [/\bfluent\b|\benglish\b|\bnative speaker\b|\bwhat languages?\b/i, "English level"],
  [/\bagency\b|\bindividual (?:freelancer|contractor)\b|\bsolo\b|\b(?:have|part of) an? team\b/i, "setup: an individual freelancer or a team"],
];
const Q_TIMEZONE = /\btime ?zones?\b|\boverlap\b|\bworking hours\b|\bbusiness hours\b|\b(?:where are (?:you|u)|are (?:you|u)) (?:based|located)\b/i;
const ZONE = /\b(?:EST|EDT|PST|PDT|CST|CDT|MST|CET|CEST|GMT|UTC|BST|AEST|AEDT|IST|ET|PT|(?:US )?(?:Eastern|Pacific|Central) (?:time|hours)?)\b/;
const Q_AVAILABILITY =
  /\b(?:when (?:can|could|would) (?:you|u) start|start (?:date|immediately|right away|soon|on|today|tomorrow|next|this)|can (?:you|u) start|how soon|available|availability|hours? (?:per|a|each) week|full[- ]time|part[- ]time|commit\w*|weekends?|time off|holidays?|vacation|reply|respond|response time|get back to)\b/i;
const Q_TIMELINE =
  /\b(?:how (?:long|quickly|fast)|timeline|time ?frame|estimate|deadline|turnaround|how many (?:hours|days|weeks)|eta|when (?:can|could|would|will) (?:you|u) (?:finish|complete|deliver))\b/i;
const Q_SIMILAR =
  /\bsimilar (?:project|work|job|task|app|site|store)s?\b|\b(?:project|work|job)s? like this\b|\b(?:done|built|worked on) (?:this|something like this|one of these) before\b/i;
const Q_APPROACH =
  /\b(?:approach|how would (?:you|u)|how do (?:you|u)|how will (?:you|u)|describe|walk (?:me|us) through|plan|strategy|process|methodology|recent|tell (?:me|us) about|explain|structure)\b/i;
const Q_YES_NO = /^(?:are|do|can|will|is|have|would|did|could|does|should|has)\b/i;
const GENERIC_SUBJECT =
  /^(?:how|what|why|where|when|which|whether|if|similar|this|these|those|such|that|the same|it|them|projects?|work|jobs?|tasks?|anything|something|any)\b/i;
/** Where a question turns to its next part: ", and when can you start", " and how many hours". */
const NEXT_PART =
  /,\s*(?:and\s+|also\s+)?(?=(?:when|what|what's|how|have|do|are|can|could|will|would|which|where|is)\s)|\s+and\s+(?=(?:when|what|how|have|do|are|can|could|will|would)\s+(?:you|u|is|are|many|much|long|soon)\b)/i;

type Kind =
  | "portfolio"
  | "rate"
  | "years"
  | "experience"
  | "topic"
  | "personal"
  | "timezone"
  | "availability"
  | "timeline"
  | "similar"
  | "approach"
  | "yes"
  | "generic";

/** The question's parts, in order; a statement ("Our budget is $500.") belongs to the question after it. */
function partsOf(question: string): string[] {
  const parts: string[] = [];
  let context = "";
  for (const sentence of question.split(/(?<=[.?!])\s+/)) {
    if (!sentence.trim() || isInjection(sentence)) continue;
    const asks = sentence.endsWith("?") || Q_YES_NO.test(sentence) || /^(?:what|when|how|which|where|why|who)\b/i.test(sentence);
    if (!asks) {
      context = `${context}${sentence} `;
      continue;
    }
    parts.push(...`${context}${sentence}`.split(NEXT_PART).filter((p) => p.trim()));
    context = "";
  }
  if (context.trim()) parts.push(context.trim());
  return parts.slice(0, 4);
}

/** Skill and tool names the writer knows for this job and profile, for spotting them in a question. */
function knownNames(r: JobReading, profile: WriterProfile | null | undefined): string[] {
  const portfolio = profile?.portfolio;
  return dedupe([
    ...r.skills,
    ...r.extraSkills,
    ...(profile?.skills ?? []),
    ...(portfolio?.caseStudies ?? []).flatMap((c) => c.skills),
    ...(portfolio?.skillYears ?? []).map((y) => y.skill),
    ...P.TOOLS,
  ]);
}

/** The technology an experience question asks about: the words after "with/in/using", spelled as the job spells a name it matches. */
function askedAbout(question: string, r: JobReading, names: string[]): string {
  const cue = Q_EXPERIENCE.exec(question) ?? Q_YEARS.exec(question);
  const tokens = ` ${tokenize(question).join(" ")} `;
  const named = names.filter((s) => countPhrase(tokens, tokenize(s), 1) > 0).sort((a, b) => b.length - a.length);
  const after = /\b(?:with|in|using|of|on|know)\s+(.{2,60}?)(?:[?!,;]|\.(?:\s|$)|$)/i.exec(question.slice(cue?.index ?? 0));
  const phrase = fragment(
    (after?.[1] ?? "")
      .replace(/\s+(?:before|previously|in the past|yet|at all|so far|recently|projects?|development|tools?|stack|well|enough|to|for|that|which)\b.*$/i, "")
      .replace(/^(?:the|a|an)\s+/i, ""),
    5,
  );
  if (phrase && !GENERIC_SUBJECT.test(phrase)) {
    const words = tokenize(phrase);
    const exact = names.find((n) => tokenize(n).join(" ") === words.join(" "));
    if (exact) return exact;
    // "Shopify Liquid", "Flutter and Firebase": names as the client wrote them; "PHP well enough" → "PHP".
    const inPhrase = named.filter((n) => countPhrase(` ${words.join(" ")} `, tokenize(n), 1) > 0);
    const covered = words.every((w) => w === "and" || inPhrase.some((n) => tokenize(n).includes(w)));
    if (covered || !inPhrase.length) return flip(phrase);
    return listOf(inPhrase.filter((n, i) => !inPhrase.slice(0, i).some((m) => m.toLowerCase().includes(n.toLowerCase()))));
  }
  return named.find((n) => r.skills.includes(n) || r.extraSkills.includes(n)) ?? named[0] ?? "";
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

function kindOf(q: string): Kind {
  if (Q_PORTFOLIO.test(q)) return "portfolio";
  if (Q_RATE.test(q)) return "rate";
  if (Q_YEARS.test(q)) return "years";
  if (Q_EXPERIENCE.test(q) && !TOPICS.some((t) => t.test.test(q))) return "experience";
  if (TOPICS.some((t) => t.test.test(q))) return "topic";
  if (Q_PERSONAL.some(([re]) => re.test(q))) return "personal";
  if (Q_TIMEZONE.test(q)) return "timezone";
  if (Q_AVAILABILITY.test(q)) return "availability";
  if (Q_TIMELINE.test(q)) return "timeline";
  if (Q_SIMILAR.test(q)) return "similar";
  if (Q_APPROACH.test(q) || Q_EXPERIENCE.test(q)) return "approach";
  if (Q_YES_NO.test(q)) return "yes";
  return "generic";
}

interface Ctx {
  r: JobReading;
  job: WritingJob;
  profile: WriterProfile | null | undefined;
  pick: ReturnType<typeof picker>;
  s: P.AnswerSlots;
  bid: string;
  names: string[];
}

/** An answer part: the direct reply, then the job-specific detail a one-part question gets too. */
interface Reply {
  lead: string;
  more: string;
}

/** The portfolio's case study for a skill: the one most relevant to the job that lists it, else any that does. */
function caseFor(c: Ctx, skill: string): CaseStudy | undefined {
  const words = tokenize(skill);
  const uses = (study: CaseStudy): boolean => words.every((w) => tokenize(study.skills.join(" ")).includes(w));
  const relevant = relevantCaseStudies(c.profile?.portfolio ?? null, c.job, 3).map((x) => x.study);
  return relevant.find(uses) ?? (c.profile?.portfolio?.caseStudies ?? []).find(uses);
}

function yearsFor(c: Ctx, skill: string): string {
  const words = tokenize(skill).join(" ");
  const y = (c.profile?.portfolio?.skillYears ?? []).find((x) => tokenize(x.skill).join(" ") === words && x.years >= 1);
  return y ? `I've worked with ${y.skill} for ${y.years} ${y.years === 1 ? "year" : "years"}.` : "";
}

function portfolioReply(c: Ctx, q: string): Reply {
  const picked = relevantCaseStudies(c.profile?.portfolio ?? null, c.job, 2);
  const cited = picked.flatMap((x, i) => citeOne(x.study, x.sharedSkills, i === 0, c.r.seed));
  const site = /\b(github|gitlab|behance|dribbble|linkedin)\b/i.exec(q)?.[1];
  const hosts = picked.map((x) => x.study.link.toLowerCase());
  const lines = [...cited];
  if (site && !hosts.some((h) => h.includes(site.toLowerCase()))) {
    const name = { github: "GitHub", gitlab: "GitLab", behance: "Behance", dribbble: "Dribbble", linkedin: "LinkedIn" }[site.toLowerCase()]!;
    lines.push(`My ${name} profile: ${slot(`${name} profile link`)}.`);
  } else if (!picked.length) {
    const kind = c.r.terms[0] ? `${c.r.terms[0]} work` : "work like this";
    lines.push(`You can see relevant samples here: ${slot(`links to ${kind}`)}.`);
  } else if (!hosts.some(Boolean) && /\blinks?\b|\burls?\b|\bshare\b|\bsend\b/i.test(q)) {
    lines.push(`More samples: ${slot("portfolio link")}.`);
  }
  return {
    lead: lines.join(" "),
    more: `For ${c.s.topic}, I'd also be glad to start with a small first step, ${c.s.ing}, so you can judge the work on your own project.`,
  };
}

function rateReply(c: Ctx, q: string): Reply {
  const terms = Q_RATE_TERMS.exec(q);
  const subject = terms ? flip(clause(fragment(terms[1]!, 10), 8)) : "";
  // What a price covers beyond the plan (maintenance, revisions, extras) is the freelancer's own policy.
  const policy = subject ? ` On ${subject}: ${slot(`terms for ${subject}`)}.` : "";
  if (c.bid) {
    const [lead, more] = c.pick(P.RATE_ANSWERS.bid, "rate")(c.bid, c.s);
    return { lead: lead + policy, more };
  }
  const open = c.pick(c.r.hasBudget ? P.RATE_ANSWERS.budget : P.RATE_ANSWERS.open, "rate")(c.s);
  return { lead: open + policy, more: "" };
}

function experienceReply(c: Ctx, q: string, years: boolean): Reply {
  const asked = askedAbout(q, c.r, c.names);
  if (!asked) return years ? { lead: `On experience: ${slot("years of relevant experience")}.`, more: approachMore(c) } : similarReply(c, q);
  const related = [...c.r.terms, ...c.r.extraSkills].find(
    (x) => !asked.toLowerCase().includes(x.toLowerCase()) && !x.toLowerCase().includes(asked.toLowerCase()),
  );
  const slots = { ...c.s, asked, related: related ?? "the rest of the stack you describe" };
  if (!isOwn(c.r, asked)) {
    // Not on the profile: the freelancer says what they have; the writer says only how it fits the plan.
    const inJob = c.r.terms.some((t) => overlap(t, asked) > 0.5) || countPhrase(` ${tokenize(c.job?.description ?? "").join(" ")} `, tokenize(asked), 1) > 0;
    const plan = inJob
      ? `For ${c.s.topic} I'd use it from the start, beginning with ${c.s.ing} and then ${c.s.ing2}.`
      : `For ${c.s.topic} I'd begin with ${c.s.ing} and then ${c.s.ing2}, and I'm happy to talk through where ${asked} would fit.`;
    return { lead: `On ${asked}: ${slot(`experience with ${asked}, if any`)}.`, more: plan };
  }
  const yes = Q_YES_NO.test(q) ? "Yes, " : "";
  const [own, plan] = c.pick(P.EXPERIENCE_ANSWERS, "experience")(slots);
  const lines = [yes + own];
  const y = yearsFor(c, asked);
  if (y) lines.push(y);
  else if (years) lines.push(`I've worked with ${asked} for ${slot(`years with ${asked}`)}.`);
  const study = caseFor(c, asked);
  if (study) lines.push(...citeOne(study, [], true, c.r.seed).filter((l) => /^(?:The closest|A relevant|I've done|You can see)/.test(l)));
  return { lead: lines.join(" "), more: plan };
}

function similarReply(c: Ctx, _q: string): Reply {
  const picked = relevantCaseStudies(c.profile?.portfolio ?? null, c.job, 1);
  const more = c.pick(P.SIMILAR_WORK_ANSWERS, "similar")(c.s);
  if (picked.length) return { lead: citeOne(picked[0]!.study, picked[0]!.sharedSkills, true, c.r.seed).join(" "), more };
  return { lead: `The closest match to share here: ${slot("most relevant past project, with a link")}.`, more };
}

function approachMore(c: Ctx): string {
  return `For ${c.s.topic}, I'd start by ${c.s.ing}.`;
}

function availabilityReply(c: Ctx, q: string): Reply {
  const lines: string[] = [];
  if (/\bstart\b|\bhow soon\b|\bimmediately\b|\bright away\b/i.test(q)) lines.push(`I can start on ${slot("start date")}, beginning with ${c.s.ing}.`);
  if (/\bhours?\b|\bpart[- ]time\b/i.test(q)) lines.push(`I can commit ${slot("hours per week")} to this.`);
  if (/\bfull[- ]time\b/i.test(q)) lines.push(`On working full-time: ${slot("weekly availability for that period")}.`);
  if (/\bweekends?\b/i.test(q)) lines.push(`On weekend work: ${slot("weekend availability")}.`);
  if (/\btime off\b|\bholidays?\b|\bvacation\b|\bcommitments?\b/i.test(q))
    lines.push(`On other commitments and time off: ${slot("other commitments or planned time off")}.`);
  if (/\brepl|\brespond|\bresponse time\b|\bget back\b/i.test(q)) lines.push(`On reply times: ${slot("usual reply time")}.`);
  if (!lines.length) lines.push(`On availability: ${slot("availability for this job")}.`);
  const starts = lines[0]!.includes(c.s.ing);
  return {
    lead: lines.join(" "),
    more: starts ? "I'll share progress regularly from there." : `The first thing I'd do is ${c.s.vp}, and I'll share progress regularly from there.`,
  };
}

function timezoneReply(c: Ctx, q: string): Reply {
  const zone = ZONE.exec(q)?.[0];
  if (zone)
    return {
      lead: `I can overlap with ${zone} hours for calls and reviews: ${slot(`working hours in ${zone}`)}.`,
      more: "Between those, I'll keep you updated in writing, so nothing waits on a meeting.",
    };
  return {
    lead: `I'm based in ${slot("location and time zone")}, and I can arrange my working hours to overlap with yours for calls and quick questions.`,
    more: `Between those, I'll send short written updates, so ${c.s.topic} never waits on a meeting.`,
  };
}

function replyTo(c: Ctx, q: string): Reply {
  switch (kindOf(q)) {
    case "portfolio":
      return portfolioReply(c, q);
    case "rate":
      return rateReply(c, q);
    case "years":
      return experienceReply(c, q, true);
    case "experience":
      return experienceReply(c, q, false);
    case "topic":
      return { lead: TOPICS.find((t) => t.test.test(q))!.answer(c.s), more: "" };
    case "personal": {
      const [, what] = Q_PERSONAL.find(([re]) => re.test(q))!;
      return { lead: `On ${what.replace(/:.*$/, "")}: ${slot(what)}.`, more: approachMore(c) };
    }
    case "timezone":
      return timezoneReply(c, q);
    case "availability":
      return availabilityReply(c, q);
    case "timeline": {
      const text = c.pick(P.TIMELINE_ANSWERS, "timeline")(c.s);
      return { lead: text, more: "" };
    }
    case "similar":
      return similarReply(c, q);
    case "approach":
      return { lead: c.pick(P.APPROACH_ANSWERS, "approach")(c.s), more: "" };
    case "yes":
      return { lead: c.pick(P.YES_ANSWERS, "yes")(c.s), more: "" };
    default: {
      const subject = subjectOf(q);
      const text = subject ? c.pick(P.GENERIC_ANSWERS, "generic")({ ...c.s, asked: subject }) : c.pick(P.UNSUBJECTED_ANSWERS, "generic")(c.s);
      return { lead: text, more: "" };
    }
  }
}

export function answerQuestionLocally(input: { job: WritingJob; profile?: WriterProfile | null; question: string; bid?: Bid | null }): string {
  const question = plain(input?.question, 2000).replace(/\s+/g, " ").trim();
  const r = readJob(input?.job, input?.profile, question);
  const bank = P.CATEGORIES[r.category];
  // Steps that only restate the client's need are left out, unless the posting has no others.
  const need = r.need?.obj ?? "";
  const own = r.steps.some((x) => overlap(x, need) < 0.8);
  const steps = chooseSteps(r, bank, 3, own ? need : "");
  // chooseSteps puts hand-overs last; if the posting gives nothing but deliverables, start with the bank's first step.
  const first = steps[0]?.startsWith("deliver ") ? bank.steps[0]! : (steps[0] ?? bank.steps[0]!);
  const second = steps.find((x) => x !== first) ?? bank.steps.at(-1)!;
  const s: P.AnswerSlots = {
    ...slotsFor(r, 3),
    asked: "",
    related: r.terms[1] ?? r.terms[0] ?? "the rest of the stack",
    vp: first,
    ing: gerund(first),
    ing2: gerund(second),
  };
  const c: Ctx = { r, job: input?.job, profile: input?.profile, pick: picker(r.seed), s, bid: bidText(input?.bid), names: knownNames(r, input?.profile) };

  // A question that only tries to instruct the writer is answered in general terms, never restated.
  const parts = partsOf(question.slice(0, 600));
  if (!parts.length) return clampChars(c.pick(P.UNSUBJECTED_ANSWERS, "generic")(s), MAX_ANSWER_CHARS);
  // Parts of one kind are answered together; a many-part question gets each direct reply and one plan line.
  const groups = new Map<Kind, string[]>();
  for (const part of parts) groups.set(kindOf(part), [...(groups.get(kindOf(part)) ?? []), part]);
  const replies = [...groups.values()].map((g) => replyTo(c, g.join(" ")));
  const text =
    replies.length === 1
      ? [replies[0]!.lead, replies[0]!.more]
      : [...replies.map((x) => x.lead), replies.some((x) => x.lead.includes(s.ing)) ? "" : approachMore(c)];
  return clampChars(text.filter(Boolean).join(" "), MAX_ANSWER_CHARS);
}
