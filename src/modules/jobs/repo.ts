import { and, eq, inArray, lte, sql } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import { prepared } from "../../db/prepared";
import { jobs, jobTracking } from "../../db/schema";

export type JobRow = typeof jobs.$inferSelect;
export type JobInsert = typeof jobs.$inferInsert;

export function findJobMeta(db: Db, ciphertext: string): Promise<{ exploredAtTs: number } | undefined> {
  return exclusive(db, () =>
    prepared(db, "jobs.findJobMeta", (d) =>
      d
        .select({ exploredAtTs: jobs.exploredAtTs })
        .from(jobs)
        .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")))
        .prepare(),
    ).get({ ciphertext }),
  );
}

export function findJob(db: Db, ciphertext: string): Promise<JobRow | undefined> {
  return exclusive(db, () =>
    prepared(db, "jobs.find", (d) =>
      d
        .select()
        .from(jobs)
        .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")))
        .prepare(),
    ).get({ ciphertext }),
  );
}

/** What a list of feed entries or applications shows of each job. */
export type JobSummary = Pick<
  JobRow,
  "ciphertext" | "title" | "url" | "platform" | "source" | "jobType" | "hourlyMin" | "hourlyMax" | "fixedBudget" | "clientCountry" | "publishTimeTs"
>;

/** The summaries of these archived jobs by ciphertext, in one read (a page of a list, so at most a few hundred). */
export function jobSummaries(db: Db, ciphertexts: readonly string[]): Promise<Map<string, JobSummary>> {
  if (ciphertexts.length === 0) return Promise.resolve(new Map());
  return exclusive(db, () => {
    const rows = db
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
      .where(inArray(jobs.ciphertext, [...new Set(ciphertexts)]))
      .all();
    return new Map(rows.map((r) => [r.ciphertext, r]));
  });
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

/** Every archived job is inserted once and refreshed often: both statements are prepared once per connection. */
export function insertJob(db: Db, row: JobInsert): Promise<void> {
  return exclusive(db, () => {
    prepared(db, "jobs.insert", (d) =>
      d
        .insert(jobs)
        .values(placeholders(["ciphertext", "firstSeenAtTs", ...COLUMNS]) as unknown as JobInsert)
        .prepare(),
    ).run(row);
  });
}

export function updateJob(db: Db, ciphertext: string, changes: Omit<JobInsert, "ciphertext" | "firstSeenAtTs">): Promise<void> {
  return exclusive(db, () => {
    prepared(db, "jobs.update", (d) =>
      d
        .update(jobs)
        .set(placeholders(COLUMNS) as unknown as Partial<JobInsert>)
        .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")))
        .prepare(),
    ).run({ ...changes, ciphertext });
  });
}

export type TrackingRow = typeof jobTracking.$inferSelect;

/** Starts watching a job unless it is watched already (one statement). */
export function insertTrackingIfAbsent(db: Db, row: typeof jobTracking.$inferInsert): Promise<void> {
  return exclusive(db, () => {
    db.insert(jobTracking).values(row).onConflictDoNothing().run();
  });
}

export function findTracking(db: Db, ciphertext: string): Promise<TrackingRow | undefined> {
  return exclusive(db, () =>
    prepared(db, "jobs.tracking", (d) =>
      d
        .select()
        .from(jobTracking)
        .where(eq(jobTracking.jobCiphertext, sql.placeholder("ciphertext")))
        .prepare(),
    ).get({ ciphertext }),
  );
}

export function saveTracking(db: Db, ciphertext: string, state: Record<string, unknown>, active: boolean, lastCheckedAtTs: number): Promise<void> {
  return exclusive(db, () => {
    db.update(jobTracking).set({ state, active, lastCheckedAtTs }).where(eq(jobTracking.jobCiphertext, ciphertext)).run();
  });
}

/** Watched jobs whose last check is older than `beforeTs`, oldest first. */
export function dueTracking(db: Db, beforeTs: number, limit: number): Promise<{ jobCiphertext: string; source: string }[]> {
  return exclusive(db, () =>
    db
      .select({ jobCiphertext: jobTracking.jobCiphertext, source: jobs.source })
      .from(jobTracking)
      .innerJoin(jobs, eq(jobs.ciphertext, jobTracking.jobCiphertext))
      .where(and(eq(jobTracking.active, true), lte(jobTracking.lastCheckedAtTs, beforeTs)))
      .orderBy(jobTracking.lastCheckedAtTs)
      .limit(limit)
      .all(),
  );
}

/** Archived documents of one company (for the client record). */
export function documentsOfCompany(db: Db, companyId: string): Promise<{ ciphertext: string; document: Record<string, unknown>; exploredAtTs: number }[]> {
  return exclusive(db, () =>
    db.select({ ciphertext: jobs.ciphertext, document: jobs.document, exploredAtTs: jobs.exploredAtTs }).from(jobs).where(eq(jobs.companyId, companyId)).all(),
  );
}
