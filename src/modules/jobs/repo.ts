import { and, eq, inArray, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, many, preparedOne, tables } from "../../db/query";
import type { jobs, jobTracking } from "../../db/schema";

export type JobRow = typeof jobs.$inferSelect;
export type JobInsert = typeof jobs.$inferInsert;

export function findJobMeta(db: Db, ciphertext: string): Promise<{ exploredAtTs: number } | undefined> {
  return preparedOne(
    db,
    "jobs.findJobMeta",
    (d) => {
      const { jobs } = tables(d);
      return d
        .select({ exploredAtTs: jobs.exploredAtTs })
        .from(jobs)
        .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")));
    },
    { ciphertext },
  );
}

export function findJob(db: Db, ciphertext: string): Promise<JobRow | undefined> {
  return preparedOne(
    db,
    "jobs.find",
    (d) => {
      const { jobs } = tables(d);
      return d
        .select()
        .from(jobs)
        .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")));
    },
    { ciphertext },
  );
}

/** What a list of feed entries or applications shows of each job. */
export type JobSummary = Pick<
  JobRow,
  "ciphertext" | "title" | "url" | "platform" | "source" | "jobType" | "hourlyMin" | "hourlyMax" | "fixedBudget" | "clientCountry" | "publishTimeTs"
>;

/** The summaries of these archived jobs by ciphertext, in one read (a page of a list, so at most a few hundred). */
export async function jobSummaries(db: Db, ciphertexts: readonly string[]): Promise<Map<string, JobSummary>> {
  if (ciphertexts.length === 0) return new Map();
  const { jobs } = tables(db);
  const rows = await many(
    db,
    db
      .select({
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
      })
      .from(jobs)
      .where(inArray(jobs.ciphertext, [...new Set(ciphertexts)])),
  );
  return new Map(rows.map((r) => [r.ciphertext, r]));
}

const COLUMNS = [
  "jobUid",
  "platform",
  "title",
  "url",
  "jobType",
  "hourlyMin",
  "hourlyMax",
  "fixedBudget",
  "clientCountry",
  "clientTotalSpent",
  "paymentVerified",
  "clientRating",
  "clientReviews",
  "usOnly",
  "emailFound",
  "publishTimeTs",
  "companyId",
  "source",
  "document",
  "exploredAtTs",
  "updatedAtTs",
] as const;
const placeholders = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, sql.placeholder(n)]));

/**
 * Every archived job is inserted once and refreshed often: both statements are prepared once per connection
 * (or transaction). The prepared runners read rows, hence the RETURNING of the key.
 */
export async function insertJob(db: Db, row: JobInsert): Promise<void> {
  await preparedOne(
    db,
    "jobs.insert",
    (d) => {
      const { jobs } = tables(d);
      return d
        .insert(jobs)
        .values(placeholders(["ciphertext", "firstSeenAtTs", ...COLUMNS]) as unknown as JobInsert)
        .returning({ ciphertext: jobs.ciphertext });
    },
    row,
  );
}

export async function updateJob(db: Db, ciphertext: string, changes: Omit<JobInsert, "ciphertext" | "firstSeenAtTs">): Promise<void> {
  await preparedOne(
    db,
    "jobs.update",
    (d) => {
      const { jobs } = tables(d);
      return d
        .update(jobs)
        .set(placeholders(COLUMNS) as unknown as Partial<JobInsert>)
        .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")))
        .returning({ ciphertext: jobs.ciphertext });
    },
    { ...changes, ciphertext },
  );
}

export type TrackingRow = typeof jobTracking.$inferSelect;

/** Starts watching a job unless it is watched already (one statement). */
export async function insertTrackingIfAbsent(db: Db, row: typeof jobTracking.$inferInsert): Promise<void> {
  const { jobTracking } = tables(db);
  await exec(db, db.insert(jobTracking).values(row).onConflictDoNothing());
}

export function findTracking(db: Db, ciphertext: string): Promise<TrackingRow | undefined> {
  return preparedOne(
    db,
    "jobs.tracking",
    (d) => {
      const { jobTracking } = tables(d);
      return d
        .select()
        .from(jobTracking)
        .where(eq(jobTracking.jobCiphertext, sql.placeholder("ciphertext")));
    },
    { ciphertext },
  );
}

export async function saveTracking(db: Db, ciphertext: string, state: Record<string, unknown>, active: boolean, lastCheckedAtTs: number): Promise<void> {
  const { jobTracking } = tables(db);
  await exec(db, db.update(jobTracking).set({ state, active, lastCheckedAtTs }).where(eq(jobTracking.jobCiphertext, ciphertext)));
}

/** Watched jobs whose last check is older than `beforeTs`, oldest first. */
export function dueTracking(db: Db, beforeTs: number, limit: number): Promise<{ jobCiphertext: string; source: string }[]> {
  const { jobs, jobTracking } = tables(db);
  return many(
    db,
    db
      .select({ jobCiphertext: jobTracking.jobCiphertext, source: jobs.source })
      .from(jobTracking)
      .innerJoin(jobs, eq(jobs.ciphertext, jobTracking.jobCiphertext))
      .where(and(eq(jobTracking.active, true), lte(jobTracking.lastCheckedAtTs, beforeTs)))
      .orderBy(jobTracking.lastCheckedAtTs)
      .limit(limit),
  );
}

/** Archived documents of one company (for the client record). */
export function documentsOfCompany(db: Db, companyId: string): Promise<{ ciphertext: string; document: Record<string, unknown>; exploredAtTs: number }[]> {
  const { jobs } = tables(db);
  return many(
    db,
    db.select({ ciphertext: jobs.ciphertext, document: jobs.document, exploredAtTs: jobs.exploredAtTs }).from(jobs).where(eq(jobs.companyId, companyId)),
  );
}
