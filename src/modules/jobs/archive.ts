/**
 * Writes to the archive: one row per job (by ciphertext) with the columns
 * feeds filter on and the document as it was last seen. Intake calls these
 * inside its transaction; nothing here matches or notifies.
 */
import { tx, type Db } from "../../db/client";
import type { JobDocument } from "../../sources/document";
import { normalizeJob, type NormalizedJob } from "./normalize";
import * as repo from "./repo";
import { checkTracked } from "./tracking";

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
 * Archives one normalized document. A new ciphertext is inserted; a known one
 * only refreshes its document when this one is at least as fresh (the
 * freshest `exploredAt` wins), and that refresh is one more check of a job the
 * tracker watches.
 */
export async function archiveDocument(
  db: Db,
  job: NormalizedJob,
  doc: JobDocument,
  opts: { source: string; nowTs: number; trackerMaxAgeMs: number; known?: { exploredAtTs: number } },
): Promise<"inserted" | "known"> {
  const now = opts.nowTs;
  const exploredAtTs = job.exploredAt ?? now;
  // `known`: the caller read it already (findArchived) in this transaction.
  const known = opts.known ?? (await repo.findJobMeta(db, job.ciphertext));
  if (known) {
    if (exploredAtTs >= known.exploredAtTs) {
      await repo.updateJob(db, job.ciphertext, { ...columns(job, opts.source), document: doc, exploredAtTs, updatedAtTs: now });
      // A newer document of a job the tracker watches is one more observation of its proposal activity.
      await checkTracked(db, job.ciphertext, doc, now, opts.trackerMaxAgeMs);
    }
    return "known";
  }
  await repo.insertJob(db, {
    ciphertext: job.ciphertext,
    ...columns(job, opts.source),
    document: doc,
    firstSeenAtTs: now,
    exploredAtTs,
    updatedAtTs: now,
  });
  return "inserted";
}

/** The archived ones of these ciphertexts, with their exploredAtTs, in one read (see archiveDocument's `known`). */
export function findArchived(db: Db, ciphertexts: readonly string[]): Promise<Map<string, number>> {
  return repo.findJobsMeta(db, ciphertexts);
}

/** Inserts documents whose ciphertexts are not archived (findArchived), each once, in one statement per chunk. */
export async function archiveNewDocuments(
  db: Db,
  items: readonly { job: NormalizedJob; doc: JobDocument }[],
  opts: { source: string; nowTs: number },
): Promise<void> {
  const now = opts.nowTs;
  await repo.insertJobs(
    db,
    items.map(({ job, doc }) => ({
      ciphertext: job.ciphertext,
      ...columns(job, opts.source),
      document: doc,
      firstSeenAtTs: now,
      exploredAtTs: job.exploredAt ?? now,
      updatedAtTs: now,
    })),
  );
}

/**
 * Archives one document without running it through the feeds: for the webhook
 * test's sample job, which GET /api/v1/jobs/{ciphertext} must find but no feed
 * may ever match or notify. A ciphertext already archived is left as it is.
 */
export async function archiveWithoutMatching(db: Db, doc: JobDocument, source: string, nowTs: number): Promise<string> {
  const normalized = normalizeJob(doc);
  if (!normalized.ok) throw new Error(`the document does not normalize: ${normalized.error}`);
  const { job } = normalized;
  // The look and the insert in one transaction: two deliveries at once must not both insert.
  await tx(db, async (t) => {
    if (await repo.findJobMeta(t, job.ciphertext)) return;
    await repo.insertJob(t, {
      ciphertext: job.ciphertext,
      ...columns(job, source),
      document: doc,
      firstSeenAtTs: nowTs,
      exploredAtTs: job.exploredAt ?? nowTs,
      updatedAtTs: nowTs,
    });
  });
  return job.ciphertext;
}
