import { afterEach, describe, expect, test } from "bun:test";
import { until } from "../../helpers/poll";
import { rawMany } from "../../../src/db/query";
import { newId } from "../../../src/lib/ids";
import { insertChannel, updateChannel } from "../../../src/modules/channels/repo";
import { sealConfig } from "../../../src/modules/channels/service";
import { TelegramBots } from "../../../src/modules/telegram/poller";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { type FakeTelegram, startFakeTelegram } from "../../helpers/channel-fakes";

// A Telegram bot belongs to one account (issue 38): a token is checked with Telegram's getMe when a channel is
// saved, one account at a time holds a bot, only checked tokens are polled, and a binding code binds a chat
// only on the bot polled with its channel's own token. In process, against the local Telegram fake, on the
// suite's backend.

/** The victim's real bot. Its id, 123456789, is public: anyone can read it off the bot. */
const BOT_TOKEN = "123456789:AAFrealREALrealREALrealREALreal0042";
/** The same bot after its token was made anew at @BotFather (both accepted by the fake). */
const BOT_TOKEN_RENEWED = "123456789:AAFnewNEWnewNEWnewNEWnewNEWnew0042";
/** The victim's bot id with made-up letters: passes the shape check, but Telegram refuses it. */
const MADE_UP_TOKEN = "123456789:AAFfakeFAKEfakeFAKEfakeFAKEfake6666";
/** A bot of another account. */
const OTHER_TOKEN = "555000333:AAFotherOTHERotherOTHERother0042";
const BOT_ID = "123456789";
const VICTIM_CHAT = 4242;
const ATTACKER_CHAT = 6666;
const POLLING = { pollTimeoutS: 1, leaseMs: 60_000, idleMs: 20, maxBackoffMs: 200, refreshMs: 60_000 };

let t: TestApp;
let fake: FakeTelegram;
const bots: TelegramBots[] = [];

afterEach(async () => {
  await Promise.all(bots.splice(0).map((b) => b.stop()));
  await fake?.close();
  await t?.close();
});

async function setup() {
  fake = await startFakeTelegram({ tokens: [BOT_TOKEN, BOT_TOKEN_RENEWED, OTHER_TOKEN] });
  t = await createTestApp({ config: { telegramApiUrl: fake.url, webhookTimeoutMs: 2_000 } });
}

const saveChannel = (key: string, botToken: string, chatId = VICTIM_CHAT, name = "Phone") =>
  t.request("POST", "/api/v1/channels", { key, json: { type: "telegram", name, config: { botToken, chatId } } });

async function savedChannel(key: string, botToken: string, chatId = VICTIM_CHAT): Promise<string> {
  const res = await saveChannel(key, botToken, chatId);
  expect(res.status, show(res)).toBe(201);
  return res.body.channel.id;
}

/** A Telegram channel as it was stored before tokens were checked (no checked bot id), changed at `atTs`. */
async function channelSavedBeforeChecks(accountId: string, botToken: string, chatId: number, atTs: number): Promise<string> {
  const id = newId();
  await insertChannel(t.deps.db, {
    id,
    accountId,
    type: "telegram",
    name: "old",
    configSealed: await sealConfig(t.deps.secretKey!, { botToken, chatId: String(chatId) }),
    createdAtTs: atTs,
    updatedAtTs: atTs,
  });
  return id;
}

const rows = async (sql: string): Promise<Record<string, unknown>[]> => rawMany<Record<string, unknown>>(t.deps.db, sql, sql, []);
const owners = () => rows("SELECT bot_id, account_id FROM telegram_bot_owners ORDER BY bot_id");
const listed = async (key: string) => (await t.request("GET", "/api/v1/channels", { key })).body.channels as { id: string; lastError: string | null }[];

function startBots(): TelegramBots {
  const b = new TelegramBots(t.deps, POLLING);
  bots.push(b);
  b.start();
  return b;
}

const textsTo = (chat: number) =>
  fake
    .callsTo("sendMessage")
    .filter((c) => String(c.body.chat_id) === String(chat))
    .map((c) => String(c.body.text));

/** `chat` writes `text` to the bot whose token is `botToken`. */
function typeIn(chat: number, text: string, botToken = BOT_TOKEN): void {
  fake.pushUpdate({ message: { message_id: 1, date: 0, chat: { id: chat, type: "private", first_name: "Someone" }, text } }, botToken);
}

/** Sends `text` from `chat` and waits for the bot's answer. */
async function answerTo(chat: number, text: string): Promise<string> {
  const before = textsTo(chat).length;
  typeIn(chat, text);
  await until(() => textsTo(chat).length > before, `the answer to ${text}`);
  return textsTo(chat).at(-1)!;
}

async function bindingCommand(key: string, channelId: string): Promise<string> {
  const res = await t.request("POST", `/api/v1/channels/${channelId}/binding-code`, { key });
  expect(res.status, show(res)).toBe(201);
  return res.body.command;
}

describe("a Telegram bot token is checked with Telegram when a channel is saved", () => {
  test("a token Telegram refuses is a 400 naming config.botToken, and nothing is saved", async () => {
    await setup();
    const { apiKey } = await t.account();
    const res = await saveChannel(apiKey, MADE_UP_TOKEN);
    expect(res.status, show(res)).toBe(400);
    expect(res.body.details).toEqual([expect.stringMatching(/^config\.botToken: Telegram does not accept this bot token \(Telegram HTTP 401/)]);
    expect(res.text).not.toContain(MADE_UP_TOKEN);
    expect(fake.callsTo("getMe").map((c) => c.token)).toEqual([MADE_UP_TOKEN]);
    expect(await listed(apiKey)).toEqual([]);
    expect(await owners()).toEqual([]);

    // ok: false with a 200 is a refusal too.
    fake.enqueueFor("getMe", { json: { ok: false, description: "Unauthorized" } });
    expect((await saveChannel(apiKey, BOT_TOKEN)).status).toBe(400);
    expect(await listed(apiKey)).toEqual([]);
  });

  test("the bot id is the one getMe answers, not the number before the token's colon", async () => {
    await setup();
    const { apiKey, accountId } = await t.account();
    fake.enqueueFor("getMe", { json: { ok: true, result: { id: 777000111, is_bot: true, first_name: "b", username: "b_bot" } } });
    const id = await savedChannel(apiKey, BOT_TOKEN);
    expect(await rows("SELECT id, telegram_bot_id FROM channels")).toEqual([{ id, telegram_bot_id: "777000111" }]);
    expect(await owners()).toEqual([{ bot_id: "777000111", account_id: accountId }]);
  });

  test("Telegram unreachable: a 503 saying so, and nothing is saved or changed", async () => {
    await setup();
    const { apiKey } = await t.account();
    fake.enqueueFor("getMe", { status: 502, text: "Bad Gateway" });
    let res = await saveChannel(apiKey, BOT_TOKEN);
    expect(res.status, show(res)).toBe(503);
    expect(res.body).toEqual({ error: "Telegram could not be reached to check config.botToken, so nothing was saved: try again in a moment" });
    fake.enqueueFor("getMe", fake.tooManyRequests(5));
    expect((await saveChannel(apiKey, BOT_TOKEN)).status).toBe(503);
    expect(await listed(apiKey)).toEqual([]);
    expect(await owners()).toEqual([]);

    // A change of token while Telegram is away: refused, the channel as it was. A rename asks Telegram nothing.
    const id = await savedChannel(apiKey, BOT_TOKEN);
    const getMes = fake.callsTo("getMe").length;
    await fake.close();
    res = await t.request("PATCH", `/api/v1/channels/${id}`, { key: apiKey, json: { config: { botToken: BOT_TOKEN_RENEWED } } });
    expect(res.status, show(res)).toBe(503);
    expect(res.body.error).toContain("Telegram could not be reached");
    res = await t.request("PATCH", `/api/v1/channels/${id}`, { key: apiKey, json: { name: "Renamed", config: { chatId: 99 } } });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.channel.config).toEqual({ botToken: "••••0042", chatId: "99" });
    expect(fake.callsTo("getMe")).toHaveLength(getMes);
  });

  test("a changed token is checked too: refused, the stored one stays", async () => {
    await setup();
    const { apiKey } = await t.account();
    const id = await savedChannel(apiKey, BOT_TOKEN);
    const res = await t.request("PATCH", `/api/v1/channels/${id}`, { key: apiKey, json: { config: { botToken: MADE_UP_TOKEN } } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.details[0]).toStartWith("config.botToken: Telegram does not accept this bot token");
    const renewed = await t.request("PATCH", `/api/v1/channels/${id}`, { key: apiKey, json: { config: { botToken: BOT_TOKEN_RENEWED } } });
    expect(renewed.status, show(renewed)).toBe(200);
    expect(fake.callsTo("getMe").map((c) => c.token)).toEqual([BOT_TOKEN, MADE_UP_TOKEN, BOT_TOKEN_RENEWED]);
  });
});

describe("a Telegram bot belongs to one account at a time", () => {
  test("a second account saving the same bot, even with its real token, gets a 409; a second channel of the same account is fine", async () => {
    await setup();
    const a = await t.account({ name: "A" });
    const b = await t.account({ name: "B" });
    await savedChannel(a.apiKey, BOT_TOKEN);
    await savedChannel(a.apiKey, BOT_TOKEN_RENEWED, 31); // same bot, same account
    const res = await saveChannel(b.apiKey, BOT_TOKEN);
    expect(res.status, show(res)).toBe(409);
    expect(res.body.error).toStartWith("This Telegram bot is already connected to another jobpilot account");
    expect(await listed(b.apiKey)).toEqual([]);

    // Nor by changing one of its own channels to that bot.
    const theirs = await savedChannel(b.apiKey, OTHER_TOKEN);
    const moved = await t.request("PATCH", `/api/v1/channels/${theirs}`, { key: b.apiKey, json: { config: { botToken: BOT_TOKEN } } });
    expect(moved.status, show(moved)).toBe(409);
    expect((await t.request("GET", `/api/v1/channels/${theirs}`, { key: b.apiKey })).body.channel.config.botToken).toBe("••••0042");
    expect(await rows(`SELECT telegram_bot_id FROM channels WHERE id = '${theirs}'`)).toEqual([{ telegram_bot_id: "555000333" }]);
    expect(await owners()).toEqual([
      { bot_id: BOT_ID, account_id: a.accountId },
      { bot_id: "555000333", account_id: b.accountId },
    ]);

    // Once A has no channel on the bot any more, B may take it.
    for (const c of await listed(a.apiKey)) expect((await t.request("DELETE", `/api/v1/channels/${c.id}`, { key: a.apiKey })).status).toBe(200);
    expect((await saveChannel(b.apiKey, BOT_TOKEN, 1)).status).toBe(201);
    expect((await saveChannel(a.apiKey, BOT_TOKEN)).status).toBe(409);
    expect((await owners())[0]).toEqual({ bot_id: BOT_ID, account_id: b.accountId });
  });

  test("two accounts saving one bot at the same moment: one gets it, the other a 409", async () => {
    await setup();
    const accounts = await Promise.all([1, 2, 3].map((n) => t.account({ name: `n${n}` })));
    const results = await Promise.all(accounts.flatMap((a) => [saveChannel(a.apiKey, BOT_TOKEN), saveChannel(a.apiKey, BOT_TOKEN_RENEWED)]));
    const statuses = results.map((r) => r.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      JSON.stringify(statuses),
    ).toBe(true);
    const [owner] = await owners();
    const winner = accounts.find((a) => a.accountId === owner!.account_id)!;
    expect(statuses.filter((s) => s === 201)).toHaveLength(2);
    expect((await rows("SELECT DISTINCT account_id FROM channels")).map((r) => r.account_id)).toEqual([winner.accountId]);
  });
});

describe("the takeover of issue 38", () => {
  test("knowing only the victim's bot id, an account can neither save a channel on it, nor poll it, nor bind a chat on it; the victim's chat is still answered", async () => {
    await setup();
    const victim = await t.account({ name: "victim" });
    const attacker = await t.account({ name: "attacker" });
    const victimChannel = await savedChannel(victim.apiKey, BOT_TOKEN);
    const feed = await t.request("POST", "/api/v1/feeds", { key: victim.apiKey, json: { title: "Rust jobs", minScore: 0, channelIds: [victimChannel] } });
    expect(feed.status, show(feed)).toBe(201);
    const node = startBots();
    await until(() => node.botIds.length === 1, "the victim's bot");
    typeIn(VICTIM_CHAT, await bindingCommand(victim.apiKey, victimChannel));
    await until(() => textsTo(VICTIM_CHAT).some((x) => x.includes("now linked")), "the victim's binding");

    // The made-up token behind the victim's bot id is refused; the real one is not the attacker's to use.
    expect((await saveChannel(attacker.apiKey, MADE_UP_TOKEN, ATTACKER_CHAT)).status).toBe(400);
    expect((await saveChannel(attacker.apiKey, BOT_TOKEN, ATTACKER_CHAT)).status).toBe(409);

    // As if the made-up token had got in (saved before tokens were checked, then even given the victim's bot id):
    // the newest change, which used to win the poller.
    t.clock.advance(1_000);
    const squat = await channelSavedBeforeChecks(attacker.accountId, MADE_UP_TOKEN, ATTACKER_CHAT, t.clock.now());
    node.notify();
    await until(async () => (await listed(attacker.apiKey))[0]?.lastError != null, "the squatting channel's check");
    expect((await listed(attacker.apiKey))[0]!.lastError).toStartWith("Telegram does not accept this channel's bot token");
    // The attacker's code, sent from its own chat to the victim's bot, binds nothing.
    expect(await answerTo(ATTACKER_CHAT, await bindingCommand(attacker.apiKey, squat))).not.toContain("now linked");
    // Not even were the squatting channel marked as checked for the victim's bot: the code's channel holds
    // another token than the one the bot is polled with, and its account does not hold the bot.
    await updateChannel(t.deps.db, squat, { telegramBotId: BOT_ID, updatedAtTs: t.clock.now() + 1 });
    node.notify();
    await Bun.sleep(50);
    expect(await answerTo(ATTACKER_CHAT, await bindingCommand(attacker.apiKey, squat))).not.toContain("now linked");
    expect(await rows("SELECT chat_id, account_id FROM telegram_chats")).toEqual([{ chat_id: String(VICTIM_CHAT), account_id: victim.accountId }]);
    expect(fake.callsTo("getUpdates").filter((c) => c.token === MADE_UP_TOKEN)).toEqual([]);

    // The victim's bot still answers the victim's chat, as the victim's account.
    expect(node.botIds).toEqual([BOT_ID]);
    expect(await answerTo(VICTIM_CHAT, "/feeds")).toContain("Rust jobs");
    expect(await answerTo(ATTACKER_CHAT, "/feeds")).toContain("not linked to a jobpilot account");
  });
});

describe("channels saved before tokens were checked", () => {
  test("are still served: the oldest one Telegram accepts takes its bot; a refused token and a later account on the same bot are not polled and say why", async () => {
    await setup();
    const squatter = await t.account({ name: "squatter" });
    const first = await t.account({ name: "first" });
    const second = await t.account({ name: "second" });
    const now = t.clock.now();
    const refused = await channelSavedBeforeChecks(squatter.accountId, MADE_UP_TOKEN, 1, now - 3_000);
    const kept = await channelSavedBeforeChecks(first.accountId, BOT_TOKEN, VICTIM_CHAT, now - 2_000);
    const later = await channelSavedBeforeChecks(second.accountId, BOT_TOKEN_RENEWED, 2, now - 1_000);
    const node = startBots();
    await until(() => node.botIds.length === 1, "the bot's poller");
    await until(() => fake.callsTo("getUpdates").length > 0, "a poll");
    expect(new Set(fake.callsTo("getUpdates").map((c) => c.token))).toEqual(new Set([BOT_TOKEN]));
    expect(await rows("SELECT id, telegram_bot_id FROM channels ORDER BY created_at_ts")).toEqual([
      { id: refused, telegram_bot_id: null },
      { id: kept, telegram_bot_id: BOT_ID },
      { id: later, telegram_bot_id: null },
    ]);
    expect(await owners()).toEqual([{ bot_id: BOT_ID, account_id: first.accountId }]);
    const errors = async (key: string) => (await listed(key)).map((c) => c.lastError);
    expect(await errors(squatter.apiKey)).toEqual([expect.stringContaining("Telegram does not accept this channel's bot token")]);
    expect(await errors(first.apiKey)).toEqual([null]);
    expect(await errors(second.apiKey)).toEqual([expect.stringContaining("connected to another jobpilot account")]);

    // The kept channel's chat binds and is answered.
    typeIn(VICTIM_CHAT, await bindingCommand(first.apiKey, kept));
    await until(() => textsTo(VICTIM_CHAT).some((x) => x.includes("now linked")), "the binding");
  });

  test("while Telegram cannot be reached nothing unchecked is polled; the check is made again after a backoff", async () => {
    await setup();
    const { accountId } = await t.account();
    await channelSavedBeforeChecks(accountId, BOT_TOKEN, VICTIM_CHAT, t.clock.now());
    fake.enqueueFor("getMe", { status: 502, text: "Bad Gateway" });
    const node = startBots();
    await until(() => fake.callsTo("getMe").length === 1, "the first check");
    await Bun.sleep(50);
    expect(node.botIds).toEqual([]);
    t.clock.advance(POLLING.maxBackoffMs);
    node.notify();
    await until(() => node.botIds.length === 1, "the bot, once checked");
    expect(await rows("SELECT telegram_bot_id FROM channels")).toEqual([{ telegram_bot_id: BOT_ID }]);
  });
});
