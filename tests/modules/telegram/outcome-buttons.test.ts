import { describe, expect, test } from "bun:test";
import { until } from "../../helpers/poll";
import { rawMany } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { ApplicationFunnel } from "../../../src/modules/applications/model";
import { NOT_BOUND } from "../../../src/modules/telegram/chat";
import { outcomeKeyboard, stageLabel } from "../../../src/modules/telegram/outcomes";
import { show, type TestApp } from "../../helpers/app";
import type { TelegramCall } from "../../helpers/channel-fakes";
import { makeDoc } from "../../helpers/factories";
import { BOT_TOKEN, CHAT, OTHER_CHAT, OTHER_TOKEN, telegramRig } from "../../helpers/telegram-fixture";

// The outcome buttons under an applied alert (issue 40), end to end in process: the real app, deliverer, task worker
// (sandbox marketplace) and bot poller against the local Telegram fake. A press records through the funnel's own
// recordOutcome; what it wrote is read back through GET /api/v1/applications/{queueId}/funnel.

const rig = telegramRig();
const { addChannel, sentTo, messageIdOf, editsOf, buttons, press, pressed, bind } = rig;
let t: TestApp;

async function setup() {
  t = await rig.open();
  const account = await t.account({ credits: 5 });
  const channelId = await addChannel(account.apiKey, BOT_TOKEN, CHAT);
  const feed = await t.request("POST", "/api/v1/feeds", { key: account.apiKey, json: { title: "Rust jobs", minScore: 0, channelIds: [channelId] } });
  expect(feed.status, show(feed)).toBe(201);
  rig.runWorkers();
  const node = rig.startBots();
  return { key: account.apiKey, channelId, node };
}

/** A matched job's alert, Apply pressed under it, the sandbox's answer in: the applied alert (its last edit) and the queue id. */
async function appliedAlert(title: string): Promise<{ messageId: number; queueId: string; edit: TelegramCall }> {
  const before = sentTo(CHAT).length;
  t.clock.advance(1_500);
  await ingestDocuments(t.deps, [makeDoc({ title })], { source: "test" });
  await until(() => sentTo(CHAT).length > before, "the alert");
  const alert = sentTo(CHAT).at(-1)!;
  const messageId = messageIdOf(alert);
  press(CHAT, messageId, buttons(alert).find((b) => b.text === "Apply")!.callback_data);
  await until(() => editsOf(messageId).length > 0, "the applied alert", 10_000);
  const [app] = await rawMany<{ id: string; status: string }>(t.deps.db, "q", "SELECT id, status FROM applications ORDER BY applied_at_ts DESC", []);
  expect(app!.status).toBe("applied");
  return { messageId, queueId: app!.id, edit: editsOf(messageId).at(-1)! };
}

const funnel = async (key: string, queueId: string) => {
  const res = await t.request("GET", `/api/v1/applications/${queueId}/funnel`, { key });
  expect(res.status, show(res)).toBe(200);
  return res.body;
};

describe("outcome buttons under the applied alert", () => {
  test("the applied alert carries Replied / Interview / Hired / Lost; presses record forward and redraw the alert", async () => {
    const { key, channelId } = await setup();
    await bind(key, channelId, CHAT);
    const { messageId, queueId, edit } = await appliedAlert("Rust backend for a trading desk");
    expect(edit.body.text).toContain("<b>Application:</b> ✅ applied");
    expect(edit.body.text).not.toContain("Outcome:");
    expect(buttons(edit).map((b) => b.text)).toEqual(["Replied", "Interview", "Hired", "Lost"]);
    expect(buttons(edit).map((b) => b.callback_data)).toEqual([`or:${queueId}`, `oi:${queueId}`, `oh:${queueId}`, `ol:${queueId}`]);
    for (const b of buttons(edit)) expect(new TextEncoder().encode(b.callback_data).length).toBeLessThanOrEqual(64);

    expect(await pressed(CHAT, messageId, `or:${queueId}`)).toMatchObject({ text: "Recorded: the client replied." });
    await until(() => editsOf(messageId).length === 2, "the redrawn alert");
    const replied = editsOf(messageId)[1]!;
    expect(replied.body.text).toContain("Rust backend for a trading desk");
    expect(replied.body.text).toContain("<b>Outcome:</b> 💬 replied");
    expect(buttons(replied).map((b) => b.text)).toEqual(["Interview", "Hired", "Lost"]);
    const afterReply = await funnel(key, queueId);
    expect(afterReply.stages.replied).toBeNumber();
    expect(afterReply.inConversation).toBe(true);
    expect(afterReply.outcome).toBeNull();

    // Hired: no value under a button; the answer sends the user to the dashboard for it.
    t.clock.advance(60_000);
    const hired = await pressed(CHAT, messageId, `oh:${queueId}`);
    expect(hired.text).toContain("hired");
    expect(hired.text).toContain("dashboard");
    await until(() => editsOf(messageId).length === 3, "the hired alert");
    expect(editsOf(messageId)[2]!.body.text).toContain("<b>Outcome:</b> 🎉 hired");
    expect(buttons(editsOf(messageId)[2]!).map((b) => b.text)).toEqual(["Lost"]);
    expect(await funnel(key, queueId)).toMatchObject({ outcome: "hired", valueUsd: null, stages: { replied: afterReply.stages.replied } });

    // Lost is final: the alert keeps no buttons.
    expect(await pressed(CHAT, messageId, `ol:${queueId}`)).toMatchObject({ text: "Recorded: lost." });
    await until(() => editsOf(messageId).length === 4, "the lost alert");
    expect(editsOf(messageId)[3]!.body.text).toContain("<b>Outcome:</b> ❌ lost");
    expect(editsOf(messageId)[3]!.body.reply_markup).toBeUndefined();
    expect((await funnel(key, queueId)).outcome).toBe("lost");
  });

  test("a backwards press answers with the funnel's refusal and changes nothing", async () => {
    const { key, channelId } = await setup();
    await bind(key, channelId, CHAT);
    const { messageId, queueId } = await appliedAlert("Kubernetes operator in Go");
    await pressed(CHAT, messageId, `oi:${queueId}`);
    await until(() => editsOf(messageId).length === 2, "the interview alert");
    expect(buttons(editsOf(messageId)[1]!).map((b) => b.text)).toEqual(["Hired", "Lost"]);
    const before = await funnel(key, queueId);

    // An old copy of the alert's Replied button, pressed after the interview.
    const answer = await pressed(CHAT, messageId, `or:${queueId}`);
    expect(answer.show_alert).toBe(true);
    expect(answer.text).toStartWith("This proposal is already at interview");
    expect(answer.text).toContain("backwards");
    expect(answer.text!.length).toBeLessThanOrEqual(200);
    await Bun.sleep(50);
    expect(editsOf(messageId)).toHaveLength(2);
    expect(await funnel(key, queueId)).toEqual(before);
  });

  test("a chat of another account, an unbound chat and forged buttons record nothing", async () => {
    const { key, channelId, node } = await setup();
    await bind(key, channelId, CHAT);
    const { messageId, queueId } = await appliedAlert("Solana smart contract audit");
    const before = await funnel(key, queueId);

    // Another account binds its own chat on its own bot and presses a copy of A's button: not found, as a made-up id.
    const b = await t.account({ name: "other" });
    const bChannel = await addChannel(b.apiKey, OTHER_TOKEN, OTHER_CHAT);
    node.notify();
    await until(() => node.botIds.length === 2, "the other account's bot");
    await bind(b.apiKey, bChannel, OTHER_CHAT, OTHER_TOKEN);
    expect(await pressed(OTHER_CHAT, 1, `or:${queueId}`, OTHER_TOKEN)).toMatchObject({ text: "Application not found", show_alert: true });
    expect(await pressed(OTHER_CHAT, 1, `oh:${queueId}`, OTHER_TOKEN)).toMatchObject({ text: "Application not found", show_alert: true });
    // A chat no account bound.
    expect(await pressed(999, messageId, `or:${queueId}`, BOT_TOKEN)).toMatchObject({ text: NOT_BOUND, show_alert: true });
    // Forged data in A's own chat, on A's bot (with two bots polling, an update for no bot in particular may go to
    // either): a made-up id, an id that is not one, an action that does not exist, data over the 64 bytes.
    expect(await pressed(CHAT, messageId, `or:${crypto.randomUUID()}`, BOT_TOKEN)).toMatchObject({ text: "Application not found" });
    expect(await pressed(CHAT, messageId, "or:../../applications", BOT_TOKEN)).toMatchObject({ text: "This button no longer works." });
    expect(await pressed(CHAT, messageId, `ox:${queueId}`, BOT_TOKEN)).toMatchObject({ text: "This button no longer works." });
    expect(await pressed(CHAT, messageId, `or:${queueId}${"x".repeat(40)}`, BOT_TOKEN)).toMatchObject({ text: "This button no longer works." });

    await Bun.sleep(50);
    expect(await funnel(key, queueId)).toEqual(before);
    expect(editsOf(messageId)).toHaveLength(1); // only the applied edit
    expect(rig.fake.callsTo("editMessageText").filter((e) => String(e.body.chat_id) !== String(CHAT))).toEqual([]);
  });

  test("the buttons left open follow the stage reached; an application never sent has none", () => {
    const base = {
      queueId: "0190f0f0-0000-7000-8000-000000000000",
      applicationStatus: "applied",
      stages: { sent: 1, viewed: null, replied: null, interview: null, hired: null },
      inConversation: false,
      outcome: null,
      outcomeAt: null,
      valueUsd: null,
      connectsRequired: null,
      boostConnects: null,
      connectsCostUsd: null,
      note: null,
    } as ApplicationFunnel;
    const texts = (f: ApplicationFunnel) =>
      outcomeKeyboard(f)
        ?.inline_keyboard.flat()
        .map((b) => b.text) ?? null;
    expect(texts(base)).toEqual(["Replied", "Interview", "Hired", "Lost"]);
    expect(texts({ ...base, stages: { ...base.stages, viewed: 2 } })).toEqual(["Replied", "Interview", "Hired", "Lost"]);
    expect(texts({ ...base, outcome: "no_reply" })).toEqual(["Replied", "Interview", "Hired", "Lost"]);
    expect(texts({ ...base, stages: { ...base.stages, viewed: 2, replied: 2 } })).toEqual(["Interview", "Hired", "Lost"]);
    expect(texts({ ...base, stages: { ...base.stages, viewed: 2, replied: 2, interview: 3 } })).toEqual(["Hired", "Lost"]);
    expect(texts({ ...base, outcome: "hired", stages: { ...base.stages, viewed: 2, replied: 2, hired: 3 } })).toEqual(["Lost"]);
    expect(texts({ ...base, outcome: "lost", stages: { ...base.stages, viewed: 2, replied: 2, hired: 3 } })).toBeNull();
    expect(texts({ ...base, outcome: "withdrawn" })).toBeNull();
    expect(texts({ ...base, applicationStatus: "not_available", stages: { ...base.stages, sent: null } })).toBeNull();
    expect(stageLabel({ ...base, outcome: "lost", stages: { ...base.stages, hired: 3 } })).toBe("❌ lost");
    expect(stageLabel(base)).toBeNull();
  });
});
