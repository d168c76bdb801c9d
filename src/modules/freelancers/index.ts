import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import { freelancers } from "../applications/service";
import {
  FreelancerParams,
  FreelancerPatch,
  FreelancersResponse,
  ManagedFreelancerResponse,
  NewFreelancerBody,
  NewProfileBody,
  ProfileParams,
  ProfilePatch,
} from "./model";
import * as manage from "./service";

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
    )
    .use(managedFreelancersRoutes(deps));
}

/** Changing the roster needs "freelancers"; a driver whose roster is the marketplace's answers 409. */
const manageOptions = (operationId: string, summary: string, description: string, status: 200 | 201 = 200) => ({
  policy: { rateLimit: "default" as const, permission: "freelancers" as const },
  response: { [status]: ManagedFreelancerResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
  detail: {
    tags: ["Freelancers"],
    operationId,
    summary,
    description: `${description} Extension; the sandbox driver only: on companion and bridge the roster comes from the marketplace (409).`,
  },
});

/** The agency's own roster changes (docs/team-routing.md), the API twins of the dashboard's Freelancers page. */
function managedFreelancersRoutes(deps: Deps) {
  return new Elysia()
    .use(authContext)
    .use(routePolicy)
    .post(
      "/api/v1/freelancers",
      async ({ auth, body, set }) => {
        const freelancer = await manage.createFreelancer(deps, auth, body);
        set.status = 201;
        return { freelancer };
      },
      {
        body: NewFreelancerBody,
        ...manageOptions(
          "createFreelancer",
          "Add a freelancer (with profiles)",
          "Agency accounts only (400 for a solo account); names are unique in the account.",
          201,
        ),
      },
    )
    .patch("/api/v1/freelancers/:id", async ({ auth, params, body }) => ({ freelancer: await manage.updateFreelancer(deps, auth, params.id, body) }), {
      params: FreelancerParams,
      body: FreelancerPatch,
      ...manageOptions("updateFreelancer", "Rename a freelancer or change its base rate or country", "Only the fields sent change; the id stays."),
    })
    .delete(
      "/api/v1/freelancers/:id",
      async ({ auth, params }) => {
        await manage.removeFreelancer(deps, auth, params.id);
        return { removed: true as const };
      },
      {
        params: FreelancerParams,
        ...manageOptions(
          "removeFreelancer",
          "Remove a freelancer",
          "409 while applications going out as it are in flight or held for approval, or while feeds route to it (the message gives the count). Sent applications keep their history. The account's own freelancer cannot be removed (400).",
        ),
        response: {
          200: t.Object({ removed: t.Literal(true) }),
          ...errorResponses(400, 401, 403, 404, 409, 429, 500),
        },
      },
    )
    .post(
      "/api/v1/freelancers/:id/profiles",
      async ({ auth, params, body, set }) => {
        const freelancer = await manage.addProfile(deps, auth, params.id, body);
        set.status = 201;
        return { freelancer };
      },
      {
        params: FreelancerParams,
        body: NewProfileBody,
        ...manageOptions("addFreelancerProfile", "Add a specialized profile (title, skills, rate)", "Titles are unique per freelancer.", 201),
      },
    )
    .patch(
      "/api/v1/freelancers/:id/profiles/:profileId",
      async ({ auth, params, body }) => ({ freelancer: await manage.updateProfile(deps, auth, params.id, params.profileId, body) }),
      {
        params: ProfileParams,
        body: ProfilePatch,
        ...manageOptions("updateFreelancerProfile", "Change a profile's title, rate or skills", "Only the fields sent change."),
      },
    )
    .delete(
      "/api/v1/freelancers/:id/profiles/:profileId",
      async ({ auth, params }) => ({ freelancer: await manage.removeProfile(deps, auth, params.id, params.profileId) }),
      {
        params: ProfileParams,
        ...manageOptions(
          "removeFreelancerProfile",
          "Remove a specialized profile",
          "The default profile cannot be removed (400); 409 while a feed routes its jobs to the profile.",
        ),
      },
    );
}
