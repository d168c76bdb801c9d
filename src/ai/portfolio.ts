/**
 * A freelancer profile's portfolio (issue 44) as the writers and the claim check read it: case studies, past
 * clients and years per skill. Here: the Markdown import format and the retrieval that picks the one or two case
 * studies a letter cites. Retrieval is local and documented (docs/proposals-and-auto-apply.md): skills overlap
 * (a case study's skills against the job's title, skills and description) plus text similarity of their stems.
 */
import { ALIASES, stemsOf } from "./stem";

export interface CaseStudy {
  title: string;
  /** What was built, in the freelancer's words. */
  built: string;
  /** For whom, or what kind of client ("a fintech start-up"). */
  client: string;
  skills: string[];
  /** The result, in numbers if the freelancer has them ("cut load time from 6 s to 1.8 s"). */
  outcome: string;
  link: string;
}

export interface SkillYears {
  skill: string;
  years: number;
}

export interface Portfolio {
  caseStudies: CaseStudy[];
  pastClients: string[];
  skillYears: SkillYears[];
}

export const EMPTY_PORTFOLIO: Portfolio = { caseStudies: [], pastClients: [], skillYears: [] };

export const PORTFOLIO_LIMITS = { caseStudies: 30, pastClients: 50, skillYears: 50, skills: 20 } as const;

// ---------------------------------------------------------------- Markdown import

const KEYS: Record<string, keyof CaseStudy> = {
  built: "built",
  "what was built": "built",
  what: "built",
  description: "built",
  client: "client",
  for: "client",
  "for whom": "client",
  skills: "skills",
  stack: "skills",
  outcome: "outcome",
  result: "outcome",
  results: "outcome",
  link: "link",
  url: "link",
};

/**
 * Reads the documented Markdown format: `## Title` starts a case study, `- Key: value` lines fill it (Built,
 * Client, Skills, Outcome, Link), a plain paragraph adds to Built; a `# Past clients` section lists clients one
 * per bullet, a `# Years` (or `# Experience`) section lists `- Skill: years`. Unknown lines are ignored, so a
 * freelancer can paste their own notes; the result is validated like a JSON portfolio afterwards.
 */
export function parsePortfolioMarkdown(text: string): Portfolio {
  const out: Portfolio = { caseStudies: [], pastClients: [], skillYears: [] };
  let section: "cases" | "clients" | "years" = "cases";
  let current: CaseStudy | null = null;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line) continue;
    const h1 = /^#\s+(.+)$/.exec(line);
    if (h1) {
      const name = h1[1]!.toLowerCase();
      section = /client/.test(name) ? "clients" : /year|experience/.test(name) ? "years" : "cases";
      current = null;
      continue;
    }
    const h2 = /^#{2,3}\s+(.+)$/.exec(line);
    if (h2 && section === "cases") {
      current = { title: h2[1]!.trim(), built: "", client: "", skills: [], outcome: "", link: "" };
      out.caseStudies.push(current);
      continue;
    }
    const bullet = /^[-*]\s+(.+)$/.exec(line)?.[1] ?? null;
    if (section === "clients") {
      if (bullet) out.pastClients.push(bullet.trim());
      continue;
    }
    if (section === "years") {
      const m = /^(.+?)\s*[:–-]\s*(\d+(?:\.\d+)?)\s*(?:years?|yrs?)?\.?$/i.exec(bullet ?? line);
      if (m) out.skillYears.push({ skill: m[1]!.trim(), years: Number(m[2]) });
      continue;
    }
    if (!current) continue;
    const kv = /^([A-Za-z ]{2,20}):\s*(.*)$/.exec(bullet ?? line);
    const key = kv ? KEYS[kv[1]!.trim().toLowerCase()] : undefined;
    if (kv && key) {
      const value = kv[2]!.trim();
      if (key === "skills")
        current.skills = value
          .split(/[,;]/)
          .map((s) => s.trim())
          .filter(Boolean);
      else current[key] = value;
    } else current.built = current.built ? `${current.built} ${bullet ?? line}` : (bullet ?? line);
  }
  return out;
}

/** The portfolio as Markdown in the import format, so export, edit and import round-trip. */
export function portfolioMarkdown(p: Portfolio): string {
  const lines: string[] = ["# Case studies", ""];
  for (const c of p.caseStudies) {
    lines.push(`## ${c.title}`);
    if (c.built) lines.push(`- Built: ${c.built}`);
    if (c.client) lines.push(`- Client: ${c.client}`);
    if (c.skills.length) lines.push(`- Skills: ${c.skills.join(", ")}`);
    if (c.outcome) lines.push(`- Outcome: ${c.outcome}`);
    if (c.link) lines.push(`- Link: ${c.link}`);
    lines.push("");
  }
  if (p.pastClients.length) lines.push("# Past clients", "", ...p.pastClients.map((c) => `- ${c}`), "");
  if (p.skillYears.length) lines.push("# Years of experience", "", ...p.skillYears.map((s) => `- ${s.skill}: ${s.years}`), "");
  return lines.join("\n").trimEnd() + "\n";
}

// ---------------------------------------------------------------- retrieval

export interface RetrievalJob {
  title: string;
  description: string;
  skills: string[];
}

export interface Retrieved {
  study: CaseStudy;
  score: number;
  /** The case study's skills the job also names: what the letter says it has in common. */
  sharedSkills: string[];
}

/** Stems (or tokens) with their other spellings ("k8s" ↔ "kubernetes"), so either side's spelling meets. */
export function withAliases(stems: Iterable<string>): Set<string> {
  const out = new Set(stems);
  for (const s of [...out]) for (const a of ALIASES.get(s) ?? []) out.add(a);
  return out;
}

/** A skill is in the job when every content stem of it is ("React Query" needs both words). */
function skillIn(skill: string, jobStems: Set<string>): boolean {
  const stems = [...stemsOf(skill)];
  return stems.length > 0 && stems.every((s) => jobStems.has(s) || (ALIASES.get(s) ?? []).some((a) => jobStems.has(a)));
}

/** Cosine-like overlap of two stem sets (each stem once). */
function overlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const s of a) if (b.has(s)) shared++;
  return shared / Math.sqrt(a.size * b.size);
}

/** Below this a case study shares too little with the job to cite: a letter then cites none rather than a stretch. */
export const MIN_RELEVANCE = 0.2;

/**
 * The case studies most relevant to the job, best first, at most `max`: relevance = 0.65 × the share of the case
 * study's skills the job names + 0.35 × stem overlap of its title, what was built and the client against the job's
 * title, skills and description. Only those at or above MIN_RELEVANCE; ties keep the freelancer's order.
 */
export function relevantCaseStudies(portfolio: Portfolio | null, job: RetrievalJob, max = 2): Retrieved[] {
  if (!portfolio || portfolio.caseStudies.length === 0) return [];
  const jobText = `${job.title}\n${job.skills.join(", ")}\n${job.description}`;
  const jobStems = withAliases(stemsOf(jobText));
  const scored = portfolio.caseStudies.map((study, i) => {
    const sharedSkills = study.skills.filter((s) => skillIn(s, jobStems));
    const skillShare = study.skills.length ? sharedSkills.length / study.skills.length : 0;
    const text = overlap(withAliases(stemsOf(`${study.title} ${study.built} ${study.client} ${study.skills.join(" ")}`)), jobStems);
    // Text similarity against a long posting is small even for a close match: scaled so 0.3 counts as full.
    const score = 0.65 * skillShare + 0.35 * Math.min(1, text / 0.3);
    return { study, score: Math.round(score * 1000) / 1000, sharedSkills, i };
  });
  return scored
    .filter((s) => s.score >= MIN_RELEVANCE && (s.sharedSkills.length > 0 || s.score >= 0.35))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, max)
    .map(({ study, score, sharedSkills }) => ({ study, score, sharedSkills }));
}
