import { describe, expect, test } from "bun:test";
import { until } from "../../helpers/poll";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { BLOCK_CLIENT_LABEL } from "../../../src/modules/channels/telegram-actions";
import { BLOCKED_FROM_TELEGRAM } from "../../../src/modules/telegram/actions";
import { show, type TestApp } from "../../helpers/app";
import type { TelegramCall } from "../../helpers/channel-fakes";
import { makeDoc } from "../../helpers/factories";
import { BOT_TOKEN, CHAT, telegramRig } from "../../helpers/telegram-fixture";

// The Block client button under a job alert (issue 45), end to end in process: the real app, deliverer and bot poller
// against the local Telegram fake. Done when a freelancer can block a client from an alert and never see them again.

const rig = telegramRig();
const { addChannel, sentTo, messageIdOf, editsOf, buttons, pressed, bind } = rig;
let t: TestApp;

async function setup() {
  t = await rig.open();
  const account = await t.account({ credits: 5 });
  const channelId = await addChannel(account.apiKey, BOT_TOKEN, CHAT);
  const feed = await t.request("POST", "/api/v1/feeds", { key: account.apiKey, json: { title: "Rust jobs", minScore: 0, channelIds: [channelId] } });
  expect(feed.status, show(feed)).toBe(201);
  rig.runWorkers();
  rig.startBots();
  await bind(account.apiKey, channelId, CHAT);
  return { key: account.apiKey, feedId: feed.body.feed.id as string };
}

/** Ingests the document and waits for its alert. */
async function alertOf(doc: Record<string, unknown>): Promise<{ call: TelegramCall; messageId: number }> {
  const before = sentTo(CHAT).length;
  t.clock.advance(1_500); // past the chat's pace of one alert a second
  await ingestDocuments(t.deps, [doc], { source: "test" });
  await until(() => sentTo(CHAT).length > before, "the alert");
  const call = sentTo(CHAT).at(-1)!;
  return { call, messageId: messageIdOf(call) };
}

const dataOf = (call: TelegramCall, text: string) => buttons(call).find((b) => b.text === text)?.callback_data;

describe("Block client under a Telegram alert", () => {
  test("blocks the job's client with the Telegram reason, says so with an Undo, and the client's next job never arrives", async () => {
    const { key, feedId } = await setup();
    const alert = await alertOf(makeDoc({ title: "Rust backend for a trading desk", companyId: "co-bad" }));
    const block = dataOf(alert.call, BLOCK_CLIENT_LABEL)!;
    expect(block).toMatch(/^b:[0-9a-f-]{36}$/);
    expect(new TextEncoder().encode(block).length).toBeLessThanOrEqual(64);

    expect(await pressed(CHAT, alert.messageId, block)).toMatchObject({ text: "Client blocked: their jobs will not enter your feeds again." });
    await until(() => editsOf(alert.messageId).length === 1, "the edited alert");
    const edited = editsOf(alert.messageId)[0]!;
    expect(edited.body.text).toContain("Rust backend for a trading desk");
    expect(edited.body.text).toContain("🚫 <b>Client blocked</b>");
    expect(buttons(edited).map((b) => b.text)).toEqual(["Undo"]);
    const lists = await t.request("GET", "/api/v1/client-lists", { key });
    expect(lists.body.clients).toMatchObject([{ companyId: "co-bad", list: "blocked", reason: BLOCKED_FROM_TELEGRAM, addedBy: null }]);

    // The client's next job: kept out of the feed, no alert, and listed in the feed's filtered-out view with the reason.
    const sentBefore = sentTo(CHAT).length;
    t.clock.advance(1_500);
    await ingestDocuments(t.deps, [makeDoc({ title: "Another Rust job from them", companyId: "co-bad" })], { source: "test" });
    const other = await alertOf(makeDoc({ title: "Rust job from someone else", companyId: "co-good" }));
    expect(sentTo(CHAT).length).toBe(sentBefore + 1);
    expect(other.call.body.text).toContain("Rust job from someone else");
    const jobs = await t.request("GET", `/api/v1/feeds/${feedId}/jobs`, { key });
    expect(jobs.body.jobs.map((j: { job: { title: string } }) => j.job.title)).not.toContain("Another Rust job from them");
    const filtered = await t.request("GET", `/api/v1/feeds/${feedId}/filtered`, { key });
    expect(filtered.body.jobs).toMatchObject([
      { job: { title: "Another Rust job from them" }, companyId: "co-bad", filter: "blocked-client", reason: `Blocked client: ${BLOCKED_FROM_TELEGRAM}` },
    ]);

    // Undo takes the client off the list and gives the alert its buttons back.
    expect(await pressed(CHAT, alert.messageId, dataOf(edited, "Undo")!)).toMatchObject({ text: "Client unblocked." });
    await until(() => editsOf(alert.messageId).length === 2, "the restored alert");
    const restored = editsOf(alert.messageId)[1]!;
    expect(restored.body.text).not.toContain("Client blocked");
    expect(buttons(restored).map((b) => b.text)).toEqual(["Draft proposal", "Apply", "Not interested", BLOCK_CLIENT_LABEL]);
    expect((await t.request("GET", "/api/v1/client-lists", { key })).body.clients).toEqual([]);
  });

  test("a job whose document names no client has no Block client button", async () => {
    await setup();
    const doc = makeDoc({ title: "Rust job of no known client" });
    ((doc.jobDetailsResponse as any).data.jobPubDetails as Record<string, unknown>).buyer = {};
    const alert = await alertOf(doc);
    expect(buttons(alert.call).map((b) => b.text)).toEqual(["Draft proposal", "Apply", "Not interested"]);
  });
});
