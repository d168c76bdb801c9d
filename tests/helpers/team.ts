import type { MemberRole } from "../../src/db/enums";
import * as accounts from "../../src/modules/accounts/service";
import * as members from "../../src/modules/members/service";
import type { TestApp } from "./app";

/** A member of the account (no password yet) with an API key made as them, carrying their role: the key acts as them. */
export async function memberWithKey(t: TestApp, accountId: string, name: string, email: string, role: MemberRole) {
  const { member } = await members.createMember(t.deps, { accountId, email, name, role, by: null });
  const { apiKey } = await accounts.createKey(t.deps, accountId, name, { memberId: member.id, role });
  return { member, key: apiKey };
}

/** An agency account with two bidders (Ana, Bo) and an admin (Cy), each with a key acting as them. */
export async function agencyTeam(t: TestApp) {
  const acct = await t.account({ kind: "agency", credits: 10 });
  return {
    acct,
    ana: await memberWithKey(t, acct.accountId, "Ana Pérez", "ana@example.com", "bidder"),
    bo: await memberWithKey(t, acct.accountId, "Bo Chen", "bo@example.com", "bidder"),
    cy: await memberWithKey(t, acct.accountId, "Cy Admin", "cy@example.com", "admin"),
  };
}
