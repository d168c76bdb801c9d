import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import * as accounts from "../../../src/modules/accounts/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { runDueTasks } from "../../helpers/apply-worker";
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

async function job(over: Parameters<typeof makeDoc>[0] = {}): Promise<string> {
  const doc = makeDoc({ fixed: 500, ...over });
  await ingestDocuments(app().deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const post = (key: string, path: string, json?: unknown) => app().request("POST", path, { key, json });
const held = (key: string) => app().request("GET", "/api/v1/applications/held", { key });
const status = (key: string, queueId: string) => app().request("GET", `/api/auto-apply-v2/status?queueId=${queueId}`, { key });
const auditOf = (applicationId: string) =>
  rawMany<{ action: string; member_id: string | null }>(
    app().deps.db,
    "test.audit",
    "SELECT action, member_id FROM automation_audit WHERE application_id = ? ORDER BY at_ts, action",
    [applicationId],
  );

describe("draft → approve → send", () => {
  test("a bidder may not send; their approval request waits for an admin, who approves it; the application names who drafted, approved and sent it", async () => {
    const { ana, bo, cy } = await team();
    const cipher = await job();
    const direct = await post(ana.key, "/api/auto-apply-v2/apply", { jobId: cipher, coverLetter: "Hello" });
    expect(direct.status).toBe(403);
    expect(direct.body.error).toContain('permission "send"');

    const asked = await post(ana.key, "/api/v1/applications/request-approval", {
      jobId: cipher,
      coverLetter: "Hello, I have built this twice.",
      proposal: { fixedBid: 450 },
    });
    expect(asked.status, show(asked)).toBe(200);
    const queueId = asked.body.queueId as string;
    expect(asked.body.message).toContain("Queued for approval");
    // Nothing is sent while it waits.
    expect(await runDueTasks(app())).toBe(0);
    expect((await status(ana.key, queueId)).body).toMatchObject({ applicationStatus: "processing", draftedBy: "Ana Pérez", approvedBy: null, sentBy: null });

    // The approver sees letter, bid and job together; another bidder sees none of Ana's drafts; Ana sees hers.
    const list = await held(cy.key);
    expect(list.body.total).toBe(1);
    expect(list.body.applications[0]).toMatchObject({
      queueId,
      kind: "approval",
      draftedBy: "Ana Pérez",
      draftedById: ana.member.id,
      why: "Drafted by Ana Pérez, waiting for approval.",
      coverLetter: "Hello, I have built this twice.",
      fixedBid: 450,
      hourlyRate: null,
      reviewComment: null,
    });
    expect(list.body.applications[0].jobBudget).toContain("500");
    expect(list.body.applications[0].jobDescription).toBeTruthy();
    expect((await held(bo.key)).body.total).toBe(0);
    expect((await held(ana.key)).body.total).toBe(1);

    // A second member's proposal for the job is a 409 naming the draft that holds it.
    const second = await post(bo.key, "/api/v1/applications/request-approval", { jobId: cipher, coverLetter: "Me too" });
    expect(second.status).toBe(409);
    expect(second.body.error).toContain("drafted by Ana Pérez, waiting for approval");

    // A bidder cannot approve; the admin does, and it goes out.
    expect((await post(ana.key, `/api/v1/applications/${queueId}/approve`)).status).toBe(403);
    const approved = await post(cy.key, `/api/v1/applications/${queueId}/approve`);
    expect(approved.status, show(approved)).toBe(200);
    await runDueTasks(app());
    const final = await status(ana.key, queueId);
    expect(final.body).toMatchObject({ applicationStatus: "applied", draftedBy: "Ana Pérez", approvedBy: "Cy Admin", sentBy: "Cy Admin" });
    expect(final.body.freelancerId).toBeTruthy();
    expect(final.body.profileId).toBeTruthy();
    const listed = await app().request("GET", "/api/auto-apply-v2/applied-jobs", { key: cy.key });
    expect(listed.body.jobs[0]).toMatchObject({ queueId, draftedBy: "Ana Pérez", approvedBy: "Cy Admin", sentBy: "Cy Admin" });

    const audit = await auditOf(queueId);
    expect(audit.find((a) => a.action === "request_approval")?.member_id).toBe(ana.member.id);
    expect(audit.find((a) => a.action === "approve")?.member_id).toBe(cy.member.id);
  });

  test("sent back with a comment, the bidder sees it, rewrites the letter and asks again; then it is approved", async () => {
    const { ana, bo, cy } = await team();
    const cipher = await job();
    const queueId = (await post(ana.key, "/api/v1/applications/request-approval", { jobId: cipher, coverLetter: "Hi." })).body.queueId as string;

    // The comment is required (the schema, then the service for a blank one) and only an approver may send back.
    expect((await post(cy.key, `/api/v1/applications/${queueId}/send-back`, { comment: "" })).status).toBe(400);
    const blank = await post(cy.key, `/api/v1/applications/${queueId}/send-back`, { comment: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body.error).toContain("comment:");
    expect((await post(ana.key, `/api/v1/applications/${queueId}/send-back`, { comment: "no" })).status).toBe(403);
    const back = await post(cy.key, `/api/v1/applications/${queueId}/send-back`, { comment: "Name the client's stack, please." });
    expect(back.status, show(back)).toBe(200);
    expect(back.body).toEqual({ queueId, applicationStatus: "processing", held: true });
    // Sent back once, it cannot be sent back again.
    expect((await post(cy.key, `/api/v1/applications/${queueId}/send-back`, { comment: "again" })).status).toBe(409);

    const mine = (await held(ana.key)).body.applications[0];
    expect(mine).toMatchObject({ kind: "returned", reviewComment: "Name the client's stack, please.", why: "Sent back to Ana Pérez for changes." });

    // Only its drafter asks again; with the rewritten letter it waits for approval once more.
    const notHers = await post(bo.key, `/api/v1/applications/${queueId}/request-approval`, { coverLetter: "Mine now" });
    expect(notHers.status).toBe(403);
    expect(notHers.body.error).toContain("Only Ana Pérez");
    const again = await post(ana.key, `/api/v1/applications/${queueId}/request-approval`, { coverLetter: "Hi. I know Rust and Postgres well." });
    expect(again.status, show(again)).toBe(200);
    expect((await post(ana.key, `/api/v1/applications/${queueId}/request-approval`)).status).toBe(409);
    const waiting = (await held(cy.key)).body.applications[0];
    expect(waiting).toMatchObject({ kind: "approval", coverLetter: "Hi. I know Rust and Postgres well.", reviewComment: "Name the client's stack, please." });

    expect((await post(cy.key, `/api/v1/applications/${queueId}/approve`)).status).toBe(200);
    await runDueTasks(app());
    expect((await status(ana.key, queueId)).body).toMatchObject({ applicationStatus: "applied", draftedBy: "Ana Pérez", approvedBy: "Cy Admin" });
    const actions = (await auditOf(queueId)).map((a) => a.action);
    expect(actions.filter((a) => a === "request_approval")).toHaveLength(2);
    expect(actions).toContain("send_back");
    expect(actions).toContain("approve");
  });

  test("only an approval request can be sent back; discarding one releases nothing charged", async () => {
    const { ana, cy } = await team();
    const cipher = await job();
    const queueId = (await post(ana.key, "/api/v1/applications/request-approval", { jobId: cipher, coverLetter: "Hi." })).body.queueId as string;
    const gone = await post(cy.key, `/api/v1/applications/${queueId}/discard`);
    expect(gone.status, show(gone)).toBe(200);
    expect(gone.body.applicationStatus).toBe("failed");
    expect((await accounts.getAccount(app().deps, ana.member.accountId)).creditsHeld).toBe(0);
    expect((await post(cy.key, `/api/v1/applications/${queueId}/send-back`, { comment: "late" })).status).toBe(409);
  });

  test("with the account letting bidders send, a bidder applies directly and is recorded as who sent it", async () => {
    const { acct, ana } = await team();
    await accounts.setBiddersMaySend(app().deps, acct.accountId, true);
    const cipher = await job();
    const sent = await post(ana.key, "/api/auto-apply-v2/apply", { jobId: cipher, coverLetter: "Hello" });
    expect(sent.status, show(sent)).toBe(200);
    await runDueTasks(app());
    expect((await status(ana.key, sent.body.queueId)).body).toMatchObject({
      applicationStatus: "applied",
      draftedBy: "Ana Pérez",
      approvedBy: null,
      sentBy: "Ana Pérez",
    });
  });
});
