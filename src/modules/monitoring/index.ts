import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { errorResponses } from "../../http/schemas";
import { healthCheck } from "./health";
import { Health, Readiness } from "./model";
import { checkMetricsAccess, readiness, renderMetrics } from "./service";

/** GET /healthz: the cheap liveness probe, no key needed. */
export function healthRoutes(deps: Deps) {
  const check = healthCheck(deps);
  return new Elysia().get(
    "/healthz",
    async ({ set }) => {
      const body = await check();
      if (body.status !== "ok") set.status = 503;
      return body;
    },
    {
      response: { 200: Health, 503: Health },
      detail: {
        tags: ["Health"],
        operationId: "getHealth",
        summary: "Liveness and database status",
        description: "No key needed. 503 when the database does not answer; a healthy answer is reused for up to a second.",
        security: [],
      },
    },
  );
}

/** GET /readyz: unauthenticated like /healthz, and as free of secrets. */
export function readinessRoutes(deps: Deps) {
  return new Elysia().get(
    "/readyz",
    async ({ set }) => {
      const result = await readiness(deps);
      if (!result.ready) set.status = 503;
      return result;
    },
    {
      response: { 200: Readiness, 503: Readiness },
      detail: {
        tags: ["Health"],
        summary: "Readiness: migrations applied, database answering, background loops alive",
        description: "503 with `reason` when any check fails. For load balancers and orchestrators; /healthz stays the cheap liveness probe.",
        security: [],
      },
    },
  );
}

/**
 * GET /metrics (Prometheus text format): mounted unless JOBPILOT_METRICS=false. `peerAddress` is the TCP
 * peer of a request (app.ts asks the listening server); the handler does not take Elysia's `server` from
 * its context, since a route that does makes Elysia build that getter into every request's context.
 */
export function metricsRoutes(deps: Deps, peerAddress: (request: Request) => string | undefined) {
  return new Elysia().get(
    "/metrics",
    async ({ request, set }) => {
      checkMetricsAccess(deps.config.metricsToken, request, peerAddress(request));
      const text = await renderMetrics(deps);
      set.headers["content-type"] = deps.metrics.contentType;
      return text;
    },
    {
      response: { 200: t.String({ description: "Prometheus text exposition format 0.0.4" }), ...errorResponses(401, 403) },
      detail: {
        tags: ["Health"],
        summary: "Prometheus metrics",
        description:
          "Needs `Authorization: Bearer <JOBPILOT_METRICS_TOKEN>` when that is set; otherwise answers only requests made directly from this machine (loopback, no proxy headers).",
        // The token, or none: without JOBPILOT_METRICS_TOKEN a direct loopback request is answered, and the
        // empty requirement is how OpenAPI says that credentials are optional.
        security: [{ metricsToken: [] }, {}],
      },
    },
  );
}
