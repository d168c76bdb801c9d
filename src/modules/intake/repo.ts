import { and, eq, gt, lte, sql } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import { oauthStates, sourceState } from "../../db/schema";

export type SourceStateRow = typeof sourceState.$inferSelect;

export function findSourceState(db: Db, name: string): Promise<SourceStateRow | undefined> {
  return exclusive(db, () => db.select().from(sourceState).where(eq(sourceState.name, name)).get());
}

export function listSourceStates(db: Db): Promise<SourceStateRow[]> {
  return exclusive(db, () => db.select().from(sourceState).orderBy(sourceState.name).all());
}

/** One poll's outcome, in one statement: the source's new memory and counters, or its error and back-off. */
export function recordPoll(
  db: Db,
  name: string,
  nowTs: number,
  outcome:
    | { ok: true; state: Record<string, unknown>; seen: number; inserted: number; nextRunAtTs: number }
    | { ok: false; error: string; nextRunAtTs: number },
): Promise<void> {
  return exclusive(db, () => {
    const base = { name, state: {}, lastPollAtTs: nowTs, nextRunAtTs: outcome.nextRunAtTs };
    if (outcome.ok) {
      db.insert(sourceState)
        .values({
          ...base,
          state: outcome.state,
          lastSuccessAtTs: nowTs,
          lastSeen: outcome.seen,
          lastNew: outcome.inserted,
          totalSeen: outcome.seen,
          totalNew: outcome.inserted,
        })
        .onConflictDoUpdate({
          target: sourceState.name,
          set: {
            state: outcome.state,
            lastPollAtTs: nowTs,
            lastSuccessAtTs: nowTs,
            consecutiveFailures: 0,
            lastSeen: outcome.seen,
            lastNew: outcome.inserted,
            totalSeen: sql`${sourceState.totalSeen} + ${outcome.seen}`,
            totalNew: sql`${sourceState.totalNew} + ${outcome.inserted}`,
            nextRunAtTs: outcome.nextRunAtTs,
          },
        })
        .run();
    } else {
      db.insert(sourceState)
        .values({ ...base, lastError: outcome.error, lastErrorAtTs: nowTs, consecutiveFailures: 1 })
        .onConflictDoUpdate({
          target: sourceState.name,
          set: {
            lastPollAtTs: nowTs,
            lastError: outcome.error,
            lastErrorAtTs: nowTs,
            consecutiveFailures: sql`${sourceState.consecutiveFailures} + 1`,
            nextRunAtTs: outcome.nextRunAtTs,
          },
        })
        .run();
    }
  });
}

export function addOAuthState(db: Db, row: { state: string; provider: string; expiresAtTs: number }, nowTs: number): Promise<void> {
  return exclusive(db, () => {
    // Expired states are dead weight; drop them whenever a new one is handed out.
    db.delete(oauthStates).where(lte(oauthStates.expiresAtTs, nowTs)).run();
    db.insert(oauthStates).values(row).run();
  });
}

/** Uses up a pending state in one statement: true only for the first caller, and only before it expires. */
export function takeOAuthState(db: Db, provider: string, state: string, nowTs: number): Promise<boolean> {
  return exclusive(db, () => {
    const taken = db
      .delete(oauthStates)
      .where(and(eq(oauthStates.state, state), eq(oauthStates.provider, provider), gt(oauthStates.expiresAtTs, nowTs)))
      .returning({ state: oauthStates.state })
      .all();
    return taken.length > 0;
  });
}

export function oauthStatePending(db: Db, state: string): Promise<boolean> {
  return exclusive(db, () => db.select({ state: oauthStates.state }).from(oauthStates).where(eq(oauthStates.state, state)).get() !== undefined);
}
