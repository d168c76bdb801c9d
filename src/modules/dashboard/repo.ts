import { and, eq, gt, inArray, lte, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { MemberRole } from "../../db/enums";
import { exec, many, one, tables } from "../../db/query";
import type { dashboardSessions, dashboardSignInLinks } from "../../db/schema";
import { findKey } from "../accounts/repo";

export type SessionRow = typeof dashboardSessions.$inferSelect;

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  const { dashboardSessions } = tables(db);
  await exec(db, db.insert(dashboardSessions).values(row));
}

/** The session and, when it was opened with a key, whether that key is revoked now (asked of accounts, which owns keys). */
export async function findSession(
  db: Db,
  id: string,
): Promise<(SessionRow & { keyRevokedAtTs: number | null; keyMemberId: string | null; keyRole: MemberRole | null }) | undefined> {
  const { dashboardSessions } = tables(db);
  const session = await one(db, db.select().from(dashboardSessions).where(eq(dashboardSessions.id, id)));
  if (!session) return undefined;
  const key = session.keyId === null ? undefined : await findKey(db, session.keyId);
  return { ...session, keyRevokedAtTs: key?.revokedAtTs ?? null, keyMemberId: key?.memberId ?? null, keyRole: key?.role ?? null };
}

export async function touchSession(db: Db, id: string, ts: number): Promise<void> {
  const { dashboardSessions } = tables(db);
  await exec(db, db.update(dashboardSessions).set({ lastSeenAtTs: ts }).where(eq(dashboardSessions.id, id)));
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  const { dashboardSessions } = tables(db);
  await exec(db, db.delete(dashboardSessions).where(eq(dashboardSessions.id, id)));
}

/**
 * Drops sessions past either limit: all of them when a new one is created, so the table does not grow forever,
 * or at most `limit` (the maintenance task's batches). Returns how many went.
 */
export async function deleteExpiredSessions(db: Db, nowTs: number, idleMs: number, limit?: number): Promise<number> {
  const { dashboardSessions } = tables(db);
  const expired = or(lte(dashboardSessions.expiresAtTs, nowTs), lte(dashboardSessions.lastSeenAtTs, nowTs - idleMs));
  if (limit === undefined) return exec(db, db.delete(dashboardSessions).where(expired));
  const batch = db.select({ id: dashboardSessions.id }).from(dashboardSessions).where(expired).limit(limit);
  return exec(db, db.delete(dashboardSessions).where(and(expired, inArray(dashboardSessions.id, batch))));
}

export async function insertSignInLink(db: Db, row: typeof dashboardSignInLinks.$inferInsert, nowTs: number): Promise<void> {
  const { dashboardSignInLinks } = tables(db);
  // Expired links are dead weight; drop them whenever a new one is made.
  await exec(db, db.delete(dashboardSignInLinks).where(lte(dashboardSignInLinks.expiresAtTs, nowTs)));
  await exec(db, db.insert(dashboardSignInLinks).values(row));
}

/** Uses up a link in one statement: only the first caller gets the account, and only before it expires. */
export async function takeSignInLink(db: Db, tokenHash: string, nowTs: number): Promise<string | null> {
  const { dashboardSignInLinks } = tables(db);
  const taken = await many(
    db,
    db
      .delete(dashboardSignInLinks)
      .where(and(eq(dashboardSignInLinks.tokenHash, tokenHash), gt(dashboardSignInLinks.expiresAtTs, nowTs)))
      .returning({ accountId: dashboardSignInLinks.accountId }),
  );
  return taken[0]?.accountId ?? null;
}
