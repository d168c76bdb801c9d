/**
 * The apply side of the built-in simulated marketplace (the default driver).
 * It keeps its own state — freelancers with Connects, sessions, closed jobs,
 * received proposals — in the sandbox tables and decides every submission by
 * the documented rules in rules.ts, so a new user can apply with no external
 * account and tests can exercise every outcome.
 */
import type { Db } from "../../db/client";
import { tx } from "../../db/client";
import { isUniqueViolation } from "../../db/query";
import { FINAL_STATUSES } from "../../db/enums";
import { notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import type { Logger } from "../../lib/log";
import type { AccountKind } from "../../modules/accounts/service";
import type { normalizeJob } from "../../modules/jobs/normalize";
import type { Engagement, FinalStatus, Freelancer, FreelancerProfile, MarketplaceDriver, SubmitOutcome, SubmitRequest } from "../driver";
import * as repo from "./repo";
import * as rules from "./rules";

/**
 * What the sandbox asks of the features, handed to it by the composition root (deps.ts): the sandbox is an
 * adapter and imports no feature module.
 */
export interface SandboxPorts {
  accounts: {
    /** The account's kind, or null when there is no such account. */
    kindOf(accountId: string): Promise<AccountKind | null>;
    /** The account and key of a presented API key (the sandbox website's password), or null. */
    authenticate(presented: string | null): Promise<{ accountId: string; keyId: string } | null>;
    /** Whether that key of that account still works (a website session ends with its key). */
    isKeyActive(accountId: string, keyId: string): Promise<boolean>;
  };
  /** The jobs feature's normaliser, for budgets, questions and eligibility read from a job document. */
  normalizeJob: typeof normalizeJob;
}

export interface SandboxDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  config: {
    sandboxApplyLatencyMs: number;
    /** JOBPILOT_SANDBOX_TIME_SCALE: the client's delays are divided by it. */
    sandboxTimeScale: number;
    /** JOBPILOT_SANDBOX_SEED: with the application id, it seeds the outcome model's draw. */
    sandboxSeed: number;
  };
  sandboxPorts: SandboxPorts;
}

const LOGGED_OUT: SubmitOutcome = { status: "logged_out", message: "The marketplace session expired" };

export function createSandboxDriver(deps: SandboxDeps): MarketplaceDriver {
  const log = deps.log.child({ component: "sandbox-marketplace" });
  return {
    name: "sandbox",

    async submit(req) {
      // The real marketplace takes a while to take a proposal; the applications service must cope with that.
      if (deps.config.sandboxApplyLatencyMs > 0) await Bun.sleep(deps.config.sandboxApplyLatencyMs);
      const kind = await accountKind(deps, req.accountId);
      const outcome = await receiveSubmission(deps, req, kind);
      log.debug("sandbox submission", { applicationId: req.applicationId, status: outcome.status });
      return outcome;
    },

    async lookup(req) {
      // The sandbox keeps every submission it decided, so it always knows: never "unknown".
      const row = await repo.findSubmission(deps.db, req.applicationId);
      return row ? withBalance(deps.db, outcomeOf(row, req), req) : null;
    },

    async engagement(applicationId, accountId) {
      const row = await repo.findSubmission(deps.db, applicationId);
      if (!row || row.accountId !== accountId || row.status !== "applied") return null;
      return toEngagement(await advanceEngagement(deps.db, row, deps.clock.now()));
    },

    async freelancers(accountId) {
      return (await listFreelancers(deps, accountId)).map(({ freelancer, profiles }) => toFreelancer(freelancer, profiles));
    },

    async reconnect(accountId) {
      return tx(deps.db, async (db) => {
        const session = await repo.findSession(db, accountId);
        if (!session || session.valid) return true;
        if (!session.restorable) return false;
        await repo.upsertSession(db, { accountId, valid: true, restorable: true, updatedAtTs: deps.clock.now() });
        log.info("sandbox session restored", { accountId });
        return true;
      });
    },
  };
}

/**
 * The account's kind, read through the accounts port. An account the port does not know is treated as solo:
 * the sandbox never invents a second freelancer for it.
 */
export async function accountKind(deps: SandboxDeps, accountId: string): Promise<AccountKind> {
  return (await deps.sandboxPorts.accounts.kindOf(accountId)) ?? "solo";
}

/** 404 for an account the accounts feature does not know (the admin routes). */
export async function requireAccount(deps: SandboxDeps, accountId: string): Promise<void> {
  if ((await deps.sandboxPorts.accounts.kindOf(accountId)) === null) throw notFound("Account not found");
}

/** Creates the account's own freelancer (and its two profiles) the first time anything touches the account. */
export async function ensureOwnFreelancer(db: Db, accountId: string, nowTs: number): Promise<void> {
  const id = rules.freelancerIdFor(accountId);
  if (await repo.findFreelancer(db, id)) return;
  await repo.insertFreelancer(
    db,
    {
      id,
      accountId,
      name: rules.nameFor(accountId),
      avatarUrl: null,
      baseHourlyRate: rules.DEFAULT_HOURLY_RATE,
      country: rules.DEFAULT_COUNTRY,
      jobSuccessScore: rules.DEFAULT_JOB_SUCCESS_SCORE,
      connects: rules.DEFAULT_CONNECTS,
      createdAtTs: nowTs,
    },
    [
      // The marketplace's convention: a default profile's id is the freelancer's ciphertext.
      {
        profileId: id,
        freelancerId: id,
        type: "default",
        name: rules.DEFAULT_PROFILE_NAME,
        hourlyRate: rules.DEFAULT_HOURLY_RATE,
        currency: "USD",
        skills: rules.DEFAULT_SKILLS,
      },
      {
        profileId: rules.specializationIdFor(accountId),
        freelancerId: id,
        type: "specialization",
        name: rules.SPECIALIZATION_NAME,
        hourlyRate: rules.SPECIALIZATION_RATE,
        currency: "USD",
        skills: rules.SPECIALIZATION_SKILLS,
      },
    ],
  );
}

/** Solo accounts apply only as their own freelancer; agencies as every freelancer linked to them. */
function visibleTo(kind: AccountKind, accountId: string, freelancer: repo.FreelancerRow): boolean {
  if (freelancer.accountId !== accountId) return false;
  return kind === "agency" || freelancer.id === rules.freelancerIdFor(accountId);
}

export interface FreelancerWithProfiles {
  freelancer: repo.FreelancerRow;
  profiles: repo.ProfileRow[];
}

/**
 * The account's freelancers (created on first use) with their profiles: the
 * account's own freelancer first, then the added ones by age; default profile first.
 */
export async function listFreelancers(deps: SandboxDeps, accountId: string): Promise<FreelancerWithProfiles[]> {
  const kind = await accountKind(deps, accountId);
  const ownId = rules.freelancerIdFor(accountId);
  const rows = (
    await tx(deps.db, async (db) => {
      await ensureOwnFreelancer(db, accountId, deps.clock.now());
      return (await repo.listFreelancers(db, accountId)).filter((f) => visibleTo(kind, accountId, f));
    })
  ).sort((a, b) => Number(b.id === ownId) - Number(a.id === ownId)); // stable: keeps the age order otherwise
  const profiles = await repo.listProfiles(
    deps.db,
    rows.map((f) => f.id),
  );
  return rows.map((freelancer) => ({
    freelancer,
    profiles: profiles
      .filter((p) => p.freelancerId === freelancer.id)
      .sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === "default" ? -1 : 1)),
  }));
}

/** The interface's Freelancer shape, exactly (no sandbox-only fields). */
function toFreelancer(row: repo.FreelancerRow, profiles: repo.ProfileRow[]): Freelancer {
  return {
    id: row.id,
    name: row.name,
    avatarUrl: row.avatarUrl,
    baseHourlyRate: row.baseHourlyRate,
    profiles: profiles.map((p): FreelancerProfile => ({ type: p.type, name: p.name, hourlyRate: p.hourlyRate, currency: p.currency, profileId: p.profileId })),
  };
}

/** What the sandbox reads of the job: budget (Connects price, bid ratio), skills and client (the outcome model). Unreadable means unknown. */
interface JobFacts {
  budget: rules.BudgetFacts;
  description: string;
  skills: string[];
  client: rules.ProposalInput["client"];
}

function jobFactsOf(normalize: SandboxPorts["normalizeJob"], req: SubmitRequest): JobFacts {
  const normalized = normalize(req.job.document);
  const job = normalized.ok ? normalized.job : null;
  return {
    budget: {
      jobType: req.job.jobType ?? job?.jobType ?? null,
      fixedBudget: job?.fixedBudget ?? null,
      hourlyMin: job?.hourlyMin ?? null,
      hourlyMax: job?.hourlyMax ?? null,
    },
    description: job?.description ?? "",
    skills: job?.skills ?? [],
    client: {
      paymentVerified: job?.paymentVerified ?? null,
      totalSpent: job?.clientTotalSpent ?? null,
      rating: job?.clientRating ?? null,
      reviews: job?.clientReviews ?? null,
    },
  };
}

/** A job document's budget facts alone (the sandbox website prices its apply form with them), as jobFactsOf reads them. */
export function budgetOfDocument(
  normalize: SandboxPorts["normalizeJob"],
  document: Record<string, unknown>,
  jobType: SubmitRequest["job"]["jobType"],
): rules.BudgetFacts {
  const normalized = normalize(document);
  const job = normalized.ok ? normalized.job : null;
  return {
    jobType: jobType ?? job?.jobType ?? null,
    fixedBudget: job?.fixedBudget ?? null,
    hourlyMin: job?.hourlyMin ?? null,
    hourlyMax: job?.hourlyMax ?? null,
  };
}

/**
 * Decides a submission in one transaction and records it. Two deciding the same application at once (on
 * PostgreSQL, from two connections): the second to commit sees the first's row when tx() runs it again
 * after a serialization failure, or, should the primary key refuse its row outright, when it is run again
 * here; either way it returns the first one's outcome, and Connects are spent once.
 */
export async function receiveSubmission(
  deps: Pick<SandboxDeps, "db" | "clock" | "sandboxPorts"> & { config?: Partial<Pick<SandboxDeps["config"], "sandboxSeed" | "sandboxTimeScale">> },
  req: SubmitRequest,
  kind: AccountKind,
): Promise<SubmitOutcome> {
  const facts = jobFactsOf(deps.sandboxPorts.normalizeJob, req);
  const nowTs = deps.clock.now();
  const model = { seed: deps.config?.sandboxSeed ?? 1, timeScale: deps.config?.sandboxTimeScale ?? 1 };
  const decide = () => tx(deps.db, (t) => decideSubmission(t, req, kind, facts, model, nowTs));
  try {
    return await decide();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return decide();
  }
}

/**
 * Decides one submission inside a transaction. The order of checks is part of
 * the rules: a repeat returns what was decided before (Connects are spent once
 * per application), then session, ownership, availability, eligibility and
 * Connects. Every outcome but logged_out is recorded so lookup() can report it.
 */
async function decideSubmission(
  db: Db,
  req: SubmitRequest,
  kind: AccountKind,
  job: JobFacts,
  model: { seed: number; timeScale: number },
  nowTs: number,
): Promise<SubmitOutcome> {
  const prior = await repo.findSubmission(db, req.applicationId);
  if (prior) return withBalance(db, outcomeOf(prior, req), req);

  const session = await repo.findSession(db, req.accountId);
  if (session && !session.valid) return LOGGED_OUT;

  const base = {
    applicationId: req.applicationId,
    accountId: req.accountId,
    freelancerId: req.freelancerId,
    jobCiphertext: req.job.ciphertext,
    submittedAtTs: nowTs,
  };
  const record = async (status: Exclude<FinalStatus, "applied" | "logged_out">, message: string, connectsAvailable?: number): Promise<SubmitOutcome> => {
    await repo.insertSubmission(db, { ...base, status, message, connectsSpent: 0 });
    return connectsAvailable === undefined ? { status, message } : { status, message, connectsAvailable };
  };

  await ensureOwnFreelancer(db, req.accountId, nowTs);
  const freelancer = await repo.findFreelancer(db, req.freelancerId);
  if (!freelancer || !visibleTo(kind, req.accountId, freelancer)) {
    return record("failed", `Freelancer ${req.freelancerId} is not linked to this account`);
  }
  // From here the freelancer is the account's: every outcome says their Connects, as the marketplace's apply page shows them.
  const profile = await repo.findProfile(db, req.profileId);
  if (!profile || profile.freelancerId !== freelancer.id) {
    return record("failed", `Profile ${req.profileId} does not belong to freelancer ${freelancer.name} (${freelancer.id})`, freelancer.connects);
  }

  const document = req.job.document;
  const unavailable = rules.unavailableReason(
    { closed: await repo.isJobClosed(db, req.job.ciphertext), publishTimeTs: req.job.publishTimeTs, document },
    nowTs,
  );
  if (unavailable) return record("not_available", unavailable, freelancer.connects);

  const ineligible = rules.ineligibleReason({ usOnly: req.job.usOnly, document }, freelancer);
  if (ineligible) return record("not_eligible", ineligible, freelancer.connects);

  const price = rules.connectsPrice(document, job.budget);
  const boost = rules.boostOf(req.bid.boostBids);
  const cost = price + boost;
  if (cost > freelancer.connects) return record("not_enough_connects", rules.notEnoughConnectsMessage(cost, freelancer.connects), freelancer.connects);

  const spent = boost > 0 ? `${cost} Connects spent (${price} to submit + ${boost} boost)` : `${cost} Connects spent`;
  const message = `Proposal submitted as ${freelancer.name} (${profile.name}); ${spent}`;
  const plan = await planOf(db, req, job, profile, freelancer.id, model, nowTs);
  if (
    !(await repo.insertAppliedSubmission(db, { ...base, status: "applied", message, connectsSpent: cost, plan: plan as unknown as Record<string, unknown> }))
  ) {
    return record("failed", "Already applied to this job with this freelancer", freelancer.connects);
  }
  // Cannot fail inside this transaction (IMMEDIATE on SQLite, SERIALIZABLE on PostgreSQL: the balance just read
  // is the balance); if it did, throwing rolls the insert back.
  if (!(await repo.spendConnects(db, freelancer.id, cost))) throw new Error(`sandbox: Connects of ${freelancer.id} changed during a submission`);
  return { status: "applied", message, connects: { required: price, boost }, connectsAvailable: freelancer.connects - cost };
}

/**
 * A recorded decision told again (a repeat, or lookup after a crash) with the freelancer's Connects as they are now:
 * the balance after that submission and anything since. Left out for a freelancer the account cannot apply as.
 */
async function withBalance(db: Db, outcome: SubmitOutcome, req: SubmitRequest): Promise<SubmitOutcome> {
  const freelancer = await repo.findFreelancer(db, req.freelancerId);
  return freelancer && freelancer.accountId === req.accountId ? { ...outcome, connectsAvailable: freelancer.connects } : outcome;
}

/**
 * The client's side of this proposal, drawn now by the outcome model (rules.ts) and stored with the submission,
 * so the engagement read later never depends on settings or documents that may change. The letter is compared
 * with this freelancer's recent ones, read inside the deciding transaction.
 */
async function planOf(
  db: Db,
  req: SubmitRequest,
  job: JobFacts,
  profile: repo.ProfileRow,
  freelancerId: string,
  model: { seed: number; timeScale: number },
  nowTs: number,
): Promise<rules.OutcomePlan> {
  const recent = (await repo.recentPlansOfFreelancer(db, freelancerId, rules.OUTCOME_MODEL.duplicate.recentLetters)).flatMap((p) => {
    const plan = rules.readPlan(p);
    return plan ? [plan.fingerprint] : [];
  });
  const facts = rules.proposalFacts({
    job: { title: req.job.title, description: job.description, skills: job.skills, publishTimeTs: req.job.publishTimeTs, document: req.job.document },
    budget: job.budget,
    client: job.client,
    profile: { name: profile.name, skills: profile.skills },
    coverLetter: req.coverLetter,
    bid: req.bid,
    submittedAtTs: nowTs,
    recentFingerprints: recent,
  });
  return rules.drawPlan(facts, rules.letterFingerprint(req.coverLetter), { seed: model.seed, applicationId: req.applicationId, timeScale: model.timeScale });
}

/**
 * A recorded decision as an outcome. The row keeps the Connects spent in all; the boost part is the request's
 * (the same request every time: it is the application's own bid), so the split is the one first reported.
 */
function outcomeOf(row: repo.SubmissionRow, req: SubmitRequest): SubmitOutcome {
  const status = FINAL_STATUSES.find((s) => s === row.status) ?? "failed";
  if (status !== "applied") return { status, message: row.message };
  const boost = Math.min(rules.boostOf(req.bid.boostBids), row.connectsSpent);
  return { status, message: row.message, connects: { required: row.connectsSpent - boost, boost } };
}

/** The times a submission has recorded. */
export function recordedTimes(row: repo.SubmissionRow): rules.OutcomeTimes {
  return { viewedAtTs: row.viewedAtTs, repliedAtTs: row.repliedAtTs, interviewAtTs: row.interviewAtTs, hiredAtTs: row.hiredAtTs, lostAtTs: row.lostAtTs };
}

/**
 * The timeline at `nowTs`: the stored model plan's, or for a submission from before the model (no plan) the hash
 * plan it always had, which knows only views and replies, so nothing already in a database changes.
 */
export function timelineAt(row: repo.SubmissionRow, nowTs: number): rules.OutcomeTimes {
  const recorded = recordedTimes(row);
  const plan = rules.readPlan(row.plan);
  if (plan) return rules.outcomeAt(plan, row.submittedAtTs, recorded, nowTs);
  return { ...recorded, ...rules.engagementAt(rules.engagementPlan(row.applicationId), row.submittedAtTs, recorded, nowTs) };
}

/** Moves a submission's engagement up to `nowTs` and records newly reached times. */
export async function advanceEngagement(db: Db, row: repo.SubmissionRow, nowTs: number): Promise<repo.SubmissionRow> {
  const recorded = recordedTimes(row);
  const next = timelineAt(row, nowTs);
  const changed = (Object.keys(next) as (keyof rules.OutcomeTimes)[]).some((k) => next[k] !== recorded[k]);
  if (!changed) return row;
  return (await repo.recordEngagement(db, row.applicationId, next)) ?? row;
}

export function toEngagement(row: repo.SubmissionRow): Engagement {
  return {
    viewed: row.viewedAtTs !== null,
    replied: row.repliedAtTs !== null,
    viewedAt: row.viewedAtTs,
    repliedAt: row.repliedAtTs,
    interviewAt: row.interviewAtTs,
    hiredAt: row.hiredAtTs,
    lostAt: row.lostAtTs,
  };
}
