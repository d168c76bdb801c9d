import { PROMPT_CHARS_HARD_MAX, type Config } from "../../config";
import { tx, type Db } from "../../db/client";
import { ACCOUNT_KINDS, type AccountKind, type MemberRole } from "../../db/enums";
import { isOneOf } from "../../lib/one-of";
import type { MarketplaceDriverName } from "../../marketplace/driver";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { AppError, notFound } from "../../errors";
import { isOverrideName } from "../../http/rate-limit-table";
import { displayPrefix, generateApiKey, hashApiKey, presentedKeyHash } from "./api-key";
import * as repo from "./repo";
import type { AccountView, KeyView } from "./model";

export interface AccountsDeps {
  db: Db;
  clock: Clock;
}

/** The server-wide ceilings; an account's own (accounts.max_*) win over them. */
export type CeilingDefaults = Pick<Config, "maxFeedsPerAccount" | "maxApiKeysPerAccount" | "maxPromptChars">;

/** What one account may have: its own ceilings where set, else the server's. */
export interface Ceilings {
  feeds: number;
  apiKeys: number;
  promptChars: number;
}

export type { AccountKind };

/** Who is calling, resolved from the x-api-key header. */
export interface AuthContext {
  keyId: string;
  keyLabel: string | null;
  keyPrefix: string;
  accountId: string;
  accountKind: AccountKind;
  rateLimitMultiplier: number;
  rateLimitOverrides: Record<string, number> | null;
  /**
   * Who acts (modules/members/caller.ts fills in the member): the member behind the key or session (null: a key
   * made by the CLI or /admin, which acts as the account's owner), their name for the audit log, the role the
   * request acts with (never above the member's current role), and whether the account lets bidders send.
   */
  memberId: string | null;
  memberName: string | null;
  role: MemberRole;
  biddersMaySend: boolean;
}

/** In the schema's order, as every API answer lists its fields. */
function toAccountView(row: repo.AccountRow): AccountView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    credits: row.creditsBalance - row.creditsHeld,
    creditsHeld: row.creditsHeld,
    marketplaceDriver: row.marketplaceDriver,
    rateLimitMultiplier: row.rateLimitMultiplier,
    rateLimitOverrides: row.rateLimitOverrides ?? {},
    aiScoringAllowance: row.aiScoringAllowance,
    maxFeeds: row.maxFeeds,
    maxApiKeys: row.maxApiKeys,
    maxPromptChars: row.maxPromptChars,
    biddersMaySend: row.biddersMaySend,
    createdAtTs: row.createdAtTs,
  };
}

function toKeyView(row: repo.ApiKeyRow): KeyView {
  return {
    id: row.id,
    accountId: row.accountId,
    label: row.label,
    prefix: row.prefix,
    createdAtTs: row.createdAtTs,
    lastUsedAtTs: row.lastUsedAtTs,
    revokedAtTs: row.revokedAtTs,
    memberId: row.memberId,
    role: row.role,
  };
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw new AppError("bad_request", "name must be a string of 1 to 200 characters");
  return trimmed;
}

function checkLabel(label: string | null | undefined): string | null {
  if (label === undefined || label === null) return null;
  if (label.length > 200) throw new AppError("bad_request", "label must be at most 200 characters");
  return label.trim() || null;
}

function checkWholeNumber(value: number, field: string, allowNegative: boolean): number {
  if (!Number.isSafeInteger(value) || (!allowNegative && value < 0)) {
    throw new AppError("bad_request", `${field} must be ${allowNegative ? "a whole number" : "a non-negative whole number"}`);
  }
  return value;
}

function newKeyRow(accountId: string, label: string | null, now: number) {
  const apiKey = generateApiKey();
  return {
    apiKey,
    row: { id: newId(), accountId, label, prefix: displayPrefix(apiKey), hash: hashApiKey(apiKey), createdAtTs: now },
  };
}

/** Creates an account, its initial credits and its first API key in one transaction. The key is returned once. */
export async function createAccount(
  deps: AccountsDeps,
  input: { name: string; kind?: AccountKind; credits?: number; keyLabel?: string | null },
): Promise<{ account: AccountView; key: KeyView; apiKey: string }> {
  const name = checkName(input.name);
  const kind = input.kind ?? "solo";
  if (!isOneOf(ACCOUNT_KINDS, kind)) throw new AppError("bad_request", `kind must be one of ${ACCOUNT_KINDS.join(", ")}`);
  const credits = checkWholeNumber(input.credits ?? 0, "credits", false);
  const now = deps.clock.now();
  return tx(deps.db, async (db) => {
    const account = await repo.insertAccount(db, { id: newId(), name, kind, createdAtTs: now });
    let balance = 0;
    if (credits > 0) {
      balance = (await repo.applyCreditDelta(db, { accountId: account.id, delta: credits, reason: "grant", note: "initial credits", createdAtTs: now })) ?? 0;
    }
    const { apiKey, row } = newKeyRow(account.id, checkLabel(input.keyLabel ?? "default"), now);
    const key = await repo.insertKey(db, row);
    return { account: toAccountView({ ...account, creditsBalance: balance }), key: toKeyView(key), apiKey };
  });
}

/**
 * On an empty database, creates the first account so a newcomer can call the
 * API at once. The check and the insert share one IMMEDIATE transaction, so two
 * starting processes cannot both create one.
 */
export function bootstrapFirstAccount(deps: AccountsDeps, credits: number): Promise<{ account: AccountView; key: KeyView; apiKey: string } | null> {
  return tx(deps.db, async (db) => {
    if ((await repo.countAccounts(db)) > 0) return null;
    return createAccount({ ...deps, db }, { name: "default", kind: "solo", credits });
  });
}

export async function listAccounts(deps: AccountsDeps): Promise<(AccountView & { activeKeys: number })[]> {
  return (await repo.listAccounts(deps.db)).map((row) => ({ ...toAccountView(row), activeKeys: row.activeKeys }));
}

export async function getAccount(deps: AccountsDeps, id: string): Promise<AccountView> {
  const row = await repo.findAccount(deps.db, id);
  if (!row) throw notFound("Account not found");
  return toAccountView(row);
}

/**
 * The caller for an account acting without one of its keys, for a process the operator runs on the
 * database itself (`jobpilot mcp --db --account`; whoever can open the database can create keys anyway).
 * It has the account's own rate limits, counted under a key id of its own (`account:<id>`).
 */
export async function accountCaller(deps: AccountsDeps, accountId: string): Promise<AuthContext> {
  const row = await repo.findAccount(deps.db, accountId);
  if (!row) throw notFound(`No account ${accountId}`);
  return {
    keyId: `account:${row.id}`,
    keyLabel: "no key: the account itself, in process",
    keyPrefix: "",
    accountId: row.id,
    accountKind: row.kind,
    rateLimitMultiplier: row.rateLimitMultiplier,
    rateLimitOverrides: row.rateLimitOverrides,
    memberId: null,
    memberName: null,
    role: "owner",
    biddersMaySend: row.biddersMaySend,
  };
}

type WhoAmIView = { account: AccountView; key: { id: string; label: string | null; prefix: string } };

/**
 * The calling key's account and the key itself (never its secret). Answered without a promise while the account
 * is in the read cache, as it nearly always is: clients call this route to check a key, and a promise costs each
 * request an allocation and a turn of the microtask queue.
 */
export function whoAmI(deps: AccountsDeps, auth: AuthContext): WhoAmIView | Promise<WhoAmIView> {
  const cached = whoAmINow(deps, auth);
  if (cached) return cached;
  return repo.findAccountCached(deps.db, auth.accountId).then((account) => {
    if (!account) throw notFound("Account not found");
    return whoAmIView(account, auth);
  });
}

/** whoAmI's answer while the account is in the read cache, else undefined. */
export function whoAmINow(deps: AccountsDeps, auth: AuthContext): WhoAmIView | undefined {
  const cached = repo.findAccountNow(deps.db, auth.accountId);
  return cached && whoAmIView(cached, auth);
}

function whoAmIView(account: repo.AccountRow, auth: AuthContext): WhoAmIView {
  return { account: toAccountView(account), key: { id: auth.keyId, label: auth.keyLabel, prefix: auth.keyPrefix } };
}

/** A new key, shown once; refused (409) when the account already has as many active keys as its ceiling allows. */
/**
 * A new key of the account. `by` is the member making it and the role the key carries (at most theirs: the caller
 * checks with members/permissions.ts mayGrant); without it (the CLI, /admin, pairing) the key acts as the owner.
 */
export function createKey(
  deps: AccountsDeps & { config: CeilingDefaults },
  accountId: string,
  label?: string | null,
  by?: { memberId: string | null; role: MemberRole },
): Promise<{ key: KeyView; apiKey: string }> {
  const checkedLabel = checkLabel(label);
  // Count and insert in one IMMEDIATE transaction, so two requests at once cannot both take the last place.
  return tx(deps.db, async (db) => {
    const ceiling = (await ceilingsOf({ ...deps, db }, accountId)).apiKeys;
    const active = await repo.countActiveKeys(db, accountId);
    if (active >= ceiling) {
      throw new AppError(
        "conflict",
        `API key limit reached: this account has ${active} active API keys and may have ${ceiling} (its maxApiKeys). Revoke a key, or have the operator raise the limit with jobpilot account limits --api-keys N.`,
      );
    }
    const { apiKey, row } = newKeyRow(accountId, checkedLabel, deps.clock.now());
    return { key: toKeyView(await repo.insertKey(db, { ...row, memberId: by?.memberId ?? null, role: by?.role ?? "owner" })), apiKey };
  });
}

export async function listKeys(deps: AccountsDeps, accountId: string): Promise<KeyView[]> {
  await getAccount(deps, accountId);
  return (await repo.listKeys(deps.db, accountId)).map(toKeyView);
}

/** Revoking is immediate: the next request with that key gets 401. Revoking twice is harmless. */
export async function revokeKey(deps: AccountsDeps, keyId: string): Promise<{ key: KeyView; alreadyRevoked: boolean }> {
  const revoked = await repo.revokeKey(deps.db, keyId, deps.clock.now());
  if (revoked) return { key: toKeyView(revoked), alreadyRevoked: false };
  const existing = await repo.findKey(deps.db, keyId);
  if (!existing) throw notFound("API key not found");
  return { key: toKeyView(existing), alreadyRevoked: true };
}

/** Revokes every live key the member made (when they are removed), in the caller's transaction when given one. */
export async function revokeKeysOfMember(deps: AccountsDeps, accountId: string, memberId: string): Promise<KeyView[]> {
  return (await repo.revokeKeysOfMember(deps.db, accountId, memberId, deps.clock.now())).map(toKeyView);
}

/** Adds (or, with a negative amount, removes) credits; refuses to leave a negative balance. */
export async function grantCredits(deps: AccountsDeps, accountId: string, amount: number, note?: string | null): Promise<{ balance: number }> {
  checkWholeNumber(amount, "amount", true);
  if (amount === 0) throw new AppError("bad_request", "amount must not be 0");
  return tx(deps.db, async (db) => {
    const account = await repo.findAccount(db, accountId);
    if (!account) throw notFound("Account not found");
    const balance = await repo.applyCreditDelta(db, {
      accountId,
      delta: amount,
      reason: amount > 0 ? "grant" : "correction",
      note: note ?? null,
      createdAtTs: deps.clock.now(),
    });
    if (balance === null) {
      throw new AppError("bad_request", `amount ${amount} would leave a negative balance (current balance ${account.creditsBalance})`);
    }
    return { balance };
  });
}

/** Higher (or lower) limits for one account: a multiplier over the table, and exact per-window overrides. */
export async function setRateLimits(
  deps: AccountsDeps,
  accountId: string,
  input: { multiplier?: number; overrides?: Record<string, number>; clear?: boolean },
): Promise<AccountView> {
  // Read, merged and written in one transaction: two changes at once must not lose each other's overrides.
  const row = await tx(deps.db, async (db) => {
    const current = await getAccount({ ...deps, db }, accountId);
    const multiplier = input.clear ? 1 : (input.multiplier ?? current.rateLimitMultiplier);
    if (!Number.isFinite(multiplier) || multiplier <= 0 || multiplier > 1_000_000) {
      throw new AppError("bad_request", "multiplier must be a number greater than 0 and at most 1000000");
    }
    const overrides = input.clear ? {} : { ...current.rateLimitOverrides };
    for (const [name, limit] of Object.entries(input.overrides ?? {})) {
      if (!isOverrideName(name)) throw new AppError("bad_request", `unknown limit "${name}": use BUCKET.minute or BUCKET.day`);
      checkWholeNumber(limit, name, false);
      overrides[name] = limit;
    }
    return repo.setAccountRateLimits(db, accountId, multiplier, Object.keys(overrides).length ? overrides : null);
  });
  if (!row) throw notFound("Account not found");
  return toAccountView(row);
}

/** The account's ceilings in force. Throws 404 for an unknown account. */
export async function ceilingsOf(deps: { db: Db; config: CeilingDefaults }, accountId: string): Promise<Ceilings> {
  const row = await repo.findAccount(deps.db, accountId);
  if (!row) throw notFound("Account not found");
  return {
    feeds: row.maxFeeds ?? deps.config.maxFeedsPerAccount,
    apiKeys: row.maxApiKeys ?? deps.config.maxApiKeysPerAccount,
    promptChars: row.maxPromptChars ?? deps.config.maxPromptChars,
  };
}

/**
 * Sets the account's own ceilings; null goes back to the server default. A
 * lower ceiling removes nothing: an account above it only cannot add more.
 */
export async function setCeilings(
  deps: AccountsDeps,
  accountId: string,
  input: { feeds?: number | null; apiKeys?: number | null; promptChars?: number | null },
): Promise<AccountView> {
  const changes: Partial<Pick<repo.AccountRow, "maxFeeds" | "maxApiKeys" | "maxPromptChars">> = {};
  if (input.feeds !== undefined) changes.maxFeeds = input.feeds === null ? null : checkWholeNumber(input.feeds, "feeds", false);
  if (input.apiKeys !== undefined) changes.maxApiKeys = input.apiKeys === null ? null : checkWholeNumber(input.apiKeys, "apiKeys", false);
  if (input.promptChars !== undefined) {
    if (input.promptChars !== null && (!Number.isSafeInteger(input.promptChars) || input.promptChars < 0 || input.promptChars > PROMPT_CHARS_HARD_MAX)) {
      throw new AppError("bad_request", `promptChars must be a whole number from 0 to ${PROMPT_CHARS_HARD_MAX}`);
    }
    changes.maxPromptChars = input.promptChars;
  }
  if (Object.keys(changes).length === 0) return await getAccount(deps, accountId);
  const row = await repo.setCeilings(deps.db, accountId, changes);
  if (!row) throw notFound("Account not found");
  return toAccountView(row);
}

/** Which marketplace driver the account applies through; null = the configured default. */
export async function setMarketplaceDriver(deps: AccountsDeps, accountId: string, driver: MarketplaceDriverName | null): Promise<AccountView> {
  const row = await repo.setMarketplaceDriver(deps.db, accountId, driver);
  if (!row) throw notFound("Account not found");
  return toAccountView(row);
}

/** AI scoring calls allowed per calendar month; null = unlimited. Past it, jobs are scored locally. */
export async function setAiScoringAllowance(deps: AccountsDeps, accountId: string, allowance: number | null): Promise<AccountView> {
  if (allowance !== null) checkWholeNumber(allowance, "aiScoringAllowance", false);
  const row = await repo.setAiScoringAllowance(deps.db, accountId, allowance);
  if (!row) throw notFound("Account not found");
  return toAccountView(row);
}

/** Whether the key `keyId` of account `accountId` still works (not revoked): sessions opened with a key end with it. */
export async function isKeyActive(deps: Pick<AccountsDeps, "db">, accountId: string, keyId: string): Promise<boolean> {
  const key = await repo.findKey(deps.db, keyId);
  return key !== undefined && key.accountId === accountId && key.revokedAtTs === null;
}

/**
 * Resolves a presented key. Malformed keys (bad shape or checksum) are refused
 * without a database read; the lookup is by SHA-256 in a unique index, so the
 * secret itself is never compared, and timing reveals nothing usable about it.
 */
export async function authenticate(deps: Pick<AccountsDeps, "db">, presented: string | null | undefined): Promise<AuthContext | null> {
  const hash = presentedKeyHash(presented);
  if (hash === null) return null;
  const found = await repo.findKeyByHashCached(deps.db, hash);
  return found ? callerOfKey(found) : null;
}

/**
 * authenticate() without waiting, when the answer is known now: null for a malformed key, the caller (or null
 * when revoked) for a key in the current key cache; undefined when the database must be asked (then call
 * authenticate). The hot path of every API request.
 */
export function authenticateNow(deps: Pick<AccountsDeps, "db">, presented: string | null | undefined): AuthContext | null | undefined {
  const hash = presentedKeyHash(presented);
  if (hash === null) return null;
  const found = repo.findKeyByHashNow(deps.db, hash);
  return found ? callerOfKey(found) : undefined;
}

function callerOfKey(found: repo.KeyLookup): AuthContext | null {
  if (found.revokedAtTs !== null) return null;
  return {
    keyId: found.keyId,
    keyLabel: found.keyLabel,
    keyPrefix: found.keyPrefix,
    accountId: found.accountId,
    accountKind: found.accountKind,
    rateLimitMultiplier: found.rateLimitMultiplier,
    rateLimitOverrides: found.rateLimitOverrides,
    memberId: found.memberId,
    memberName: null,
    role: found.role,
    biddersMaySend: found.biddersMaySend,
  };
}

/**
 * The account as the services see a caller that came without an API key (a background task, a bound
 * Telegram chat): they read only accountId and kind. `via` names the way in, for logs.
 */
export async function accountAuth(
  db: Db,
  accountId: string,
  via: { keyId: string; keyLabel: string | null; memberId?: string | null; memberName?: string | null; role?: MemberRole },
): Promise<AuthContext> {
  const account = await repo.findAccount(db, accountId);
  return {
    keyId: via.keyId,
    keyLabel: via.keyLabel,
    keyPrefix: "",
    accountId,
    accountKind: account?.kind ?? "solo",
    rateLimitMultiplier: 1,
    rateLimitOverrides: null,
    memberId: via.memberId ?? null,
    memberName: via.memberName ?? null,
    role: via.role ?? "owner",
    biddersMaySend: account?.biddersMaySend ?? false,
  };
}

/** The team setting: whether members with the bidder role may send without an approval (owners change it). */
export async function setBiddersMaySend(deps: AccountsDeps, accountId: string, biddersMaySend: boolean): Promise<AccountView> {
  const row = await repo.setBiddersMaySend(deps.db, accountId, biddersMaySend);
  if (!row) throw notFound("Account not found");
  return toAccountView(row);
}
