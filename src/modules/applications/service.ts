import type { AutomationUsage } from "../automation/usage";
import type { ApplicationOrigin } from "../../db/enums";
import type { AiClient } from "../../ai/client";
import type { LocalAi } from "../../ai/local-ai";
import type { Db } from "../../db/client";
import { tx } from "../../db/client";
import { isUniqueViolation } from "../../db/query";
import { AppError, notFound } from "../../errors";
import type { Metrics } from "../../metrics";
import type { Clock } from "../../lib/clock";
import { isUuid, newId } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import { type Freelancer, listFreelancers, type MarketplaceDriver } from "../../marketplace/driver";
import { enqueueTask } from "../../worker/tasks";
import { driverNamed, primaryProfile } from "../../marketplace/drivers";
import { driverFor, driverForJob } from "../accounts/drivers";
import { availableCredits, holdCredit } from "../accounts/repo";
import type { AuthContext } from "../accounts/service";
import { queueHeldEvents } from "../feeds/admit";
import { matchesOfJob } from "../feeds/repo";
import { resolveJobRef } from "../feeds/service";
import type { NormalizedJob } from "../jobs/normalize";
import { normalizeJob } from "../jobs/normalize";
import { findJob } from "../jobs/repo";
import type { SettledTask } from "../../db/schema/applications";
import { type OutcomeCheck, TIMELINES, type Timeline } from "./model";
import * as repo from "./repo";
import { assertFilledIn } from "./fill-in";
import { ensureTracked } from "../jobs/tracking";
import { armBid, armVariesLetter, assignJob } from "../experiments/assign";
import type { AssignedArm } from "../experiments/model";
import type { ExperimentOutcomes } from "../experiments/outcomes";
import { isEditedByHand } from "../../lib/text-similarity";
import { assertUnclaimed, type ClaimView, claim, memberNames, release, releaseJob } from "../members/claims";

export interface ApplicationsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  ai: AiClient;
  localAi: LocalAi;
  config: { marketplaceDriver?: string; proposalModel: string; aiTimeoutMs: number; loggedOutWindowMs: number; governor: boolean };
  drivers: Record<string, MarketplaceDriver>;
  wake: () => void;
  metrics: Metrics;
  experimentOutcomes: ExperimentOutcomes;
  automationUsage: AutomationUsage;
}

export const SUBMIT_TASK = "apply.submit";

export interface ApplyInput {
  jobId: string;
  coverLetter: string;
  profileId?: string;
  autoFillOtherQuestions?: boolean;
  questionAnswers?: { position: number; answer: string }[];
  proposal?: { hourlyRate?: number; fixedBid?: number; timeline?: Timeline; boostBids?: number };
  /** Extension: apply under this experiment's arm for the job (assigned now if the job has none); see docs/experiments.md. */
  experimentId?: string;
}

/** What only in-process callers may ask of apply (never read from a request body). */
export interface ApplyOptions {
  /**
   * A task to enqueue when the application reaches its final status (its payload gets `applicationId`):
   * how a caller upstream of the worker (the Telegram bot) hears of the outcome, durably.
   */
  onSettled?: SettledTask;
  /** Who asks: a person (the default), or a feed's draft or auto mode (modules/autopilot). */
  origin?: ApplicationOrigin;
  /**
   * Queued held for a person's review (draft mode, or `approval`: a member without the send permission asks an
   * approver): nothing is submitted until it is approved.
   */
  heldReason?: string;
}

/** held_reason of a member's draft waiting for an approver, and of one the approver sent back with a comment. */
export const APPROVAL = "approval";
export const RETURNED = "returned";

const APPLY_MESSAGE = "Application queued. One credit is deducted only when the application succeeds; failed applications cost nothing.";

export { driverFor };

/**
 * The driver an application was queued with (recorded on it by apply): its submission, its lookup after a crash
 * and its engagement all go there, even after the account switches drivers.
 */
export const driverOfApplication = (deps: Pick<ApplicationsDeps, "drivers">, app: Pick<repo.ApplicationRow, "driver">) => driverNamed(deps, app.driver);

/** The spec's timeline default: inferred from the posting's engagement duration. */
function inferTimeline(job: Pick<NormalizedJob, "engagementLabel" | "engagementWeeks">): Timeline {
  const label = TIMELINES.find((t) => t.toLowerCase() === job.engagementLabel?.trim().toLowerCase());
  if (label) return label;
  const weeks = job.engagementWeeks;
  if (weeks === null) return "1 to 3 months";
  if (weeks < 4) return "Less than 1 month";
  if (weeks <= 13) return "1 to 3 months";
  if (weeks <= 26) return "3 to 6 months";
  return "More than 6 months";
}

/** The spec's bid defaults: fixed → the client's budget, else 100 USD; hourly → the low end of the range, else 30 USD/h. */
export function defaultBid(job: Pick<NormalizedJob, "jobType" | "fixedBudget" | "hourlyMin" | "hourlyMax">, proposal: ApplyInput["proposal"] = {}) {
  const isHourly = job.jobType === "HOURLY" || (job.jobType === null && (job.hourlyMin !== null || job.hourlyMax !== null));
  if (isHourly) return { hourlyRate: proposal.hourlyRate ?? (job.hourlyMin && job.hourlyMin > 0 ? job.hourlyMin : 30), fixedBid: null };
  return { hourlyRate: null, fixedBid: proposal.fixedBid ?? (job.fixedBudget && job.fixedBudget > 0 ? job.fixedBudget : 100) };
}

/**
 * The bid relative to what the client posted: for an hourly job the hourly rate ÷ the budget's top (or its only
 * figure), for a fixed one the fixed bid ÷ the budget. Null when either side is unknown or zero, so analytics puts
 * it under "unknown" rather than dividing by nothing.
 */
export function bidRatioOf(
  job: Pick<NormalizedJob, "hourlyMin" | "hourlyMax" | "fixedBudget">,
  bid: { hourlyRate: number | null; fixedBid: number | null },
): number | null {
  const ratio = (mine: number | null, theirs: number | null) => (mine !== null && mine > 0 && theirs !== null && theirs > 0 ? mine / theirs : null);
  if (bid.hourlyRate !== null) return ratio(bid.hourlyRate, job.hourlyMax ?? job.hourlyMin);
  return ratio(bid.fixedBid, job.fixedBudget);
}

/**
 * The feed an application is credited to, read inside apply's transaction: the entry the caller applied from
 * when it named one (a Telegram alert, a feed's inbox: jobId is the entry's id), else the account's
 * best-scoring match of the job (ties: the earliest matched), else none. Kept on the row because feeds and their
 * entries may be pruned or deleted later, and analytics must still say where the proposal came from.
 */
async function feedOfApplication(
  db: Db,
  accountId: string,
  jobCiphertext: string,
  appliedFrom: string | null,
): Promise<{ feedId: string | null; score: number | null }> {
  const matches = await matchesOfJob(db, accountId, jobCiphertext);
  const named = appliedFrom === null ? undefined : matches.find((m) => m.id === appliedFrom);
  // Highest score; of equal scores the earliest match (then the entry id, so the choice never depends on row order).
  const better = (m: (typeof matches)[number], top: (typeof matches)[number]) =>
    m.matchingScore !== top.matchingScore
      ? m.matchingScore > top.matchingScore
      : m.matchedAtTs !== top.matchedAtTs
        ? m.matchedAtTs < top.matchedAtTs
        : m.id < top.id;
  const best = named ?? matches.reduce<(typeof matches)[number] | undefined>((top, m) => (top === undefined || better(m, top) ? m : top), undefined);
  return best ? { feedId: best.feedId, score: best.matchingScore } : { feedId: null, score: null };
}

/** Each answer once, and only to one of the job's screening questions (when the job lists them): 400 naming the entry. */
export function checkAnswers(job: NormalizedJob, answers: { position: number; answer: string }[]): void {
  const positions = new Set(job.screeningQuestions.map((q) => q.position));
  const seen = new Set<number>();
  answers.forEach((a, i) => {
    if (seen.has(a.position)) throw new AppError("bad_request", `questionAnswers[${i}].position repeats position ${a.position}`);
    seen.add(a.position);
    if (positions.size > 0 && !positions.has(a.position)) {
      throw new AppError(
        "bad_request",
        `questionAnswers[${i}].position ${a.position} is not a screening question of this job (positions: ${[...positions].join(", ")})`,
      );
    }
  });
}

async function pickProfile(driver: MarketplaceDriver, accountId: string, profileId: string | undefined): Promise<{ freelancerId: string; profileId: string }> {
  const freelancers: Freelancer[] = await listFreelancers(driver, accountId);
  if (profileId === undefined) {
    const primary = primaryProfile(freelancers);
    if (!primary) throw new AppError("bad_request", "This account has no freelancer profile to apply with: the marketplace lists none for it");
    return { freelancerId: primary.freelancer.id, profileId: primary.profile.profileId };
  }
  for (const f of freelancers) {
    if (f.profiles.some((p) => p.profileId === profileId)) return { freelancerId: f.id, profileId };
  }
  throw new AppError("bad_request", "profileId is not one of this account's profiles (the freelancers list names them)");
}

/**
 * Queues a proposal. Everything the caller sent is checked first (400/404),
 * then one IMMEDIATE transaction refuses a second live application for the job
 * (409), holds a credit (402 when none is free) and writes the application and
 * its submit task; the worker is woken after the commit.
 */
export async function apply(
  deps: ApplicationsDeps,
  auth: AuthContext,
  input: ApplyInput,
  options: ApplyOptions = {},
): Promise<{ success: true; queueId: string; creditsRemaining: number; message: string; experiment?: AssignedArm }> {
  const resolved = await resolveJobRef(deps, auth, input.jobId);
  const job = resolved.job;
  if (job.platform === "web") {
    throw new AppError("bad_request", `jobId refers to a job from a public job board; apply on its own site: ${job.url}`);
  }
  const answers = input.questionAnswers ?? [];
  checkAnswers(job, answers);
  // What a person sends goes out as they sent it: a "[your …]" slot left in would reach the client.
  assertFilledIn(input.coverLetter, answers);
  // The job's own marketplace decides: the account's driver may be one that cannot reach it (see driverForJob).
  const driver = await driverForJob(deps, auth.accountId, resolved.row);
  const profile = await pickProfile(driver, auth.accountId, input.profileId);
  const bid = defaultBid(job, input.proposal);
  const now = deps.clock.now();
  const id = newId();
  let experiment: AssignedArm | undefined;
  const remaining = await tx(
    deps.db,
    async (db) => {
      const live = await repo.liveApplication(db, auth.accountId, job.ciphertext);
      if (live) throw await alreadyApplied(db, live);
      // Another member drafting this job holds it (members/claims.ts): checked here, in the transaction of the insert.
      await assertUnclaimed(db, auth, job.ciphertext, now);
      const available = await holdCredit(db, auth.accountId);
      if (available === null) {
        throw new AppError("payment_required", "Insufficient auto-apply credits", {
          creditsRemaining: await availableCredits(db, auth.accountId),
          needsCredits: true,
        });
      }
      const credited = await feedOfApplication(db, auth.accountId, job.ciphertext, isUuid(input.jobId.trim()) ? resolved.processedJobId : null);
      // The experiment arm, assigned in this transaction when the job has none yet (no draft was made under one), so
      // the arm stored with the application is the arm it was sent with, whatever happens to the process afterwards.
      const assigned = await assignJob(deps, db, {
        accountId: auth.accountId,
        jobCiphertext: job.ciphertext,
        experimentId: input.experimentId,
        feedId: credited.feedId,
        freelancerId: profile.freelancerId,
      });
      const arm = assigned?.arm ?? null;
      const sentBid = arm ? armBid(arm, bid) : bid;
      const drafted = assigned?.assignment.draftedLetter ?? null;
      // Compared with the letter drafted under the arm; a letter arm's proposal sent with no such draft did not send
      // the arm's letter at all, so it counts as edited (and is left out of the results like one).
      const editedByHand = drafted !== null ? isEditedByHand(drafted, input.coverLetter) : arm && armVariesLetter(arm) ? true : null;
      if (assigned) experiment = { id: assigned.experiment.id, armId: assigned.arm.id, armName: assigned.arm.name };
      await repo.insertApplication(db, {
        id,
        accountId: auth.accountId,
        jobCiphertext: job.ciphertext,
        processedJobId: resolved.processedJobId,
        driver: driver.name,
        freelancerId: profile.freelancerId,
        profileId: profile.profileId,
        status: "processing",
        phase: "queued",
        creditHeld: true,
        coverLetter: input.coverLetter,
        hourlyRate: sentBid.hourlyRate,
        fixedBid: sentBid.fixedBid,
        timeline: input.proposal?.timeline ?? inferTimeline(job),
        boostBids: arm?.boostBids ?? input.proposal?.boostBids ?? 0,
        answers,
        autoFill: input.autoFillOtherQuestions ?? false,
        explicitPositions: answers.map((a) => a.position),
        appliedAtTs: now,
        onSettled: options.onSettled ?? null,
        feedId: credited.feedId,
        score: credited.score,
        bidRatio: bidRatioOf(job, sentBid),
        source: resolved.row.source,
        publishTimeTs: job.publishTimeTs,
        experimentId: assigned?.experiment.id ?? null,
        armId: arm?.id ?? null,
        editedByHand,
        origin: options.origin ?? "person",
        heldReason: options.heldReason ?? null,
        // Who drafted it and, when it goes out without anyone's approval, who sent it (null: a key of no member).
        draftedBy: auth.memberId,
        sentBy: options.heldReason === undefined ? auth.memberId : null,
      });
      // A send-delay arm holds the submission back by its delay (the task runs no earlier). A held application
      // gets its task when a person approves it (submit.task.ts reviewHeld).
      const runAtTs = now + (arm?.sendDelayMinutes ?? 0) * 60_000;
      if (options.heldReason === undefined) {
        await enqueueTask(db, SUBMIT_TASK, { applicationId: id, accountId: auth.accountId }, now, { maxAttempts: 10, runAtTs });
        // It goes out: the claim on the job has done its work (the live application keeps anyone else off it now).
        await releaseJob(db, auth.accountId, job.ciphertext);
      }
      // Held for review (draft mode): the "waiting for your approval" event goes with it.
      if (options.heldReason !== undefined)
        await queueHeldEvents(db, { accountId: auth.accountId, feedId: credited.feedId, jobCiphertext: job.ciphertext }, now);
      await ensureTracked(db, job.ciphertext, resolved.row.document, now);
      return available;
      // Read committed on PostgreSQL: every invariant here is a unique index (one live application per job, one
      // tracking row) or one conditional statement (the credit hold), and concurrent applies of an account all
      // write its credits row, which serializable would turn into aborts and retries (see TxOptions).
    },
    { isolation: "read committed" },
  ).catch(async (err: unknown) => {
    // The partial unique index refused a second live application: another apply for the job committed
    // between our check and our insert (on PostgreSQL, where transactions of other connections overlap).
    if (!isUniqueViolation(err)) throw err;
    const live = await repo.liveApplication(deps.db, auth.accountId, job.ciphertext);
    throw live ? await alreadyApplied(deps.db, live) : new AppError("conflict", ALREADY_APPLIED);
  });
  deps.wake();
  return { success: true, queueId: id, creditsRemaining: remaining, message: APPLY_MESSAGE, ...(experiment ? { experiment } : {}) };
}

const ALREADY_APPLIED = "This job was already applied to, or an application for it is being processed";

/** The 409 for a second live application, naming who drafted and sent the live one when members did. */
async function alreadyApplied(db: Db, live: repo.ApplicationRow): Promise<AppError> {
  const names = await memberNames(db, live.accountId, [live.draftedBy, live.sentBy]);
  const drafted = live.draftedBy === null ? undefined : names.get(live.draftedBy);
  const sent = live.sentBy === null ? undefined : names.get(live.sentBy);
  const waiting = live.status === "processing" && (live.heldReason === APPROVAL || live.heldReason === RETURNED);
  const who = [drafted && `drafted by ${drafted}`, sent && `sent by ${sent}`, waiting && "waiting for approval"].filter(Boolean);
  return new AppError("conflict", who.length ? `${ALREADY_APPLIED} (${who.join(", ")})` : ALREADY_APPLIED);
}

/** Who an application went out as and the people behind it, by name (see model.ts PeopleFields). */
export async function peopleOf(db: Db, accountId: string, apps: readonly repo.ApplicationRow[]) {
  const names = await memberNames(
    db,
    accountId,
    apps.flatMap((a) => [a.draftedBy, a.approvedBy, a.sentBy]),
  );
  const name = (id: string | null) => (id === null ? null : (names.get(id) ?? null));
  return new Map(
    apps.map((a) => [
      a.id,
      { freelancerId: a.freelancerId, profileId: a.profileId, draftedBy: name(a.draftedBy), approvedBy: name(a.approvedBy), sentBy: name(a.sentBy) },
    ]),
  );
}

export async function jobOfApplication(db: Db, app: repo.ApplicationRow): Promise<{ job: NormalizedJob; document: Record<string, unknown>; source: string }> {
  const row = await findJob(db, app.jobCiphertext);
  const normalized = row ? normalizeJob(row.document) : null;
  if (!row || !normalized?.ok) throw new Error(`archived job ${app.jobCiphertext} is missing or invalid`);
  return { job: normalized.job, document: row.document, source: row.source };
}

export interface StatusView {
  jobId: string | null;
  processedJobId: string | null;
  applicationStatus: repo.ApplicationRow["status"] | null;
  applicationStatusMessage: string | null;
  queueId: string | null;
  appliedAt: number | null;
  processedAt: number | null;
  errorMessage: string | null;
  proposalStatus: { viewed: boolean; replied: boolean; viewedAt: number | null; lastCheckedAt: number } | null;
  outcomeCheck?: OutcomeCheckView;
  freelancerId?: string;
  profileId?: string | null;
  draftedBy?: string | null;
  approvedBy?: string | null;
  sentBy?: string | null;
}

export type OutcomeCheckView = typeof OutcomeCheck.static;

const OUTCOME_CHECK_MESSAGES: Record<OutcomeCheckView["result"], string> = {
  confirmed: 'The marketplace\'s "my proposals" list agrees with what the browser companion reported',
  not_listed:
    'Charged as applied on the browser companion\'s word, but the next "my proposals" list it read does not show this job: check the proposal on the marketplace (nothing was refunded automatically)',
  listed_not_applied:
    'Reported as not applied (no credit charged), but the next "my proposals" list the browser companion read shows this job: check whether the proposal was sent (nothing was charged automatically)',
};

function outcomeCheckOf(app: repo.ApplicationRow): OutcomeCheckView | undefined {
  if (app.outcomeCheck === null || app.outcomeCheckedAtTs === null) return undefined;
  return {
    result: app.outcomeCheck,
    flagged: app.outcomeCheck !== "confirmed",
    checkedAt: app.outcomeCheckedAtTs,
    message: OUTCOME_CHECK_MESSAGES[app.outcomeCheck],
  };
}

/**
 * The status view. While an application is processing, its driver may say how far it got (the browser
 * companion: waiting for your review) as applicationStatusMessage; the status value stays the spec's.
 */
async function toStatus(deps: ApplicationsDeps, app: repo.ApplicationRow): Promise<StatusView> {
  const progress = app.status === "processing" ? ((await deps.drivers[app.driver]?.progress?.(app.id)) ?? null) : null;
  const outcomeCheck = outcomeCheckOf(app);
  const people = (await peopleOf(deps.db, app.accountId, [app])).get(app.id)!;
  return {
    jobId: app.jobCiphertext,
    processedJobId: app.processedJobId,
    applicationStatus: app.status,
    applicationStatusMessage: progress ?? app.statusMessage,
    queueId: app.id,
    appliedAt: app.appliedAtTs,
    processedAt: app.processedAtTs,
    errorMessage: app.errorMessage,
    proposalStatus:
      app.lastCheckedAtTs === null ? null : { viewed: app.viewed, replied: app.replied, viewedAt: app.viewedAtTs, lastCheckedAt: app.lastCheckedAtTs },
    ...(outcomeCheck ? { outcomeCheck } : {}),
    ...people,
  };
}

/** Status by queueId, or of this account's latest application for a job. Exactly one of the two. */
export async function status(deps: ApplicationsDeps, auth: AuthContext, query: { queueId?: string; jobId?: string }): Promise<StatusView> {
  if ((query.queueId === undefined) === (query.jobId === undefined)) {
    throw new AppError("bad_request", "Give exactly one of queueId or jobId");
  }
  if (query.queueId !== undefined) {
    const app = await repo.findAccountApplication(deps.db, auth.accountId, query.queueId);
    if (!app) throw notFound("Application not found");
    return toStatus(deps, app);
  }
  const resolved = await resolveJobRef(deps, auth, query.jobId!);
  const app = await repo.latestForJob(deps.db, auth.accountId, resolved.job.ciphertext);
  if (!app) throw notFound("No application for this job");
  return toStatus(deps, app);
}

export async function appliedJobs(
  deps: ApplicationsDeps,
  auth: AuthContext,
  query: { limit?: number; offset?: number; status?: repo.ApplicationRow["status"] },
) {
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const { items, total } = await repo.listApplications(deps.db, auth.accountId, { limit, offset, status: query.status });
  const people = await peopleOf(
    deps.db,
    auth.accountId,
    items.map((i) => i.app),
  );
  return {
    jobs: items.map(({ app, title, url, platform, matchingScore }) => ({
      jobId: app.jobCiphertext,
      processedJobId: app.processedJobId,
      title,
      url,
      platform: platform === "professional_network" ? ("professional_network" as const) : ("marketplace" as const),
      applicationStatus: app.status,
      applicationStatusMessage: app.statusMessage,
      matchingScore,
      queueId: app.id,
      appliedAt: app.appliedAtTs,
      processedAt: app.processedAtTs,
      createdAt: app.appliedAtTs,
      errorMessage: app.errorMessage,
      coverLetter: app.coverLetter,
      ...people.get(app.id)!,
    })),
    total,
    limit,
    offset,
  };
}

export async function freelancers(deps: ApplicationsDeps, auth: AuthContext): Promise<{ freelancers: Freelancer[] }> {
  return { freelancers: await listFreelancers(await driverFor(deps, auth.accountId), auth.accountId) };
}

/**
 * Claims a job for the caller's member while they draft (members/claims.ts): 409 naming the holder when another
 * member holds it, and 409 naming who drafted or sent it when the job already has someone else's live application.
 * `claim` is null for a key of no member.
 */
export async function claimJob(deps: ApplicationsDeps, auth: AuthContext, ref: string): Promise<{ claim: ClaimView | null }> {
  const { job } = await resolveJobRef(deps, auth, ref, "ciphertext");
  const live = await repo.liveApplication(deps.db, auth.accountId, job.ciphertext);
  if (live && auth.memberId !== null && live.draftedBy !== auth.memberId) throw await alreadyApplied(deps.db, live);
  return { claim: await claim(deps, auth, job.ciphertext) };
}

/** Releases the job's claim by hand (the holder, or an owner or admin). */
export async function releaseJobClaim(deps: ApplicationsDeps, auth: AuthContext, ref: string): Promise<{ released: boolean }> {
  const { job } = await resolveJobRef(deps, auth, ref, "ciphertext");
  return release(deps, auth, job.ciphertext);
}
