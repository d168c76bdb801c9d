/**
 * A feed's "filtered out" view (issue 45): the jobs that passed its filters but were kept out by the account's
 * client list (a blocked client) or one of the feed's signal rules, with the reason. Ingestion writes the rows
 * (admit.ts); this file reads them for GET /api/v1/feeds/{feedId}/filtered and the dashboard's feed page.
 */
import { and, count, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { many, one, tables } from "../../db/query";
import { iso } from "../../lib/time";
import type { AuthContext } from "../accounts/service";
import { jobSummaries } from "../jobs/repo";
import type { FilteredJobItem } from "./model";
import { requireFeed, toJobSummaryView } from "./service";

/** The filter of a job kept out because its client is on the account's blocked list. */
export const BLOCKED_CLIENT_FILTER = "blocked-client";

/** How many jobs the feed kept out (the dashboard's "Filtered out (n)"). */
export async function countFiltered(db: Db, feedId: string): Promise<number> {
  const { filteredJobs: f } = tables(db);
  return (await one(db, db.select({ n: count() }).from(f).where(eq(f.feedId, feedId))))?.n ?? 0;
}

/** One page of the feed's filtered-out jobs, newest first, with each job's summary (a job the archive no longer has is left out). */
export async function listFilteredJobs(
  deps: { db: Db },
  auth: AuthContext,
  feedId: string,
  query: { limit?: number; offset?: number },
): Promise<{ jobs: FilteredJobItem[]; total: number; limit: number; offset: number }> {
  const feed = await requireFeed(deps, auth, feedId);
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const { filteredJobs: f } = tables(deps.db);
  const where = and(eq(f.feedId, feed.id), eq(f.accountId, auth.accountId));
  const total = (await one(deps.db, deps.db.select({ n: count() }).from(f).where(where)))?.n ?? 0;
  const rows = await many(deps.db, deps.db.select().from(f).where(where).orderBy(desc(f.atTs), f.jobCiphertext).limit(limit).offset(offset));
  const summaries = await jobSummaries(
    deps.db,
    rows.map((r) => r.jobCiphertext),
  );
  const jobs = rows.flatMap((r) => {
    const job = summaries.get(r.jobCiphertext);
    return job ? [{ job: toJobSummaryView(job), companyId: job.companyId, filter: r.filter, reason: r.reason, at: iso(r.atTs) }] : [];
  });
  return { jobs, total, limit, offset };
}
