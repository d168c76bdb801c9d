import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { enqueueTask } from "../../worker/tasks";
import type { FeedIndex } from "../feeds/matcher";
import { recordMatch } from "../feeds/repo";
import { EMPTY_PROMPT_SCORE } from "../feeds/service";
import type { JobDocument } from "./document";
import { normalizeJob, type NormalizedJob } from "./normalize";
import * as repo from "./repo";
import { checkTracked, ensureTracked } from "./tracking";

export interface IngestDeps {
  db: Db;
  clock: Clock;
  feedIndex: FeedIndex;
  config: { trackerMaxAgeDays: number };
  /** Called after a commit that queued work (scoring tasks, outbox events), to wake the workers at once. */
  wake: () => void;
}

export interface IngestError {
  /** 1-based line number (NDJSON) or 0-based index (JSON array), as the caller numbers its input. */
  at: number;
  error: string;
}

/** A document that went in with a value left out (see NormalizeNote). */
export interface IngestNote {
  /** Numbered like IngestError.at. */
  at: number;
  note: string;
}

export interface IngestResult {
  received: number;
  inserted: number;
  updated: number;
  rejected: number;
  /** Jobs that entered a feed right away (feeds without a profilePrompt). */
  matched: number;
  /** Feed matches waiting for a score. */
  scoring: number;
  errors: IngestError[];
  notes: IngestNote[];
}

export const SCORE_TASK = "score";
export const JOB_MATCHED_EVENT = "job.matched";

function columns(job: NormalizedJob, source: string) {
  return {
    jobUid: job.jobUid,
    platform: job.platform,
    title: job.title,
    url: job.url,
    jobType: job.jobType,
    hourlyMin: job.hourlyMin,
    hourlyMax: job.hourlyMax,
    fixedBudget: job.fixedBudget,
    clientCountry: job.clientCountry,
    clientTotalSpent: job.clientTotalSpent,
    paymentVerified: job.paymentVerified,
    clientRating: job.clientRating,
    clientReviews: job.clientReviews,
    usOnly: job.usOnly,
    emailFound: job.emailFound,
    publishTimeTs: job.publishTimeTs,
    companyId: job.companyId,
    source,
  };
}

/**
 * Archives one document without running it through the feeds: for the webhook
 * test's sample job, which GET /api/v1/jobs/{ciphertext} must find but no feed
 * may ever match or notify. A ciphertext already archived is left as it is.
 */
export function archiveWithoutMatching(db: Db, doc: JobDocument, source: string, nowTs: number): string {
  const normalized = normalizeJob(doc);
  if (!normalized.ok) throw new Error(`the document does not normalize: ${normalized.error}`);
  const { job } = normalized;
  if (!repo.findJobMeta(db, job.ciphertext)) {
    repo.insertJob(db, { ciphertext: job.ciphertext, ...columns(job, source), document: doc, firstSeenAtTs: nowTs, exploredAtTs: job.exploredAt ?? nowTs, updatedAtTs: nowTs });
  }
  return job.ciphertext;
}

/**
 * Archives documents and runs every new job through the feeds, all in one
 * transaction: a job is stored, matched, and its feed entries, notification
 * events and scoring tasks are written together or not at all. A known job
 * (same ciphertext) only refreshes its document (the freshest `exploredAt`
 * wins) and is never matched or notified again. Bad documents are rejected one
 * by one with the reason and never stop the rest.
 */
export function ingestDocuments(deps: IngestDeps, docs: unknown[], opts: { source: string; numbering?: (i: number) => number }): IngestResult {
  const at = opts.numbering ?? ((i: number) => i);
  const result: IngestResult = { received: docs.length, inserted: 0, updated: 0, rejected: 0, matched: 0, scoring: 0, errors: [], notes: [] };
  const valid: { job: NormalizedJob; doc: JobDocument }[] = [];
  docs.forEach((doc, i) => {
    const normalized = normalizeJob(doc);
    if (normalized.ok) {
      // What the normaliser left out is archived as null, so the API never hands the raw value on either.
      let stored = doc as JobDocument;
      for (const { field, note } of normalized.notes) {
        stored = { ...stored, [field]: null };
        result.notes.push({ at: at(i), note });
      }
      valid.push({ job: normalized.job, doc: stored });
    } else {
      result.rejected++;
      result.errors.push({ at: at(i), error: normalized.error });
    }
  });
  if (valid.length === 0) return result;

  const now = deps.clock.now();
  deps.db.transaction(
    (tx) => {
      const db = tx as unknown as Db;
      for (const { job, doc } of valid) {
        const exploredAtTs = job.exploredAt ?? now;
        const known = repo.findJobMeta(db, job.ciphertext);
        if (known) {
          result.updated++;
          if (exploredAtTs >= known.exploredAtTs) {
            repo.updateJob(db, job.ciphertext, { ...columns(job, opts.source), document: doc, exploredAtTs, updatedAtTs: now });
            // A newer document of a job the tracker watches is one more observation of its proposal activity.
            checkTracked(db, job.ciphertext, doc, now, deps.config.trackerMaxAgeDays * 86_400_000);
          }
          continue;
        }
        repo.insertJob(db, {
          ciphertext: job.ciphertext,
          ...columns(job, opts.source),
          document: doc,
          firstSeenAtTs: now,
          exploredAtTs,
          updatedAtTs: now,
        });
        result.inserted++;
        let entered = false;
        for (const feed of deps.feedIndex.match({ ...job, firstSeenAtTs: now })) {
          if (feed.profilePrompt.trim() === "") {
            if (EMPTY_PROMPT_SCORE < feed.minScore) continue;
            const id = newId();
            recordMatch(
              db,
              {
                id,
                feedId: feed.id,
                accountId: feed.accountId,
                jobCiphertext: job.ciphertext,
                matchingScore: EMPTY_PROMPT_SCORE,
                scoreSource: "default",
                scoreReason: "No profilePrompt on this feed: every match scores 5",
                matchedAtTs: now,
              },
              feed.notificationsMuted ? null : { id: `evt_${newId()}`, type: JOB_MATCHED_EVENT, deliverable: feed.hasWebhook },
            );
            result.matched++;
            entered = true;
          } else {
            enqueueTask(db, SCORE_TASK, { feedId: feed.id, ciphertext: job.ciphertext }, now, { maxAttempts: 4 });
            result.scoring++;
          }
        }
        if (entered) ensureTracked(db, job.ciphertext, doc, now);
      }
    },
    { behavior: "immediate" },
  );
  if (result.matched > 0 || result.scoring > 0) deps.wake();
  return result;
}
