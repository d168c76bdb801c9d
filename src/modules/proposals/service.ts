import { AiError, type AiClient } from "../../ai/client";
import type { LocalAi } from "../../ai/local-ai";
import type { Bid, WriterProfile, WritingJob } from "../../ai/local-writer";
import { writeProposalWithModel, type Effort, type ProposalRequest } from "../../ai/writer";
import { tx, type Db } from "../../db/client";
import { AppError, notFound, userFacingServerError } from "../../errors";
import type { Metrics } from "../../metrics";
import type { Clock } from "../../lib/clock";
import type { Logger } from "../../lib/log";
import { monthOf } from "../../lib/time";
import { addAiUsage } from "../accounts/repo";
import type { AuthContext } from "../accounts/service";
import { findFeed } from "../feeds/repo";
import { resolveJobRef } from "../feeds/service";
import type { NormalizedJob } from "../jobs/normalize";
import { budgetText } from "../jobs/service";
import { listFreelancers, type MarketplaceDriver } from "../../marketplace/driver";
import { primaryProfile } from "../../marketplace/drivers";
import { driverFor, driverNameFor } from "../accounts/drivers";
import { listFreelancers as sandboxRoster, type SandboxDeps } from "../../marketplace/sandbox/driver";
import { checkClaims, describeClaims, type Claim, type ClaimFacts } from "../../ai/claim-check";
import { bidText } from "../../ai/local-writer";
import { portfolioOf } from "./portfolio";
import { type Assigned, assignJob, feedOfDraft, fillTemplate, noteDraftedLetter } from "../experiments/assign";
import type { AssignedArm } from "../experiments/model";
import type { ExperimentOutcomes } from "../experiments/outcomes";
import { addVersion, noteDraft, versionsOf } from "./repo";

export interface ProposalsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  ai: AiClient;
  localAi: LocalAi;
  config: { proposalModel: string; aiTimeoutMs: number; marketplaceDriver?: string };
  drivers: Record<string, MarketplaceDriver>;
  metrics: Metrics;
  experimentOutcomes: ExperimentOutcomes;
}

export interface GenerateProposalInput {
  jobId?: string;
  jobTitle?: string;
  jobDescription?: string;
  feedId?: string;
  reasoningEffort?: Effort;
  questions?: { position: number; question: string }[];
  /** Extension: draft under this experiment's arm for the job (assigned now if it has none); see docs/experiments.md. */
  experimentId?: string;
  /** Extension: regenerate with this instruction ("shorter", "mention the Shopify app"); kept with the version. */
  instruction?: string;
}

/**
 * The steps of writing a proposal, reported as each begins (the dashboard shows them with the time spent).
 * `writing` says who writes: the configured model, or the local writer when none is.
 */
export type ProposalStage = { stage: "job" } | { stage: "profile" } | { stage: "writing"; writer: "model" | "local"; questions: number };

export interface GenerateProposalResult {
  success: true;
  proposal: string;
  questionAnswers?: { position: number; answer: string }[];
  /** The experiment arm the letter was drafted under (extension), when the job is in one. */
  experiment?: AssignedArm;
  /** Extension: claims the claim check found nothing in the profile or portfolio to back (empty: none). */
  claims: Claim[];
  /** Extension: the stored version of this letter (archived jobs only): regenerating adds the next. */
  version?: { id: string; number: number };
}

const EFFORT_TIMEOUT: Record<Effort, number> = { low: 1, medium: 1.5, high: 2 };

const FAILURE: Record<AiError["kind"], string> = {
  not_configured: "no model is configured",
  timeout: "the model did not answer in time",
  rate_limited: "the model server is rate limiting requests; try again later",
  server: "the model server failed",
  network: "the model server could not be reached",
  refused: "the model refused to write it",
  truncated: "the model's answer was cut off",
  invalid_output: "the model's answer was unusable",
  bad_request: "the model server rejected the request (check the model name and OPENAI_BASE_URL)",
  aborted: "the request was cancelled",
};

export function writingJobOf(job: NormalizedJob): WritingJob {
  return {
    title: job.title,
    description: job.description,
    skills: job.skills,
    jobType: job.jobType,
    budgetText: budgetText(job),
    clientCountry: job.clientCountry,
  };
}

/**
 * The freelancer the letter speaks for: the profile the application will go out as (`profileId`, as apply
 * takes it), else the account's primary profile, from its marketplace driver (name, profile title). Not its
 * rate: the only amount a letter may name is the bid the application sends. When the driver cannot say (a
 * bridge that is down), the letter is written without a name rather than failing; a `profileId` the driver
 * does not list is the caller's mistake (400), since the letter would otherwise introduce someone else.
 */
async function writerProfile(deps: ProposalsDeps, auth: AuthContext, profileId: string | undefined, isPickRequired = true): Promise<WriterProfile | null> {
  let freelancers: Awaited<ReturnType<typeof listFreelancers>>;
  try {
    freelancers = await listFreelancers(await driverFor(deps, auth.accountId), auth.accountId);
  } catch (err) {
    deps.log.warn("could not read the freelancer profile; writing without it", { err: err as Error });
    return null;
  }
  let picked: { name: string; title: string; profileId: string } | null = null;
  if (profileId !== undefined) {
    for (const f of freelancers) {
      const profile = f.profiles.find((p) => p.profileId === profileId);
      if (profile) picked = { name: f.name, title: profile.name, profileId };
    }
    if (!picked && isPickRequired) throw new AppError("bad_request", "profileId is not one of this account's profiles (the freelancers list names them)");
  }
  if (!picked) {
    const primary = primaryProfile(freelancers);
    if (primary) picked = { name: primary.freelancer.name, title: primary.profile.name, profileId: primary.profile.profileId };
  }
  if (!picked) return null;
  // The letter is grounded in what the freelancer entered: the portfolio, and on the sandbox its profile's skills.
  const { portfolio } = await portfolioOf(deps.db, auth.accountId, picked.profileId);
  return { name: picked.name, title: picked.title, skills: await sandboxSkills(deps, auth.accountId, picked.profileId), portfolio };
}

/** The profile's skills where jobpilot keeps the roster (the sandbox); other drivers' profiles carry none. */
async function sandboxSkills(deps: ProposalsDeps, accountId: string, profileId: string): Promise<string[]> {
  if ((await driverNameFor(deps, accountId)) !== "sandbox") return [];
  // Every caller passes the app's whole Deps; the roster read needs only its database and clock.
  for (const f of await sandboxRoster(deps as unknown as SandboxDeps, accountId)) {
    const p = f.profiles.find((x) => x.profileId === profileId);
    if (p) return p.skills;
  }
  return [];
}

/** The facts a letter is held to (the claim check's input). */
export function claimFactsOf(profile: WriterProfile | null, job: WritingJob, bid: Bid | null, ownText: string | null = null): ClaimFacts {
  return {
    ownText,
    skills: profile?.skills ?? [],
    portfolio: profile?.portfolio ?? null,
    jobText: [job.title, job.skills.join(", "), job.description].join("\n"),
    bidText: bidText(bid) || null,
  };
}

function checkQuestions(questions: { position: number; question: string }[]): void {
  const seen = new Map<number, number>();
  questions.forEach((q, i) => {
    const earlier = seen.get(q.position);
    if (earlier !== undefined) throw new AppError("bad_request", `questions[${i}].position repeats the position of questions[${earlier}] (${q.position})`);
    seen.set(q.position, i);
  });
}

/**
 * Writes answers for screening questions with the model when one is
 * configured, else the local writer; used by generate-proposal and by apply's
 * autoFillOtherQuestions. Positions the model leaves out are answered locally.
 */
async function write(
  deps: ProposalsDeps,
  auth: AuthContext,
  input: {
    job: WritingJob;
    instructions: string | null;
    effort: Effort;
    questions: { position: number; question: string }[];
    bid: Bid | null;
    profileId?: string;
    /** False for answers drafted while submitting: a pick the account's driver does not list falls back to the primary. */
    isPickRequired?: boolean;
  },
  progress: (stage: ProposalStage) => void = () => {},
): Promise<Written> {
  progress({ stage: "profile" });
  const profile = await writerProfile(deps, auth, input.profileId, input.isPickRequired);
  const { job, bid } = input;
  const facts = claimFactsOf(profile, job, bid, input.instructions);
  progress({ stage: "writing", writer: deps.ai.isConfigured ? "model" : "local", questions: input.questions.length });
  if (!deps.ai.isConfigured) {
    const [proposal, ...answers] = await Promise.all([
      deps.localAi.writeProposal({ job, profile, instructions: input.instructions, effort: input.effort, bid }),
      ...input.questions.map((q) => deps.localAi.answerQuestion({ job, profile, question: q.question, bid })),
    ]);
    return { proposal, answers: new Map(input.questions.map((q, i) => [q.position, answers[i]!])), claims: checkClaims(proposal, facts), writer: "local" };
  }
  try {
    const request = { job, profile, instructions: input.instructions, effort: input.effort, questions: input.questions, bid };
    const timeout = Math.round(deps.config.aiTimeoutMs * EFFORT_TIMEOUT[input.effort]);
    let written = await modelRound(deps, auth, request, timeout);
    let claims = checkClaims(written.proposal, facts);
    // The claim check's one rewrite round: the model is told which claims nothing backs; what still remains is flagged.
    if (claims.length > 0) {
      const again = await modelRound(deps, auth, { ...request, rewrite: { letter: written.proposal, problems: describeClaims(claims) } }, timeout);
      const left = checkClaims(again.proposal, facts);
      for (const [position, answer] of written.answers) if (!again.answers.has(position)) again.answers.set(position, answer);
      written = again;
      claims = left;
    }
    for (const q of input.questions) {
      if (!written.answers.has(q.position)) {
        deps.log.warn("model left a screening question unanswered; answered locally", { position: q.position });
        written.answers.set(q.position, await deps.localAi.answerQuestion({ job, profile, question: q.question, bid }));
      }
    }
    return { proposal: written.proposal, answers: written.answers, claims, writer: "model" };
  } catch (err) {
    // Said to the caller on purpose (documented): FAILURE's fixed texts name no internals.
    if (err instanceof AiError) {
      deps.metrics.modelCall("proposal", err.kind);
      throw userFacingServerError("internal", `Proposal generation failed: ${FAILURE[err.kind] ?? err.kind}`);
    }
    throw err;
  }
}

/** A letter as written, with what the claim check left flagged in it and who wrote it. */
export interface Written {
  proposal: string;
  answers: Map<number, string>;
  claims: Claim[];
  writer: "model" | "local" | "template";
}

/** One call to the model, counted in the account's AI usage. */
async function modelRound(deps: ProposalsDeps, auth: AuthContext, request: ProposalRequest, timeoutMs: number) {
  const written = await writeProposalWithModel(deps.ai, deps.config.proposalModel, request, timeoutMs);
  deps.metrics.modelCall("proposal", "ok", written.usage);
  await addAiUsage(deps.db, {
    accountId: auth.accountId,
    month: monthOf(deps.clock.now()),
    purpose: "proposal",
    promptTokens: written.usage.promptTokens,
    completionTokens: written.usage.completionTokens,
  });
  return written;
}

/** What only in-process callers pass to generateProposal (never read from the API's body). */
export interface GenerateProposalOptions {
  /** The bid the application will send; the letter states it. */
  bid?: Bid | null;
  /** The profile (as apply takes it) the application will go out as; the letter introduces it. Default: the primary one. */
  profileId?: string;
  progress?: (stage: ProposalStage) => void;
}

/**
 * POST /api/auto-apply-v2/generate-proposal. Consumes no auto-apply credits.
 * The API's caller picks the bid and the profile later, on apply, so the
 * letter names no amount and introduces the primary profile; a caller that
 * already knows them (the dashboard, which sends the same bid and profile from
 * its apply form) passes them and the letter states the bid and introduces
 * that freelancer.
 */
export async function generateProposal(
  deps: ProposalsDeps,
  auth: AuthContext,
  body: GenerateProposalInput,
  opts: GenerateProposalOptions = {},
): Promise<GenerateProposalResult> {
  const { bid = null, profileId, progress } = opts;
  const questions = body.questions ?? [];
  checkQuestions(questions);
  progress?.({ stage: "job" });
  let job: WritingJob;
  let jobCiphertext: string | null = null;
  let entryId: string | null = null;
  if (body.jobDescription !== undefined && body.jobDescription.trim() !== "") {
    job = { title: body.jobTitle?.trim() ?? "", description: body.jobDescription, skills: [], jobType: null, budgetText: null };
  } else if (body.jobId) {
    const resolved = await resolveJobRef(deps, auth, body.jobId);
    job = writingJobOf(resolved.job);
    jobCiphertext = resolved.job.ciphertext;
    entryId = resolved.processedJobId;
  } else {
    throw new AppError("bad_request", "jobId is required unless jobDescription (with jobTitle) is given");
  }
  let instructions: string | null = null;
  if (body.feedId !== undefined) {
    const feed = await findFeed(deps.db, auth.accountId, body.feedId);
    if (!feed) throw notFound("Feed not found");
    instructions = feed.proposalGenerationPrompt;
  }
  // The arm is assigned (and stored) before the letter is written, since the arm decides how it is written; a job
  // typed in by hand has no ciphertext to assign by.
  let assigned: Assigned | null = null;
  if (jobCiphertext !== null) {
    const ciphertext = jobCiphertext;
    assigned = await tx(deps.db, async (db) =>
      assignJob(deps, db, {
        accountId: auth.accountId,
        jobCiphertext: ciphertext,
        experimentId: body.experimentId,
        feedId: body.feedId ?? (await feedOfDraft(db, auth.accountId, ciphertext, entryId)),
        freelancerId: null,
      }),
    );
  } else if (body.experimentId !== undefined) {
    throw new AppError("bad_request", "experimentId needs jobId (an archived job): arms are assigned per job");
  }
  const arm = assigned?.arm ?? null;
  if (arm?.prompt != null) instructions = arm.prompt;
  // A regeneration's instruction comes after the feed's or arm's own, so it wins where they disagree.
  const instruction = body.instruction?.trim() || null;
  if (instruction) instructions = [instructions, `For this version: ${instruction}`].filter(Boolean).join("\n\n");
  const input = { job, instructions, effort: body.reasoningEffort ?? "low", questions, bid, profileId };
  let written: Written;
  if (arm?.template != null) {
    // The arm's letter is its template; the writer still answers the screening questions.
    const profile = await writerProfile(deps, auth, profileId);
    const answers = questions.length > 0 ? (await write(deps, auth, input, progress)).answers : new Map<number, string>();
    const proposal = fillTemplate(arm.template, { title: job.title, skills: job.skills, name: profile?.name ?? null });
    written = { proposal, answers, claims: checkClaims(proposal, claimFactsOf(profile, job, bid, arm.template)), writer: "template" };
  } else {
    written = await write(deps, auth, input, progress);
  }
  // Speed-to-lead's "drafted": only a letter for an archived job says when this account started on that job.
  let version: { id: string; number: number } | undefined;
  if (jobCiphertext !== null) {
    const ciphertext = jobCiphertext;
    version = await tx(deps.db, async (db) => {
      await noteDraft(db, auth.accountId, ciphertext, deps.clock.now());
      if (assigned) await noteDraftedLetter(db, assigned, written.proposal);
      return addVersion(db, {
        accountId: auth.accountId,
        jobCiphertext: ciphertext,
        letter: written.proposal,
        instruction,
        writer: written.writer,
        claims: written.claims,
        memberId: auth.memberId ?? null,
        atTs: deps.clock.now(),
      });
    });
  }
  const result: GenerateProposalResult = { success: true, proposal: written.proposal, claims: written.claims };
  if (version) result.version = version;
  if (body.questions) result.questionAnswers = questions.map((q) => ({ position: q.position, answer: written.answers.get(q.position)! }));
  if (assigned) result.experiment = { id: assigned.experiment.id, armId: assigned.arm.id, armName: assigned.arm.name };
  return result;
}

/** Answers for apply's autoFillOtherQuestions: the same writer, without a letter when none is wanted; a rate question gets the application's bid. */
export async function answerQuestions(
  deps: ProposalsDeps,
  auth: AuthContext,
  job: NormalizedJob,
  questions: { position: number; question: string }[],
  bid: Bid,
  profileId?: string,
): Promise<Map<number, string>> {
  if (questions.length === 0) return new Map();
  // The application's profile may be listed by another driver than the account's (a sandbox job on a companion
  // account): answering as the primary then beats failing a submission that is otherwise ready.
  const written = await write(deps, auth, { job: writingJobOf(job), instructions: null, effort: "low", questions, bid, profileId, isPickRequired: false });
  return written.answers;
}

/** GET /api/v1/jobs/{ciphertext}/proposal-versions: every letter written for the job, newest first, the sent one marked. */
export async function proposalVersions(deps: ProposalsDeps, auth: AuthContext, jobId: string) {
  const resolved = await resolveJobRef(deps, auth, jobId);
  const versions = await versionsOf(deps.db, auth.accountId, resolved.job.ciphertext);
  return { versions: versions.map(({ createdAtTs, ...v }) => ({ ...v, createdAt: new Date(createdAtTs).toISOString() })) };
}
