import { afterEach, describe, expect, test } from "bun:test";
import * as accounts from "../../../src/modules/accounts/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import * as members from "../../../src/modules/members/service";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser, foreignScripts } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
const { get, post, signIn } = browser(() => t);
afterEach(async () => {
  await t?.close();
});

// The sign-in forms run before there is a session: they carry the login-CSRF pair instead (dashboard.test.ts).
const PRE_SESSION = new Set(["/dashboard/sign-in", "/dashboard/sign-in/password", "/dashboard/set-password", "/dashboard/link/:token"]);
const HOSTILE = `<img src=x onerror=alert(1)><script>alert(2)</script>"'`;

describe("the dashboard's forms against another site", () => {
  test("every POST of a signed-in page without the session's CSRF token is a 403 that changes nothing", async () => {
    t = await createTestApp();
    const acct = await t.account({ kind: "agency" });
    const { token } = await signIn(acct.apiKey);
    const routes = (t.app.routes as unknown as { method: string; path: string }[]).filter(
      (r) => r.method === "POST" && r.path.startsWith("/dashboard") && !PRE_SESSION.has(r.path),
    );
    expect(routes.length).toBeGreaterThan(30);
    const auditBefore = (await t.request("GET", "/api/v1/audit?limit=100", { key: acct.apiKey })).body.entries.length;
    for (const r of routes) {
      const path = r.path.replace(/:(\w+)/g, "01a21343-5e5e-772c-8e41-cd03aa62df35");
      for (const csrf of [undefined, "forged"]) {
        const res = await post(path, token, { ...(csrf ? { csrf } : {}), name: "x", email: "x@example.com", role: "viewer" });
        expect(res.status, `${r.path} (${csrf ?? "no token"}): ${show(res)}`).toBe(403);
      }
    }
    expect((await t.request("GET", "/api/v1/audit?limit=100", { key: acct.apiKey })).body.entries.length).toBe(auditBefore);
    expect((await members.listMembers(t.deps, acct.accountId)).length).toBe(0);
  });
});

describe("hostile text on the agency pages", () => {
  test("a member's, freelancer's and profile's names and a draft's letter show as text on Team, Freelancers and Review", async () => {
    t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
    const acct = await t.account({ kind: "agency", credits: 5 });
    const owner = await signIn(acct.apiKey);
    // A bidder named with markup drafts a letter with markup for a freelancer and a profile named with markup.
    const { member } = await members.createMember(t.deps, {
      accountId: acct.accountId,
      email: "evil@example.com",
      name: HOSTILE.slice(0, 90),
      role: "bidder",
      by: null,
    });
    const bidderKey = (await accounts.createKey(t.deps, acct.accountId, "bidder", { memberId: member.id, role: "bidder" })).apiKey;
    const bidder = await signIn(bidderKey);
    const made = await t.request("POST", "/api/v1/freelancers", {
      key: acct.apiKey,
      json: { name: HOSTILE.slice(0, 60), hourlyRate: 50, profiles: [{ name: HOSTILE.slice(0, 60), skills: [HOSTILE.slice(0, 40)] }] },
    });
    expect(made.status, show(made)).toBe(201);
    const profileId = made.body.freelancer.profiles.find((p: { type: string }) => p.type === "specialization").profileId;
    const doc = makeDoc({ title: HOSTILE, skills: ["Rust"], fixed: 700 });
    await ingestDocuments(t.deps, [doc], { source: "test" });
    const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
    await get(`/dashboard/jobs/${encodeURIComponent(cipher)}`, bidder.token);
    const asked = await post(`/dashboard/jobs/${encodeURIComponent(cipher)}/apply`, bidder.token, {
      csrf: bidder.csrf,
      profileId,
      coverLetter: `Hello ${HOSTILE}`,
      fixedBid: "700",
    });
    expect(asked.status, show(asked)).toBe(303);

    for (const path of [
      "/dashboard/team",
      "/dashboard/freelancers",
      "/dashboard/review",
      `/dashboard/jobs/${encodeURIComponent(cipher)}`,
      "/dashboard/audit",
    ]) {
      const page = await get(path, owner.token);
      expect(page.status, `${path}: ${show(page)}`).toBe(200);
      expect(page.text, path).toContain("&lt;img src=x");
      expect(page.text, path).not.toContain("<img src=x");
      expect(foreignScripts(page.text), path).toEqual([]);
    }
  });
});
