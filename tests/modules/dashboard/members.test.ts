import { afterEach, describe, expect, test } from "bun:test";
import * as dashboard from "../../../src/modules/dashboard/service";
import * as membersRepo from "../../../src/modules/members/repo";
import * as members from "../../../src/modules/members/service";
import { SIGN_IN_ATTEMPTS } from "../../../src/modules/members/service";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { form, openSignInForm, sessionCookie } from "../../helpers/dashboard";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});
const app = () => t!;

const PASSWORD = "correct horse battery";

/** An account with one member who has set a password through their invitation link. */
async function memberWithPassword(email = "ana@example.com") {
  const acct = await app().account();
  const created = await members.createMember(app().deps, { accountId: acct.accountId, email, role: "owner", by: null });
  await members.setPasswordWithLink(app().deps, created.token, PASSWORD);
  return { ...acct, member: created.member };
}

async function passwordSignIn(email: string, password: string) {
  const { headers, csrf } = await openSignInForm(app());
  return app().request("POST", "/dashboard/sign-in/password", { body: form({ email, password, csrf }), headers });
}

const overview = (token: string) => app().request("GET", "/dashboard", { headers: { cookie: `jp_session=${token}` } });

describe("signing in with e-mail and password", () => {
  test("the sign-in page offers both forms; a right password opens a session for the member's account", async () => {
    t = await createTestApp();
    const page = await app().request("GET", "/dashboard/sign-in");
    expect(page.text).toContain('action="/dashboard/sign-in/password"');
    expect(page.text).toContain('action="/dashboard/sign-in"');
    const { accountId } = await memberWithPassword();
    const res = await passwordSignIn("  Ana@Example.com ", PASSWORD);
    expect(res.status, show(res)).toBe(303);
    const token = sessionCookie(res);
    expect((await dashboard.resolveSession(app().deps, token))?.accountId).toBe(accountId);
    const home = await overview(token);
    expect(home.status, show(home)).toBe(200);
  });

  test("a wrong password and an unknown e-mail read the same, next to the password; the 6th failure is rate-limited", async () => {
    t = await createTestApp();
    await memberWithPassword();
    const wrong = await passwordSignIn("ana@example.com", "not the password");
    const unknown = await passwordSignIn("nobody@example.com", "not the password");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const messageOf = (html: string) => /<p class="field-error error-text" id="passwordError">([^<]*)<\/p>/.exec(html)?.[1];
    expect(messageOf(wrong.text)).toBeTruthy();
    expect(messageOf(unknown.text)).toBe(messageOf(wrong.text)!);
    expect(wrong.text).toContain('value="ana@example.com"');
    for (let i = 2; i < SIGN_IN_ATTEMPTS; i++) expect((await passwordSignIn("ana@example.com", "still wrong")).status).toBe(401);
    // Five failures from this client (two e-mails, one address): the sixth try is refused before any password
    // check, even with the right one.
    const limited = await passwordSignIn("ana@example.com", PASSWORD);
    expect(limited.status, show(limited)).toBe(429);
    expect(limited.text).toContain("Too many sign-in attempts");
    expect(limited.text).toContain('role="alert"');
  });

  test("a forged form is refused before anything is checked", async () => {
    t = await createTestApp();
    await memberWithPassword();
    const res = await app().request("POST", "/dashboard/sign-in/password", {
      body: form({ email: "ana@example.com", password: PASSWORD, csrf: "forged" }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie") ?? "").not.toContain("jp_session=");
  });

  test("key sign-in works until a member of the account has a password, then is refused next to the key field", async () => {
    t = await createTestApp();
    const acct = await app().account();
    const keySignIn = async () => {
      const { headers, csrf } = await openSignInForm(app());
      return app().request("POST", "/dashboard/sign-in", { body: form({ apiKey: acct.apiKey, csrf }), headers });
    };
    const created = await members.createMember(app().deps, { accountId: acct.accountId, email: "bo@example.com", role: "owner", by: null });
    // A member without a password yet does not lock the key out.
    expect((await keySignIn()).status).toBe(303);
    await members.setPasswordWithLink(app().deps, created.token, PASSWORD);
    const refused = await keySignIn();
    expect(refused.status, show(refused)).toBe(403);
    expect(refused.text).toContain('id="apiKeyError">This account signs in with e-mail and password');
  });

  test("a removed member's session ends at once", async () => {
    t = await createTestApp();
    const { member } = await memberWithPassword();
    const token = sessionCookie(await passwordSignIn("ana@example.com", PASSWORD));
    expect((await overview(token)).status).toBe(200);
    await membersRepo.markRemoved(app().deps.db, member.id, app().clock.now());
    const after = await overview(token);
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toContain("/dashboard/sign-in");
  });
});

describe("the set-password link", () => {
  async function openSetPassword(token: string) {
    return openSignInForm(app(), `/dashboard/set-password?token=${encodeURIComponent(token)}`);
  }

  test("sets the password and signs the member in, once; then the password signs in", async () => {
    t = await createTestApp();
    const acct = await app().account();
    const { token, member } = await members.createMember(app().deps, { accountId: acct.accountId, email: "cy@example.com", role: "bidder", by: null });
    const path = `/dashboard/set-password?token=${encodeURIComponent(token)}`;
    const { headers, csrf } = await openSetPassword(token);

    const mismatch = await app().request("POST", path, { body: form({ csrf, password: PASSWORD, repeat: "something else" }), headers });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain('id="repeatError"');
    const short = await app().request("POST", path, { body: form({ csrf, password: "short", repeat: "short" }), headers });
    expect(short.status).toBe(400);
    expect(short.text).toContain('id="passwordError">New password: at least 10 characters');

    const set = await app().request("POST", path, { body: form({ csrf, password: PASSWORD, repeat: PASSWORD }), headers });
    expect(set.status, show(set)).toBe(303);
    expect((await overview(sessionCookie(set))).status).toBe(200);
    expect((await members.currentMember(app().deps, member.id))?.hasPassword).toBe(true);

    // Single use: the page and the POST both say the link is dead.
    const again = await app().request("GET", path);
    expect(again.status).toBe(404);
    expect(again.text).toContain("jobpilot member reset");
    expect((await app().request("POST", path, { body: form({ csrf, password: PASSWORD, repeat: PASSWORD }), headers })).status).toBe(404);
    expect((await passwordSignIn("cy@example.com", PASSWORD)).status).toBe(303);
  });

  test("the first run's owner link: the owner chooses e-mail, name and password on the page; bad or taken addresses are refused by the field", async () => {
    t = await createTestApp();
    // The database's first account, as `serve` creates it on an empty database (other tests' accounts come after).
    const first = await members.bootstrapFirstOwner(app().deps, 10);
    expect(first, "an empty database gets its first account").not.toBeNull();
    expect(await members.bootstrapFirstOwner(app().deps, 10), "once only").toBeNull();
    const token = first!.ownerLink.token;
    const path = `/dashboard/set-password?token=${encodeURIComponent(token)}`;
    const { headers, csrf } = await openSetPassword(token);
    const shown = await app().request("GET", path);
    expect(shown.text).toContain("Set up the owner");
    expect(shown.text).toContain('id="email"');
    // Until the owner has set a password, the printed key signs in as before.
    const { headers: keyHeaders, csrf: keyCsrf } = await openSignInForm(app());
    expect((await app().request("POST", "/dashboard/sign-in", { body: form({ apiKey: first!.apiKey, csrf: keyCsrf }), headers: keyHeaders })).status).toBe(303);

    const bad = await app().request("POST", path, { body: form({ csrf, email: "nobody", name: "", password: PASSWORD, repeat: PASSWORD }), headers });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="emailError">Your e-mail: must be an e-mail address/);
    expect(bad.text).toContain('value="nobody"');
    const other = await app().account();
    await members.createMember(app().deps, { accountId: other.accountId, email: "taken@example.com", role: "owner", by: null });
    const taken = await app().request("POST", path, {
      body: form({ csrf, email: "taken@example.com", name: "", password: PASSWORD, repeat: PASSWORD }),
      headers,
    });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('id="emailError"');
    expect((await members.memberOfLink(app().deps, token))?.email, "nothing changed, the link still works").toBe("");

    const set = await app().request("POST", path, {
      body: form({ csrf, email: " Olga@Example.com", name: "Olga", password: PASSWORD, repeat: PASSWORD }),
      headers,
    });
    expect(set.status, show(set)).toBe(303);
    expect((await overview(sessionCookie(set))).status).toBe(200);
    const team = await members.listMembers(app().deps, first!.account.id);
    expect(team).toMatchObject([{ email: "olga@example.com", name: "Olga", role: "owner", hasPassword: true }]);
    expect((await passwordSignIn("olga@example.com", PASSWORD)).status).toBe(303);
    // An empty address never signs in as the unclaimed owner.
    expect((await passwordSignIn("", PASSWORD)).status).toBe(401);
  });

  test("an unknown or expired link shows what to do", async () => {
    t = await createTestApp();
    const acct = await app().account();
    const reset = await members.createMember(app().deps, { accountId: acct.accountId, email: "di@example.com", role: "viewer", by: null });
    expect((await app().request("GET", "/dashboard/set-password?token=nope")).status).toBe(404);
    expect((await app().request("GET", "/dashboard/set-password")).status).toBe(404);
    app().clock.advance(members.LINK_LIFETIME_MS.invite + 1);
    const expired = await app().request("GET", `/dashboard/set-password?token=${encodeURIComponent(reset.token)}`);
    expect(expired.status).toBe(404);
    expect(expired.text).toContain("has expired");
  });
});
