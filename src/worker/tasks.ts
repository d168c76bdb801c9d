import { and, asc, count, eq, inArray, lte, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { exec, isPg, many, one, preparedOne, rawInsertCount, tables } from "../db/query";
import type { tasks } from "../db/schema";

export type TaskRow = typeof tasks.$inferSelect;

/**
 * A claim on a task: its id and the attempt count the claim set. Every claim counts one more attempt, so the
 * count fences a stale holder: a node that lost the lease (its row was requeued and claimed again) holds an
 * older count, and its complete, fail or renew matches nothing instead of undoing the new holder's work.
 */
export type TaskClaim = Pick<TaskRow, "id" | "attempts">;

const sameClaim = (t: ReturnType<typeof tables>["tasks"], task: TaskClaim) => and(eq(t.id, task.id), eq(t.attempts, task.attempts));

export interface EnqueueOptions {
  runAtTs?: number;
  maxAttempts?: number;
}

/** Adds a task; call inside the transaction that makes the work necessary, so both commit or neither. */
export async function enqueueTask(db: Db, kind: string, payload: Record<string, unknown>, nowTs: number, opts: EnqueueOptions = {}): Promise<number> {
  const row = await preparedOne(
    db,
    "tasks.enqueue",
    (d) => {
      const { tasks } = tables(d);
      return d
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
        .returning({ id: tasks.id });
    },
    { kind, payload, runAtTs: opts.runAtTs ?? nowTs, maxAttempts: opts.maxAttempts ?? 5, nowTs },
  );
  return row!.id;
}

/** Adds tasks of one kind, in the order given, in one statement per chunk (see rawInsertCount); as enqueueTask, inside the transaction that makes them necessary. */
export async function enqueueTasks(
  db: Db,
  kind: string,
  payloads: readonly Record<string, unknown>[],
  nowTs: number,
  opts: EnqueueOptions = {},
): Promise<void> {
  const runAtTs = opts.runAtTs ?? nowTs;
  const maxAttempts = opts.maxAttempts ?? 5;
  await rawInsertCount(
    db,
    "tasks.enqueueMany",
    { head: "INSERT INTO tasks (kind, payload, status, run_at_ts, max_attempts, created_at_ts, updated_at_ts)", row: "(?, ?, 'queued', ?, ?, ?, ?)" },
    payloads.map((p) => [kind, JSON.stringify(p), runAtTs, maxAttempts, nowTs, nowTs]),
  );
}

/**
 * Claims up to `limit` due tasks of the given kinds in one statement: they
 * become `running` with a lease, and their attempt count goes up. Oldest due
 * first. On PostgreSQL several nodes claim at once: `FOR UPDATE SKIP LOCKED`
 * hands each due row to one of them without waiting on the others.
 */
export async function claimTasks(db: Db, kinds: string[], limit: number, nowTs: number, leaseMs: number): Promise<TaskRow[]> {
  if (limit <= 0 || kinds.length === 0) return [];
  const { tasks } = tables(db);
  let due = db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.status, "queued"), lte(tasks.runAtTs, nowTs), inArray(tasks.kind, kinds)))
    .orderBy(asc(tasks.runAtTs), asc(tasks.id))
    .limit(limit);
  if (isPg(db)) due = (due as unknown as { for(strength: "update", config: { skipLocked: true }): typeof due }).for("update", { skipLocked: true });
  const claimed = await many(
    db,
    db
      .update(tasks)
      .set({ status: "running", leaseUntilTs: nowTs + leaseMs, attempts: sql`${tasks.attempts} + 1`, updatedAtTs: nowTs })
      .where(inArray(tasks.id, due))
      .returning(),
  );
  return claimed.sort((a, b) => a.runAtTs - b.runAtTs || a.id - b.id);
}

/**
 * Done work leaves no row: its effects are in the domain tables. False when the claim was not the task's
 * latest (another node claimed it since): that node's run is left alone.
 */
export async function completeTask(db: Db, task: TaskClaim): Promise<boolean> {
  const { tasks } = tables(db);
  return (await exec(db, db.delete(tasks).where(sameClaim(tasks, task)))) > 0;
}

/**
 * Records a failed attempt in one statement: queued again after `retryAtTs`
 * while attempts remain, else `failed` for good (kept for inspection). "lost" when another node claimed the
 * task since (as completeTask): its run decides.
 */
export async function failTask(
  db: Db,
  task: TaskClaim & Pick<TaskRow, "maxAttempts" | "runAtTs">,
  error: string,
  nowTs: number,
  retryAtTs: number,
): Promise<"retry" | "failed" | "lost"> {
  const { tasks } = tables(db);
  const final = task.attempts >= task.maxAttempts;
  const changed = await exec(
    db,
    db
      .update(tasks)
      .set({
        status: final ? "failed" : "queued",
        runAtTs: final ? task.runAtTs : retryAtTs,
        leaseUntilTs: null,
        lastError: error.slice(0, 2000),
        updatedAtTs: nowTs,
      })
      .where(sameClaim(tasks, task)),
  );
  if (changed === 0) return "lost";
  return final ? "failed" : "retry";
}

/** Tasks whose worker died (lease over) go back to the queue. Returns how many. */
export async function requeueExpired(db: Db, nowTs: number): Promise<number> {
  const { tasks } = tables(db);
  return exec(
    db,
    db
      .update(tasks)
      .set({ status: "queued", leaseUntilTs: null, updatedAtTs: nowTs })
      .where(and(eq(tasks.status, "running"), lte(tasks.leaseUntilTs, nowTs))),
  );
}

/**
 * Extends the leases of tasks still in hand (their node is alive and working on them), so a task that runs
 * longer than one lease is not handed to another node. A claim whose lease ran out and was requeued, but not
 * claimed since, is taken back (the run is still going, so nobody else should start it). Returns the ids
 * renewed: a claim left out is lost (another node claimed the task since) and its row is left alone.
 */
export async function renewLeases(db: Db, held: readonly TaskClaim[], leaseUntilTs: number, nowTs: number): Promise<number[]> {
  if (held.length === 0) return [];
  const { tasks } = tables(db);
  const rows = await many(
    db,
    db
      .update(tasks)
      .set({ status: "running", leaseUntilTs, updatedAtTs: nowTs })
      .where(and(inArray(tasks.status, ["running", "queued"]), or(...held.map((task) => sameClaim(tasks, task)))))
      .returning({ id: tasks.id }),
  );
  return rows.map((r) => r.id);
}

/**
 * At start nothing of ours is running: every `running` row is left over from a previous process. Only on
 * SQLite, where one process owns the file; on PostgreSQL other nodes' running tasks are theirs until their
 * lease runs out (requeueExpired).
 */
export async function requeueAllRunning(db: Db, nowTs: number): Promise<number> {
  if (isPg(db)) return 0;
  const { tasks } = tables(db);
  return exec(db, db.update(tasks).set({ status: "queued", leaseUntilTs: null, updatedAtTs: nowTs }).where(eq(tasks.status, "running")));
}

export async function countTasks(db: Db): Promise<Record<string, number>> {
  const { tasks } = tables(db);
  const rows = await many(db, db.select({ status: tasks.status, n: count() }).from(tasks).groupBy(tasks.status));
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Retry delay after the n-th failed attempt: base × 2^(n-1), capped. Pure, so tests can state it. */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

/** Puts a claimed task back without counting the attempt (e.g. its account is at its concurrency limit). */
export async function deferTask(db: Db, id: number, runAtTs: number, nowTs: number): Promise<void> {
  const { tasks } = tables(db);
  await exec(
    db,
    db
      .update(tasks)
      .set({ status: "queued", runAtTs, leaseUntilTs: null, attempts: sql`${tasks.attempts} - 1`, updatedAtTs: nowTs })
      .where(eq(tasks.id, id)),
  );
}

/** Whether a task of this kind is waiting or running (schedulers enqueue at most one). */
export async function hasPendingTask(db: Db, kind: string): Promise<boolean> {
  const { tasks } = tables(db);
  const row = await one(
    db,
    db
      .select({ id: tasks.id })
      .from(tasks)
      .where(and(eq(tasks.kind, kind), inArray(tasks.status, ["queued", "running"])))
      .limit(1),
  );
  return row !== undefined;
}

export interface QueueStats {
  kind: string;
  status: "queued" | "running";
  count: number;
  /** run_at_ts of the oldest queued task that is due (null when none is: running, or all waiting for a retry). */
  oldestDueTs: number | null;
}

/** Per kind, the tasks waiting or running, and how long the oldest due one has waited (read at scrape time; uses the claim index). */
export async function queueStats(db: Db, nowTs: number): Promise<QueueStats[]> {
  const { tasks } = tables(db);
  const rows = await many(
    db,
    db
      .select({
        kind: tasks.kind,
        status: tasks.status,
        n: count(),
        oldestDueTs: sql<number | string | null>`MIN(CASE WHEN ${tasks.status} = 'queued' AND ${tasks.runAtTs} <= ${nowTs} THEN ${tasks.runAtTs} END)`,
      })
      .from(tasks)
      .where(inArray(tasks.status, ["queued", "running"]))
      .groupBy(tasks.kind, tasks.status),
  );
  return rows.map((r) => ({
    kind: r.kind,
    status: r.status as QueueStats["status"],
    count: Number(r.n),
    oldestDueTs: r.oldestDueTs === null ? null : Number(r.oldestDueTs),
  }));
}
