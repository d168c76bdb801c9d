import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { prepared } from "../../db/prepared";
import { jobs } from "../../db/schema";

export type JobRow = typeof jobs.$inferSelect;
export type JobInsert = typeof jobs.$inferInsert;

export function findJobMeta(db: Db, ciphertext: string): { exploredAtTs: number } | undefined {
  return prepared(db, "jobs.findJobMeta", (d) =>
    d
      .select({ exploredAtTs: jobs.exploredAtTs })
      .from(jobs)
      .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")))
      .prepare(),
  ).get({ ciphertext });
}

export function findJob(db: Db, ciphertext: string): JobRow | undefined {
  return prepared(db, "jobs.find", (d) =>
    d
      .select()
      .from(jobs)
      .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")))
      .prepare(),
  ).get({ ciphertext });
}

const COLUMNS = [
  "jobUid", "platform", "title", "url", "jobType", "hourlyMin", "hourlyMax", "fixedBudget", "clientCountry", "clientTotalSpent",
  "paymentVerified", "clientRating", "clientReviews", "usOnly", "emailFound", "publishTimeTs", "companyId", "source",
  "document", "exploredAtTs", "updatedAtTs",
] as const;
const placeholders = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, sql.placeholder(n)]));

/** Every archived job is inserted once and refreshed often: both statements are prepared once per connection. */
export function insertJob(db: Db, row: JobInsert): void {
  prepared(db, "jobs.insert", (d) =>
    d
      .insert(jobs)
      .values(placeholders(["ciphertext", "firstSeenAtTs", ...COLUMNS]) as unknown as JobInsert)
      .prepare(),
  ).run(row);
}

export function updateJob(db: Db, ciphertext: string, changes: Omit<JobInsert, "ciphertext" | "firstSeenAtTs">): void {
  prepared(db, "jobs.update", (d) =>
    d
      .update(jobs)
      .set(placeholders(COLUMNS) as unknown as Partial<JobInsert>)
      .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")))
      .prepare(),
  ).run({ ...changes, ciphertext });
}
