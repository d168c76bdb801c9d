/**
 * The outcome ledger as modules/experiments reads it (its ExperimentOutcomes port, wired in deps.ts): an experiment's
 * sent proposals per arm and per edited_by_hand value, with the stages they reached. Stages count as analytics'
 * funnel counts them: a hire implies an interview, an interview a reply.
 */
import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { many, tables } from "../../db/query";
import type { ArmOutcomeRow } from "../experiments/outcomes";

export async function experimentArmOutcomes(db: Db, accountId: string, experimentId: string): Promise<ArmOutcomeRow[]> {
  const { applications: a } = tables(db);
  const hired = sql`${a.hiredAtTs} IS NOT NULL`;
  const interview = sql`(${a.interviewAtTs} IS NOT NULL OR ${hired})`;
  const replied = sql`(${a.repliedAtTs} IS NOT NULL OR ${a.replied} OR ${interview})`;
  const known = sql`${a.connectsRequired} IS NOT NULL`;
  const rows = await many(
    db,
    db
      .select({
        armId: a.armId,
        editedByHand: a.editedByHand,
        sent: sql<number>`COUNT(*)`,
        replied: sql<number>`SUM(CASE WHEN ${replied} THEN 1 ELSE 0 END)`,
        interviews: sql<number>`SUM(CASE WHEN ${interview} THEN 1 ELSE 0 END)`,
        hires: sql<number>`SUM(CASE WHEN ${hired} THEN 1 ELSE 0 END)`,
        withConnects: sql<number>`SUM(CASE WHEN ${known} THEN 1 ELSE 0 END)`,
        repliedWithConnects: sql<number>`SUM(CASE WHEN ${known} AND ${replied} THEN 1 ELSE 0 END)`,
        connectsSpent: sql<number>`SUM(CASE WHEN ${known} THEN ${a.connectsRequired} + COALESCE(${a.boostConnects}, 0) ELSE 0 END)`,
      })
      .from(a)
      .where(and(eq(a.experimentId, experimentId), eq(a.accountId, accountId), eq(a.status, "applied"), isNotNull(a.processedAtTs), isNotNull(a.armId)))
      .groupBy(a.armId, a.editedByHand),
  );
  return rows.map((r) => ({
    armId: r.armId!,
    editedByHand: r.editedByHand,
    sent: Number(r.sent),
    replied: Number(r.replied ?? 0),
    interviews: Number(r.interviews ?? 0),
    hires: Number(r.hires ?? 0),
    withConnects: Number(r.withConnects ?? 0),
    repliedWithConnects: Number(r.repliedWithConnects ?? 0),
    connectsSpent: Number(r.connectsSpent ?? 0),
  }));
}
