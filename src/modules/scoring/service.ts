import { AiError, type AiClient } from "../../ai/client";
import type { LocalAi } from "../../ai/local-ai";
import { scoreWithModel, type JobForScoring } from "../../ai/scorer";
import { tx, type Db } from "../../db/client";
import type { Metrics } from "../../metrics";
import type { Clock } from "../../lib/clock";
import { sha256Hex } from "../../lib/hash";
import type { Logger } from "../../lib/log";
import { monthOf } from "../../lib/time";
import { enqueueTasks } from "../../worker/tasks";
import type { TaskContext } from "../../worker/worker";
import { addAiUsage, aiUsageCalls, findAccount } from "../accounts/repo";
import { admitFeedOf, admitJob } from "../feeds/admit";
import { channelIdsOf } from "../feeds/feed-channels";
import { findFeedById } from "../feeds/repo";
import { EMPTY_PROMPT_SCORE } from "../feeds/service";
import { normalizeJob } from "../jobs/normalize";
import { findJob } from "../jobs/repo";
import { signalsOf } from "../jobs/signals";
import { budgetText } from "../jobs/service";
import * as repo from "./repo";

export interface ScoringDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  ai: AiClient;
  localAi: LocalAi;
  config: { scoringModel: string };
  wake: () => void;
  metrics: Metrics;
}

/** The task that scores one new job for one feed (scoreFeedMatch). */
export const SCORE_TASK = "score";

/** Queues the scoring of a job a feed matched; call inside the transaction that archived it. */
export async function queueScoring(db: Db, payload: { feedId: string; ciphertext: string }, nowTs: number): Promise<void> {
  await queueScorings(db, [payload], nowTs);
}

/** queueScoring for a batch's matches, in their order, in one statement per chunk. */
export async function queueScorings(db: Db, payloads: readonly { feedId: string; ciphertext: string }[], nowTs: number): Promise<void> {
  await enqueueTasks(db, SCORE_TASK, payloads, nowTs, { maxAttempts: 4 });
}

/** Model failures worth another attempt later; the rest (refusal, bad output, bad request) fall back at once. */
const TRANSIENT: AiError["kind"][] = ["timeout", "rate_limited", "server", "network"];

interface ScoreOutcome {
  score: number;
  source: "default" | "ai" | "cache" | "local";
  reason: string;
}

// Feeds that share a prompt get their score tasks for a new job at the same moment; without this,
// concurrent tasks would all miss the cache and pay the model once each.
const inFlight = new WeakMap<Db, Map<string, Promise<ScoreOutcome>>>();

/**
 * Scores one job against one feed's prompt: a cached model score if this
 * prompt was already paid for, else the model (when configured and the
 * account's monthly allowance has room), else the local scorer. Transient
 * model failures throw so the task is retried; on the last attempt, and for
 * refusals or invalid answers, the local scorer takes over so the job is
 * still judged.
 */
async function computeScore(
  deps: ScoringDeps,
  input: { accountId: string; profilePrompt: string; ciphertext: string; job: JobForScoring },
  ctx: Pick<TaskContext, "isLastAttempt">,
): Promise<ScoreOutcome> {
  if (input.profilePrompt.trim() === "") return { score: EMPTY_PROMPT_SCORE, source: "default", reason: "No profilePrompt on this feed" };
  const promptHash = sha256Hex(input.profilePrompt);
  const cached = await repo.findScore(deps.db, input.ciphertext, promptHash);
  if (cached) return { score: cached.score, source: "cache", reason: cached.reason ?? "" };
  let pending = inFlight.get(deps.db);
  if (!pending) inFlight.set(deps.db, (pending = new Map()));
  const key = `${input.ciphertext}\u0000${promptHash}`;
  const running = pending.get(key);
  if (running !== undefined) {
    const shared = await running;
    return shared.source === "ai" ? { ...shared, source: "cache" } : shared;
  }
  const computing = scoreUncached(deps, input, promptHash, ctx);
  pending.set(key, computing);
  try {
    return await computing;
  } finally {
    pending.delete(key);
  }
}

async function scoreUncached(
  deps: ScoringDeps,
  input: { accountId: string; profilePrompt: string; ciphertext: string; job: JobForScoring },
  promptHash: string,
  ctx: Pick<TaskContext, "isLastAttempt">,
): Promise<ScoreOutcome> {
  let fallbackWhy = "no model configured";
  if (deps.ai.isConfigured) {
    const month = monthOf(deps.clock.now());
    const allowance = (await findAccount(deps.db, input.accountId))?.aiScoringAllowance ?? null;
    if (allowance !== null && (await aiUsageCalls(deps.db, input.accountId, month, "scoring")) >= allowance) {
      fallbackWhy = `monthly AI scoring allowance of ${allowance} used`;
    } else {
      try {
        const scored = await scoreWithModel(deps.ai, deps.config.scoringModel, input.profilePrompt, input.job);
        deps.metrics.modelCall("scoring", "ok", scored.usage);
        await tx(deps.db, async (db) => {
          await repo.saveScore(db, {
            jobCiphertext: input.ciphertext,
            promptHash,
            score: scored.score,
            reason: scored.reason,
            model: scored.model,
            createdAtTs: deps.clock.now(),
          });
          await addAiUsage(db, {
            accountId: input.accountId,
            month,
            purpose: "scoring",
            promptTokens: scored.usage.promptTokens,
            completionTokens: scored.usage.completionTokens,
          });
        });
        return { score: scored.score, source: "ai", reason: scored.reason };
      } catch (err) {
        const kind = err instanceof AiError ? err.kind : "unknown";
        if (err instanceof AiError) deps.metrics.modelCall("scoring", err.kind);
        if (TRANSIENT.includes(kind as AiError["kind"]) && !ctx.isLastAttempt) throw err;
        fallbackWhy = `AI scoring failed (${kind})`;
        deps.log.warn("AI scoring failed; scoring locally", { ciphertext: input.ciphertext, kind, err: err as Error });
      }
    }
  }
  const local = await deps.localAi.score(input.profilePrompt, { title: input.job.title, description: input.job.description, skills: input.job.skills });
  return { score: local.score, source: "local", reason: `${local.reason} (local scorer: ${fallbackWhy})`.slice(0, 400) };
}

/** The `score` task: score a new job for a feed it passed the filters of, and let it in at or above minScore. */
export async function scoreFeedMatch(deps: ScoringDeps, payload: { feedId: string; ciphertext: string }, ctx: TaskContext): Promise<void> {
  const feed = await findFeedById(deps.db, payload.feedId);
  if (!feed) return; // deleted meanwhile: nothing to do
  const row = await findJob(deps.db, payload.ciphertext);
  if (!row) return;
  const normalized = normalizeJob(row.document);
  if (!normalized.ok) throw new Error(`archived job ${payload.ciphertext} no longer normalizes: ${normalized.error}`);
  const j = normalized.job;
  const outcome = await computeScore(
    deps,
    {
      accountId: feed.accountId,
      profilePrompt: feed.profilePrompt,
      ciphertext: payload.ciphertext,
      job: { title: j.title, description: j.description, skills: j.skills, jobType: j.jobType, budget: budgetText(j), clientCountry: j.clientCountry },
    },
    ctx,
  );
  deps.metrics.scorings.labels(outcome.source).inc();
  let entered = false;
  await tx(deps.db, async (db) => {
    // Read the feed again inside the transaction: it may have been muted, changed or deleted while scoring.
    const current = await findFeedById(db, payload.feedId);
    if (!current) return;
    // admitJob checks minScore (a favoured client's job may pass under it) and the client list and signal rules again.
    entered =
      (await admitJob(db, [admitFeedOf(current, await channelIdsOf(db, current.id))], {
        jobCiphertext: payload.ciphertext,
        document: row.document,
        score: outcome.score,
        scoreSource: outcome.source,
        scoreReason: outcome.reason,
        nowTs: deps.clock.now(),
        companyId: row.companyId,
        signals: signalsOf(row.signals),
      })) > 0;
  });
  if (!entered) return;
  deps.metrics.matches.labels(outcome.source).inc();
  deps.wake();
}
