import { and, count, desc, eq, gte, inArray, isNotNull, max, or, sql } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import { prepared, rawStatement } from "../../db/prepared";
import { feedJobs, feeds } from "../../db/schema";
import { jobSummaries, type JobSummary } from "../jobs/repo";

export type FeedRow = typeof feeds.$inferSelect;
export type FeedInsert = typeof feeds.$inferInsert;
export type FeedJobRow = typeof feedJobs.$inferSelect;

export function insertFeed(db: Db, row: FeedInsert): Promise<FeedRow> {
  return exclusive(db, () => db.insert(feeds).values(row).returning().get());
}

export function updateFeed(db: Db, id: string, changes: Partial<FeedInsert>): Promise<FeedRow | undefined> {
  return exclusive(db, () => db.update(feeds).set(changes).where(eq(feeds.id, id)).returning().get());
}

/** One account's feed; another account's feed is simply not found. */
export function findFeed(db: Db, accountId: string, id: string): Promise<FeedRow | undefined> {
  return exclusive(db, () =>
    db
      .select()
      .from(feeds)
      .where(and(eq(feeds.id, id), eq(feeds.accountId, accountId)))
      .get(),
  );
}

export function findFeedById(db: Db, id: string): Promise<FeedRow | undefined> {
  return exclusive(db, () =>
    prepared(db, "feeds.byId", (d) =>
      d
        .select()
        .from(feeds)
        .where(eq(feeds.id, sql.placeholder("id")))
        .prepare(),
    ).get({ id }),
  );
}

export function listFeeds(db: Db, accountId: string): Promise<FeedRow[]> {
  return exclusive(db, () => db.select().from(feeds).where(eq(feeds.accountId, accountId)).orderBy(feeds.createdAtTs).all());
}

export function countFeeds(db: Db, accountId: string): Promise<number> {
  return exclusive(db, () => db.select({ n: count() }).from(feeds).where(eq(feeds.accountId, accountId)).get()?.n ?? 0);
}

export function allFeeds(db: Db): Promise<FeedRow[]> {
  return exclusive(db, () => db.select().from(feeds).all());
}

/** Every distinct include term of the feeds that watch `platform` (or every platform): what a searching source asks for. */
export function searchTerms(db: Db, platform: string): Promise<string[]> {
  return exclusive(db, () => {
    const terms = new Set<string>();
    for (const row of db.select({ includes: feeds.includes, platforms: feeds.platforms }).from(feeds).all()) {
      if (row.platforms && !row.platforms.includes(platform)) continue;
      for (const term of row.includes) if (term.trim()) terms.add(term.trim().toLowerCase());
    }
    return [...terms].sort();
  });
}

/** The feed, its matched jobs and its pending events go together (foreign keys cascade). */
export function deleteFeed(db: Db, accountId: string, id: string): Promise<boolean> {
  return exclusive(
    db,
    () =>
      db
        .delete(feeds)
        .where(and(eq(feeds.id, id), eq(feeds.accountId, accountId)))
        .returning({ id: feeds.id })
        .all().length > 0,
  );
}

/**
 * The endpoint's health after a delivery (the deliverer reports each outcome
 * here): success clears the failing streak; a final failure starts it, and
 * past the limit disables the endpoint.
 */
export function noteDeliveryOutcome(
  db: Db,
  feedId: string,
  delivered: boolean,
  nowTs: number,
  disableAfterMs: number,
  lastProblem: string,
): Promise<"ok" | "failing" | "disabled"> {
  return exclusive(db, () => {
    if (delivered) {
      db.update(feeds).set({ webhookFailingSinceTs: null }).where(eq(feeds.id, feedId)).run();
      return "ok";
    }
    const feed = db.select({ since: feeds.webhookFailingSinceTs }).from(feeds).where(eq(feeds.id, feedId)).get();
    if (!feed) return "ok";
    if (feed.since === null) {
      db.update(feeds).set({ webhookFailingSinceTs: nowTs }).where(eq(feeds.id, feedId)).run();
      return "failing";
    }
    if (nowTs - feed.since < disableAfterMs) return "failing";
    db.update(feeds)
      .set({
        webhookDisabledAtTs: nowTs,
        webhookDisabledReason: `Disabled after every delivery failed for ${Math.round(disableAfterMs / 3_600_000)} hours (last: ${lastProblem}); save the webhook URL again to re-enable it`,
      })
      .where(and(eq(feeds.id, feedId), sql`${feeds.webhookDisabledAtTs} IS NULL`))
      .run();
    return "disabled";
  });
}

/**
 * Entries of each of the account's feeds per `bucketMs` window since `sinceTs`
 * (bucket 0 is the first), every feed in one grouped query; a feed with no
 * entry in the span gives one row with a null bucket and a zero count.
 */
export function entryCountsPerFeed(
  db: Db,
  accountId: string,
  sinceTs: number,
  bucketMs: number,
): Promise<{ feedId: string; title: string; createdAtTs: number; bucket: number | null; count: number }[]> {
  return exclusive(db, () => {
    const bucket = sql<number | null>`(${feedJobs.matchedAtTs} - ${sinceTs}) / ${bucketMs}`;
    return db
      .select({ feedId: feeds.id, title: feeds.title, createdAtTs: feeds.createdAtTs, bucket, count: sql<number>`count(${feedJobs.id})` })
      .from(feeds)
      .leftJoin(feedJobs, and(eq(feedJobs.feedId, feeds.id), gte(feedJobs.matchedAtTs, sinceTs)))
      .where(eq(feeds.accountId, accountId))
      .groupBy(feeds.id, bucket)
      .all()
      .map((r) => ({ ...r, count: Number(r.count) }));
  });
}

export interface WebhookProblem {
  feedId: string;
  title: string;
  disabledAtTs: number | null;
  disabledReason: string | null;
  failingSinceTs: number | null;
}

/** The account's feeds whose webhook endpoint is disabled or whose deliveries have been failing. */
export function feedsWithWebhookProblems(db: Db, accountId: string): Promise<WebhookProblem[]> {
  return exclusive(db, () =>
    db
      .select({
        feedId: feeds.id,
        title: feeds.title,
        disabledAtTs: feeds.webhookDisabledAtTs,
        disabledReason: feeds.webhookDisabledReason,
        failingSinceTs: feeds.webhookFailingSinceTs,
      })
      .from(feeds)
      .where(and(eq(feeds.accountId, accountId), or(isNotNull(feeds.webhookDisabledAtTs), isNotNull(feeds.webhookFailingSinceTs))))
      .orderBy(feeds.createdAtTs, feeds.id)
      .all(),
  );
}

export interface MatchRecord {
  id: string;
  feedId: string;
  accountId: string;
  jobCiphertext: string;
  matchingScore: number;
  scoreSource: string;
  scoreReason: string | null;
  matchedAtTs: number;
}

/** A job's entry in a feed (see admit.ts); false when the job is in the feed already. */
export function insertFeedEntry(db: Db, match: MatchRecord): Promise<boolean> {
  return exclusive(db, () => {
    // Runs for every feed entry at ingest, so this (like outbox.ts insertEvent) is a plain prepared statement (see rawStatement).
    const inserted = rawStatement(
      db,
      "feeds.insertMatch",
      `INSERT INTO feed_jobs (id, feed_id, account_id, job_ciphertext, matching_score, score_source, score_reason, matched_at_ts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ).run(match.id, match.feedId, match.accountId, match.jobCiphertext, match.matchingScore, match.scoreSource, match.scoreReason, match.matchedAtTs);
    return inserted.changes > 0;
  });
}

export interface FeedJobListing {
  feedJob: FeedJobRow;
  job: JobSummary;
}

/** Each entry with its job's summary (asked of jobs, which owns the archive), in the entries' order. */
async function withJobs(db: Db, entries: FeedJobRow[]): Promise<FeedJobListing[]> {
  const summaries = await jobSummaries(
    db,
    entries.map((e) => e.jobCiphertext),
  );
  return entries.flatMap((feedJob) => {
    const job = summaries.get(feedJob.jobCiphertext);
    return job ? [{ feedJob, job }] : [];
  });
}

export async function listFeedJobs(
  db: Db,
  feedId: string,
  opts: { limit: number; offset: number; minScore?: number; unreadOnly?: boolean },
): Promise<{ items: FeedJobListing[]; total: number }> {
  const where = and(
    eq(feedJobs.feedId, feedId),
    opts.minScore !== undefined ? gte(feedJobs.matchingScore, opts.minScore) : undefined,
    opts.unreadOnly ? eq(feedJobs.read, false) : undefined,
  );
  const { total, entries } = await exclusive(db, () => ({
    total: db.select({ n: count() }).from(feedJobs).where(where).get()?.n ?? 0,
    entries: db.select().from(feedJobs).where(where).orderBy(desc(feedJobs.matchedAtTs), desc(feedJobs.id)).limit(opts.limit).offset(opts.offset).all(),
  }));
  return { items: await withJobs(db, entries), total };
}

export async function getFeedJobListing(db: Db, feedId: string, id: string): Promise<FeedJobListing | undefined> {
  const entry = await findFeedJob(db, feedId, id);
  return entry ? (await withJobs(db, [entry]))[0] : undefined;
}

export function findFeedJob(db: Db, feedId: string, id: string): Promise<FeedJobRow | undefined> {
  return exclusive(db, () =>
    db
      .select()
      .from(feedJobs)
      .where(and(eq(feedJobs.feedId, feedId), eq(feedJobs.id, id)))
      .get(),
  );
}

export function updateFeedJob(db: Db, id: string, changes: { read?: boolean; starredAtTs?: number | null }): Promise<FeedJobRow | undefined> {
  return exclusive(db, () => db.update(feedJobs).set(changes).where(eq(feedJobs.id, id)).returning().get());
}

/** A processed job of this account (the UUID the API accepts as jobId); another account's is not found. */
export function findFeedJobForAccount(db: Db, accountId: string, id: string): Promise<FeedJobRow | undefined> {
  return exclusive(db, () =>
    db
      .select()
      .from(feedJobs)
      .where(and(eq(feedJobs.id, id), eq(feedJobs.accountId, accountId)))
      .get(),
  );
}

export function findFeedJobById(db: Db, id: string): Promise<FeedJobRow | undefined> {
  return exclusive(db, () =>
    prepared(db, "feeds.feedJobById", (d) =>
      d
        .select()
        .from(feedJobs)
        .where(eq(feedJobs.id, sql.placeholder("id")))
        .prepare(),
    ).get({ id }),
  );
}

/** The matching score of each of these feed entries by id (entries deleted since are left out). */
export function entryScores(db: Db, ids: readonly string[]): Promise<Map<string, number>> {
  return exclusive(db, () => {
    if (ids.length === 0) return new Map();
    const rows = db
      .select({ id: feedJobs.id, score: feedJobs.matchingScore })
      .from(feedJobs)
      .where(inArray(feedJobs.id, [...new Set(ids)]))
      .all();
    return new Map(rows.map((r) => [r.id, r.score]));
  });
}

/** This account's best matching score for each of these jobs, over all its feeds (jobs in none are left out). */
export function bestScoresOfJobs(db: Db, accountId: string, jobCiphertexts: readonly string[]): Promise<Map<string, number>> {
  return exclusive(db, () => {
    if (jobCiphertexts.length === 0) return new Map();
    const rows = db
      .select({ jobCiphertext: feedJobs.jobCiphertext, score: max(feedJobs.matchingScore) })
      .from(feedJobs)
      .where(and(eq(feedJobs.accountId, accountId), inArray(feedJobs.jobCiphertext, [...new Set(jobCiphertexts)])))
      .groupBy(feedJobs.jobCiphertext)
      .all();
    return new Map(rows.flatMap((r) => (r.score === null ? [] : [[r.jobCiphertext, r.score] as const])));
  });
}

/** This account's newest feed entry for a job (ids are time-ordered, so they break a tie). */
export function newestMatchOf(db: Db, accountId: string, jobCiphertext: string): Promise<FeedJobRow | undefined> {
  return exclusive(db, () =>
    db
      .select()
      .from(feedJobs)
      .where(and(eq(feedJobs.jobCiphertext, jobCiphertext), eq(feedJobs.accountId, accountId)))
      .orderBy(desc(feedJobs.matchedAtTs), desc(feedJobs.id))
      .limit(1)
      .get(),
  );
}

/** This account's feed entries for a job (the `matches` of an archived job). */
export function matchesOfJob(db: Db, accountId: string, jobCiphertext: string): Promise<FeedJobRow[]> {
  return exclusive(db, () =>
    db
      .select()
      .from(feedJobs)
      .where(and(eq(feedJobs.jobCiphertext, jobCiphertext), eq(feedJobs.accountId, accountId)))
      .orderBy(feedJobs.matchedAtTs)
      .all(),
  );
}
