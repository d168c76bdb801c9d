/**
 * Several nodes on one PostgreSQL database: how they wake each other (NOTIFY, with polling as the fallback) and
 * agree on who runs what (a schedule's row moved forward atomically, leases for single-node loops). On SQLite
 * one process owns the file and the callers skip this (see docs/architecture.md, 'Several nodes on one PostgreSQL').
 */
import { Cron } from "croner";
import { and, eq, lt, or } from "drizzle-orm";
import type { Db } from "../db/client";
import { exec, isPg, many, pgPool, tables } from "../db/query";
import type { Logger } from "../lib/log";
import type { Signal } from "../lib/signal";

/** The channel of the work wake-ups. */
export const WORK_CHANNEL = "jobpilot_work";

/**
 * The cross-node half of wake(): NOTIFY on the work channel with this node's id (its own listener ignores
 * it: the node woke its workers already). Never more than one NOTIFY in flight; wakes made meanwhile are
 * folded into one more, sent when it returns, so a burst of thousands sends two.
 */
export function workNotifier(db: Db, nodeId: string, log: Logger): { notify(): void; settled(): Promise<void> } {
  let sending: Promise<void> | null = null;
  let again = false;
  const send = (): void => {
    sending = pgPool(db)
      .notify(WORK_CHANNEL, nodeId)
      .catch((err: unknown) => log.warn("could not notify the other nodes of new work", { err: err as Error }))
      .then(() => {
        sending = null;
        if (again) {
          again = false;
          send();
        }
      });
  };
  return {
    notify: () => {
      if (sending) again = true;
      else send();
    },
    settled: async () => {
      while (sending) await sending;
    },
  };
}

/**
 * The wake() of a node: wakes this node's loops (`work`), and on PostgreSQL the other nodes' too through
 * workNotifier. `sent()` resolves once the NOTIFYs are out.
 */
export function nodeWake(db: Db, work: Signal, nodeId: string, log: Logger): { wake(): void; sent(): Promise<void> } {
  if (!isPg(db)) return { wake: () => work.notify(), sent: () => Promise.resolve() };
  const notifier = workNotifier(db, nodeId, log);
  return {
    wake: () => {
      work.notify();
      notifier.notify();
    },
    sent: notifier.settled,
  };
}

/**
 * LISTENs on the work channel (Bun's SQL.listen: one dedicated connection, reconnected and re-subscribed
 * when it drops) and calls `onWork` for every other node's NOTIFY, and after every (re)subscription,
 * since a notification sent while the connection was down is lost.
 */
export async function listenForWork(db: Db, nodeId: string, onWork: () => void): Promise<{ stop(): Promise<void> }> {
  const subscription = await pgPool(db).listen(
    WORK_CHANNEL,
    (payload) => {
      if (payload !== nodeId) onWork();
    },
    onWork,
  );
  return { stop: () => subscription.unlisten() };
}

/**
 * Whether this node runs the tick of `name` at `tickTs`: true for the first node to record it (the row only
 * moves forward), false for every other, and for a tick not later than the last one run.
 */
export async function claimTick(db: Db, name: string, tickTs: number, holder: string): Promise<boolean> {
  const { clusterClaims } = tables(db);
  const won = await many(
    db,
    db
      .insert(clusterClaims)
      .values({ name, holder, untilTs: tickTs })
      .onConflictDoUpdate({ target: clusterClaims.name, set: { holder, untilTs: tickTs }, setWhere: lt(clusterClaims.untilTs, tickTs) })
      .returning({ name: clusterClaims.name }),
  );
  return won.length > 0;
}

/**
 * Takes or renews the lease `name` for `holder` until nowTs + ttlMs: true when `holder` holds it now (it
 * held it already, or the last holder's lease ran out), false while another node's lease runs.
 */
export async function holdLease(db: Db, name: string, holder: string, nowTs: number, ttlMs: number): Promise<boolean> {
  const { clusterClaims } = tables(db);
  const untilTs = nowTs + ttlMs;
  const held = await many(
    db,
    db
      .insert(clusterClaims)
      .values({ name, holder, untilTs })
      .onConflictDoUpdate({
        target: clusterClaims.name,
        set: { holder, untilTs },
        setWhere: or(eq(clusterClaims.holder, holder), lt(clusterClaims.untilTs, nowTs)),
      })
      .returning({ name: clusterClaims.name }),
  );
  return held.length > 0;
}

/** Gives the lease up (a node stopping cleanly), so another node takes the loop over at once. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  const { clusterClaims } = tables(db);
  await exec(db, db.delete(clusterClaims).where(and(eq(clusterClaims.name, name), eq(clusterClaims.holder, holder))));
}

/**
 * A gate for a loop that must run on one node at a time: each round asks it, and it answers from the lease
 * it holds (renewed once a third of `ttlMs` has gone by) or tries to take the lease over.
 */
export function leaseGate(
  deps: { db: Db; clock: { now(): number } },
  name: string,
  holder: string,
  ttlMs: number,
): { open(): Promise<boolean>; release(): Promise<void> } {
  let heldUntil = 0;
  return {
    open: async () => {
      const now = deps.clock.now();
      if (heldUntil - now > (ttlMs * 2) / 3) return true;
      const held = await holdLease(deps.db, name, holder, now, ttlMs);
      heldUntil = held ? now + ttlMs : 0;
      return held;
    },
    release: async () => {
      if (heldUntil === 0) return;
      heldUntil = 0;
      await releaseLease(deps.db, name, holder);
    },
  };
}

/**
 * The tick a cron callback firing at `nowMs` stands for: the latest time the pattern matches, up to half a
 * second ahead (a timer may fire a little early, and nodes' clocks differ a little), so every node names
 * the same tick.
 */
export function tickOf(pattern: string, nowMs: number): number {
  const [tick] = new Cron(pattern, { paused: true }).previousRuns(1, new Date(nowMs + 500));
  return tick ? tick.getTime() : Math.floor(nowMs / 1000) * 1000;
}
