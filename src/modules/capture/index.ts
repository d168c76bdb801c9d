import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import { CAPTURE_SCRIPT } from "./bookmarklet";
import { t } from "elysia";
import {
  CAPTURE_JOBS_PATH,
  CAPTURE_PATH,
  CAPTURE_STATUS_PATH,
  CaptureBody,
  CaptureJobsBody,
  CaptureJobsResult,
  CaptureResult,
  CaptureStatusBody,
} from "./model";
import { captureJob, captureMarketplaceJobs, reportCompanionStatus } from "./service";
import { countCompanionRead } from "../companion/reads";

const CAPTURE_SCRIPT_PATH = "/capture.js";

/**
 * CORS for the capture route only: the bookmarklet runs on the job site's
 * origin. Any origin may call it because the API key, not the origin, is the
 * credential (no cookies are involved). Preflights are answered without a key:
 * browsers never send custom headers on them.
 */
const CAPTURE_CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST",
  "access-control-allow-headers": "content-type, x-api-key",
  "access-control-max-age": "86400",
} as const;

function preflight({ request, set }: { request: Request; set: { status?: number | string; headers: Record<string, string | number> } }) {
  set.status = 204;
  Object.assign(set.headers, CAPTURE_CORS);
  // Chrome asks before a public page talks to a server on a private address (a jobpilot at home).
  if (request.headers.get("access-control-request-private-network") === "true") set.headers["access-control-allow-private-network"] = "true";
  return "";
}
// Browsers never send custom headers on a preflight, so it cannot carry the key.
const PREFLIGHT = { policy: { public: true }, detail: { hide: true } } as const;
// Capturing a page puts jobs in the archive and through the feeds: what a bidder finding jobs by hand does, so `draft`
// (viewers only read). The companion's watch-state report goes with its captures.
const CAPTURING = { anyOrigin: true, permission: "draft" } as const;

/** Captured pages for the professional_network (and any web) platform: POST /api/v1/capture and the bookmarklet script. */
export function captureRoutes(deps: Deps) {
  const api = new Elysia()
    .use(routePolicy)
    // Before validation, so a 400 carries the header too and the bookmarklet can show its message.
    .onTransform(({ set }) => {
      set.headers["access-control-allow-origin"] = "*";
    })
    .options(CAPTURE_PATH, preflight, PREFLIGHT)
    // The browser companion's routes: the extension calls from its own origin.
    .options(CAPTURE_JOBS_PATH, preflight, PREFLIGHT)
    .options(CAPTURE_STATUS_PATH, preflight, PREFLIGHT)
    .use(authContext)
    .post(
      CAPTURE_PATH,
      async ({ auth, body, set }) => {
        const { status, result } = await captureJob(deps, auth, body);
        set.status = status;
        return result;
      },
      {
        // The bookmarklet must read the answer, a 401 or 429 included, from the job site's origin.
        policy: CAPTURING,
        body: CaptureBody,
        response: { 200: CaptureResult, 201: CaptureResult, ...errorResponses(400, 401, 413, 415, 429, 500) },
        detail: {
          tags: ["Jobs"],
          operationId: "captureJob",
          summary: "(extension) Capture a job page the user is viewing",
          description:
            "Used by the bookmarklet (GET /capture.js). Archives the page as a professional_network (default) or web job and runs it through every feed. " +
            "The job id comes from /jobs/view/<id> or currentJobId=<id> on the professional network, else from a hash of the URL without tracking parameters. " +
            "201 for a new job, 200 with inserted false for one captured before. CORS: any origin.",
        },
      },
    )
    .post(
      CAPTURE_JOBS_PATH,
      async ({ auth, body }) => {
        // Each page the companion captured counts against the governor's companionReadsPerHour (429 past it).
        await countCompanionRead(deps, auth.accountId, "a job page capture");
        return captureMarketplaceJobs(deps, auth, body);
      },
      {
        policy: CAPTURING,
        body: CaptureJobsBody,
        response: { 200: CaptureJobsResult, ...errorResponses(400, 401, 413, 415, 429, 500) },
        detail: {
          tags: ["Jobs"],
          operationId: "captureMarketplaceJobs",
          summary: "(extension) Capture the marketplace jobs a page in the user's browser shows (browser companion)",
          description:
            "Up to 50 archived job documents read by the browser companion from one marketplace page (job page, search, find work). " +
            "They go through the same normaliser and de-duplication by ciphertext as every source: a job seen before only refreshes its document. " +
            "Each bad document is rejected with its index; the rest go in. The batch is recorded as the caller's companion source's latest capture. " +
            "Each batch is one page read against the governor's companionReadsPerHour: past it, 429 naming the limit and when it frees (retry-after), and nothing is archived. CORS: any origin.",
        },
      },
    )
    .post(CAPTURE_STATUS_PATH, ({ auth, body }) => reportCompanionStatus(deps, auth, body), {
      policy: CAPTURING,
      body: CaptureStatusBody,
      response: { 200: t.Object({ recorded: t.Literal(true) }), ...errorResponses(400, 401, 413, 415, 429, 500) },
      detail: {
        tags: ["Jobs"],
        operationId: "reportCompanionStatus",
        summary: "(extension) The browser companion's watch state (needs you: a login or bot-check page)",
        description:
          '`needsYou` set: the companion\'s source status shows "needs you" with what to do, until the next capture or a report without it. CORS: any origin.',
      },
    });

  return new Elysia()
    .get(
      CAPTURE_SCRIPT_PATH,
      () =>
        new Response(CAPTURE_SCRIPT, {
          headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache", "x-content-type-options": "nosniff" },
        }),
      {
        detail: {
          tags: ["Jobs"],
          operationId: "getCaptureScript",
          summary: "(extension) The capture bookmarklet script",
          description: "The script the bookmarklet loads; it posts the page being viewed to POST /api/v1/capture.",
          security: [],
          responses: { 200: { description: "The script", content: { "text/javascript": { schema: { type: "string" } } } } },
        },
      },
    )
    .use(api);
}
