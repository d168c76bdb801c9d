import { afterEach, describe, expect, test } from "bun:test";
import type { MemberRole } from "../../../src/db/enums";
import * as accounts from "../../../src/modules/accounts/service";
import * as members from "../../../src/modules/members/service";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { startFakeSmtp } from "../../helpers/channel-fakes";
import { form, openSignInForm, sessionCookie } from "../../helpers/dashboard";

let t: TestApp | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await t?.close();
  t = undefined;
});
const app = () => t!;
const PASSWORD = "correct horse battery";

/** A member of the account with a key of their own (acting as them, with their role). */
async function memberWithKey(accountId: string, email: string, role: MemberRole, name?: string) {
  const created = await members.createMember(app().deps, { accountId, email, name, role, by: null });
  const key = await accounts.createKey(app().deps, accountId, `${email} key`, { memberId: created.member.id, role });
  return { id: created.member.id, token: created.token, key: key.apiKey, keyId: key.key.id };
}

/** An account with an owner, an admin, a bidder and a viewer, each with a key. */
async function team() {
  const acct = await app().account();
  const owner = await memberWithKey(acct.accountId, "olga@example.com", "owner", "Olga");
  const admin = await memberWithKey(acct.accountId, "adam@example.com", "admin", "Adam");
  const bidder = await memberWithKey(acct.accountId, "bea@example.com", "bidder", "Bea");
  const viewer = await memberWithKey(acct.accountId, "vic@example.com", "viewer", "Vic");
  return { ...acct, owner, admin, bidder, viewer };
}

async function auditOf(key: string, action: string) {
  const res = await app().request("GET", "/api/v1/audit?limit=200", { key });
  expect(res.status, show(res)).toBe(200);
  return (res.body.entries as { action: string; actor: string | null; memberId: string | null; keyId: string | null; detail: string }[]).filter(
    (e) => e.action === action,
  );
}

describe("members API", () => {
  test("an owner invites: 201 with the one-time link (no e-mail channel), the member is listed, the audit log names the owner", async () => {
    t = await createTestApp({ config: { publicUrl: "https://jobs.example.com/" } });
    const { owner, bidder } = await team();
    const res = await app().request("POST", "/api/v1/members", { key: owner.key, json: { email: "Nia@Example.com", name: "Nia", role: "bidder" } });
    expect(res.status, show(res)).toBe(201);
    expect(res.body.emailed).toBe(false);
    expect(res.body.member).toMatchObject({ email: "nia@example.com", name: "Nia", role: "bidder", hasPassword: false });
    expect(res.body.inviteUrl).toStartWith("https://jobs.example.com/dashboard/set-password?token=");
    expect(res.body.expiresAt).toBe(app().clock.now() + members.LINK_LIFETIME_MS.invite);
    const token = new URL(res.body.inviteUrl).searchParams.get("token")!;
    expect((await members.memberOfLink(app().deps, token))?.email).toBe("nia@example.com");

    // Everyone may read the list; only owners invite.
    const list = await app().request("GET", "/api/v1/members", { key: bidder.key });
    expect(list.status, show(list)).toBe(200);
    expect(list.body.members.map((m: { email: string }) => m.email)).toContain("nia@example.com");
    const [entry] = await auditOf(owner.key, "member.invited").then((es) => es.filter((e) => e.detail.includes("nia@example.com")));
    expect(entry).toMatchObject({ actor: "Olga", memberId: owner.id, keyId: owner.keyId });
    expect(entry!.detail).toContain("as bidder");
  });

  test("admins, bidders and viewers cannot invite, change or remove (403 naming the permission); a duplicate address is a 409", async () => {
    t = await createTestApp();
    const { owner, admin, bidder, viewer } = await team();
    for (const who of [admin, bidder, viewer]) {
      const invite = await app().request("POST", "/api/v1/members", { key: who.key, json: { email: "x@example.com", role: "viewer" } });
      expect(invite.status, show(invite)).toBe(403);
      expect(invite.body.error).toContain('permission "members"');
      expect((await app().request("PATCH", `/api/v1/members/${viewer.id}`, { key: who.key, json: { role: "bidder" } })).status).toBe(403);
      expect((await app().request("DELETE", `/api/v1/members/${viewer.id}`, { key: who.key })).status).toBe(403);
      expect((await app().request("PUT", "/api/v1/account/team", { key: who.key, json: { biddersMaySend: true } })).status).toBe(403);
    }
    const dup = await app().request("POST", "/api/v1/members", { key: owner.key, json: { email: "bea@example.com", role: "viewer" } });
    expect(dup.status, show(dup)).toBe(409);
    expect(dup.body.error).toStartWith("email:");
  });

  test("an invitation goes out through the account's e-mail channel when it has one: emailed true, no link in the answer", async () => {
    t = await createTestApp({ config: { webhookAllowPrivate: true, publicUrl: "https://jobs.example.com" } });
    const smtp = await startFakeSmtp();
    cleanups.push(() => smtp.close());
    const { owner } = await team();
    const channel = await app().request("POST", "/api/v1/channels", {
      key: owner.key,
      json: { type: "email", name: "Mail", config: { smtpUrl: smtp.smtpUrl(), from: "jobpilot <team@example.com>", to: "alerts@example.com" } },
    });
    expect(channel.status, show(channel)).toBe(201);
    const res = await app().request("POST", "/api/v1/members", { key: owner.key, json: { email: "ines@example.com", role: "viewer" } });
    expect(res.status, show(res)).toBe(201);
    expect(res.body).toMatchObject({ emailed: true, inviteUrl: null });
    await smtp.waitFor(1);
    const mail = smtp.messages[0]!;
    // To the invitee, not to the channel's own recipients.
    expect(mail.envelope.to).toEqual(["ines@example.com"]);
    expect(mail.subject).toContain("Olga invites you");
    const link = /https:\/\/jobs\.example\.com\/dashboard\/set-password\?token=([\w-]+)/.exec(mail.text)?.[1];
    expect(link).toBeTruthy();
    expect((await members.memberOfLink(app().deps, link!))?.email).toBe("ines@example.com");
  });

  test("changing roles: the owner promotes and demotes, the last owner stays (400 naming role), audit says from → to", async () => {
    t = await createTestApp();
    const { owner, bidder, accountId } = await team();
    const promote = await app().request("PATCH", `/api/v1/members/${bidder.id}`, { key: owner.key, json: { role: "owner" } });
    expect(promote.status, show(promote)).toBe(200);
    expect(promote.body.member.role).toBe("owner");
    // A key acts with the lower of its own role and its member's: Bea's bidder key stays a bidder's.
    expect((await app().request("GET", "/api/v1/keys", { key: bidder.key })).status).toBe(403);
    const beaOwnerKey = (await accounts.createKey(app().deps, accountId, "bea owner", { memberId: bidder.id, role: "owner" })).apiKey;
    // Two owners: one may step down; then the other is the last and may not.
    expect((await app().request("PATCH", `/api/v1/members/${owner.id}`, { key: owner.key, json: { role: "admin" } })).status).toBe(200);
    const last = await app().request("PATCH", `/api/v1/members/${bidder.id}`, { key: beaOwnerKey, json: { role: "viewer" } });
    expect(last.status, show(last)).toBe(400);
    expect(last.body.error).toStartWith("role:");
    expect(last.body.error).toContain("at least one owner");
    const removeLast = await app().request("DELETE", `/api/v1/members/${bidder.id}`, { key: beaOwnerKey });
    expect(removeLast.status, show(removeLast)).toBe(400);
    expect(removeLast.body.error).toStartWith("role:");
    const bad = await app().request("PATCH", `/api/v1/members/${owner.id}`, { key: beaOwnerKey, json: { role: "boss" } });
    expect(bad.status).toBe(400);
    const changes = await auditOf(beaOwnerKey, "member.role_changed");
    expect(changes.map((e) => e.detail)).toEqual(expect.arrayContaining([expect.stringContaining("bidder → owner"), expect.stringContaining("owner → admin")]));
    expect(changes.find((e) => e.detail.includes("bidder → owner"))).toMatchObject({ actor: "Olga", memberId: owner.id });
  });

  test("another account's member and key ids are 404, and nothing changes", async () => {
    t = await createTestApp();
    const mine = await team();
    const other = await app().account({ name: "Other" });
    const theirs = await memberWithKey(other.accountId, "zed@example.com", "bidder");
    expect((await app().request("PATCH", `/api/v1/members/${theirs.id}`, { key: mine.owner.key, json: { role: "viewer" } })).status).toBe(404);
    expect((await app().request("DELETE", `/api/v1/members/${theirs.id}`, { key: mine.owner.key })).status).toBe(404);
    expect((await app().request("DELETE", `/api/v1/keys/${theirs.keyId}`, { key: mine.owner.key })).status).toBe(404);
    expect((await app().request("GET", "/api/v1/account", { key: theirs.key })).status).toBe(200);
    expect((await members.memberOf(app().deps, other.accountId, theirs.id)).role).toBe("bidder");
  });
});

describe("keys per member", () => {
  test("a key carries the creator's role by default, a lower one on request, never a higher (403 naming role); bidders make none", async () => {
    t = await createTestApp();
    const { admin, bidder, owner } = await team();
    const plain = await app().request("POST", "/api/v1/keys", { key: admin.key, json: { label: "ci" } });
    expect(plain.status, show(plain)).toBe(201);
    expect(plain.body.key).toMatchObject({ role: "admin", memberId: admin.id, label: "ci" });
    const lower = await app().request("POST", "/api/v1/keys", { key: admin.key, json: { label: "read-only", role: "viewer" } });
    expect(lower.status).toBe(201);
    expect(lower.body.key.role).toBe("viewer");
    // The viewer key really acts as a viewer: it cannot make keys.
    expect((await app().request("POST", "/api/v1/keys", { key: lower.body.apiKey, json: {} })).status).toBe(403);
    const higher = await app().request("POST", "/api/v1/keys", { key: admin.key, json: { role: "owner" } });
    expect(higher.status, show(higher)).toBe(403);
    expect(higher.body.error).toStartWith("role:");
    const byBidder = await app().request("POST", "/api/v1/keys", { key: bidder.key, json: {} });
    expect(byBidder.status).toBe(403);
    expect(byBidder.body.error).toContain('permission "keys"');
    expect((await app().request("GET", "/api/v1/keys", { key: bidder.key })).status).toBe(403);
    const created = await auditOf(owner.key, "key.created");
    expect(created.map((e) => e.detail)).toEqual(
      expect.arrayContaining([expect.stringContaining("“read-only”"), expect.stringContaining("with the role admin")]),
    );
    expect(created.every((e) => e.memberId === admin.id && e.actor === "Adam")).toBe(true);
  });

  test("an admin revokes their own keys only; an owner any; revoked keys are 401 at once and the audit log says who", async () => {
    t = await createTestApp();
    const { admin, owner, bidder } = await team();
    const own = await app().request("POST", "/api/v1/keys", { key: admin.key, json: { label: "mine" } });
    const refused = await app().request("DELETE", `/api/v1/keys/${owner.keyId}`, { key: admin.key });
    expect(refused.status, show(refused)).toBe(403);
    expect(refused.body.error).toContain("only the keys you made");
    const revoked = await app().request("DELETE", `/api/v1/keys/${own.body.key.id}`, { key: admin.key });
    expect(revoked.status, show(revoked)).toBe(200);
    expect(revoked.body.alreadyRevoked).toBe(false);
    expect((await app().request("GET", "/api/v1/account", { key: own.body.apiKey })).status).toBe(401);
    expect((await app().request("DELETE", `/api/v1/keys/${bidder.keyId}`, { key: owner.key })).status).toBe(200);
    expect((await app().request("GET", "/api/v1/account", { key: bidder.key })).status).toBe(401);
    const entries = await auditOf(owner.key, "key.revoked");
    expect(entries.map((e) => e.actor).sort()).toEqual(["Adam", "Olga"]);
  });
});

describe("revocation at once", () => {
  test("a removed member's key is 401 on the next request, their dashboard session is signed out, the audit log has both", async () => {
    t = await createTestApp();
    const { owner, bidder } = await team();
    await members.setPasswordWithLink(app().deps, bidder.token, PASSWORD);
    const { headers, csrf } = await openSignInForm(app());
    const signIn = await app().request("POST", "/dashboard/sign-in/password", { body: form({ email: "bea@example.com", password: PASSWORD, csrf }), headers });
    expect(signIn.status, show(signIn)).toBe(303);
    const cookie = { cookie: `jp_session=${sessionCookie(signIn)}` };
    expect((await app().request("GET", "/dashboard", { headers: cookie })).status).toBe(200);
    expect((await app().request("GET", "/api/v1/account", { key: bidder.key })).status).toBe(200);

    const removed = await app().request("DELETE", `/api/v1/members/${bidder.id}`, { key: owner.key });
    expect(removed.status, show(removed)).toBe(200);
    expect(removed.body.revokedKeys).toBe(1);
    expect((await app().request("GET", "/api/v1/account", { key: bidder.key })).status).toBe(401);
    const after = await app().request("GET", "/dashboard", { headers: cookie });
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toContain("/dashboard/sign-in");
    expect((await app().request("GET", "/api/v1/members", { key: owner.key })).body.members.map((m: { id: string }) => m.id)).not.toContain(bidder.id);
    const [entry] = await auditOf(owner.key, "member.removed");
    expect(entry).toMatchObject({ actor: "Olga", memberId: owner.id, keyId: owner.keyId });
    expect(entry!.detail).toContain("bea@example.com");
    expect((await auditOf(owner.key, "key.revoked")).some((e) => e.detail.includes("bea@example.com key"))).toBe(true);
    // The sign-in was logged as the member, without the password.
    const signIns = await auditOf(owner.key, "sign_in");
    expect(signIns.find((e) => e.memberId === bidder.id)?.detail).toContain("bea@example.com");
    expect(JSON.stringify(signIns)).not.toContain(PASSWORD);
  });

  test("a demoted admin's key gets 403 on an admin action at once, and works again as admin after promotion", async () => {
    t = await createTestApp();
    const { owner, admin } = await team();
    expect((await app().request("GET", "/api/v1/keys", { key: admin.key })).status).toBe(200);
    expect((await app().request("PATCH", `/api/v1/members/${admin.id}`, { key: owner.key, json: { role: "bidder" } })).status).toBe(200);
    const denied = await app().request("GET", "/api/v1/keys", { key: admin.key });
    expect(denied.status, show(denied)).toBe(403);
    expect(denied.body.error).toContain("Your role (bidder)");
    // Its own role is still admin: promoted back, it acts as admin again (no key was rewritten).
    expect((await app().request("PATCH", `/api/v1/members/${admin.id}`, { key: owner.key, json: { role: "admin" } })).status).toBe(200);
    expect((await app().request("GET", "/api/v1/keys", { key: admin.key })).status).toBe(200);
  });

  test("the team setting: owners let bidders send; the account answer says so and the audit log records it", async () => {
    t = await createTestApp();
    const { owner } = await team();
    const res = await app().request("PUT", "/api/v1/account/team", { key: owner.key, json: { biddersMaySend: true } });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.biddersMaySend).toBe(true);
    expect((await app().request("GET", "/api/v1/account", { key: owner.key })).body.account.biddersMaySend).toBe(true);
    const [entry] = await auditOf(owner.key, "account.bidders_may_send");
    expect(entry).toMatchObject({ actor: "Olga", detail: "bidders may send" });
    const bad = await app().request("PUT", "/api/v1/account/team", { key: owner.key, json: { biddersMaySend: "yes" } });
    expect(bad.status).toBe(400);
  });
});
