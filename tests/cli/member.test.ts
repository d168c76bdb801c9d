import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/index";
import * as members from "../../src/modules/members/service";
import { createTestApp, show, type TestApp } from "../helpers/app";
import { form, openSignInForm, sessionCookie } from "../helpers/dashboard";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function run(env: Record<string, string>, ...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, { env, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code: code as number, stdout, stderr };
}

async function freshAccount() {
  const dbPath = join(mkdtempSync(join(tmpdir(), "jp-cli-member-")), "cli.db");
  const created = await run({ JOBPILOT_DB: dbPath }, "account", "create", "--name", "People", "--json");
  expect(created.code, created.stderr).toBe(0);
  return { dbPath, accountId: JSON.parse(created.stdout).accountId as string };
}

const LINK = /^http:\/\/127\.0\.0\.1:3000\/dashboard\/set-password\?token=([A-Za-z0-9_-]{43})\n$/;

describe("jobpilot member", () => {
  test("create prints a set-password link that works once through the page, as an owner by default", async () => {
    const { dbPath, accountId } = await freshAccount();
    const res = await run({ JOBPILOT_DB: dbPath }, "member", "create", "--account", accountId, "--email", "Ana@Example.com", "--name", "Ana");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(LINK);
    expect(res.stderr).toContain("as owner");
    expect(res.stderr).toContain("Valid once, until 20");

    t = await createTestApp({ dbPath });
    const path = new URL(res.stdout.trim()).pathname + new URL(res.stdout.trim()).search;
    const { headers, csrf } = await openSignInForm(t, path);
    const set = await t.request("POST", path, { body: form({ csrf, password: "a long enough one", repeat: "a long enough one" }), headers });
    expect(set.status, show(set)).toBe(303);
    sessionCookie(set);
    expect((await t.request("GET", path)).status).toBe(404);
    const [ana] = await members.listMembers(t.deps, accountId);
    expect(ana).toMatchObject({ email: "ana@example.com", name: "Ana", role: "owner", hasPassword: true });
  });

  test("invite defaults to bidder and follows JOBPILOT_PUBLIC_URL; reset gives a new link that sets a new password", async () => {
    const { dbPath, accountId } = await freshAccount();
    const env = { JOBPILOT_DB: dbPath, JOBPILOT_PUBLIC_URL: "https://jobs.example.com/" };
    const invited = await run(env, "member", "invite", "--account", accountId, "--email", "bo@example.com");
    expect(invited.code, invited.stderr).toBe(0);
    expect(invited.stdout).toMatch(/^https:\/\/jobs\.example\.com\/dashboard\/set-password\?token=[A-Za-z0-9_-]{43}\n$/);
    expect(invited.stderr).toContain("as bidder");

    const reset = await run({ JOBPILOT_DB: dbPath }, "member", "reset", "--email", "BO@example.com");
    expect(reset.code, reset.stderr).toBe(0);
    const token = LINK.exec(reset.stdout)![1]!;
    t = await createTestApp({ dbPath });
    const member = await members.setPasswordWithLink(t.deps, token, "reset password 123");
    expect(member.email).toBe("bo@example.com");
    await expect(members.signInWithPassword(t.deps, { email: "bo@example.com", password: "reset password 123", clientAddress: "test" })).resolves.toMatchObject(
      {
        role: "bidder",
      },
    );
  });

  test("bad input exits 2 with one line naming the flag; an unknown account exits 1", async () => {
    const { dbPath, accountId } = await freshAccount();
    const env = { JOBPILOT_DB: dbPath };
    const cases: [string[], string][] = [
      [["member", "create", "--email", "a@example.com"], "--account is required"],
      [["member", "create", "--account", accountId], "--email is required"],
      [["member", "create", "--account", accountId, "--email", "not-an-address"], "--email must be an e-mail address"],
      [["member", "invite", "--account", accountId, "--email", "a@example.com", "--role", "boss"], "--role must be one of owner, admin, bidder, viewer"],
      [["member", "reset", "--email", "nobody@example.com"], "--email: no member has the address nobody@example.com"],
    ];
    for (const [argv, message] of cases) {
      const res = await run(env, ...argv);
      expect(res.code, argv.join(" ")).toBe(2);
      expect(res.stderr).toContain(message);
      expect(res.stderr.trim().split("\n")[0]).toContain(message);
      expect(res.stdout).toBe("");
    }
    const unknown = await run(env, "member", "create", "--account", "nope", "--email", "a@example.com");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Account not found");
    const dup = await run(env, "member", "create", "--account", accountId, "--email", "x@example.com");
    expect(dup.code).toBe(0);
    const again = await run(env, "member", "create", "--account", accountId, "--email", "x@example.com");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already a member");
  });
});
