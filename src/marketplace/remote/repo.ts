import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, preparedOne, tables } from "../../db/query";
import type { bridgeOutcomes } from "../../db/schema";

export type BridgeOutcomeRow = typeof bridgeOutcomes.$inferSelect;

export function findOutcome(db: Db, applicationId: string): Promise<BridgeOutcomeRow | undefined> {
  return preparedOne(
    db,
    "bridge.findOutcome",
    (d) => {
      const { bridgeOutcomes } = tables(d);
      return d
        .select()
        .from(bridgeOutcomes)
        .where(eq(bridgeOutcomes.applicationId, sql.placeholder("applicationId")));
    },
    { applicationId },
  );
}

/**
 * Keeps the first outcome reported for an application. A stored `logged_out`
 * is the one exception: it says nothing reached the marketplace, so the
 * outcome of a later attempt (after the session was restored) replaces it.
 * Returns the row now stored.
 */
export async function recordOutcome(db: Db, row: BridgeOutcomeRow): Promise<BridgeOutcomeRow> {
  const { bridgeOutcomes } = tables(db);
  await exec(
    db,
    db
      .insert(bridgeOutcomes)
      .values(row)
      .onConflictDoUpdate({
        target: bridgeOutcomes.applicationId,
        set: {
          status: row.status,
          message: row.message,
          receivedAtTs: row.receivedAtTs,
          connectsRequired: row.connectsRequired,
          boostConnects: row.boostConnects,
          connectsAvailable: row.connectsAvailable,
        },
        setWhere: eq(bridgeOutcomes.status, "logged_out"),
      }),
  );
  return (await findOutcome(db, row.applicationId)) ?? row;
}

/** Forgets a `logged_out` outcome before a new attempt, so waiting for that attempt cannot pick up the old one. */
export async function clearLoggedOut(db: Db, applicationId: string): Promise<void> {
  const { bridgeOutcomes } = tables(db);
  await exec(db, db.delete(bridgeOutcomes).where(and(eq(bridgeOutcomes.applicationId, applicationId), eq(bridgeOutcomes.status, "logged_out"))));
}
