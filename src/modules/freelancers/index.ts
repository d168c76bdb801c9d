import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import { freelancers } from "../applications/service";
import { FreelancersResponse } from "./model";

const options = (operationId: string, summary: string) => ({
  policy: { rateLimit: "freelancers" as const },
  response: { 200: FreelancersResponse, ...errorResponses(400, 401, 404, 429, 500, 503) },
  detail: {
    tags: ["Freelancers"],
    operationId,
    summary,
    description: "Agency accounts list every linked freelancer; solo accounts one. profileId is what apply accepts.",
  },
});

/** Freelancers linked to the account; the second path is the one the spec's Limits table names. */
export function freelancersRoutes(deps: Deps) {
  return new Elysia()
    .use(authContext)
    .use(routePolicy)
    .get(
      "/api/auto-apply-v2/freelancers",
      ({ auth }) => freelancers(deps, auth),
      options("listFreelancers", "Freelancers linked to the account and their profiles"),
    )
    .get(
      "/api/auto-apply/external/freelancers",
      ({ auth }) => freelancers(deps, auth),
      options("listFreelancersExternal", "Same as /api/auto-apply-v2/freelancers"),
    );
}
