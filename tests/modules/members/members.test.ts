import { afterEach, describe, expect, test } from "bun:test";
import { MEMBER_ROLES, type MemberRole } from "../../../src/db/enums";
import { rawMany } from "../../../src/db/query";
import { AppError } from "../../../src/errors";
import { clientAddressOf } from "../../../src/http/loopback";
import { authorize, can, mayGrant, type Permission, PERMISSIONS } from "../../../src/modules/members/permissions";
import * as members from "../../../src/modules/members/service";
import { createTestApp, type TestApp } from "../../helpers/app";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The table the issue gives, written out once more by hand: each role × each permission. */
const EXPECTED: Record<MemberRole, Permission[]> = {
  owner: ["read", "draft", "outcomes", "send", "approve", "feeds", "clients", "channels", "freelancers", "automation", "keys", "audit", "members"],
  admin: ["read", "draft", "outcomes", "send", "approve", "feeds", "clients", "channels", "freelancers", "automation", "keys", "audit"],
  bidder: ["read", "draft", "outcomes", "clients"],
  viewer: ["read"],
};

describe("the permission table", () => {
  test("every role × every permission, as documented; bidders send only when the account allows it", () => {
    for (const role of MEMBER_ROLES) {
      for (const p of Object.keys(PERMISSIONS) as Permission[]) {
        expect(can(role, p), `${role} ${p}`).toBe(EXPECTED[role].includes(p));
      }
    }
    expect(can("bidder", "send", { biddersMaySend: true })).toBe(true);
    expect(can("viewer", "send", { biddersMaySend: true })).toBe(false);
    expect(can("bidder", "approve", { biddersMaySend: true })).toBe(false);
  });

  test("a denial is a 403 naming the permission", () => {
    let err: unknown;
    try {
      authorize("bidder", "approve");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(403);
    expect((err as AppError).message).toContain('permission "approve"');
    expect(() => authorize("owner", "members")).not.toThrow();
  });

  test("a role grants only roles with no permission it lacks", () => {
    expect(mayGrant("owner", "owner")).toBe(true);
    expect(mayGrant("admin", "owner")).toBe(false);
    expect(mayGrant("admin", "admin")).toBe(true);
    expect(mayGrant("admin", "bidder")).toBe(true);
    expect(mayGrant("bidder", "admin")).toBe(false);
    expect(mayGrant("bidder", "viewer")).toBe(true);
    expect(mayGrant("viewer", "bidder")).toBe(false);
  });
});

describe("members", () => {
  test("created with a one-time link that sets the password (argon2id); the link works once", async () => {
    t = await createTestApp();
    const { accountId } = await t.account({ kind: "agency" });
    const made = await members.createMember(t.deps, { accountId, email: "  Ana@Example.com ", role: "owner", by: null });
    expect(made.member).toMatchObject({ email: "ana@example.com", name: "ana", role: "owner", hasPassword: false });
    expect(made.expiresAtTs).toBe(t.clock.now() + 7 * 86_400_000);
    expect((await members.memberOfLink(t.deps, made.token))?.id).toBe(made.member.id);

    await expect(members.setPasswordWithLink(t.deps, made.token, "short")).rejects.toThrow("password: at least 10 characters");
    const set = await members.setPasswordWithLink(t.deps, made.token, "correct horse battery");
    expect(set.hasPassword).toBe(true);
    const [row] = await rawMany<{ password_hash: string }>(t.deps.db, "test.hash", "SELECT password_hash FROM members", []);
    expect(row!.password_hash.startsWith("$argon2id$")).toBe(true);
    expect(JSON.stringify(await rawMany(t.deps.db, "test.links", "SELECT * FROM member_links", []))).not.toContain(made.token);
    await expect(members.setPasswordWithLink(t.deps, made.token, "another good password")).rejects.toThrow("used already or has expired");
    expect(await members.memberOfLink(t.deps, made.token)).toBeNull();
  });

  test("an address is one member on the whole server; bad input names the field; an admin cannot invite an owner", async () => {
    t = await createTestApp();
    const a = await t.account();
    const b = await t.account({ name: "other" });
    await members.createMember(t.deps, { accountId: a.accountId, email: "bo@example.com", role: "admin", by: null });
    await expect(members.createMember(t.deps, { accountId: b.accountId, email: "BO@example.com", role: "viewer", by: null })).rejects.toThrow(
      "email: bo@example.com is already a member",
    );
    await expect(members.createMember(t.deps, { accountId: a.accountId, email: "not-an-address", role: "viewer", by: null })).rejects.toThrow("email:");
    await expect(members.createMember(t.deps, { accountId: a.accountId, email: "cy@example.com", role: "owner", by: "admin" })).rejects.toThrow(
      "cannot invite a member as owner",
    );
    expect((await members.createMember(t.deps, { accountId: a.accountId, email: "cy@example.com", role: "bidder", by: "admin" })).member.role).toBe("bidder");
    expect((await members.listMembers(t.deps, a.accountId)).map((m) => m.email)).toEqual(["bo@example.com", "cy@example.com"]);
    expect(await members.listMembers(t.deps, b.accountId)).toEqual([]);
  });

  test("sign-in: a wrong password and an unknown address read the same; five failures lock the e-mail and the address for the window", async () => {
    t = await createTestApp();
    const { accountId } = await t.account();
    const made = await members.createMember(t.deps, { accountId, email: "ana@example.com", role: "owner", by: null });
    await members.setPasswordWithLink(t.deps, made.token, "correct horse battery");
    const signIn = (email: string, password: string, clientAddress = "192.0.2.1") => members.signInWithPassword(t!.deps, { email, password, clientAddress });
    /** The error a sign-in that must fail throws (a sign-in that succeeds fails the test). */
    const refused = (email: string, password: string, clientAddress?: string) =>
      signIn(email, password, clientAddress).then(
        (m) => {
          throw new Error(`signed in as ${m.email}`);
        },
        (e: AppError) => e,
      );

    expect((await signIn("ANA@example.com", "correct horse battery")).id).toBe(made.member.id);
    const wrong = await refused("ana@example.com", "wrong password!");
    const unknown = await refused("nobody@example.com", "wrong password!");
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.message).toBe(unknown.message);

    // Four more failures for the e-mail (from other addresses): the fifth attempt is refused before the password is looked at.
    for (let i = 0; i < 4; i++) await signIn("ana@example.com", "wrong password!", `198.51.100.${i}`).catch(() => {});
    const locked = await refused("ana@example.com", "correct horse battery", "203.0.113.9");
    expect(locked.status).toBe(429);
    expect(locked.message).toContain("Too many sign-in attempts");
    // After the window the right password works again.
    t.clock.advance(members.SIGN_IN_WINDOW_MS);
    expect((await signIn("ana@example.com", "correct horse battery", "203.0.113.9")).id).toBe(made.member.id);
    // One address guessing many e-mails is locked the same way, whichever e-mail it tries next.
    for (let i = 0; i < 5; i++) await signIn(`guess${i}@example.com`, "wrong password!", "192.0.2.66").catch(() => {});
    expect((await refused("ana@example.com", "correct horse battery", "192.0.2.66")).status).toBe(429);
    expect((await signIn("ana@example.com", "correct horse battery", "192.0.2.67")).id).toBe(made.member.id);
  });

  test("a reset link for a known address only, an hour long, and it ends the other links", async () => {
    t = await createTestApp();
    const { accountId } = await t.account();
    const made = await members.createMember(t.deps, { accountId, email: "ana@example.com", role: "owner", by: null });
    expect(await members.resetLink(t.deps, "nobody@example.com")).toBeNull();
    const reset = await members.resetLink(t.deps, "Ana@example.com");
    expect(reset?.expiresAtTs).toBe(t.clock.now() + 3_600_000);
    await members.setPasswordWithLink(t.deps, reset!.token, "a brand new password");
    expect(await members.memberOfLink(t.deps, made.token)).toBeNull();
    t.clock.advance(1);
    const late = await members.resetLink(t.deps, "ana@example.com");
    t.clock.advance(3_600_000);
    expect(await members.memberOfLink(t.deps, late!.token)).toBeNull();
  });
});

describe("the client a sign-in limit counts", () => {
  test("the TCP peer; behind a proxy on this machine, whom it forwards for; a remote peer's headers are not believed", async () => {
    const h = (o: Record<string, string>) => new Headers(o);
    expect(clientAddressOf("203.0.113.5", h({}))).toBe("203.0.113.5");
    expect(clientAddressOf("203.0.113.5", h({ "x-forwarded-for": "198.51.100.1" }))).toBe("203.0.113.5");
    expect(clientAddressOf("127.0.0.1", h({ "x-forwarded-for": "198.51.100.1, 10.0.0.2" }))).toBe("198.51.100.1");
    expect(clientAddressOf("::1", h({ "x-real-ip": "2001:db8::7" }))).toBe("2001:db8::7");
    expect(clientAddressOf("127.0.0.1", h({ "x-forwarded-for": "not an address" }))).toBe("127.0.0.1");
    expect(clientAddressOf(undefined, h({}))).toBe("unknown");
  });
});
