/**
 * Writes to the archive: one row per job (by ciphertext) with the columns
 * feeds filter on and the document as it was last seen. Intake calls these
 * inside its transaction; nothing here matches or notifies.
 */
import { tx, type Db } from "../../db/client";
import type { JobDocument } from "../../sources/document";
import { scamSignals } from "../../ai/job-signals";
import { countsOf } from "./activity";
import { clientHistory } from "./client-score";
import { normalizeJob, type NormalizedJob } from "./normalize";
import { mainSkill, PriceSample } from "./price-sample";
import * as repo from "./repo";
import {
  type JobSignal,
  jaccard,
  REPOST_CANDIDATES_PER_CLIENT,
  REPOST_TITLE_PREFILTER,
  REPOST_WINDOW_DAYS,
  type RepostCandidate,
  shingles,
  signalsOfJob,
  titleWords,
} from "./signals";
import { checkTracked } from "./tracking";

/** The archive row's columns of a normalized job (also what the preview benchmark writes straight in). */
export function archiveColumns(job: NormalizedJob, source: string) {
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
    matchFields: repo.matchFieldsOf(job),
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
      await repo.updateJob(db, job.ciphertext, { ...archiveColumns(job, opts.source), document: doc, exploredAtTs, updatedAtTs: now });
      // A newer document of a job the tracker watches is one more observation of its proposal activity.
      await checkTracked(db, job.ciphertext, doc, now, opts.trackerMaxAgeMs);
    }
    return "known";
  }
  await repo.insertJob(db, {
    ciphertext: job.ciphertext,
    ...archiveColumns(job, opts.source),
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

/**
 * Inserts documents whose ciphertexts are not archived (findArchived), each once, in one statement per chunk,
 * with their signals (signals.ts), which it returns by ciphertext. Call in the ingest transaction: the client's
 * earlier jobs are read and the signals written in it, so a crash leaves a job with its signals or no job.
 */
export async function archiveNewDocuments(
  db: Db,
  items: readonly { job: NormalizedJob; doc: JobDocument }[],
  opts: { source: string; nowTs: number; prices?: PriceSample },
): Promise<Map<string, JobSignal[]>> {
  const now = opts.nowTs;
  const signals = await signalsOfNewJobs(db, items, now, opts.prices ?? new PriceSample());
  await repo.insertJobs(
    db,
    items.map(({ job, doc }) => ({
      ciphertext: job.ciphertext,
      ...archiveColumns(job, opts.source),
      signals: (signals.get(job.ciphertext) ?? []) as unknown as Record<string, unknown>[],
      document: doc,
      firstSeenAtTs: now,
      exploredAtTs: job.exploredAt ?? now,
      updatedAtTs: now,
    })),
  );
  return signals;
}

const hiredOf = (doc: unknown): boolean | null => {
  const hired = countsOf(doc).hired;
  return hired === null ? null : hired > 0;
};

/**
 * The signals of a batch of new jobs: one read of their clients' recent jobs (jobs_company_posted_idx alone, no document, the
 * newest REPOST_CANDIDATES_PER_CLIENT per client), the batch's earlier jobs of the same client besides; only
 * those whose title passes REPOST_TITLE_PREFILTER have their description read (one more read for the batch),
 * and only a repost's earlier job its whole document (for whether it led to a hire). Prices from the sample.
 */
async function signalsOfNewJobs(
  db: Db,
  items: readonly { job: NormalizedJob; doc: JobDocument }[],
  nowTs: number,
  prices: PriceSample,
): Promise<Map<string, JobSignal[]>> {
  const companies = [...new Set(items.map((i) => i.job.companyId).filter((c): c is string => c !== null))];
  const window = REPOST_WINDOW_DAYS * 86_400_000;
  type Earlier = { ciphertext: string; url: string; postedAtTs: number; titleText: string; title: Set<string>; doc?: JobDocument };
  const byCompany = new Map<string, Earlier[]>();
  if (companies.length > 0) {
    const since = Math.min(nowTs, ...items.map((i) => i.job.publishTimeTs ?? nowTs)) - window;
    for (const e of await repo.recentJobsOfCompanies(db, companies, since, REPOST_CANDIDATES_PER_CLIENT)) {
      const list = byCompany.get(e.companyId) ?? [];
      list.push({ ciphertext: e.ciphertext, url: e.url, postedAtTs: e.postedAtTs, titleText: e.title, title: titleWords(e.title) });
      byCompany.set(e.companyId, list);
    }
  }
  // The first look: each job's earlier jobs (archived, or earlier in this batch) within the window with a title alike.
  const looks = items.map(({ job, doc }) => {
    const postedAt = job.publishTimeTs ?? nowTs;
    const title = titleWords(job.title);
    const earlier = job.companyId === null ? [] : (byCompany.get(job.companyId) ?? []);
    const alike = earlier.filter(
      (c) =>
        c.ciphertext !== job.ciphertext && c.postedAtTs <= postedAt && postedAt - c.postedAtTs <= window && jaccard(title, c.title) >= REPOST_TITLE_PREFILTER,
    );
    // A later job of the batch may be a repost of this one.
    if (job.companyId !== null)
      byCompany.set(job.companyId, [{ ciphertext: job.ciphertext, url: job.url, postedAtTs: postedAt, titleText: job.title, title, doc }, ...earlier]);
    return alike;
  });
  const descriptions = await repo.descriptionsOf(
    db,
    looks.flatMap((l) => l.filter((c) => !c.doc).map((c) => c.ciphertext)),
  );
  // A candidate alike to several jobs of the batch is shingled once.
  const shingled = new Map<string, Set<string>>();
  const shinglesOf = (c: Earlier) => {
    let s = shingled.get(c.ciphertext);
    if (!s) shingled.set(c.ciphertext, (s = shingles(c.titleText, c.doc ? String(c.doc.description ?? "") : (descriptions.get(c.ciphertext) ?? ""))));
    return s;
  };
  const out = new Map<string, JobSignal[]>();
  for (const [i, { job, doc }] of items.entries()) {
    const earlier: RepostCandidate[] = looks[i]!.map((c) => ({
      ciphertext: c.ciphertext,
      url: c.url,
      postedAtTs: c.postedAtTs,
      shingles: shinglesOf(c),
      hired: async () => {
        if (c.doc) return hiredOf(c.doc);
        const row = await repo.findJob(db, c.ciphertext);
        return row ? hiredOf(row.document) : null;
      },
    }));
    const skill = mainSkill(job);
    out.set(
      job.ciphertext,
      await signalsOfJob(job, { nowTs, median: (s) => prices.median(s), mainSkill: skill, earlier, client: clientHistory(doc), textRules: scamSignals(job) }),
    );
  }
  return out;
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
      ...archiveColumns(job, source),
      document: doc,
      firstSeenAtTs: nowTs,
      exploredAtTs: job.exploredAt ?? nowTs,
      updatedAtTs: nowTs,
    });
  });
  return job.ciphertext;
}
