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
import * as accounts from "../accounts/service";
import type { AuthContext } from "../accounts/service";
import type { AccountView, KeyView } from "../accounts/model";
import { actorIds, audit } from "../automation/governor";
import { authorizeCaller } from "./caller";
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
  input: { accountId: string; email: string; name?: string; role: MemberRole; by: MemberRole | null; actor?: Actor | null },
): Promise<{ member: MemberView; token: string; expiresAtTs: number }> {
  const email = checkEmail(input.email);
  if (!MEMBER_ROLES.includes(input.role)) throw new AppError("bad_request", `role: must be one of ${MEMBER_ROLES.join(", ")}`);
  if (input.by !== null && !mayGrant(input.by, input.role)) {
    throw new AppError("forbidden", `role: your role (${input.by}) cannot invite a member as ${input.role}`);
  }
  const name = checkName(input.name, email);
  try {
    return await insertWithLink(
      deps,
      { accountId: input.accountId, email, name, role: input.role },
      input.actor ?? null,
      `${name} <${email}> invited as ${input.role}`,
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(email);
    throw err;
  }
}

function checkEmail(raw: string): string {
  const email = normalizeEmail(raw);
  if (!EMAIL.test(email) || email.length > 254) throw new AppError("bad_request", "email: must be an e-mail address such as ana@example.com");
  return email;
}

function checkName(raw: string | undefined, email: string): string {
  const name = (raw ?? "").trim() || email.split("@")[0]!;
  if (name.length > 100) throw new AppError("bad_request", "name: at most 100 characters");
  return name;
}

const taken = (email: string) => new AppError("conflict", `email: ${email} is already a member here or of another account on this server`);

/** A member without a password yet and their invitation link, noted in the audit log, in one transaction. */
function insertWithLink(
  deps: MembersDeps,
  m: Pick<repo.MemberRow, "accountId" | "email" | "name" | "role">,
  actor: Actor | null,
  detail: string,
): Promise<{ member: MemberView; token: string; expiresAtTs: number }> {
  return tx(deps.db, async (db) => {
    const nowTs = deps.clock.now();
    const row: repo.MemberRow = { id: newId(), ...m, passwordHash: null, createdAtTs: nowTs, removedAtTs: null };
    await repo.insertMember(db, row);
    const link = await newLink(db, row.id, "invite", nowTs);
    await note(db, m.accountId, actor, "member.invited", detail, nowTs);
    return { member: view(row), ...link };
  });
}

/**
 * The first-run account's owner, whose address nobody knows yet: the banner prints their link, and the
 * set-password page asks for the e-mail with the password. Until they use it the API key signs in, as for any
 * account whose members have set no password.
 */
export function createFirstOwner(deps: MembersDeps, accountId: string): Promise<{ member: MemberView; token: string; expiresAtTs: number }> {
  return insertWithLink(deps, { accountId, email: UNCLAIMED, name: "Owner", role: "owner" }, null, "the first owner's set-password link, printed at first run");
}

/**
 * First run: the server's first account, its API key and its owner's link, in one transaction (a kill between them
 * cannot leave an account whose banner never printed the link). Null when the database has an account already.
 */
export function bootstrapFirstOwner(
  deps: MembersDeps,
  credits: number,
): Promise<{ account: AccountView; apiKey: string; ownerLink: { token: string; expiresAtTs: number } } | null> {
  return tx(deps.db, async (db) => {
    const first = await accounts.bootstrapFirstAccount({ ...deps, db }, credits);
    if (!first) return null;
    const { token, expiresAtTs } = await createFirstOwner({ ...deps, db }, first.account.id);
    return { account: first.account, apiKey: first.apiKey, ownerLink: { token, expiresAtTs } };
  });
}

/** The address of a first owner who has not chosen one yet (an empty text: no real address matches it). */
export const UNCLAIMED = "";

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

/**
 * Sets the password through a one-time link; every other link of the member ends with it. The first owner, who has
 * no address yet, gives it (and a name) here: `claim` is required for them and ignored for everyone else.
 */
export async function setPasswordWithLink(
  deps: MembersDeps,
  token: string,
  password: string,
  claim: { email?: string; name?: string } = {},
): Promise<MemberView> {
  checkPassword(password);
  const hash = await Bun.password.hash(password, { algorithm: "argon2id" });
  try {
    return await tx(deps.db, async (db) => {
      const nowTs = deps.clock.now();
      const link = await repo.findLiveLink(db, sha256Hex(token), nowTs);
      let member = link && (await repo.findMemberById(db, link.memberId));
      if (!member) throw new AppError("bad_request", "token: this link was used already or has expired; ask for a new one");
      if (member.email === UNCLAIMED) {
        const email = checkEmail(claim.email ?? "");
        member = { ...member, email, name: checkName(claim.name, email) };
        await repo.setIdentity(db, member.id, member.email, member.name);
      }
      await repo.setPasswordHash(db, member.id, hash);
      await repo.useLinks(db, member.id, nowTs);
      return view({ ...member, passwordHash: hash });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(normalizeEmail(claim.email ?? ""));
    throw err;
  }
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
  const member = email === UNCLAIMED ? undefined : await repo.findByEmail(deps.db, email);
  const ok = await Bun.password.verify(input.password, member?.passwordHash ?? (await decoyHash()));
  if (!member || member.passwordHash === null || !ok) {
    await addCounts(
      deps.db,
      refs.map((r) => ({ ...r, delta: 1 })),
    );
    // Only a known member's account has a log to write to; the entry names the address tried, never the password.
    if (member)
      await signInNote(
        deps,
        member.accountId,
        { memberId: member.id, memberName: member.name },
        false,
        `wrong password for ${email} from ${input.clientAddress}`,
      );
    throw new AppError("unauthorized", WRONG);
  }
  await signInNote(deps, member.accountId, { memberId: member.id, memberName: member.name }, true, `${email} from ${input.clientAddress}`);
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

// ---------------------------------------------------------------- managing the team (owners) and keys (owners, admins)

/** Who acts, as the audit log records it: the member, else the key (null: the command line or automation). */
export type Actor = Pick<AuthContext, "memberId" | "memberName" | "keyId" | "keyLabel">;

/** One audit entry of a team change, written in the caller's transaction. `detail` names the subject in words. */
async function note(db: Db, accountId: string, actor: Actor | null, action: string, detail: string, atTs: number, rule = "the team's settings"): Promise<void> {
  await audit(db, { accountId, freelancerId: null, applicationId: null, action, rule, detail, atTs, ...(actor ? actorIds(actor) : {}) });
}

/**
 * A dashboard sign-in, made or refused, in the account's audit log ("sign_in", "sign_in_failed"). `detail` says
 * how and from where; no secret ever goes in (no password, no key, only a key's prefix).
 */
export async function signInNote(deps: MembersDeps, accountId: string, actor: Partial<Actor>, ok: boolean, detail: string): Promise<void> {
  const who: Actor = { memberId: actor.memberId ?? null, memberName: actor.memberName ?? null, keyId: actor.keyId ?? "", keyLabel: actor.keyLabel ?? null };
  await audit(deps.db, {
    accountId,
    freelancerId: null,
    applicationId: null,
    action: ok ? "sign_in" : "sign_in_failed",
    rule: ok ? "signed in to the dashboard" : "sign-in refused",
    detail,
    atTs: deps.clock.now(),
    ...actorIds({ ...who, keyId: who.keyId || null }),
  });
}

function checkRole(role: unknown): MemberRole {
  if (typeof role !== "string" || !MEMBER_ROLES.includes(role as MemberRole))
    throw new AppError("bad_request", `role: must be one of ${MEMBER_ROLES.join(", ")}`);
  return role as MemberRole;
}

function checkGrant(auth: AuthContext, role: MemberRole, what: string): void {
  if (!mayGrant(auth.role, role)) throw new AppError("forbidden", `role: your role (${auth.role}) cannot ${what} ${role}: a role grants at most itself`);
}

const LAST_OWNER = "role: the account must keep at least one owner; make another member owner first";

/** Invites a member (owners: permission "members"); the link is for the invitee, returned once. */
export async function inviteMember(
  deps: MembersDeps,
  auth: AuthContext,
  input: { email: string; name?: string; role: string },
): Promise<{ member: MemberView; token: string; expiresAtTs: number }> {
  authorizeCaller(auth, "members");
  return createMember(deps, { accountId: auth.accountId, email: input.email, name: input.name, role: checkRole(input.role), by: auth.role, actor: auth });
}

/**
 * Changes a member's role (owners). Nobody grants above their own role, and the last owner cannot be demoted.
 * A demotion writes nothing to the member's keys: a key acts with the lower of its own role and its member's
 * current one (members/caller.ts), so every key of theirs is lowered with them at once.
 */
export async function changeRole(deps: MembersDeps, auth: AuthContext, memberId: string, rawRole: string): Promise<MemberView> {
  authorizeCaller(auth, "members");
  const role = checkRole(rawRole);
  checkGrant(auth, role, "make a member");
  // One transaction (serializable on PostgreSQL): two owners demoting each other at once cannot leave none.
  return tx(deps.db, async (db) => {
    const member = await repo.findMember(db, auth.accountId, memberId);
    if (!member) throw notFound("member not found");
    if (member.role === role) return view(member);
    if (member.role === "owner" && (await repo.countOwners(db, auth.accountId)) <= 1) throw new AppError("bad_request", LAST_OWNER);
    await repo.setRole(db, member.id, role);
    await note(db, auth.accountId, auth, "member.role_changed", `${member.name} <${member.email}>: ${member.role} → ${role}`, deps.clock.now());
    return view({ ...member, role });
  });
}

/**
 * Removes a member (owners): their sessions end at their next request (resolveSession reads the member) and their
 * keys are revoked in the same transaction, so nothing they made keeps working. The last owner cannot go.
 */
export async function removeMember(deps: MembersDeps, auth: AuthContext, memberId: string): Promise<{ member: MemberView; revokedKeys: number }> {
  authorizeCaller(auth, "members");
  return tx(deps.db, async (db) => {
    const member = await repo.findMember(db, auth.accountId, memberId);
    if (!member) throw notFound("member not found");
    if (member.role === "owner" && (await repo.countOwners(db, auth.accountId)) <= 1) {
      throw new AppError("bad_request", "role: the account's last owner cannot be removed; make another member owner first");
    }
    const nowTs = deps.clock.now();
    await repo.markRemoved(db, member.id, nowTs);
    const revoked = await accounts.revokeKeysOfMember({ db, clock: deps.clock }, auth.accountId, member.id);
    const keys = revoked.length === 0 ? "" : ` and their ${revoked.length} API key${revoked.length === 1 ? "" : "s"} revoked`;
    await note(db, auth.accountId, auth, "member.removed", `${member.name} <${member.email}> (${member.role}) removed${keys}`, nowTs);
    for (const k of revoked) await note(db, auth.accountId, auth, "key.revoked", `${keyName(k)} of ${member.name}, with the member`, nowTs);
    return { member: view(member), revokedKeys: revoked.length };
  });
}

/** The account's members for the caller (anyone who may read). */
export function listTeam(deps: MembersDeps, auth: AuthContext): Promise<MemberView[]> {
  authorizeCaller(auth, "read");
  return listMembers(deps, auth.accountId);
}

const keyName = (k: Pick<KeyView, "label" | "prefix">) => (k.label ? `key “${k.label}” (${k.prefix}…)` : `key ${k.prefix}…`);

export interface KeysDeps extends MembersDeps {
  config: accounts.CeilingDefaults;
}

/** The account's keys (permission "keys"). */
export function listKeys(deps: MembersDeps, auth: AuthContext): Promise<KeyView[]> {
  authorizeCaller(auth, "keys");
  return accounts.listKeys(deps, auth.accountId);
}

/**
 * A new key made by the caller (permission "keys"): it carries the caller's role unless a lower one is asked for,
 * never a higher (403 naming `role`), and acts as the caller's member (a key of no member acts as the owner).
 */
export async function createKey(deps: KeysDeps, auth: AuthContext, input: { label?: string | null; role?: string }): Promise<{ key: KeyView; apiKey: string }> {
  authorizeCaller(auth, "keys");
  const role = input.role === undefined || input.role === "" ? auth.role : checkRole(input.role);
  checkGrant(auth, role, "make a key with the role");
  const created = await accounts.createKey(deps, auth.accountId, input.label, { memberId: auth.memberId, role });
  await note(deps.db, auth.accountId, auth, "key.created", `${keyName(created.key)} with the role ${role}`, deps.clock.now());
  return created;
}

/**
 * Revokes a key of the account (permission "keys"). An owner may revoke any; anyone else (an admin) only the keys
 * made as their own member, so an admin cannot cut off an owner's or another admin's programs. Another account's
 * key is a 404. Revoking a revoked key answers it again with alreadyRevoked true.
 */
export async function revokeKey(deps: MembersDeps, auth: AuthContext, keyId: string): Promise<{ key: KeyView; alreadyRevoked: boolean }> {
  authorizeCaller(auth, "keys");
  const key = (await accounts.listKeys(deps, auth.accountId)).find((k) => k.id === keyId);
  if (!key) throw notFound("API key not found");
  if (auth.role !== "owner" && (key.memberId === null || key.memberId !== auth.memberId)) {
    throw new AppError("forbidden", `Your role (${auth.role}) may revoke only the keys you made; ask an owner to revoke ${keyName(key)}.`);
  }
  const result = await accounts.revokeKey(deps, keyId);
  if (!result.alreadyRevoked) await note(deps.db, auth.accountId, auth, "key.revoked", keyName(key), deps.clock.now());
  return result;
}

/** The team setting: whether bidders may send without an approval (owners). */
export async function setBiddersMaySend(deps: MembersDeps, auth: AuthContext, biddersMaySend: boolean): Promise<AccountView> {
  authorizeCaller(auth, "members");
  const account = await accounts.setBiddersMaySend(deps, auth.accountId, biddersMaySend);
  await note(
    deps.db,
    auth.accountId,
    auth,
    "account.bidders_may_send",
    biddersMaySend ? "bidders may send" : "bidders need an approval to send",
    deps.clock.now(),
  );
  return account;
}
