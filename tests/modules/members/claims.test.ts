import { afterEach, describe, expect, test } from "bun:test";
import * as accounts from "../../../src/modules/accounts/service";
import { CLAIM_TTL_MS, liveClaim } from "../../../src/modules/members/claims";
import * as membersRepo from "../../../src/modules/members/repo";
import * as members from "../../../src/modules/members/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { agencyTeam } from "../../helpers/team";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});
const app = () => t!;

/** An agency account with two bidders and an admin, each with an API key acting as them. */
async function team() {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  return agencyTeam(app());
}

async function job(): Promise<string> {
  const doc = makeDoc({ fixed: 500 });
  await ingestDocuments(app().deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const claimPath = (cipher: string) => `/api/v1/jobs/${encodeURIComponent(cipher)}/claim`;
const claim = (key: string, cipher: string) => app().request("POST", claimPath(cipher), { key });
const release = (key: string, cipher: string) => app().request("DELETE", claimPath(cipher), { key });
const hhmm = (ts: number) => new Date(ts).toISOString().slice(11, 16);

describe("claims", () => {
  test("a claim holds the job for its member: another member's claim and proposals are a 409 naming the holder; released by hand, the other can claim", async () => {
    const { ana, bo, cy } = await team();
    const cipher = await job();
    const at = app().clock.now();
    const mine = await claim(ana.key, cipher);
    expect(mine.status, show(mine)).toBe(200);
    expect(mine.body.claim).toEqual({
      jobCiphertext: cipher,
      memberId: ana.member.id,
      memberName: "Ana Pérez",
      claimedAt: at,
      expiresAt: at + CLAIM_TTL_MS,
      mine: true,
    });

    const refused = await claim(bo.key, cipher);
    expect(refused.status).toBe(409);
    const words = `Ana Pérez is drafting this job (claimed ${hhmm(at)} UTC, until ${hhmm(at + CLAIM_TTL_MS)}); ask them or wait`;
    expect(refused.body.error).toBe(words);
    // Sending or asking for approval is refused the same way, inside apply's transaction: nothing is queued.
    const asked = await app().request("POST", "/api/v1/applications/request-approval", { key: bo.key, json: { jobId: cipher, coverLetter: "Hi" } });
    expect(asked.status, show(asked)).toBe(409);
    expect(asked.body.error).toBe(words);
    const sent = await app().request("POST", "/api/auto-apply-v2/apply", { key: cy.key, json: { jobId: cipher, coverLetter: "Hi" } });
    expect(sent.status, show(sent)).toBe(409);
    expect(sent.body.error).toBe(words);
    expect((await accounts.getAccount(app().deps, ana.member.accountId)).creditsHeld).toBe(0);

    // Another bidder cannot release it; the holder can, and then the other member claims it.
    const notTheirs = await release(bo.key, cipher);
    expect(notTheirs.status).toBe(403);
    expect(notTheirs.body.error).toContain("Ana Pérez holds the claim");
    expect((await release(ana.key, cipher)).body).toEqual({ released: true });
    expect((await release(ana.key, cipher)).body).toEqual({ released: false });
    const taken = await claim(bo.key, cipher);
    expect(taken.status, show(taken)).toBe(200);
    expect(taken.body.claim).toMatchObject({ memberName: "Bo Chen", mine: true });
    // An admin may release anyone's claim.
    expect((await release(cy.key, cipher)).body).toEqual({ released: true });
  });

  test("a renewal keeps the claim's start and moves its end; an expired claim is overwritten; a removed member holds nothing", async () => {
    const { ana, bo } = await team();
    const cipher = await job();
    const at = app().clock.now();
    await claim(ana.key, cipher);
    app().clock.advance(10 * 60_000);
    const renewed = await claim(ana.key, cipher);
    expect(renewed.body.claim).toMatchObject({ claimedAt: at, expiresAt: at + 10 * 60_000 + CLAIM_TTL_MS });
    app().clock.advance(CLAIM_TTL_MS - 1);
    expect((await claim(bo.key, cipher)).status).toBe(409);
    app().clock.advance(1);
    const after = await claim(bo.key, cipher);
    expect(after.status, show(after)).toBe(200);
    expect(after.body.claim).toMatchObject({ memberName: "Bo Chen", claimedAt: app().clock.now() });

    const other = await job();
    await claim(bo.key, other);
    await membersRepo.markRemoved(app().deps.db, bo.member.id, app().clock.now());
    const free = await claim(ana.key, other);
    expect(free.status, show(free)).toBe(200);
    expect(free.body.claim.memberName).toBe("Ana Pérez");
  });

  test("only members claim: a key of no member gets no claim and is not checked; a viewer may not claim; an unknown job is a 404", async () => {
    const { acct, ana } = await team();
    const cipher = await job();
    const none = await claim(acct.apiKey, cipher);
    expect(none.status, show(none)).toBe(200);
    expect(none.body).toEqual({ claim: null });
    expect((await claim(ana.key, cipher)).status).toBe(200);

    const { member } = await members.createMember(app().deps, { accountId: acct.accountId, email: "di@example.com", name: "Di", role: "viewer", by: null });
    const { apiKey } = await accounts.createKey(app().deps, acct.accountId, "Di", { memberId: member.id, role: "viewer" });
    const viewer = await claim(apiKey, cipher);
    expect(viewer.status).toBe(403);
    expect(viewer.body.error).toContain('permission "draft"');
    expect((await claim(ana.key, "~0123456789abcdef01")).status).toBe(404);
  });

  test("the job's live application names who drafted it when someone else claims it; sending releases the claim", async () => {
    const { ana, cy } = await team();
    const cipher = await job();
    await claim(cy.key, cipher);
    const sent = await app().request("POST", "/api/auto-apply-v2/apply", { key: cy.key, json: { jobId: cipher, coverLetter: "Hello" } });
    expect(sent.status, show(sent)).toBe(200);
    // The claim went with the application; the job now has Cy's application, which a claim names.
    expect(await liveClaim(app().deps.db, cy.member.accountId, cipher, app().clock.now())).toBeUndefined();
    const late = await claim(ana.key, cipher);
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("This job was already applied to, or an application for it is being processed (drafted by Cy Admin, sent by Cy Admin)");
  });
});
