import { afterEach, describe, expect, test } from "bun:test";
import * as accounts from "../../src/modules/accounts/service";
import { ingestDocuments } from "../../src/modules/intake/ingest";
import * as members from "../../src/modules/members/service";
import { runDueTasks } from "../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../helpers/app";
import { browser, form, openSignInForm, sessionCookie } from "../helpers/dashboard";
import { makeDoc } from "../helpers/factories";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});
const app = () => t!;
const { get, post } = browser(app);
const PASSWORD = "a long enough password";
const DAY = 86_400_000;

/** Signs in with e-mail and password as a person at the dashboard would; the session cookie and its CSRF token. */
async function passwordSession(email: string) {
  const { headers, csrf } = await openSignInForm(app());
  const res = await app().request("POST", "/dashboard/sign-in/password", { body: form({ email, password: PASSWORD, csrf }), headers });
  expect(res.status, show(res)).toBe(303);
  const token = sessionCookie(res);
  const page = await get("/dashboard", token);
  return { token, csrf: /name="csrf" value="([^"]+)"/.exec(page.text)![1]! };
}

/** What the job page's "Apply as" select preselects: what a person who does not change it sends. */
function preselectedProfile(pageHtml: string): string {
  const select = /<select[^>]*name="profileId"[^>]*>([\s\S]*?)<\/select>/.exec(pageHtml)?.[1] ?? "";
  return /<option value="([^"]+)"[^>]*\bselected/.exec(select)?.[1] ?? "";
}

const jobPath = (cipher: string) => `/dashboard/jobs/${encodeURIComponent(cipher)}`;

// Issue 43's "done when": an owner invites two bidders and an admin, gives each their feeds, and the team runs a
// week of proposals. Nobody shares a key (each signs in with their own password), nobody bids twice on a job, every
// proposal goes out as the freelancer its feed routes to, and the audit log says who did what.
describe("an agency's week", () => {
  test("two bidders and an admin, two routed feeds, five days: one proposal per job, the routed freelancer, every step in the audit log", async () => {
    t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, publicUrl: "https://jobs.example.com" } });
    const acct = await app().account({ kind: "agency", name: "Nair & Chen Studio", credits: 50 });
    // The owner's own key (made as the owner's member, as the Keys page makes it) runs the setup.
    const olga = (await members.createMember(app().deps, { accountId: acct.accountId, email: "olga@example.com", name: "Olga", role: "owner", by: null }))
      .member;
    const ownerKey = (await accounts.createKey(app().deps, acct.accountId, "Olga's setup key", { memberId: olga.id, role: "owner" })).apiKey;
    const api = (method: string, path: string, json?: unknown) => app().request(method, path, { key: ownerKey, ...(json === undefined ? {} : { json }) });

    // Invitations; each person sets their own password from their link.
    const invite = async (email: string, name: string, role: string) => {
      const res = await api("POST", "/api/v1/members", { email, name, role });
      expect(res.status, show(res)).toBe(201);
      await members.setPasswordWithLink(app().deps, new URL(res.body.inviteUrl).searchParams.get("token")!, PASSWORD);
      return { id: res.body.member.id as string, name, ...(await passwordSession(email)) };
    };
    const ana = await invite("ana@example.com", "Ana", "bidder");
    const bo = await invite("bo@example.com", "Bo", "bidder");
    const cy = await invite("cy@example.com", "Cy", "admin");

    // Two freelancers, each feed routed to one of them and to one bidder.
    const freelancer = async (name: string, profile: string, skill: string) => {
      const res = await api("POST", "/api/v1/freelancers", { name, hourlyRate: 70, profiles: [{ name: profile, skills: [skill] }] });
      expect(res.status, show(res)).toBe(201);
      const f = res.body.freelancer as { id: string; profiles: { profileId: string; type: string; name: string }[] };
      return { id: f.id, profileId: f.profiles.find((p) => p.type === "specialization")!.profileId, label: `${name} (${profile})` };
    };
    const priya = await freelancer("Priya Nair", "Python data engineer", "Python");
    const tomas = await freelancer("Tomás Silva", "iOS developer", "Swift");
    const feed = async (title: string, word: string, to: { profileId: string }, memberId: string) => {
      const created = await api("POST", "/api/v1/feeds", { title, includes: [word], minScore: 0 });
      expect(created.status, show(created)).toBe(201);
      const routed = await api("PUT", `/api/v1/automation/feeds/${created.body.feed.id}`, { profileId: to.profileId, memberIds: [memberId] });
      expect(routed.status, show(routed)).toBe(200);
    };
    await feed("Python", "python", priya, ana.id);
    await feed("iOS", "swift", tomas, bo.id);

    const sentAs = new Map<string, string>(); // job title → the freelancer its feed routes to
    for (let day = 1; day <= 5; day++) {
      const docs = [
        { title: `Python ETL job ${day}`, skills: ["Python"], to: priya },
        { title: `Swift app job ${day}`, skills: ["Swift"], to: tomas },
      ].map((j) => {
        sentAs.set(j.title, j.to.label);
        return makeDoc({ title: j.title, skills: j.skills, fixed: 900 + day, publishTime: new Date(app().clock.now() - 10 * 60_000).toISOString() });
      });
      await ingestDocuments(app().deps, docs, { source: "test" });
      const [python, swift] = docs.map((d) => (d.jobTile as { job: { ciphertext: string } }).job.ciphertext) as [string, string];

      // Each bidder's inbox lists their own feed's job first, marked "Your feeds".
      for (const [who, mine, theirs] of [
        [ana, `Python ETL job ${day}`, `Swift app job ${day}`],
        [bo, `Swift app job ${day}`, `Python ETL job ${day}`],
      ] as const) {
        const inbox = (await get("/dashboard?show=all", who.token)).text;
        expect(inbox.indexOf(mine), `${who.name}'s inbox, day ${day}`).toBeGreaterThan(-1);
        expect(inbox.indexOf(mine), `${who.name}'s inbox, day ${day}`).toBeLessThan(inbox.indexOf(theirs));
      }

      // Each bidder opens their job, claiming it; on day 3 Bo also opens Ana's: he sees her name and cannot bid on it.
      const opened = new Map<string, string>();
      for (const [who, cipher] of [
        [ana, python],
        [bo, swift],
      ] as const) {
        const page = await get(jobPath(cipher), who.token);
        expect(page.text).toContain("You are drafting this job");
        opened.set(cipher, page.text);
      }
      if (day === 3) {
        expect((await get(jobPath(python), bo.token)).text).toContain("Ana is drafting this job");
        const second = await post(`${jobPath(python)}/apply`, bo.token, { csrf: bo.csrf, coverLetter: "Me too.", fixedBid: "800" });
        expect(second.status).toBe(409);
        expect(second.text).toContain("Ana");
      }
      for (const [who, cipher] of [
        [ana, python],
        [bo, swift],
      ] as const) {
        const asked = await post(`${jobPath(cipher)}/apply`, who.token, {
          csrf: who.csrf,
          profileId: preselectedProfile(opened.get(cipher)!),
          coverLetter: `Day ${day}, from ${who.name}: ${day % 2 ? "I shipped a similar project last spring" : "here is how I would start"} on "${cipher.slice(-6)}".`,
          fixedBid: String(850 + day * 7),
        });
        expect(asked.status, show(asked)).toBe(303);
        expect(asked.headers.get("location")).toBe("/dashboard/review?done=requested");
      }

      // The admin approves both drafts from the Review page; the worker sends them.
      const review = (await get("/dashboard/review", cy.token)).text;
      const queueIds = [...review.matchAll(/action="\/dashboard\/review\/([^/"]+)\/approve"/g)].map((m) => m[1]!);
      expect(queueIds.length, `day ${day}`).toBe(2);
      for (const id of queueIds) {
        const approved = await post(`/dashboard/review/${id}/approve`, cy.token, { csrf: cy.csrf });
        expect(approved.status, show(approved)).toBe(303);
      }
      await runDueTasks(app());
      app().clock.advance(DAY);
    }

    // One proposal per job, all sent, each as its feed's freelancer, with who drafted, approved and sent it.
    const applied = await api("GET", "/api/auto-apply-v2/applied-jobs?limit=100");
    const jobs = applied.body.jobs as {
      jobId: string;
      title: string;
      applicationStatus: string;
      applicationStatusMessage: string;
      draftedBy: string | null;
      approvedBy: string | null;
      sentBy: string | null;
    }[];
    expect(jobs.length).toBe(10);
    expect(new Set(jobs.map((j) => j.jobId)).size).toBe(10);
    for (const j of jobs) {
      expect(j.applicationStatus, j.title).toBe("applied");
      expect(j.applicationStatusMessage, j.title).toContain(sentAs.get(j.title)!);
      expect(j.draftedBy, j.title).toBe(j.title.startsWith("Python") ? "Ana" : "Bo");
      expect([j.approvedBy, j.sentBy], j.title).toEqual(["Cy", "Cy"]);
    }

    // The audit log: every step by the member who took it, through their own session (no key of anyone's).
    const audit: { action: string; actor: string | null; memberId: string | null; keyId: string | null }[] = [];
    for (let offset = 0; ; offset += 100) {
      const res = await api("GET", `/api/v1/audit?limit=100&offset=${offset}`);
      expect(res.status, show(res)).toBe(200);
      audit.push(...res.body.entries);
      if (res.body.entries.length < 100) break;
    }
    const steps = (action: string, memberId: string) => audit.filter((e) => e.action === action && e.memberId === memberId);
    expect(steps("request_approval", ana.id).length).toBe(5);
    expect(steps("request_approval", bo.id).length).toBe(5);
    expect(steps("approve", cy.id).length).toBe(10);
    for (const who of [ana, bo, cy]) {
      expect(steps("sign_in", who.id).length, who.name).toBeGreaterThan(0);
      const odd = audit.filter((e) => e.memberId === who.id && !(e.keyId === null && e.actor === who.name));
      expect(odd, who.name).toEqual([]);
    }
    // Only the account's first key and the owner's own exist: nobody was given a key to share.
    expect(((await api("GET", "/api/v1/keys")).body.keys as { revokedAtTs: number | null }[]).filter((k) => k.revokedAtTs === null).length).toBe(2);

    // Per-member analytics: each bidder's five proposals are theirs.
    const byMember = await api("GET", `/api/v1/analytics/funnel?groupBy=member&from=0&to=${app().clock.now() + DAY}`);
    expect(byMember.status, show(byMember)).toBe(200);
    const sent = Object.fromEntries((byMember.body.groups as { label: string; sent: number }[]).map((g) => [g.label, g.sent]));
    expect(sent).toEqual({ Ana: 5, Bo: 5 });
  }, 60_000);
});
