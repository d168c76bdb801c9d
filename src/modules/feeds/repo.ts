import { and, count, desc, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { prepared, rawStatement } from "../../db/prepared";
import { events, feedJobs, feeds, jobs } from "../../db/schema";

export type FeedRow = typeof feeds.$inferSelect;
export type FeedInsert = typeof feeds.$inferInsert;
export type FeedJobRow = typeof feedJobs.$inferSelect;

export function insertFeed(db: Db, row: FeedInsert): FeedRow {
  return db.insert(feeds).values(row).returning().get();
}

export function updateFeed(db: Db, id: string, changes: Partial<FeedInsert>): FeedRow | undefined {
  return db.update(feeds).set(changes).where(eq(feeds.id, id)).returning().get();
}

/** One account's feed; another account's feed is simply not found. */
export function findFeed(db: Db, accountId: string, id: string): FeedRow | undefined {
  return db
    .select()
    .from(feeds)
    .where(and(eq(feeds.id, id), eq(feeds.accountId, accountId)))
    .get();
}

export function findFeedById(db: Db, id: string): FeedRow | undefined {
  return prepared(db, "feeds.byId", (d) =>
    d
      .select()
      .from(feeds)
      .where(eq(feeds.id, sql.placeholder("id")))
      .prepare(),
  ).get({ id });
}

export function listFeeds(db: Db, accountId: string): FeedRow[] {
  return db.select().from(feeds).where(eq(feeds.accountId, accountId)).orderBy(feeds.createdAtTs).all();
}

export function countFeeds(db: Db, accountId: string): number {
  return db.select({ n: count() }).from(feeds).where(eq(feeds.accountId, accountId)).get()?.n ?? 0;
}

export function allFeeds(db: Db): FeedRow[] {
  return db.select().from(feeds).all();
}

/** Every distinct include term of the feeds that watch `platform` (or every platform): what a searching source asks for. */
export function searchTerms(db: Db, platform: string): string[] {
  const terms = new Set<string>();
  for (const row of db.select({ includes: feeds.includes, platforms: feeds.platforms }).from(feeds).all()) {
    if (row.platforms && !row.platforms.includes(platform)) continue;
    for (const term of row.includes) if (term.trim()) terms.add(term.trim().toLowerCase());
  }
  return [...terms].sort();
}

/** The feed, its matched jobs and its pending events go together (foreign keys cascade). */
export function deleteFeed(db: Db, accountId: string, id: string): boolean {
  return db.delete(feeds).where(and(eq(feeds.id, id), eq(feeds.accountId, accountId))).returning({ id: feeds.id }).all().length > 0;
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
export function insertFeedEntry(db: Db, match: MatchRecord): boolean {
  // Runs for every feed entry at ingest, so this and insertEvent are plain prepared statements (see rawStatement).
  const inserted = rawStatement(
    db,
    "feeds.insertMatch",
    `INSERT INTO feed_jobs (id, feed_id, account_id, job_ciphertext, matching_score, score_source, score_reason, matched_at_ts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  ).run(match.id, match.feedId, match.accountId, match.jobCiphertext, match.matchingScore, match.scoreSource, match.scoreReason, match.matchedAtTs);
  return inserted.changes > 0;
}

export interface EventInsert {
  id: string;
  type: string;
  accountId: string;
  feedId: string;
  feedJobId: string | null;
  jobCiphertext: string | null;
  createdAtTs: number;
  status: "pending" | "no_endpoint";
  nextAttemptAtTs: number | null;
}

/** One outbox row (see admit.ts queueEvent). */
export function insertEvent(db: Db, e: EventInsert): void {
  rawStatement(
    db,
    "feeds.insertEvent",
    `INSERT INTO events (id, type, account_id, feed_id, feed_job_id, job_ciphertext, created_at_ts, status, next_attempt_at_ts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(e.id, e.type, e.accountId, e.feedId, e.feedJobId, e.jobCiphertext, e.createdAtTs, e.status, e.nextAttemptAtTs);
}

export interface FeedJobListing {
  feedJob: FeedJobRow;
  job: Pick<typeof jobs.$inferSelect, "ciphertext" | "title" | "url" | "platform" | "source" | "jobType" | "hourlyMin" | "hourlyMax" | "fixedBudget" | "clientCountry" | "publishTimeTs">;
}

function selectListing(db: Db) {
  return db
    .select({
      feedJob: feedJobs,
      job: {
        ciphertext: jobs.ciphertext,
        title: jobs.title,
        url: jobs.url,
        platform: jobs.platform,
        source: jobs.source,
        jobType: jobs.jobType,
        hourlyMin: jobs.hourlyMin,
        hourlyMax: jobs.hourlyMax,
        fixedBudget: jobs.fixedBudget,
        clientCountry: jobs.clientCountry,
        publishTimeTs: jobs.publishTimeTs,
      },
    })
    .from(feedJobs)
    .innerJoin(jobs, eq(jobs.ciphertext, feedJobs.jobCiphertext));
}

export function listFeedJobs(
  db: Db,
  feedId: string,
  opts: { limit: number; offset: number; minScore?: number; unreadOnly?: boolean },
): { items: FeedJobListing[]; total: number } {
  const where = and(
    eq(feedJobs.feedId, feedId),
    opts.minScore !== undefined ? gte(feedJobs.matchingScore, opts.minScore) : undefined,
    opts.unreadOnly ? eq(feedJobs.read, false) : undefined,
  );
  const total = db.select({ n: count() }).from(feedJobs).where(where).get()?.n ?? 0;
  const items = selectListing(db).where(where).orderBy(desc(feedJobs.matchedAtTs), desc(feedJobs.id)).limit(opts.limit).offset(opts.offset).all();
  return { items, total };
}

export function getFeedJobListing(db: Db, feedId: string, id: string): FeedJobListing | undefined {
  return selectListing(db)
    .where(and(eq(feedJobs.feedId, feedId), eq(feedJobs.id, id)))
    .get();
}

export function findFeedJob(db: Db, feedId: string, id: string): FeedJobRow | undefined {
  return db
    .select()
    .from(feedJobs)
    .where(and(eq(feedJobs.feedId, feedId), eq(feedJobs.id, id)))
    .get();
}

export function updateFeedJob(db: Db, id: string, changes: { read?: boolean; starredAtTs?: number | null }): FeedJobRow | undefined {
  return db.update(feedJobs).set(changes).where(eq(feedJobs.id, id)).returning().get();
}

/** Why the feed's newest failed webhook event failed, or null when none did. */
export function lastWebhookError(db: Db, feedId: string): string | null {
  return (
    db
      .select({ error: events.lastError })
      .from(events)
      .where(and(eq(events.feedId, feedId), eq(events.status, "failed")))
      .orderBy(desc(events.seq))
      .limit(1)
      .get()?.error ?? null
  );
}

/** A processed job of this account (the UUID the API accepts as jobId); another account's is not found. */
export function findFeedJobForAccount(db: Db, accountId: string, id: string): FeedJobRow | undefined {
  return db
    .select()
    .from(feedJobs)
    .where(and(eq(feedJobs.id, id), eq(feedJobs.accountId, accountId)))
    .get();
}

export function findFeedJobById(db: Db, id: string): FeedJobRow | undefined {
  return prepared(db, "feeds.feedJobById", (d) =>
    d
      .select()
      .from(feedJobs)
      .where(eq(feedJobs.id, sql.placeholder("id")))
      .prepare(),
  ).get({ id });
}

/** This account's newest feed entry for a job (ids are time-ordered, so they break a tie). */
export function newestMatchOf(db: Db, accountId: string, jobCiphertext: string): FeedJobRow | undefined {
  return db
    .select()
    .from(feedJobs)
    .where(and(eq(feedJobs.jobCiphertext, jobCiphertext), eq(feedJobs.accountId, accountId)))
    .orderBy(desc(feedJobs.matchedAtTs), desc(feedJobs.id))
    .limit(1)
    .get();
}

/** This account's feed entries for a job (the `matches` of an archived job). */
export function matchesOfJob(db: Db, accountId: string, jobCiphertext: string): FeedJobRow[] {
  return db
    .select()
    .from(feedJobs)
    .where(and(eq(feedJobs.jobCiphertext, jobCiphertext), eq(feedJobs.accountId, accountId)))
    .orderBy(feedJobs.matchedAtTs)
    .all();
}
