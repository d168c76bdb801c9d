import { describe, expect, test } from "bun:test";
import { until } from "../../helpers/poll";
import { rawMany } from "../../../src/db/query";
import { escapeHtml } from "../../../src/lib/html";
import type { Config } from "../../../src/config";
import type { Deps } from "../../../src/deps";
import { getAccount } from "../../../src/modules/accounts/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { BINDING_CODE_TTL_MS, redeemBindingCode } from "../../../src/modules/telegram/binding";
import { NOT_BOUND } from "../../../src/modules/telegram/chat";
import { TelegramBots } from "../../../src/modules/telegram/poller";
import { editSettledAlert } from "../../../src/modules/telegram/settled.task";
import { channelSenderOf } from "../../../src/modules/delivery/channel-delivery";
import { show, type TestApp } from "../../helpers/app";
import type { FakeTelegram, TelegramCall } from "../../helpers/channel-fakes";
import { makeDoc } from "../../helpers/factories";
import { BOT_TOKEN, CHAT, OTHER_TOKEN, POLLING, telegramRig } from "../../helpers/telegram-fixture";

// Interactive Telegram end to end, in process: the real app, deliverer, task worker (sandbox marketplace) and
// bot pollers against the local Telegram fake, which scripts what users type and press.

const STRANGER = 999;

const rig = telegramRig();
const { addChannel, startBots, sentTo, messageIdOf, buttons } = rig;
const bots = rig.bots;
let t: TestApp;
let fake: FakeTelegram;

async function setup(opts: { credits?: number; config?: Partial<Config> } = {}) {
  t = await rig.open(opts.config);
  fake = rig.fake;
  const account = await t.account({ credits: opts.credits ?? 5 });
  const channelId = await addChannel(account.apiKey, BOT_TOKEN, CHAT);
  const feed = await t.request("POST", "/api/v1/feeds", { key: account.apiKey, json: { title: "Rust jobs", minScore: 0, channelIds: [channelId] } });
  expect(feed.status, show(feed)).toBe(201);
  rig.runWorkers();
  return { key: account.apiKey, accountId: account.accountId, channelId, feedId: feed.body.feed.id as string };
}

const rows = async (sql: string, ...args: unknown[]): Promise<any[]> =>
  (await rawMany<Record<string, unknown>>(t.deps.db, sql, sql, args)).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v])),
  );

const textsTo = (chat: number) => sentTo(chat).map((c) => String(c.body.text));
const answers = () => fake.callsTo("answerCallbackQuery");

function chatOf(id: number) {
  return { id, type: "private", first_name: id === CHAT ? "Ann" : "Someone" };
}

/** `chat` writes `text` to a bot (`botToken`'s only, when given). */
function typeIn(chat: number, text: string, updateId?: number, botToken?: string): number {
  return fake.pushUpdate(
    {
      ...(updateId === undefined ? {} : { update_id: updateId }),
      message: { message_id: 10_000 + fake.calls.length, date: 0, chat: chatOf(chat), from: { id: chat, is_bot: false, first_name: "Ann" }, text },
    },
    botToken,
  );
}

let pressCount = 0;
/** Presses a button under message `messageId` in `chat`; resolves with the callback query's id. */
function press(chat: number, messageId: number, data: string, botToken?: string): string {
  const id = `cb-${++pressCount}`;
  fake.pushUpdate(
    {
      callback_query: {
        id,
        from: { id: chat, is_bot: false, first_name: "Ann" },
        chat_instance: "1",
        data,
        message: { message_id: messageId, date: 0, chat: chatOf(chat) },
      },
    },
    botToken,
  );
  return id;
}

const answerOf = (id: string) => answers().find((a) => a.body.callback_query_id === id);
const button = (call: TelegramCall, text: string) => {
  const found = buttons(call).find((b) => b.text === text);
  if (!found) throw new Error(`no button "${text}" in ${JSON.stringify(call.body.reply_markup)}`);
  return found.callback_data;
};

async function newCode(key: string, channelId: string): Promise<string> {
  const res = await t.request("POST", `/api/v1/channels/${channelId}/binding-code`, { key });
  expect(res.status, show(res)).toBe(201);
  return res.body.code;
}

/** Binds `chat` with a fresh code of the channel, through the bot (`botToken`'s, when given). */
async function bind(key: string, channelId: string, chat: number, botToken?: string): Promise<void> {
  const before = sentTo(chat).length;
  typeIn(chat, `/start ${await newCode(key, channelId)}`, undefined, botToken);
  await until(() => sentTo(chat).length > before, "the binding reply");
  expect(textsTo(chat).at(-1)).toContain("now linked to jobpilot");
}

/** Ingests a job that matches the feed and waits for its alert; returns the alert's call and message id. */
async function alertFor(title: string): Promise<{ call: TelegramCall; messageId: number }> {
  const before = sentTo(CHAT).length;
  t.clock.advance(1_500); // past the chat's pace of one alert a second
  await ingestDocuments(t.deps, [makeDoc({ title })], { source: "test" });
  await until(() => sentTo(CHAT).length > before, "the alert");
  const call = sentTo(CHAT).at(-1)!;
  expect(call.body.text).toContain(title);
  return { call, messageId: messageIdOf(call) };
}

const creditsOf = async (accountId: string) => (await getAccount(t.deps, accountId)).credits;

describe("interactive telegram", () => {
  test("alert → Draft proposal → Apply with this → the sandbox applies → the alert is edited with the final status", async () => {
    const { key, accountId, channelId } = await setup({ credits: 3 });
    startBots();
    await bind(key, channelId, CHAT);
    const alert = await alertFor("Rust backend for a trading desk");
    expect(buttons(alert.call).map((b) => b.text)).toEqual(["Draft proposal", "Apply", "Not interested", "🚫 Block client"]);
    for (const b of buttons(alert.call)) expect(new TextEncoder().encode(b.callback_data).length).toBeLessThanOrEqual(64);
    const [entry] = await rows("SELECT id FROM feed_jobs");
    expect(button(alert.call, "Draft proposal")).toBe(`d:${entry.id}`);

    const draftPress = press(CHAT, alert.messageId, button(alert.call, "Draft proposal"));
    await until(() => textsTo(CHAT).some((x) => x.includes("Cover letter")), "the draft");
    const draft = sentTo(CHAT).at(-1)!;
    expect(answerOf(draftPress), "the press is answered").toBeDefined();
    expect(draft.body.reply_parameters).toMatchObject({ message_id: alert.messageId });
    expect(draft.body.text).toContain("Rust backend for a trading desk");
    expect(buttons(draft).map((b) => b.text)).toEqual(["Apply with this", "Regenerate", "Regenerate with an instruction"]);
    const [stored] = await rows("SELECT cover_letter FROM telegram_drafts");
    expect(stored.cover_letter.length).toBeGreaterThan(100);
    expect(draft.body.text).toContain(escapeHtml(stored.cover_letter));

    const applyPress = press(CHAT, messageIdOf(draft), button(draft, "Apply with this"));
    await until(() => textsTo(CHAT).some((x) => x.includes("Application queued")), "the queued message");
    expect(answerOf(applyPress)).toBeDefined();
    await until(() => fake.callsTo("editMessageText").some((e) => e.body.message_id === alert.messageId), "the alert's edit", 10_000);
    const edited = fake.callsTo("editMessageText").find((e) => e.body.message_id === alert.messageId)!;
    expect(edited.body).toMatchObject({ chat_id: String(CHAT), parse_mode: "HTML" });
    expect(edited.body.text).toContain("Rust backend for a trading desk");
    expect(edited.body.text).toContain("<b>Application:</b> ✅ applied");
    // The alert's buttons give way to the outcome buttons of a sent proposal (outcome-buttons.test.ts).
    expect(buttons(edited).map((b) => b.text)).toEqual(["Replied", "Interview", "Hired", "Lost"]);

    const [app] = await rows("SELECT status, cover_letter, processed_job_id, auto_fill FROM applications");
    expect(app).toMatchObject({ status: "applied", cover_letter: stored.cover_letter, processed_job_id: entry.id });
    expect(await creditsOf(accountId)).toBe(2);
    await rig.worker!.drain();
    expect(await rows("SELECT kind FROM tasks")).toEqual([]); // the edit task is done, not failed
  });

  test("the alert's edit is retried when Telegram says to wait, and let go when the channel is gone", async () => {
    const { key, channelId } = await setup();
    startBots();
    await bind(key, channelId, CHAT);
    const alert = await alertFor("Rust gRPC gateway");
    fake.enqueueFor("editMessageText", fake.tooManyRequests(1));
    press(CHAT, alert.messageId, button(alert.call, "Apply"));
    await until(() => {
      t.clock.advance(10); // the task's retry comes due
      rig.worker!.notify();
      return fake.callsTo("editMessageText").length === 2;
    }, "the retried edit");
    await rig.worker!.drain();
    expect(fake.callsTo("editMessageText").map((e) => e.body.message_id)).toEqual([alert.messageId, alert.messageId]);
    expect(await rows("SELECT kind FROM tasks")).toEqual([]);

    const [app] = await rows("SELECT id FROM applications");
    const sender = channelSenderOf(t.deps);
    const task = { botId: "123456789", chatId: String(CHAT), channelId: "gone", alertMessageId: alert.messageId, feedJobId: "x", applicationId: app.id };
    await editSettledAlert(t.deps, sender, task);
    expect(fake.callsTo("editMessageText")).toHaveLength(2);
  });

  test("Regenerate rewrites the draft in place; Apply from the alert writes a letter and applies; Not interested marks the job read", async () => {
    const { key, channelId, feedId } = await setup();
    startBots();
    await bind(key, channelId, CHAT);
    const alert = await alertFor("Data pipeline in Rust and Kafka");
    press(CHAT, alert.messageId, button(alert.call, "Draft proposal"));
    await until(() => textsTo(CHAT).some((x) => x.includes("Cover letter")), "the draft");
    const draft = sentTo(CHAT).at(-1)!;
    const [first] = await rows("SELECT id, cover_letter, effort FROM telegram_drafts");
    press(CHAT, messageIdOf(draft), button(draft, "Regenerate"));
    await until(() => fake.callsTo("editMessageText").length > 0, "the regenerated draft");
    const [second] = await rows("SELECT id, cover_letter, effort FROM telegram_drafts");
    expect(second.id).toBe(first.id);
    expect(second.effort).not.toBe(first.effort);
    expect(second.cover_letter).not.toBe(first.cover_letter);
    const regenerated = fake.callsTo("editMessageText")[0]!;
    expect(regenerated.body.message_id).toBe(messageIdOf(draft));
    expect(buttons(regenerated).map((b) => b.text)).toEqual(["Apply with this", "Regenerate", "Regenerate with an instruction"]);

    const other = await alertFor("Kubernetes operator in Go");
    press(CHAT, other.messageId, button(other.call, "Apply"));
    await until(() => textsTo(CHAT).some((x) => x.includes("Application queued")), "the queued message");
    await until(async () => (await rows("SELECT status FROM applications WHERE status = 'applied'")).length === 1, "the application");

    const notInterested = press(CHAT, alert.messageId, button(alert.call, "Not interested"));
    await until(() => answerOf(notInterested) !== undefined, "the answer");
    expect(answerOf(notInterested)!.body.text).toBe("Marked as read in “Rust jobs”.");
    const jobs = await t.request("GET", `/api/v1/feeds/${feedId}/jobs`, { key });
    const byTitle = Object.fromEntries(jobs.body.jobs.map((j: { job: { title: string }; read: boolean }) => [j.job.title, j.read]));
    expect(byTitle).toEqual({ "Data pipeline in Rust and Kafka": true, "Kubernetes operator in Go": false });
  });

  test("a draft under a running experiment names its arm, is the arm's letter, and its application is analysed under that arm", async () => {
    const { key, channelId } = await setup();
    startBots();
    await bind(key, channelId, CHAT);
    // No feedId: an experiment for every feed, which a Telegram draft joins without being told (docs/experiments.md, rule 4).
    const created = await t.request("POST", "/api/v1/experiments", {
      key,
      json: {
        name: "Fixed letters",
        arms: [
          { name: "Plain", template: "Hello, I can build {{title}} for you and start this week with a short plan of the first steps." },
          { name: "Warm", template: "Hi there, {{title}} is the kind of work I enjoy most; I can start this week and share a plan." },
        ],
      },
    });
    expect(created.status, show(created)).toBe(201);
    const alert = await alertFor("Rust CLI for log search");
    press(CHAT, alert.messageId, button(alert.call, "Draft proposal"));
    await until(() => textsTo(CHAT).some((x) => x.includes("Cover letter")), "the draft");
    const draft = sentTo(CHAT).at(-1)!;
    const [assignment] = await rows("SELECT a.arm_id, m.name FROM experiment_assignments a JOIN experiment_arms m ON m.id = a.arm_id");
    expect(draft.body.text).toContain(`🧪 Experiment “Fixed letters”: arm “${assignment.name}”, picked at random for this job.`);
    const template = created.body.experiment.arms.find((a: { name: string }) => a.name === assignment.name).template as string;
    expect(draft.body.text).toContain(escapeHtml(template.replace("{{title}}", "Rust CLI for log search")));

    press(CHAT, messageIdOf(draft), button(draft, "Apply with this"));
    await until(async () => (await rows("SELECT status FROM applications WHERE status = 'applied'")).length === 1, "the application");
    const [app] = await rows("SELECT experiment_id, arm_id, edited_by_hand FROM applications");
    expect(app).toMatchObject({ experiment_id: created.body.experiment.id, arm_id: assignment.arm_id });
    expect(Boolean(app.edited_by_hand)).toBe(false);
    const results = await t.request("GET", `/api/v1/experiments/${created.body.experiment.id}`, { key });
    expect(results.body.experiment.arms.map((a: { name: string; sent: number }) => [a.name, a.sent])).toContainEqual([assignment.name, 1]);
  });

  test("an unbound chat, or a chat bound to another account, is refused and nothing changes", async () => {
    const { key, accountId, channelId, feedId } = await setup();
    const node = startBots();
    await bind(key, channelId, CHAT);
    const alert = await alertFor("Solana smart contract audit");
    const data = button(alert.call, "Apply");

    // A stranger's chat presses a copy of the button, and types commands.
    const stranger = press(STRANGER, 1, data);
    await until(() => answerOf(stranger) !== undefined, "the refusal");
    expect(answerOf(stranger)!.body).toMatchObject({ text: NOT_BOUND, show_alert: true });
    typeIn(STRANGER, "/mute 1");
    typeIn(STRANGER, "/feeds");
    await until(() => sentTo(STRANGER).length === 2, "two refusals");
    for (const text of textsTo(STRANGER)) expect(text).toContain("not linked to a jobpilot account");
    expect(sentTo(STRANGER).every((c) => c.body.reply_markup === undefined)).toBe(true);

    // Another account binds its own chat on its own bot (a bot is one account's), and presses A's ids there:
    // its account has no such feed job.
    const b = await t.account({ name: "other" });
    const bChannel = await addChannel(b.apiKey, OTHER_TOKEN, 777);
    node.notify();
    await until(() => node.botIds.length === 2, "the other account's bot");
    await bind(b.apiKey, bChannel, 777, OTHER_TOKEN);
    const other = press(777, 1, data, OTHER_TOKEN);
    await until(() => answerOf(other) !== undefined, "the other account's answer");
    expect(answerOf(other)!.body).toMatchObject({ text: "This job is not in your feeds any more.", show_alert: true });
    // A's draft, pressed in B's chat: B has no such draft.
    press(CHAT, alert.messageId, button(alert.call, "Draft proposal"), BOT_TOKEN);
    await until(() => textsTo(CHAT).some((x) => x.includes("Cover letter")), "A's draft");
    const draftPress = press(777, 1, button(sentTo(CHAT).at(-1)!, "Apply with this"), OTHER_TOKEN);
    await until(() => answerOf(draftPress) !== undefined, "the draft answer");
    expect(answerOf(draftPress)!.body.text).toBe("This draft is no longer available: press Draft proposal under the alert again.");
    const mute = press(777, 1, `m:${feedId}`, OTHER_TOKEN);
    await until(() => answerOf(mute) !== undefined, "the mute answer");
    expect(answerOf(mute)!.body.text).toBe("This feed no longer exists.");

    await Bun.sleep(50);
    expect(await rows("SELECT id FROM applications")).toEqual([]);
    expect(await rows("SELECT account_id FROM telegram_drafts")).toEqual([{ account_id: accountId }]);
    expect(await creditsOf(accountId)).toBe(5);
    const feed = await t.request("GET", `/api/v1/feeds/${feedId}`, { key });
    expect(feed.body.feed.notificationsMuted).toBe(false);
    expect(sentTo(777).slice(1)).toEqual([]); // only its binding reply
  });

  test("binding: a valid code binds once; an expired, a reused and another bot's code bind nothing", async () => {
    const { key, accountId, channelId } = await setup();
    startBots();

    const created = await t.request("POST", `/api/v1/channels/${channelId}/binding-code`, { key });
    expect(created.status, show(created)).toBe(201);
    expect(created.body).toEqual({
      code: expect.stringMatching(/^[A-Z2-9]{10}$/),
      expiresAt: t.clock.now() + BINDING_CODE_TTL_MS,
      command: `/start ${created.body.code}`,
    });
    // Stored hashed only.
    const [stored] = await rows("SELECT code_hash, account_id FROM telegram_binding_codes");
    expect(stored.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await rows("SELECT * FROM telegram_binding_codes"))).not.toContain(created.body.code);

    // Another bot's code: made for the channel of BOT_TOKEN, it binds nothing on another bot.
    expect(
      await redeemBindingCode(t.deps, { id: "987654321", token: "987654321:AAFotherOTHERotherOTHERother0042" }, { id: "555", title: null }, created.body.code),
    ).toEqual({
      ok: false,
      reason: "unknown",
    });

    // Lower case works too: the code is for people to type.
    typeIn(CHAT, `/start ${created.body.code.toLowerCase()}`);
    await until(() => sentTo(CHAT).length === 1, "the binding reply");
    expect(textsTo(CHAT)[0]).toContain("now linked to jobpilot (channel “Phone”)");
    expect(await rows("SELECT bot_id, chat_id, account_id, channel_id, title FROM telegram_chats")).toEqual([
      { bot_id: 123456789, chat_id: CHAT, account_id: accountId, channel_id: channelId, title: "Ann" },
    ]);

    // Reused by another chat: refused.
    typeIn(STRANGER, `/start ${created.body.code}`);
    await until(() => sentTo(STRANGER).length === 1, "the refusal");
    expect(textsTo(STRANGER)[0]).toContain("This code is not valid");

    // Expired.
    const late = await newCode(key, channelId);
    t.clock.advance(BINDING_CODE_TTL_MS + 1);
    typeIn(STRANGER, `/start ${late}`);
    await until(() => sentTo(STRANGER).length === 2, "the refusal");
    expect(textsTo(STRANGER)[1]).toContain("This code has expired");
    typeIn(STRANGER, "/status");
    await until(() => sentTo(STRANGER).length === 3, "the refusal");
    expect(textsTo(STRANGER)[2]).toContain("not linked");
    expect(await rows("SELECT chat_id FROM telegram_chats")).toEqual([{ chat_id: CHAT }]);

    // The bound chats, listed and unbound through the API; other kinds have none.
    const chats = await t.request("GET", `/api/v1/channels/${channelId}/chats`, { key });
    expect(chats.body).toEqual({ chats: [{ chatId: String(CHAT), title: "Ann", boundAt: expect.any(Number) }] });
    const gone = await t.request("DELETE", `/api/v1/channels/${channelId}/chats/${CHAT}`, { key });
    expect(gone.body).toEqual({ deleted: true, chatId: String(CHAT) });
    expect(await rows("SELECT chat_id FROM telegram_chats")).toEqual([]);
  });

  test("binding-code API: 404 for another account's or a missing channel, 400 for a channel of another kind", async () => {
    const { key, channelId } = await setup();
    const b = await t.account({ name: "other" });
    expect((await t.request("POST", `/api/v1/channels/${channelId}/binding-code`, { key: b.apiKey })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/channels/${channelId}/chats`, { key: b.apiKey })).status).toBe(404);
    expect((await t.request("POST", "/api/v1/channels/nope/binding-code", { key })).status).toBe(404);
    const ntfy = await t.request("POST", "/api/v1/channels", { key, json: { type: "ntfy", name: "n", config: { topic: "jobs" } } });
    const res = await t.request("POST", `/api/v1/channels/${ntfy.body.channel.id}/binding-code`, { key });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error).toContain("telegram channels only");
    expect((await t.request("DELETE", `/api/v1/channels/${channelId}/chats/1`, { key })).status).toBe(404);
    expect(await rows("SELECT * FROM telegram_binding_codes")).toEqual([]);
  });

  test("/feeds lists the feeds with toggles; /mute and /unmute by number or title change the feed; /help", async () => {
    const { key, feedId } = await setup();
    const second = await t.request("POST", "/api/v1/feeds", { key, json: { title: "Go <jobs>", minScore: 0 } });
    startBots();
    await bind(key, (await t.request("GET", "/api/v1/channels", { key })).body.channels[0].id, CHAT);
    const muted = async (id: string) => (await t.request("GET", `/api/v1/feeds/${id}`, { key })).body.feed.notificationsMuted;

    typeIn(CHAT, "/feeds");
    await until(() => textsTo(CHAT).some((x) => x.includes("Your feeds")), "the list");
    const list = sentTo(CHAT).at(-1)!;
    expect(list.body.text).toBe("<b>Your feeds</b>\n1. Rust jobs — 🔔 alerts on\n2. Go &lt;jobs&gt; — 🔔 alerts on");
    expect(buttons(list)).toEqual([
      { text: "Mute 1. Rust jobs", callback_data: `m:${feedId}` },
      { text: "Mute 2. Go <jobs>", callback_data: `m:${second.body.feed.id}` },
    ]);

    typeIn(CHAT, "/mute 1");
    await until(() => textsTo(CHAT).some((x) => x.includes("Muted “Rust jobs”")), "the mute reply");
    expect(await muted(feedId)).toBe(true);
    typeIn(CHAT, "/unmute rust JOBS");
    await until(() => textsTo(CHAT).some((x) => x.includes("Unmuted “Rust jobs”")), "the unmute reply");
    expect(await muted(feedId)).toBe(false);
    typeIn(CHAT, `/mute ${second.body.feed.id}`);
    await until(() => textsTo(CHAT).some((x) => x.includes("Muted “Go &lt;jobs&gt;”")), "the mute by id");
    expect(await muted(second.body.feed.id)).toBe(true);
    typeIn(CHAT, "/mute 7");
    await until(() => textsTo(CHAT).some((x) => x.includes("There is no feed 7")), "the refusal");
    typeIn(CHAT, "/unmute o");
    await until(() => textsTo(CHAT).some((x) => x.includes("Several feeds match")), "the ambiguity");

    // The toggle under /feeds: the feed changes and the list is redrawn in place.
    const toggle = press(CHAT, messageIdOf(list), button(list, "Mute 1. Rust jobs"));
    await until(() => answerOf(toggle) !== undefined && fake.callsTo("editMessageText").length > 0, "the toggle");
    expect(answerOf(toggle)!.body.text).toBe("Muted “Rust jobs”.");
    expect(await muted(feedId)).toBe(true);
    const redrawn = fake.callsTo("editMessageText")[0]!;
    expect(redrawn.body.text).toBe("<b>Your feeds</b>\n1. Rust jobs — 🔕 muted\n2. Go &lt;jobs&gt; — 🔕 muted");
    expect(buttons(redrawn).map((b) => b.text)).toEqual(["Unmute 1. Rust jobs", "Unmute 2. Go <jobs>"]);

    typeIn(CHAT, "/help@jobpilot_test_bot");
    typeIn(CHAT, "/help@some_other_bot");
    typeIn(CHAT, "hello there");
    typeIn(CHAT, "/status");
    await until(() => textsTo(CHAT).some((x) => x.includes("No applications today")), "the status");
    const tail = textsTo(CHAT).slice(-2);
    expect(tail[0]).toContain("/mute &lt;feed&gt;"); // one help: the other bot's command and the chatter are ignored
    expect(tail[1]).toBe("No applications today (since 00:00 UTC).\nCredits left: 5.");
  });

  test("/status lists today's applications and their statuses", async () => {
    const { key } = await setup({ credits: 4 });
    startBots();
    await bind(key, (await t.request("GET", "/api/v1/channels", { key })).body.channels[0].id, CHAT);
    const alert = await alertFor("Embedded Rust firmware");
    press(CHAT, alert.messageId, button(alert.call, "Apply"));
    await until(async () => (await rows("SELECT id FROM applications WHERE status = 'applied'")).length === 1, "the application");
    typeIn(CHAT, "/status");
    await until(() => textsTo(CHAT).some((x) => x.includes("Today's applications")), "the status");
    expect(textsTo(CHAT).at(-1)).toBe(
      "<b>Today's applications</b> (since 00:00 UTC): 1 — 1 ✅ applied\n• Embedded Rust firmware — ✅ applied\n\nCredits left: 3.",
    );
  });

  test("402: Apply without credits is said in the chat, and nothing is queued", async () => {
    const { key, accountId } = await setup({ credits: 0 });
    startBots();
    await bind(key, (await t.request("GET", "/api/v1/channels", { key })).body.channels[0].id, CHAT);
    const alert = await alertFor("Rust CLI tool");
    const pressed = press(CHAT, alert.messageId, button(alert.call, "Apply"));
    await until(() => textsTo(CHAT).some((x) => x.includes("Not enough auto-apply credits")), "the 402 message");
    expect(answerOf(pressed)).toBeDefined();
    expect(textsTo(CHAT).at(-1)).toBe("Not enough auto-apply credits to apply (0 available). Add credits in jobpilot, then press Apply again.");
    expect(await rows("SELECT id FROM applications")).toEqual([]);
    expect(await creditsOf(accountId)).toBe(0);
  });

  test("409: applying twice to one job is said in the chat", async () => {
    const { key } = await setup();
    startBots();
    await bind(key, (await t.request("GET", "/api/v1/channels", { key })).body.channels[0].id, CHAT);
    const alert = await alertFor("Rust WASM plugin");
    press(CHAT, alert.messageId, button(alert.call, "Apply"));
    await until(() => textsTo(CHAT).some((x) => x.includes("Application queued")), "the first application");
    press(CHAT, alert.messageId, button(alert.call, "Apply"));
    await until(() => textsTo(CHAT).some((x) => x.startsWith("Not applied: This job was already applied to")), "the 409 message");
    expect(await rows("SELECT id FROM applications")).toHaveLength(1);
  });

  test("a model that fails is said in the chat, and no draft is kept", async () => {
    const { key, channelId } = await setup({
      config: { openaiApiKey: "sk-test", openaiBaseUrl: "http://127.0.0.1:9/v1", aiMaxRetries: 0, aiTimeoutMs: 1_000 },
    });
    startBots();
    await bind(key, channelId, CHAT);
    const alert = await alertFor("Rust GUI app");
    press(CHAT, alert.messageId, button(alert.call, "Draft proposal"));
    await until(() => textsTo(CHAT).some((x) => x.startsWith("Proposal generation failed")), "the model's failure");
    expect(textsTo(CHAT).at(-1)).toBe("Proposal generation failed: the model server could not be reached");
    expect(await rows("SELECT id FROM telegram_drafts")).toEqual([]);
  });

  test("an error of jobpilot's own is said in the chat and logged, and the bot goes on", async () => {
    const { key, channelId } = await setup();
    startBots();
    await bind(key, channelId, CHAT);
    const alert = await alertFor("Rust GUI app");
    const freelancers = t.deps.drivers.sandbox.freelancers;
    // A bug: the driver answers something that is not a list (a driver that cannot answer is the next test's).
    t.deps.drivers.sandbox.freelancers = async () => null as never;
    const pressed = press(CHAT, alert.messageId, button(alert.call, "Apply"));
    await until(() => textsTo(CHAT).some((x) => x.startsWith("Something went wrong")), "the apology");
    expect(answerOf(pressed)).toBeDefined();
    await until(() => t.log.records().some((r) => r.msg === "telegram update could not be handled; passed over"), "the error in the log");
    expect(await rows("SELECT id FROM applications")).toEqual([]);
    t.deps.drivers.sandbox.freelancers = freelancers;
    press(CHAT, alert.messageId, button(alert.call, "Apply"));
    await until(() => textsTo(CHAT).some((x) => x.includes("Application queued")), "the application");
  });

  test("a marketplace driver that cannot list the freelancers now is said in the chat with its reason, and nothing is queued", async () => {
    const { key, channelId } = await setup();
    startBots();
    await bind(key, channelId, CHAT);
    const alert = await alertFor("Rust GUI app");
    t.deps.drivers.sandbox.freelancers = async () => {
      throw new Error("the submitter is unreachable");
    };
    press(CHAT, alert.messageId, button(alert.call, "Apply"));
    await until(() => textsTo(CHAT).some((x) => x.includes("freelancers now: the submitter is unreachable")), "the reason");
    expect(await rows("SELECT id FROM applications")).toEqual([]);
  });

  test("the update offset persists: after a restart a redelivered update is not handled again", async () => {
    const { key, channelId } = await setup();
    const first = startBots();
    await bind(key, channelId, CHAT);
    typeIn(CHAT, "/status", 500);
    await until(() => textsTo(CHAT).some((x) => x.includes("No applications today")), "the status");
    await until(async () => (await rows("SELECT update_offset FROM telegram_bots"))[0]?.update_offset === 501, "the stored offset");
    await first.stop();
    bots.splice(bots.indexOf(first), 1);

    // Telegram sends again what it saw no confirmation of, and something new.
    typeIn(CHAT, "/status", 500);
    typeIn(CHAT, "/help", 501);
    const before = sentTo(CHAT).length;
    startBots();
    await until(() => textsTo(CHAT).some((x) => x.includes("/mute &lt;feed&gt;")), "the help");
    await Bun.sleep(100);
    expect(sentTo(CHAT).length - before).toBe(1);
    expect(fake.callsTo("getUpdates").at(-1)!.body.offset).toBe(502);
  });

  test("one poller per bot: two channels of one bot share it, and a second node waits for the lease, then takes over", async () => {
    const { key } = await setup();
    await addChannel(key, BOT_TOKEN, 777); // same bot, a second channel of the same account
    const nodeA = startBots();
    await until(() => nodeA.botIds.length === 1, "node A's poller");
    expect(nodeA.botIds).toEqual(["123456789"]);
    const nodeB = startBots({ ...t.deps, nodeId: "node-b" } as Deps);
    await until(() => nodeB.botIds.length === 1, "node B's poller");
    await Bun.sleep(300);
    const failures = () => t.log.records().filter((r) => String((r.err as { message?: string } | undefined)?.message ?? r.msg).includes("getUpdates failed"));
    expect(failures()).toEqual([]); // no 409: one poll at a time
    expect(await rows("SELECT holder FROM cluster_claims WHERE name = 'telegram-bot:123456789'")).toEqual([{ holder: t.deps.nodeId }]);

    await nodeA.stop();
    bots.splice(bots.indexOf(nodeA), 1);
    await until(async () => (await rows("SELECT holder FROM cluster_claims WHERE name = 'telegram-bot:123456789'"))[0]?.holder === "node-b", "node B's lease");
    typeIn(CHAT, "/help");
    await until(() => sentTo(CHAT).length === 1, "node B answers");
    expect(failures()).toEqual([]);
    void key;
  });

  test("the pollers follow the channels: a new bot is polled, a deleted channel's bot let go; test alerts carry no buttons", async () => {
    const { key, channelId } = await setup();
    const watcher = new TelegramBots(t.deps, { ...POLLING, refreshMs: 20 });
    bots.push(watcher);
    watcher.start();
    await until(() => watcher.botIds.length === 1, "the first bot");
    const second = await addChannel(key, "555000111:AAFsecondSECONDsecondSECONDsecond01", 31);
    await until(() => watcher.botIds.length === 2, "the second bot");
    expect(watcher.botIds.sort()).toEqual(["123456789", "555000111"]);
    expect((await t.request("DELETE", `/api/v1/channels/${channelId}`, { key })).status).toBe(200);
    await until(() => watcher.botIds.length === 1, "the first bot let go");
    expect(watcher.botIds).toEqual(["555000111"]);
    expect(await rows("SELECT name FROM cluster_claims WHERE name LIKE 'telegram-bot:%'")).toEqual([{ name: "telegram-bot:555000111" }]);

    const sample = await t.request("POST", `/api/v1/channels/${second}/test`, { key });
    expect(sample.body.ok, show(sample)).toBe(true);
    expect(sentTo(31)[0]!.body.reply_markup).toBeUndefined(); // the sample job is in no feed: nothing to act on
  });

  test("a network failure is backed off and survived", async () => {
    const { key, channelId } = await setup();
    fake.enqueueFor("getUpdates", { status: 502, text: "Bad Gateway" }, { status: 502, text: "Bad Gateway" });
    startBots();
    await bind(key, channelId, CHAT);
    expect(t.log.records().filter((r) => String((r.err as { message?: string } | undefined)?.message).includes("getUpdates failed"))).toHaveLength(2);
  });
});
