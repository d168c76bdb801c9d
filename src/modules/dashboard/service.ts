import { randomToken } from "../../lib/ids";
import { sameSecret } from "../../lib/same-secret";
import { sha256Hex } from "../../lib/hash";
import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import * as accounts from "../accounts/service";
import * as accountsRepo from "../accounts/repo";
import { SESSION_KEY_ID } from "../accounts/model";
import type { MemberRole } from "../../db/enums";
import * as members from "../members/service";
import { lowerRole } from "../members/permissions";
import { AppError } from "../../errors";
import { feedsWithWebhookProblems } from "../feeds/repo";
import type { Config } from "../../config";
import * as ov from "./overview";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SESSION_TOUCH_MS, SIGN_IN_LINK_MS, type DashboardSession } from "./model";
import * as repo from "./repo";

export interface DashboardDeps {
  db: Db;
  clock: Clock;
}

/** 32 random bytes, base64url: the secret a browser or a sign-in link carries. */
export const newToken = randomToken;

/** Tokens are stored only as this hash, so a copy of the database opens no sessions. */
function hashToken(token: string): string {
  return sha256Hex(token);
}

async function openSession(
  deps: DashboardDeps,
  accountId: string,
  keyId: string | null,
  memberId: string | null = null,
): Promise<{ token: string; session: DashboardSession }> {
  const now = deps.clock.now();
  const token = newToken();
  const row = {
    id: hashToken(token),
    accountId,
    keyId,
    memberId,
    csrfToken: newToken(),
    createdAtTs: now,
    expiresAtTs: now + SESSION_ABSOLUTE_MS,
    lastSeenAtTs: now,
  };
  await repo.deleteExpiredSessions(deps.db, now, SESSION_IDLE_MS);
  await repo.insertSession(deps.db, row);
  const acting = await actingAs(deps, accountId, memberId, null);
  return { token, session: { id: row.id, accountId, keyId, csrfToken: row.csrfToken, ...acting! } };
}

/** Deletes up to `limit` expired sessions (sessions.task.ts's batches); returns how many went. */
export function pruneExpiredSessions(deps: DashboardDeps, limit: number): Promise<number> {
  return repo.deleteExpiredSessions(deps.db, deps.clock.now(), SESSION_IDLE_MS, limit);
}

export const KEY_SIGN_IN_REFUSED = "This account signs in with e-mail and password";

/**
 * Signs in with an API key; null for a missing, malformed, unknown or revoked key (one answer for all). Once a
 * member of the account has set a password, people sign in as themselves, so a shared key is refused (403).
 */
export async function signInWithKey(deps: DashboardDeps, apiKey: string | undefined): Promise<{ token: string; session: DashboardSession } | null> {
  const found = await accounts.authenticate(deps, apiKey?.trim());
  if (!found) return null;
  // The audit log names the key by its prefix only; an unknown key has no account whose log it could go in.
  const how = `with the API key ${found.keyPrefix}…`;
  const people = await members.listMembers(deps, found.accountId);
  if (people.some((m) => m.hasPassword)) {
    await members.signInNote(deps, found.accountId, found, false, `${how}: this account signs in with e-mail and password`);
    throw new AppError("forbidden", KEY_SIGN_IN_REFUSED);
  }
  const opened = await openSession(deps, found.accountId, found.keyId, found.memberId);
  await members.signInNote(deps, found.accountId, { ...found, memberName: opened.session.memberName }, true, how);
  return opened;
}

/** Signs a member in with e-mail and password; the members service's 401 and 429 pass through as they are. */
export async function signInWithPassword(
  deps: DashboardDeps,
  input: { email: string; password: string; clientAddress: string },
): Promise<{ token: string; session: DashboardSession }> {
  const member = await members.signInWithPassword(deps, input);
  return openSession(deps, member.accountId, null, member.id);
}

/** The member a set-password link belongs to (null: unknown, used or expired). */
export function memberOfLink(deps: DashboardDeps, token: string) {
  return members.memberOfLink(deps, token);
}

/** Sets a member's password through their one-time link and signs them in (a 400 naming `token` when the link is dead). */
export async function setPasswordAndSignIn(
  deps: DashboardDeps,
  token: string,
  password: string,
  claim: { email?: string; name?: string } = {},
): Promise<{ token: string; session: DashboardSession }> {
  const member = await members.setPasswordWithLink(deps, token, password, claim);
  return openSession(deps, member.accountId, null, member.id);
}

/** Creates a one-time sign-in link token for an account (the CLI prints it); valid for SIGN_IN_LINK_MS. */
export async function createSignInLink(deps: DashboardDeps, accountId: string): Promise<{ token: string; expiresAtTs: number }> {
  await accounts.getAccount(deps, accountId);
  const now = deps.clock.now();
  const token = newToken();
  const expiresAtTs = now + SIGN_IN_LINK_MS;
  await repo.insertSignInLink(deps.db, { tokenHash: hashToken(token), accountId, expiresAtTs }, now);
  return { token, expiresAtTs };
}

/** Uses up a sign-in link and opens a session with no key behind it; null when used, expired or unknown. */
export async function signInWithLink(deps: DashboardDeps, token: string): Promise<{ token: string; session: DashboardSession } | null> {
  const accountId = await repo.takeSignInLink(deps.db, hashToken(token), deps.clock.now());
  if (!accountId) return null;
  return openSession(deps, accountId, null);
}

/**
 * The session a cookie names, if it is still good: within both time limits and,
 * when opened with a key, that key not revoked; when opened by a member, that
 * member not removed (read per request, so a removal signs them out at once on
 * every node). A dead session is deleted on sight.
 */
export async function resolveSession(deps: DashboardDeps, token: string | undefined): Promise<DashboardSession | null> {
  if (!token) return null;
  const row = await repo.findSession(deps.db, hashToken(token));
  if (!row) return null;
  const now = deps.clock.now();
  const expired = now >= row.expiresAtTs || now - row.lastSeenAtTs >= SESSION_IDLE_MS;
  const acting = expired ? null : await actingAs(deps, row.accountId, row.memberId ?? row.keyMemberId, row.keyRole);
  if (!acting || row.keyRevokedAtTs !== null) {
    await repo.deleteSession(deps.db, row.id);
    return null;
  }
  if (now - row.lastSeenAtTs >= SESSION_TOUCH_MS) await repo.touchSession(deps.db, row.id, now);
  return { id: row.id, accountId: row.accountId, keyId: row.keyId, csrfToken: row.csrfToken, ...acting };
}

/**
 * Who a session acts as: its member with their current role (a key's role never above it), or, with no member
 * behind it, the owner (a solo account's key or `jobpilot dashboard link`). Null when the member was removed (or
 * belongs to another account), so a removal or demotion acts on the next request.
 */
async function actingAs(
  deps: DashboardDeps,
  accountId: string,
  memberId: string | null,
  keyRole: MemberRole | null,
): Promise<Pick<DashboardSession, "memberId" | "memberName" | "role" | "biddersMaySend"> | null> {
  const account = await accountsRepo.findAccountCached(deps.db, accountId);
  const biddersMaySend = account?.biddersMaySend ?? false;
  if (memberId === null) return { memberId: null, memberName: null, role: keyRole ?? "owner", biddersMaySend };
  const member = await members.currentMember(deps, memberId);
  if (!member || member.accountId !== accountId) return null;
  return { memberId, memberName: member.name, role: keyRole ? lowerRole(keyRole, member.role) : member.role, biddersMaySend };
}

export async function signOut(deps: DashboardDeps, session: DashboardSession): Promise<void> {
  await repo.deleteSession(deps.db, session.id);
}

export function isCsrfValid(session: DashboardSession, presented: string | undefined): boolean {
  return typeof presented === "string" && presented.length > 0 && sameSecret(presented, session.csrfToken);
}

/** What the overview page shows. Everything is read for the session's account only. */
export async function overview(deps: DashboardDeps & { config: Config }, session: DashboardSession) {
  const nowTs = deps.clock.now();
  const account = await accounts.getAccount(deps, session.accountId);
  const keys = await accounts.listKeys(deps, session.accountId);
  const matches = await ov.matchesPerFeed(deps.db, session.accountId, nowTs);
  return {
    nowTs,
    account,
    activeKeys: keys.filter((k) => k.revokedAtTs === null).length,
    totalKeys: keys.length,
    feeds: matches.length,
    aiScoring: { used: await ov.aiScoringUsedThisMonth(deps.db, session.accountId, nowTs), allowance: account.aiScoringAllowance },
    applications: await ov.applicationCounts(deps.db, session.accountId, nowTs),
    matches,
    webhookProblems: await feedsWithWebhookProblems(deps.db, session.accountId),
    sources: await ov.sourceStatuses(deps.db, deps.config, session.accountId),
  };
}

export type OverviewData = Awaited<ReturnType<typeof overview>>;

export function listKeys(deps: DashboardDeps, session: DashboardSession) {
  return accounts.listKeys(deps, session.accountId);
}

/** A key made by the signed-in member, with their role or a lower one (the members service checks and logs it). */
export async function createKey(
  deps: DashboardDeps & { config: accounts.CeilingDefaults },
  session: DashboardSession,
  label: string | undefined,
  role?: string,
) {
  return members.createKey(deps, await sessionAuth(deps, session), { label, role });
}

/**
 * Revokes a key of the session's account as the members service allows (owners any, admins their own: a 403
 * otherwise); false (→ 404) for a key of another account or none at all.
 */
export async function revokeOwnKey(deps: DashboardDeps, session: DashboardSession, keyId: string): Promise<boolean> {
  try {
    await members.revokeKey(deps, await sessionAuth(deps, session), keyId);
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") return false;
    throw err;
  }
}

/**
 * The caller as the API services see it, so every dashboard page goes through
 * the same services and rules as the API (they only read accountId and kind).
 */
export function sessionAuth(deps: DashboardDeps, session: DashboardSession): Promise<accounts.AuthContext> {
  return accounts.accountAuth(deps.db, session.accountId, {
    keyId: session.keyId ?? SESSION_KEY_ID,
    keyLabel: "dashboard",
    memberId: session.memberId,
    memberName: session.memberName,
    role: session.role,
  });
}
