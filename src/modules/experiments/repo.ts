import { and, asc, count, desc, eq, inArray, isNull, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, many, one, tables } from "../../db/query";
import type { experimentArms, experimentAssignments, experiments } from "../../db/schema";

export type ExperimentRow = typeof experiments.$inferSelect;
export type ArmRow = typeof experimentArms.$inferSelect;
export type AssignmentRow = typeof experimentAssignments.$inferSelect;
export interface ExperimentWithArms extends ExperimentRow {
  arms: ArmRow[];
}

export async function insertExperiment(db: Db, row: ExperimentRow, arms: ArmRow[]): Promise<void> {
  const t = tables(db);
  await exec(db, db.insert(t.experiments).values(row));
  await exec(db, db.insert(t.experimentArms).values(arms));
}

async function withArms(db: Db, rows: ExperimentRow[]): Promise<ExperimentWithArms[]> {
  if (rows.length === 0) return [];
  const { experimentArms: a } = tables(db);
  const arms = await many(
    db,
    db
      .select()
      .from(a)
      .where(
        inArray(
          a.experimentId,
          rows.map((r) => r.id),
        ),
      )
      .orderBy(asc(a.experimentId), asc(a.position)),
  );
  return rows.map((r) => ({ ...r, arms: arms.filter((x) => x.experimentId === r.id) }));
}

/** The account's experiment, or undefined (another account's is as absent as a missing one). */
export async function findExperiment(db: Db, accountId: string, id: string): Promise<ExperimentWithArms | undefined> {
  const { experiments: e } = tables(db);
  const row = await one(
    db,
    db
      .select()
      .from(e)
      .where(and(eq(e.accountId, accountId), eq(e.id, id))),
  );
  return row ? (await withArms(db, [row]))[0] : undefined;
}

/** Newest first. */
export async function listExperiments(db: Db, accountId: string): Promise<ExperimentWithArms[]> {
  const { experiments: e } = tables(db);
  return withArms(db, await many(db, db.select().from(e).where(eq(e.accountId, accountId)).orderBy(desc(e.createdAtTs), desc(e.id))));
}

/**
 * The running experiments that take a job from this feed when none is named, in the order they get the first pick:
 * those attached to the feed, then those with no feed (the account's experiments "for all my proposals"), each
 * oldest first. A null feed (a job drafted from no feed) meets only the ones with no feed.
 */
export async function runningExperimentsForFeed(db: Db, accountId: string, feedId: string | null): Promise<ExperimentWithArms[]> {
  const { experiments: e } = tables(db);
  const running = (where: SQL | undefined) =>
    many(
      db,
      db
        .select()
        .from(e)
        .where(and(eq(e.accountId, accountId), eq(e.state, "running"), where))
        .orderBy(asc(e.createdAtTs), asc(e.id)),
    );
  const attached = feedId === null ? [] : await running(eq(e.feedId, feedId));
  return withArms(db, [...attached, ...(await running(isNull(e.feedId)))]);
}

/** Stops a running experiment; false when it was already stopped. */
export async function stopExperiment(db: Db, accountId: string, id: string, nowTs: number): Promise<boolean> {
  const { experiments: e } = tables(db);
  const n = await exec(
    db,
    db
      .update(e)
      .set({ state: "stopped", stoppedAtTs: nowTs, updatedAtTs: nowTs })
      .where(and(eq(e.accountId, accountId), eq(e.id, id), eq(e.state, "running"))),
  );
  return n > 0;
}

export async function findAssignment(db: Db, experimentId: string, jobCiphertext: string): Promise<AssignmentRow | undefined> {
  const { experimentAssignments: x } = tables(db);
  return one(
    db,
    db
      .select()
      .from(x)
      .where(and(eq(x.experimentId, experimentId), eq(x.jobCiphertext, jobCiphertext))),
  );
}

/**
 * The job's assignment in one of the account's running experiments (the earliest made), so an apply that does not
 * name the experiment its draft was made under still goes out under the same arm.
 */
export async function runningAssignmentOfJob(db: Db, accountId: string, jobCiphertext: string): Promise<AssignmentRow | undefined> {
  const { experimentAssignments: x, experiments: e } = tables(db);
  const row = await one(
    db,
    db
      .select({ assignment: x })
      .from(x)
      .innerJoin(e, eq(e.id, x.experimentId))
      .where(and(eq(x.accountId, accountId), eq(x.jobCiphertext, jobCiphertext), eq(e.state, "running")))
      .orderBy(asc(x.assignedAtTs), asc(x.experimentId))
      .limit(1),
  );
  return row?.assignment;
}

/** Writes the assignment unless the job has one already (a concurrent draft or apply won): the first one stands. */
export async function insertAssignment(db: Db, row: AssignmentRow): Promise<void> {
  const { experimentAssignments: x } = tables(db);
  await exec(db, db.insert(x).values(row).onConflictDoNothing());
}

/** Keeps the latest letter drafted under the assignment: the one a sent letter is compared with. */
export async function setDraftedLetter(db: Db, experimentId: string, jobCiphertext: string, letter: string): Promise<void> {
  const { experimentAssignments: x } = tables(db);
  await exec(
    db,
    db
      .update(x)
      .set({ draftedLetter: letter })
      .where(and(eq(x.experimentId, experimentId), eq(x.jobCiphertext, jobCiphertext))),
  );
}

/** Jobs assigned per arm. */
export async function assignedPerArm(db: Db, experimentId: string): Promise<Map<string, number>> {
  const { experimentAssignments: x } = tables(db);
  const rows = await many(db, db.select({ armId: x.armId, n: count() }).from(x).where(eq(x.experimentId, experimentId)).groupBy(x.armId));
  return new Map(rows.map((r) => [r.armId, Number(r.n)]));
}

/** Whether an experiment takes applications going out as this freelancer (null: not known yet, at a draft). */
export const freelancerFits = (e: Pick<ExperimentRow, "freelancerId">, freelancerId: string | null) =>
  e.freelancerId === null || (freelancerId !== null && e.freelancerId === freelancerId);
