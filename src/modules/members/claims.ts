/**
 * Claims: so two members never bid on the same job, opening a job to draft claims it for the member for CLAIM_TTL_MS
 * (renewed while they keep drafting). Another member who tries to claim it, or to send a proposal for it, gets a
 * 409 naming the holder. A claim ends by hand (its holder, or anyone who may approve), when the job's application
 * goes out or is discarded, or when it expires; an expired claim, or one of a removed member, is ignored and
 * overwritten. Only members hold claims: a key of no member (the CLI's, /admin's, a pairing's) and so a solo
 * account without members neither claims nor is checked.
 */
import { type Db, tx } from "../../db/client";
import type { MemberRole } from "../../db/enums";
import { AppError } from "../../errors";
import type { Clock } from "../../lib/clock";
import { can } from "./permissions";
import * as repo from "./repo";

/** How long a claim holds without the member drafting on: 30 minutes, renewed by each draft, apply or page view. */
export const CLAIM_TTL_MS = 30 * 60_000;

export interface ClaimsDeps {
  db: Db;
  clock: Clock;
}

/** Who claims: the account, the member (null: a key of no member, which claims nothing) and their role. */
export interface Claimant {
  accountId: string;
  memberId: string | null;
  role: MemberRole;
}

export interface ClaimView {
  jobCiphertext: string;
  memberId: string;
  memberName: string;
  claimedAt: number;
  expiresAt: number;
  /** The claim is the caller's own. */
  mine: boolean;
}

/** "14:02" (UTC) for the 409's words. */
const hhmm = (ts: number) => new Date(ts).toISOString().slice(11, 16);

export function claimView(c: repo.HeldClaim, by: { memberId: string | null }): ClaimView {
  return {
    jobCiphertext: c.jobCiphertext,
    memberId: c.memberId,
    memberName: c.memberName,
    claimedAt: c.claimedAtTs,
    expiresAt: c.expiresAtTs,
    mine: c.memberId === by.memberId,
  };
}

/** The 409 that names who holds the job and until when. */
export function claimConflict(c: Pick<repo.HeldClaim, "memberName" | "claimedAtTs" | "expiresAtTs">): AppError {
  return new AppError("conflict", `${c.memberName} is drafting this job (claimed ${hhmm(c.claimedAtTs)} UTC, until ${hhmm(c.expiresAtTs)}); ask them or wait`);
}

/** The job's live claim (unexpired, of a current member), if any. */
export async function liveClaim(db: Db, accountId: string, jobCiphertext: string, nowTs: number): Promise<repo.HeldClaim | undefined> {
  return (await repo.liveClaims(db, accountId, [jobCiphertext], nowTs))[0];
}

/** The live claims of a page of jobs in one read, by job. */
export async function claimsOfJobs(db: Db, accountId: string, jobCiphertexts: readonly string[], nowTs: number): Promise<Map<string, repo.HeldClaim>> {
  return new Map((await repo.liveClaims(db, accountId, jobCiphertexts, nowTs)).map((c) => [c.jobCiphertext, c]));
}

/**
 * Claims the job for the caller's member, or renews their claim; a 409 naming the holder when another member's
 * claim is live. Null for a caller of no member (nothing to claim with).
 */
export async function claim(deps: ClaimsDeps, by: Claimant, jobCiphertext: string): Promise<ClaimView | null> {
  const memberId = by.memberId;
  if (memberId === null) return null;
  return tx(deps.db, async (db) => {
    const nowTs = deps.clock.now();
    await repo.takeClaim(db, { accountId: by.accountId, jobCiphertext, memberId, claimedAtTs: nowTs, expiresAtTs: nowTs + CLAIM_TTL_MS });
    const held = await liveClaim(db, by.accountId, jobCiphertext, nowTs);
    if (!held) throw new Error(`claim of ${jobCiphertext} was written but cannot be read back`);
    if (held.memberId !== memberId) throw claimConflict(held);
    return claimView(held, by);
  });
}

/**
 * Ends the claim on a job by hand: the holder's own, or anyone's for a role that may approve (owner, admin);
 * a 403 naming the holder otherwise. `released` is false when there was no live claim (an expired one goes too).
 */
export async function release(deps: ClaimsDeps, by: Claimant, jobCiphertext: string): Promise<{ released: boolean }> {
  return tx(deps.db, async (db) => {
    const held = await liveClaim(db, by.accountId, jobCiphertext, deps.clock.now());
    if (held && held.memberId !== by.memberId && !can(by.role, "approve")) {
      throw new AppError(
        "forbidden",
        `${held.memberName} holds the claim on this job: only they, or an owner or admin, can release it (it ends by itself at ${hhmm(held.expiresAtTs)} UTC)`,
      );
    }
    const dropped = await repo.dropClaim(db, by.accountId, jobCiphertext);
    return { released: held !== undefined && dropped };
  });
}

/**
 * Inside the caller's transaction (apply, an approval): the 409 naming the holder when a member other than
 * `allowed` holds a live claim on the job. A caller of no member is not checked (see the module's comment).
 */
export async function assertUnclaimed(
  db: Db,
  by: { accountId: string; memberId: string | null },
  jobCiphertext: string,
  nowTs: number,
  allowed: readonly (string | null)[] = [],
): Promise<void> {
  if (by.memberId === null) return;
  const held = await liveClaim(db, by.accountId, jobCiphertext, nowTs);
  if (held && held.memberId !== by.memberId && !allowed.includes(held.memberId)) throw claimConflict(held);
}

/** The job's application went out or was discarded: its claim, whoever held it, has done its work. */
export async function releaseJob(db: Db, accountId: string, jobCiphertext: string): Promise<void> {
  await repo.dropClaim(db, accountId, jobCiphertext);
}

/** Names of members for a record's "drafted / approved / sent by" (removed members keep their names there). */
export function memberNames(db: Db, accountId: string, ids: readonly (string | null)[]): Promise<Map<string, string>> {
  return repo.memberNames(
    db,
    accountId,
    ids.filter((id): id is string => id !== null),
  );
}
