/**
 * The payload of an outcome event (proposal.viewed / replied / hired), read when it is sent, as a job's alert is:
 * the event row names the account's job, and the account's sent application for that job (there is at most one,
 * see applications/repo.ts sentApplicationOfJob) says the rest. It lives here rather than beside the job payloads
 * in feeds/ because feeds sits upstream of applications and may not read its table.
 */
import type { Db } from "../../db/client";
import { connectsCost, stageTime } from "../applications/funnel";
import { sentApplicationOfJob } from "../applications/repo";
import type { OutcomeEventType } from "../feeds/admit";
import type { EventRow } from "../feeds/outbox";
import type { OutcomePayload } from "../feeds/outbox-payload";
import { buildOutcomePayload } from "../feeds/outbox-payload-build";
import { jobSummaries } from "../jobs/repo";

/** Why an outcome event is skipped when its application or job cannot be read. */
export const OUTCOME_GONE = "The application or its job is no longer on record";

/** The event's payload, or null when the application (or its job) is gone. */
export async function outcomePayload(
  db: Db,
  e: Pick<EventRow, "id" | "type" | "accountId" | "createdAtTs" | "feedJobId" | "jobCiphertext">,
  feed: { id: string; title: string },
  connectPriceUsd: number,
): Promise<OutcomePayload | null> {
  if (e.jobCiphertext === null) return null;
  const app = await sentApplicationOfJob(db, e.accountId, e.jobCiphertext);
  const job = (await jobSummaries(db, [e.jobCiphertext])).get(e.jobCiphertext);
  if (!app || !job || app.processedAtTs === null) return null;
  const type = e.type as OutcomeEventType;
  const stage = type === "proposal.viewed" ? "viewed" : type === "proposal.replied" ? "replied" : "hired";
  return buildOutcomePayload({
    eventId: e.id,
    type,
    createdAtTs: e.createdAtTs,
    feed,
    processedJobId: e.feedJobId,
    job: { ciphertext: job.ciphertext, title: job.title, url: job.url },
    application: {
      queueId: app.id,
      freelancerId: app.freelancerId,
      profileId: app.profileId,
      sentAtTs: app.processedAtTs,
      // Stage times only go from null to a time, so the event's stage has one; the event's own time otherwise.
      stageAtTs: stageTime(app, stage) ?? e.createdAtTs,
      outcome: app.outcome,
      valueUsd: app.valueUsd,
      connectsCostUsd: connectsCost(app, connectPriceUsd),
    },
  });
}
