import { afterEach, describe, expect, test } from "bun:test";
import type { MemberRole } from "../../../src/db/enums";
import * as members from "../../../src/modules/members/service";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser, foreignScripts } from "../../helpers/dashboard";
import { memberWithKey } from "../../helpers/team";

let t: TestApp;
const { get, post, signIn } = browser(() => t);
afterEach(async () => {
  await t?.close();
});

const TEAM = "/dashboard/team";

/** A member with a key of their role, signed in to the dashboard with it (the session acts as the member). */
async function member(accountId: string, name: string, role: MemberRole) {
  const { member, key } = await memberWithKey(t, accountId, name, `${name.toLowerCase()}@example.com`, role);
  return { id: member.id, apiKey: key, ...(await signIn(key)) };
}

async function agency() {
  t = await createTestApp({ config: { publicUrl: "https://jobs.example.com" } });
  const acct = await t.account({ name: "Acme", kind: "agency" });
  const owner = await member(acct.accountId, "Olga", "owner");
  return { ...acct, owner };
}

const teamOf = async (key: string) =>
  (await t.request("GET", "/api/v1/members", { key })).body.members as { id: string; email: string; name: string; role: MemberRole }[];

describe("the Team page", () => {
  test("an owner invites: the one-time link is shown once, the member is listed as invited, the audit log names the owner", async () => {
    const { owner } = await agency();
    const blank = await get(TEAM, owner.token);
    expect(blank.status, show(blank)).toBe(200);
    expect(blank.text).toContain("Olga");
    expect(blank.text).toContain('action="/dashboard/team"');
    expect(blank.text).toContain("What each role may do");

    const invited = await post(TEAM, owner.token, { csrf: owner.csrf, email: "Bea@Example.com", name: "Bea", role: "bidder" });
    expect(invited.status, show(invited)).toBe(200);
    const link = /https:\/\/jobs\.example\.com\/dashboard\/set-password\?token=[\w-]+/.exec(invited.text)?.[0];
    expect(link, invited.text).toBeDefined();
    expect(await members.memberOfLink(t.deps, new URL(link!).searchParams.get("token")!)).toMatchObject({ email: "bea@example.com", role: "bidder" });
    expect(invited.text).toContain("Invited: has not set a password yet");
    // The link is on that one response only.
    expect((await get(TEAM, owner.token)).text).not.toContain("set-password?token=");

    const audit = await t.request("GET", "/api/v1/audit?limit=50", { key: owner.apiKey });
    expect(audit.body.entries.find((e: { action: string }) => e.action === "member.invited")).toMatchObject({ actor: "Olga" });
  });

  test("a refused invitation is shown next to the field in the label's words, with what was typed, and adds no one", async () => {
    const { owner } = await agency();
    const before = (await teamOf(owner.apiKey)).length;
    const bad = await post(TEAM, owner.token, { csrf: owner.csrf, email: "not-an-address", name: "Nia", role: "bidder" });
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.text).toMatch(/<p class="field-error error-text" id="emailError">E-mail[^<]*<\/p>/);
    expect(bad.text).toContain('aria-invalid="true"');
    expect(bad.text).toContain('value="not-an-address"');
    expect(bad.text).not.toContain("/api/");

    const twice = await post(TEAM, owner.token, { csrf: owner.csrf, email: "olga@example.com", name: "", role: "admin" });
    expect(twice.status, show(twice)).toBe(409);
    expect(twice.text).toContain('id="emailError"');

    const role = await post(TEAM, owner.token, { csrf: owner.csrf, email: "x@example.com", name: "", role: "boss" });
    expect(role.status, show(role)).toBe(400);
    expect(role.text).toContain('id="roleError"');
    expect((await teamOf(owner.apiKey)).length).toBe(before);
  });

  test("roles change from the row, the last owner stays an owner, removing needs the confirm page and revokes their key at once", async () => {
    const { owner, accountId } = await agency();
    const adam = await member(accountId, "Adam", "admin");

    const demoted = await post(`${TEAM}/${adam.id}/role`, owner.token, { csrf: owner.csrf, role: "bidder" });
    expect(demoted.status, show(demoted)).toBe(303);
    expect(demoted.headers.get("location")).toBe(`${TEAM}?saved=role`);
    expect((await teamOf(owner.apiKey)).find((m) => m.id === adam.id)?.role).toBe("bidder");
    // The demoted member's own session acts as a bidder on its next page: the keys page is closed to them now.
    expect((await get("/dashboard/keys", adam.token)).status).toBe(403);

    const last = await post(`${TEAM}/${owner.id}/role`, owner.token, { csrf: owner.csrf, role: "admin" });
    expect(last.status, show(last)).toBe(400);
    expect(last.text).toContain("at least one owner");
    expect((await teamOf(owner.apiKey)).find((m) => m.id === owner.id)?.role).toBe("owner");

    const confirm = await get(`${TEAM}/${adam.id}/remove`, owner.token);
    expect(confirm.status, show(confirm)).toBe(200);
    expect(confirm.text).toContain("Remove Adam?");
    const removed = await post(`${TEAM}/${adam.id}/remove`, owner.token, { csrf: owner.csrf });
    expect(removed.status, show(removed)).toBe(303);
    expect((await teamOf(owner.apiKey)).map((m) => m.id)).not.toContain(adam.id);
    expect((await t.request("GET", "/api/v1/feeds", { key: adam.apiKey })).status).toBe(401);
    const after = await get("/dashboard", adam.token);
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toBe("/dashboard/sign-in");
  });

  test("the sending setting: an owner lets bidders send, the account answer says so", async () => {
    const { owner, apiKey } = await agency();
    const on = await post(`${TEAM}/settings`, owner.token, { csrf: owner.csrf, biddersMaySend: "on" });
    expect(on.status, show(on)).toBe(303);
    expect((await t.request("GET", "/api/v1/account", { key: apiKey })).body.account.biddersMaySend).toBe(true);
    expect((await get(`${TEAM}?saved=settings`, owner.token)).text).toMatch(/id="biddersMaySend"[^>]*checked/);
    expect((await post(`${TEAM}/settings`, owner.token, { csrf: owner.csrf })).status).toBe(303);
    expect((await t.request("GET", "/api/v1/account", { key: apiKey })).body.account.biddersMaySend).toBe(false);
  });

  test("admins and bidders see the team but change nothing (403 naming the permission); no form without its CSRF token", async () => {
    const { owner, accountId } = await agency();
    const adam = await member(accountId, "Adam", "admin");
    const bea = await member(accountId, "Bea", "bidder");
    for (const who of [adam, bea]) {
      const seen = await get(TEAM, who.token);
      expect(seen.status, show(seen)).toBe(200);
      expect(seen.text).toContain("Olga");
      expect(seen.text).not.toContain('action="/dashboard/team"');
      const refused = await post(TEAM, who.token, { csrf: who.csrf, email: "z@example.com", name: "", role: "viewer" });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain("&quot;members&quot;");
      expect((await post(`${TEAM}/${owner.id}/remove`, who.token, { csrf: who.csrf })).status).toBe(403);
      expect((await post(`${TEAM}/${owner.id}/role`, who.token, { csrf: who.csrf, role: "viewer" })).status).toBe(403);
    }
    const forged = await post(TEAM, owner.token, { email: "z@example.com", name: "", role: "viewer" });
    expect(forged.status).toBe(403);
    expect((await teamOf(owner.apiKey)).map((m) => m.email)).not.toContain("z@example.com");
  });

  test("another account's member is a 404 on every Team form, and nothing changes", async () => {
    const { owner } = await agency();
    const other = await t.account({ name: "Other" });
    const { member: stranger } = await members.createMember(t.deps, {
      accountId: other.accountId,
      email: "s@example.com",
      name: "Sten",
      role: "admin",
      by: null,
    });
    expect((await get(`${TEAM}/${stranger.id}/remove`, owner.token)).status).toBe(404);
    expect((await post(`${TEAM}/${stranger.id}/remove`, owner.token, { csrf: owner.csrf })).status).toBe(404);
    expect((await post(`${TEAM}/${stranger.id}/role`, owner.token, { csrf: owner.csrf, role: "viewer" })).status).toBe(404);
    expect((await members.memberOf(t.deps, other.accountId, stranger.id)).role).toBe("admin");
  });

  test("a member's name and address are shown as text, never as markup", async () => {
    const { owner } = await agency();
    const name = `<img src=x onerror=alert(1)><script>alert(2)</script>`;
    const res = await post(TEAM, owner.token, { csrf: owner.csrf, email: "evil@example.com", name, role: "viewer" });
    expect(res.status, show(res)).toBe(200);
    const pageText = (await get(TEAM, owner.token)).text;
    expect(pageText).not.toContain("<img src=x");
    expect(pageText).toContain("&lt;img src=x");
    expect(foreignScripts(pageText)).toEqual([]);
    const confirmId = (await teamOf(owner.apiKey)).find((m) => m.email === "evil@example.com")!.id;
    const confirm = await get(`${TEAM}/${confirmId}/remove`, owner.token);
    expect(confirm.text).not.toContain("<img src=x");
    expect(foreignScripts(confirm.text)).toEqual([]);
  });
});
