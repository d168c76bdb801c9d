import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { type FakeTelegram, startFakeTelegram } from "../../helpers/channel-fakes";

// /api/v1/channels: create, read, change and delete, validation naming the field, other accounts' channels
// not found, secrets never shown in full nor stored in clear; and feeds' channelIds. On the suite's backend.

const BOT_TOKEN = "123456789:AAFsecretSECRETsecretSECRETsecret0042";
const SLACK_URL = "https://hooks.slack.com/services/T0SECRET/B0SECRET/slackSECRETslackSECRET77";
const DISCORD_URL = "https://discord.com/api/webhooks/123456789012345678/discordSECRETdiscordSECRETdiscordSECRET88";
const NTFY_TOKEN = "tk_ntfySECRETntfySECRETntfy99";
const SMTP_PASSWORD = "smtpSECRETpw";
const SMTP_URL = `smtps://alerts%40example.com:${SMTP_PASSWORD}@smtp.example.com:465`;

/** Each kind with a config holding a secret, and the secret. */
const KINDS = [
  { type: "telegram", config: { botToken: BOT_TOKEN, chatId: 4242 }, secret: BOT_TOKEN },
  { type: "slack", config: { webhookUrl: SLACK_URL }, secret: "slackSECRETslackSECRET77" },
  { type: "discord", config: { webhookUrl: DISCORD_URL }, secret: "discordSECRETdiscordSECRETdiscordSECRET88" },
  { type: "ntfy", config: { topic: "jobpilot-alerts", token: NTFY_TOKEN }, secret: NTFY_TOKEN },
  { type: "email", config: { smtpUrl: SMTP_URL, from: "jobpilot <alerts@example.com>", to: "me@example.com" }, secret: SMTP_PASSWORD },
] as const;

let t: TestApp;
let telegram: FakeTelegram | undefined;
afterEach(async () => {
  await t?.close();
  await telegram?.close();
  telegram = undefined;
});

/** The app, with a local Telegram that accepts BOT_TOKEN (a saved bot token is checked with getMe), and two accounts. */
async function setup(opts: Parameters<typeof createTestApp>[0] = {}) {
  telegram = await startFakeTelegram({ tokens: [BOT_TOKEN] });
  t = await createTestApp({ ...opts, config: { telegramApiUrl: telegram.url, ...opts.config } });
  const a = (await t.account({ name: "A" })).apiKey;
  const b = (await t.account({ name: "B" })).apiKey;
  return { a, b };
}

const create = (key: string, json: unknown) => t.request("POST", "/api/v1/channels", { key, json });

describe("channels API", () => {
  test("each kind is created (201) with its secrets masked; GET and the list show the same; the secret is nowhere in responses, logs or the stored row", async () => {
    const { a } = await setup();
    const seen: string[] = [];
    for (const kind of KINDS) {
      const res = await create(a, { type: kind.type, name: `My ${kind.type}`, config: kind.config });
      expect(res.status, show(res)).toBe(201);
      seen.push(res.text);
      const channel = res.body.channel;
      expect(channel).toMatchObject({
        type: kind.type,
        name: `My ${kind.type}`,
        mode: "instant",
        digestEvery: null,
        quietHours: null,
        lastDeliveryAt: null,
        lastError: null,
      });
      expect(channel.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(channel.createdAt).toBe(t.clock.now());
      expect(res.text).not.toContain(kind.secret);
      const got = await t.request("GET", `/api/v1/channels/${channel.id}`, { key: a });
      expect(got.body, show(got)).toEqual({ channel });
      seen.push(got.text);
    }
    const list = await t.request("GET", "/api/v1/channels", { key: a });
    expect(list.body.channels.map((c: { type: string }) => c.type)).toEqual(KINDS.map((k) => k.type));
    seen.push(list.text);
    const configs = Object.fromEntries(list.body.channels.map((c: { type: string; config: unknown }) => [c.type, c.config]));
    expect(configs).toEqual({
      telegram: { botToken: "••••0042", chatId: "4242" },
      slack: { webhookUrl: "https://hooks.slack.com/••••ET77" },
      discord: { webhookUrl: "https://discord.com/••••ET88" },
      ntfy: { serverUrl: "https://ntfy.sh", topic: "jobpilot-alerts", token: "••••fy99" },
      email: { smtpUrl: "smtps://alerts%40example.com:••••@smtp.example.com:465", from: "jobpilot <alerts@example.com>", to: "me@example.com" },
    });
    const stored = await rawMany<Record<string, unknown>>(t.deps.db, "test.channels", "SELECT * FROM channels", []);
    expect(stored).toHaveLength(KINDS.length);
    for (const kind of KINDS) {
      for (const text of seen) expect(text).not.toContain(kind.secret);
      for (const line of t.log.lines) expect(line).not.toContain(kind.secret);
      // Sealed: neither the secret nor any other part of the config is in the row in clear.
      for (const row of stored) {
        expect(JSON.stringify(row)).not.toContain(kind.secret);
        expect(String(row.config_sealed)).not.toContain("example.com");
        expect(JSON.parse(String(row.config_sealed))).toMatchObject({ v: 1, alg: "AES-256-GCM", kdf: "HKDF-SHA-256" });
      }
    }
  });

  test("bad input is a 400 naming the field, and creates nothing", async () => {
    const { a } = await setup();
    const cases: [unknown, RegExp][] = [
      [{ type: "pager", name: "x", config: {} }, /type/],
      [{ type: "telegram", config: { botToken: BOT_TOKEN, chatId: 1 } }, /name/],
      [{ type: "telegram", name: "   ", config: { botToken: BOT_TOKEN, chatId: 1 } }, /name must not be blank/],
      [{ type: "telegram", name: "x", config: { botToken: "nope", chatId: 1 } }, /config\.botToken/],
      [{ type: "telegram", name: "x", config: { botToken: BOT_TOKEN } }, /config\.chatId/],
      [{ type: "telegram", name: "x", config: { botToken: BOT_TOKEN, chatId: 1, extra: 1 } }, /config\.extra/],
      [{ type: "slack", name: "x", config: { webhookUrl: "https://example.com/hook" } }, /config\.webhookUrl/],
      [{ type: "discord", name: "x", config: { webhookUrl: SLACK_URL } }, /config\.webhookUrl/],
      [{ type: "ntfy", name: "x", config: { topic: "bad topic!" } }, /config\.topic/],
      [{ type: "ntfy", name: "x", config: { serverUrl: "http://127.0.0.1:8080", topic: "t" } }, /config\.serverUrl cannot be used: .*loopback/],
      [{ type: "email", name: "x", config: { smtpUrl: SMTP_URL, from: "me@example.com", to: "not an address" } }, /config\.to/],
      [{ type: "email", name: "x", config: { smtpUrl: "https://smtp.example.com", from: "me@example.com", to: "me@example.com" } }, /config\.smtpUrl/],
      [{ type: "slack", name: "x", config: { webhookUrl: SLACK_URL }, mode: "sometimes" }, /mode/],
      [{ type: "slack", name: "x", config: { webhookUrl: SLACK_URL }, mode: "digest", digestEvery: "2m" }, /digestEvery/],
      [{ type: "slack", name: "x", config: { webhookUrl: SLACK_URL }, digestEvery: "1 hour" }, /digestEvery/],
      [
        { type: "slack", name: "x", config: { webhookUrl: SLACK_URL }, quietHours: { from: "22:00", to: "07:00", timeZone: "Mars/Olympus" } },
        /quietHours\.timeZone/,
      ],
      [{ type: "slack", name: "x", config: { webhookUrl: SLACK_URL }, quietHours: { from: "25:00", to: "07:00", timeZone: "UTC" } }, /quietHours/],
      [{ type: "slack", name: "x", config: "https://hooks.slack.com" }, /config/],
    ];
    for (const [json, field] of cases) {
      const res = await create(a, json);
      expect(res.status, `${JSON.stringify(json)} → ${show(res)}`).toBe(400);
      expect(JSON.stringify(res.body), show(res)).toMatch(field);
    }
    expect((await t.request("GET", "/api/v1/channels", { key: a })).body.channels).toEqual([]);
    // The kinds' delivery settings, when right, are kept as given (their behaviour is the digest's).
    const digest = await create(a, {
      type: "slack",
      name: "x",
      config: { webhookUrl: SLACK_URL },
      mode: "digest",
      quietHours: { from: "22:00", to: "07:00", timeZone: "Europe/Berlin" },
    });
    expect(digest.body.channel, show(digest)).toMatchObject({
      mode: "digest",
      digestEvery: "1h",
      quietHours: { from: "22:00", to: "07:00", timeZone: "Europe/Berlin" },
    });
  });

  test("another account's channel is not found: GET, PATCH, DELETE and test are 404, and it is left as it was", async () => {
    const { a, b } = await setup();
    const mine = (await create(a, { type: "slack", name: "mine", config: { webhookUrl: SLACK_URL } })).body.channel;
    const path = `/api/v1/channels/${mine.id}`;
    for (const [method, p, json] of [
      ["GET", path, undefined],
      ["PATCH", path, { name: "theirs" }],
      ["DELETE", path, undefined],
      ["POST", `${path}/test`, undefined],
    ] as const) {
      const res = await t.request(method, p, { key: b, json });
      expect(res.status, `${method} ${p}: ${show(res)}`).toBe(404);
      expect(res.body).toEqual({ error: "Channel not found" });
    }
    expect((await t.request("GET", "/api/v1/channels", { key: b })).body.channels).toEqual([]);
    expect((await t.request("GET", path, { key: a })).body.channel).toEqual(mine);
    expect((await t.request("GET", "/api/v1/channels/nope", { key: a })).status).toBe(404);
    expect((await t.request("GET", "/api/v1/channels")).status).toBe(401);
  });

  test("PATCH changes only what it is given: config fields left out or sent back masked keep their secrets, a new value replaces it, type cannot change", async () => {
    const { a } = await setup();
    const created = (await create(a, { type: "email", name: "mail", config: { smtpUrl: SMTP_URL, from: "alerts@example.com", to: "me@example.com" } })).body
      .channel;
    const path = `/api/v1/channels/${created.id}`;
    const patch = (json: unknown) => t.request("PATCH", path, { key: a, json });
    // What a form sends back: the config as shown, with one field changed.
    let res = await patch({ name: "Mail", config: { ...created.config, to: "me@example.com, you@example.com" } });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.channel).toMatchObject({ name: "Mail", config: { smtpUrl: created.config.smtpUrl, to: "me@example.com, you@example.com" } });
    const opened = async () => {
      const { openChannel } = await import("../../../src/modules/channels/service");
      const [row] = await rawMany<{ type: "email"; config_sealed: string }>(t.deps.db, "test.row", "SELECT type, config_sealed FROM channels WHERE id = ?", [
        created.id,
      ]);
      return (await openChannel(t.deps.secretKey, { type: row!.type, configSealed: row!.config_sealed })).config as unknown as Record<string, string>;
    };
    expect((await opened()).smtpUrl).toBe(SMTP_URL);
    res = await patch({ config: { from: "jobpilot <alerts@example.com>" } });
    expect(res.status, show(res)).toBe(200);
    expect(await opened()).toEqual({ smtpUrl: SMTP_URL, from: "jobpilot <alerts@example.com>", to: "me@example.com, you@example.com" });
    const newUrl = "smtps://alerts%40example.com:newSECRETpw@smtp.example.com:465";
    res = await patch({ config: { smtpUrl: newUrl } });
    expect(res.text).not.toContain("newSECRETpw");
    expect((await opened()).smtpUrl).toBe(newUrl);
    res = await patch({ config: { to: "nobody" } });
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toMatch(/^config\.to /);
    expect((await opened()).to).toBe("me@example.com, you@example.com");
    res = await patch({ type: "slack", name: "x" });
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toMatch(/^type cannot change/);
    res = await patch({});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/No updatable fields/);
    res = await patch({ mode: "digest", digestEvery: "15m", quietHours: { from: "22:00", to: "07:00", timeZone: "UTC" } });
    expect(res.body.channel, show(res)).toMatchObject({ mode: "digest", digestEvery: "15m", quietHours: { timeZone: "UTC" } });
    res = await patch({ mode: "instant", quietHours: null });
    expect(res.body.channel).toMatchObject({ mode: "instant", quietHours: null });
  });

  test("without a secret key (PostgreSQL without JOBPILOT_SECRET_KEY) saving a channel is a 503 that names the setting", async () => {
    const { a } = await setup({ secretKey: null });
    const res = await create(a, { type: "slack", name: "x", config: { webhookUrl: SLACK_URL } });
    expect(res.status, show(res)).toBe(503);
    expect(res.body.error).toContain("JOBPILOT_SECRET_KEY");
    expect((await t.request("GET", "/api/v1/channels", { key: a })).body.channels).toEqual([]);
  });
});

describe("feeds' channelIds", () => {
  test("set on create and PATCH, shown on GET and the list; [] clears; repeats fold; only your own channels (a 404 naming the channel, changing nothing)", async () => {
    const { a, b } = await setup();
    const slack = (await create(a, { type: "slack", name: "s", config: { webhookUrl: SLACK_URL } })).body.channel.id;
    const tg = (await create(a, { type: "telegram", name: "t", config: { botToken: BOT_TOKEN, chatId: 1 } })).body.channel.id;
    const theirs = (await create(b, { type: "slack", name: "theirs", config: { webhookUrl: SLACK_URL } })).body.channel.id;
    let res = await t.request("POST", "/api/v1/feeds", { key: a, json: { title: "f", minScore: 0, channelIds: [tg, slack, tg] } });
    expect(res.status, show(res)).toBe(201);
    const feed = res.body.feed;
    expect(feed.channelIds).toEqual([tg, slack]);
    expect((await t.request("GET", `/api/v1/feeds/${feed.id}`, { key: a })).body.feed.channelIds).toEqual([tg, slack]);
    const plain = (await t.request("POST", "/api/v1/feeds", { key: a, json: { title: "plain", minScore: 0 } })).body.feed;
    expect(plain.channelIds).toEqual([]);
    const listed = (await t.request("GET", "/api/v1/feeds", { key: a })).body.feeds;
    expect(listed.map((f: { channelIds: string[] }) => f.channelIds)).toEqual([[tg, slack], []]);

    for (const bad of [theirs, "00000000-0000-7000-8000-000000000000"]) {
      res = await t.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: a, json: { title: "renamed", channelIds: [slack, bad] } });
      expect(res.status, show(res)).toBe(404);
      expect(res.body.error).toContain(bad);
      res = await t.request("POST", "/api/v1/feeds", { key: a, json: { title: "new", minScore: 0, channelIds: [bad] } });
      expect(res.status, show(res)).toBe(404);
    }
    expect((await t.request("GET", `/api/v1/feeds/${feed.id}`, { key: a })).body.feed).toMatchObject({ title: "f", channelIds: [tg, slack] });
    expect((await t.request("GET", "/api/v1/feeds", { key: a })).body.feeds).toHaveLength(2);

    res = await t.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: a, json: { channelIds: [slack] } });
    expect(res.body.feed.channelIds, show(res)).toEqual([slack]);
    expect(t.deps.feedIndex.get(feed.id)!.channelIds).toEqual([slack]);
    res = await t.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: a, json: { channelIds: [] } });
    expect(res.body.feed.channelIds).toEqual([]);
    res = await t.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: a, json: { channelIds: "nope" } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("channelIds");
  });

  test("deleting a channel takes it off every feed (and the feed index)", async () => {
    const { a } = await setup();
    const slack = (await create(a, { type: "slack", name: "s", config: { webhookUrl: SLACK_URL } })).body.channel.id;
    const tg = (await create(a, { type: "telegram", name: "t", config: { botToken: BOT_TOKEN, chatId: 1 } })).body.channel.id;
    const f1 = (await t.request("POST", "/api/v1/feeds", { key: a, json: { title: "1", minScore: 0, channelIds: [slack, tg] } })).body.feed.id;
    const f2 = (await t.request("POST", "/api/v1/feeds", { key: a, json: { title: "2", minScore: 0, channelIds: [slack] } })).body.feed.id;
    const del = await t.request("DELETE", `/api/v1/channels/${slack}`, { key: a });
    expect(del.body, show(del)).toEqual({ deleted: true, channelId: slack });
    expect((await t.request("GET", `/api/v1/channels/${slack}`, { key: a })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/feeds/${f1}`, { key: a })).body.feed.channelIds).toEqual([tg]);
    expect((await t.request("GET", `/api/v1/feeds/${f2}`, { key: a })).body.feed.channelIds).toEqual([]);
    expect(t.deps.feedIndex.get(f1)!.channelIds).toEqual([tg]);
    expect(t.deps.feedIndex.get(f2)!.channelIds).toEqual([]);
  });
});
