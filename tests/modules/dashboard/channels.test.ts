import { afterEach, describe, expect, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { createTestApp, show, type TestApp, type TestResponse } from "../../helpers/app";
import { type FakeTelegram, type FakeWebhookPlatform, startFakeSlack, startFakeTelegram } from "../../helpers/channel-fakes";
import { browser, foreignScripts } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";
import { redeemBindingCode } from "../../../src/modules/telegram/binding";

// The dashboard's Channels pages and the feed form's channel boxes, in process: forms posted as a browser
// would (session cookie, CSRF field), Slack and Telegram as local fakes.

const BOT_TOKEN = "123456789:AAFdashboardDASHBOARDdashboard0042";

let t: TestApp;
let slack: FakeWebhookPlatform;
let telegram: FakeTelegram;
let deliverer: WebhookDeliverer | undefined;
const { get, post, signIn } = browser(() => t);

afterEach(async () => {
  await deliverer?.stop();
  deliverer = undefined;
  await t?.close();
  await slack?.close();
  await telegram?.close();
});

async function setup() {
  [slack, telegram] = await Promise.all([startFakeSlack(), startFakeTelegram()]);
  t = await createTestApp({ config: { slackWebhookOrigin: slack.origin, telegramApiUrl: telegram.url, webhookTimeoutMs: 2_000 } });
  const acct = await t.account({ name: "Acme" });
  return { ...acct, ...(await signIn(acct.apiKey)) };
}

function channelIdFrom(res: TestResponse): string {
  expect(res.status, show(res)).toBe(303);
  const m = /^\/dashboard\/channels\/([0-9a-f-]{36})$/.exec(res.headers.get("location") ?? "");
  if (!m) throw new Error(`unexpected location ${res.headers.get("location")}`);
  return m[1]!;
}

async function addSlack(token: string, csrf: string, fields: Record<string, string> = {}): Promise<string> {
  return channelIdFrom(
    await post("/dashboard/channels", token, {
      csrf,
      type: "slack",
      name: "#leads",
      config_webhookUrl: slack.webhookUrl,
      mode: "instant",
      digestEvery: "1h",
      ...fields,
    }),
  );
}

async function apiChannels(apiKey: string): Promise<any[]> {
  const res = await t.request("GET", "/api/v1/channels", { key: apiKey });
  expect(res.status, show(res)).toBe(200);
  return res.body.channels;
}

describe("dashboard channels: list, add, edit, delete", () => {
  test("reachable from the navigation; an empty list offers each kind's form, which has its own labelled fields", async () => {
    const { token } = await setup();
    const overview = await get("/dashboard", token);
    expect(overview.text).toContain('<a href="/dashboard/channels">Channels</a>');
    const empty = await get("/dashboard/channels", token);
    expect(empty.status, show(empty)).toBe(200);
    expect(empty.text).toContain("No channels yet");
    for (const kind of ["telegram", "slack", "discord", "ntfy", "email"]) expect(empty.text).toContain(`href="/dashboard/channels/new?type=${kind}"`);
    const fields: Record<string, string[]> = {
      telegram: ["config_botToken", "config_chatId"],
      slack: ["config_webhookUrl"],
      ntfy: ["config_serverUrl", "config_topic", "config_token"],
      email: ["config_smtpUrl", "config_from", "config_to"],
    };
    for (const [kind, names] of Object.entries(fields)) {
      const form = await get(`/dashboard/channels/new?type=${kind}`, token);
      expect(form.status, show(form)).toBe(200);
      for (const name of ["name", ...names, "mode", "digestEvery", "quietHours", "quietFrom", "quietTo", "quietTimeZone"]) {
        expect(form.text, `${kind} ${name}`).toContain(`<label for="${name}"`);
      }
      expect(form.text).toContain(`<input type="hidden" name="type" value="${kind}">`);
      expect(foreignScripts(form.text)).toEqual([]);
    }
    expect((await get("/dashboard/channels/new?type=pigeon", token)).status).toBe(400);
  });

  test("adding a Slack channel: saved through the API's rules, shown masked, listed", async () => {
    const { token, csrf, apiKey } = await setup();
    const id = await addSlack(token, csrf);
    const [saved] = await apiChannels(apiKey);
    expect(saved).toMatchObject({ id, type: "slack", name: "#leads", mode: "instant", quietHours: null });
    const detail = await get(`/dashboard/channels/${id}`, token);
    expect(detail.status, show(detail)).toBe(200);
    expect(detail.text).toContain("#leads");
    expect(detail.text).toContain(saved.config.webhookUrl); // masked, as the API shows it
    expect(detail.text).not.toContain(slack.webhookUrl);
    expect(detail.text).toContain("each alert at once");
    const list = await get("/dashboard/channels", token);
    expect(list.text).toContain(`href="/dashboard/channels/${id}"`);
    expect(list.text).not.toContain("No channels yet");
  });

  test("bad settings re-show the form (400) with field-naming messages and the typed values; nothing is saved", async () => {
    const { token, csrf, apiKey } = await setup();
    const telegramForm = (over: Record<string, string>) =>
      post("/dashboard/channels", token, {
        csrf,
        type: "telegram",
        name: "Phone",
        config_botToken: BOT_TOKEN,
        config_chatId: "42",
        mode: "instant",
        quietHours: "on",
        quietFrom: "22:00",
        quietTo: "07:00",
        quietTimeZone: "Europe/Berlin",
        ...over,
      });
    const bad = await telegramForm({ config_botToken: "not-a-token" });
    expect(bad.status, show(bad)).toBe(400);
    // In the label's words, next to the field (and linked from the summary above the form); no API name.
    expect(bad.text).toContain('<p class="field-error error-text" id="config_botTokenError">Bot token must be a bot token as @BotFather gives it');
    expect(bad.text).toContain('<a href="#config_botToken">Bot token must be a bot token');
    expect(bad.text).toContain('aria-invalid="true" aria-describedby="config_botTokenError config_botTokenHelp"');
    expect(bad.text).not.toContain("config.botToken");
    expect(bad.text).toContain('value="Europe/Berlin"');
    expect(bad.text).toContain('value="not-a-token"');
    const tz = await telegramForm({ quietTimeZone: "Mars/Olympus" });
    expect(tz.status, show(tz)).toBe(400);
    expect(tz.text).toContain('id="quietTimeZoneError">Time zone is not a known IANA time zone: &quot;Mars/Olympus&quot;');
    expect(tz.text).not.toContain("quietHours.timeZone");
    // Only exact IANA names (and UTC): what Intl would also take, like a lower-case name or "EST", is refused.
    for (const zone of ["europe/berlin", "EST"]) {
      const loose = await telegramForm({ quietTimeZone: zone });
      expect(loose.status, `${zone}: ${show(loose)}`).toBe(400);
      expect(loose.text).toContain('id="quietTimeZoneError">Time zone is not a known IANA time zone');
    }
    const same = await telegramForm({ quietTo: "22:00" });
    expect(same.status, show(same)).toBe(400);
    expect(same.text).toContain('id="quietFromError">Quiet from and “Quiet until” must differ');
    expect(tz.text).toContain('value="Mars/Olympus"');
    const missing = await post("/dashboard/channels", token, { csrf, type: "slack", name: "", mode: "instant" });
    expect(missing.status, show(missing)).toBe(400);
    expect(missing.text).toContain('id="nameError">Name must be 1 to 100 characters long');
    expect(await apiChannels(apiKey)).toEqual([]);
  });

  test("a bot token Telegram refuses, a bot another account holds, Telegram unreachable: said next to the token field in its label's words", async () => {
    const { token, csrf, apiKey } = await setup();
    const telegramForm = () =>
      post("/dashboard/channels", token, { csrf, type: "telegram", name: "Phone", config_botToken: BOT_TOKEN, config_chatId: "42", mode: "instant" });
    telegram.enqueueFor("getMe", { status: 401, json: { ok: false, error_code: 401, description: "Unauthorized" } });
    const refused = await telegramForm();
    expect(refused.status, show(refused)).toBe(400);
    expect(refused.text).toContain('<p class="field-error error-text" id="config_botTokenError">Bot token: Telegram does not accept this bot token');
    telegram.enqueueFor("getMe", { status: 502, text: "Bad Gateway" });
    const away = await telegramForm();
    expect(away.status, show(away)).toBe(503);
    expect(away.text).toContain('id="config_botTokenError">Telegram could not be reached to check “Bot token”, so nothing was saved');
    expect(away.text).toContain(`value="${BOT_TOKEN}"`); // what was typed, to send again
    expect(await apiChannels(apiKey)).toEqual([]);
    const other = await t.account({ name: "Other" });
    expect(
      (await t.request("POST", "/api/v1/channels", { key: other.apiKey, json: { type: "telegram", name: "x", config: { botToken: BOT_TOKEN, chatId: 1 } } }))
        .status,
    ).toBe(201);
    const taken = await telegramForm();
    expect(taken.status, show(taken)).toBe(400);
    expect(taken.text).toContain('id="config_botTokenError">Bot token names a bot that is already connected to another jobpilot account');
    for (const page of [refused, away, taken]) expect(page.text).not.toContain("config.botToken");
    expect(await apiChannels(apiKey)).toEqual([]);
  });

  test("a private SMTP server: refused with a hint in the form's words, allowed by its checkbox; loopback stays refused", async () => {
    const { token, csrf, apiKey } = await setup();
    const email = (over: Record<string, string>) =>
      post("/dashboard/channels", token, {
        csrf,
        type: "email",
        name: "Mail",
        config_smtpUrl: "smtp://alerts:pw@192.168.1.20:25",
        config_from: "alerts@example.com",
        config_to: "me@example.com",
        mode: "instant",
        ...over,
      });
    const form = await get("/dashboard/channels/new?type=email", token);
    expect(form.text).toContain('<label for="config_allowPrivateNetwork"><input type="checkbox" id="config_allowPrivateNetwork"');
    expect(form.text).toContain("Allow a private-network address for this server");
    const refused = await email({});
    expect(refused.status, show(refused)).toBe(400);
    const said = /id="config_smtpUrlError">([^<]*)</.exec(refused.text)?.[1] ?? "";
    expect(said, refused.text).toBe(
      "SMTP URL cannot be used: 192.168.1.20 is not a public address (private (RFC 1918)); turn on “Allow a private-network address for this server” to allow a server on your own network",
    );
    // The operator's setting is not the user's to change: no environment variable, no API name on the page.
    expect(refused.text).not.toContain("JOBPILOT_");
    expect(refused.text).not.toContain("config.");
    expect(await apiChannels(apiKey)).toEqual([]);

    const id = channelIdFrom(await email({ config_allowPrivateNetwork: "on" }));
    expect((await apiChannels(apiKey))[0].config).toMatchObject({ allowPrivateNetwork: true });
    expect((await get(`/dashboard/channels/${id}`, token)).text).toContain("<dt>Allow a private-network address for this server</dt><dd>yes</dd>");
    const edit = await get(`/dashboard/channels/${id}/edit`, token);
    expect(edit.text).toMatch(/id="config_allowPrivateNetwork" name="config_allowPrivateNetwork" value="on" checked/);
    // Unticking it on the edit form turns it off, and the LAN server is refused again.
    const masked = /name="config_smtpUrl" value="([^"]*)"/.exec(edit.text)![1]!;
    const off = await post(`/dashboard/channels/${id}`, token, {
      csrf,
      name: "Mail",
      config_smtpUrl: masked,
      config_from: "alerts@example.com",
      config_to: "me@example.com",
      mode: "instant",
    });
    expect(off.status, show(off)).toBe(400);
    expect(off.text).toContain('id="config_smtpUrlError">SMTP URL cannot be used: 192.168.1.20 is not a public address');
    expect((await apiChannels(apiKey))[0].config).toMatchObject({ allowPrivateNetwork: true });

    // This machine itself is not "your network": loopback is refused even with the box ticked, and no hint offers it.
    const loopback = await email({ config_smtpUrl: "smtp://127.0.0.1:25", config_allowPrivateNetwork: "on" });
    expect(loopback.status, show(loopback)).toBe(400);
    expect(loopback.text).toContain('id="config_smtpUrlError">SMTP URL cannot be used: 127.0.0.1 is not a public address (loopback)</p>');
  });

  test("the channels API takes allowPrivateNetwork as an optional config field, documented in OpenAPI", async () => {
    const { apiKey } = await setup();
    const create = (config: Record<string, unknown>) => t.request("POST", "/api/v1/channels", { key: apiKey, json: { type: "email", name: "Mail", config } });
    const base = { smtpUrl: "smtp://10.1.2.3:25", from: "alerts@example.com", to: "me@example.com" };
    const refused = await create(base);
    expect(refused.status, show(refused)).toBe(400);
    expect(refused.body.details).toEqual([expect.stringContaining("config.smtpUrl cannot be used: 10.1.2.3 is not a public address")]);
    expect(refused.body.details[0]).toContain("turn on config.allowPrivateNetwork");
    expect((await create({ ...base, allowPrivateNetwork: "yes" })).body.details).toEqual(["config.allowPrivateNetwork must be true or false"]);
    const created = await create({ ...base, allowPrivateNetwork: true });
    expect(created.status, show(created)).toBe(201);
    expect(created.body.channel.config).toEqual({ smtpUrl: "smtp://10.1.2.3:25", from: "alerts@example.com", to: "me@example.com", allowPrivateNetwork: true });
    const doc = JSON.stringify((await t.request("GET", "/docs/json")).body);
    expect(doc).toContain("allowPrivateNetwork");
    expect(doc).toContain("allowPrivateNetwork (boolean, default false) lets an ntfy or SMTP server on your own network");
  });

  test("quiet hours: the form loads the script that fills in the browser's time zone; it is served as JavaScript", async () => {
    const { token } = await setup();
    const form = await get("/dashboard/channels/new?type=slack", token);
    expect(form.text).toContain('<script src="/dashboard/channels/time-zone.js" defer></script>');
    expect(form.text).toContain('<option value="UTC"></option>');
    const script = await get("/dashboard/channels/time-zone.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toStartWith("text/javascript");
    expect(script.text).toContain("resolvedOptions().timeZone");
  });

  test("a form without the session's CSRF token changes nothing (403)", async () => {
    const { token, csrf, apiKey } = await setup();
    const forged = await post("/dashboard/channels", token, { type: "slack", name: "x", config_webhookUrl: slack.webhookUrl, mode: "instant" });
    expect(forged.status, show(forged)).toBe(403);
    expect(await apiChannels(apiKey)).toEqual([]);
    const id = await addSlack(token, csrf);
    for (const path of [`/dashboard/channels/${id}`, `/dashboard/channels/${id}/delete`, `/dashboard/channels/${id}/test`]) {
      const res = await post(path, token, { csrf: "wrong", name: "changed", mode: "instant" });
      expect(res.status, path).toBe(403);
    }
    expect(slack.received).toHaveLength(0);
    expect((await apiChannels(apiKey))[0]).toMatchObject({ name: "#leads" });
    // Signed out: to the sign-in page, nothing shown.
    const anonymous = await get(`/dashboard/channels/${id}`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe("/dashboard/sign-in");
  });

  test("edit: the form shows secrets masked; saving it unchanged keeps them; digest mode and quiet hours are set and cleared", async () => {
    const { token, csrf, apiKey } = await setup();
    const id = await addSlack(token, csrf);
    const form = await get(`/dashboard/channels/${id}/edit`, token);
    expect(form.status, show(form)).toBe(200);
    expect(form.text).not.toContain(slack.webhookUrl);
    const masked = /name="config_webhookUrl" value="([^"]*)"/.exec(form.text)![1]!;
    expect(masked).toContain("••••");
    const saved = await post(`/dashboard/channels/${id}`, token, {
      csrf,
      name: "#leads (digest)",
      config_webhookUrl: masked,
      mode: "digest",
      digestEvery: "15m",
      quietHours: "on",
      quietFrom: "22:00",
      quietTo: "07:00",
      quietTimeZone: "Europe/Berlin",
    });
    expect(channelIdFrom(saved)).toBe(id);
    expect((await apiChannels(apiKey))[0]).toMatchObject({
      name: "#leads (digest)",
      mode: "digest",
      digestEvery: "15m",
      quietHours: { from: "22:00", to: "07:00", timeZone: "Europe/Berlin" },
    });
    expect((await get(`/dashboard/channels/${id}`, token)).text).toContain("a digest every 15m; quiet 22:00–07:00 (Europe/Berlin)");
    // The stored URL is untouched: the test alert still reaches the fake.
    const tested = await post(`/dashboard/channels/${id}/test`, token, { csrf });
    expect(tested.status, show(tested)).toBe(200);
    expect(slack.received).toHaveLength(1);
    // Back to instant, quiet hours unticked: cleared.
    const edit = await get(`/dashboard/channels/${id}/edit`, token);
    expect(edit.text).toContain('<option value="digest" selected>');
    expect(edit.text).toContain('id="quietHours" name="quietHours" value="on" checked');
    expect(
      channelIdFrom(await post(`/dashboard/channels/${id}`, token, { csrf, name: "#leads", config_webhookUrl: masked, mode: "instant", digestEvery: "15m" })),
    ).toBe(id);
    expect((await apiChannels(apiKey))[0]).toMatchObject({ mode: "instant", digestEvery: null, quietHours: null });
    // A refused edit keeps the form and the channel.
    const refused = await post(`/dashboard/channels/${id}`, token, { csrf, name: "#leads", config_webhookUrl: "https://example.com/hook", mode: "instant" });
    expect(refused.status, show(refused)).toBe(400);
    expect(refused.text).toContain('id="config_webhookUrlError">Webhook URL must be a Slack incoming-webhook URL');
    expect((await apiChannels(apiKey))[0].name).toBe("#leads");
  });

  test("delete asks first, then removes the channel and takes it off its feeds", async () => {
    const { token, csrf, apiKey } = await setup();
    const id = await addSlack(token, csrf);
    const feed = await t.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "F", minScore: 0, channelIds: [id] } });
    expect(feed.status, show(feed)).toBe(201);
    const confirm = await get(`/dashboard/channels/${id}/delete`, token);
    expect(confirm.text).toContain("takes it off every feed");
    const deleted = await post(`/dashboard/channels/${id}/delete`, token, { csrf });
    expect(deleted.status, show(deleted)).toBe(303);
    expect(deleted.headers.get("location")).toBe("/dashboard/channels");
    expect(await apiChannels(apiKey)).toEqual([]);
    expect((await t.request("GET", `/api/v1/feeds/${feed.body.feed.id}`, { key: apiKey })).body.feed.channelIds).toEqual([]);
  });

  test("another account's channel is not found, whatever the page or form", async () => {
    const { token, csrf } = await setup();
    const other = await t.account({ name: "Other" });
    const theirs = await t.request("POST", "/api/v1/channels", {
      key: other.apiKey,
      json: { type: "slack", name: "theirs", config: { webhookUrl: slack.webhookUrl } },
    });
    expect(theirs.status, show(theirs)).toBe(201);
    const id = theirs.body.channel.id;
    for (const path of [`/dashboard/channels/${id}`, `/dashboard/channels/${id}/edit`, `/dashboard/channels/${id}/delete`]) {
      expect((await get(path, token)).status, path).toBe(404);
    }
    for (const path of [`/dashboard/channels/${id}`, `/dashboard/channels/${id}/test`, `/dashboard/channels/${id}/delete`]) {
      expect((await post(path, token, { csrf, name: "mine now", mode: "instant" })).status, path).toBe(404);
    }
    expect(slack.received).toHaveLength(0);
    expect((await apiChannels(other.apiKey))[0]).toMatchObject({ name: "theirs" });
  });

  test("names and errors are shown as text", async () => {
    const { token, csrf } = await setup();
    const id = await addSlack(token, csrf, { name: '<script>alert("x")</script>' });
    for (const path of ["/dashboard/channels", `/dashboard/channels/${id}`, `/dashboard/channels/${id}/edit`]) {
      const res = await get(path, token);
      expect(foreignScripts(res.text), path).toEqual([]);
      expect(res.text).toContain("&lt;script&gt;");
    }
  });
});

describe("dashboard channels: test and deliveries", () => {
  test("Send test: the outcome on the page; a second test within the platform's pace is refused (429); a refusal is shown", async () => {
    const { token, csrf, apiKey } = await setup();
    const id = await addSlack(token, csrf);
    const ok = await post(`/dashboard/channels/${id}/test`, token, { csrf });
    expect(ok.status, show(ok)).toBe(200);
    expect(ok.text).toContain("Test alert sent: Slack accepted it (200)");
    expect(slack.received).toHaveLength(1);
    const again = await post(`/dashboard/channels/${id}/test`, token, { csrf });
    expect(again.status, show(again)).toBe(429);
    expect(again.text).toContain("Not sent: This channel was sent to a moment ago");
    expect(slack.received).toHaveLength(1);
    t.clock.advance(2_000);
    slack.enqueue({ status: 404, text: "no_service" });
    const refused = await post(`/dashboard/channels/${id}/test`, token, { csrf });
    expect(refused.status, show(refused)).toBe(200);
    expect(refused.text).toContain("The test alert was not accepted: Slack HTTP 404");
    // The channel's last error is on its page and in the list.
    expect((await apiChannels(apiKey))[0].lastError).toContain("Slack HTTP 404");
    expect((await get("/dashboard/channels", token)).text).toContain("Slack HTTP 404");
  });

  test("the channel's page lists its last deliveries through its feeds, with their errors", async () => {
    const { token, csrf, apiKey } = await setup();
    const id = await addSlack(token, csrf);
    const feed = await t.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "Leads feed", minScore: 0, channelIds: [id] } });
    expect(feed.status, show(feed)).toBe(201);
    deliverer = createDeliverer(t.deps);
    deliverer.start();
    slack.enqueue({ status: 403, text: "invalid_token" });
    await ingestDocuments(t.deps, [makeDoc({ title: "Refused job" })], { source: "test" });
    deliverer.notify();
    await deliverer.idle();
    t.clock.advance(2_000);
    await ingestDocuments(t.deps, [makeDoc({ title: "Delivered job" })], { source: "test" });
    deliverer.notify();
    await deliverer.idle();
    const page = await get(`/dashboard/channels/${id}`, token);
    expect(page.status, show(page)).toBe(200);
    expect(page.text).toContain("Leads feed");
    expect(page.text).toContain("Slack HTTP 403");
    expect(page.text).toContain('<span class="badge status-failed">failed</span>');
    expect(page.text).toContain('<span class="badge status-delivered">delivered</span>');
    // The feed's deliveries page names the channel as the target.
    const deliveries = await get(`/dashboard/feeds/${feed.body.feed.id}/deliveries`, token);
    expect(deliveries.text).toContain(`<a href="/dashboard/channels/${id}">#leads</a>`);
  });

  test("Bind a chat: a one-time code shown once with its /start command; the chat it binds is listed and can be unbound", async () => {
    const { token, csrf } = await setup();
    const id = channelIdFrom(
      await post("/dashboard/channels", token, { csrf, type: "telegram", name: "Phone", config_botToken: BOT_TOKEN, config_chatId: "42", mode: "instant" }),
    );
    const page = await get(`/dashboard/channels/${id}`, token);
    expect(page.text).toContain("Bind a chat");
    expect(page.text).toContain("No chat is bound yet.");
    expect(page.text).not.toContain(BOT_TOKEN);
    expect((await post(`/dashboard/channels/${id}/binding-code`, token, { csrf: "wrong" })).status).toBe(403);
    const made = await post(`/dashboard/channels/${id}/binding-code`, token, { csrf });
    expect(made.status, show(made)).toBe(200);
    const code = /<code class="secret" id="binding-command">\/start ([A-Z2-9]{10})<\/code>/.exec(made.text)?.[1];
    expect(code, made.text).toBeDefined();
    expect((await get(`/dashboard/channels/${id}`, token)).text).not.toContain(code!);
    // The bot receives `/start <code>` from a group (what the Telegram poller does with it).
    const redeemed = await redeemBindingCode(t.deps, { id: BOT_TOKEN.split(":")[0]!, token: BOT_TOKEN }, { id: "-100777", title: "Leads group" }, code!);
    expect(redeemed).toEqual({ ok: true, channelName: "Phone" });
    const bound = await get(`/dashboard/channels/${id}`, token);
    expect(bound.text).toContain("Leads group");
    expect(bound.text).toContain("<code>-100777</code>");
    const unbind = await post(`/dashboard/channels/${id}/chats/-100777/unbind`, token, { csrf });
    expect(unbind.status, show(unbind)).toBe(303);
    expect((await get(`/dashboard/channels/${id}`, token)).text).toContain("No chat is bound yet.");
    expect((await post(`/dashboard/channels/${id}/chats/-100777/unbind`, token, { csrf })).status).toBe(404);
    // Not for other kinds, nor another account's channel.
    const slackId = await addSlack(token, csrf);
    expect((await get(`/dashboard/channels/${slackId}`, token)).text).not.toContain("Bind a chat");
    expect((await post(`/dashboard/channels/${slackId}/binding-code`, token, { csrf })).status).toBe(400);
    const other = await t.account({ name: "Other" });
    const theirs = await t.request("POST", "/api/v1/channels", {
      key: other.apiKey,
      // A bot of its own: one bot belongs to one account.
      json: { type: "telegram", name: "theirs", config: { botToken: "987654321:AAFtheirsTHEIRStheirsTHEIRS0042", chatId: 1 } },
    });
    expect(theirs.status, show(theirs)).toBe(201);
    expect((await post(`/dashboard/channels/${theirs.body.channel.id}/binding-code`, token, { csrf })).status).toBe(404);
  });
});

describe("dashboard feed form: channel boxes", () => {
  test("the form lists the account's channels; ticking sets the feed's channelIds, unticking clears them", async () => {
    const { token, csrf, apiKey } = await setup();
    const noChannels = await get("/dashboard/feeds/new", token);
    expect(noChannels.text).toContain("No channels yet");
    const a = await addSlack(token, csrf, { name: "Alpha" });
    const b = await addSlack(token, csrf, { name: "Beta" });
    const form = await get("/dashboard/feeds/new", token);
    expect(form.text).toContain(`<label for="channel_${a}"><input type="checkbox" id="channel_${a}" name="channel_${a}" value="on"> Alpha (slack)</label>`);
    expect(form.text).toContain(`name="channel_${b}"`);
    const created = await post("/dashboard/feeds", token, { csrf, title: "With channels", minScore: "0", channelsShown: "1", [`channel_${b}`]: "on" });
    expect(created.status, show(created)).toBe(303);
    const feedId = created.headers.get("location")!.split("/").pop()!;
    const api = async () => (await t.request("GET", `/api/v1/feeds/${feedId}`, { key: apiKey })).body.feed;
    expect((await api()).channelIds).toEqual([b]);
    const detail = await get(`/dashboard/feeds/${feedId}`, token);
    expect(detail.text).toContain(`<a href="/dashboard/channels/${b}">Beta</a>`);
    const edit = await get(`/dashboard/feeds/${feedId}/edit`, token);
    expect(edit.text).toContain(`name="channel_${b}" value="on" checked`);
    expect(edit.text).not.toContain(`name="channel_${a}" value="on" checked`);
    const both = await post(`/dashboard/feeds/${feedId}`, token, {
      csrf,
      title: "With channels",
      minScore: "0",
      channelsShown: "1",
      [`channel_${a}`]: "on",
      [`channel_${b}`]: "on",
    });
    expect(both.status, show(both)).toBe(303);
    expect((await api()).channelIds).toEqual([a, b]);
    // A form without the boxes (no marker) leaves them; one with none ticked clears them.
    await post(`/dashboard/feeds/${feedId}`, token, { csrf, title: "With channels", minScore: "0" });
    expect((await api()).channelIds).toEqual([a, b]);
    await post(`/dashboard/feeds/${feedId}`, token, { csrf, title: "With channels", minScore: "0", channelsShown: "1" });
    expect((await api()).channelIds).toEqual([]);
  });

  test("a ticked channel deleted meanwhile re-shows the form naming it", async () => {
    const { token, csrf, apiKey } = await setup();
    const a = await addSlack(token, csrf, { name: "Gone" });
    await t.request("DELETE", `/api/v1/channels/${a}`, { key: apiKey });
    const res = await post("/dashboard/feeds", token, { csrf, title: "Late", minScore: "0", channelsShown: "1", [`channel_${a}`]: "on" });
    expect(res.status, show(res)).toBe(400);
    expect(res.text).toContain(`<p class="field-error error-text" id="channelIdsError">Channel not found: “Channels” names &quot;${a}&quot;`);
  });
});
