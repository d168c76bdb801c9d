import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import { CompanyParams } from "./model";
import { ClientJobsRecordSchema } from "./schema";
import { getClientJobs } from "./service";

/** A buyer's open jobs and work history; /api/v1 and /api/v2 serve the same handler. */
export function clientsRoutes(deps: Deps) {
  const app = new Elysia().use(authContext).use(routePolicy);
  for (const prefix of ["/api", "/api/v1", "/api/v2"]) {
    app.get(`${prefix}/clients/:companyId/jobs`, ({ params }) => getClientJobs(deps, params.companyId), {
      policy: { rateLimit: "clients" },
      params: CompanyParams,
      response: { 200: ClientJobsRecordSchema, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags: ["Clients"],
        operationId: `getClientJobs${prefix.slice(5).toUpperCase()}`,
        summary: prefix === "/api" ? "Client jobs record by company id" : "Forward of /api/clients/{companyId}/jobs",
        description: "Built from the freshest archived documents of that company: buyer profile, open jobs, work history and stats. No credit cost.",
      },
    });
  }
  return app;
}
