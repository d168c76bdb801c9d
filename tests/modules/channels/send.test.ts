import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock";
import type { EgressPolicy } from "../../../src/lib/ssrf";
import type { EmailConfig } from "../../../src/modules/channels/kinds/email";
import { redactSecrets } from "../../../src/modules/channels/kinds/http";
import type { SendDeps } from "../../../src/modules/channels/kinds/kind";
import { telegramCall } from "../../../src/modules/channels/kinds/telegram";
import type { ChannelTarget } from "../../../src/modules/channels/model";
import { renderAlert } from "../../../src/modules/channels/render";
import { channelEgress, checkChannelDestination, sendMessage } from "../../../src/modules/channels/send";
import {
  type FakeNtfy,
  type FakeSmtp,
  type FakeTelegram,
  type FakeWebhookPlatform,
  startFakeDiscord,
  startFakeNtfy,
  startFakeSlack,
  startFakeSmtp,
  startFakeTelegram,
  startSilentServer,
} from "../../helpers/channel-fakes";
import { DASHBOARD_JOB_URL, fullPayload, NOW } from "./fixtures";

const TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9";
const OPEN: EgressPolicy = { allowPrivate: true, allowlist: [] };
const STRICT: EgressPolicy = { allowPrivate: false, allowlist: [] };
const ctx = { dashboardJobUrl: DASHBOARD_JOB_URL, nowTs: NOW };

let telegram: FakeTelegram;
let slack: FakeWebhookPlatform;
let discord: FakeWebhookPlatform;
let ntfy: FakeNtfy;
let smtp: FakeSmtp;

beforeAll(async () => {
  [telegram, slack, discord, ntfy, smtp] = await Promise.all([
    startFakeTelegram(),
    startFakeSlack(),
    startFakeDiscord(),
    startFakeNtfy(),
    startFakeSmtp({ users: { "alerts@example.com": "p@ss w0rd!" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([telegram.close(), slack.close(), discord.close(), ntfy.close(), smtp.close()]);
});

function deps(over: Partial<SendDeps> = {}): SendDeps {
  return { timeoutMs: 2_000, settings: { telegramApiUrl: telegram.url }, egress: OPEN, clock: new ManualClock(NOW), ...over };
}

const telegramChannel = (chatId = "42"): ChannelTarget => ({ type: "telegram", config: { botToken: TOKEN, chatId } });
const send = (channel: ChannelTarget, d: SendDeps = deps()) => sendMessage(channel, renderAlert(channel.type, fullPayload(), ctx), d);

/** An outcome's error must not give away any of these. */
function expectNoSecrets(error: string | null, ...secrets: string[]) {
  expect(error).not.toBeNull();
  for (const secret of secrets) expect(error!).not.toContain(secret);
}

describe("Telegram", () => {
  test("sends the alert in HTML parse mode with link previews off and returns the message id", async () => {
    const before = telegram.callsTo("sendMessage").length;
    const outcome = await send(telegramChannel("-1001234567890"));
    expect(outcome).toEqual({ ok: true, statusCode: 200, retryAfterMs: null, error: null, isRetryable: false, messageId: expect.stringMatching(/^\d+$/) });
    const call = telegram.callsTo("sendMessage")[before]!;
    expect(call.token).toBe(TOKEN);
    expect(call.body).toMatchObject({ chat_id: "-1001234567890", parse_mode: "HTML", link_preview_options: { is_disabled: true } });
    expect(call.body.text).toStartWith("<b>UX audit of our SaaS dashboard</b>");
    expect(call.body.reply_markup).toBeUndefined();
  });

  test("passes inline buttons through as reply_markup", async () => {
    const markup = { inline_keyboard: [[{ text: "Apply", callback_data: "apply:1" }]] };
    const message = { ...renderAlert("telegram", fullPayload(), ctx), replyMarkup: markup };
    const outcome = await sendMessage(telegramChannel(), message, deps());
    expect(outcome.ok).toBe(true);
    expect(telegram.callsTo("sendMessage").at(-1)!.body.reply_markup).toEqual(markup);
  });

  test("a 429 gives parameters.retry_after as retryAfterMs", async () => {
    telegram.enqueueFor("sendMessage", telegram.tooManyRequests(7));
    const outcome = await send(telegramChannel());
    expect(outcome).toMatchObject({ ok: false, statusCode: 429, retryAfterMs: 7000, isRetryable: true });
    expect(outcome.error).toContain("Too Many Requests");
    expectNoSecrets(outcome.error, TOKEN);
  });

  test("a 5xx is retryable; a refusal (chat not found, bot blocked) is not", async () => {
    telegram.enqueueFor("sendMessage", { status: 502, text: "Bad Gateway" });
    expect(await send(telegramChannel())).toMatchObject({ ok: false, statusCode: 502, retryAfterMs: null, isRetryable: true });
    telegram.enqueueFor("sendMessage", { status: 400, json: { ok: false, error_code: 400, description: "Bad Request: chat not found" } });
    const refused = await send(telegramChannel());
    expect(refused).toMatchObject({ ok: false, statusCode: 400, isRetryable: false, error: "Telegram HTTP 400: Bad Request: chat not found" });
  });

  test("a group upgraded to a supergroup: the error names the new chat id", async () => {
    telegram.enqueueFor("sendMessage", {
      status: 400,
      json: {
        ok: false,
        error_code: 400,
        description: "Bad Request: group chat was upgraded to a supergroup chat",
        parameters: { migrate_to_chat_id: -1009876543210 },
      },
    });
    expect((await send(telegramChannel("-12345"))).error).toContain("-1009876543210");
  });

  test("the token never appears in an error, even when the server echoes it", async () => {
    telegram.enqueueFor("sendMessage", {
      status: 401,
      json: { ok: false, error_code: 401, description: `Unauthorized: ${TOKEN} /bot${encodeURIComponent(TOKEN)}/x` },
    });
    const outcome = await send(telegramChannel());
    expect(outcome).toMatchObject({ ok: false, statusCode: 401, isRetryable: false });
    expectNoSecrets(outcome.error, TOKEN, encodeURIComponent(TOKEN), TOKEN.split(":")[1]!);
    expect(outcome.error).toContain("[redacted]");
  });

  test("no answer within the timeout: retryable, no status", async () => {
    telegram.enqueueFor("sendMessage", { delayMs: 400, json: { ok: true, result: { message_id: 1 } } });
    const outcome = await send(telegramChannel(), deps({ timeoutMs: 100 }));
    expect(outcome).toEqual({ ok: false, statusCode: null, retryAfterMs: null, error: "no answer within 100 ms", isRetryable: true });
  });

  test("a refused connection is retryable and names no token", async () => {
    const closed = await startFakeTelegram();
    const url = closed.url;
    await closed.close();
    const outcome = await send(telegramChannel(), deps({ settings: { telegramApiUrl: url } }));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, isRetryable: true });
    expect(outcome.error).toStartWith("connection failed");
    expectNoSecrets(outcome.error, TOKEN);
  });

  test("telegramCall reaches any method and hands back its result (getUpdates with the offset honoured)", async () => {
    const first = telegram.pushUpdate({ message: { message_id: 5, chat: { id: 42 }, text: "/start" } });
    telegram.pushUpdate({ message: { message_id: 6, chat: { id: 42 }, text: "/status" } });
    const all = await telegramCall(deps(), TOKEN, "getUpdates", { offset: 0, timeout: 0 });
    expect(all.ok).toBe(true);
    expect((all.result as { update_id: number }[]).map((u) => u.update_id)).toEqual([first, first + 1]);
    const rest = await telegramCall(deps(), TOKEN, "getUpdates", { offset: first + 1, timeout: 0 });
    expect((rest.result as { message: { text: string } }[]).map((u) => u.message.text)).toEqual(["/status"]);
    const answered = await telegramCall(deps(), TOKEN, "answerCallbackQuery", { callback_query_id: "q1", text: "Queued" });
    expect(answered).toMatchObject({ ok: true, result: true });
  });
});

describe("the Telegram fake's getUpdates (for the bot's poller)", () => {
  const token = "555000555:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9";

  test("a long poll waits for an update and returns as soon as one is pushed", async () => {
    const started = performance.now();
    const poll = telegramCall(deps({ timeoutMs: 5_000 }), token, "getUpdates", { offset: 1_000_000, timeout: 3 });
    await Bun.sleep(50);
    const id = telegram.pushUpdate({ update_id: 1_000_000, callback_query: { id: "q1", data: "apply:1" } });
    const outcome = await poll;
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((outcome.result as { update_id: number }[]).map((u) => u.update_id)).toEqual([id]);
  });

  test("an empty long poll ends after its timeout with no updates", async () => {
    const outcome = await telegramCall(deps({ timeoutMs: 5_000 }), token, "getUpdates", { offset: 2_000_000, timeout: 0.2 });
    expect(outcome).toMatchObject({ ok: true, result: [] });
  });

  test("a second poller of the same bot ends the first with 409 Conflict, as Telegram does", async () => {
    const first = telegramCall(deps({ timeoutMs: 5_000 }), token, "getUpdates", { offset: 3_000_000, timeout: 2 });
    await Bun.sleep(50);
    const second = telegramCall(deps({ timeoutMs: 5_000 }), token, "getUpdates", { offset: 3_000_000, timeout: 0.1 });
    expect(await first).toMatchObject({ ok: false, statusCode: 409, isRetryable: false });
    expect((await second).ok).toBe(true);
  });
});

describe("Slack", () => {
  const channel = (): ChannelTarget => ({ type: "slack", config: { webhookUrl: slack.webhookUrl } });

  test("posts the Block Kit body", async () => {
    const before = slack.received.length;
    expect(await send(channel())).toEqual({ ok: true, statusCode: 200, retryAfterMs: null, error: null, isRetryable: false });
    const posted = slack.received[before]!;
    expect(posted.body.blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: "UX audit of our SaaS dashboard", emoji: false } });
    expect(posted.headers["content-type"]).toBe("application/json");
  });

  test("a 429 gives the Retry-After header as retryAfterMs", async () => {
    slack.enqueue(slack.tooManyRequests(3));
    expect(await send(channel())).toMatchObject({ ok: false, statusCode: 429, retryAfterMs: 3000, isRetryable: true, error: "Slack HTTP 429: rate_limited" });
  });

  test("a removed webhook (404 no_service) is not retryable; a 500 is", async () => {
    slack.enqueue({ status: 404, text: "no_service" }, { status: 500, text: "" });
    expect(await send(channel())).toMatchObject({ ok: false, statusCode: 404, isRetryable: false, error: "Slack HTTP 404: no_service" });
    expect(await send(channel())).toMatchObject({ ok: false, statusCode: 500, isRetryable: true, error: "Slack HTTP 500" });
  });

  test("the webhook URL never appears in an error", async () => {
    const path = new URL(slack.webhookUrl).pathname;
    slack.enqueue({ status: 400, text: `invalid_payload for ${slack.webhookUrl} (${path.split("/").at(-1)})` });
    const outcome = await send(channel());
    expectNoSecrets(outcome.error, slack.webhookUrl, path, path.split("/").at(-1)!);
  });

  test("timeout", async () => {
    slack.enqueue({ delayMs: 400, text: "ok" });
    expect(await send(channel(), deps({ timeoutMs: 100 }))).toMatchObject({ ok: false, statusCode: null, error: "no answer within 100 ms", isRetryable: true });
  });
});

describe("Discord", () => {
  const channel = (): ChannelTarget => ({ type: "discord", config: { webhookUrl: discord.webhookUrl } });

  test("posts with ?wait=true and returns the message id", async () => {
    const before = discord.received.length;
    const outcome = await send(channel());
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, messageId: expect.stringMatching(/^\d+$/) });
    const posted = discord.received[before]!;
    expect(posted.query).toEqual({ wait: "true" });
    expect(posted.body.allowed_mentions).toEqual({ parse: [] });
    expect(posted.body.embeds).toHaveLength(1);
  });

  test("a 429 gives the body's fractional retry_after as retryAfterMs (not the rounded header)", async () => {
    discord.enqueue(discord.tooManyRequests(1.25));
    expect(await send(channel())).toMatchObject({ ok: false, statusCode: 429, retryAfterMs: 1250, isRetryable: true });
  });

  test("Discord's own message names the problem; the URL and its token never appear", async () => {
    const token = discord.webhookUrl.split("/").at(-1)!;
    discord.enqueue({ status: 404, json: { message: `Unknown Webhook ${token}`, code: 10015 } });
    const outcome = await send(channel());
    expect(outcome).toMatchObject({ ok: false, statusCode: 404, isRetryable: false });
    expect(outcome.error).toStartWith("Discord HTTP 404: Unknown Webhook");
    expectNoSecrets(outcome.error, discord.webhookUrl, token);
  });

  test("a 503 is retryable; a timeout too", async () => {
    discord.enqueue({ status: 503, json: { message: "upstream" } }, { delayMs: 400, status: 204 });
    expect(await send(channel())).toMatchObject({ ok: false, statusCode: 503, isRetryable: true });
    expect(await send(channel(), deps({ timeoutMs: 100 }))).toMatchObject({ ok: false, statusCode: null, isRetryable: true });
  });
});

describe("ntfy", () => {
  const channel = (token: string | null = null, topic = "jobs"): ChannelTarget => ({ type: "ntfy", config: { serverUrl: ntfy.url, topic, token } });

  test("publishes JSON to the server root with the topic, the access token as a bearer, and returns the id", async () => {
    const before = ntfy.received.length;
    const outcome = await send(channel("tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2"));
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, messageId: expect.stringMatching(/^msg\d+$/) });
    const posted = ntfy.received[before]!;
    expect(posted.path).toBe("/");
    expect(posted.headers.authorization).toBe("Bearer tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2");
    expect(posted.body).toMatchObject({ topic: "jobs", priority: 4, tags: ["briefcase"], click: fullPayload().url });
  });

  test("a protected topic without the right token: 403, not retryable, the token not in the error", async () => {
    ntfy.protectTopic("private", "tk_right_token_000000000000000");
    const outcome = await send(channel("tk_wrong_token_000000000000000", "private"));
    expect(outcome).toMatchObject({ ok: false, statusCode: 403, isRetryable: false, error: "ntfy HTTP 403: forbidden" });
    ntfy.enqueue({ status: 401, json: { error: "unauthorized: token tk_wrong_token_000000000000000 unknown" } });
    expectNoSecrets((await send(channel("tk_wrong_token_000000000000000", "private"))).error, "tk_wrong_token_000000000000000");
  });

  test("a 429 gives Retry-After as retryAfterMs, an HTTP date too", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0));
    ntfy.enqueue({ status: 429, json: { error: "limit reached" }, headers: { "retry-after": "Thu, 15 Jan 2026 12:00:09 GMT" } });
    expect(await send(channel(), deps({ clock }))).toMatchObject({ ok: false, statusCode: 429, retryAfterMs: 9000, isRetryable: true });
  });

  test("a server on a private address is refused under the default policy, before any request", async () => {
    const before = ntfy.received.length;
    const outcome = await send(channel(), deps({ egress: STRICT }));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, isRetryable: false });
    expect(outcome.error).toStartWith("blocked: ");
    expect(ntfy.received.length).toBe(before);
  });
});

describe("e-mail", () => {
  const config = (over: Partial<EmailConfig> = {}): EmailConfig => ({
    smtpUrl: smtp.smtpUrl("alerts@example.com", "p@ss w0rd!"),
    from: "jobpilot <alerts@example.com>",
    to: "me@example.com, partner@example.org",
    ...over,
  });

  test("arrives multipart (text and HTML) with the alert's subject, from the login, to every recipient", async () => {
    const before = smtp.messages.length;
    const message = renderAlert("email", fullPayload(), ctx);
    const outcome = await sendMessage({ type: "email", config: config() }, message, deps());
    expect(outcome).toMatchObject({ ok: true, statusCode: 250, error: null, messageId: expect.stringMatching(/^<.+@.+>$/) });
    const mail = smtp.messages[before]!;
    expect(mail.user).toBe("alerts@example.com");
    expect(mail.contentType).toBe("multipart/alternative");
    expect(mail.subject).toBe(message.subject);
    expect(mail.text.trim()).toBe(message.text);
    expect(mail.html).toBe(message.html);
    expect(mail.from).toBe("alerts@example.com");
    expect(mail.to).toEqual(["me@example.com", "partner@example.org"]);
    expect(mail.envelope.to).toEqual(["me@example.com", "partner@example.org"]);
    // RFC 3834: marked as written by a machine, so out-of-office replies stay away.
    expect(mail.parsed.headers.get("auto-submitted")).toBe("auto-generated");
  });

  test("a 4xx SMTP reply is retryable, a 5xx is not", async () => {
    smtp.rejectNext(451, "Temporary local problem");
    const temporary = await send({ type: "email", config: config() });
    expect(temporary).toMatchObject({ ok: false, statusCode: 451, isRetryable: true });
    expect(temporary.error).toContain("Temporary local problem");
    smtp.rejectNext(550, "Mailbox unavailable");
    expect(await send({ type: "email", config: config() })).toMatchObject({ ok: false, statusCode: 550, isRetryable: false });
  });

  test("a refused login is not retryable, and the password is not in the error", async () => {
    const outcome = await send({ type: "email", config: config({ smtpUrl: smtp.smtpUrl("alerts@example.com", "wrong-password-123") }) });
    expect(outcome).toMatchObject({ ok: false, statusCode: 535, isRetryable: false });
    expectNoSecrets(outcome.error, "wrong-password-123");
  });

  test("a server that never greets: timeout, retryable", async () => {
    const silent = await startSilentServer();
    try {
      const outcome = await send({ type: "email", config: config({ smtpUrl: `smtp://127.0.0.1:${silent.port}` }) }, deps({ timeoutMs: 200 }));
      expect(outcome).toMatchObject({ ok: false, statusCode: null, isRetryable: true });
    } finally {
      await silent.close();
    }
  });

  test("an SMTP server on a private address is refused under the default policy, before connecting", async () => {
    const before = smtp.messages.length;
    const outcome = await send({ type: "email", config: config() }, deps({ egress: STRICT }));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, isRetryable: false });
    expect(outcome.error).toStartWith("blocked: ");
    expectNoSecrets(outcome.error, "p@ss w0rd!", encodeURIComponent("p@ss w0rd!"));
    expect(smtp.messages.length).toBe(before);
  });

  test("allowPrivateNetwork does not open loopback: the local server is still refused at send time, before connecting", async () => {
    const before = smtp.messages.length;
    const outcome = await send({ type: "email", config: config({ allowPrivateNetwork: true }) }, deps({ egress: STRICT }));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, isRetryable: false });
    expect(outcome.error).toContain("loopback");
    expect(smtp.messages.length).toBe(before);
  });
});

describe("channelEgress (a channel's own private-network opt-in)", () => {
  const email = (allow: boolean): ChannelTarget => ({
    type: "email",
    config: { smtpUrl: "smtp://mail.lan:25", from: "a@example.com", to: "b@example.com", ...(allow ? { allowPrivateNetwork: true as const } : {}) },
  });
  test("adds the LAN ranges to the allowlist only for a channel that asks, and only for ntfy and e-mail", () => {
    const base: EgressPolicy = { allowPrivate: false, allowlist: ["hooks.internal"] };
    expect(channelEgress(email(false), base)).toBe(base);
    expect(channelEgress(telegramChannel(), base)).toBe(base);
    const widened = channelEgress(email(true), base);
    expect(widened.allowPrivate).toBe(false);
    expect(widened.allowlist).toEqual(["hooks.internal", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"]);
  });

  test("a LAN SMTP server is refused with a hint naming the switch, and allowed with it; loopback, link-local and metadata stay refused", async () => {
    const at = (address: string) => async () => [address];
    const refused = await checkChannelDestination(email(false), STRICT, at("192.168.1.20"));
    expect(refused).toMatchObject({ ok: false, field: "config.smtpUrl" });
    expect((refused as { message: string }).message).toContain("turn on config.allowPrivateNetwork");
    expect(await checkChannelDestination(email(true), STRICT, at("192.168.1.20"))).toEqual({ ok: true });
    expect(await checkChannelDestination(email(true), STRICT, at("100.101.102.103"))).toEqual({ ok: true });
    expect(await checkChannelDestination(email(true), STRICT, at("fd12:3456::25"))).toEqual({ ok: true });
    for (const address of ["127.0.0.1", "169.254.169.254", "fe80::1", "0.0.0.0", "::1"]) {
      const still = await checkChannelDestination(email(true), STRICT, at(address));
      expect(still, address).toMatchObject({ ok: false, field: "config.smtpUrl" });
      // The switch is on and would not help: no hint to turn it on.
      expect((still as { message: string }).message, address).not.toContain("allowPrivateNetwork");
      const without = await checkChannelDestination(email(false), STRICT, at(address));
      expect((without as { message: string }).message, address).not.toContain("allowPrivateNetwork");
    }
    // The operator's server-wide setting still opens everything.
    expect(await checkChannelDestination(email(false), OPEN, at("127.0.0.1"))).toEqual({ ok: true });
  });
});

describe("checkChannelDestination (at save time)", () => {
  test("ntfy and SMTP servers on private addresses are refused naming the field; allowed by the policy; other kinds need no check", async () => {
    const ntfyChannel: ChannelTarget = { type: "ntfy", config: { serverUrl: "http://127.0.0.1:8080", topic: "t", token: null } };
    const email: ChannelTarget = { type: "email", config: { smtpUrl: "smtp://10.0.0.5:25", from: "a@example.com", to: "b@example.com" } };
    const refusedNtfy = await checkChannelDestination(ntfyChannel, STRICT);
    expect(refusedNtfy).toMatchObject({ ok: false, field: "config.serverUrl" });
    expect((refusedNtfy as { message: string }).message).toContain("loopback");
    expect(await checkChannelDestination(email, STRICT)).toMatchObject({ ok: false, field: "config.smtpUrl" });
    expect(await checkChannelDestination(ntfyChannel, { allowPrivate: false, allowlist: ["127.0.0.1/32"] })).toEqual({ ok: true });
    expect(await checkChannelDestination(email, OPEN)).toEqual({ ok: true });
    const resolve = async () => ["93.184.215.14"];
    expect(
      await checkChannelDestination({ ...ntfyChannel, config: { ...ntfyChannel.config, serverUrl: "https://ntfy.example.com" } }, STRICT, resolve),
    ).toEqual({
      ok: true,
    });
    expect(await checkChannelDestination(telegramChannel(), STRICT)).toEqual({ ok: true });
  });
});

test("a message of another kind than the channel is a programming error", async () => {
  await expect(sendMessage(telegramChannel(), renderAlert("slack", fullPayload(), ctx), deps())).rejects.toThrow(
    "a slack message cannot go to a telegram channel",
  );
});

test("redactSecrets removes each secret raw and URL-encoded, longest first", () => {
  expect(redactSecrets("GET https://h/x/abc:def?k=abc%3Adef failed", ["abc:def", "https://h/x/abc:def"])).toBe("GET [redacted]?k=[redacted] failed");
  expect(redactSecrets("nothing here", [null, undefined, "", "abc"])).toBe("nothing here");
});
