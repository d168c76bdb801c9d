import { Elysia } from "elysia";
import { authContext } from "../../http/auth";
import { errorResponses } from "../../http/schemas";
import { notImplemented } from "../../errors";
import { GenerateProposalBody, GenerateProposalResponse } from "./model";

/** AI cover letters and screening answers. Implementation: issue "AI proposals". */
export function proposalsRoutes() {
  return new Elysia().use(authContext).post(
    "/api/auto-apply-v2/generate-proposal",
    () => {
      throw notImplemented();
    },
    {
      body: GenerateProposalBody,
      response: { 200: GenerateProposalResponse, ...errorResponses(400, 401, 404, 413, 415, 429, 500, 501) },
      detail: { tags: ["Proposals"], summary: "Generate a cover letter (and screening answers)", description: "Consumes no auto-apply credits." },
    },
  );
}
