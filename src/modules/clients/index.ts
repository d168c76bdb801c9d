import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { authContext } from "../accounts/auth-context";
import { errorResponses } from "../../http/schemas";
import { ClientListEnvelope, ClientListQuery, ClientLists, ClientUnlisted, CompanyParams, PutClientListBody } from "./model";
import { listClientLists, putClientList, removeClientList } from "./lists";
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
  return app.use(clientListRoutes(deps));
}

const listsTags = ["Clients"];
/** Changing the lists is the `clients` permission (bidders too: it is triage); reading them is `read`. */
const listsWrite = { rateLimit: "default", permission: "clients" } as const;

/**
 * (extension) The account's client lists (issue 45), shared by its members: a blocked client's jobs never enter a
 * feed (each feed's filtered-out view lists them), a favoured one's are marked. The spec's client record is untouched.
 */
function clientListRoutes(deps: Deps) {
  return new Elysia({ prefix: "/api/v1/client-lists" })
    .use(authContext)
    .use(routePolicy)
    .get("", ({ auth, query }) => listClientLists(deps, auth, query.list), {
      policy: { rateLimit: "default" },
      query: ClientListQuery,
      response: { 200: ClientLists, ...errorResponses(400, 401, 429, 500) },
      detail: {
        tags: listsTags,
        operationId: "listClientLists",
        summary: "(extension) The account's blocked and favoured clients",
        description:
          "Newest first; `list=blocked` or `list=favoured` keeps one list. addedBy is the id of the member who added the entry (null for an API key of no member).",
      },
    })
    .put("/:companyId", async ({ auth, params, body }) => ({ client: await putClientList(deps, auth, params.companyId, body) }), {
      policy: listsWrite,
      params: CompanyParams,
      body: PutClientListBody,
      response: { 200: ClientListEnvelope, ...errorResponses(400, 401, 403, 413, 415, 429, 500) },
      detail: {
        tags: listsTags,
        operationId: "putClientList",
        summary: "(extension) Block or favour a client",
        description:
          "An upsert: puts the client (the marketplace's company id, as in a job's `companyId`) on the blocked or the favoured list, moving it from the other one or changing the reason. " +
          "From then on the client's new jobs never enter a feed (blocked: recorded in the feed's filtered-out view) or are marked and may alert whatever their score (favoured). reason: at most 500 characters.",
      },
    })
    .delete("/:companyId", ({ auth, params }) => removeClientList(deps, auth, params.companyId), {
      policy: listsWrite,
      params: CompanyParams,
      response: { 200: ClientUnlisted, ...errorResponses(400, 401, 403, 404, 429, 500) },
      detail: {
        tags: listsTags,
        operationId: "deleteClientList",
        summary: "(extension) Take a client off the account's lists",
        description: "404 when the client is on neither list. Jobs already filtered out stay in the filtered-out views.",
      },
    });
}
