import { and, eq, getTableColumns, gte, isNotNull, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tables } from "../../db/query";

export interface SentFilter {
  accountId: string;
  /** Unix ms: sent at or after. */
  fromTs?: number;
  /** Unix ms: sent before. */
  toTs?: number;
  /** Only applications credited to this feed (applications.feed_id). */
  feedId?: string;
}

/**
 * An account's sent proposals (status applied, with a send time) as a subquery for a report to join and group
 * (analytics' funnel), so the aggregate is one statement over applications_analytics_idx while only this module names
 * the applications table. Every column is selected; the database keeps only those the outer query reads.
 */
export function sentProposals(db: Db, filter: SentFilter) {
  const { applications } = tables(db);
  return db
    .select(getTableColumns(applications))
    .from(applications)
    .where(
      and(
        eq(applications.accountId, filter.accountId),
        eq(applications.status, "applied"),
        isNotNull(applications.processedAtTs),
        filter.fromTs === undefined ? undefined : gte(applications.processedAtTs, filter.fromTs),
        filter.toTs === undefined ? undefined : lt(applications.processedAtTs, filter.toTs),
        filter.feedId === undefined ? undefined : eq(applications.feedId, filter.feedId),
      ),
    )
    .as("sent");
}
