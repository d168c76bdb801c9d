import { Elysia } from "elysia";
import { authContext } from "../../http/auth";
import { errorResponses } from "../../http/schemas";
import { notImplemented } from "../../errors";
import { FreelancersResponse } from "./model";

const listFreelancers = () => {
  throw notImplemented();
};
const options = (summary: string) => ({
  response: { 200: FreelancersResponse, ...errorResponses(400, 401, 404, 429, 500, 501) },
  detail: { tags: ["Freelancers"], summary },
});

/** Freelancers linked to the account; the second path is the one the spec's Limits table names. Implementation: issue "Auto-apply". */
export function freelancersRoutes() {
  return new Elysia()
    .use(authContext)
    .get("/api/auto-apply-v2/freelancers", listFreelancers, options("Freelancers linked to the account and their profiles"))
    .get("/api/auto-apply/external/freelancers", listFreelancers, options("Same as /api/auto-apply-v2/freelancers"));
}
