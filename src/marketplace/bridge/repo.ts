import { and, eq, sql } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import { prepared } from "../../db/prepared";
import { bridgeOutcomes } from "../../db/schema";

export type BridgeOutcomeRow = typeof bridgeOutcomes.$inferSelect;

export function findOutcome(db: Db, applicationId: string): Promise<BridgeOutcomeRow | undefined> {
  return exclusive(db, () => outcomeOf(db, applicationId));
}

function outcomeOf(db: Db, applicationId: string): BridgeOutcomeRow | undefined {
  return prepared(db, "bridge.findOutcome", (d) =>
    d
      .select()
      .from(bridgeOutcomes)
      .where(eq(bridgeOutcomes.applicationId, sql.placeholder("applicationId")))
      .prepare(),
  ).get({ applicationId });
}

/**
 * Keeps the first outcome reported for an application. A stored `logged_out`
 * is the one exception: it says nothing reached the marketplace, so the
 * outcome of a later attempt (after the session was restored) replaces it.
 * Returns the row now stored.
 */
export function recordOutcome(db: Db, row: BridgeOutcomeRow): Promise<BridgeOutcomeRow> {
  return exclusive(db, () => {
    db.insert(bridgeOutcomes)
      .values(row)
      .onConflictDoUpdate({
        target: bridgeOutcomes.applicationId,
        set: { status: row.status, message: row.message, receivedAtTs: row.receivedAtTs },
        setWhere: eq(bridgeOutcomes.status, "logged_out"),
      })
      .run();
    return outcomeOf(db, row.applicationId) ?? row;
  });
}

/** Forgets a `logged_out` outcome before a new attempt, so waiting for that attempt cannot pick up the old one. */
export function clearLoggedOut(db: Db, applicationId: string): Promise<void> {
  return exclusive(db, () => {
    db.delete(bridgeOutcomes)
      .where(and(eq(bridgeOutcomes.applicationId, applicationId), eq(bridgeOutcomes.status, "logged_out")))
      .run();
  });
}
