import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeTelegram, type TelegramCall } from "../helpers/channel-fakes";
import { makeDoc } from "../helpers/factories";
import { startServer } from "../helpers/process";

const ADMIN_TOKEN = "telegram-bot-admin-token-0123";
const CMD = [process.execPath, "run", "src/main.ts", "serve"];
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
const BOT_TOKEN = "123456789:AAFbotTESTbotTESTbotTESTbotTESTbo01";
const CHAT = 77;

async function until(check: () => boolean, what: string, output: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${output()}`);
    await Bun.sleep(20);
  }
}

// `serve` as a person runs it: a Telegram channel added over the API gets its bot polled, the chat binds with
// /start <code>, and Apply under an alert goes through the sandbox marketplace and edits the alert.
describe("serve: interactive Telegram", () => {
  test("bind, alert, Apply: the application is submitted and the alert edited with its outcome", async () => {
    const telegram = await startFakeTelegram();
    const dir = mkdtempSync(join(tmpdir(), "jp-telegram-"));
    const env = {
      JOBPILOT_DB: join(dir, "bot.db"),
      JOBPILOT_SOURCES: "none",
      JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
      JOBPILOT_TELEGRAM_API_URL: telegram.url,
      JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "0",
      LOG_LEVEL: "warn",
    };
    const server = await startServer(CMD, env);
    try {
      const post = async (path: string, headers: Record<string, string>, body?: unknown) =>
        (await (await fetch(`${server.url}${path}`, { method: "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) })).json()) as any;
      const created = await post("/admin/accounts", ADMIN, { name: "bot", credits: 2 });
      const headers = { "x-api-key": created.apiKey as string, "content-type": "application/json" };
      const channel = await post("/api/v1/channels", headers, { type: "telegram", name: "phone", config: { botToken: BOT_TOKEN, chatId: CHAT } });
      expect(channel.channel?.id, JSON.stringify(channel)).toBeString();
      await post("/api/v1/feeds", headers, { title: "all", minScore: 0, channelIds: [channel.channel.id] });
      const code = await post(`/api/v1/channels/${channel.channel.id}/binding-code`, { "x-api-key": created.apiKey });
      expect(code.command).toBe(`/start ${code.code}`);

      const chat = { id: CHAT, type: "private", first_name: "Ann" };
      telegram.pushUpdate({ message: { message_id: 1, date: 0, chat, text: code.command } });
      const sent = () => telegram.callsTo("sendMessage");
      await until(() => sent().some((c) => String(c.body.text).includes("now linked")), "the binding reply", server.output);

      await post("/admin/jobs", ADMIN, [makeDoc({ title: "Telegram e2e job", publishTime: new Date().toISOString() })]);
      await until(() => sent().some((c) => String(c.body.text).includes("Telegram e2e job")), "the alert", server.output);
      const alert = sent().find((c) => String(c.body.text).includes("Telegram e2e job"))!;
      const alertId = sent().indexOf(alert) + 1;
      const apply = (alert.body.reply_markup.inline_keyboard as TelegramCall["body"][][]).flat().find((b) => b.text === "Apply")!;
      telegram.pushUpdate({
        callback_query: { id: "cb-1", from: { id: CHAT }, chat_instance: "1", data: apply.callback_data, message: { message_id: alertId, date: 0, chat } },
      });

      const edits = () => telegram.callsTo("editMessageText").filter((e) => e.body.message_id === alertId);
      await until(() => edits().length > 0, "the alert's edit", server.output);
      expect(edits()[0]!.body.text).toContain("<b>Application:</b> ✅ applied");
      expect(telegram.callsTo("answerCallbackQuery").map((a) => a.body.callback_query_id)).toEqual(["cb-1"]);
      expect(await server.stop()).toBe(0);
    } finally {
      if (server.proc.exitCode === null) server.proc.kill("SIGKILL");
      await telegram.close();
    }
  }, 60_000);
});
