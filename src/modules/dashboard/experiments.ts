import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { CreateExperimentBody } from "../experiments/model";
import * as experiments from "../experiments/service";
import { listFeeds } from "../feeds/service";
import {
  ARM_PARTS,
  armId,
  EXPERIMENTS,
  experimentDetailPage,
  experimentFormErrors,
  experimentFormPage,
  experimentListPage,
  MAX_ARMS,
  type ExperimentFormValues,
} from "./experiments-views";
import { freelancerChoices } from "./freelancers";
import { dashboardGuard, errorAsPage, errorDetails, formValues, HIDDEN, numberOrText, page, redirect, schemaErrors, type ResponseState, needs } from "./http";
import type { DashboardSession } from "./model";
import { sessionAuth } from "./service";
import * as views from "./views";

/**
 * The dashboard's Experiments pages: list, create, results, stop and "use the winner". Every read and write goes
 * through the experiments service with the session's AuthContext, so the API's rules (and its 404 for another
 * account's experiment) apply; the form is checked against the API's body schema first, as the API route does.
 */

/** The form's strings → the API's body. Arms C and D count only when something was typed into them. */
export function toBody(v: ExperimentFormValues): Record<string, unknown> {
  const text = (name: string) => (v[name] ?? "").trim();
  const arms: Record<string, unknown>[] = [];
  for (let i = 0; i < MAX_ARMS; i++) {
    const filled = ARM_PARTS.some((p) => text(armId(i, p)) !== "");
    if (i >= 2 && !filled) continue;
    const arm: Record<string, unknown> = { name: text(armId(i, "Name")) };
    // The letter style and the fixed letter keep their line breaks; only a blank one is "not set".
    for (const [part, key] of [
      ["Prompt", "prompt"],
      ["Template", "template"],
    ] as const) {
      if (text(armId(i, part)) !== "") arm[key] = v[armId(i, part)];
    }
    for (const [part, key] of [
      ["BidMultiplier", "bidMultiplier"],
      ["HourlyRate", "hourlyRate"],
      ["FixedBid", "fixedBid"],
      ["BoostBids", "boostBids"],
      ["SendDelayMinutes", "sendDelayMinutes"],
    ] as const) {
      if (text(armId(i, part)) !== "") arm[key] = numberOrText(text(armId(i, part)));
    }
    arms.push(arm);
  }
  const body: Record<string, unknown> = { name: text("name"), arms };
  for (const key of ["feedId", "freelancerId", "objective", "allocation"] as const) if (text(key) !== "") body[key] = text(key);
  return body;
}

/** promoteWinner's refusals (written for the API, naming its fields) in the page's words. */
function promoteRefusal(message: string): string {
  if (message.includes("not attached to a feed")) return "This experiment has no feed to give the winner to.";
  if (message.includes("no winner yet")) return "There is no winner yet: the decision on the experiment's page says how far it is.";
  if (message.includes("has no prompt")) return "The winner has no letter style of its own to copy to the feed.";
  return message.replace(/\bproposalGenerationPrompt\b/g, "the feed's letter prompt");
}

/** A refusal the form shows next to its field: bad input, or a feed or freelancer that is not (or no longer) the account's. */
function isFormError(err: unknown): err is AppError {
  return err instanceof AppError && (err.code === "bad_request" || (err.code === "not_found" && /^(feedId|freelancerId)\b/.test(err.message)));
}

export function dashboardExperimentRoutes(deps: Deps) {
  const { open } = dashboardGuard(deps);
  const feedChoices = async (session: DashboardSession) =>
    (await listFeeds(deps, await sessionAuth(deps, session))).map((f) => ({ id: f.id, title: f.title ?? f.id, prompt: f.proposalGenerationPrompt ?? null }));

  async function run(request: Request, set: ResponseState, body: unknown, fn: (session: DashboardSession) => string | Promise<string>): Promise<string> {
    const session = await open(request, set, body);
    if (typeof session === "string") return session;
    try {
      return await fn(session);
    } catch (err) {
      return errorAsPage(err, set, session, "Cannot do that", () => "This account has no such experiment.");
    }
  }

  async function detail(set: ResponseState, session: DashboardSession, id: string, promoted: boolean): Promise<string> {
    const r = await experiments.experimentResults(deps, await sessionAuth(deps, session), id);
    const feedId = r.experiment.feedId;
    const feedTitle = feedId === null ? null : ((await feedChoices(session)).find((f) => f.id === feedId)?.title ?? null);
    const freelancerId = r.experiment.freelancerId;
    const freelancerName =
      freelancerId === null ? null : ((await freelancerChoices(deps, session, "experiment form")).find((f) => f.id === freelancerId)?.name ?? null);
    return page(set, experimentDetailPage(session, r, { feedTitle, freelancerName, promoted }));
  }

  return new Elysia({ name: "dashboard-experiments" })
    .get(
      EXPERIMENTS,
      ({ request, set }) =>
        run(request, set, undefined, async (session) => {
          const auth = await sessionAuth(deps, session);
          const list = await experiments.listExperiments(deps, auth);
          const results = await Promise.all(list.map((e) => experiments.experimentResults(deps, auth, e.id)));
          const feeds = new Map((await feedChoices(session)).map((f) => [f.id, f.title]));
          return page(set, experimentListPage(session, results, feeds));
        }),
      HIDDEN,
    )
    .get(
      `${EXPERIMENTS}/new`,
      ({ request, set, query }) =>
        run(request, set, undefined, async (session) => {
          const feeds = await feedChoices(session);
          // From a feed's "Test a second letter style": that feed chosen, its letter prompt as the control's.
          const feed = feeds.find((f) => f.id === query.feed);
          const values: ExperimentFormValues = {
            name: feed ? `Second letter style for ${feed.title}` : "",
            feedId: feed?.id,
            objective: "replies",
            allocation: "equal",
            [armId(0, "Name")]: "Current letter",
            [armId(0, "Prompt")]: feed?.prompt ?? "",
            [armId(1, "Name")]: "New letter",
          };
          return page(set, experimentFormPage(session, { values, feeds, freelancers: await freelancerChoices(deps, session, "experiment form") }));
        }),
      needs("feeds"),
    )
    .post(
      EXPERIMENTS,
      ({ request, set, body }) =>
        run(request, set, body, async (session) => {
          const values = formValues(body);
          const json = toBody(values);
          const feeds = await feedChoices(session);
          const refusedWith = async (details: string[]) =>
            page(
              set,
              experimentFormPage(session, {
                values,
                feeds,
                freelancers: await freelancerChoices(deps, session, "experiment form"),
                errors: experimentFormErrors(details),
              }),
              400,
            );
          const invalid = schemaErrors(CreateExperimentBody, json);
          if (invalid.length) return refusedWith(invalid);
          try {
            const created = await experiments.createExperiment(deps, await sessionAuth(deps, session), json as CreateExperimentBody);
            return redirect(set, `${EXPERIMENTS}/${created.id}`);
          } catch (err) {
            if (isFormError(err)) return refusedWith(errorDetails(err));
            throw err;
          }
        }),
      needs("feeds"),
    )
    .get(
      `${EXPERIMENTS}/:id`,
      ({ request, set, params, query }) => run(request, set, undefined, (session) => detail(set, session, params.id, query.promoted === "1")),
      HIDDEN,
    )
    .post(
      `${EXPERIMENTS}/:id/stop`,
      ({ request, set, body, params }) =>
        run(request, set, body, async (session) => {
          const stopped = await experiments.stopExperiment(deps, await sessionAuth(deps, session), params.id);
          return redirect(set, `${EXPERIMENTS}/${stopped.id}`);
        }),
      needs("feeds"),
    )
    .post(
      `${EXPERIMENTS}/:id/promote`,
      ({ request, set, body, params }) =>
        run(request, set, body, async (session) => {
          try {
            await experiments.promoteWinner(deps, await sessionAuth(deps, session), params.id);
          } catch (err) {
            if (!(err instanceof AppError) || err.code !== "bad_request") throw err;
            return page(set, views.errorPage("Cannot use the winner", promoteRefusal(err.message), session), 400);
          }
          return redirect(set, `${EXPERIMENTS}/${encodeURIComponent(params.id)}?promoted=1`);
        }),
      needs("feeds"),
    );
}
