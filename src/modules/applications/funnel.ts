/**
 * The funnel of each sent proposal: sent → viewed → replied → interview → hired, or lost / withdrawn / no_reply.
 *
 * Who writes what: drivers (the engagement sync) only ever turn viewed and replied on and fill their times when
 * missing; a person records replied, interview, hired, lost or withdrawn here. Stage times only go from null to a
 * time, so a later, contradicting driver reading can never erase what a person recorded.
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
import type { ApplicationFunnel, OutcomeBody, RecordableOutcome } from "./model";
import * as repo from "./repo";

export interface FunnelDeps {
  db: Db;
  clock: Clock;
  config: { connectPriceUsd: number; noReplyDays: number };
}

const DAY_MS = 86_400_000;
/** How far along the way to a hire each stage is: an outcome may only move a proposal to a later one. */
const RANK = { sent: 0, viewed: 1, replied: 2, interview: 3, hired: 4 } as const;

/** When the client replied. Rows from before reply times were kept only know it was seen by some sync: the first one that looked. */
const repliedAt = (app: repo.ApplicationRow) => app.repliedAtTs ?? (app.replied ? (app.lastCheckedAtTs ?? app.processedAtTs) : null);

/** The farthest stage reached, by its rank. */
function reached(app: repo.ApplicationRow): { stage: keyof typeof RANK; at: number | null } {
  if (app.hiredAtTs !== null) return { stage: "hired", at: app.hiredAtTs };
  if (app.interviewAtTs !== null) return { stage: "interview", at: app.interviewAtTs };
  const replied = repliedAt(app);
  if (replied !== null) return { stage: "replied", at: replied };
  if (app.viewedAtTs !== null) return { stage: "viewed", at: app.viewedAtTs };
  return { stage: "sent", at: app.processedAtTs };
}

/** The USD cost of the Connects, to the cent; null when the driver did not say what submitting cost. */
function connectsCost(app: repo.ApplicationRow, priceUsd: number): number | null {
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
  const row = await tx(deps.db, async (db) => {
    const app = await repo.findAccountApplication(db, auth.accountId, queueId);
    if (!app) throw notFound("Application not found");
    if (app.status !== "applied" || app.processedAtTs === null) {
      throw new AppError("conflict", `This application was never sent (its status is ${app.status}), so it has no outcome to record`);
    }
    if (at < app.processedAtTs) throw new AppError("bad_request", `at is before the proposal was sent (${iso(app.processedAtTs)})`);
    const patch = patchFor(app, input, at);
    return Object.keys(patch).length === 0 ? app : ((await repo.updateFunnel(db, app.id, patch)) ?? app);
  });
  return funnelOf(row, deps.config, deps.clock.now());
}
