import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import { GenerateProposalBody, GenerateProposalResponse } from "./model";
import { generateProposal } from "./service";

/** AI cover letters and screening answers. */
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
    });
}
