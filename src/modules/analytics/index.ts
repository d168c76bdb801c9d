import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { errorResponses } from "../../http/schemas";
import { authContext } from "../accounts/auth-context";
import { SpeedQuery, SpeedResponse } from "./model";
import { speedToLead } from "./service";

/** What the account's own data says about how it works the market (extension). */
export function analyticsRoutes(deps: Deps) {
  return new Elysia()
    .use(authContext)
    .use(routePolicy)
    .get("/api/v1/analytics/speed", ({ auth, query }) => speedToLead(deps, auth, query), {
      policy: { rateLimit: "default" },
      query: SpeedQuery,
      response: { 200: SpeedResponse, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags: ["Analytics"],
        operationId: "getSpeedToLead",
        summary: "Speed to lead: publish → first seen, scored, alerted, drafted, submitted",
        description:
          "Extension. For each job this account was alerted about (a delivered alert) or applied to: the time from the job's publish time to when jobpilot first archived it, scored it into a feed, first delivered its alert (per target, and the first of all), when the account first generated a letter for it, and when its application was submitted. Each stage gives p50/p90/p99 in ms (nearest rank) and the count of jobs it is computed over; a job in several feeds counts its earliest. feedId narrows to one of the caller's feeds (404 otherwise), source to jobs archived from that source, from/to (unix ms) bound the publish time. Only the caller's own data.",
      },
    });
}
