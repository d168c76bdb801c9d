/**
 * Random assignment of jobs to an experiment's arms, made once per job and never changed. proposals (at a draft) and
 * applications (at apply, inside its transaction) call assignJob; the row it writes is what the analysis groups by.
 *
 * Reproducible: the draw u comes from a hash of the experiment's seed and the job's ciphertext, so the same
 * experiment, job and counts give the same arm; equal allocation ignores counts, so there it is a pure function of
 * (seed, job). Thompson allocation weighs the arms by the counts at assignment time. Either way the first stored
 * assignment wins (insert or nothing, then read back), so a retry, a restart or a concurrent draft cannot move a job.
 */
import type { Db } from "../../db/client";
import { AppError, notFound } from "../../errors";
import { BID_LIMITS } from "../../lib/bid-limits";
import type { Clock } from "../../lib/clock";
import { sha256Hex } from "../../lib/hash";
import { matchesOfJob } from "../feeds/repo";
import type { ExperimentOutcomes } from "./outcomes";
import { tally } from "./outcomes";
import * as repo from "./repo";
import { assignArm, thompsonWeights } from "./stats";

export interface AssignDeps {
  db: Db;
  clock: Clock;
  experimentOutcomes: ExperimentOutcomes;
}

export interface Assigned {
  experiment: repo.ExperimentWithArms;
  arm: repo.ArmRow;
  assignment: repo.AssignmentRow;
}

export interface AssignRequest {
  accountId: string;
  jobCiphertext: string;
  /** The experiment the caller named (404 when it is not the account's). */
  experimentId?: string;
  /** The feed the job is drafted or applied from (null: none): its running experiment, else one with no feed, takes the job when none is named. */
  feedId: string | null;
  /** The freelancer the application goes out as; null at a draft, where it is not known yet. */
  freelancerId: string | null;
}

/** u in [0, 1) from the experiment's seed and the job: 52 bits of SHA-256, exact in a double. */
export function drawFor(seed: string, jobCiphertext: string): number {
  return Number.parseInt(sha256Hex(`${seed}:${jobCiphertext}`).slice(0, 13), 16) / 2 ** 52;
}

async function weightsFor(deps: AssignDeps, db: Db, experiment: repo.ExperimentWithArms, jobCiphertext: string): Promise<Record<string, number>> {
  if (experiment.allocation === "equal") return Object.fromEntries(experiment.arms.map((a) => [a.id, 1 / experiment.arms.length]));
  const rows = await deps.experimentOutcomes.perArm(db, experiment.accountId, experiment.id);
  return thompsonWeights(tally(experiment.arms, rows, experiment.objective), `${experiment.seed}:${jobCiphertext}`);
}

function assignedOf(experiment: repo.ExperimentWithArms, assignment: repo.AssignmentRow): Assigned {
  const arm = experiment.arms.find((a) => a.id === assignment.armId);
  if (!arm) throw new Error(`assignment of ${assignment.jobCiphertext} names arm ${assignment.armId}, not one of experiment ${experiment.id}`);
  return { experiment, arm, assignment };
}

/**
 * The arm the job goes out under, assigning it now when it has none: the named experiment, else the job's assignment in
 * any running experiment of the account (a draft made under one), else the oldest running experiment attached to the
 * feed that takes this freelancer, else the oldest such one with no feed; null when none applies. Run it inside the transaction of the write it belongs to.
 */
export async function assignJob(deps: AssignDeps, db: Db, req: AssignRequest): Promise<Assigned | null> {
  let experiment: repo.ExperimentWithArms | undefined;
  if (req.experimentId !== undefined) {
    experiment = await repo.findExperiment(db, req.accountId, req.experimentId);
    if (!experiment) throw notFound("experimentId: experiment not found");
  } else {
    const earlier = await repo.runningAssignmentOfJob(db, req.accountId, req.jobCiphertext);
    if (earlier) {
      const of = await repo.findExperiment(db, req.accountId, earlier.experimentId);
      if (of) return assignedOf(of, earlier);
    }
    experiment = (await repo.runningExperimentsForFeed(db, req.accountId, req.feedId)).find((e) => repo.freelancerFits(e, req.freelancerId));
    if (!experiment) return null;
  }
  const existing = await repo.findAssignment(db, experiment.id, req.jobCiphertext);
  if (existing) return assignedOf(experiment, existing);
  if (experiment.state !== "running") throw new AppError("conflict", "experimentId: the experiment is stopped and assigns no new jobs");
  if (req.freelancerId !== null && !repo.freelancerFits(experiment, req.freelancerId)) {
    throw new AppError(
      "bad_request",
      `experimentId: the experiment is for freelancer ${experiment.freelancerId}; this application goes out as ${req.freelancerId}`,
    );
  }
  const weights = await weightsFor(deps, db, experiment, req.jobCiphertext);
  const armId = assignArm(experiment.arms, weights, drawFor(experiment.seed, req.jobCiphertext));
  await repo.insertAssignment(db, {
    experimentId: experiment.id,
    accountId: req.accountId,
    jobCiphertext: req.jobCiphertext,
    armId,
    assignedAtTs: deps.clock.now(),
    draftedLetter: null,
  });
  const stored = await repo.findAssignment(db, experiment.id, req.jobCiphertext);
  return assignedOf(experiment, stored!);
}

/**
 * The feed a draft is assigned by when the caller named none (the dashboard's job page): the feed entry it was opened
 * from, else the account's best-scoring match of the job (ties: the earliest matched) — the feed apply credits the
 * application to (applications/service.ts feedOfApplication), so a draft and its apply meet the same experiment.
 */
export async function feedOfDraft(db: Db, accountId: string, jobCiphertext: string, entryId: string | null): Promise<string | null> {
  const matches = await matchesOfJob(db, accountId, jobCiphertext);
  const named = entryId === null ? undefined : matches.find((m) => m.id === entryId);
  if (named) return named.feedId;
  let best: (typeof matches)[number] | undefined;
  // matchesOfJob lists by match time, so a strictly higher score is the only reason to move on.
  for (const m of matches) if (best === undefined || m.matchingScore > best.matchingScore) best = m;
  return best?.feedId ?? null;
}

/** Keeps the letter drafted under an assignment (apply compares the sent one with it). */
export const noteDraftedLetter = (db: Db, a: Assigned, letter: string) => repo.setDraftedLetter(db, a.experiment.id, a.assignment.jobCiphertext, letter);

const clamp = (x: number, lim: { minimum: number; maximum: number }) => Math.min(lim.maximum, Math.max(lim.minimum, x));
const cents = (x: number) => Math.round(x * 100) / 100;

/**
 * The bid an arm sends: its fixed rate for the job's kind when it sets one, else its multiplier of the bid that would
 * otherwise go out, kept within the marketplace's bid bounds (a multiplier can push a bid past them, which could never
 * be sent); else the bid unchanged.
 */
export function armBid(arm: repo.ArmRow, bid: { hourlyRate: number | null; fixedBid: number | null }): { hourlyRate: number | null; fixedBid: number | null } {
  if (bid.hourlyRate !== null) {
    const rate = arm.hourlyRate ?? (arm.bidMultiplier !== null ? clamp(cents(bid.hourlyRate * arm.bidMultiplier), BID_LIMITS.hourlyRate) : bid.hourlyRate);
    return { hourlyRate: rate, fixedBid: null };
  }
  if (bid.fixedBid === null) return bid;
  const fixed = arm.fixedBid ?? (arm.bidMultiplier !== null ? clamp(cents(bid.fixedBid * arm.bidMultiplier), BID_LIMITS.fixedBid) : bid.fixedBid);
  return { hourlyRate: null, fixedBid: fixed };
}

/** Whether the arm varies the letter: then a proposal sent without a letter drafted under it did not test the arm. */
export const armVariesLetter = (arm: repo.ArmRow) => arm.prompt !== null || arm.template !== null;

/** The arm's template with the job's title and skills and the freelancer's name filled in. */
export function fillTemplate(template: string, values: { title: string; skills: readonly string[]; name: string | null }): string {
  return template
    .replaceAll("{{title}}", values.title)
    .replaceAll("{{skills}}", values.skills.join(", "))
    .replaceAll("{{name}}", values.name ?? "");
}
