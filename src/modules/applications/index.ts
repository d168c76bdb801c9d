import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import {
  ApplicationFunnel,
  ApplicationParams,
  ApplyBody,
  ApproveBody,
  ClaimParams,
  ClaimResult,
  ReleaseResult,
  RequestAgainBody,
  SendBackBody,
  HeldList,
  HeldQuery,
  ReviewResult,
  ApplyResponse,
  AppliedJobsQuery,
  AppliedJobsResponse,
  InsufficientCreditsError,
  LegacyApplyBody,
  OutcomeBody,
  StatusQuery,
  StatusResponse,
} from "./model";
import * as applications from "./service";
import { funnel, recordOutcome } from "./funnel";
import { listHeld, requestApproval, requestApprovalAgain, reviewHeld, sendBack } from "./review";

const tags = ["Auto-apply"];
const applyResponses = { 200: ApplyResponse, 402: InsufficientCreditsError, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500, 503) };

/** Apply, status, applied jobs, the funnel (outcomes recorded by hand) and the legacy apply endpoint. */
export function applicationsRoutes(deps: Deps) {
  return (
    new Elysia()
      .use(authContext)
      .use(routePolicy)
      .post("/api/auto-apply-v2/apply", ({ auth, body }) => applications.apply(deps, auth, body), {
        policy: { rateLimit: "apply", permission: "send" },
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
      .get("/api/v1/applications/held", ({ auth, query }) => listHeld(deps, auth, { limit: query.limit ?? 50, offset: query.offset ?? 0 }), {
        policy: { rateLimit: "default" },
        query: HeldQuery,
        response: { 200: HeldList, ...errorResponses(400, 401, 429, 500) },
        detail: {
          tags,
          operationId: "listHeldApplications",
          summary: "Applications waiting for your review",
          description:
            "Drafts of a feed in draft mode, letters the governor held as too like one sent in the last 30 days (with the earlier letter), proposals that would break a Connects budget on a feed set to review, and auto-filled screening answers with something only the freelancer knows left to fill in. Newest first.",
        },
      })
      // A separate route rather than a flag on apply: each route declares the one permission it needs ("draft" here,
      // "send" for apply), so the check stays in the auth plugin and not in the service.
      .post("/api/v1/applications/request-approval", ({ auth, body }) => requestApproval(deps, auth, body), {
        policy: { rateLimit: "apply", permission: "draft" },
        body: ApplyBody,
        response: applyResponses,
        detail: {
          tags,
          operationId: "requestApproval",
          summary: "Queue a proposal for an approver (the apply body)",
          description:
            "For members without the send permission (bidders, unless the account lets them send): the proposal is queued as apply queues it (a credit held, the same 402 and 409s, a 409 naming the member who holds the job's claim), but held with kind approval until an owner or admin approves it (POST …/approve), sends it back with a comment (POST …/send-back) or discards it. An application.held event goes to the job's feeds.",
        },
      })
      .post("/api/v1/applications/:queueId/request-approval", ({ auth, params, body }) => requestApprovalAgain(deps, auth, params.queueId, body ?? {}), {
        policy: { rateLimit: "default", permission: "draft" },
        params: ApplicationParams,
        body: t.Optional(RequestAgainBody),
        response: { 200: ReviewResult, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
        detail: {
          tags,
          operationId: "requestApprovalAgain",
          summary: "Ask again for approval of a draft that was sent back (optionally with a rewritten letter)",
          description: "Only its drafter may. 409 when it was not sent back (it waits for approval already, or was approved, discarded or sent).",
        },
      })
      .post("/api/v1/applications/:queueId/send-back", ({ auth, params, body }) => sendBack(deps, auth, params.queueId, body.comment), {
        policy: { rateLimit: "default", permission: "approve" },
        params: ApplicationParams,
        body: SendBackBody,
        response: { 200: ReviewResult, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
        detail: {
          tags,
          operationId: "sendBackApplication",
          summary: "Send a member's draft back to them with a comment",
          description:
            "It stays held (kind returned, the credit still held) with your comment until its drafter edits it and asks again. Only an approval request can be sent back: 409 for other held kinds and for one no longer waiting.",
        },
      })
      .post("/api/v1/jobs/:ciphertext/claim", ({ auth, params }) => applications.claimJob(deps, auth, params.ciphertext), {
        policy: { rateLimit: "default", permission: "draft" },
        params: ClaimParams,
        response: { 200: ClaimResult, ...errorResponses(400, 401, 403, 404, 409, 429, 500) },
        detail: {
          tags,
          operationId: "claimJob",
          summary: "Claim a job while you draft for it (or renew your claim)",
          description:
            "Holds the job for you for 30 minutes from now, so no other member of the account bids on it meanwhile: their claim, apply or approval request is a 409 naming you. 409 naming the holder when another member's claim is live, or naming who drafted or sent it when the job already has an application. Only members claim: for an API key of no member, claim is null and nothing is checked.",
        },
      })
      .delete("/api/v1/jobs/:ciphertext/claim", ({ auth, params }) => applications.releaseJobClaim(deps, auth, params.ciphertext), {
        policy: { rateLimit: "default", permission: "draft" },
        params: ClaimParams,
        response: { 200: ReleaseResult, ...errorResponses(400, 401, 403, 404, 429, 500) },
        detail: {
          tags,
          operationId: "releaseJobClaim",
          summary: "Release a job's claim",
          description:
            "Its holder may, and an owner or admin may release anyone's (403 naming the holder otherwise). A claim also ends when the job's application goes out or is discarded, and 30 minutes after it was last renewed.",
        },
      })
      .post("/api/v1/applications/:queueId/approve", ({ auth, params, body }) => reviewHeld(deps, auth, params.queueId, "approve", body ?? {}), {
        policy: { rateLimit: "default", permission: "approve" },
        params: ApplicationParams,
        body: t.Optional(ApproveBody),
        response: { 200: ReviewResult, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
        detail: {
          tags,
          operationId: "approveApplication",
          summary: "Approve a held application (optionally with a rewritten letter and filled-in answers)",
          description:
            'It is submitted within the governor\'s caps, pacing and working hours; the similarity guard and budgets do not hold it again. 400 naming the field while the letter or a screening answer, as it would go out, still has a "[your …]" slot (kind fill-in: fill them in with questionAnswers). 409 when it is not waiting for review.',
        },
      })
      .post("/api/v1/applications/:queueId/discard", ({ auth, params }) => reviewHeld(deps, auth, params.queueId, "discard"), {
        policy: { rateLimit: "default", permission: "approve" },
        params: ApplicationParams,
        response: { 200: ReviewResult, ...errorResponses(401, 403, 404, 409, 429, 500) },
        detail: {
          tags,
          operationId: "discardApplication",
          summary: "Discard a held application",
          description: "It ends failed; nothing is sent and nothing is charged. 409 when it is not waiting for review.",
        },
      })
      .post("/api/v1/applications/:queueId/outcome", ({ auth, params, body }) => recordOutcome(deps, auth, params.queueId, body), {
        policy: { rateLimit: "default", permission: "outcomes" },
        params: ApplicationParams,
        body: OutcomeBody,
        response: { 200: ApplicationFunnel, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
        detail: {
          tags,
          operationId: "recordApplicationOutcome",
          summary: "Record what happened to a sent proposal",
          description:
            "replied, interview, hired (with valueUsd, the contract value), lost or withdrawn, at a time (now when omitted). Stages only move forward: 409 for an outcome that would move it backwards (hired may still become lost when the contract falls through; lost and withdrawn are final) and for an application that was never sent. Recording the stage it is already at only updates the note (and the value of a hire). A marketplace reading never overwrites what you recorded. Answers with the funnel.",
        },
      })
      .get("/api/v1/applications/:queueId/funnel", ({ auth, params }) => funnel(deps, auth, params.queueId), {
        policy: { rateLimit: "default" },
        params: ApplicationParams,
        response: { 200: ApplicationFunnel, ...errorResponses(400, 401, 404, 429, 500) },
        detail: {
          tags,
          operationId: "getApplicationFunnel",
          summary: "The funnel of an application",
          description:
            "Stage times (sent, viewed, replied, interview, hired), the outcome (recorded, or no_reply after JOBPILOT_NO_REPLY_DAYS with no reply), the contract value and the Connects spent with their cost at JOBPILOT_CONNECT_PRICE_USD.",
        },
      })
      .post(
        "/api/auto-apply/external",
        ({ auth, body }) => {
          const { applicationOptions, ...rest } = body;
          return applications.apply(deps, auth, { ...rest, proposal: applicationOptions });
        },
        {
          policy: { rateLimit: "apply", successor: "/api/auto-apply-v2/apply", permission: "send" },
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
      )
  );
}
