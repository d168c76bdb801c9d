import { markSentVersion } from "../proposals/repo";
import { tx } from "../../db/client";
import type { SubmitOutcome, SubmitRequest } from "../../marketplace/driver";
import { enqueueTask } from "../../worker/tasks";
import type { TaskContext } from "../../worker/worker";
import { answerQuestions } from "../proposals/service";
import { chargeHeldCredit, releaseHeldCredit } from "../accounts/repo";
import { accountAuth } from "../accounts/service";
import { audit, auditWait, judge, similarityHold, type SubmissionToGovern, type Verdict } from "../automation/governor";
import { noteBalance } from "../automation/service";
import { alertsAfterSubmission } from "../automation/alerts";
import { queueHeldEvents } from "../feeds/admit";
import { findCompanion } from "../../marketplace/companion/repo";
import { findFeedById } from "../feeds/repo";
import { connectsRequiredOf } from "../../lib/connects";
import * as repo from "./repo";
import { FILL_IN_HOLD, slotIn } from "./fill-in";
import { driverOfApplication, jobOfApplication, SUBMIT_TASK, type ApplicationsDeps } from "./service";

const INTERRUPTED =
  "jobpilot stopped while this application was being submitted and the marketplace could not confirm whether it arrived; no credit was charged. Check the job on the marketplace before applying again.";

/**
 * The final status and the credit in one transaction: `applied` charges the
 * held credit (booked under the application id, so never twice), any other
 * outcome releases it; an application already settled changes nothing.
 */
export async function finish(
  deps: ApplicationsDeps,
  app: repo.ApplicationRow,
  outcome: SubmitOutcome,
  job?: { source: string; publishTimeTs: number | null },
): Promise<void> {
  const settled = await tx(deps.db, async (db) => {
    const nowTs = deps.clock.now();
    if (!(await repo.settle(db, app, outcome, nowTs))) return false;
    if (outcome.status === "applied") await chargeHeldCredit(db, { accountId: app.accountId, ref: app.id, note: "application submitted", createdAtTs: nowTs });
    else await releaseHeldCredit(db, app.accountId);
    // The letter's version (modules/proposals) is marked sent in the same commit as the status.
    if (outcome.status === "applied") await markSentVersion(db, app.accountId, app.jobCiphertext, app.coverLetter, app.id);
    if (outcome.status === "applied") await alertsAfterSubmission({ ...deps, db }, app, outcome); // Connects alerts (automation/alerts.ts), for this application's feed; takes the reported balance as read, so before noteBalance
    // The balance the driver read ("sandbox", "companion", "bridge"): what the governor checks the next submission against.
    if (outcome.connectsAvailable !== undefined)
      await noteBalance({ db, clock: deps.clock }, app.accountId, app.freelancerId, outcome.connectsAvailable, app.driver);
    // With the status, so whoever asked hears of it exactly once, even across a crash right after the commit.
    if (app.onSettled) await enqueueTask(db, app.onSettled.kind, { ...app.onSettled.payload, applicationId: app.id }, nowTs);
    return true;
  });
  // Counted once it committed, and only by the settle that won (tx may run the callback again on PostgreSQL).
  if (settled) deps.metrics.applications.labels(outcome.status).inc();
  if (settled && job && outcome.status === "applied") deps.metrics.observeSpeed("submitted", job.source, job.publishTimeTs, deps.clock.now());
  if (settled && app.onSettled) deps.wake();
  deps.log.info("application settled", { queueId: app.id, status: outcome.status });
}

/**
 * The submit task. Order matters for crash safety: answers are completed and
 * the application is marked `submitting` (committed) before the driver is
 * called, and the outcome plus the credit settle in one transaction after it.
 * A restart that finds `submitting` asks the driver whether the marketplace
 * recorded the proposal instead of sending it blindly again.
 */
export async function submitApplication(deps: ApplicationsDeps, payload: { applicationId: string }, ctx: TaskContext): Promise<void> {
  const app = await repo.findApplication(deps.db, payload.applicationId);
  if (!app || app.phase === "done" || !app.creditHeld) return;
  // The driver it was queued with, never the account's current one: a switch between apply and submit must not
  // send a job to a driver that cannot reach it, nor ask one that never saw it after a crash.
  const driver = driverOfApplication(deps, app);
  const { job, document, source } = await jobOfApplication(deps.db, app);
  const speed = { source, publishTimeTs: job.publishTimeTs };
  const request = (answers: { position: number; answer: string }[]): SubmitRequest => ({
    applicationId: app.id,
    accountId: app.accountId,
    freelancerId: app.freelancerId,
    profileId: app.profileId,
    job: {
      ciphertext: job.ciphertext,
      url: job.url,
      title: job.title,
      jobType: job.jobType,
      document,
      publishTimeTs: job.publishTimeTs,
      usOnly: job.usOnly,
    },
    coverLetter: app.coverLetter,
    bid: { hourlyRate: app.hourlyRate, fixedBid: app.fixedBid, timeline: app.timeline, boostBids: app.boostBids },
    answers,
  });

  if (app.phase === "queued") {
    if (app.heldReason !== null && app.heldReason !== repo.APPROVED) return; // waits for a person's review
    if (app.governedAtTs === null) {
      const verdict = await govern(deps, app, document);
      if (verdict.kind === "refuse") return await finish(deps, app, { status: "not_enough_connects", message: verdict.message });
      if (verdict.kind !== "go") return;
    }
  }

  let answers = app.answers;
  try {
    if (app.phase === "submitting") {
      const known = await driver.lookup(request(answers));
      if (known === "unknown") return await finish(deps, app, { status: "failed", message: INTERRUPTED });
      if (known) return await finish(deps, app, known, speed);
      // The marketplace has no record of it: sending it now is not a duplicate.
    } else {
      const given = new Set(answers.map((a) => a.position));
      const missing = job.screeningQuestions.filter((q) => !given.has(q.position));
      if (missing.length > 0 && !app.autoFill) {
        return await finish(deps, app, {
          status: "failed",
          message: `Screening question${missing.length > 1 ? "s" : ""} at position ${missing.map((q) => q.position).join(", ")} ${missing.length > 1 ? "have" : "has"} no answer; send questionAnswers or set autoFillOtherQuestions. Nothing was submitted.`,
        });
      }
      if (missing.length > 0) {
        // Answered as the profile the application goes out as, not the account's primary one.
        const drafted = await answerQuestions(
          deps,
          await accountAuth(deps.db, app.accountId, { keyId: "", keyLabel: null }),
          job,
          missing,
          { hourlyRate: app.hourlyRate, fixedBid: app.fixedBid },
          app.profileId,
        );
        answers = [...answers, ...missing.map((q) => ({ position: q.position, answer: drafted.get(q.position)! }))].sort((a, b) => a.position - b.position);
        const slotted = answers.filter((a) => slotIn(a.answer) !== null).length;
        if (slotted > 0) return await holdToFillIn(deps, app, answers, slotted);
      }
      await repo.markSubmitting(deps.db, app.id, answers);
    }

    const outcome = await driver.submit(request(answers));
    if (outcome.status === "logged_out") {
      const now = deps.clock.now();
      await repo.markLoggedOutSince(deps.db, app.id, outcome.loggedOutSinceTs ?? now);
      const since = (await repo.findApplication(deps.db, app.id))?.loggedOutSinceTs ?? now;
      if (now - since < deps.config.loggedOutWindowMs && !ctx.isLastAttempt) {
        const restored = await driver.reconnect(app.accountId);
        throw new Error(`marketplace session logged out (${restored ? "reconnected" : "not restored yet"}); will retry`);
      }
      return await finish(deps, app, outcome);
    }
    await finish(deps, app, outcome, speed);
  } catch (err) {
    // Out of attempts: end it (no charge) rather than leave it processing for ever.
    if (ctx.isLastAttempt) {
      const message = (err as Error)?.message ?? String(err);
      const status = message.includes("logged out") ? "logged_out" : "failed";
      return finish(deps, app, {
        status,
        message: status === "logged_out" ? "The marketplace session could not be restored in time; nothing was charged" : `Submission failed: ${message}`,
      });
    }
    throw err;
  }
}

/**
 * Asks the governor (modules/automation) whether this submission may go now, and acts on its answer in one
 * transaction with its audit entry: let go (counted from now on), put off (the submit task again at the time it
 * gives), or held for review. A refusal is returned for the caller to settle (uncharged).
 */
async function govern(deps: ApplicationsDeps, app: repo.ApplicationRow, document: Record<string, unknown>): Promise<Verdict> {
  const byPerson = app.driver === "companion" && ((await findCompanion(deps.db, app.accountId))?.mode ?? "review") === "review";
  const feed = app.feedId === null ? undefined : await findFeedById(deps.db, app.feedId);
  const overBudget = app.origin !== "person" && app.origin !== null && feed?.accountId === app.accountId ? feed.overBudget : "skip";
  const submission: SubmissionToGovern = {
    accountId: app.accountId,
    freelancerId: app.freelancerId,
    applicationId: app.id,
    coverLetter: app.coverLetter,
    boostBids: app.boostBids,
    connectsRequired: connectsRequiredOf(document),
    byPerson,
    automated: (app.origin === "draft" || app.origin === "auto") && app.heldReason !== repo.APPROVED,
    overBudget,
    approved: app.heldReason === repo.APPROVED,
  };
  // The similarity guard only for a submission that would go now, and outside the transaction (see similarityHold).
  const before = await judge(deps, deps.db, submission, deps.clock.now());
  const similar = before.kind === "go" ? await similarityHold(deps, deps.db, submission, deps.clock.now()) : null;
  return tx(deps.db, async (db) => {
    const nowTs = deps.clock.now();
    const verdict = similar ?? (await judge(deps, db, submission, nowTs));
    const entry = { accountId: app.accountId, freelancerId: app.freelancerId, applicationId: app.id, rule: verdict.rule, atTs: nowTs };
    if (verdict.kind === "go") {
      await repo.markGoverned(db, app.id, nowTs, verdict.estimatedConnects);
      await audit(db, { ...entry, action: "submit", detail: `sent (about ${verdict.estimatedConnects} Connects)` });
    } else if (verdict.kind === "wait") {
      await enqueueTask(db, SUBMIT_TASK, { applicationId: app.id, accountId: app.accountId }, nowTs, { maxAttempts: 10, runAtTs: verdict.untilTs });
      await auditWait(db, { ...entry, action: "wait", detail: `put off until ${new Date(verdict.untilTs).toISOString()}` });
    } else if (verdict.kind === "hold") {
      await repo.setHeldReason(db, app.id, verdict.reason);
      await queueHeldEvents(db, { accountId: app.accountId, feedId: app.feedId, jobCiphertext: app.jobCiphertext }, nowTs);
      await audit(db, { ...entry, action: "hold", detail: "held for review" });
    } else {
      await audit(db, { ...entry, action: "refuse", detail: verdict.message });
    }
    return verdict;
  });
}

/**
 * Drafted answers that still need something only the freelancer knows ("[your start date]") are never sent: in one
 * transaction with its event and audit entry the application keeps them and waits for review as `fill-in:<n>`, its
 * credit still held (charged once, when it is finally sent). A reviewer fills them in and approves.
 */
async function holdToFillIn(deps: ApplicationsDeps, app: repo.ApplicationRow, answers: { position: number; answer: string }[], slotted: number): Promise<void> {
  await tx(deps.db, async (db) => {
    const nowTs = deps.clock.now();
    if (!(await repo.holdWithAnswers(db, app.id, answers, `${FILL_IN_HOLD}:${slotted}`))) return;
    await queueHeldEvents(db, { accountId: app.accountId, feedId: app.feedId, jobCiphertext: app.jobCiphertext }, nowTs);
    await audit(db, {
      accountId: app.accountId,
      freelancerId: app.freelancerId,
      applicationId: app.id,
      rule: `${slotted === 1 ? "1 screening answer" : `${slotted} screening answers`} to fill in`,
      action: "hold",
      detail: "held for review",
      atTs: nowTs,
    });
  });
  deps.log.info("application held: screening answers to fill in", { queueId: app.id, answers: slotted });
}
