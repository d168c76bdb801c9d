import { and, asc, count, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { MemberLinkPurpose, MemberRole } from "../../db/enums";
import { exec, many, one, tables } from "../../db/query";
import { readCache } from "../../db/read-cache";
import type { jobClaims, memberLinks, members } from "../../db/schema";

export type MemberRow = typeof members.$inferSelect;
export type MemberLinkRow = typeof memberLinks.$inferSelect;

/**
 * Who a key or session acts as is read on every request, so current members are cached like keys (db/read-cache.ts):
 * this process's writes drop it at once, another process's are seen within DATA_VERSION_CHECK_MS on SQLite and
 * PG_MEMBER_CACHE_MS on PostgreSQL, so a removal or demotion on another node takes effect within a second.
 */
export const PG_MEMBER_CACHE_MS = 1000;
/** `false` caches "no such current member" (removed), so a removed member's key is refused from memory too. */
const memberCache = readCache<MemberRow | false>({ name: "members", pgTtlMs: PG_MEMBER_CACHE_MS });

export function findCurrentMemberNow(db: Db, id: string): MemberRow | false | undefined {
  return memberCache.now(db, id);
}

export async function findCurrentMemberCached(db: Db, id: string): Promise<MemberRow | false> {
  return (await memberCache.get(db, id, async () => (await findMemberById(db, id)) ?? false)) ?? false;
}

export async function insertMember(db: Db, row: MemberRow): Promise<void> {
  const { members: m } = tables(db);
  await exec(db, db.insert(m).values(row));
  memberCache.invalidate(db);
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

/** How many current owners the account has (an account always keeps one: see service.ts changeRole). */
export async function countOwners(db: Db, accountId: string): Promise<number> {
  const { members: m } = tables(db);
  const row = await one(
    db,
    db
      .select({ n: count() })
      .from(m)
      .where(and(eq(m.accountId, accountId), eq(m.role, "owner"), isNull(m.removedAtTs))),
  );
  return Number(row?.n ?? 0);
}

export async function setPasswordHash(db: Db, id: string, passwordHash: string): Promise<void> {
  const { members: m } = tables(db);
  await exec(db, db.update(m).set({ passwordHash }).where(eq(m.id, id)));
  memberCache.invalidate(db);
}

/** The first owner's address and name, chosen with their password. */
export async function setIdentity(db: Db, id: string, email: string, name: string): Promise<void> {
  const { members: m } = tables(db);
  await exec(db, db.update(m).set({ email, name }).where(eq(m.id, id)));
  memberCache.invalidate(db);
}

export async function setRole(db: Db, id: string, role: MemberRole): Promise<void> {
  const { members: m } = tables(db);
  await exec(db, db.update(m).set({ role }).where(eq(m.id, id)));
  memberCache.invalidate(db);
}

export async function markRemoved(db: Db, id: string, nowTs: number): Promise<void> {
  const { members: m } = tables(db);
  await exec(db, db.update(m).set({ removedAtTs: nowTs }).where(eq(m.id, id)));
  memberCache.invalidate(db);
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

export type JobClaimRow = typeof jobClaims.$inferSelect;

/** A claim with its holder's name; only claims of current (not removed) members, since a removed member holds nothing. */
export interface HeldClaim extends JobClaimRow {
  memberName: string;
}

const claimColumns = (db: Db) => {
  const { jobClaims: c, members: m } = tables(db);
  return {
    accountId: c.accountId,
    jobCiphertext: c.jobCiphertext,
    memberId: c.memberId,
    claimedAtTs: c.claimedAtTs,
    expiresAtTs: c.expiresAtTs,
    memberName: m.name,
  };
};

/** The live claims (unexpired, of current members) on these jobs of the account: one read for a page of cards. */
export function liveClaims(db: Db, accountId: string, jobCiphertexts: readonly string[], nowTs: number): Promise<HeldClaim[]> {
  if (jobCiphertexts.length === 0) return Promise.resolve([]);
  const { jobClaims: c, members: m } = tables(db);
  return many(
    db,
    db
      .select(claimColumns(db))
      .from(c)
      .innerJoin(m, eq(m.id, c.memberId))
      .where(and(eq(c.accountId, accountId), inArray(c.jobCiphertext, [...new Set(jobCiphertexts)]), gt(c.expiresAtTs, nowTs), isNull(m.removedAtTs))),
  );
}

/**
 * Takes the claim or renews it: written when the job has no claim, or its claim is the member's own, expired, or
 * of a removed member; otherwise nothing changes (the caller reads who holds it). One statement per case, so two
 * members claiming at once cannot both win: the loser's update matches no row, or its insert hits the primary key.
 */
export async function takeClaim(db: Db, row: JobClaimRow): Promise<void> {
  const { jobClaims: c, members: m } = tables(db);
  const removed = db
    .select({ id: m.id })
    .from(m)
    .where(and(eq(m.accountId, row.accountId), sql`${m.removedAtTs} IS NOT NULL`));
  const changed = await exec(
    db,
    db
      .update(c)
      .set({
        memberId: row.memberId,
        // A renewal keeps when the member first claimed it; a takeover starts anew.
        claimedAtTs: sql`CASE WHEN ${c.memberId} = ${row.memberId} AND ${c.expiresAtTs} > ${row.claimedAtTs} THEN ${c.claimedAtTs} ELSE ${row.claimedAtTs} END`,
        expiresAtTs: row.expiresAtTs,
      })
      .where(
        and(
          eq(c.accountId, row.accountId),
          eq(c.jobCiphertext, row.jobCiphertext),
          or(eq(c.memberId, row.memberId), lte(c.expiresAtTs, row.claimedAtTs), inArray(c.memberId, removed)),
        ),
      ),
  );
  if (changed > 0) return;
  const existing = await one(
    db,
    db
      .select({ memberId: c.memberId })
      .from(c)
      .where(and(eq(c.accountId, row.accountId), eq(c.jobCiphertext, row.jobCiphertext))),
  );
  if (!existing) await exec(db, db.insert(c).values(row).onConflictDoNothing());
}

/** Ends the claim on a job (any holder's, or only `memberId`'s when given); true when one was there. */
export async function dropClaim(db: Db, accountId: string, jobCiphertext: string, memberId?: string): Promise<boolean> {
  const { jobClaims: c } = tables(db);
  const where = and(eq(c.accountId, accountId), eq(c.jobCiphertext, jobCiphertext), memberId === undefined ? undefined : eq(c.memberId, memberId));
  return (await exec(db, db.delete(c).where(where))) > 0;
}

/** Names of these members of the account, removed ones too (a record keeps saying who did it). */
export async function memberNames(db: Db, accountId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { members: m } = tables(db);
  const rows = await many(
    db,
    db
      .select({ id: m.id, name: m.name })
      .from(m)
      .where(and(eq(m.accountId, accountId), inArray(m.id, [...new Set(ids)]))),
  );
  return new Map(rows.map((r) => [r.id, r.name]));
}

// Routing (routing.ts): the feeds assigned to members.

/** The members a feed is assigned to (current ones only: a removed member is assigned nothing). */
export async function membersOfFeed(db: Db, feedId: string): Promise<string[]> {
  const { feedMembers: fm, members: m } = tables(db);
  const rows = await many(
    db,
    db
      .select({ memberId: fm.memberId })
      .from(fm)
      .innerJoin(m, eq(m.id, fm.memberId))
      .where(and(eq(fm.feedId, feedId), isNull(m.removedAtTs)))
      .orderBy(asc(m.createdAtTs), asc(m.id)),
  );
  return rows.map((r) => r.memberId);
}

/** The feeds assigned to a member. */
export async function feedsOfMember(db: Db, memberId: string): Promise<string[]> {
  const { feedMembers: fm } = tables(db);
  return (await many(db, db.select({ feedId: fm.feedId }).from(fm).where(eq(fm.memberId, memberId)))).map((r) => r.feedId);
}

/** Replaces a feed's members with these (call inside a transaction: a delete, then one insert). */
export async function replaceFeedMembers(db: Db, feedId: string, memberIds: readonly string[]): Promise<void> {
  const { feedMembers: fm } = tables(db);
  await exec(db, db.delete(fm).where(eq(fm.feedId, feedId)));
  if (memberIds.length > 0) await exec(db, db.insert(fm).values(memberIds.map((memberId) => ({ feedId, memberId }))));
}

/** Every member's name the account ever had, removed ones too (history names who did what). */
export async function memberNamesOfAccount(db: Db, accountId: string): Promise<Map<string, string>> {
  const { members: m } = tables(db);
  const rows = await many(db, db.select({ id: m.id, name: m.name }).from(m).where(eq(m.accountId, accountId)));
  return new Map(rows.map((r) => [r.id, r.name]));
}
