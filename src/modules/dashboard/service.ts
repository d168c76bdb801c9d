import { sameSecret } from "../../lib/same-secret";
import { sha256Hex } from "../../lib/hash";
import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import * as accounts from "../accounts/service";
import * as accountsRepo from "../accounts/repo";
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
export function newToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** Tokens are stored only as this hash, so a copy of the database opens no sessions. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

function openSession(deps: DashboardDeps, accountId: string, keyId: string | null): { token: string; session: DashboardSession } {
  const now = deps.clock.now();
  const token = newToken();
  const row = { id: hashToken(token), accountId, keyId, csrfToken: newToken(), createdAtTs: now, expiresAtTs: now + SESSION_ABSOLUTE_MS, lastSeenAtTs: now };
  repo.deleteExpiredSessions(deps.db, now, SESSION_IDLE_MS);
  repo.insertSession(deps.db, row);
  return { token, session: { id: row.id, accountId, keyId, csrfToken: row.csrfToken } };
}

/** Signs in with an API key; null for a missing, malformed, unknown or revoked key (one answer for all). */
export function signInWithKey(deps: DashboardDeps, apiKey: string | undefined): { token: string; session: DashboardSession } | null {
  const found = accounts.authenticate(deps, apiKey?.trim());
  if (!found) return null;
  return openSession(deps, found.accountId, found.keyId);
}

/** Creates a one-time sign-in link token for an account (the CLI prints it); valid for SIGN_IN_LINK_MS. */
export function createSignInLink(deps: DashboardDeps, accountId: string): { token: string; expiresAtTs: number } {
  accounts.getAccount(deps, accountId);
  const now = deps.clock.now();
  const token = newToken();
  const expiresAtTs = now + SIGN_IN_LINK_MS;
  repo.insertSignInLink(deps.db, { tokenHash: hashToken(token), accountId, expiresAtTs }, now);
  return { token, expiresAtTs };
}

/** Uses up a sign-in link and opens a session with no key behind it; null when used, expired or unknown. */
export function signInWithLink(deps: DashboardDeps, token: string): { token: string; session: DashboardSession } | null {
  const accountId = repo.takeSignInLink(deps.db, hashToken(token), deps.clock.now());
  if (!accountId) return null;
  return openSession(deps, accountId, null);
}

/**
 * The session a cookie names, if it is still good: within both time limits and,
 * when opened with a key, that key not revoked. A dead session is deleted on sight.
 */
export function resolveSession(deps: DashboardDeps, token: string | undefined): DashboardSession | null {
  if (!token) return null;
  const row = repo.findSession(deps.db, hashToken(token));
  if (!row) return null;
  const now = deps.clock.now();
  const expired = now >= row.expiresAtTs || now - row.lastSeenAtTs >= SESSION_IDLE_MS;
  if (expired || row.keyRevokedAtTs !== null) {
    repo.deleteSession(deps.db, row.id);
    return null;
  }
  if (now - row.lastSeenAtTs >= SESSION_TOUCH_MS) repo.touchSession(deps.db, row.id, now);
  return { id: row.id, accountId: row.accountId, keyId: row.keyId, csrfToken: row.csrfToken };
}

export function signOut(deps: DashboardDeps, session: DashboardSession): void {
  repo.deleteSession(deps.db, session.id);
}

export function isCsrfValid(session: DashboardSession, presented: string | undefined): boolean {
  return typeof presented === "string" && presented.length > 0 && sameSecret(presented, session.csrfToken);
}

/** What the overview page shows. Everything is read for the session's account only. */
export async function overview(deps: DashboardDeps & { config: Config }, session: DashboardSession) {
  const nowTs = deps.clock.now();
  const account = accounts.getAccount(deps, session.accountId);
  const keys = accounts.listKeys(deps, session.accountId);
  const matches = await ov.matchesPerFeed(deps.db, session.accountId, nowTs);
  return {
    nowTs,
    account,
    activeKeys: keys.filter((k) => k.revokedAtTs === null).length,
    totalKeys: keys.length,
    feeds: matches.length,
    aiScoring: { used: ov.aiScoringUsedThisMonth(deps.db, session.accountId, nowTs), allowance: account.aiScoringAllowance },
    applications: await ov.applicationCounts(deps.db, session.accountId, nowTs),
    matches,
    webhookProblems: await feedsWithWebhookProblems(deps.db, session.accountId),
    sources: ov.sourceStatuses(deps.db, deps.config),
  };
}

export type OverviewData = Awaited<ReturnType<typeof overview>>;

export function listKeys(deps: DashboardDeps, session: DashboardSession) {
  return accounts.listKeys(deps, session.accountId);
}

export function createKey(deps: DashboardDeps & { config: accounts.CeilingDefaults }, session: DashboardSession, label: string | undefined) {
  return accounts.createKey(deps, session.accountId, label);
}

/** Revokes one of the session's own keys; false (→ 404) for a key of another account or none at all. */
export function revokeOwnKey(deps: DashboardDeps, session: DashboardSession, keyId: string): boolean {
  const key = accountsRepo.findKey(deps.db, keyId);
  if (!key || key.accountId !== session.accountId) return false;
  accounts.revokeKey(deps, keyId);
  return true;
}

/**
 * The caller as the API services see it, so every dashboard page goes through
 * the same services and rules as the API (they only read accountId and kind).
 */
export function sessionAuth(deps: DashboardDeps, session: DashboardSession): accounts.AuthContext {
  const account = accountsRepo.findAccount(deps.db, session.accountId);
  return {
    keyId: session.keyId ?? "dashboard-link",
    keyLabel: "dashboard",
    keyPrefix: "",
    accountId: session.accountId,
    accountKind: account?.kind ?? "solo",
    rateLimitMultiplier: 1,
    rateLimitOverrides: null,
  };
}
