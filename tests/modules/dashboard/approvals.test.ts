import { afterEach, describe, expect, test } from "bun:test";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { runDueTasks } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";
import { agencyTeam } from "../../helpers/team";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});
const app = () => t!;
const { get, post, signIn } = browser(app);

/**
 * An agency account whose members (no passwords yet, so their own keys sign in) each have a dashboard session
 * acting as them: two bidders and an admin.
 */
async function team() {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const { acct, ...people } = await agencyTeam(app());
  const session = async (p: (typeof people)["ana"]) => ({ ...p, ...(await signIn(p.key)) });
  return { acct, ana: await session(people.ana), bo: await session(people.bo), cy: await session(people.cy) };
}

async function job(title = "Rust backend for a trading desk"): Promise<string> {
  const doc = makeDoc({ title, skills: ["Rust"], fixed: 800 });
  await ingestDocuments(app().deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const jobPath = (cipher: string) => `/dashboard/jobs/${encodeURIComponent(cipher)}`;
const REVIEW = "/dashboard/review";
const hhmm = (ts: number) => new Date(ts).toISOString().slice(11, 16);

describe("claims on the dashboard", () => {
  test("opening a job claims it; another member sees who holds it until when; the holder releases it by hand", async () => {
    const { ana, bo, cy } = await team();
    const cipher = await job();
    const opened = await get(jobPath(cipher), ana.token);
    expect(opened.status, show(opened)).toBe(200);
    expect(opened.text).toContain("You are drafting this job");
    expect(opened.text).toContain(`action="${jobPath(cipher)}/release"`);
    // A bidder's form asks for approval rather than sending.
    expect(opened.text).toContain(">Request approval</button>");

    const other = await get(jobPath(cipher), bo.token);
    expect(other.text).toContain(`Ana Pérez is drafting this job</strong> — until ${hhmm(app().clock.now() + 30 * 60_000)} UTC`);
    expect(other.text).not.toContain(`action="${jobPath(cipher)}/release"`);
    // An admin may release anyone's claim, and sends without approval.
    const admin = await get(jobPath(cipher), cy.token);
    expect(admin.text).toContain("Ana Pérez is drafting this job");
    expect(admin.text).toContain(`action="${jobPath(cipher)}/release"`);
    expect(admin.text).toContain('data-key="a">Apply</button>');

    // Bo's apply form is refused with the claim's words, next to nothing sent.
    const refused = await post(`${jobPath(cipher)}/apply`, bo.token, { csrf: bo.csrf, coverLetter: "Me first" });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain("Ana Pérez is drafting this job");

    const released = await post(`${jobPath(cipher)}/release`, ana.token, { csrf: ana.csrf });
    expect(released.status, show(released)).toBe(303);
    expect(released.headers.get("location")).toBe(`${jobPath(cipher)}?released=1`);
    const after = await get(`${jobPath(cipher)}?released=1`, ana.token);
    expect(after.text).toContain("Released: another member can draft this job now.");
    expect(after.text).not.toContain("is drafting this job");
    expect((await get(jobPath(cipher), bo.token)).text).toContain("You are drafting this job");
    // Not the holder and not an approver: the release is refused with the holder's name.
    const notHers = await post(`${jobPath(cipher)}/release`, ana.token, { csrf: ana.csrf });
    expect(notHers.status).toBe(403);
    expect(notHers.text).toContain("Bo Chen holds the claim on this job");
  });

  test("an inbox card shows who is drafting its job", async () => {
    const { acct, ana, cy } = await team();
    const feed = await app().request("POST", "/api/v1/feeds", { key: acct.apiKey, json: { title: "Rust jobs", minScore: 0, includes: ["rust"] } });
    expect(feed.status, show(feed)).toBe(201);
    const cipher = await job();
    await get(jobPath(cipher), ana.token);
    const inbox = await get("/dashboard", cy.token);
    expect(inbox.status, show(inbox)).toBe(200);
    expect(inbox.text).toContain('<span class="badge claim-badge"');
    expect(inbox.text).toContain("Ana Pérez drafting</span>");
    expect((await get("/dashboard", ana.token)).text).toContain(">You are drafting</span>");
  });
});

describe("the approval queue on the dashboard", () => {
  test("a bidder requests approval; the admin sends it back (comment required), the bidder asks again, the admin approves", async () => {
    const { ana, cy } = await team();
    const cipher = await job();
    await get(jobPath(cipher), ana.token);
    const asked = await post(`${jobPath(cipher)}/apply`, ana.token, { csrf: ana.csrf, coverLetter: "Hello, I built this twice.", fixedBid: "750" });
    expect(asked.status, show(asked)).toBe(303);
    expect(asked.headers.get("location")).toBe(`${REVIEW}?done=requested`);

    // The approver sees the job, the bid and the letter together, with Approve, Send back and Discard.
    const list = await get(REVIEW, cy.token);
    expect(list.status, show(list)).toBe(200);
    expect(list.text).toContain("Waiting for approval</span>");
    expect(list.text).toContain("drafted by <strong>Ana Pérez</strong>");
    expect(list.text).toContain("<strong>750 USD fixed</strong>");
    expect(list.text).toContain("Hello, I built this twice.");
    const queueId = /action="\/dashboard\/review\/([^/"]+)\/send-back"/.exec(list.text)?.[1];
    expect(queueId).toBeTruthy();
    expect(list.text).toContain(`formaction="${REVIEW}/${queueId}/discard"`);
    expect(list.text).toContain(`action="${REVIEW}/${queueId}/approve"`);

    // A bidder cannot send back; an empty comment is an error next to the field.
    expect((await post(`${REVIEW}/${queueId}/send-back`, ana.token, { csrf: ana.csrf, comment: "No" })).status).toBe(403);
    const empty = await post(`${REVIEW}/${queueId}/send-back`, cy.token, { csrf: cy.csrf, comment: "  " });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain(
      `<p id="held-${queueId}-commentError" class="field-error error-text">Comment: say what should change before sending it back.</p>`,
    );
    expect(empty.text).toContain('aria-invalid="true"');
    const back = await post(`${REVIEW}/${queueId}/send-back`, cy.token, { csrf: cy.csrf, comment: "Mention the exchange APIs." });
    expect(back.status, show(back)).toBe(303);
    expect(back.headers.get("location")).toBe(`${REVIEW}?done=returned`);

    // The bidder sees it with the comment and a form to ask again with the letter edited.
    const mine = await get(REVIEW, ana.token);
    expect(mine.text).toContain("Sent back</span>");
    expect(mine.text).toContain("Mention the exchange APIs.");
    expect(mine.text).toContain(`action="${REVIEW}/${queueId}/request-approval"`);
    expect(mine.text).not.toContain(`/${queueId}/approve"`);
    const again = await post(`${REVIEW}/${queueId}/request-approval`, ana.token, {
      csrf: ana.csrf,
      coverLetter: "Hello, I built this twice, on the exchange APIs.",
    });
    expect(again.status, show(again)).toBe(303);
    expect(again.headers.get("location")).toBe(`${REVIEW}?done=requested`);

    const approved = await post(`${REVIEW}/${queueId}/approve`, cy.token, { csrf: cy.csrf, coverLetter: "Hello, I built this twice, on the exchange APIs." });
    expect(approved.status, show(approved)).toBe(303);
    expect(approved.headers.get("location")).toBe(`${REVIEW}?done=approved`);
    await runDueTasks(app());
    const page = await get(jobPath(cipher), ana.token);
    expect(page.text).toContain("<dt>Drafted by</dt><dd>Ana Pérez</dd>");
    expect(page.text).toContain("<dt>Approved by</dt><dd>Cy Admin</dd>");
    expect(page.text).toContain("<dt>Sent by</dt><dd>Cy Admin</dd>");
    expect(page.text).toContain("<dt>Applied as</dt>");
  });
});
