import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import { CipherQuery, CiphertextParams, RawMarketplaceJob } from "../jobs/model";
import { getArchivedJob } from "./service";

const responses = { 200: RawMarketplaceJob, ...errorResponses(400, 401, 404, 429, 500) };
const tags = ["Jobs"];
const forwardDescription = "The same answer as GET /api/jobs/by-ciphertext?cipher={ciphertext}, metered in the same jobs bucket.";

/** Archived job documents; /api/v1/jobs/{c} and /api/v2/jobs/{c} are the same handler on another path. */
export function archiveRoutes(deps: Deps) {
  return new Elysia()
    .use(authContext)
    .use(routePolicy)
    .get("/api/jobs/by-ciphertext", ({ auth, query }) => getArchivedJob(deps, auth, query.cipher), {
      policy: { rateLimit: "jobs" },
      query: CipherQuery,
      response: responses,
      detail: {
        tags,
        operationId: "getArchivedJob",
        summary: "Archived job document by ciphertext",
        description: "The document as stored, plus proposalActivity, clientScore and matches (the caller's feeds only). No credit cost.",
      },
    })
    .get("/api/v1/jobs/:ciphertext", ({ auth, params }) => getArchivedJob(deps, auth, params.ciphertext), {
      policy: { rateLimit: "jobs" },
      params: CiphertextParams,
      response: responses,
      detail: { tags, operationId: "getArchivedJobV1", summary: "Forward of /api/jobs/by-ciphertext", description: forwardDescription },
    })
    .get("/api/v2/jobs/:ciphertext", ({ auth, params }) => getArchivedJob(deps, auth, params.ciphertext), {
      policy: { rateLimit: "jobs" },
      params: CiphertextParams,
      response: responses,
      detail: { tags, operationId: "getArchivedJobV2", summary: "Forward of /api/jobs/by-ciphertext", description: forwardDescription },
    });
}
