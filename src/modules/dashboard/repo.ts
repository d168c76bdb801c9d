import { and, eq, gt, lte, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { apiKeys, dashboardSessions, dashboardSignInLinks } from "../../db/schema";

export type SessionRow = typeof dashboardSessions.$inferSelect;

export function insertSession(db: Db, row: SessionRow): void {
  db.insert(dashboardSessions).values(row).run();
}

/** The session and, when it was opened with a key, whether that key is revoked now. */
export function findSession(db: Db, id: string): (SessionRow & { keyRevokedAtTs: number | null }) | undefined {
  return db
    .select({
      id: dashboardSessions.id,
      accountId: dashboardSessions.accountId,
      keyId: dashboardSessions.keyId,
      csrfToken: dashboardSessions.csrfToken,
      createdAtTs: dashboardSessions.createdAtTs,
      expiresAtTs: dashboardSessions.expiresAtTs,
      lastSeenAtTs: dashboardSessions.lastSeenAtTs,
      keyRevokedAtTs: apiKeys.revokedAtTs,
    })
    .from(dashboardSessions)
    .leftJoin(apiKeys, eq(apiKeys.id, dashboardSessions.keyId))
    .where(eq(dashboardSessions.id, id))
    .get();
}

export function touchSession(db: Db, id: string, ts: number): void {
  db.update(dashboardSessions).set({ lastSeenAtTs: ts }).where(eq(dashboardSessions.id, id)).run();
}

export function deleteSession(db: Db, id: string): void {
  db.delete(dashboardSessions).where(eq(dashboardSessions.id, id)).run();
}

/** Drops sessions past either limit; called when a new one is created so the table does not grow forever. */
export function deleteExpiredSessions(db: Db, nowTs: number, idleMs: number): void {
  db.delete(dashboardSessions)
    .where(or(lte(dashboardSessions.expiresAtTs, nowTs), lte(dashboardSessions.lastSeenAtTs, nowTs - idleMs)))
    .run();
}

export function insertSignInLink(db: Db, row: typeof dashboardSignInLinks.$inferInsert, nowTs: number): void {
  // Expired links are dead weight; drop them whenever a new one is made.
  db.delete(dashboardSignInLinks).where(lte(dashboardSignInLinks.expiresAtTs, nowTs)).run();
  db.insert(dashboardSignInLinks).values(row).run();
}

/** Uses up a link in one statement: only the first caller gets the account, and only before it expires. */
export function takeSignInLink(db: Db, tokenHash: string, nowTs: number): string | null {
  const taken = db
    .delete(dashboardSignInLinks)
    .where(and(eq(dashboardSignInLinks.tokenHash, tokenHash), gt(dashboardSignInLinks.expiresAtTs, nowTs)))
    .returning({ accountId: dashboardSignInLinks.accountId })
    .all();
  return taken[0]?.accountId ?? null;
}
