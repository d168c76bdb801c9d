import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import {
  GenerateProposalBody,
  GenerateProposalResponse,
  JobRefParams,
  PortfolioImportBody,
  PortfolioResponse,
  PortfolioSchema,
  ProfileIdParams,
  ProposalVersionsResponse,
} from "./model";
import { getPortfolio, normalizePortfolio, parseImport, savePortfolio } from "./portfolio";
import { generateProposal, proposalVersions } from "./service";

const portfolioDoc = (operationId: string, summary: string, description: string) => ({
  tags: ["Proposals"],
  operationId,
  summary,
  description: `${description} Extension (docs/proposals-and-auto-apply.md): letters cite the portfolio's case studies and the claim check holds them to it.`,
});

/** AI cover letters and screening answers, and the portfolios they are grounded in. */
export function proposalsRoutes(deps: Deps) {
  return new Elysia()
    .use(authContext)
    .use(routePolicy)
    .post("/api/auto-apply-v2/generate-proposal", ({ auth, body }) => generateProposal(deps, auth, body, { profileId: body.profileId }), {
      policy: { rateLimit: "generateProposal", permission: "draft" },
      body: GenerateProposalBody,
      response: { 200: GenerateProposalResponse, ...errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 503) },
      detail: {
        tags: ["Proposals"],
        operationId: "generateProposal",
        summary: "Generate a cover letter (and screening answers)",
        description:
          "The job comes from jobId (ciphertext, URL or processed job UUID of an archived job) or from jobTitle + jobDescription. feedId applies that feed's proposalGenerationPrompt. reasoningEffort low (default), medium or high: more effort, a longer and more specific letter. questions → questionAnswers with one answer per position. profileId (an extension) makes the letter introduce that profile's freelancer instead of the primary one. Consumes no auto-apply credits. Without a model configured, a local template writer answers. experimentId (an extension) drafts under that experiment's arm for the job; 409 when the experiment is stopped and the job has no arm in it yet.",
      },
    })
    .get("/api/v1/jobs/:ciphertext/proposal-versions", ({ auth, params }) => proposalVersions(deps, auth, params.ciphertext), {
      policy: { rateLimit: "default", permission: "read" },
      params: JobRefParams,
      response: { 200: ProposalVersionsResponse, ...errorResponses(400, 401, 404, 429, 500, 503) },
      detail: {
        tags: ["Proposals"],
        operationId: "listProposalVersions",
        summary: "Every letter written for a job",
        description:
          "Extension (docs/proposals-and-auto-apply.md): each generate-proposal for an archived job adds a version, with the regeneration's instruction and what the claim check flagged; the version an application sent carries its id. Newest first.",
      },
    })
    .get("/api/v1/profiles/:profileId/portfolio", ({ auth, params }) => getPortfolio(deps, auth, params.profileId), {
      policy: { rateLimit: "default", permission: "read" },
      params: ProfileIdParams,
      response: { 200: PortfolioResponse, ...errorResponses(400, 401, 404, 429, 500, 503) },
      detail: portfolioDoc("getPortfolio", "A profile's portfolio", "Case studies, past clients and years per skill, also as Markdown in the import format."),
    })
    .put("/api/v1/profiles/:profileId/portfolio", ({ auth, params, body }) => savePortfolio(deps, auth, params.profileId, normalizePortfolio(body)), {
      policy: { rateLimit: "default", permission: "freelancers" },
      params: ProfileIdParams,
      body: PortfolioSchema,
      response: { 200: PortfolioResponse, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500, 503) },
      detail: portfolioDoc("putPortfolio", "Replace a profile's portfolio", "The whole portfolio: fields left out are emptied."),
    })
    .post(
      "/api/v1/profiles/:profileId/portfolio/import",
      ({ auth, params, body }) => savePortfolio(deps, auth, params.profileId, parseImport(body.format, body.text)),
      {
        policy: { rateLimit: "default", permission: "freelancers" },
        params: ProfileIdParams,
        body: PortfolioImportBody,
        response: { 200: PortfolioResponse, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500, 503) },
        detail: portfolioDoc(
          "importPortfolio",
          "Import a portfolio from Markdown or JSON",
          "Replaces the portfolio with the one the text describes (the GET's markdown is the format).",
        ),
      },
    );
}
