/**
 * A draft- or auto-mode feed's new entry (feeds/admit.ts enqueues this task with the entry): checked against the
 * feed's thresholds (score, expected value), then a letter is written as generate-proposal writes it (the feed's
 * prompt or its experiment arm's) and the application is queued — held for one-click approval in draft mode, sent
 * within the governor's limits in auto mode. Every decision is in the automation audit log.
 *
 * Downstream of applications, proposals and value, which it only calls: the caps, pacing, budgets and similarity
 * guard are the governor's, applied at submission to this application like to every other.
 */
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { accountAuth } from "../accounts/service";
import { apply } from "../applications/service";
import { audit } from "../automation/governor";
import { findFeed, findFeedJobForAccount } from "../feeds/repo";
import { generateProposal } from "../proposals/service";
import { expectedValueOf } from "../value/service";

/** Held for approval in draft mode (applications.held_reason). */
export const DRAFT_HOLD = "draft";

export async function autoApplyEntry(deps: Deps, payload: { feedJobId: string; accountId: string }): Promise<void> {
  const entry = await findFeedJobForAccount(deps.db, payload.accountId, payload.feedJobId);
  if (!entry) return; // pruned or deleted meanwhile
  const feed = await findFeed(deps.db, payload.accountId, entry.feedId);
  // The feed's routing (automation: PUT /api/v1/automation/feeds/{id}) names who its jobs go out as; else the primary freelancer.
  const profileId = feed?.profileId ?? undefined;
  const base = { accountId: payload.accountId, freelancerId: feed?.freelancerId ?? null, applicationId: null, atTs: deps.clock.now() };
  const skip = (rule: string, detail: string) => audit(deps.db, { ...base, action: "skip", rule, detail });
  if (!feed || feed.applyMode === "alert") return;
  const minScore = feed.autoMinScore ?? feed.minScore;
  const what = `job ${entry.jobCiphertext} from feed “${feed.title}”`;
  if (entry.matchingScore < minScore) return skip(`score ${entry.matchingScore} under ${minScore}`, what);
  const auth = await accountAuth(deps.db, payload.accountId, { keyId: "", keyLabel: `${feed.applyMode} mode` });
  const value = await expectedValueOf(deps, auth, entry.id);
  if (feed.autoMinExpectedUsd !== null && (value.expectedUsd === null || value.expectedUsd < feed.autoMinExpectedUsd)) {
    return skip(
      `expected value ${value.expectedUsd === null ? "unknown" : `$${value.expectedUsd}`} under $${feed.autoMinExpectedUsd}`,
      `${what}: ${value.words}`,
    );
  }
  try {
    const written = await generateProposal(deps, auth, { jobId: entry.id, feedId: entry.feedId, reasoningEffort: "low" }, { profileId });
    const queued = await apply(
      deps,
      auth,
      { jobId: entry.id, coverLetter: written.proposal, autoFillOtherQuestions: true, profileId },
      // A letter with claims the portfolio does not back is never sent by automation: it waits for a person.
      {
        origin: feed.applyMode,
        heldReason: feed.applyMode === "draft" ? DRAFT_HOLD : written.claims.length > 0 ? `claims:${written.claims.length}` : undefined,
      },
    );
    await audit(deps.db, {
      ...base,
      applicationId: queued.queueId,
      action: feed.applyMode === "draft" || written.claims.length > 0 ? "draft" : "queue",
      rule: `${feed.applyMode} mode: score ${entry.matchingScore} ≥ ${minScore}${feed.autoMinExpectedUsd !== null ? `, expected $${value.expectedUsd} ≥ $${feed.autoMinExpectedUsd}` : ""}`,
      detail: `${what}: ${value.words}`,
    });
  } catch (err) {
    // Already applied, no credits, a job that cannot be applied to: the person's own rules, said in the log, not retried.
    if (err instanceof AppError && err.status < 500) return skip(`not queued: ${err.message}`, what);
    throw err;
  }
}
