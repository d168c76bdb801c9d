/**
 * Who a request acts as. A key made by a member acts as that member, never above their current role: a removed
 * member's keys stop at once and a demoted member's keys act with the lower role (read through the members cache,
 * so on PostgreSQL another node's change is seen within PG_MEMBER_CACHE_MS). app.ts composes this with the accounts
 * module's key lookup, and the auth plugin asks `authorizeCaller` for the permission each route declares.
 */
import type { Db } from "../../db/client";
import type { MemberRole } from "../../db/enums";
import type { AuthContext } from "../accounts/service";
import { authorize, lowerRole, type Permission, PERMISSIONS } from "./permissions";
import * as repo from "./repo";

function actingAs(caller: AuthContext, member: repo.MemberRow | false): AuthContext | null {
  if (member === false || member.accountId !== caller.accountId) return null;
  const role = lowerRole(caller.role, member.role);
  if (role === caller.role && caller.memberName === member.name) return caller;
  return { ...caller, role, memberName: member.name };
}

/** The caller with its member filled in, or null when that member was removed. */
export async function withMember(db: Db, caller: AuthContext | null): Promise<AuthContext | null> {
  if (!caller || caller.memberId === null) return caller;
  return actingAs(caller, await repo.findCurrentMemberCached(db, caller.memberId));
}

/** withMember without waiting: undefined when the member is not in the cache (then call withMember). */
export function withMemberNow(db: Db, caller: AuthContext | null | undefined): AuthContext | null | undefined {
  if (!caller || caller.memberId === null) return caller;
  const member = repo.findCurrentMemberNow(db, caller.memberId);
  return member === undefined ? undefined : actingAs(caller, member);
}

export function isPermission(name: string): name is Permission {
  return Object.hasOwn(PERMISSIONS, name);
}

/** The one check of every route and tool: throws the 403 naming the permission the caller's role lacks. */
export function authorizeCaller(caller: { role: string; biddersMaySend: boolean }, permission: string): void {
  if (!isPermission(permission)) throw new Error(`unknown permission "${permission}" declared by a route`);
  // The role is the database's (an enum column), so it is one of MemberRole.
  authorize(caller.role as MemberRole, permission, { biddersMaySend: caller.biddersMaySend });
}
