/**
 * Who may do what, in one place: every role's permissions, and the one function each action asks. A denied action
 * is a 403 that names the permission missing; another account's resource stays a 404 (the caller never learns it
 * exists), which is the repositories' job, not this table's. docs/members.md's table is generated from PERMISSIONS.
 */
import type { MemberRole } from "../../db/enums";
import { AppError } from "../../errors";

export const PERMISSIONS = {
  read: { what: "See feeds, jobs, applications, analytics and outcomes", roles: ["owner", "admin", "bidder", "viewer"] },
  draft: { what: "Write letters and queue them for approval", roles: ["owner", "admin", "bidder"] },
  outcomes: { what: "Record what happened to a proposal", roles: ["owner", "admin", "bidder"] },
  send: { what: "Send a proposal without anyone's approval (bidders too when the account allows it)", roles: ["owner", "admin"] },
  approve: { what: "Approve, send back or discard someone's draft", roles: ["owner", "admin"] },
  feeds: { what: "Create, change and delete feeds and their apply modes", roles: ["owner", "admin"] },
  clients: { what: "Block and favour clients, and take them off the account's lists", roles: ["owner", "admin", "bidder"] },
  channels: { what: "Create, change and delete notification channels", roles: ["owner", "admin"] },
  freelancers: { what: "Add, change and remove freelancers, their profiles and portfolios", roles: ["owner", "admin"] },
  automation: { what: "Change the governor's limits and Connects budgets", roles: ["owner", "admin"] },
  keys: { what: "Create and revoke API keys (a key carries at most its creator's role)", roles: ["owner", "admin"] },
  audit: { what: "Read the audit log", roles: ["owner", "admin"] },
  members: { what: "Invite, change and remove members and their roles", roles: ["owner"] },
} as const satisfies Record<string, { what: string; roles: readonly MemberRole[] }>;

export type Permission = keyof typeof PERMISSIONS;

/** What the account lets bidders do beyond their role (an account setting). */
export interface AccountPolicy {
  biddersMaySend: boolean;
}

export function can(role: MemberRole, permission: Permission, policy: AccountPolicy = { biddersMaySend: false }): boolean {
  if (permission === "send" && role === "bidder" && policy.biddersMaySend) return true;
  return (PERMISSIONS[permission].roles as readonly MemberRole[]).includes(role);
}

/** Throws the 403 for a role without the permission. */
export function authorize(role: MemberRole, permission: Permission, policy?: AccountPolicy): void {
  if (can(role, permission, policy)) return;
  throw new AppError(
    "forbidden",
    `Your role (${role}) does not have the permission "${permission}": ${PERMISSIONS[permission].what.toLowerCase()}. Ask an owner of the account.`,
  );
}

/** Roles from most to least powerful: each has every permission of the ones after it. */
export const ROLE_ORDER: readonly MemberRole[] = ["owner", "admin", "bidder", "viewer"];

/** The less powerful of two roles (a key acts with the lower of its own role and its member's). */
export function lowerRole(a: MemberRole, b: MemberRole): MemberRole {
  return ROLE_ORDER.indexOf(a) >= ROLE_ORDER.indexOf(b) ? a : b;
}

/** A role may hand out (to a key or an invited member) only roles with no permission it lacks itself. */
export function mayGrant(granter: MemberRole, granted: MemberRole): boolean {
  return (Object.keys(PERMISSIONS) as Permission[]).every((p) => !can(granted, p) || can(granter, p));
}
