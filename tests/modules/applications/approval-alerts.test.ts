/**
 * "Waiting for approval: <job> — drafted by <member>": a bidder's approval request reaches the job's feed channels
 * once per request (Telegram with Approve / Discard, e-mail in words), and not again when nothing new is asked.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import * as accounts from "../../../src/modules/accounts/service";
import { renderAutomationAlert } from "../../../src/modules/channels/render";
import { buildHeldPayload } from "../../../src/modules/feeds/outbox-payload-automation";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import * as members from "../../../src/modules/members/service";
import { show } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { until } from "../../helpers/poll";
import { BOT_TOKEN, CHAT, telegramRig } from "../../helpers/telegram-fixture";

setDefaultTimeout(20_000);

const rig = telegramRig();

const REVIEW = "https://jobs.example.com/dashboard/review";
const approvalPayload = (draftedBy: string | null) =>
  buildHeldPayload({
    eventId: "evt_9",
    createdAtTs: Date.UTC(2026, 11, 1, 10, 0),
    feed: { id: "0195aaaa-0000-7000-8000-000000000001", title: "Rust leads" },
    processedJobId: null,
    application: {
      queueId: "0197bbbb-0000-7000-8000-000000000009",
      job: { ciphertext: "~0123", title: "Rust backend for a trading desk", url: "https://www.upwork.com/jobs/~0123" },
      freelancerId: "~01abc",
      kind: "approval",
      why: "Drafted by Ana Pérez, waiting for approval.",
      draftedBy,
      coverLetter: "Hello, I have built this twice.",
      reviewUrl: REVIEW,
    },
  });

describe("the approval alert", () => {
  test("Telegram and e-mail say who drafted it, with the letter and the review link", () => {
    const telegram = renderAutomationAlert("telegram", approvalPayload("Ana Pérez"), { reviewUrl: REVIEW });
    if (telegram.type !== "telegram") throw new Error("not a telegram message");
    expect(telegram.text).toContain("Waiting for approval: Rust backend for a trading desk — drafted by Ana Pérez");
    expect(telegram.text).toContain("I have built this twice.");
    const email = renderAutomationAlert("email", approvalPayload("Ana Pérez"), { reviewUrl: REVIEW });
    if (email.type !== "email") throw new Error("not an e-mail");
    expect(email.subject).toContain("Waiting for approval: Rust backend for a trading desk — drafted by Ana Pérez");
    expect(email.text).toContain(REVIEW);
    // Without a name (a key of no member) it still reads as a sentence.
    const unnamed = renderAutomationAlert("telegram", approvalPayload(null), { reviewUrl: REVIEW });
    if (unnamed.type !== "telegram") throw new Error("not a telegram message");
    expect(unnamed.text).toContain("— drafted by a member");
  });

  test("a bidder's request reaches the feed's Telegram chat once, with Approve and Discard", async () => {
    const t = await rig.open();
    const owner = await t.account({ kind: "agency", credits: 5 });
    const channelId = await rig.addChannel(owner.apiKey, BOT_TOKEN, CHAT);
    const feed = await t.request("POST", "/api/v1/feeds", {
      key: owner.apiKey,
      json: { title: "Rust jobs", minScore: 0, includes: ["rust"], channelIds: [channelId] },
    });
    expect(feed.status, show(feed)).toBe(201);
    const { member } = await members.createMember(t.deps, {
      accountId: owner.accountId,
      email: "ana@example.com",
      name: "Ana Pérez",
      role: "bidder",
      by: null,
    });
    const { apiKey } = await accounts.createKey(t.deps, owner.accountId, "Ana", { memberId: member.id, role: "bidder" });
    rig.runWorkers();

    const title = "Rust backend for a trading desk";
    const doc = makeDoc({ title, skills: ["Rust"] });
    const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
    await ingestDocuments(t.deps, [doc], { source: "test" });
    const asked = await t.request("POST", "/api/v1/applications/request-approval", {
      key: apiKey,
      json: { jobId: cipher, coverLetter: "Hello, I know Rust." },
    });
    expect(asked.status, show(asked)).toBe(200);

    const waiting = () => rig.sentTo(CHAT).filter((c) => String(c.body.text).includes("Waiting for approval"));
    await until(
      () => {
        if (waiting().length > 0) return true;
        t.clock.advance(1_100);
        rig.deliverer?.notify();
        return false;
      },
      "the waiting-for-approval message",
      10_000,
    );
    const call = waiting()[0]!;
    const text = String(call.body.text).replace(/<[^>]+>/g, "");
    expect(text).toStartWith(`Waiting for approval: ${title} — drafted by Ana Pérez`);
    expect(rig.buttons(call)).toEqual([
      { text: "Approve", callback_data: `ha:${asked.body.queueId}` },
      { text: "Discard", callback_data: `hd:${asked.body.queueId}` },
    ]);
    // One event for the one request (and the one channel), however long we wait.
    const events = await rawMany<{ n: number | string }>(t.deps.db, "test.held", "SELECT count(*) AS n FROM events WHERE type = 'application.held'", []);
    expect(Number(events[0]!.n)).toBe(1);
    t.clock.advance(5_000);
    rig.deliverer?.notify();
    await Bun.sleep(100);
    expect(waiting()).toHaveLength(1);
  });
});
