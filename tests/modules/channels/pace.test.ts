import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { ChannelTarget } from "../../../src/modules/channels/model";
import { type PaceBucket, Pacer, paceOf } from "../../../src/modules/channels/pace";

const TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9";
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const of = (channel: ChannelTarget) => paceOf(channel.type, channel.config);
const telegram = (chatId: string, botToken = TOKEN) => of({ type: "telegram", config: { botToken, chatId } });

/**
 * Sends `count` messages as a deliverer would: ask, and when told to wait, move the fake clock on by the
 * wait and ask again. Returns the send times.
 */
function burst(pacer: Pacer, buckets: PaceBucket[], count: number, startMs = T0): number[] {
  const sent: number[] = [];
  let now = startMs;
  while (sent.length < count) {
    const wait = pacer.reserve(buckets, now);
    if (wait === 0) sent.push(now);
    else now += wait;
  }
  return sent;
}

/** The most sends within any window of `perMs` (a window is half-open: (t - perMs, t]). */
function busiestWindow(times: number[], perMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= perMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe("paceOf", () => {
  test("Telegram: per chat (and per group or channel a minute limit) plus the bot's own key; no token in any key", () => {
    expect(telegram("42")).toEqual([
      { key: "telegram:chat:123456789:42", rules: [{ limit: 1, perMs: 1000 }] },
      { key: "telegram:bot:123456789", rules: [{ limit: 30, perMs: 1000 }] },
    ]);
    for (const group of ["-1001234567890", "@jobpilot_alerts"]) {
      expect(telegram(group)[0]!.rules).toEqual([
        { limit: 1, perMs: 1000 },
        { limit: 20, perMs: 60_000 },
      ]);
    }
    expect(JSON.stringify(telegram("42"))).not.toContain(TOKEN.split(":")[1]!);
  });

  test("Discord by webhook id, Slack by a hash of the URL, ntfy by server, e-mail by server and login; no secrets in keys", () => {
    const discordUrl = "https://discord.com/api/webhooks/123456789012345678/secretsecretsecretsecret";
    const slackUrl = "https://hooks.slack.com/services/T1/B1/secretsecretsecretsecret";
    const discord = of({ type: "discord", config: { webhookUrl: discordUrl } });
    const slack = of({ type: "slack", config: { webhookUrl: slackUrl } });
    const ntfy = of({ type: "ntfy", config: { serverUrl: "https://ntfy.sh", topic: "a", token: "tk_secretsecretsecret" } });
    const email = of({
      type: "email",
      config: { smtpUrl: "smtps://me%40example.com:secretpass@smtp.example.com", from: "a@example.com", to: "b@example.com" },
    });
    expect(discord).toEqual([
      {
        key: "discord:123456789012345678",
        rules: [
          { limit: 5, perMs: 2000 },
          { limit: 30, perMs: 60_000 },
        ],
      },
    ]);
    expect(slack).toEqual([{ key: expect.stringMatching(/^slack:[0-9a-f]{16}$/), rules: [{ limit: 1, perMs: 1000 }] }]);
    expect(ntfy).toEqual([{ key: "ntfy:https://ntfy.sh", rules: [{ limit: 12, perMs: 60_000 }] }]);
    expect(email[0]!.key).toMatch(/^email:smtp\.example\.com:465:[0-9a-f]{12}$/);
    expect(JSON.stringify([discord, slack, ntfy, email])).not.toMatch(/secret|me@example/);
    // Two topics on one ntfy server share its limit; two Slack webhooks do not share theirs.
    expect(of({ type: "ntfy", config: { serverUrl: "https://ntfy.sh", topic: "b", token: null } })[0]!.key).toBe(ntfy[0]!.key);
    expect(of({ type: "slack", config: { webhookUrl: `${slackUrl}x` } })[0]!.key).not.toBe(slack[0]!.key);
  });
});

describe("Pacer", () => {
  test("a private chat: one now, the next a second later", () => {
    const pacer = new Pacer();
    const chat = telegram("42");
    expect(pacer.reserve(chat, T0)).toBe(0);
    expect(pacer.reserve(chat, T0)).toBe(1000);
    expect(pacer.reserve(chat, T0 + 400)).toBe(600);
    expect(pacer.reserve(chat, T0 + 1000)).toBe(0);
  });

  test("a wait records nothing: asking again does not push the slot back", () => {
    const pacer = new Pacer();
    const chat = telegram("42");
    pacer.reserve(chat, T0);
    for (let i = 0; i < 5; i++) expect(pacer.reserve(chat, T0 + 100)).toBe(900);
    expect(pacer.waitMs(chat, T0 + 500)).toBe(500);
    expect(pacer.reserve(chat, T0 + 1000)).toBe(0);
  });

  test("a group: 1 per second, and the 21st message within a minute waits for the first to be a minute old", () => {
    const pacer = new Pacer();
    const group = telegram("-1001234567890");
    const sent = burst(pacer, group, 20);
    expect(sent.at(-1)! - sent[0]!).toBe(19_000);
    expect(pacer.reserve(group, T0 + 20_000)).toBe(40_000);
    expect(pacer.reserve(group, T0 + 60_000)).toBe(0);
  });

  test("the bot's 30 per second spans its chats; another bot is not held back", () => {
    const pacer = new Pacer();
    for (let chat = 0; chat < 30; chat++) expect(pacer.reserve(telegram(String(chat)), T0)).toBe(0);
    expect(pacer.reserve(telegram("31"), T0 + 10)).toBe(990);
    expect(pacer.reserve(telegram("31", "987654321:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9"), T0 + 10)).toBe(0);
    // The chat that was refused took nothing from its own chat bucket either.
    expect(pacer.reserve(telegram("31"), T0 + 1000)).toBe(0);
  });

  test("Discord: a burst of 5, then the 2 s window, then 30 a minute", () => {
    const pacer = new Pacer();
    const hook = of({ type: "discord", config: { webhookUrl: "https://discord.com/api/webhooks/1/abc" } });
    for (let i = 0; i < 5; i++) expect(pacer.reserve(hook, T0)).toBe(0);
    expect(pacer.reserve(hook, T0 + 500)).toBe(1500);
    const sent = burst(pacer, hook, 25, T0 + 2000);
    expect(sent.length + 5).toBe(30);
    expect(pacer.reserve(hook, sent.at(-1)! + 2000)).toBe(T0 + 60_000 - (sent.at(-1)! + 2000));
  });

  test("a burst of 200 stays within every rule over every window, in the fewest possible steps", () => {
    const cases: { buckets: PaceBucket[]; expectSpanMs: number }[] = [
      { buckets: telegram("42"), expectSpanMs: 199_000 },
      // 20 a minute: nine full minutes, then the last 20 at 1 per second
      { buckets: telegram("-100123"), expectSpanMs: 9 * 60_000 + 19_000 },
      { buckets: of({ type: "slack", config: { webhookUrl: "https://hooks.slack.com/services/T/B/x" } }), expectSpanMs: 199_000 },
      // 30 a minute in bursts of 5 per 2 s: six full minutes, then the last 20 within 6 s
      { buckets: of({ type: "discord", config: { webhookUrl: "https://discord.com/api/webhooks/1/abc" } }), expectSpanMs: 6 * 60_000 + 6_000 },
    ];
    for (const { buckets, expectSpanMs } of cases) {
      const sent = burst(new Pacer(), buckets, 200);
      expect(sent.at(-1)! - sent[0]!).toBe(expectSpanMs);
      for (const { rules } of buckets) for (const { limit, perMs } of rules) expect(busiestWindow(sent, perMs)).toBeLessThanOrEqual(limit);
    }
  });

  test("property: any sequence of asks at any times never lets more than the limit through in any window", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 120 }), fc.boolean(), (gaps, isGroup) => {
        const pacer = new Pacer();
        const buckets = telegram(isGroup ? "-100" : "42");
        const sent: number[] = [];
        let now = T0;
        for (const gap of gaps) {
          now += gap;
          if (pacer.reserve(buckets, now) === 0) sent.push(now);
        }
        for (const { rules } of buckets) for (const { limit, perMs } of rules) expect(busiestWindow(sent, perMs)).toBeLessThanOrEqual(limit);
      }),
    );
  });

  test("hold: after a 429 nothing goes to those buckets until the platform's time", () => {
    const pacer = new Pacer();
    const chat = telegram("42");
    pacer.hold(chat, T0 + 7_000);
    expect(pacer.reserve(chat, T0)).toBe(7_000);
    expect(pacer.reserve(telegram("43"), T0)).toBe(7_000); // the bot's key is held too
    expect(pacer.reserve(chat, T0 + 7_000)).toBe(0);
  });

  test("a clock stepping back cannot open extra room", () => {
    const pacer = new Pacer();
    const chat = telegram("42");
    expect(pacer.reserve(chat, T0 + 5_000)).toBe(0);
    expect(pacer.reserve(chat, T0)).toBe(6_000);
  });

  test("idle keys are forgotten once their longest window has passed", () => {
    const pacer = new Pacer();
    for (let chat = 0; chat < 50; chat++) expect(pacer.reserve(telegram(`-${chat + 1}`), T0 + chat * 100)).toBe(0);
    expect(pacer.size).toBe(51);
    pacer.reserve(telegram("42"), T0 + 60_000);
    expect(pacer.size).toBe(51); // the first group's minute has passed (forgotten), the other 49's not; chat 42 is new
    pacer.reserve(telegram("42"), T0 + 125_000);
    expect(pacer.size).toBe(2);
  });
});
