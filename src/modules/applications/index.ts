import { Elysia } from "elysia";
import { authContext } from "../../http/auth";
import { errorResponses } from "../../http/schemas";
import { notImplemented } from "../../errors";
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

const tags = ["Auto-apply"];

/** Apply, status, applied jobs and the legacy apply endpoint. Implementation: issue "Auto-apply". */
export function applicationsRoutes() {
  return new Elysia()
    .use(authContext)
    .post(
      "/api/auto-apply-v2/apply",
      () => {
        throw notImplemented();
      },
      {
        body: ApplyBody,
        response: { 200: ApplyResponse, 402: InsufficientCreditsError, ...errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 501) },
        detail: {
          tags,
          summary: "Queue a proposal submission",
          description: "One credit is deducted only when the submission succeeds. Poll GET /api/auto-apply-v2/status with the returned queueId.",
        },
      },
    )
    .get(
      "/api/auto-apply-v2/status",
      () => {
        throw notImplemented();
      },
      {
        query: StatusQuery,
        response: { 200: StatusResponse, ...errorResponses(400, 401, 404, 429, 500, 501) },
        detail: { tags, summary: "Status of an application", description: "Give exactly one of queueId or jobId." },
      },
    )
    .get(
      "/api/auto-apply-v2/applied-jobs",
      () => {
        throw notImplemented();
      },
      {
        query: AppliedJobsQuery,
        response: { 200: AppliedJobsResponse, ...errorResponses(400, 401, 429, 500, 501) },
        detail: { tags, summary: "Jobs the account applied to or attempted, newest first" },
      },
    )
    .post(
      "/api/auto-apply/external",
      () => {
        throw notImplemented();
      },
      {
        body: LegacyApplyBody,
        response: { 200: ApplyResponse, 402: InsufficientCreditsError, ...errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 501) },
        detail: { tags, summary: "Queue a proposal (deprecated v1 endpoint)", deprecated: true, description: "Use POST /api/auto-apply-v2/apply." },
      },
    );
}
