/**
 * Members: the people of an account, each with an e-mail, a password (argon2id through Bun.password) and a role.
 * A member is created with a one-time link that sets their password (an invitation, or the first owner's from the
 * command line); a forgotten password gets a reset link. Sign-in by e-mail and password is rate-limited per address
 * and per e-mail, and answers the same for an unknown address as for a wrong password (no user enumeration).
 */
import { tx, type Db } from "../../db/client";
import { isUniqueViolation } from "../../db/query";
import { MEMBER_ROLES, type MemberLinkPurpose, type MemberRole } from "../../db/enums";
import { AppError, notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import { sha256Hex } from "../../lib/hash";
import { newId, randomToken } from "../../lib/ids";
import { addCounts, readCounts } from "../accounts/repo";
import { mayGrant } from "./permissions";
import * as repo from "./repo";

export interface MembersDeps {
  db: Db;
  clock: Clock;
}

/** An invitation (or the first owner's set-password link) stays usable a week; a reset link an hour. */
export const LINK_LIFETIME_MS: Record<MemberLinkPurpose, number> = { invite: 7 * 86_400_000, reset: 3_600_000 };
/** Failed sign-ins allowed per e-mail and per client address in any 15 minutes. */
export const SIGN_IN_ATTEMPTS = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

export interface MemberView {
  id: string;
  accountId: string;
  email: string;
  name: string;
  role: MemberRole;
  hasPassword: boolean;
  createdAt: number;
}

const view = (m: repo.MemberRow): MemberView => ({
  id: m.id,
  accountId: m.accountId,
  email: m.email,
  name: m.name,
  role: m.role,
  hasPassword: m.passwordHash !== null,
  createdAt: m.createdAtTs,
});

async function newLink(db: Db, memberId: string, purpose: MemberLinkPurpose, nowTs: number): Promise<{ token: string; expiresAtTs: number }> {
  const token = randomToken();
  const expiresAtTs = nowTs + LINK_LIFETIME_MS[purpose];
  await repo.insertLink(db, { tokenHash: sha256Hex(token), memberId, purpose, createdAtTs: nowTs, expiresAtTs, usedAtTs: null });
  return { token, expiresAtTs };
}

/**
 * Adds a member with a one-time link to set their password. `by` is the inviting member's role (null: the command
 * line, which may create any role): a role can invite only roles with no permission it lacks.
 */
export async function createMember(
  deps: MembersDeps,
  input: { accountId: string; email: string; name?: string; role: MemberRole; by: MemberRole | null },
): Promise<{ member: MemberView; token: string; expiresAtTs: number }> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email) || email.length > 254) throw new AppError("bad_request", "email: must be an e-mail address such as ana@example.com");
  if (!MEMBER_ROLES.includes(input.role)) throw new AppError("bad_request", `role: must be one of ${MEMBER_ROLES.join(", ")}`);
  if (input.by !== null && !mayGrant(input.by, input.role)) {
    throw new AppError("forbidden", `role: your role (${input.by}) cannot invite a member as ${input.role}`);
  }
  const name = (input.name ?? "").trim() || email.split("@")[0]!;
  if (name.length > 100) throw new AppError("bad_request", "name: at most 100 characters");
  try {
    return await tx(deps.db, async (db) => {
      const nowTs = deps.clock.now();
      const row: repo.MemberRow = {
        id: newId(),
        accountId: input.accountId,
        email,
        name,
        role: input.role,
        passwordHash: null,
        createdAtTs: nowTs,
        removedAtTs: null,
      };
      await repo.insertMember(db, row);
      const link = await newLink(db, row.id, "invite", nowTs);
      return { member: view(row), ...link };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", `email: ${email} is already a member here or of another account on this server`);
    throw err;
  }
}

/** A new reset link for the member with this address (null when there is none: the caller says the same either way). */
export async function resetLink(deps: MembersDeps, rawEmail: string): Promise<{ member: MemberView; token: string; expiresAtTs: number } | null> {
  const member = await repo.findByEmail(deps.db, normalizeEmail(rawEmail));
  if (!member) return null;
  const link = await tx(deps.db, (db) => newLink(db, member.id, "reset", deps.clock.now()));
  return { member: view(member), ...link };
}

/** The member a live link belongs to, for the set-password page (null: unknown, used or expired). */
export async function memberOfLink(deps: MembersDeps, token: string): Promise<MemberView | null> {
  const link = await repo.findLiveLink(deps.db, sha256Hex(token), deps.clock.now());
  const member = link && (await repo.findMemberById(deps.db, link.memberId));
  return member ? view(member) : null;
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN) throw new AppError("bad_request", `password: at least ${PASSWORD_MIN} characters`);
  if (password.length > PASSWORD_MAX) throw new AppError("bad_request", `password: at most ${PASSWORD_MAX} characters`);
}

/** Sets the password through a one-time link; every other link of the member ends with it. */
export async function setPasswordWithLink(deps: MembersDeps, token: string, password: string): Promise<MemberView> {
  checkPassword(password);
  const hash = await Bun.password.hash(password, { algorithm: "argon2id" });
  return tx(deps.db, async (db) => {
    const nowTs = deps.clock.now();
    const link = await repo.findLiveLink(db, sha256Hex(token), nowTs);
    const member = link && (await repo.findMemberById(db, link.memberId));
    if (!member) throw new AppError("bad_request", "token: this link was used already or has expired; ask for a new one");
    await repo.setPasswordHash(db, member.id, hash);
    await repo.useLinks(db, member.id, nowTs);
    return view({ ...member, passwordHash: hash });
  });
}

const SIGN_IN_BUCKET = "member-sign-in";
const WRONG = "That e-mail and password do not match a member. Check both, or ask for a reset link.";

function attemptRefs(email: string, clientAddress: string, nowTs: number) {
  const windowStartTs = nowTs - (nowTs % SIGN_IN_WINDOW_MS);
  return [
    { keyId: `email:${sha256Hex(email)}`, bucket: SIGN_IN_BUCKET, window: "day" as const, windowStartTs },
    { keyId: `address:${clientAddress}`, bucket: SIGN_IN_BUCKET, window: "day" as const, windowStartTs },
  ];
}

/**
 * The member for this e-mail and password, or a 401 that reads the same for an unknown address and a wrong
 * password. After SIGN_IN_ATTEMPTS failures in a 15-minute window, per e-mail or per client address, a 429 says
 * when to try again, before any password is checked. The password is verified even for an unknown address (against
 * a fixed hash), so the answer takes as long either way.
 */
export async function signInWithPassword(deps: MembersDeps, input: { email: string; password: string; clientAddress: string }): Promise<MemberView> {
  const email = normalizeEmail(input.email);
  const nowTs = deps.clock.now();
  const refs = attemptRefs(email, input.clientAddress, nowTs);
  const counts = await readCounts(deps.db, refs);
  if (counts.some((n) => n >= SIGN_IN_ATTEMPTS)) {
    const retryAt = refs[0]!.windowStartTs + SIGN_IN_WINDOW_MS;
    throw new AppError(
      "rate_limited",
      `Too many sign-in attempts; try again after ${new Date(retryAt).toISOString().slice(11, 16)} UTC, or ask for a reset link.`,
    );
  }
  const member = await repo.findByEmail(deps.db, email);
  const ok = await Bun.password.verify(input.password, member?.passwordHash ?? (await decoyHash()));
  if (!member || member.passwordHash === null || !ok) {
    await addCounts(
      deps.db,
      refs.map((r) => ({ ...r, delta: 1 })),
    );
    throw new AppError("unauthorized", WRONG);
  }
  return view(member);
}

let decoy: Promise<string> | undefined;
const decoyHash = () => (decoy ??= Bun.password.hash(randomToken(), { algorithm: "argon2id" }));

export async function listMembers(deps: MembersDeps, accountId: string): Promise<MemberView[]> {
  return (await repo.listMembers(deps.db, accountId)).map(view);
}

/** The member as they stand now (null: removed or unknown): every request re-reads it, so a removal or demotion acts at once. */
export async function currentMember(deps: MembersDeps, memberId: string): Promise<MemberView | null> {
  const m = await repo.findMemberById(deps.db, memberId);
  return m ? view(m) : null;
}

export async function memberOf(deps: MembersDeps, accountId: string, memberId: string): Promise<MemberView> {
  const m = await repo.findMember(deps.db, accountId, memberId);
  if (!m) throw notFound("member not found");
  return view(m);
}
