import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, many, one, tables } from "../../db/query";
import type { sourceState } from "../../db/schema";

export type SourceStateRow = typeof sourceState.$inferSelect;

export function findSourceState(db: Db, name: string): Promise<SourceStateRow | undefined> {
  const { sourceState } = tables(db);
  return one(db, db.select().from(sourceState).where(eq(sourceState.name, name)));
}

export function listSourceStates(db: Db): Promise<SourceStateRow[]> {
  const { sourceState } = tables(db);
  return many(db, db.select().from(sourceState).orderBy(sourceState.name));
}

/** One poll's outcome, in one statement: the source's new memory and counters, or its error and back-off. */
export async function recordPoll(
  db: Db,
  name: string,
  nowTs: number,
  outcome:
    | { ok: true; state: Record<string, unknown>; seen: number; inserted: number; nextRunAtTs: number }
    | { ok: false; error: string; nextRunAtTs: number },
): Promise<void> {
  const { sourceState } = tables(db);
  const base = { name, state: {}, lastPollAtTs: nowTs, nextRunAtTs: outcome.nextRunAtTs };
  if (outcome.ok) {
    await exec(
      db,
      db
        .insert(sourceState)
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
        }),
    );
  } else {
    await exec(
      db,
      db
        .insert(sourceState)
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
        }),
    );
  }
}

export async function addOAuthState(db: Db, row: { state: string; provider: string; expiresAtTs: number }, nowTs: number): Promise<void> {
  const { oauthStates } = tables(db);
  // Expired states are dead weight; drop them whenever a new one is handed out.
  await exec(db, db.delete(oauthStates).where(lte(oauthStates.expiresAtTs, nowTs)));
  await exec(db, db.insert(oauthStates).values(row));
}

/** Uses up a pending state in one statement: true only for the first caller, and only before it expires. */
export async function takeOAuthState(db: Db, provider: string, state: string, nowTs: number): Promise<boolean> {
  const { oauthStates } = tables(db);
  const taken = await exec(
    db,
    db.delete(oauthStates).where(and(eq(oauthStates.state, state), eq(oauthStates.provider, provider), gt(oauthStates.expiresAtTs, nowTs))),
  );
  return taken > 0;
}

export async function oauthStatePending(db: Db, state: string): Promise<boolean> {
  const { oauthStates } = tables(db);
  return (await one(db, db.select({ state: oauthStates.state }).from(oauthStates).where(eq(oauthStates.state, state)))) !== undefined;
}
