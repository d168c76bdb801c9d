/**
 * Experiments: create, list, read the results of and stop an account's randomized tests (the API and the dashboard's
 * Experiments page call these). Assignment lives in assign.ts, the statistics in stats.ts, the outcome counts come
 * through the outcomes.ts port.
 */
import { tx } from "../../db/client";
import { AppError, notFound } from "../../errors";
import { newId, randomToken } from "../../lib/ids";
import { listFreelancers } from "../../marketplace/driver";
import type { DriverDeps } from "../../marketplace/drivers";
import { wilson } from "../../lib/wilson";
import { driverFor } from "../accounts/drivers";
import type { AuthContext } from "../accounts/service";
import { findFeed } from "../feeds/repo";
import { type FeedsDeps, patchFeed } from "../feeds/service";
import { type AssignDeps, feedOfDraft } from "./assign";
import type { ArmResult, CreateExperimentBody, Experiment, ExperimentResults } from "./model";
import { tally } from "./outcomes";
import * as repo from "./repo";
import { decide } from "./stats";

export type ExperimentsDeps = AssignDeps & DriverDeps;

function view(e: repo.ExperimentWithArms): Experiment {
  return {
    id: e.id,
    name: e.name,
    feedId: e.feedId,
    freelancerId: e.freelancerId,
    objective: e.objective,
    allocation: e.allocation,
    state: e.state,
    createdAt: e.createdAtTs,
    updatedAt: e.updatedAtTs,
    stoppedAt: e.stoppedAtTs,
    arms: e.arms.map((a) => ({
      id: a.id,
      position: a.position,
      name: a.name,
      prompt: a.prompt,
      template: a.template,
      bidMultiplier: a.bidMultiplier,
      hourlyRate: a.hourlyRate,
      fixedBid: a.fixedBid,
      boostBids: a.boostBids,
      sendDelayMinutes: a.sendDelayMinutes,
    })),
  };
}

/** The rules the schema cannot state, each naming its field; nothing is written when one fails. */
function checkArms(arms: CreateExperimentBody["arms"]): void {
  const seen = new Map<string, number>();
  arms.forEach((arm, i) => {
    const key = arm.name.trim().toLowerCase();
    if (key === "") throw new AppError("bad_request", `arms[${i}].name must not be blank`);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw new AppError("bad_request", `arms[${i}].name repeats the name of arms[${earlier}] (${arm.name.trim()})`);
    seen.set(key, i);
    // A multiplier of the bid and a fixed rate would say two things about one bid.
    if (arm.bidMultiplier !== undefined && (arm.hourlyRate !== undefined || arm.fixedBid !== undefined)) {
      throw new AppError(
        "bad_request",
        `arms[${i}].bidMultiplier cannot be combined with hourlyRate or fixedBid: an arm's bid is either a multiple or a fixed rate`,
      );
    }
    if (arm.prompt !== undefined && arm.template !== undefined) {
      throw new AppError("bad_request", `arms[${i}].template cannot be combined with prompt: a template is the letter itself, a prompt instructs the writer`);
    }
  });
}

/** POST /api/v1/experiments. A feed or freelancer that is not the account's is a 404, as for every other reference. */
export async function createExperiment(deps: ExperimentsDeps, auth: AuthContext, body: CreateExperimentBody): Promise<Experiment> {
  const name = body.name.trim();
  if (name === "") throw new AppError("bad_request", "name must not be blank");
  checkArms(body.arms);
  if (body.feedId !== undefined && !(await findFeed(deps.db, auth.accountId, body.feedId))) throw notFound("feedId: feed not found");
  if (body.freelancerId !== undefined) {
    const freelancers = await listFreelancers(await driverFor(deps, auth.accountId), auth.accountId);
    if (!freelancers.some((f) => f.id === body.freelancerId))
      throw notFound("freelancerId: freelancer not found (GET /api/auto-apply-v2/freelancers lists them)");
  }
  const now = deps.clock.now();
  const id = newId();
  const row: repo.ExperimentRow = {
    id,
    accountId: auth.accountId,
    name,
    feedId: body.feedId ?? null,
    freelancerId: body.freelancerId ?? null,
    objective: body.objective ?? "replies",
    allocation: body.allocation ?? "equal",
    seed: randomToken(),
    state: "running",
    createdAtTs: now,
    updatedAtTs: now,
    stoppedAtTs: null,
  };
  const arms: repo.ArmRow[] = body.arms.map((a, position) => ({
    id: newId(),
    experimentId: id,
    position,
    name: a.name.trim(),
    prompt: a.prompt ?? null,
    template: a.template ?? null,
    bidMultiplier: a.bidMultiplier ?? null,
    hourlyRate: a.hourlyRate ?? null,
    fixedBid: a.fixedBid ?? null,
    boostBids: a.boostBids ?? null,
    sendDelayMinutes: a.sendDelayMinutes ?? null,
  }));
  await tx(deps.db, (db) => repo.insertExperiment(db, row, arms));
  return view({ ...row, arms });
}

export async function listExperiments(deps: Pick<ExperimentsDeps, "db">, auth: AuthContext): Promise<Experiment[]> {
  return (await repo.listExperiments(deps.db, auth.accountId)).map(view);
}

export async function getExperiment(deps: Pick<ExperimentsDeps, "db">, auth: AuthContext, id: string): Promise<Experiment> {
  const e = await repo.findExperiment(deps.db, auth.accountId, id);
  if (!e) throw notFound("Experiment not found");
  return view(e);
}

/**
 * GET /api/v1/experiments/{id}: per arm the proposals sent under it and their successes for the objective (read from
 * the outcome ledger: a later stage implies the earlier, as in analytics), the rate with its Wilson 95 % interval, the
 * lift against the control (the first arm) and the decision of stats.decide, which stays valid however often it is read.
 */
export async function experimentResults(deps: Pick<ExperimentsDeps, "db" | "experimentOutcomes">, auth: AuthContext, id: string): Promise<ExperimentResults> {
  const e = await repo.findExperiment(deps.db, auth.accountId, id);
  if (!e) throw notFound("Experiment not found");
  const [rows, assigned] = await Promise.all([deps.experimentOutcomes.perArm(deps.db, auth.accountId, e.id), repo.assignedPerArm(deps.db, e.id)]);
  const tallies = tally(e.arms, rows, e.objective);
  const controlId = e.arms[0]!.id;
  const decision = decide(tallies, { controlId, stopped: e.state === "stopped" });
  const base = view(e);
  const arms: ArmResult[] = base.arms.map((arm, i) => {
    const t = tallies[i]!;
    const lift = decision.lift[arm.id];
    return {
      ...arm,
      assigned: assigned.get(arm.id) ?? 0,
      sent: t.sent,
      trials: t.n,
      successes: t.successes,
      rate: t.n === 0 ? null : t.successes / t.n,
      ci95: wilson(t.successes, t.n),
      excludedEdited: t.excludedEdited,
      probabilityBest: decision.probabilityBest[arm.id] ?? null,
      lift: arm.id === controlId || !lift ? null : lift,
    };
  });
  return { experiment: { ...base, arms }, decision: decision.decision, reason: decision.reason };
}

/** POST /api/v1/experiments/{id}/stop: no new jobs are assigned; what was assigned keeps counting. Stopping twice is fine. */
export async function stopExperiment(deps: Pick<ExperimentsDeps, "db" | "clock">, auth: AuthContext, id: string): Promise<Experiment> {
  return tx(deps.db, async (db) => {
    const e = await repo.findExperiment(db, auth.accountId, id);
    if (!e) throw notFound("Experiment not found");
    await repo.stopExperiment(db, auth.accountId, id, deps.clock.now());
    return view((await repo.findExperiment(db, auth.accountId, id))!);
  });
}

/**
 * Makes an arm's prompt the feed's proposalGenerationPrompt (the dashboard's "promote the winner"), through the feeds
 * service so its own checks (the prompt ceiling) apply. The arm defaults to the decided winner; an experiment without a
 * feed, or an arm without a prompt, is a 400.
 */
export async function promoteWinner(
  deps: ExperimentsDeps & FeedsDeps,
  auth: AuthContext,
  id: string,
  armId?: string,
): Promise<{ feedId: string; armId: string }> {
  const results = await experimentResults(deps, auth, id);
  const e = results.experiment;
  if (e.feedId === null) throw new AppError("bad_request", "The experiment is not attached to a feed: there is no feed default to promote to");
  const chosen = armId ?? (results.decision.startsWith("winner:") ? results.decision.slice("winner:".length) : undefined);
  if (chosen === undefined) throw new AppError("bad_request", "armId: the experiment has no winner yet; name the arm to promote");
  const arm = e.arms.find((a) => a.id === chosen);
  if (!arm) throw notFound("armId: arm not found in this experiment");
  if (arm.prompt === null) throw new AppError("bad_request", `armId: arm ${arm.name} has no prompt to promote`);
  await patchFeed(deps, auth, e.feedId, { proposalGenerationPrompt: arm.prompt });
  return { feedId: e.feedId, armId: arm.id };
}

/** An experiment and one of its arms, by name: what a screen says a job or an application is in. */
export interface ArmInExperiment {
  id: string;
  name: string;
  armId: string;
  armName: string;
}

/** What the dashboard's job page offers and says about experiments for one job (jobExperimentChoices). */
export interface JobExperimentChoices {
  /** The account's running experiments, oldest first: the ones a draft or apply may name. */
  running: { id: string; name: string }[];
  /** The job's arm in a running experiment, when it has one: it keeps it, so there is nothing to choose. */
  assigned: ArmInExperiment | null;
  /** The experiment a draft naming none would put the job in (docs/experiments.md "How proposals are assigned"), if any. */
  automatic: { id: string; name: string; ofFeed: boolean } | null;
  /** Whether an experiment limited to one freelancer could still take the job when the application goes out as them. */
  freelancerLimited: boolean;
}

/**
 * For the job page's experiment picker: the running experiments, the job's current assignment, and which one
 * "Automatic" would mean for a draft — the same rules assignJob follows (feedOfDraft's feed, then the experiments
 * taking jobs from it, with no freelancer known yet), read without assigning anything. With no running experiment
 * it stops after one query, so a page without experiments pays nothing more.
 */
export async function jobExperimentChoices(deps: Pick<ExperimentsDeps, "db">, auth: AuthContext, jobCiphertext: string): Promise<JobExperimentChoices> {
  const running = (await repo.listExperiments(deps.db, auth.accountId)).filter((e) => e.state === "running").reverse();
  const none: JobExperimentChoices = { running: [], assigned: null, automatic: null, freelancerLimited: false };
  if (running.length === 0) return none;
  const names = running.map((e) => ({ id: e.id, name: e.name }));
  const earlier = await repo.runningAssignmentOfJob(deps.db, auth.accountId, jobCiphertext);
  const of = earlier && running.find((e) => e.id === earlier.experimentId);
  const arm = of?.arms.find((a) => a.id === earlier!.armId);
  if (of && arm) return { ...none, running: names, assigned: { id: of.id, name: of.name, armId: arm.id, armName: arm.name } };
  const feedId = await feedOfDraft(deps.db, auth.accountId, jobCiphertext, null);
  const candidates = await repo.runningExperimentsForFeed(deps.db, auth.accountId, feedId);
  const automatic = candidates.find((e) => repo.freelancerFits(e, null));
  return {
    running: names,
    assigned: null,
    automatic: automatic ? { id: automatic.id, name: automatic.name, ofFeed: automatic.feedId !== null } : null,
    freelancerLimited: !automatic && candidates.some((e) => e.freelancerId !== null),
  };
}

/** The experiment and arm an application went out under, by name (null when either is gone); another account's is null. */
export async function armInExperiment(
  deps: Pick<ExperimentsDeps, "db">,
  auth: AuthContext,
  experimentId: string,
  armId: string,
): Promise<ArmInExperiment | null> {
  const e = await repo.findExperiment(deps.db, auth.accountId, experimentId);
  const arm = e?.arms.find((a) => a.id === armId);
  return e && arm ? { id: e.id, name: e.name, armId: arm.id, armName: arm.name } : null;
}
