import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import {
  ApplyBody,
  ApplyResponse,
  AppliedJobsQuery,
  AppliedJobsResponse,
  InsufficientCreditsError,
  LegacyApplyBody,
  StatusQuery,
  StatusResponse,
} from "./model";
import * as applications from "./service";

const tags = ["Auto-apply"];
const applyResponses = { 200: ApplyResponse, 402: InsufficientCreditsError, ...errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 503) };

/** Apply, status, applied jobs and the legacy apply endpoint. */
export function applicationsRoutes(deps: Deps) {
  return new Elysia()
    .use(authContext)
    .use(routePolicy)
    .post("/api/auto-apply-v2/apply", ({ auth, body }) => applications.apply(deps, auth, body), {
      policy: { rateLimit: "apply" },
      body: ApplyBody,
      response: applyResponses,
      detail: {
        tags,
        operationId: "apply",
        summary: "Queue a proposal submission",
        description:
          "Answers at once with a queueId; the submission happens in the queue. A credit is held while it runs and charged only when the marketplace reports success. 402 when no credit is free, 409 when this job already has an application processing or applied. Poll GET /api/auto-apply-v2/status.",
      },
    })
    .get("/api/auto-apply-v2/status", ({ auth, query }) => applications.status(deps, auth, query), {
      policy: { rateLimit: "status" },
      query: StatusQuery,
      response: { 200: StatusResponse, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "getApplicationStatus",
        summary: "Status of an application",
        description:
          "Give exactly one of queueId or jobId (ciphertext, URL or processed job UUID: the latest application for that job). Every status but processing is final.",
      },
    })
    .get("/api/auto-apply-v2/applied-jobs", ({ auth, query }) => applications.appliedJobs(deps, auth, query), {
      policy: { rateLimit: "appliedJobs" },
      query: AppliedJobsQuery,
      response: { 200: AppliedJobsResponse, ...errorResponses(400, 401, 429, 500) },
      detail: {
        tags,
        operationId: "listAppliedJobs",
        summary: "Jobs the account applied to or attempted, newest first",
        description:
          "Every application that reached a final status, with its outcome and the client's engagement (viewed, replied) where the marketplace reports it.",
      },
    })
    .post(
      "/api/auto-apply/external",
      ({ auth, body }) => {
        const { applicationOptions, ...rest } = body;
        return applications.apply(deps, auth, { ...rest, proposal: applicationOptions });
      },
      {
        policy: { rateLimit: "apply", successor: "/api/auto-apply-v2/apply" },
        body: LegacyApplyBody,
        response: applyResponses,
        detail: {
          tags,
          operationId: "applyLegacy",
          summary: "Queue a proposal (deprecated v1 endpoint)",
          deprecated: true,
          description:
            "Same as POST /api/auto-apply-v2/apply with applicationOptions in place of proposal; every response carries `Deprecation: true` and a `Link` to it.",
        },
      },
    );
}
