/**
 * The applications table as the governor reads it (modules/automation's AutomationUsage port, wired in deps.ts).
 * A submission counts once the governor let it go (governed_at_ts) and while it is in flight or applied: one the
 * marketplace refused never reached a client, so it takes no slot of a cap and spends no Connects.
 */
import { and, desc, eq, gte, inArray, isNotNull, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { many, one, tables } from "../../db/query";
import type { AutomationUsage } from "../automation/usage";

function governed(db: Db, accountId: string, freelancerId: string | null, sinceTs: number): SQL {
  const { applications: a } = tables(db);
  return and(
    eq(a.accountId, accountId),
    freelancerId === null ? undefined : eq(a.freelancerId, freelancerId),
    isNotNull(a.governedAtTs),
    gte(a.governedAtTs, sinceTs),
    inArray(a.status, ["processing", "applied"]),
  )!;
}

export const automationUsage: AutomationUsage = {
  async submissionsSince(db, accountId, freelancerId, sinceTs) {
    const { applications: a } = tables(db);
    const row = await one(
      db,
      db
        .select({ n: sql<number>`COUNT(*)` })
        .from(a)
        .where(governed(db, accountId, freelancerId, sinceTs)),
    );
    return Number(row?.n ?? 0);
  },
  async oldestSubmissionSince(db, accountId, freelancerId, sinceTs) {
    const { applications: a } = tables(db);
    const row = await one(
      db,
      db
        .select({ at: sql<number | null>`MIN(${a.governedAtTs})` })
        .from(a)
        .where(governed(db, accountId, freelancerId, sinceTs)),
    );
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  },
  async lastSubmissionAt(db, accountId, freelancerId) {
    const { applications: a } = tables(db);
    const row = await one(
      db,
      db
        .select({ at: sql<number | null>`MAX(${a.governedAtTs})` })
        .from(a)
        .where(governed(db, accountId, freelancerId, 0)),
    );
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  },
  async connectsSince(db, accountId, freelancerId, sinceTs) {
    const { applications: a } = tables(db);
    // Reported (settled) Connects when the driver said, else the estimate made when it was let go.
    const spent = sql<number>`SUM(CASE WHEN ${a.connectsRequired} IS NOT NULL THEN ${a.connectsRequired} + COALESCE(${a.boostConnects}, 0) ELSE COALESCE(${a.estimatedConnects}, 0) END)`;
    const row = await one(
      db,
      db
        .select({ n: spent })
        .from(a)
        .where(governed(db, accountId, freelancerId, sinceTs)),
    );
    return Number(row?.n ?? 0);
  },
  async sentLetters(db, accountId, freelancerId, sinceTs, exceptId) {
    const { applications: a } = tables(db);
    const rows = await many(
      db,
      db
        .select({ id: a.id, coverLetter: a.coverLetter, sentAtTs: a.processedAtTs })
        .from(a)
        .where(and(eq(a.accountId, accountId), eq(a.freelancerId, freelancerId), eq(a.status, "applied"), gte(a.processedAtTs, sinceTs), ne(a.id, exceptId)))
        .orderBy(desc(a.processedAtTs))
        .limit(500),
    );
    return rows.map((r) => ({ id: r.id, coverLetter: r.coverLetter, sentAtTs: Number(r.sentAtTs) }));
  },
};
