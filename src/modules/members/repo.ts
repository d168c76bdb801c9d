import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { MemberLinkPurpose, MemberRole } from "../../db/enums";
import { exec, many, one, tables } from "../../db/query";
import type { memberLinks, members } from "../../db/schema";

export type MemberRow = typeof members.$inferSelect;
export type MemberLinkRow = typeof memberLinks.$inferSelect;

export async function insertMember(db: Db, row: MemberRow): Promise<void> {
  const { members: m } = tables(db);
  await exec(db, db.insert(m).values(row));
}

/** A current (not removed) member by address, on the whole server. */
export function findByEmail(db: Db, email: string): Promise<MemberRow | undefined> {
  const { members: m } = tables(db);
  return one(
    db,
    db
      .select()
      .from(m)
      .where(and(eq(m.email, email), isNull(m.removedAtTs))),
  );
}

export function findMember(db: Db, accountId: string, id: string): Promise<MemberRow | undefined> {
  const { members: m } = tables(db);
  return one(
    db,
    db
      .select()
      .from(m)
      .where(and(eq(m.accountId, accountId), eq(m.id, id), isNull(m.removedAtTs))),
  );
}

export function findMemberById(db: Db, id: string): Promise<MemberRow | undefined> {
  const { members: m } = tables(db);
  return one(
    db,
    db
      .select()
      .from(m)
      .where(and(eq(m.id, id), isNull(m.removedAtTs))),
  );
}

export function listMembers(db: Db, accountId: string): Promise<MemberRow[]> {
  const { members: m } = tables(db);
  return many(
    db,
    db
      .select()
      .from(m)
      .where(and(eq(m.accountId, accountId), isNull(m.removedAtTs)))
      .orderBy(asc(m.createdAtTs), asc(m.id)),
  );
}

export async function setPasswordHash(db: Db, id: string, passwordHash: string): Promise<void> {
  const { members: m } = tables(db);
  await exec(db, db.update(m).set({ passwordHash }).where(eq(m.id, id)));
}

export async function setRole(db: Db, id: string, role: MemberRole): Promise<void> {
  const { members: m } = tables(db);
  await exec(db, db.update(m).set({ role }).where(eq(m.id, id)));
}

export async function markRemoved(db: Db, id: string, nowTs: number): Promise<void> {
  const { members: m } = tables(db);
  await exec(db, db.update(m).set({ removedAtTs: nowTs }).where(eq(m.id, id)));
}

export async function insertLink(db: Db, row: MemberLinkRow): Promise<void> {
  const { memberLinks: l } = tables(db);
  await exec(db, db.insert(l).values(row));
}

/** An unused, unexpired link by the hash of its token. */
export function findLiveLink(db: Db, tokenHash: string, nowTs: number): Promise<MemberLinkRow | undefined> {
  const { memberLinks: l } = tables(db);
  return one(
    db,
    db
      .select()
      .from(l)
      .where(and(eq(l.tokenHash, tokenHash), isNull(l.usedAtTs), gt(l.expiresAtTs, nowTs))),
  );
}

/** Marks every unused link of the member used (one set password ends them all); how many. */
export async function useLinks(db: Db, memberId: string, nowTs: number): Promise<number> {
  const { memberLinks: l } = tables(db);
  return exec(
    db,
    db
      .update(l)
      .set({ usedAtTs: nowTs })
      .where(and(eq(l.memberId, memberId), isNull(l.usedAtTs))),
  );
}

export type { MemberLinkPurpose };
