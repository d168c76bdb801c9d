/**
 * The local writer's screening answers against a fixture set of real-style questions (issue 44): every
 * answer answers the question asked or leaves a visible "[your …]" slot for what only the freelancer
 * knows, claims nothing the profile and portfolio do not back, names no money but the bid, and reads.
 */
import { describe, expect, test } from "bun:test";
import { checkClaims } from "../../src/ai/claim-check";
import { answerQuestionLocally, type Bid, bidText, MAX_ANSWER_CHARS, type WriterProfile, type WritingJob } from "../../src/ai/local-writer";
import type { Portfolio } from "../../src/ai/portfolio";
import fixtures from "../fixtures/questions/screening.json";
import { amountsIn } from "../helpers/money";
import { grammarProblems, PLACEHOLDER_SLOT } from "./grammar";

type Mention = string | string[];
interface Item {
  id: string;
  kind: string;
  job: string;
  profile: string | null;
  bid?: Bid | null;
  question: string;
  expect: { mustMention?: Mention[]; mustNotMention?: string[]; placeholder?: boolean };
}
type FixtureProfile = WriterProfile & { hourlyRate?: number; portfolio?: Portfolio };

const JOBS = fixtures.jobs as unknown as Record<string, WritingJob>;
const PROFILES = fixtures.profiles as unknown as Record<string, FixtureProfile>;
const ITEMS = fixtures.questions as unknown as Item[];

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
/** mustMention: at the start of a word ("throttl" finds "throttling"); mustNotMention: the whole word or phrase. */
const mentions = (text: string, term: string, whole: boolean): boolean =>
  new RegExp(`(?<![\\p{L}\\p{N}])${escapeRe(term)}${whole ? "(?![\\p{L}\\p{N}])" : ""}`, "iu").test(text);

function answerFor(item: Item): { answer: string; job: WritingJob; profile: FixtureProfile | null } {
  const job = JOBS[item.job]!;
  const profile = item.profile ? PROFILES[item.profile]! : null;
  return { answer: answerQuestionLocally({ job, profile, question: item.question, bid: item.bid ?? null }), job, profile };
}

/** Everything one fixture's answer gets wrong; [] when it passes. */
function problemsOf(item: Item): string[] {
  const { answer, job, profile } = answerFor(item);
  const out: string[] = [];
  const e = item.expect;
  for (const m of e.mustMention ?? []) {
    const any = Array.isArray(m) ? m : [m];
    if (!any.some((t) => mentions(answer, t, false))) out.push(`does not mention ${any.join(" / ")}`);
  }
  for (const t of e.mustNotMention ?? []) if (mentions(answer, t, true)) out.push(`mentions "${t}"`);
  const slots = answer.match(PLACEHOLDER_SLOT) ?? [];
  if (e.placeholder === true && slots.length === 0) out.push("leaves no [your …] slot for what the freelancer must fill in");
  if (e.placeholder === false && slots.length > 0) out.push(`leaves a slot it could have filled: ${slots.join(", ")}`);
  // The client's question is their own text: echoing a technology it names is no claim.
  const jobText = `${job.title}\n${job.skills.join(", ")}\n${job.description}\n${item.question}`;
  const claims = checkClaims(answer, { skills: profile?.skills ?? [], portfolio: profile?.portfolio ?? null, jobText, bidText: bidText(item.bid) || null });
  for (const c of claims) out.push(`claim check: ${c.kind} "${c.text}" (${c.reason})`);
  const bid = item.bid?.hourlyRate ?? item.bid?.fixedBid ?? null;
  const money = amountsIn(answer).filter((n) => n !== bid);
  if (money.length) out.push(`names money other than the bid: ${money.join(", ")}`);
  if (answer.length > MAX_ANSWER_CHARS || answer.trim().length < 40) out.push(`length ${answer.length}`);
  const sources = [job.title, job.description, ...job.skills, item.question, profile?.name ?? "", profile?.title ?? "", ...(profile?.skills ?? [])];
  for (const c of profile?.portfolio?.caseStudies ?? []) sources.push(c.title, c.built, c.client, c.outcome, ...c.skills);
  out.push(...grammarProblems(answer, { sources, titles: [job.title] }));
  return out;
}

describe("screening answers on the fixture set", () => {
  test("the set covers every kind of question the issue names", () => {
    const count = (kind: string): number => ITEMS.filter((i) => i.kind === kind).length;
    expect(ITEMS.length).toBeGreaterThanOrEqual(60);
    expect(count("rate")).toBeGreaterThanOrEqual(10);
    expect(count("availability")).toBeGreaterThanOrEqual(10);
    expect(count("experience-own")).toBeGreaterThanOrEqual(10);
    expect(count("experience-missing")).toBeGreaterThanOrEqual(10);
    expect(count("portfolio")).toBeGreaterThanOrEqual(8);
    expect(count("technical")).toBeGreaterThanOrEqual(10);
    expect(new Set(ITEMS.map((i) => i.id)).size).toBe(ITEMS.length);
  });

  for (const item of ITEMS) {
    test(`${item.id}: ${item.question}`, () => {
      const problems = problemsOf(item);
      expect(problems, `${item.question}\n→ ${answerFor(item).answer}`).toEqual([]);
    });
  }

  test("deterministic: the same question gets the same answer", () => {
    for (const item of ITEMS.slice(0, 20)) expect(answerFor(item).answer).toBe(answerFor({ ...item }).answer);
  });
});
