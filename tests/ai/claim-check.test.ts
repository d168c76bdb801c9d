import { describe, expect, test } from "bun:test";
import { checkClaims, type ClaimFacts } from "../../src/ai/claim-check";
import { writeProposalLocally } from "../../src/ai/local-writer";
import { parsePortfolioMarkdown, portfolioMarkdown, relevantCaseStudies } from "../../src/ai/portfolio";
import fixtures from "../fixtures/claims/invented.json";

const facts = fixtures.facts as ClaimFacts;

describe("the claim check on the fixture set", () => {
  for (const { letter, kind } of fixtures.invented) {
    test(`flags ${kind}: ${letter}`, () => {
      const claims = checkClaims(letter, facts);
      expect(claims.map((c) => c.kind)).toContain(kind as never);
      // The flagged words are where the claim says they are, so review can highlight them.
      for (const c of claims) expect(letter.slice(c.start, c.start + c.text.length)).toBe(c.text);
    });
  }
  for (const letter of fixtures.backed) {
    test(`passes what the facts back: ${letter}`, () => {
      expect(checkClaims(letter, facts)).toEqual([]);
    });
  }

  test("the same invented claim is caught inside a whole letter, and nothing without a portfolio backs a project", () => {
    const letter = `Hi there,\n\nYou need a React dashboard for your logistics SaaS.\n\n${fixtures.invented.map((x) => x.letter).join(" ")}\n\nBest regards,\nAna`;
    const kinds = new Set(checkClaims(letter, facts).map((c) => c.kind));
    expect([...kinds].sort()).toEqual(["client", "experience", "number", "technology", "years"]);
    const bare = { ...facts, portfolio: null };
    expect(checkClaims("I built a React dashboard for a bank.", bare).map((c) => c.kind)).toContain("experience");
  });

  test("a technology at the end of a sentence is named without the full stop", () => {
    const [claim] = checkClaims("I have shipped services in Elixir.", { ...facts, skills: [] }).filter((c) => c.kind === "technology");
    expect(claim?.text).toBe("Elixir");
    expect(claim?.reason).toStartWith("Elixir is not");
  });

  test("what the user's own instructions say about them backs a claim", () => {
    expect(checkClaims("I've built 40 Shopify stores.", { ...facts, skills: ["Shopify"] }).length).toBeGreaterThan(0);
    expect(checkClaims("I've built 40 Shopify stores.", { ...facts, skills: ["Shopify"], ownText: "Mention my 40 Shopify stores." })).toEqual([]);
  });
});

describe("portfolio: import format and retrieval", () => {
  const markdown = [
    "# Case studies",
    "## Clinic booking app",
    "- Built: a Flutter app for booking appointments",
    "- Client: a dental clinic chain",
    "- Skills: Flutter, Firebase",
    "## Trading analytics dashboard",
    "- Built: A React and TypeScript dashboard with live charts and filterable tables",
    "- Client: Northwind Capital",
    "- Skills: React, TypeScript, React Query",
    "- Outcome: Cut page load from 6 s to 1.8 s",
    "- Link: https://example.com/trading",
    "# Past clients",
    "- Northwind Capital",
    "# Years of experience",
    "- React: 6",
  ].join("\n");

  test("Markdown reads into case studies, clients and years, and writes back the same", () => {
    const p = parsePortfolioMarkdown(markdown);
    expect(p.caseStudies.map((c) => c.title)).toEqual(["Clinic booking app", "Trading analytics dashboard"]);
    expect(p.caseStudies[1]!.skills).toEqual(["React", "TypeScript", "React Query"]);
    expect(p.pastClients).toEqual(["Northwind Capital"]);
    expect(p.skillYears).toEqual([{ skill: "React", years: 6 }]);
    expect(parsePortfolioMarkdown(portfolioMarkdown(p))).toEqual(p);
  });

  const portfolio = parsePortfolioMarkdown(markdown);
  const reactJob = {
    title: "React developer for a logistics admin dashboard",
    description: "Build order tables with filters and charts in React and TypeScript; we use React Query.",
    skills: ["React", "TypeScript"],
    jobType: "HOURLY" as const,
    budgetText: null,
  };

  test("retrieval picks the case study that shares the job's skills and words, and none for an unrelated job", () => {
    expect(relevantCaseStudies(portfolio, reactJob).map((r) => r.study.title)).toEqual(["Trading analytics dashboard"]);
    expect(
      relevantCaseStudies(portfolio, { title: "Bookkeeping for a bakery", description: "Monthly QuickBooks reconciliation.", skills: ["QuickBooks"] }),
    ).toEqual([]);
  });

  test("the local writer cites the matching case study, states the entered years, and its letter passes the claim check", () => {
    for (const effort of ["low", "medium", "high"] as const) {
      const profile = { name: "Ana Ruiz", title: "React dashboards developer", skills: ["React"], portfolio };
      const letter = writeProposalLocally({ job: reactJob, profile, effort, bid: null });
      expect(letter).toContain("Trading analytics dashboard");
      expect(letter).toContain("Northwind Capital");
      expect(letter).not.toContain("Clinic booking app");
      const words = letter.split(/\s+/).length;
      expect(words).toBeGreaterThanOrEqual(120);
      expect(words).toBeLessThanOrEqual(250);
      const jobText = `${reactJob.title}\n${reactJob.skills.join(", ")}\n${reactJob.description}`;
      expect(checkClaims(letter, { skills: profile.skills, portfolio, jobText, bidText: null })).toEqual([]);
    }
  });
});
