import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import { exclusive, type Db } from "../db/client";
import { prepared } from "../db/prepared";
import { tasks } from "../db/schema";

export type TaskRow = typeof tasks.$inferSelect;

export interface EnqueueOptions {
  runAtTs?: number;
  maxAttempts?: number;
}

/** Adds a task; call inside the transaction that makes the work necessary, so both commit or neither. */
export function enqueueTask(db: Db, kind: string, payload: Record<string, unknown>, nowTs: number, opts: EnqueueOptions = {}): Promise<number> {
  return exclusive(db, () => {
    const insert = prepared(db, "tasks.enqueue", (d) =>
      d
        .insert(tasks)
        .values({
          kind: sql.placeholder("kind"),
          payload: sql.placeholder("payload"),
          status: "queued",
          runAtTs: sql.placeholder("runAtTs"),
          maxAttempts: sql.placeholder("maxAttempts"),
          createdAtTs: sql.placeholder("nowTs"),
          updatedAtTs: sql.placeholder("nowTs"),
        })
        .returning({ id: tasks.id })
        .prepare(),
    );
    return insert.get({ kind, payload, runAtTs: opts.runAtTs ?? nowTs, maxAttempts: opts.maxAttempts ?? 5, nowTs })!.id;
  });
}

/**
 * Claims up to `limit` due tasks of the given kinds in one statement: they
 * become `running` with a lease, and their attempt count goes up. Oldest due
 * first.
 */
export function claimTasks(db: Db, kinds: string[], limit: number, nowTs: number, leaseMs: number): Promise<TaskRow[]> {
  return exclusive(db, () => {
    if (limit <= 0 || kinds.length === 0) return [];
    const due = db
      .select({ id: tasks.id })
      .from(tasks)
      .where(and(eq(tasks.status, "queued"), lte(tasks.runAtTs, nowTs), inArray(tasks.kind, kinds)))
      .orderBy(asc(tasks.runAtTs), asc(tasks.id))
      .limit(limit);
    return db
      .update(tasks)
      .set({ status: "running", leaseUntilTs: nowTs + leaseMs, attempts: sql`${tasks.attempts} + 1`, updatedAtTs: nowTs })
      .where(inArray(tasks.id, due))
      .returning()
      .all()
      .sort((a, b) => a.runAtTs - b.runAtTs || a.id - b.id);
  });
}

/** Done work leaves no row: its effects are in the domain tables. */
export function completeTask(db: Db, id: number): Promise<void> {
  return exclusive(db, () => {
    db.delete(tasks).where(eq(tasks.id, id)).run();
  });
}

/**
 * Records a failed attempt in one statement: queued again after `retryAtTs`
 * while attempts remain, else `failed` for good (kept for inspection).
 */
export function failTask(db: Db, task: TaskRow, error: string, nowTs: number, retryAtTs: number): Promise<"retry" | "failed"> {
  return exclusive(db, () => {
    const final = task.attempts >= task.maxAttempts;
    db.update(tasks)
      .set({
        status: final ? "failed" : "queued",
        runAtTs: final ? task.runAtTs : retryAtTs,
        leaseUntilTs: null,
        lastError: error.slice(0, 2000),
        updatedAtTs: nowTs,
      })
      .where(eq(tasks.id, task.id))
      .run();
    return final ? "failed" : "retry";
  });
}

/** Tasks whose worker died (lease over) go back to the queue. Returns how many. */
export function requeueExpired(db: Db, nowTs: number): Promise<number> {
  return exclusive(
    db,
    () =>
      db
        .update(tasks)
        .set({ status: "queued", leaseUntilTs: null, updatedAtTs: nowTs })
        .where(and(eq(tasks.status, "running"), lte(tasks.leaseUntilTs, nowTs)))
        .returning({ id: tasks.id })
        .all().length,
  );
}

/** At start nothing of ours is running: every `running` row is left over from a previous process. */
export function requeueAllRunning(db: Db, nowTs: number): Promise<number> {
  return exclusive(
    db,
    () =>
      db.update(tasks).set({ status: "queued", leaseUntilTs: null, updatedAtTs: nowTs }).where(eq(tasks.status, "running")).returning({ id: tasks.id }).all()
        .length,
  );
}

export function countTasks(db: Db): Promise<Record<string, number>> {
  return exclusive(db, () => {
    const rows = db.select({ status: tasks.status, n: sql<number>`count(*)` }).from(tasks).groupBy(tasks.status).all();
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  });
}

/** Retry delay after the n-th failed attempt: base × 2^(n-1), capped. Pure, so tests can state it. */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

/** Puts a claimed task back without counting the attempt (e.g. its account is at its concurrency limit). */
export function deferTask(db: Db, id: number, runAtTs: number, nowTs: number): Promise<void> {
  return exclusive(db, () => {
    db.update(tasks)
      .set({ status: "queued", runAtTs, leaseUntilTs: null, attempts: sql`${tasks.attempts} - 1`, updatedAtTs: nowTs })
      .where(eq(tasks.id, id))
      .run();
  });
}

/** Whether a task of this kind is waiting or running (schedulers enqueue at most one). */
export function hasPendingTask(db: Db, kind: string): Promise<boolean> {
  return exclusive(
    db,
    () =>
      db
        .select({ id: tasks.id })
        .from(tasks)
        .where(and(eq(tasks.kind, kind), inArray(tasks.status, ["queued", "running"])))
        .limit(1)
        .get() !== undefined,
  );
}
