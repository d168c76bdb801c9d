import { afterEach, expect } from "bun:test";
import { createDeliverer } from "../../src/cli/serve";
import type { Config } from "../../src/config";
import type { Deps } from "../../src/deps";
import { SUBMIT_TASK } from "../../src/modules/applications/service";
import { submitApplication } from "../../src/modules/applications/submit.task";
import { channelSenderOf } from "../../src/modules/delivery/channel-delivery";
import type { WebhookDeliverer } from "../../src/modules/delivery/deliverer";
import { TelegramBots } from "../../src/modules/telegram/poller";
import { editSettledAlert, TELEGRAM_SETTLED_TASK } from "../../src/modules/telegram/settled.task";
import { type TaskHandler, TaskWorker } from "../../src/worker/worker";
import { createTestApp, show, type TestApp } from "./app";
import { type FakeTelegram, startFakeTelegram, type TelegramCall } from "./channel-fakes";
import { until } from "./poll";

// The in-process Telegram rig the interactive Telegram tests share: the real app, deliverer, task worker (sandbox
// marketplace) and bot pollers against the local Telegram fake, torn down after every test.

export const BOT_TOKEN = "123456789:AAFsecretSECRETsecretSECRETsecret0042";
/** Another bot, of another account. */
export const OTHER_TOKEN = "555000222:AAFotherOTHERotherOTHERotherOTHER0042";
export const CHAT = 4242;
export const OTHER_CHAT = 777;
/** Short polls and quick backoff: tests wait for what the bots do. */
export const POLLING = { pollTimeoutS: 1, leaseMs: 60_000, idleMs: 20, maxBackoffMs: 200, refreshMs: 60_000 };

export class TelegramRig {
  t!: TestApp;
  fake!: FakeTelegram;
  deliverer: WebhookDeliverer | undefined;
  worker: TaskWorker | undefined;
  readonly bots: TelegramBots[] = [];
  private pressCount = 0;

  /** The fake Telegram and an app that talks to it (no delivery, worker or bots yet). */
  open = async (config: Partial<Config> = {}): Promise<TestApp> => {
    this.fake = await startFakeTelegram();
    this.t = await createTestApp({
      config: {
        telegramApiUrl: this.fake.url,
        webhookTimeoutMs: 2_000,
        sandboxApplyLatencyMs: 0,
        loggedOutWindowMs: 0,
        publicUrl: "https://jobs.example.com",
        ...config,
      },
    });
    return this.t;
  };

  /** Starts the deliverer and a task worker, both woken by new work; by default the worker submits and edits settled alerts. */
  runWorkers = (handlers?: Record<string, TaskHandler>): void => {
    const t = this.t;
    const deliverer = createDeliverer(t.deps);
    const sender = channelSenderOf(t.deps);
    const worker = new TaskWorker(t.deps, {
      concurrency: 4,
      retryBaseMs: 1,
      retryMaxMs: 5,
      handlers: handlers ?? {
        [SUBMIT_TASK]: (p, c) => submitApplication(t.deps, p, c),
        [TELEGRAM_SETTLED_TASK]: (p) => editSettledAlert(t.deps, sender, p),
      },
    });
    this.deliverer = deliverer;
    this.worker = worker;
    t.deps.work.subscribe(() => {
      this.deliverer?.notify();
      this.worker?.notify();
    });
    deliverer.start();
    worker.start();
  };

  startBots = (deps: Deps = this.t.deps): TelegramBots => {
    const b = new TelegramBots(deps, POLLING);
    this.bots.push(b);
    b.start();
    return b;
  };

  close = async (): Promise<void> => {
    await Promise.all(this.bots.splice(0).map((b) => b.stop()));
    await this.deliverer?.stop();
    await this.worker?.stop();
    this.deliverer = this.worker = undefined;
    await this.fake?.close();
    await this.t?.close();
  };

  addChannel = async (key: string, botToken: string, chatId: number): Promise<string> => {
    const res = await this.t.request("POST", "/api/v1/channels", { key, json: { type: "telegram", name: "Phone", config: { botToken, chatId } } });
    expect(res.status, show(res)).toBe(201);
    return res.body.channel.id;
  };

  sentTo = (chat: number) => this.fake.callsTo("sendMessage").filter((c) => String(c.body.chat_id) === String(chat));
  /** The fake numbers the messages it accepts 1, 2, 3… in the order of the sendMessage calls. */
  messageIdOf = (call: TelegramCall) => this.fake.callsTo("sendMessage").indexOf(call) + 1;
  editsOf = (messageId: number) => this.fake.callsTo("editMessageText").filter((e) => e.body.message_id === messageId);
  buttons = (call: TelegramCall): { text: string; callback_data: string }[] => (call.body.reply_markup?.inline_keyboard ?? []).flat();
  answerOf = (id: string) => this.fake.callsTo("answerCallbackQuery").find((a) => a.body.callback_query_id === id);

  /** Presses a button under message `messageId` in `chat` (on `botToken`'s bot, when given); returns the callback query's id. */
  press = (chat: number, messageId: number, data: string, botToken?: string): string => {
    const id = `cb-${++this.pressCount}`;
    const chatObj = { id: chat, type: "private", first_name: "Ann" };
    this.fake.pushUpdate(
      {
        callback_query: {
          id,
          from: { id: chat, is_bot: false, first_name: "Ann" },
          chat_instance: "1",
          data,
          message: { message_id: messageId, date: 0, chat: chatObj },
        },
      },
      botToken,
    );
    return id;
  };

  /** Presses and waits for the press's answer (every press is answered). */
  pressed = async (chat: number, messageId: number, data: string, botToken?: string) => {
    const id = this.press(chat, messageId, data, botToken);
    await until(() => this.answerOf(id) !== undefined, `the answer to ${data}`);
    return this.answerOf(id)!.body as { text?: string; show_alert?: boolean };
  };

  /** Binds `chat` with a fresh code of the channel, typed to the bot (`botToken`'s, when given). */
  bind = async (key: string, channelId: string, chat: number, botToken?: string): Promise<void> => {
    const code = await this.t.request("POST", `/api/v1/channels/${channelId}/binding-code`, { key });
    expect(code.status, show(code)).toBe(201);
    const before = this.sentTo(chat).length;
    this.fake.pushUpdate(
      {
        message: {
          message_id: 10_000 + this.fake.calls.length,
          date: 0,
          chat: { id: chat, type: "private", first_name: "Ann" },
          from: { id: chat, is_bot: false, first_name: "Ann" },
          text: `/start ${code.body.code}`,
        },
      },
      botToken,
    );
    await until(() => this.sentTo(chat).length > before, "the binding reply");
    expect(String(this.sentTo(chat).at(-1)!.body.text)).toContain("now linked to jobpilot");
  };
}

/** A rig for the test file, closed after each of its tests. */
export function telegramRig(): TelegramRig {
  const rig = new TelegramRig();
  afterEach(() => rig.close());
  return rig;
}
