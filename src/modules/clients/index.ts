import { Elysia } from "elysia";
import { authContext } from "../../http/auth";
import { errorResponses } from "../../http/schemas";
import { notImplemented } from "../../errors";
import { ClientJobsRecord, CompanyParams } from "./model";

const getClientJobs = (_companyId: string) => {
  throw notImplemented();
};

/** A buyer's open jobs and work history; /api/v1 and /api/v2 forward to the same handler. Implementation: issue "Job archive and client data". */
export function clientsRoutes() {
  const app = new Elysia().use(authContext);
  for (const prefix of ["/api", "/api/v1", "/api/v2"]) {
    app.get(`${prefix}/clients/:companyId/jobs`, ({ params }) => getClientJobs(params.companyId), {
      params: CompanyParams,
      response: { 200: ClientJobsRecord, ...errorResponses(400, 401, 404, 429, 500, 501) },
      detail: { tags: ["Clients"], summary: prefix === "/api" ? "Client jobs record by company id" : "Forward of /api/clients/{companyId}/jobs" },
    });
  }
  return app;
}
