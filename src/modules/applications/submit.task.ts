import { tx } from "../../db/client";
import type { SubmitOutcome, SubmitRequest } from "../../marketplace/driver";
import { enqueueTask } from "../../worker/tasks";
import type { TaskContext } from "../../worker/worker";
import { answerQuestions } from "../proposals/service";
import { chargeHeldCredit, releaseHeldCredit } from "../accounts/repo";
import { accountAuth } from "../accounts/service";
import * as repo from "./repo";
import { driverOfApplication, jobOfApplication, type ApplicationsDeps } from "./service";

const INTERRUPTED =
  "jobpilot stopped while this application was being submitted and the marketplace could not confirm whether it arrived; no credit was charged. Check the job on the marketplace before applying again.";

/**
 * The final status and the credit in one transaction: `applied` charges the
 * held credit (booked under the application id, so never twice), any other
 * outcome releases it; an application already settled changes nothing.
 */
async function finish(
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
