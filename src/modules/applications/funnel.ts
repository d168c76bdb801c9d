/**
 * The funnel of each sent proposal: sent → viewed → replied → interview → hired, or lost / withdrawn / no_reply.
 *
 * Who writes what: drivers (the engagement sync, advanceFromReading) turn stages on and fill their times when
 * missing, and set hired or lost only while no outcome is recorded (repo.recordEngagement); a person records replied,
 * interview, hired, lost or withdrawn here. Stage times only go from null to a time, so a later, contradicting
 * driver reading can never erase what a person recorded.
 *
 * Reaching viewed, replied or hired for the first time writes proposal.viewed / replied / hired to the feeds with
 * outcomeEvents on (feeds/admit.ts queueOutcomeEvents), in the transaction that writes the stage: both or neither.
 * "For the first time" is decided from the row read inside that transaction, so a repeat (two syncs at once: on
 * PostgreSQL the transactions are SERIALIZABLE, and the second one is run again and finds the stage reached) never
 * writes a second event.
 *
 * no_reply is worked out on read, never stored: a proposal sent longer than JOBPILOT_NO_REPLY_DAYS ago with no
 * reply and no recorded outcome. That way a change of the window applies to every proposal at once, and a reply
 * that arrives late simply moves it on, with no sweep task to keep in step.
 */
import { tx } from "../../db/client";
import type { Db } from "../../db/client";
import { AppError, notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import { iso } from "../../lib/time";
import type { AuthContext } from "../accounts/service";
import { type OutcomeEventType, PROPOSAL_HIRED_EVENT, PROPOSAL_REPLIED_EVENT, PROPOSAL_VIEWED_EVENT, queueOutcomeEvents } from "../feeds/admit";
import type { ApplicationFunnel, OutcomeBody, RecordableOutcome } from "./model";
import * as repo from "./repo";

export interface FunnelDeps {
  db: Db;
  clock: Clock;
  config: { connectPriceUsd: number; noReplyDays: number };
  /** Wakes the deliverer once outcome events are committed (it also polls, so a caller without it is only slower). */
  wake?: () => void;
}

const DAY_MS = 86_400_000;
/** How far along the way to a hire each stage is: an outcome may only move a proposal to a later one. */
const RANK = { sent: 0, viewed: 1, replied: 2, interview: 3, hired: 4 } as const;

/** When the client replied. Rows from before reply times were kept only know it was seen by some sync: the first one that looked. */
const repliedAt = (app: repo.ApplicationRow) => app.repliedAtTs ?? (app.replied ? (app.lastCheckedAtTs ?? app.processedAtTs) : null);

/** When the application reached one of the stages an outcome event announces; null when it has not. */
export function stageTime(app: repo.ApplicationRow, stage: "viewed" | "replied" | "hired"): number | null {
  if (stage === "viewed") return app.viewedAtTs ?? (app.viewed ? repliedAt(app) : null);
  return stage === "replied" ? repliedAt(app) : app.hiredAtTs;
}

/** The farthest stage reached, by its rank. */
function reached(app: repo.ApplicationRow): { stage: keyof typeof RANK; at: number | null } {
  if (app.hiredAtTs !== null) return { stage: "hired", at: app.hiredAtTs };
  if (app.interviewAtTs !== null) return { stage: "interview", at: app.interviewAtTs };
  const replied = repliedAt(app);
  if (replied !== null) return { stage: "replied", at: replied };
  if (app.viewedAtTs !== null) return { stage: "viewed", at: app.viewedAtTs };
  return { stage: "sent", at: app.processedAtTs };
}

/**
 * The outcome events a change from `before` to `after` calls for, in stage order: each of viewed, replied and hired
 * that `after` has reached and `before` had not. Nothing for a proposal that was already closed as lost or
 * withdrawn (nobody is waiting to hear of it), and nothing for one never sent.
 */
export function newlyReached(before: repo.ApplicationRow, after: repo.ApplicationRow): OutcomeEventType[] {
  if (after.status !== "applied" || before.outcome === "lost" || before.outcome === "withdrawn") return [];
  const stages: [(app: repo.ApplicationRow) => boolean, OutcomeEventType][] = [
    [(app) => app.viewed || app.viewedAtTs !== null, PROPOSAL_VIEWED_EVENT],
    [(app) => repliedAt(app) !== null, PROPOSAL_REPLIED_EVENT],
    [(app) => app.hiredAtTs !== null, PROPOSAL_HIRED_EVENT],
  ];
  return stages.flatMap(([isAt, type]) => (isAt(after) && !isAt(before) ? [type] : []));
}

/** Writes the events of a change inside its transaction; true when it wrote any. */
async function emitFor(db: Db, before: repo.ApplicationRow, after: repo.ApplicationRow, nowTs: number): Promise<boolean> {
  const types = newlyReached(before, after);
  if (types.length === 0) return false;
  return (await queueOutcomeEvents(db, { accountId: after.accountId, feedId: after.feedId, jobCiphertext: after.jobCiphertext }, types, nowTs)) > 0;
}

/**
 * A driver's reading of one application, written with the events it calls for in one transaction (the engagement
 * sync's only write). The row is read again inside it, so what counts as newly reached is what is stored now, not
 * what the sync's batch saw. Returns the row as it now is (undefined when it is gone).
 */
export async function advanceFromReading(
  deps: Pick<FunnelDeps, "db" | "clock" | "wake">,
  queueId: string,
  reading: repo.EngagementReading,
): Promise<repo.ApplicationRow | undefined> {
  const now = deps.clock.now();
  const { row, emitted } = await tx(deps.db, async (db) => {
    const before = await repo.findApplication(db, queueId);
    if (!before) return { row: undefined, emitted: false };
    const after = await repo.recordEngagement(db, queueId, reading, now);
    return { row: after, emitted: after !== undefined && (await emitFor(db, before, after, now)) };
  });
  if (emitted) deps.wake?.();
  return row;
}

/** The USD cost of the Connects, to the cent; null when the driver did not say what submitting cost. */
export function connectsCost(app: repo.ApplicationRow, priceUsd: number): number | null {
  if (app.connectsRequired === null) return null;
  return Math.round((app.connectsRequired + (app.boostConnects ?? 0)) * priceUsd * 100) / 100;
}

/** The funnel of one application as of `nowTs`. */
export function funnelOf(app: repo.ApplicationRow, config: FunnelDeps["config"], nowTs: number): ApplicationFunnel {
  const sent = app.status === "applied" ? app.processedAtTs : null;
  const replied = sent === null ? null : repliedAt(app);
  const inConversation = replied !== null || app.interviewAtTs !== null || app.hiredAtTs !== null;
  let outcome: ApplicationFunnel["outcome"] = app.outcome;
  let outcomeAt = app.outcomeAtTs;
  const noReplyAt = sent === null ? null : sent + Math.round(config.noReplyDays * DAY_MS);
  if (outcome === null && !inConversation && noReplyAt !== null && nowTs >= noReplyAt) {
    outcome = "no_reply";
    outcomeAt = noReplyAt;
  }
  return {
    queueId: app.id,
    applicationStatus: app.status,
    stages: { sent, viewed: sent === null ? null : app.viewedAtTs, replied, interview: app.interviewAtTs, hired: app.hiredAtTs },
    inConversation,
    outcome,
    outcomeAt,
    valueUsd: app.valueUsd,
    connectsRequired: app.connectsRequired,
    boostConnects: app.boostConnects,
    connectsCostUsd: connectsCost(app, config.connectPriceUsd),
    note: app.outcomeNote,
  };
}

/** GET the funnel: any application of the account (one never sent has no stage times); 404 for another account's. */
export async function funnel(deps: FunnelDeps, auth: AuthContext, queueId: string): Promise<ApplicationFunnel> {
  const app = await repo.findAccountApplication(deps.db, auth.accountId, queueId);
  if (!app) throw notFound("Application not found");
  return funnelOf(app, deps.config, deps.clock.now());
}

const backwards = (app: repo.ApplicationRow, outcome: RecordableOutcome) => {
  const was = app.outcome ?? reached(app).stage;
  const since = app.outcomeAtTs ?? reached(app).at;
  return new AppError(
    "conflict",
    `This proposal is already ${was === "interview" ? "at interview" : was}${since === null ? "" : ` (since ${iso(since)})`}; recording ${outcome} would move it backwards`,
  );
};

/**
 * What recording `outcome` at `at` writes, or the 409 when it would move the proposal backwards. Recording the
 * stage it is already at changes only the note (and, for hired, the value): a repeated click is harmless.
 * hired may still turn into lost (the contract fell through, or the hire was recorded by mistake): the hire
 * time stays as history, the value goes, since no contract stands. lost and withdrawn are final.
 */
function patchFor(app: repo.ApplicationRow, input: OutcomeBody, at: number): repo.FunnelPatch {
  const { outcome } = input;
  const note = input.note === undefined ? {} : { outcomeNote: input.note };
  if (app.outcome === outcome) return { ...note, ...(outcome === "hired" && input.valueUsd !== undefined ? { valueUsd: input.valueUsd } : {}) };
  if (app.outcome === "lost" || app.outcome === "withdrawn") throw backwards(app, outcome);
  if (app.outcome === "hired") {
    if (outcome !== "lost") throw backwards(app, outcome);
    return { ...note, outcome, outcomeAtTs: at, valueUsd: null };
  }
  if (outcome === "lost" || outcome === "withdrawn") return { ...note, outcome, outcomeAtTs: at };
  const current = RANK[reached(app).stage];
  if (RANK[outcome] < current) throw backwards(app, outcome);
  if (RANK[outcome] === current) return note;
  // A reply, an interview or a hire means the client saw the proposal and answered: earlier stages a driver never
  // reported are filled with the same time, so every later stage implies the ones before it.
  const patch: repo.FunnelPatch = { ...note, viewed: true, replied: true, viewedAtTs: app.viewedAtTs ?? at, repliedAtTs: repliedAt(app) ?? at };
  if (outcome === "interview") patch.interviewAtTs = at;
  if (outcome === "hired") Object.assign(patch, { hiredAtTs: at, outcome, outcomeAtTs: at, valueUsd: input.valueUsd ?? null });
  return patch;
}

/**
 * POST …/outcome: records what happened to a sent proposal, read and written in one transaction so two
 * recordings at once cannot both move it from the same stage, and a crash leaves it recorded or not at all.
 */
export async function recordOutcome(deps: FunnelDeps, auth: AuthContext, queueId: string, input: OutcomeBody): Promise<ApplicationFunnel> {
  const now = deps.clock.now();
  const at = input.at ?? now;
  if (at > now) throw new AppError("bad_request", "at is in the future: give when it happened (Unix ms), or leave it out for now");
  if (input.valueUsd !== undefined && input.outcome !== "hired") throw new AppError("bad_request", "valueUsd is recorded only with outcome hired");
  let emitted = false;
  const row = await tx(deps.db, async (db) => {
    emitted = false; // PostgreSQL may run the callback again
    const app = await repo.findAccountApplication(db, auth.accountId, queueId);
    if (!app) throw notFound("Application not found");
    if (app.status !== "applied" || app.processedAtTs === null) {
      throw new AppError("conflict", `This application was never sent (its status is ${app.status}), so it has no outcome to record`);
    }
    if (at < app.processedAtTs) throw new AppError("bad_request", `at is before the proposal was sent (${iso(app.processedAtTs)})`);
    const patch = patchFor(app, input, at);
    if (Object.keys(patch).length === 0) return app;
    const updated = await repo.updateFunnel(db, app.id, patch);
    if (!updated) return app;
    emitted = await emitFor(db, app, updated, now);
    return updated;
  });
  if (emitted) deps.wake?.();
  return funnelOf(row, deps.config, deps.clock.now());
}
