/**
 * Portfolios per freelancer profile (issue 44): what a letter may cite and claim. Kept by jobpilot for every
 * driver, since the marketplace's own profile does not carry it in a form the writer can use; the profile must be
 * one the account's driver lists, so another account's profile is a 404.
 */
import { Value } from "@sinclair/typebox/value";
import { and, eq } from "drizzle-orm";
import { EMPTY_PORTFOLIO, parsePortfolioMarkdown, type Portfolio, portfolioMarkdown } from "../../ai/portfolio";
import type { Db } from "../../db/client";
import { exec, one, tables } from "../../db/query";
import { AppError, notFound, validationDetails } from "../../errors";
import { listFreelancers } from "../../marketplace/driver";
import { driverFor } from "../accounts/drivers";
import type { AuthContext } from "../accounts/service";
import { PortfolioSchema } from "./model";
import type { ProposalsDeps } from "./service";

export type PortfolioInput = typeof PortfolioSchema.static;

/** Trims every field and fills the optional ones, so a stored portfolio always has the full shape. */
export function normalizePortfolio(input: PortfolioInput): Portfolio {
  const clean = (s: string | undefined): string => (s ?? "").replace(/\s+/g, " ").trim();
  return {
    caseStudies: (input.caseStudies ?? []).map((c) => ({
      title: clean(c.title),
      built: clean(c.built),
      client: clean(c.client),
      skills: [...new Set((c.skills ?? []).map(clean).filter(Boolean))],
      outcome: clean(c.outcome),
      link: clean(c.link),
    })),
    pastClients: [...new Set((input.pastClients ?? []).map(clean).filter(Boolean))],
    skillYears: (input.skillYears ?? []).map((s) => ({ skill: clean(s.skill), years: s.years })).filter((s) => s.skill),
  };
}

/** A portfolio from outside (an import, a form): the API's schema check, as field-named 400s. */
export function validPortfolio(value: unknown, on = "body"): Portfolio {
  // Links first, in words: the schema's own message for a bad link names a union, not what a link must be.
  const cases = (value as { caseStudies?: unknown })?.caseStudies;
  if (Array.isArray(cases)) {
    cases.forEach((c, i) => {
      const link = (c as { link?: unknown })?.link;
      if (typeof link === "string" && link !== "" && !/^https?:\/\/\S+$/.test(link.trim())) {
        const where = on === "body" ? `caseStudies[${i}].link` : `${on}`;
        throw new AppError("bad_request", `${where}: the link of case study ${i + 1} must be a web address starting with http:// or https://`);
      }
    });
  }
  if (!Value.Check(PortfolioSchema, value)) {
    const details = validationDetails([...Value.Errors(PortfolioSchema, value)], "body");
    // An import's problems belong to its text: "text: case study 2's title …" rather than a path inside the JSON.
    const said = on === "body" ? details : details.map((d) => `${on}: ${readablePath(d)}`);
    throw new AppError("bad_request", said[0] ?? `${on} is not a portfolio`, { details: said });
  }
  return normalizePortfolio(value);
}

/** "caseStudies[1].title must …" → "case study 2's title must …", for a person who wrote Markdown, not JSON. */
function readablePath(detail: string): string {
  return detail
    .replace(/^caseStudies\[(\d+)\]\.(\w+)/, (_, i: string, f: string) => `case study ${Number(i) + 1}'s ${f === "built" ? "Built line" : f}`)
    .replace(/^skillYears\[(\d+)\]\.(\w+)/, (_, i: string, f: string) => `years line ${Number(i) + 1}'s ${f}`)
    .replace(/^pastClients\[(\d+)\]/, (_, i: string) => `past client ${Number(i) + 1}`);
}

/** 404 unless the account's driver lists this profile. */
async function requireProfile(deps: ProposalsDeps, auth: AuthContext, profileId: string): Promise<void> {
  const freelancers = await listFreelancers(await driverFor(deps, auth.accountId), auth.accountId);
  if (!freelancers.some((f) => f.profiles.some((p) => p.profileId === profileId))) throw notFound("Profile not found");
}

/** The stored portfolio of a profile (empty when none was entered); no ownership check: callers have done it. */
export async function portfolioOf(db: Db, accountId: string, profileId: string): Promise<{ portfolio: Portfolio; updatedAtTs: number | null }> {
  const { portfolios } = tables(db);
  const row = await one(
    db,
    db
      .select()
      .from(portfolios)
      .where(and(eq(portfolios.accountId, accountId), eq(portfolios.profileId, profileId))),
  );
  if (!row) return { portfolio: EMPTY_PORTFOLIO, updatedAtTs: null };
  return { portfolio: normalizePortfolio(row.document as PortfolioInput), updatedAtTs: row.updatedAtTs };
}

export interface PortfolioView {
  profileId: string;
  portfolio: Portfolio;
  markdown: string;
  updatedAt: string | null;
}

const view = (profileId: string, portfolio: Portfolio, updatedAtTs: number | null): PortfolioView => ({
  profileId,
  portfolio,
  markdown: portfolioMarkdown(portfolio),
  updatedAt: updatedAtTs === null ? null : new Date(updatedAtTs).toISOString(),
});

export async function getPortfolio(deps: ProposalsDeps, auth: AuthContext, profileId: string): Promise<PortfolioView> {
  await requireProfile(deps, auth, profileId);
  const { portfolio, updatedAtTs } = await portfolioOf(deps.db, auth.accountId, profileId);
  return view(profileId, portfolio, updatedAtTs);
}

/** Replaces the profile's portfolio (one statement: an upsert). */
export async function savePortfolio(deps: ProposalsDeps, auth: AuthContext, profileId: string, portfolio: Portfolio): Promise<PortfolioView> {
  await requireProfile(deps, auth, profileId);
  const { portfolios } = tables(deps.db);
  const now = deps.clock.now();
  const document = portfolio as unknown as Record<string, unknown>;
  await exec(
    deps.db,
    deps.db
      .insert(portfolios)
      .values({ accountId: auth.accountId, profileId, document, updatedAtTs: now })
      .onConflictDoUpdate({ target: [portfolios.accountId, portfolios.profileId], set: { document, updatedAtTs: now } }),
  );
  return view(profileId, portfolio, now);
}

/** Reads an import (the documented Markdown format, or a Portfolio as JSON) into a checked portfolio. */
export function parseImport(format: "markdown" | "json", text: string): Portfolio {
  if (format === "json") {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new AppError("bad_request", `text is not valid JSON: ${(err as Error).message}`);
    }
    return validPortfolio(value, "text");
  }
  const parsed = parsePortfolioMarkdown(text);
  if (parsed.caseStudies.length === 0 && parsed.pastClients.length === 0 && parsed.skillYears.length === 0) {
    throw new AppError("bad_request", "text has no case studies (## Title), past clients or years of experience in the import format");
  }
  return validPortfolio(parsed, "text");
}
