import { and, asc, desc, eq, inArray, lt, ne } from "drizzle-orm";
import { tx, type Db } from "../../db/client";
import type { CompanionMode, CompanionTaskState } from "../../db/enums";
import { exec, many, one, tables } from "../../db/query";
import type { companions, companionTasks } from "../../db/schema";

export type CompanionTaskRow = typeof companionTasks.$inferSelect;
export type CompanionRow = typeof companions.$inferSelect;

/** A task still in play: not answered, expired or cancelled. */
export const OPEN_STATES: CompanionTaskState[] = ["queued", "claimed", "review"];
const IN_FLIGHT: CompanionTaskState[] = ["claimed", "review"];
const SUBMIT = "proposal.submit";

export function findCompanion(db: Db, accountId: string): Promise<CompanionRow | undefined> {
  const { companions } = tables(db);
  return one(db, db.select().from(companions).where(eq(companions.accountId, accountId)));
}

async function upsertCompanion(db: Db, accountId: string, set: Partial<Omit<CompanionRow, "accountId">>): Promise<void> {
  const { companions } = tables(db);
  await exec(
    db,
    db
      .insert(companions)
      .values({ accountId, mode: "review", ...set })
      .onConflictDoUpdate({ target: companions.accountId, set }),
  );
}

/** The extension is connected now (it polls, or answers). */
export const touchCompanion = (db: Db, accountId: string, nowTs: number) => upsertCompanion(db, accountId, { lastSeenTs: nowTs });

export const setMode = (db: Db, accountId: string, mode: CompanionMode, autoAcceptedAtTs: number | null) =>
  upsertCompanion(db, accountId, { mode, autoAcceptedAtTs });

export const cacheFreelancers = (db: Db, accountId: string, freelancers: unknown[], nowTs: number) =>
  upsertCompanion(db, accountId, { freelancers, freelancersAtTs: nowTs });

export async function insertTask(db: Db, row: Omit<CompanionTaskRow, "claimedAtTs" | "reviewSinceTs" | "reviewUrl" | "endedAtTs" | "answer">) {
  const { companionTasks } = tables(db);
  await exec(db, db.insert(companionTasks).values(row));
}

export function findTask(db: Db, id: string): Promise<CompanionTaskRow | undefined> {
  const { companionTasks } = tables(db);
  return one(db, db.select().from(companionTasks).where(eq(companionTasks.id, id)));
}

/** The open task of this type for an application (one at a time: callers reuse it rather than add another). */
export function openTaskFor(db: Db, applicationId: string, type: string): Promise<CompanionTaskRow | undefined> {
  const { companionTasks } = tables(db);
  return one(
    db,
    db
      .select()
      .from(companionTasks)
      .where(and(eq(companionTasks.applicationId, applicationId), eq(companionTasks.type, type), inArray(companionTasks.state, OPEN_STATES)))
      .orderBy(desc(companionTasks.createdAtTs))
      .limit(1),
  );
}

/** The newest answered task of this type for an application (engagement answers are read from here). */
export function lastAnswered(db: Db, applicationId: string, type: string): Promise<CompanionTaskRow | undefined> {
  const { companionTasks } = tables(db);
  return one(
    db,
    db
      .select()
      .from(companionTasks)
      .where(and(eq(companionTasks.applicationId, applicationId), eq(companionTasks.type, type), eq(companionTasks.state, "answered")))
      .orderBy(desc(companionTasks.endedAtTs))
      .limit(1),
  );
}

/** The account's newest answers of this type (at most `limit`), newest first. */
export function recentAnswers(db: Db, accountId: string, type: string, limit: number): Promise<CompanionTaskRow[]> {
  const { companionTasks } = tables(db);
  return many(
    db,
    db
      .select()
      .from(companionTasks)
      .where(and(eq(companionTasks.accountId, accountId), eq(companionTasks.state, "answered"), eq(companionTasks.type, type)))
      .orderBy(desc(companionTasks.endedAtTs))
      .limit(limit),
  );
}

/** Older answers of this type for an application: only the newest is ever read. */
export async function dropOlderAnswers(db: Db, applicationId: string, type: string, keepId: string): Promise<void> {
  const { companionTasks } = tables(db);
  await exec(
    db,
    db
      .delete(companionTasks)
      .where(
        and(
          eq(companionTasks.applicationId, applicationId),
          eq(companionTasks.type, type),
          eq(companionTasks.state, "answered"),
          ne(companionTasks.id, keepId),
        ),
      ),
  );
}

/**
 * Hands the extension its next task, in one transaction: the oldest queued one, except that a submission
 * waits while another of the account's submissions is in flight or the minimum gap since the last one ended
 * has not passed (pacing is the server's, whatever the extension does).
 */
export function claimNext(db: Db, accountId: string, nowTs: number, minGapMs: number): Promise<CompanionTaskRow | undefined> {
  return tx(db, async (t) => {
    const { companionTasks } = tables(t);
    const queued = await many(
      t,
      t
        .select()
        .from(companionTasks)
        .where(and(eq(companionTasks.accountId, accountId), eq(companionTasks.state, "queued")))
        .orderBy(asc(companionTasks.createdAtTs), asc(companionTasks.id))
        .limit(50),
    );
    if (queued.length === 0) return undefined;
    let mayStartSubmit: boolean | undefined;
    const submitAllowed = async () => {
      if (mayStartSubmit !== undefined) return mayStartSubmit;
      const busy = await one(
        t,
        t
          .select({ id: companionTasks.id })
          .from(companionTasks)
          .where(and(eq(companionTasks.accountId, accountId), eq(companionTasks.type, SUBMIT), inArray(companionTasks.state, IN_FLIGHT)))
          .limit(1),
      );
      const lastEnded = (await findCompanion(t, accountId))?.lastSubmitEndedTs ?? null;
      mayStartSubmit = !busy && (lastEnded === null || nowTs - lastEnded >= minGapMs);
      return mayStartSubmit;
    };
    for (const task of queued) {
      if (task.type === SUBMIT && !(await submitAllowed())) continue;
      const claimed = await one(
        t,
        t
          .update(companionTasks)
          .set({ state: "claimed", claimedAtTs: nowTs })
          .where(and(eq(companionTasks.id, task.id), eq(companionTasks.state, "queued")))
          .returning(),
      );
      if (claimed) return claimed;
    }
    return undefined;
  });
}

/** Moves a task from one of `from` to `to`; false when it was not in one of them (someone else moved it first). */
export async function moveTask(
  db: Db,
  id: string,
  from: CompanionTaskState[],
  to: CompanionTaskState,
  set: Partial<Pick<CompanionTaskRow, "reviewSinceTs" | "reviewUrl" | "endedAtTs" | "answer">> = {},
): Promise<boolean> {
  const { companionTasks } = tables(db);
  const moved = await one(
    db,
    db
      .update(companionTasks)
      .set({ state: to, ...set })
      .where(and(eq(companionTasks.id, id), inArray(companionTasks.state, from)))
      .returning({ id: companionTasks.id }),
  );
  return moved !== undefined;
}

/** A submission that was in flight ended (answered or given up): the pacing gap counts from here. */
export const submitEnded = (db: Db, accountId: string, nowTs: number) => upsertCompanion(db, accountId, { lastSubmitEndedTs: nowTs });

/** Submissions waiting for the account's review right now, by application id (the dashboard shows them). */
export async function inReview(db: Db, accountId: string): Promise<Map<string, { reviewSinceTs: number | null; reviewUrl: string | null }>> {
  const { companionTasks } = tables(db);
  const rows = await many(
    db,
    db
      .select({ applicationId: companionTasks.applicationId, reviewSinceTs: companionTasks.reviewSinceTs, reviewUrl: companionTasks.reviewUrl })
      .from(companionTasks)
      .where(and(eq(companionTasks.accountId, accountId), eq(companionTasks.type, SUBMIT), eq(companionTasks.state, "review"))),
  );
  return new Map(rows.filter((r) => r.applicationId).map((r) => [r.applicationId!, { reviewSinceTs: r.reviewSinceTs, reviewUrl: r.reviewUrl }]));
}

/** Retention: deletes up to `limit` tasks that ended (answered, expired, withdrawn) before `beforeTs`; returns how many went. */
export async function deleteEndedBefore(db: Db, beforeTs: number, limit: number): Promise<number> {
  const { companionTasks } = tables(db);
  const ended: CompanionTaskState[] = ["answered", "expired", "cancelled"];
  const ids = (
    await many(
      db,
      db
        .select({ id: companionTasks.id })
        .from(companionTasks)
        .where(and(inArray(companionTasks.state, ended), lt(companionTasks.endedAtTs, beforeTs)))
        .limit(limit),
    )
  ).map((r) => r.id);
  if (ids.length > 0) await exec(db, db.delete(companionTasks).where(inArray(companionTasks.id, ids)));
  return ids.length;
}
