import { Elysia } from "elysia";
import { authContext } from "../../http/auth";
import { errorResponses } from "../../http/schemas";
import { notImplemented } from "../../errors";
import { CipherQuery, CiphertextParams, RawMarketplaceJob } from "./model";

// One handler behind the three paths, so the forwards cannot drift from the original.
const getArchivedJob = (_cipher: string) => {
  throw notImplemented();
};
const responses = { 200: RawMarketplaceJob, ...errorResponses(400, 401, 404, 429, 500, 501) };
const tags = ["Jobs"];

/** Archived job documents. Implementation: issue "Job archive and client data". */
export function jobsRoutes() {
  return new Elysia()
    .use(authContext)
    .get("/api/jobs/by-ciphertext", ({ query }) => getArchivedJob(query.cipher), {
      query: CipherQuery,
      response: responses,
      detail: { tags, summary: "Archived job document by ciphertext" },
    })
    .get("/api/v1/jobs/:ciphertext", ({ params }) => getArchivedJob(params.ciphertext), {
      params: CiphertextParams,
      response: responses,
      detail: { tags, summary: "Forward of /api/jobs/by-ciphertext" },
    })
    .get("/api/v2/jobs/:ciphertext", ({ params }) => getArchivedJob(params.ciphertext), {
      params: CiphertextParams,
      response: responses,
      detail: { tags, summary: "Forward of /api/jobs/by-ciphertext" },
    });
}
