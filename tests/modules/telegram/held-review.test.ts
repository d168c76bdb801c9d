import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { SUBMIT_TASK } from "../../../src/modules/applications/service";
import { submitApplication } from "../../../src/modules/applications/submit.task";
import { autoApplyEntry } from "../../../src/modules/autopilot/auto.task";
import { AUTO_APPLY_TASK } from "../../../src/modules/feeds/admit";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { show, type TestApp } from "../../helpers/app";
import type { TelegramCall } from "../../helpers/channel-fakes";
import { makeDoc } from "../../helpers/factories";
import { until } from "../../helpers/poll";
import { BOT_TOKEN, CHAT, OTHER_CHAT, OTHER_TOKEN, telegramRig } from "../../helpers/telegram-fixture";

// "Waiting for your approval" (application.held, issue 42) on Telegram, end to end in process: a draft-mode feed
// writes a letter for a new match and holds it; its event reaches the chat with Approve / Discard; a press decides it
// through the review API's reviewHeld, and the message says what was decided. The governor is on, as in production.

// In-process delivery, worker and bot: a few seconds on a busy machine, more on PostgreSQL.
setDefaultTimeout(20_000);

const rig = telegramRig();
const { addChannel, sentTo, messageIdOf, editsOf, buttons, pressed, bind } = rig;
let t: TestApp;

async function setup() {
  t = await rig.open({ governor: true });
  const account = await t.account({ credits: 5 });
  const channelId = await addChannel(account.apiKey, BOT_TOKEN, CHAT);
  const feed = await t.request("POST", "/api/v1/feeds", {
    key: account.apiKey,
    json: { title: "Rust drafts", minScore: 0, includes: ["rust"], channelIds: [channelId] },
  });
  expect(feed.status, show(feed)).toBe(201);
  const mode = await t.request("PUT", `/api/v1/automation/feeds/${feed.body.feed.id}`, { key: account.apiKey, json: { applyMode: "draft" } });
  expect(mode.status, show(mode)).toBe(200);
  rig.runWorkers({
    [SUBMIT_TASK]: (p, c) => submitApplication(t.deps, p, c),
    [AUTO_APPLY_TASK]: (p) => autoApplyEntry(t.deps, p),
  });
  const node = rig.startBots();
  return { key: account.apiKey, channelId, node };
}

/** Telegram HTML as the chat shows it: tags gone, entities read back. */
const shown = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** A new match in the draft feed, its letter held: the "Waiting for your approval" message and the job's ciphertext. */
async function heldMessage(title: string): Promise<{ call: TelegramCall; messageId: number; cipher: string }> {
  const doc = makeDoc({ title, skills: ["Rust"] });
  const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  t.clock.advance(1_500);
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const held = () => sentTo(CHAT).find((c) => String(c.body.text).includes("Waiting for your approval") && String(c.body.text).includes(title));
  // The chat's pace (1 a second) runs on the test clock: moved on, the held alert goes after the job's.
  await until(
    () => {
      if (held() !== undefined) return true;
      t.clock.advance(1_100);
      rig.deliverer?.notify();
      return false;
    },
    "the waiting-for-approval message",
    10_000,
  );
  const call = held()!;
  return { call, messageId: messageIdOf(call), cipher };
}

async function statusOf(key: string, cipher: string): Promise<string> {
  const res = await t.request("GET", `/api/auto-apply-v2/status?jobId=${encodeURIComponent(cipher)}`, { key });
  expect(res.status, show(res)).toBe(200);
  return res.body.applicationStatus;
}

describe("a held draft on Telegram", () => {
  test("reaches the chat with Approve / Discard; Approve submits it and the message says so", async () => {
    const { key, channelId } = await setup();
    await bind(key, channelId, CHAT);
    const { call, messageId, cipher } = await heldMessage("Rust backend for a trading desk");

    const held = await t.request("GET", "/api/v1/applications/held", { key });
    expect(held.status, show(held)).toBe(200);
    expect(held.body.applications).toHaveLength(1);
    const queueId = held.body.applications[0].queueId as string;
    expect(held.body.applications[0].kind).toBe("draft");

    const html = String(call.body.text);
    expect(shown(html)).toStartWith("Waiting for your approval: Rust backend for a trading desk — A draft from the feed's draft mode");
    // The letter that would go, whole (it fits), and where to review it.
    expect(shown(html)).toContain(held.body.applications[0].coverLetter);
    expect(html).toContain('<a href="https://jobs.example.com/dashboard/review">Review in jobpilot</a>');
    expect(buttons(call)).toEqual([
      { text: "Approve", callback_data: `ha:${queueId}` },
      { text: "Discard", callback_data: `hd:${queueId}` },
    ]);
    expect(await statusOf(key, cipher)).toBe("processing");

    expect((await pressed(CHAT, messageId, `ha:${queueId}`)).text).toStartWith("Approved");
    await until(() => editsOf(messageId).length > 0, "the approved message");
    const edited = editsOf(messageId)[0]!;
    expect(edited.body.text).toContain("Approved — sending");
    expect(edited.body.text).toContain("Rust backend for a trading desk");
    expect(edited.body.reply_markup).toBeUndefined();
    await until(async () => (await statusOf(key, cipher)) === "applied", "the approved application to be sent", 10_000);
    expect((await t.request("GET", "/api/v1/applications/held", { key })).body.applications).toEqual([]);

    // Pressed again (an old copy of the message): the review's 409, and nothing changes.
    const again = await pressed(CHAT, messageId, `ha:${queueId}`);
    expect(again.show_alert).toBe(true);
    expect(again.text).toContain("not waiting for review");
    expect(await statusOf(key, cipher)).toBe("applied");
  });

  test("Discard ends it unsent and uncharged; another account's chat and forged buttons decide nothing", async () => {
    const { key, channelId, node } = await setup();
    await bind(key, channelId, CHAT);
    const { messageId, cipher } = await heldMessage("Solana smart contract audit in Rust");
    const queueId = (await t.request("GET", "/api/v1/applications/held", { key })).body.applications[0].queueId as string;
    const account = async () => (await t.request("GET", "/api/v1/account", { key })).body.account as { credits: number; creditsHeld: number };
    const before = await account();
    expect(before.creditsHeld).toBe(1); // the draft holds its credit until it is decided

    // Another account binds its own chat on its own bot and presses a copy of the button: not found, as a made-up id.
    const b = await t.account({ name: "other" });
    const bChannel = await addChannel(b.apiKey, OTHER_TOKEN, OTHER_CHAT);
    node.notify();
    await until(() => node.botIds.length === 2, "the other account's bot");
    await bind(b.apiKey, bChannel, OTHER_CHAT, OTHER_TOKEN);
    expect(await pressed(OTHER_CHAT, 1, `ha:${queueId}`, OTHER_TOKEN)).toMatchObject({ text: "application not found", show_alert: true });
    expect(await pressed(CHAT, messageId, `hd:${crypto.randomUUID()}`, BOT_TOKEN)).toMatchObject({ text: "application not found" });
    expect(await pressed(CHAT, messageId, "ha:../../applications", BOT_TOKEN)).toMatchObject({ text: "This button no longer works." });
    expect(await statusOf(key, cipher)).toBe("processing");

    expect((await pressed(CHAT, messageId, `hd:${queueId}`, BOT_TOKEN)).text).toStartWith("Discarded");
    await until(() => editsOf(messageId).length > 0, "the discarded message");
    expect(editsOf(messageId)[0]!.body.text).toContain("Discarded");
    expect(editsOf(messageId)[0]!.body.reply_markup).toBeUndefined();
    expect(await statusOf(key, cipher)).toBe("failed");
    // Released, not charged.
    expect(await account()).toMatchObject({ credits: before.credits + 1, creditsHeld: 0 });
  });
});
