import { and, eq, gt, lte, or } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import { dashboardSessions, dashboardSignInLinks } from "../../db/schema";
import { findKey } from "../accounts/repo";

export type SessionRow = typeof dashboardSessions.$inferSelect;

export function insertSession(db: Db, row: SessionRow): Promise<void> {
  return exclusive(db, () => {
    db.insert(dashboardSessions).values(row).run();
  });
}

/** The session and, when it was opened with a key, whether that key is revoked now (asked of accounts, which owns keys). */
export async function findSession(db: Db, id: string): Promise<(SessionRow & { keyRevokedAtTs: number | null }) | undefined> {
  const session = await exclusive(db, () => db.select().from(dashboardSessions).where(eq(dashboardSessions.id, id)).get());
  if (!session) return undefined;
  const keyRevokedAtTs = session.keyId === null ? null : ((await findKey(db, session.keyId))?.revokedAtTs ?? null);
  return { ...session, keyRevokedAtTs };
}

export function touchSession(db: Db, id: string, ts: number): Promise<void> {
  return exclusive(db, () => {
    db.update(dashboardSessions).set({ lastSeenAtTs: ts }).where(eq(dashboardSessions.id, id)).run();
  });
}

export function deleteSession(db: Db, id: string): Promise<void> {
  return exclusive(db, () => {
    db.delete(dashboardSessions).where(eq(dashboardSessions.id, id)).run();
  });
}

/** Drops sessions past either limit; called when a new one is created so the table does not grow forever. */
export function deleteExpiredSessions(db: Db, nowTs: number, idleMs: number): Promise<void> {
  return exclusive(db, () => {
    db.delete(dashboardSessions)
      .where(or(lte(dashboardSessions.expiresAtTs, nowTs), lte(dashboardSessions.lastSeenAtTs, nowTs - idleMs)))
      .run();
  });
}

export function insertSignInLink(db: Db, row: typeof dashboardSignInLinks.$inferInsert, nowTs: number): Promise<void> {
  return exclusive(db, () => {
    // Expired links are dead weight; drop them whenever a new one is made.
    db.delete(dashboardSignInLinks).where(lte(dashboardSignInLinks.expiresAtTs, nowTs)).run();
    db.insert(dashboardSignInLinks).values(row).run();
  });
}

/** Uses up a link in one statement: only the first caller gets the account, and only before it expires. */
export function takeSignInLink(db: Db, tokenHash: string, nowTs: number): Promise<string | null> {
  return exclusive(db, () => {
    const taken = db
      .delete(dashboardSignInLinks)
      .where(and(eq(dashboardSignInLinks.tokenHash, tokenHash), gt(dashboardSignInLinks.expiresAtTs, nowTs)))
      .returning({ accountId: dashboardSignInLinks.accountId })
      .all();
    return taken[0]?.accountId ?? null;
  });
}
