import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { errorResponses } from "../../http/schemas";
import { authContext } from "../accounts/auth-context";
import { ExpectedValueSchema, ValueParams, ValueQuery } from "./model";
import { expectedValueOf } from "./service";

/** A job's expected value against its Connects (extension). */
export function valueRoutes(deps: Deps) {
  return new Elysia()
    .use(authContext)
    .use(routePolicy)
    .get(
      "/api/v1/jobs/:ciphertext/value",
      ({ auth, params, query }) =>
        expectedValueOf(deps, auth, params.ciphertext, {
          field: "ciphertext",
          freelancerId: query.freelancerId,
          boostConnects: query.boostConnects,
        }),
      {
        policy: { rateLimit: "default" },
        params: ValueParams,
        query: ValueQuery,
        response: { 200: ExpectedValueSchema, ...errorResponses(400, 401, 404, 429, 500) },
        detail: {
          tags: ["Jobs"],
          operationId: "getJobExpectedValue",
          summary: "Expected value of applying: P(reply) × P(hire | reply) × the job's value, against its Connects",
          description:
            "Extension. The path names the job by its ciphertext or the UUID of the job's entry in one of your feeds (another account's entry is a 404). P(reply) and P(hire | reply) are your own sent proposals in the job's score band (of the named entry, else your best match of the job) blended with a market prior worth a fixed number of pseudo-proposals; freelancerId calibrates on that freelancer's proposals only. The value is the fixed budget, or apply's default hourly bid × an hours estimate from the job's duration and workload. The cost is the Connects the job states (else a default) plus boostConnects, at JOBPILOT_CONNECT_PRICE_USD. docs/expected-value.md gives the figures.",
        },
      },
    );
}
