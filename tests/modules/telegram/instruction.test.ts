import { expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { show } from "../../helpers/app";
import type { TelegramCall } from "../../helpers/channel-fakes";
import { makeDoc } from "../../helpers/factories";
import { until } from "../../helpers/poll";
import { BOT_TOKEN, CHAT, OTHER_CHAT, telegramRig } from "../../helpers/telegram-fixture";

// Regenerate with an instruction from a Telegram draft (issue 44): the bot asks with a force-reply, the chat's reply
// is the instruction, and the new letter comes as a new draft, kept with the job's versions like every letter.

const rig = telegramRig();

const rows = (sql: string, ...args: unknown[]) => rawMany<any>(rig.t.deps.db, sql, sql, args);
const textsTo = (chat: number) => rig.sentTo(chat).map((c) => String(c.body.text));
const button = (call: TelegramCall, text: string) => {
  const found = rig.buttons(call).find((b) => b.text === text);
  if (!found) throw new Error(`no button "${text}" in ${JSON.stringify(call.body.reply_markup)}`);
  return found.callback_data;
};

/** `chat` sends `text` as a reply to message `replyTo`. */
function reply(chat: number, replyTo: number, text: string): void {
  rig.fake.pushUpdate({
    message: {
      message_id: 20_000 + rig.fake.calls.length,
      date: 0,
      chat: { id: chat, type: "private", first_name: "Ann" },
      from: { id: chat, is_bot: false, first_name: "Ann" },
      text,
      reply_to_message: { message_id: replyTo, date: 0, chat: { id: chat, type: "private" }, text: "✏️ How should the next letter differ?" },
    },
  });
}

async function draftedAlert() {
  const t = await rig.open();
  const account = await t.account({ credits: 5 });
  const channelId = await rig.addChannel(account.apiKey, BOT_TOKEN, CHAT);
  const feed = await t.request("POST", "/api/v1/feeds", { key: account.apiKey, json: { title: "Rust jobs", minScore: 0, channelIds: [channelId] } });
  expect(feed.status, show(feed)).toBe(201);
  rig.runWorkers();
  rig.startBots();
  await rig.bind(account.apiKey, channelId, CHAT);
  t.clock.advance(1_500);
  const doc = makeDoc({ title: "Rust backend for a Shopify app", skills: ["Rust"] });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  await until(() => textsTo(CHAT).some((x) => x.includes("Rust backend for a Shopify app")), "the alert");
  const alert = rig.sentTo(CHAT).at(-1)!;
  rig.press(CHAT, rig.messageIdOf(alert), button(alert, "Draft proposal"));
  await until(() => textsTo(CHAT).some((x) => x.includes("Cover letter")), "the draft");
  const draft = rig.sentTo(CHAT).at(-1)!;
  const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  return { t, account, channelId, alert, draft, cipher };
}

test("Regenerate with an instruction asks with a force-reply; the reply writes a new draft with it, kept in the versions", async () => {
  const { t, account, alert, draft, cipher } = await draftedAlert();
  expect(rig.buttons(draft).map((b) => b.text)).toEqual(["Apply with this", "Regenerate", "Regenerate with an instruction"]);
  const [first] = await rows("SELECT id, cover_letter FROM telegram_drafts");
  expect(button(draft, "Regenerate with an instruction")).toBe(`ri:${first.id}`);

  const answer = await rig.pressed(CHAT, rig.messageIdOf(draft), button(draft, "Regenerate with an instruction"));
  expect(answer.text).toBe("Reply with your instruction.");
  await until(() => textsTo(CHAT).some((x) => x.includes("How should the next letter differ?")), "the question");
  const question = rig.sentTo(CHAT).at(-1)!;
  expect(question.body.reply_markup).toMatchObject({ force_reply: true, selective: true });
  expect(question.body.reply_parameters).toMatchObject({ message_id: rig.messageIdOf(draft) });
  expect(question.body.text).toContain("at most 500 characters");

  const before = rig.sentTo(CHAT).length;
  reply(CHAT, rig.messageIdOf(question), "  mention the Shopify app  ");
  await until(() => rig.sentTo(CHAT).length > before, "the new draft");
  const again = rig.sentTo(CHAT).at(-1)!;
  expect(again.body.text).toContain("Cover letter");
  expect(again.body.text).toContain("✏️ Instruction: “mention the Shopify app”");
  expect(rig.buttons(again).map((b) => b.text)).toEqual(["Apply with this", "Regenerate", "Regenerate with an instruction"]);
  expect(rig.fake.callsTo("sendChatAction").at(-1)?.body).toMatchObject({ chat_id: String(CHAT), action: "typing" });

  // A new draft beside the first, which keeps its letter (its Apply with this sends what it shows).
  const drafts = await rows("SELECT id, cover_letter, alert_message_id FROM telegram_drafts ORDER BY created_at_ts, id");
  expect(drafts).toHaveLength(2);
  const second = drafts.find((d) => d.id !== first.id)!;
  expect(drafts.find((d) => d.id === first.id)!.cover_letter).toBe(first.cover_letter);
  expect(Number(second.alert_message_id)).toBe(rig.messageIdOf(alert));
  expect(button(again, "Apply with this")).toBe(`w:${second.id}`);
  const versions = await t.request("GET", `/api/v1/jobs/${encodeURIComponent(cipher)}/proposal-versions`, { key: account.apiKey });
  expect(versions.body.versions.map((v: { number: number; instruction: string | null }) => [v.number, v.instruction])).toEqual([
    [2, "mention the Shopify app"],
    [1, null],
  ]);
  expect(versions.body.versions[0].letter).toBe(second.cover_letter);

  // Applying with the new draft sends the new letter.
  rig.press(CHAT, rig.messageIdOf(again), button(again, "Apply with this"));
  await until(async () => (await rows("SELECT status FROM applications WHERE status = 'applied'")).length === 1, "the application");
  const [app] = await rows("SELECT cover_letter FROM applications");
  expect(app.cover_letter).toBe(second.cover_letter);
});

test("a too-long instruction is refused in the chat and writes nothing; replies to other messages, and other chats, are ignored", async () => {
  const { t, account, channelId, draft, cipher } = await draftedAlert();
  rig.press(CHAT, rig.messageIdOf(draft), button(draft, "Regenerate with an instruction"));
  await until(() => textsTo(CHAT).some((x) => x.includes("How should the next letter differ?")), "the question");
  const question = rig.sentTo(CHAT).at(-1)!;
  const versions = async () => (await t.request("GET", `/api/v1/jobs/${encodeURIComponent(cipher)}/proposal-versions`, { key: account.apiKey })).body.versions;

  let before = rig.sentTo(CHAT).length;
  reply(CHAT, rig.messageIdOf(question), "y".repeat(501));
  await until(() => rig.sentTo(CHAT).length > before, "the refusal");
  expect(textsTo(CHAT).at(-1)).toBe("That instruction has 501 characters; at most 500 fit. Reply to the question again with a shorter one.");
  expect(await versions()).toHaveLength(1);
  expect(await rows("SELECT id FROM telegram_drafts")).toHaveLength(1);

  // A reply to the letter itself (not the question) and a plain message are not instructions.
  before = rig.sentTo(CHAT).length;
  reply(CHAT, rig.messageIdOf(draft), "shorter");
  // Another chat of the same account, replying to this chat's question id: not its question.
  await rig.bind(account.apiKey, channelId, OTHER_CHAT);
  reply(OTHER_CHAT, rig.messageIdOf(question), "shorter");
  // The question still works afterwards: the last update is handled after the ones before it.
  reply(CHAT, rig.messageIdOf(question), "shorter");
  await until(
    () =>
      textsTo(CHAT)
        .slice(before)
        .some((x) => x.includes("Cover letter")),
    "the new draft",
  );
  expect(
    textsTo(CHAT)
      .slice(before)
      .filter((x) => x.includes("Cover letter")),
  ).toHaveLength(1);
  expect(textsTo(OTHER_CHAT).filter((x) => x.includes("Cover letter"))).toEqual([]);
  expect((await versions()).map((v: { instruction: string | null }) => v.instruction)).toEqual(["shorter", null]);
});
