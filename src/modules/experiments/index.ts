import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy, type RoutePolicy } from "../../http/route-policy";
import { errorResponses } from "../../http/schemas";
import { authContext } from "../accounts/auth-context";
import { CreateExperimentBody, ExperimentEnvelope, ExperimentList, ExperimentParams, ExperimentResults } from "./model";
import * as experiments from "./service";

const tags = ["Experiments"];
const policy: RoutePolicy = { rateLimit: "default" };
/** Starting and stopping an experiment changes what the account's feeds send: the `feeds` permission. */
const manage: RoutePolicy = { ...policy, permission: "feeds" };

/** Randomized tests of letters, bids, boosts and send delays on the account's own proposals (extension; docs/experiments.md). */
export function experimentsRoutes(deps: Deps) {
  return new Elysia({ prefix: "/api/v1/experiments" })
    .use(authContext)
    .use(routePolicy)
    .post(
      "",
      async ({ auth, body, set }) => {
        const experiment = await experiments.createExperiment(deps, auth, body);
        set.status = 201;
        return { experiment };
      },
      {
        policy: manage,
        body: CreateExperimentBody,
        response: { 201: ExperimentEnvelope, ...errorResponses(400, 401, 404, 413, 415, 429, 500, 503) },
        detail: {
          tags,
          operationId: "createExperiment",
          summary: "Start an experiment: 2–4 arms compared on one objective",
          description:
            "The first arm is the control. Each arm may set a prompt or a template (the letter), a bid (bidMultiplier of the bid that would otherwise go out, or a fixed hourlyRate / fixedBid, within apply's bid bounds), boostBids (0 = a holdout) and sendDelayMinutes. Arm names are unique. A feedId or freelancerId not of this account is a 404. With a feedId, jobs drafted or applied to from that feed are assigned without naming the experiment; otherwise pass experimentId to generate-proposal or apply.",
        },
      },
    )
    .get("", async ({ auth }) => ({ experiments: await experiments.listExperiments(deps, auth) }), {
      policy,
      response: { 200: ExperimentList, ...errorResponses(401, 429, 500) },
      detail: {
        tags,
        operationId: "listExperiments",
        summary: "The account's experiments, newest first",
        description: "Each with its arms and state; GET /api/v1/experiments/{id} gives the counts and the decision. Only the caller's own experiments.",
      },
    })
    .get("/:id", ({ auth, params }) => experiments.experimentResults(deps, auth, params.id), {
      policy,
      params: ExperimentParams,
      response: { 200: ExperimentResults, ...errorResponses(401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "getExperiment",
        summary: "An experiment's results per arm and its decision",
        description:
          "Per arm: jobs assigned, proposals sent (hand-edited letters left out and counted in excludedEdited), successes for the objective from the outcome ledger, the rate with a Wilson 95 % interval, the lift against the control with its interval and always-valid interval. decision is running, winner:<armId>, no_difference or stopped, from a test that stays valid however often it is read (docs/experiments.md).",
      },
    })
    .post("/:id/stop", async ({ auth, params }) => ({ experiment: await experiments.stopExperiment(deps, auth, params.id) }), {
      policy: manage,
      params: ExperimentParams,
      response: { 200: ExperimentEnvelope, ...errorResponses(401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "stopExperiment",
        summary: "Stop an experiment",
        description:
          "No new jobs are assigned; proposals already assigned keep counting and the results stay readable. Stopping a stopped experiment changes nothing.",
      },
    });
}
