import { and, count, desc, eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, many, one, tables } from "../../db/query";
import type { automationAudit, connectsBalances } from "../../db/schema";
import type { Limits } from "./limits";

export type AuditRow = typeof automationAudit.$inferSelect;
export type BalanceRow = typeof connectsBalances.$inferSelect;

/** The account's own limits ('' freelancer) and, when asked, the freelancer's overrides. */
export async function storedLimits(
  db: Db,
  accountId: string,
  freelancerId: string | null,
): Promise<{ account?: Partial<Limits>; freelancer?: Partial<Limits> }> {
  const { automationLimits: l } = tables(db);
  const rows = await many(db, db.select().from(l).where(eq(l.accountId, accountId)));
  const of = (id: string) => rows.find((r) => r.freelancerId === id)?.limits as Partial<Limits> | undefined;
  return { account: of(""), freelancer: freelancerId === null ? undefined : of(freelancerId) };
}

/** Every freelancer override of the account, by freelancer. */
export async function freelancerOverrides(db: Db, accountId: string): Promise<Map<string, Partial<Limits>>> {
  const { automationLimits: l } = tables(db);
  const rows = await many(db, db.select().from(l).where(eq(l.accountId, accountId)));
  return new Map(rows.filter((r) => r.freelancerId !== "").map((r) => [r.freelancerId, r.limits as Partial<Limits>]));
}

export async function saveLimits(db: Db, accountId: string, freelancerId: string, limits: Partial<Limits>, nowTs: number): Promise<void> {
  const { automationLimits: l } = tables(db);
  await exec(
    db,
    db
      .insert(l)
      .values({ accountId, freelancerId, limits, updatedAtTs: nowTs })
      .onConflictDoUpdate({ target: [l.accountId, l.freelancerId], set: { limits, updatedAtTs: nowTs } }),
  );
}

export async function insertAudit(db: Db, row: AuditRow): Promise<void> {
  const { automationAudit: a } = tables(db);
  await exec(db, db.insert(a).values(row));
}

export async function listAudit(
  db: Db,
  accountId: string,
  opts: { freelancerId?: string; memberId?: string; limit: number; offset: number },
): Promise<{ rows: AuditRow[]; total: number }> {
  const { automationAudit: a } = tables(db);
  const where = and(
    eq(a.accountId, accountId),
    opts.freelancerId === undefined ? undefined : eq(a.freelancerId, opts.freelancerId),
    opts.memberId === undefined ? undefined : eq(a.memberId, opts.memberId),
  )!;
  const rows = await many(db, db.select().from(a).where(where).orderBy(desc(a.atTs), desc(a.id)).limit(opts.limit).offset(opts.offset));
  const total = await one(db, db.select({ n: count() }).from(a).where(where));
  return { rows, total: Number(total?.n ?? 0) };
}

/** An application's latest audit entry. */
export function latestAuditOf(db: Db, applicationId: string): Promise<AuditRow | undefined> {
  const { automationAudit: a } = tables(db);
  return one(db, db.select().from(a).where(eq(a.applicationId, applicationId)).orderBy(desc(a.atTs), desc(a.id)).limit(1));
}

/** Deletes entries older than `beforeTs`; how many. */
export async function pruneAudit(db: Db, beforeTs: number): Promise<number> {
  const { automationAudit: a } = tables(db);
  return exec(db, db.delete(a).where(lt(a.atTs, beforeTs)));
}

export async function findBalance(db: Db, accountId: string, freelancerId: string): Promise<BalanceRow | undefined> {
  const { connectsBalances: b } = tables(db);
  return one(
    db,
    db
      .select()
      .from(b)
      .where(and(eq(b.accountId, accountId), eq(b.freelancerId, freelancerId))),
  );
}

export async function listBalances(db: Db, accountId: string): Promise<BalanceRow[]> {
  const { connectsBalances: b } = tables(db);
  return many(db, db.select().from(b).where(eq(b.accountId, accountId)));
}

export async function saveBalance(db: Db, row: BalanceRow): Promise<void> {
  const { connectsBalances: b } = tables(db);
  await exec(
    db,
    db
      .insert(b)
      .values(row)
      .onConflictDoUpdate({ target: [b.accountId, b.freelancerId], set: { available: row.available, source: row.source, readAtTs: row.readAtTs } }),
  );
}

/** Records that an alert of this kind went out for the period; false when it already had. */
export async function claimAlert(db: Db, row: { accountId: string; freelancerId: string; kind: string; period: string; sentAtTs: number }): Promise<boolean> {
  const { automationAlerts: a } = tables(db);
  return (await exec(db, db.insert(a).values(row).onConflictDoNothing())) > 0;
}

/** Forgets an alert sent for the period, so it may go again (a balance back at or above its threshold). */
export async function releaseAlert(db: Db, row: { accountId: string; freelancerId: string; kind: string; period: string }): Promise<void> {
  const { automationAlerts: a } = tables(db);
  await exec(db, db.delete(a).where(and(eq(a.accountId, row.accountId), eq(a.freelancerId, row.freelancerId), eq(a.kind, row.kind), eq(a.period, row.period))));
}
