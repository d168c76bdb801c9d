/**
 * An outbox event's payload, read from the archive as it is now: the matched
 * job (with its feed entry's scores) or, for a test, the archived sample job.
 * The webhook POSTs it; each channel renders it as its platform's message.
 */
import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import { JOB_MATCHED_EVENT } from "./admit";
import type { EventRow } from "./outbox";
import { type FeedJobRow, findFeedById, findFeedJobById } from "./repo";
import { archiveWithoutMatching } from "../jobs/archive";
import { clientScore } from "../jobs/client-score";
import { normalizeJob } from "../jobs/normalize";
import { findJob } from "../jobs/repo";
import { listEntriesFor } from "../clients/lists-read";
import { signalsOf } from "../jobs/signals";
import { readNormalizedJob } from "../jobs/read-normalized";
import type { WebhookPayload } from "./outbox-payload";
import { buildJobMatchedPayload, buildTestPayload, SAMPLE_JOB_DOCUMENT, SAMPLE_JOB_SOURCE } from "./outbox-payload-build";

/** The payload's client score: the archive's score of the same document, reduced to {score, label}. */
function withClientScore(payload: WebhookPayload, document: unknown, nowTs: number): WebhookPayload {
  const score = clientScore(document, nowTs);
  payload.client.clientScore = { score: score.score, label: score.label };
  return payload;
}

/** The sample job's test payload; null when the sample cannot be archived (never, short of a broken build). */
export async function samplePayload(
  db: Db,
  clock: Clock,
  input: { eventId: string; createdAtTs: number; feed: { id: string; title: string } },
): Promise<WebhookPayload | null> {
  // Archived before it is sent, so a receiver can look the sample up (GET /api/v1/jobs/{ciphertext}) like any job.
  const sample = await findJob(db, await archiveWithoutMatching(db, SAMPLE_JOB_DOCUMENT, SAMPLE_JOB_SOURCE, clock.now()));
  const job = sample ? normalizeJob(sample.document) : null;
  if (!sample || !job?.ok) return null;
  return withClientScore(buildTestPayload({ ...input, job: job.job, source: sample.source }), sample.document, clock.now());
}

type PayloadEvent = Pick<EventRow, "id" | "type" | "createdAtTs" | "feedJobId" | "jobCiphertext">;

/**
 * The event's payload, or null when its job is no longer archived (or its feed entry is gone); a job.matched one
 * marked `favoured` by the feed's account's client list as it is now.
 */
export async function eventPayload(
  db: Db,
  clock: Clock,
  e: PayloadEvent,
  feed: { id: string; title: string; accountId: string },
): Promise<WebhookPayload | null> {
  const payload = await unmarkedEventPayload(db, clock, e, feed);
  if (payload) await markFavoured(db, feed.accountId, [payload]);
  return payload;
}

/** eventPayload without the client-list read: a caller building several (a digest) marks them all with one markFavoured. */
export async function unmarkedEventPayload(db: Db, clock: Clock, e: PayloadEvent, feed: { id: string; title: string }): Promise<WebhookPayload | null> {
  if (e.type !== JOB_MATCHED_EVENT) return samplePayload(db, clock, { eventId: e.id, createdAtTs: e.createdAtTs, feed });
  const match = e.feedJobId ? await findFeedJobById(db, e.feedJobId) : undefined;
  return match && e.jobCiphertext
    ? matchedPayload(db, clock, { eventId: e.id, createdAtTs: e.createdAtTs, feed, match, jobCiphertext: e.jobCiphertext })
    : null;
}

/**
 * A feed entry's job-matched payload as it reads now, as if just matched (a Telegram alert re-rendered to
 * show an application's outcome); null when the entry, its feed or its job is gone.
 */
export async function feedJobPayload(db: Db, clock: Clock, feedJobId: string): Promise<WebhookPayload | null> {
  const match = await findFeedJobById(db, feedJobId);
  const feed = match ? await findFeedById(db, match.feedId) : undefined;
  if (!match || !feed) return null;
  const event = { eventId: `evt_${feedJobId}`, createdAtTs: match.matchedAtTs, feed: { id: feed.id, title: feed.title } };
  const payload = await matchedPayload(db, clock, { ...event, match, jobCiphertext: match.jobCiphertext });
  if (payload) await markFavoured(db, feed.accountId, [payload]);
  return payload;
}

/**
 * Sets the extension `favoured: true` on the job.matched payloads whose client is on the account's favoured list,
 * in one read of the lists. Read as the payload is built, not at admission: the list may have changed since.
 */
export async function markFavoured(db: Db, accountId: string, payloads: readonly WebhookPayload[]): Promise<void> {
  const matched = payloads.filter((p) => p.type === JOB_MATCHED_EVENT && p.companyId);
  if (matched.length === 0) return;
  const lists = await listEntriesFor(
    db,
    [accountId],
    matched.map((p) => p.companyId ?? ""),
  );
  for (const p of matched) if (lists.get(`${accountId}:${p.companyId}`)?.list === "favoured") p.favoured = true;
}

async function matchedPayload(
  db: Db,
  clock: Clock,
  input: { eventId: string; createdAtTs: number; feed: { id: string; title: string }; match: FeedJobRow; jobCiphertext: string },
): Promise<WebhookPayload | null> {
  const { match } = input;
  const read = await readNormalizedJob(db, input.jobCiphertext);
  if (!read) return null;
  const { row, job } = read;
  const payload = buildJobMatchedPayload({
    eventId: input.eventId,
    createdAtTs: input.createdAtTs,
    feed: input.feed,
    match: { processedJobId: match.id, matchingScore: match.matchingScore, scoreReason: match.scoreReason, matchedAtTs: match.matchedAtTs },
    job,
    source: row.source,
  });
  const signals = signalsOf(row.signals);
  if (signals.length > 0) payload.signals = signals;
  return withClientScore(payload, row.document, clock.now());
}
