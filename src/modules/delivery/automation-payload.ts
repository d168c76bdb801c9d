/**
 * The payloads of the automation events, built when an event is sent: an alert's (connects.low, budget.low) from
 * the facts its event row keeps (feeds/admit.ts AlertFacts), a held application's from the application as it is
 * now. Here rather than in feeds/ because the held one reads the applications module, which sits downstream of feeds.
 */
import type { Db } from "../../db/client";
import { liveApplication } from "../applications/repo";
import { heldWords, isHeld, parseHeldReason } from "../applications/review";
import { alertFactsOf, APPLICATION_HELD_EVENT, isAlertEvent } from "../feeds/admit";
import type { EventRow } from "../feeds/outbox";
import { type AutomationPayload, buildAlertPayload, buildHeldPayload } from "../feeds/outbox-payload-automation";
import { jobSummaries } from "../jobs/repo";
import { memberNames } from "../members/claims";

/** Why an automation event is skipped when there is nothing left to say. */
export const HELD_GONE = "The application is no longer waiting for review (approved, discarded or gone)";
export const ALERT_UNREADABLE = "The alert's facts could not be read";

export const isAutomationEvent = (type: string) => type === APPLICATION_HELD_EVENT || isAlertEvent(type);

/** The dashboard's review page, when the server knows its public address. */
export function reviewPageUrl(dashboardBaseUrl: string | null): string | null {
  return dashboardBaseUrl ? `${dashboardBaseUrl.replace(/\/+$/, "")}/dashboard/review` : null;
}

/**
 * The event's payload; null when a held application was approved or discarded before its event went (a review
 * request for something no longer waiting would only mislead), or when the row holds no alert facts.
 */
export async function automationPayload(
  db: Db,
  e: Pick<EventRow, "id" | "type" | "accountId" | "createdAtTs" | "feedJobId" | "jobCiphertext" | "facts">,
  feed: { id: string; title: string },
  dashboardBaseUrl: string | null,
): Promise<AutomationPayload | null> {
  if (isAlertEvent(e.type)) {
    const facts = alertFactsOf(e.facts);
    return facts === null ? null : buildAlertPayload({ eventId: e.id, createdAtTs: e.createdAtTs, feed, jobCiphertext: e.jobCiphertext, facts });
  }
  if (e.jobCiphertext === null) return null;
  const app = await liveApplication(db, e.accountId, e.jobCiphertext);
  if (!app || !isHeld(app)) return null;
  const job = (await jobSummaries(db, [app.jobCiphertext])).get(app.jobCiphertext);
  const held = parseHeldReason(app.heldReason ?? "");
  const draftedBy = app.draftedBy === null ? null : ((await memberNames(db, app.accountId, [app.draftedBy])).get(app.draftedBy) ?? null);
  return buildHeldPayload({
    eventId: e.id,
    createdAtTs: e.createdAtTs,
    feed,
    processedJobId: e.feedJobId,
    application: {
      queueId: app.id,
      job: { ciphertext: app.jobCiphertext, title: job?.title ?? "", url: job?.url ?? "" },
      freelancerId: app.freelancerId,
      kind: held.kind,
      why: heldWords(held, draftedBy),
      draftedBy,
      coverLetter: app.coverLetter,
      reviewUrl: reviewPageUrl(dashboardBaseUrl),
    },
  });
}
