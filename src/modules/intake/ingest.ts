/**
 * Intake: where "a document arrived" is handled, whoever brought it — a polled
 * source (runner.ts), the tracker re-reading a watched job (track.task.ts),
 * push (POST /admin/jobs, `jobpilot ingest`) or a capture. Every path ends
 * here, and the pipeline runs one way from here: archive (jobs) → match
 * (feeds' index) → admit now (feeds/admit, feeds without a prompt) or queue
 * scoring (scoring, which admits through the same door).
 */
import { tx, type Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import type { Metrics } from "../../metrics";
import { syncFeedIndex } from "../feeds/index-sync";
import { type Admission, admitJobs, screenJobs } from "../feeds/admit";
import type { CompiledFeed, FeedIndex } from "../feeds/matcher";
import { EMPTY_PROMPT_SCORE } from "../feeds/service";
import type { JobSignal } from "../jobs/signals";
import { archiveDocument, archiveNewDocuments, findArchived } from "../jobs/archive";
import type { JobDocument } from "../../sources/document";
import { normalizeJob, type NormalizedJob } from "../jobs/normalize";
import { priceSampleOf } from "../jobs/price-sample";
import { queueScorings } from "../scoring/service";

export interface IngestDeps {
  db: Db;
  clock: Clock;
  feedIndex: FeedIndex;
  config: { trackerMaxAgeDays: number };
  /** Called after a commit that queued work (scoring tasks, outbox events), to wake the workers at once. */
  wake: () => void;
  metrics: Metrics;
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

/**
 * Archives documents and runs every new job through the feeds, all in one
 * transaction: a job is stored, matched, and its feed entries, notification
 * events and scoring tasks are written together or not at all. A known job
 * (same ciphertext) only refreshes its document (the freshest `exploredAt`
 * wins) and is never matched or notified again. Bad documents are rejected one
 * by one with the reason and never stop the rest.
 */
export async function ingestDocuments(deps: IngestDeps, docs: unknown[], opts: { source: string; numbering?: (i: number) => number }): Promise<IngestResult> {
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
  if (valid.length === 0) return countIngest(deps.metrics, opts.source, result);

  // On PostgreSQL another node may have changed the feeds since this one last matched.
  await syncFeedIndex(deps.db, deps.feedIndex);
  // Read outside the transaction (its first use reads the archive); it is fed the batch's jobs once they commit.
  const prices = await priceSampleOf(deps.db);
  const now = deps.clock.now();
  const trackerMaxAgeMs = deps.config.trackerMaxAgeDays * 86_400_000;
  // Counted inside the transaction and kept only once it commits: on PostgreSQL tx() runs the callback again
  // after a serialization failure (two nodes ingesting the same jobs), and a lost attempt must not count.
  //
  // The writes go by table, one statement per batch (multi-row INSERTs), not row by row: a job entering
  // ~20 feeds would otherwise cost ~60 statements. The archive is read once for the whole batch; a ciphertext
  // met again later in the batch is a known job by then, handled as before once the new ones are written.
  let firstSeen: typeof valid = [];
  const counts = await tx(deps.db, async (db) => {
    const counts = { inserted: 0, updated: 0, matched: 0, scoring: 0 };
    firstSeen = [];
    const archived = await findArchived(
      db,
      valid.map((v) => v.job.ciphertext),
    );
    const fresh: typeof valid = [];
    const again: typeof valid = [];
    const seen = new Set<string>();
    for (const item of valid) {
      const c = item.job.ciphertext;
      if (seen.has(c)) {
        again.push(item);
        continue;
      }
      seen.add(c);
      const exploredAtTs = archived.get(c);
      if (exploredAtTs === undefined) fresh.push(item);
      else {
        await archiveDocument(db, item.job, item.doc, { source: opts.source, nowTs: now, trackerMaxAgeMs, known: { exploredAtTs } });
        counts.updated++;
      }
    }
    if (fresh.length > 0) {
      // The signals are computed and stored here, in this transaction, with the job (archive.ts): a SIGKILL
      // leaves the job, its signals, its feed entries, filtered-out rows and scoring tasks all written or none.
      const signals = await archiveNewDocuments(db, fresh, { source: opts.source, nowTs: now, prices });
      counts.inserted += fresh.length;
      firstSeen = fresh;
      const toScore: { feedId: string; ciphertext: string }[] = [];
      const admissions: { feeds: CompiledFeed[]; job: Admission }[] = [];
      // Matches of feeds with a prompt are screened now (client list, signal rules): one kept out is recorded
      // and costs no scoring; the rest are screened again when their score lets them in (admit.ts).
      const screen: { feed: CompiledFeed; job: { jobCiphertext: string; companyId: string | null; signals: JobSignal[]; nowTs: number } }[] = [];
      for (const { job, doc } of fresh) {
        const unscored: CompiledFeed[] = [];
        const jobSignals = signals.get(job.ciphertext) ?? [];
        for (const feed of deps.feedIndex.match({ ...job, firstSeenAtTs: now })) {
          // Every prompt-less match goes to admitJobs, which checks minScore (a favoured client's job may pass under it).
          if (feed.profilePrompt.trim() === "") unscored.push(feed);
          else screen.push({ feed, job: { jobCiphertext: job.ciphertext, companyId: job.companyId, signals: jobSignals, nowTs: now } });
        }
        if (unscored.length === 0) continue;
        // A feed without a profilePrompt takes every match at the same score, with no scoring task.
        admissions.push({
          feeds: unscored,
          job: {
            jobCiphertext: job.ciphertext,
            document: doc,
            score: EMPTY_PROMPT_SCORE,
            scoreSource: "default",
            scoreReason: "No profilePrompt on this feed: every match scores 5",
            nowTs: now,
            companyId: job.companyId,
            signals: jobSignals,
          },
        });
      }
      for (const n of await admitJobs(db, admissions)) counts.matched += n;
      const verdicts = await screenJobs(db, screen);
      screen.forEach(({ feed, job }, i) => {
        if (verdicts[i]!.kind === "admit") toScore.push({ feedId: feed.id, ciphertext: job.jobCiphertext });
      });
      await queueScorings(db, toScore, now);
      counts.scoring += toScore.length;
    }
    for (const { job, doc } of again) {
      await archiveDocument(db, job, doc, { source: opts.source, nowTs: now, trackerMaxAgeMs });
      counts.updated++;
    }
    return counts;
  });
  Object.assign(result, counts);
  for (const { job } of firstSeen) prices.add(job);
  for (const { job } of firstSeen) deps.metrics.observeSpeed("first_seen", opts.source, job.publishTimeTs, now);
  if (result.matched > 0 || result.scoring > 0) deps.wake();
  return countIngest(deps.metrics, opts.source, result);
}

/** The batch's counts on the metrics, once it committed (source names are few: configured sources, push, capture). */
function countIngest(metrics: Metrics, source: string, result: IngestResult): IngestResult {
  if (result.inserted) metrics.jobsIngested.labels(source, "new").inc(result.inserted);
  if (result.updated) metrics.jobsIngested.labels(source, "known").inc(result.updated);
  if (result.rejected) metrics.jobsIngested.labels(source, "rejected").inc(result.rejected);
  if (result.matched) metrics.matches.labels("default").inc(result.matched);
  return result;
}
