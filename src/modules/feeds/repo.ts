import { and, count, desc, eq, gt, gte, inArray, isNotNull, isNull, lte, max, notLike, or, sql, type SQL } from "drizzle-orm";
import { tx, type Db } from "../../db/client";
import { exec, many, manyNow, one, preparedMany, preparedOne, rawExec, rawInsertCount, tables } from "../../db/query";
import { readCache } from "../../db/read-cache";
import type { feedJobs, feeds, filteredJobs } from "../../db/schema";
import { jobsMatching, jobSummaries, type JobSummary } from "../jobs/repo";

export type FeedRow = typeof feeds.$inferSelect;
export type FeedInsert = typeof feeds.$inferInsert;
export type FeedJobRow = typeof feedJobs.$inferSelect;

/** Each account's feed list, for GET /api/v1/feeds (see db/read-cache.ts; SQLite only). */
const feedListCache = readCache<readonly FeedRow[]>({ name: "feeds" });

/** Every write to the feeds table calls this: this module's, and the outbox's leases. */
export function invalidateFeedCaches(db: Db): void {
  feedListCache.invalidate(db);
}

export async function insertFeed(db: Db, row: FeedInsert): Promise<FeedRow> {
  const { feeds } = tables(db);
  invalidateFeedCaches(db);
  return (await one(db, db.insert(feeds).values(row).returning()))!;
}

export function updateFeed(db: Db, id: string, changes: Partial<FeedInsert>): Promise<FeedRow | undefined> {
  const { feeds } = tables(db);
  invalidateFeedCaches(db);
  return one(db, db.update(feeds).set(changes).where(eq(feeds.id, id)).returning());
}

type WebhookColumns = Pick<FeedRow, "webhookUrl" | "webhookSecret" | "webhookPreviousSecret">;
type FeedsTable = ReturnType<typeof tables>["feeds"];
type WebhookColumn = FeedsTable["webhookUrl"] | FeedsTable["webhookSecret"] | FeedsTable["webhookPreviousSecret"];

/**
 * Feeds with a webhook value stored in clear (feeds/webhook-seal.ts). An envelope is a JSON object, so a
 * value not starting with `{` is surely clear; the caller tells the rest apart.
 */
export function feedsWithClearWebhooks(db: Db): Promise<(WebhookColumns & { id: string })[]> {
  const { feeds } = tables(db);
  const clear = (column: WebhookColumn) => and(isNotNull(column), notLike(column, "{%"));
  return many(
    db,
    db
      .select({ id: feeds.id, webhookUrl: feeds.webhookUrl, webhookSecret: feeds.webhookSecret, webhookPreviousSecret: feeds.webhookPreviousSecret })
      .from(feeds)
      .where(or(clear(feeds.webhookUrl), clear(feeds.webhookSecret), clear(feeds.webhookPreviousSecret))),
  );
}

/**
 * Writes `next` over the feed's webhook values only while they are still `read` (compare-and-set): a save or
 * a rotation in between wins, and a second run finds nothing to replace. updated_at_ts stays: nothing the
 * feed index reads changes. Returns whether the row was replaced.
 */
export async function replaceWebhookValues(db: Db, id: string, read: WebhookColumns, next: WebhookColumns): Promise<boolean> {
  const { feeds } = tables(db);
  const still = (column: WebhookColumn, value: string | null) => (value === null ? isNull(column) : eq(column, value));
  invalidateFeedCaches(db);
  const changed = await exec(
    db,
    db
      .update(feeds)
      .set(next)
      .where(
        and(
          eq(feeds.id, id),
          still(feeds.webhookUrl, read.webhookUrl),
          still(feeds.webhookSecret, read.webhookSecret),
          still(feeds.webhookPreviousSecret, read.webhookPreviousSecret),
        ),
      ),
  );
  return changed > 0;
}

/** One account's feed; another account's feed is simply not found. */
export function findFeed(db: Db, accountId: string, id: string): Promise<FeedRow | undefined> {
  const { feeds } = tables(db);
  return one(
    db,
    db
      .select()
      .from(feeds)
      .where(and(eq(feeds.id, id), eq(feeds.accountId, accountId))),
  );
}

export function findFeedById(db: Db, id: string): Promise<FeedRow | undefined> {
  return preparedOne(
    db,
    "feeds.byId",
    (d) => {
      const { feeds } = tables(d);
      return d
        .select()
        .from(feeds)
        .where(eq(feeds.id, sql.placeholder("id")));
    },
    { id },
  );
}

/**
 * An account's feeds, oldest first. Prepared once per connection, since building this 30-column select on every
 * GET /api/v1/feeds was costly, and sorted here, since an ORDER BY the account index cannot serve opens a sorter
 * even for no rows (docs/performance.md, 'Why the code is as it is'). The index gives one account's rows in insertion
 * order, which the stable sort keeps for feeds created in the same millisecond.
 */
export async function listFeeds(db: Db, accountId: string): Promise<FeedRow[]> {
  const rows = await preparedMany(
    db,
    "feeds.byAccount",
    (d) => {
      const { feeds } = tables(d);
      return d
        .select()
        .from(feeds)
        .where(eq(feeds.accountId, sql.placeholder("accountId")));
    },
    { accountId },
  );
  return rows.sort((a, b) => a.createdAtTs - b.createdAtTs);
}

/** listFeeds, answered from memory while the account's feeds are unchanged (SQLite). Read-only: the list is shared. */
export async function listFeedsCached(db: Db, accountId: string): Promise<readonly FeedRow[]> {
  return (await feedListCache.get(db, accountId, () => listFeeds(db, accountId)))!;
}

export async function countFeeds(db: Db, accountId: string): Promise<number> {
  const { feeds } = tables(db);
  return (await one(db, db.select({ n: count() }).from(feeds).where(eq(feeds.accountId, accountId))))?.n ?? 0;
}

/**
 * A fingerprint of every feed's last change: the count, and the sum and maximum of updated_at_ts. Any
 * create, change or delete moves it (every write sets updated_at_ts), so a node can tell that another one
 * changed the feeds without reading them.
 */
export async function feedsFingerprint(db: Db): Promise<string> {
  const { feeds } = tables(db);
  const row = await one(
    db,
    db
      .select({
        n: count(),
        sum: sql<string>`coalesce(sum(${feeds.updatedAtTs}), 0)`.mapWith(String),
        last: sql<string>`coalesce(max(${feeds.updatedAtTs}), 0)`.mapWith(String),
      })
      .from(feeds),
  );
  return `${row?.n ?? 0}:${row?.sum ?? 0}:${row?.last ?? 0}`;
}

/** Every feed: the one query of allFeeds and allFeedsNow. */
const allFeedsQuery = (db: Db) => db.select().from(tables(db).feeds);

export function allFeeds(db: Db): Promise<FeedRow[]> {
  return many(db, allFeedsQuery(db));
}

/** allFeeds at once (SQLite only; see manyNow). */
export function allFeedsNow(db: Db): FeedRow[] {
  return manyNow(db, allFeedsQuery(db));
}

/** Every distinct include term of the feeds that watch `platform` (or every platform): what a searching source asks for. */
export async function searchTerms(db: Db, platform: string): Promise<string[]> {
  const { feeds } = tables(db);
  const terms = new Set<string>();
  for (const row of await many(db, db.select({ includes: feeds.includes, platforms: feeds.platforms }).from(feeds))) {
    if (row.platforms && !row.platforms.includes(platform)) continue;
    for (const term of row.includes) if (term.trim()) terms.add(term.trim().toLowerCase());
  }
  return [...terms].sort();
}

/** The feed, its matched jobs and its pending events go together (foreign keys cascade). */
export async function deleteFeed(db: Db, accountId: string, id: string): Promise<boolean> {
  const { feeds } = tables(db);
  invalidateFeedCaches(db);
  const deleted = await many(
    db,
    db
      .delete(feeds)
      .where(and(eq(feeds.id, id), eq(feeds.accountId, accountId)))
      .returning({ id: feeds.id }),
  );
  return deleted.length > 0;
}

/**
 * The endpoint's health after a delivery (the deliverer reports each outcome
 * here): success clears the failing streak; a final failure starts it, and
 * past the limit disables the endpoint.
 */
export async function noteDeliveryOutcome(
  db: Db,
  feedId: string,
  delivered: boolean,
  nowTs: number,
  disableAfterMs: number,
  lastProblem: string,
): Promise<"ok" | "failing" | "disabled"> {
  const { feeds } = tables(db);
  invalidateFeedCaches(db);
  if (delivered) {
    await exec(db, db.update(feeds).set({ webhookFailingSinceTs: null }).where(eq(feeds.id, feedId)));
    return "ok";
  }
  // Read and written in one transaction: two failures reported at once (two nodes) must not both start the streak.
  return tx(db, async (t) => {
    const feed = await one(t, t.select({ since: feeds.webhookFailingSinceTs }).from(feeds).where(eq(feeds.id, feedId)));
    if (!feed) return "ok";
    if (feed.since === null) {
      await exec(t, t.update(feeds).set({ webhookFailingSinceTs: nowTs }).where(eq(feeds.id, feedId)));
      return "failing";
    }
    if (nowTs - feed.since < disableAfterMs) return "failing";
    await exec(
      t,
      t
        .update(feeds)
        .set({
          webhookDisabledAtTs: nowTs,
          webhookDisabledReason: `Disabled after every delivery failed for ${Math.round(disableAfterMs / 3_600_000)} hours (last: ${lastProblem}); save the webhook URL again to re-enable it`,
        })
        .where(and(eq(feeds.id, feedId), sql`${feeds.webhookDisabledAtTs} IS NULL`)),
    );
    return "disabled";
  });
}

/** An integer written into the SQL text: PostgreSQL matches a GROUP BY expression to the selected one only when both are the same text. */
function literalInt(n: number) {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return sql.raw(String(n));
}

/**
 * Entries of each of the account's feeds per `bucketMs` window since `sinceTs`
 * (bucket 0 is the first), every feed in one grouped query; a feed with no
 * entry in the span gives one row with a null bucket and a zero count.
 */
export async function entryCountsPerFeed(
  db: Db,
  accountId: string,
  sinceTs: number,
  bucketMs: number,
): Promise<{ feedId: string; title: string; createdAtTs: number; bucket: number | null; count: number }[]> {
  const { feeds, feedJobs } = tables(db);
  const bucket = sql<number | null>`(${feedJobs.matchedAtTs} - ${literalInt(sinceTs)}) / ${literalInt(bucketMs)}`.mapWith(Number);
  const rows = await many(
    db,
    db
      .select({ feedId: feeds.id, title: feeds.title, createdAtTs: feeds.createdAtTs, bucket, count: count(feedJobs.id) })
      .from(feeds)
      .leftJoin(feedJobs, and(eq(feedJobs.feedId, feeds.id), gte(feedJobs.matchedAtTs, sinceTs)))
      .where(eq(feeds.accountId, accountId))
      .groupBy(feeds.id, bucket),
  );
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}

export interface WebhookProblem {
  feedId: string;
  accountId: string;
  title: string;
  disabledAtTs: number | null;
  disabledReason: string | null;
  failingSinceTs: number | null;
}

/** The account's feeds (every account's, for `jobpilot doctor`, when none is named) whose webhook endpoint is disabled or whose deliveries have been failing. */
export function feedsWithWebhookProblems(db: Db, accountId: string | null): Promise<WebhookProblem[]> {
  const { feeds } = tables(db);
  return many(
    db,
    db
      .select({
        feedId: feeds.id,
        accountId: feeds.accountId,
        title: feeds.title,
        disabledAtTs: feeds.webhookDisabledAtTs,
        disabledReason: feeds.webhookDisabledReason,
        failingSinceTs: feeds.webhookFailingSinceTs,
      })
      .from(feeds)
      .where(
        and(accountId === null ? undefined : eq(feeds.accountId, accountId), or(isNotNull(feeds.webhookDisabledAtTs), isNotNull(feeds.webhookFailingSinceTs))),
      )
      .orderBy(feeds.createdAtTs, feeds.id),
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
export async function insertFeedEntry(db: Db, match: MatchRecord): Promise<boolean> {
  // Runs for every feed entry at ingest, so this (like outbox.ts insertEvent) is plain SQL (see rawExec).
  const inserted = await rawExec(
    db,
    "feeds.insertMatch",
    `INSERT INTO feed_jobs (id, feed_id, account_id, job_ciphertext, matching_score, score_source, score_reason, matched_at_ts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    [match.id, match.feedId, match.accountId, match.jobCiphertext, match.matchingScore, match.scoreSource, match.scoreReason, match.matchedAtTs],
  );
  return inserted > 0;
}

/**
 * Feed entries of a batch, in one statement per chunk (see rawInsertCount); an entry whose (job, feed) pair is
 * there already is skipped. Returns the ids of the entries inserted.
 *
 * Written without RETURNING, a sizeable share of the statement on a batch (docs/performance.md, 'Why the code is as it is'): when every entry
 * went in (always so for jobs new to the archive) the ids are the ones given; otherwise the ids, all new
 * UUIDs, are looked up.
 */
export async function insertFeedEntries(db: Db, matches: readonly MatchRecord[]): Promise<Set<string>> {
  const written = await rawInsertCount(
    db,
    "feeds.insertMatches",
    {
      head: "INSERT INTO feed_jobs (id, feed_id, account_id, job_ciphertext, matching_score, score_source, score_reason, matched_at_ts)",
      row: "(?, ?, ?, ?, ?, ?, ?, ?)",
      tail: "ON CONFLICT DO NOTHING",
    },
    matches.map((m) => [m.id, m.feedId, m.accountId, m.jobCiphertext, m.matchingScore, m.scoreSource, m.scoreReason, m.matchedAtTs]),
  );
  const ids = matches.map((m) => m.id);
  if (written === ids.length) return new Set(ids);
  const { feedJobs } = tables(db);
  const found = new Set<string>();
  for (let at = 0; at < ids.length; at += 500) {
    const chunk = ids.slice(at, at + 500);
    for (const r of await many(db, db.select({ id: feedJobs.id }).from(feedJobs).where(inArray(feedJobs.id, chunk)))) found.add(r.id);
  }
  return found;
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
  const { feedJobs } = tables(db);
  const where = and(
    eq(feedJobs.feedId, feedId),
    opts.minScore !== undefined ? gte(feedJobs.matchingScore, opts.minScore) : undefined,
    opts.unreadOnly ? eq(feedJobs.read, false) : undefined,
  );
  const total = (await one(db, db.select({ n: count() }).from(feedJobs).where(where)))?.n ?? 0;
  const entries = await many(
    db,
    db.select().from(feedJobs).where(where).orderBy(desc(feedJobs.matchedAtTs), desc(feedJobs.id)).limit(opts.limit).offset(opts.offset),
  );
  return { items: await withJobs(db, entries), total };
}

export async function getFeedJobListing(db: Db, feedId: string, id: string): Promise<FeedJobListing | undefined> {
  const entry = await findFeedJob(db, feedId, id);
  return entry ? (await withJobs(db, [entry]))[0] : undefined;
}

export function findFeedJob(db: Db, feedId: string, id: string): Promise<FeedJobRow | undefined> {
  const { feedJobs } = tables(db);
  return one(
    db,
    db
      .select()
      .from(feedJobs)
      .where(and(eq(feedJobs.feedId, feedId), eq(feedJobs.id, id))),
  );
}

export function updateFeedJob(
  db: Db,
  id: string,
  changes: { read?: boolean; starredAtTs?: number | null; dismissedAtTs?: number | null },
): Promise<FeedJobRow | undefined> {
  const { feedJobs } = tables(db);
  return one(db, db.update(feedJobs).set(changes).where(eq(feedJobs.id, id)).returning());
}

/** A processed job of this account (the UUID the API accepts as jobId); another account's is not found. */
export function findFeedJobForAccount(db: Db, accountId: string, id: string): Promise<FeedJobRow | undefined> {
  const { feedJobs } = tables(db);
  return one(
    db,
    db
      .select()
      .from(feedJobs)
      .where(and(eq(feedJobs.id, id), eq(feedJobs.accountId, accountId))),
  );
}

export function findFeedJobById(db: Db, id: string): Promise<FeedJobRow | undefined> {
  return preparedOne(
    db,
    "feeds.feedJobById",
    (d) => {
      const { feedJobs } = tables(d);
      return d
        .select()
        .from(feedJobs)
        .where(eq(feedJobs.id, sql.placeholder("id")));
    },
    { id },
  );
}

/** The matching score of each of these feed entries by id (entries deleted since are left out). */
export async function entryScores(db: Db, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const { feedJobs } = tables(db);
  const rows = await many(
    db,
    db
      .select({ id: feedJobs.id, score: feedJobs.matchingScore })
      .from(feedJobs)
      .where(inArray(feedJobs.id, [...new Set(ids)])),
  );
  return new Map(rows.map((r) => [r.id, r.score]));
}

/** This account's best matching score for each of these jobs, over all its feeds (jobs in none are left out). */
export async function bestScoresOfJobs(db: Db, accountId: string, jobCiphertexts: readonly string[]): Promise<Map<string, number>> {
  if (jobCiphertexts.length === 0) return new Map();
  const { feedJobs } = tables(db);
  const rows = await many(
    db,
    db
      .select({ jobCiphertext: feedJobs.jobCiphertext, score: max(feedJobs.matchingScore) })
      .from(feedJobs)
      .where(and(eq(feedJobs.accountId, accountId), inArray(feedJobs.jobCiphertext, [...new Set(jobCiphertexts)])))
      .groupBy(feedJobs.jobCiphertext),
  );
  return new Map(rows.flatMap((r) => (r.score === null ? [] : [[r.jobCiphertext, Number(r.score)] as const])));
}

/** This account's newest feed entry for a job (ids are time-ordered, so they break a tie). */
export function newestMatchOf(db: Db, accountId: string, jobCiphertext: string): Promise<FeedJobRow | undefined> {
  const { feedJobs } = tables(db);
  return one(
    db,
    db
      .select()
      .from(feedJobs)
      .where(and(eq(feedJobs.jobCiphertext, jobCiphertext), eq(feedJobs.accountId, accountId)))
      .orderBy(desc(feedJobs.matchedAtTs), desc(feedJobs.id))
      .limit(1),
  );
}

/** This account's feed entries for a job (the `matches` of an archived job). */
export function matchesOfJob(db: Db, accountId: string, jobCiphertext: string): Promise<FeedJobRow[]> {
  const { feedJobs } = tables(db);
  return many(
    db,
    db
      .select()
      .from(feedJobs)
      .where(and(eq(feedJobs.jobCiphertext, jobCiphertext), eq(feedJobs.accountId, accountId)))
      .orderBy(feedJobs.matchedAtTs),
  );
}

/**
 * When each job entered each of these feeds (its score was settled then: at ingest for a feed without a
 * prompt, when the scoring task finished otherwise). One seek of feed_jobs_feed_matched_idx per feed.
 */
export async function entryTimesOfFeeds(db: Db, feedIds: readonly string[]): Promise<{ feedId: string; jobCiphertext: string; matchedAtTs: number }[]> {
  if (feedIds.length === 0) return [];
  const { feedJobs } = tables(db);
  return many(
    db,
    db
      .select({ feedId: feedJobs.feedId, jobCiphertext: feedJobs.jobCiphertext, matchedAtTs: feedJobs.matchedAtTs })
      .from(feedJobs)
      .where(inArray(feedJobs.feedId, [...feedIds])),
  );
}

/** Which of an account's feed entries the dashboard's inbox shows; every field narrows the list. */
export interface InboxFilter {
  feedId?: string;
  minScore?: number;
  /** unread, starred or all live entries, or the dismissed ones (to undo a dismissal). */
  show: "unread" | "starred" | "all" | "dismissed";
  platform?: string;
  text?: string;
  /** Only entries matched after this time (the "N new" badge) … */
  afterTs?: number;
  /** … or at or before it (a page of the list stays put while new matches arrive). */
  untilTs?: number;
  /** Routing: these feeds' entries come first (the signed-in member's own feeds), each part newest first. */
  firstFeedIds?: readonly string[];
}

function inboxWhere(db: Db, accountId: string, f: InboxFilter): SQL | undefined {
  const { feeds, feedJobs } = tables(db);
  const jobs = jobsMatching(db, { platform: f.platform, text: f.text });
  return and(
    eq(feeds.accountId, accountId),
    f.feedId !== undefined ? eq(feedJobs.feedId, f.feedId) : undefined,
    f.minScore !== undefined ? gte(feedJobs.matchingScore, f.minScore) : undefined,
    f.show === "dismissed" ? isNotNull(feedJobs.dismissedAtTs) : isNull(feedJobs.dismissedAtTs),
    f.show === "unread" ? eq(feedJobs.read, false) : undefined,
    f.show === "starred" ? isNotNull(feedJobs.starredAtTs) : undefined,
    jobs ? inArray(feedJobs.jobCiphertext, jobs) : undefined,
    f.afterTs !== undefined ? gt(feedJobs.matchedAtTs, f.afterTs) : undefined,
    f.untilTs !== undefined ? lte(feedJobs.matchedAtTs, f.untilTs) : undefined,
  );
}

export interface InboxEntry extends FeedJobListing {
  feedTitle: string;
}

/** Entries with their feed's title, given their job summaries (entries whose job is gone are left out). */
async function inboxEntries(db: Db, rows: { feedJob: FeedJobRow; feedTitle: string }[]): Promise<InboxEntry[]> {
  const titles = new Map(rows.map((r) => [r.feedJob.id, r.feedTitle]));
  return (
    await withJobs(
      db,
      rows.map((r) => r.feedJob),
    )
  ).map((l) => ({ ...l, feedTitle: titles.get(l.feedJob.id)! }));
}

/**
 * A page of the account's feed entries across all its feeds, newest first, with the total the filter
 * matches. Read through the account's feeds (their index, then each feed's entries by time).
 */
export async function listInbox(
  db: Db,
  accountId: string,
  filter: InboxFilter,
  page: { limit: number; offset: number },
): Promise<{ entries: InboxEntry[]; total: number }> {
  const { feeds, feedJobs } = tables(db);
  const where = inboxWhere(db, accountId, filter);
  const total = Number((await one(db, db.select({ n: count() }).from(feedJobs).innerJoin(feeds, eq(feeds.id, feedJobs.feedId)).where(where)))?.n ?? 0);
  const rows = await many(
    db,
    db
      .select({ feedJob: feedJobs, feedTitle: feeds.title })
      .from(feedJobs)
      .innerJoin(feeds, eq(feeds.id, feedJobs.feedId))
      .where(where)
      .orderBy(
        ...(filter.firstFeedIds?.length ? [sql`CASE WHEN ${inArray(feedJobs.feedId, [...filter.firstFeedIds])} THEN 0 ELSE 1 END`] : []),
        desc(feedJobs.matchedAtTs),
        desc(feedJobs.id),
      )
      .limit(page.limit)
      .offset(page.offset),
  );
  return { entries: await inboxEntries(db, rows), total };
}

/** How many entries a filter matches and the newest one's match time (the inbox's "N new" badge and its ETag). */
export async function inboxCount(db: Db, accountId: string, filter: InboxFilter): Promise<{ count: number; newestTs: number | null }> {
  const { feeds, feedJobs } = tables(db);
  const row = await one(
    db,
    db
      .select({ n: count(), newest: max(feedJobs.matchedAtTs) })
      .from(feedJobs)
      .innerJoin(feeds, eq(feeds.id, feedJobs.feedId))
      .where(inboxWhere(db, accountId, filter)),
  );
  return { count: Number(row?.n ?? 0), newestTs: row?.newest === null || row?.newest === undefined ? null : Number(row.newest) };
}

/** One of the account's entries with its feed's title; undefined for another account's or none. */
export async function findInboxEntry(db: Db, accountId: string, id: string): Promise<InboxEntry | undefined> {
  const { feeds, feedJobs } = tables(db);
  const row = await one(
    db,
    db
      .select({ feedJob: feedJobs, feedTitle: feeds.title })
      .from(feedJobs)
      .innerJoin(feeds, eq(feeds.id, feedJobs.feedId))
      .where(and(eq(feedJobs.id, id), eq(feeds.accountId, accountId))),
  );
  return row ? (await inboxEntries(db, [row]))[0] : undefined;
}

/** A feed that may hear of an application's outcome, with its entry for the application's job (null when it has none). */
export interface OutcomeFeed {
  feed: FeedRow;
  feedJobId: string | null;
}

/**
 * The feeds an application's outcome concerns: the feed it was applied from (applications.feed_id) when that feed
 * still exists and is the account's; otherwise every feed of the account whose entries hold the job. Unfiltered:
 * the caller decides which of them want to hear (outcomeEvents, not muted).
 */
export async function feedsOfApplication(db: Db, accountId: string, feedId: string | null, jobCiphertext: string): Promise<OutcomeFeed[]> {
  const { feeds, feedJobs } = tables(db);
  const entryOf = and(eq(feedJobs.feedId, feeds.id), eq(feedJobs.jobCiphertext, jobCiphertext));
  if (feedId !== null) {
    const own = await many(
      db,
      db
        .select({ feed: feeds, feedJobId: feedJobs.id })
        .from(feeds)
        .leftJoin(feedJobs, entryOf)
        .where(and(eq(feeds.id, feedId), eq(feeds.accountId, accountId))),
    );
    if (own.length > 0) return own;
  }
  // feed_jobs_job_feed_uq finds the job's entries; their feeds are then checked to be the account's.
  return many(
    db,
    db
      .select({ feed: feeds, feedJobId: feedJobs.id })
      .from(feedJobs)
      .innerJoin(feeds, eq(feeds.id, feedJobs.feedId))
      .where(and(eq(feedJobs.jobCiphertext, jobCiphertext), eq(feeds.accountId, accountId)))
      .orderBy(feeds.createdAtTs, feeds.id),
  );
}

export type FilteredJobRow = typeof filteredJobs.$inferSelect;

/** Records jobs kept out of feeds (issue 45); a job already recorded for a feed keeps its first row. */
export async function insertFilteredJobs(db: Db, rows: readonly FilteredJobRow[]): Promise<void> {
  if (rows.length === 0) return;
  const { filteredJobs: f } = tables(db);
  await exec(
    db,
    db
      .insert(f)
      .values([...rows])
      .onConflictDoNothing(),
  );
}
