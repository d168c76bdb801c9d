/**
 * Whole letters from the local writer read as written English (issue 44) at every effort: requirement
 * bullets ("Proven experience with …", "Present three concepts") do not turn into steps that do not read
 * ("I'd deliver Present three …"), plain-noun skill tags do not become names ("I'd approach this with
 * Dashboard"), and no slot is left empty. The rules are ./grammar's, shared with the screening answers.
 */
import { describe, expect, test } from "bun:test";
import { checkClaims } from "../../src/ai/claim-check";
import { type Effort, type WriterProfile, type WritingJob, writeProposalLocally } from "../../src/ai/local-writer";
import type { Portfolio } from "../../src/ai/portfolio";
import fixtures from "../fixtures/questions/screening.json";
import { grammarProblems } from "./grammar";
import { JOBS, PROFILE } from "./writer-jobs";

const EFFORTS: Effort[] = ["low", "medium", "high"];

/** Postings whose requirements are bullet lists of qualifications and imperatives, as clients write them. */
const BULLET_JOBS: Record<string, WritingJob> = {
  coffeeLogo: {
    title: "Logo for a specialty coffee brand",
    description:
      "We're launching a specialty coffee brand and need a logo that works on bags, cups and our website.\n\nRequirements:\n- Proven experience with Logo Design\n" +
      "- Present three initial logo concepts\n- Strong knowledge of Adobe Illustrator\n- Must have a portfolio of brand work\n- Final files in SVG and PNG",
    skills: ["Logo Design", "Adobe Illustrator", "Brand Identity"],
    jobType: "FIXED",
    budgetText: "400 USD fixed",
    clientCountry: "DE",
  },
  adminDashboard: {
    title: "Admin dashboard",
    description:
      "Looking for a developer for our internal tools.\n- Must have 3+ years with React\n- Strong knowledge of TypeScript\n- Experience with REST APIs\n" +
      "- Build a dashboard with charts for orders and refunds\n- Provide weekly progress updates",
    skills: ["Dashboard", "React"],
    jobType: "HOURLY",
    budgetText: null,
  },
  assistant: {
    title: "Virtual Assistant Needed For Busy Consultant",
    description:
      "I need a reliable assistant for about 10 hours a week.\nResponsibilities:\n- Manage my calendar and inbox\n- Respond to client emails within one business day\n" +
      "- Prepare a weekly summary of open tasks\nRequirements:\n- Excellent written English\n- Attention to detail\n- Available during US business hours",
    skills: ["Virtual Assistance", "Email Management", "Calendar Management"],
    jobType: "HOURLY",
    budgetText: "10–15 USD/hour",
    clientCountry: "US",
  },
  spreadsheet: {
    title: "Clean up product spreadsheet",
    description:
      "Our product list has 2,000 rows with inconsistent names and prices.\n- 2+ years of experience with Excel\n- Clean and format the product spreadsheet\n" +
      "- Remove duplicate rows and standardise the categories\n- Deliver a cleaned CSV file\n- Good knowledge of Google Sheets is a plus",
    skills: ["Data Entry", "Microsoft Excel", "Data Cleaning"],
    jobType: "FIXED",
    budgetText: "150 USD fixed",
  },
  landing: {
    title: "Landing Page Design",
    description:
      "We need a landing page for our new app.\n\nWhat we need:\n- Design a modern landing page in Figma\n- Suggest copy improvements for the hero section\n" +
      "- Ensure the layout works on mobile\n- Must know responsive design\n- Strong portfolio required",
    skills: ["Landing Page", "Web Design", "Figma"],
    jobType: "FIXED",
    budgetText: null,
  },
  blog: {
    title: "SEO blog writer for a SaaS company",
    description:
      "We publish two posts a week about invoicing for freelancers.\n- Write four 1,200-word blog posts per month\n- Research keywords before each post\n" +
      "- Proven track record in B2B writing\n- Native-level English",
    skills: ["Content Writing", "SEO", "Blog Writing"],
    jobType: "HOURLY",
    budgetText: "30–45 USD/hour",
  },
};

const FIXTURE_PROFILES = fixtures.profiles as unknown as Record<string, WriterProfile & { portfolio?: Portfolio }>;
const PROFILES: [string, WriterProfile | null][] = [
  ["profile", PROFILE],
  ["no profile", null],
  ["portfolio", FIXTURE_PROFILES.ana!],
  ["designer", FIXTURE_PROFILES.mara!],
];

function sourcesOf(job: WritingJob, profile: WriterProfile | null): string[] {
  const p = profile as (WriterProfile & { portfolio?: Portfolio }) | null;
  const sources = [job.title, job.description, ...job.skills, p?.name ?? "", p?.title ?? "", ...(p?.skills ?? [])];
  for (const c of p?.portfolio?.caseStudies ?? []) sources.push(c.title, c.built, c.client, c.outcome, ...c.skills);
  return sources;
}

describe("letters read at every effort", () => {
  for (const [name, job] of Object.entries({ ...JOBS, ...BULLET_JOBS })) {
    for (const [who, profile] of PROFILES) {
      test(`${name}, ${who}`, () => {
        for (const effort of EFFORTS) {
          const text = writeProposalLocally({ job, profile, effort });
          expect(grammarProblems(text, { sources: sourcesOf(job, profile), titles: [job.title], own: [profile?.title ?? ""] }, { letter: true }), text).toEqual(
            [],
          );
        }
      });
    }
  }

  test("requirement bullets are not turned into steps", () => {
    for (const effort of EFFORTS) {
      const text = writeProposalLocally({ job: BULLET_JOBS.coffeeLogo!, profile: PROFILE, effort });
      expect(text).not.toMatch(/deliver\w* (?:proven|present|strong|must)/i);
      expect(text).not.toMatch(/\b(?:proven experience|strong knowledge|must have)\b/i);
    }
    expect(writeProposalLocally({ job: BULLET_JOBS.coffeeLogo!, profile: PROFILE, effort: "medium" })).toMatch(/present\w* three initial logo concepts/i);
    expect(writeProposalLocally({ job: BULLET_JOBS.landing!, profile: PROFILE, effort: "high" })).toMatch(/design\w* a modern landing page in Figma/i);
  });

  test("a plain-noun skill tag is not named as a tool", () => {
    for (const effort of EFFORTS) {
      const text = writeProposalLocally({ job: BULLET_JOBS.adminDashboard!, profile: PROFILE, effort });
      expect(text).not.toMatch(/\bwith Dashboard\b|\bDashboard (?:work|at)\b/);
    }
  });

  test("the new jobs' letters pass the claim check too", () => {
    for (const job of Object.values(BULLET_JOBS)) {
      for (const [, profile] of PROFILES) {
        const p = profile as (WriterProfile & { portfolio?: Portfolio }) | null;
        for (const effort of EFFORTS) {
          const text = writeProposalLocally({ job, profile, effort });
          const facts = {
            skills: p?.skills ?? [],
            portfolio: p?.portfolio ?? null,
            jobText: `${job.title}\n${job.skills.join(", ")}\n${job.description}`,
            bidText: null,
          };
          expect(checkClaims(text, facts), text).toEqual([]);
        }
      }
    }
  });
});
