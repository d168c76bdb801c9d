import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import fc from "fast-check";
import {
  CHANNEL_CONFIG_SCHEMAS,
  CHANNEL_TYPES,
  type ChannelType,
  maskConfig,
  secretFields,
  validateChannelConfig,
  type WebhookOrigins,
} from "../../../src/modules/channels/model";
import { parseMailbox, smtpTarget } from "../../../src/modules/channels/kinds/email";

const TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9";
const SLACK = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX";
const DISCORD = "https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

/** One valid config per kind, as a user would send it. */
const VALID: Record<ChannelType, Record<string, unknown>> = {
  telegram: { botToken: TOKEN, chatId: -1001234567890 },
  slack: { webhookUrl: SLACK },
  discord: { webhookUrl: DISCORD },
  ntfy: { topic: "jobpilot-alerts", token: "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2" },
  email: { smtpUrl: "smtps://alerts%40example.com:s3cr%3At@smtp.example.com", from: "jobpilot <alerts@example.com>", to: "me@example.com" },
};

function error(type: ChannelType, config: unknown, origins?: WebhookOrigins) {
  const result = validateChannelConfig(type, config, origins);
  if (result.ok) throw new Error(`expected ${type} config ${JSON.stringify(config)} to be refused`);
  expect(result.message).toStartWith(`${result.field} `);
  return { field: result.field, message: result.message };
}

function valid(type: ChannelType, config: unknown, origins?: WebhookOrigins) {
  const result = validateChannelConfig(type, config, origins);
  if (!result.ok) throw new Error(`expected ${type} config to pass, got ${result.message}`);
  return result.config;
}

describe("validateChannelConfig", () => {
  test("normalises each kind: chat id as a string, ntfy's default server and a null token, recipients joined", () => {
    expect(valid("telegram", VALID.telegram)).toEqual({ botToken: TOKEN, chatId: "-1001234567890" });
    expect(valid("telegram", { botToken: ` ${TOKEN} `, chatId: "@jobpilot_alerts" })).toEqual({ botToken: TOKEN, chatId: "@jobpilot_alerts" });
    expect(valid("slack", VALID.slack)).toEqual({ webhookUrl: SLACK });
    expect(valid("discord", { webhookUrl: DISCORD.replace("discord.com", "discordapp.com") })).toEqual({
      webhookUrl: DISCORD.replace("discord.com", "discordapp.com"),
    });
    expect(valid("discord", { webhookUrl: `${DISCORD}?thread_id=998877` })).toEqual({ webhookUrl: `${DISCORD}?thread_id=998877` });
    expect(valid("ntfy", { topic: "alerts" })).toEqual({ serverUrl: "https://ntfy.sh", topic: "alerts", token: null });
    expect(valid("ntfy", { serverUrl: "https://ntfy.example.com/push/", topic: "alerts", token: "" })).toEqual({
      serverUrl: "https://ntfy.example.com/push",
      topic: "alerts",
      token: null,
    });
    expect(valid("email", { ...VALID.email, to: " a@example.com ,b@example.org,, " })).toMatchObject({ to: "a@example.com, b@example.org" });
  });

  test("every bad field is named as config.<field> with what is wanted", () => {
    expect(error("telegram", null)).toEqual({ field: "config", message: "config must be an object" });
    expect(error("telegram", [])).toMatchObject({ field: "config" });
    expect(error("telegram", { chatId: "1" }).field).toBe("config.botToken");
    expect(error("telegram", { botToken: 12345, chatId: "1" })).toMatchObject({
      field: "config.botToken",
      message: expect.stringContaining("must be a string"),
    });
    expect(error("telegram", { botToken: "123:short", chatId: "1" })).toMatchObject({
      field: "config.botToken",
      message: expect.stringContaining("BotFather"),
    });
    expect(error("telegram", { botToken: `${TOKEN}!`, chatId: "1" }).field).toBe("config.botToken");
    expect(error("telegram", { botToken: TOKEN }).field).toBe("config.chatId");
    for (const chatId of ["", "abc", "@ab", "12 34", "@with-dash", 1.5, true, `-${"9".repeat(21)}`]) {
      expect(error("telegram", { botToken: TOKEN, chatId }).field).toBe("config.chatId");
    }
    expect(error("telegram", { botToken: TOKEN, chatId: 1, extra: 1 })).toEqual({
      field: "config.extra",
      message: "config.extra is not a telegram setting (expected botToken, chatId)",
    });

    for (const webhookUrl of [
      "http://hooks.slack.com/services/T0/B0/X",
      "https://hooks.slack.com.evil.example/services/T0/B0/X",
      "https://evil.example/services/T0/B0/X",
      "https://hooks.slack.com/",
      "https://user:pw@hooks.slack.com/services/T0/B0/X",
      "https://hooks.slack.com:8443/services/T0/B0/X",
      "not a url",
    ]) {
      expect(error("slack", { webhookUrl }).field).toBe("config.webhookUrl");
    }
    for (const webhookUrl of [
      "http://discord.com/api/webhooks/1/abc",
      "https://discord.com.evil.example/api/webhooks/1/abc",
      "https://discord.com/api/webhooks/abc/def",
      "https://discord.com/api/webhooks/1",
      `${DISCORD}?wait=true`,
      `${DISCORD}#x`,
    ]) {
      expect(error("discord", { webhookUrl }).field).toBe("config.webhookUrl");
    }

    expect(error("ntfy", {}).field).toBe("config.topic");
    expect(error("ntfy", { topic: "has space" }).field).toBe("config.topic");
    expect(error("ntfy", { topic: "a".repeat(65) }).field).toBe("config.topic");
    expect(error("ntfy", { topic: "t", serverUrl: "ftp://ntfy.example.com" }).field).toBe("config.serverUrl");
    expect(error("ntfy", { topic: "t", serverUrl: "https://u:p@ntfy.example.com" }).field).toBe("config.serverUrl");
    expect(error("ntfy", { topic: "t", serverUrl: "https://ntfy.example.com/?x=1" }).field).toBe("config.serverUrl");
    expect(error("ntfy", { topic: "t", token: "tk with space" }).field).toBe("config.token");

    const email = VALID.email;
    expect(error("email", { ...email, smtpUrl: "https://smtp.example.com" })).toMatchObject({
      field: "config.smtpUrl",
      message: expect.stringContaining("smtps://"),
    });
    expect(error("email", { ...email, smtpUrl: "smtp://" }).field).toBe("config.smtpUrl");
    expect(error("email", { ...email, smtpUrl: "smtp://smtp.example.com/path" }).field).toBe("config.smtpUrl");
    expect(error("email", { ...email, smtpUrl: "smtp://smtp.example.com?tls=no" }).field).toBe("config.smtpUrl");
    expect(error("email", { ...email, smtpUrl: "smtp://:pw@smtp.example.com" }).field).toBe("config.smtpUrl");
    expect(error("email", { ...email, smtpUrl: "smtp://us%ZZer:pw@smtp.example.com" }).field).toBe("config.smtpUrl");
    expect(error("email", { ...email, from: "not an address" }).field).toBe("config.from");
    expect(error("email", { ...email, to: "me@example.com, nope" })).toEqual({ field: "config.to", message: 'config.to has an invalid address: "nope"' });
    expect(error("email", { ...email, to: " , " }).field).toBe("config.to");
    expect(error("email", { ...email, to: Array.from({ length: 21 }, (_, i) => `u${i}@example.com`).join(",") }).field).toBe("config.to");
  });

  test("Slack and Discord URLs on a local fake pass only when the test-only origin names it", () => {
    const origins = { slackWebhookOrigin: "http://127.0.0.1:8081", discordWebhookOrigin: "http://127.0.0.1:8082" };
    const slack = "http://127.0.0.1:8081/services/T0/B0/X";
    const discord = "http://127.0.0.1:8082/api/webhooks/1/abc";
    expect(error("slack", { webhookUrl: slack }).field).toBe("config.webhookUrl");
    expect(error("discord", { webhookUrl: discord }).field).toBe("config.webhookUrl");
    expect(valid("slack", { webhookUrl: slack }, origins)).toEqual({ webhookUrl: slack });
    expect(valid("discord", { webhookUrl: discord }, origins)).toEqual({ webhookUrl: discord });
    // The other platform's origin, or another port, is not enough.
    expect(error("slack", { webhookUrl: "http://127.0.0.1:8082/services/T0/B0/X" }, origins).field).toBe("config.webhookUrl");
    expect(error("discord", { webhookUrl: "http://127.0.0.1:8082/not/a/webhook" }, origins).field).toBe("config.webhookUrl");
  });

  test("a normalised config always matches its kind's schema (the OpenAPI description and the checks agree)", () => {
    for (const type of CHANNEL_TYPES) {
      expect(Value.Check(CHANNEL_CONFIG_SCHEMAS[type], valid(type, VALID[type]))).toBe(true);
      expect(Value.Check(CHANNEL_CONFIG_SCHEMAS[type], VALID[type])).toBe(true);
    }
    fc.assert(
      fc.property(fc.stringMatching(/^[-_A-Za-z0-9]{1,64}$/), fc.option(fc.stringMatching(/^[!-~]{1,40}$/), { nil: null }), (topic, token) => {
        expect(Value.Check(CHANNEL_CONFIG_SCHEMAS.ntfy, valid("ntfy", { topic, token }))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{1,12}:[A-Za-z0-9_-]{30,50}$/),
        fc.oneof(fc.integer({ min: -1e15, max: 1e15 }), fc.stringMatching(/^@[A-Za-z][A-Za-z0-9_]{3,31}$/)),
        (botToken, chatId) => {
          expect(Value.Check(CHANNEL_CONFIG_SCHEMAS.telegram, valid("telegram", { botToken, chatId }))).toBe(true);
        },
      ),
    );
  });

  test("SMTP URLs: implicit TLS on smtps (465 by default), STARTTLS port 587 on smtp, login decoded", () => {
    expect(smtpTarget({ smtpUrl: VALID.email.smtpUrl as string, from: "", to: "" })).toEqual({
      isImplicitTls: true,
      hostname: "smtp.example.com",
      port: 465,
      user: "alerts@example.com",
      password: "s3cr:t",
    });
    expect(smtpTarget({ smtpUrl: "smtp://relay.lan", from: "", to: "" })).toEqual({
      isImplicitTls: false,
      hostname: "relay.lan",
      port: 587,
      user: null,
      password: null,
    });
    expect(smtpTarget({ smtpUrl: "smtp://u@[::1]:2525", from: "", to: "" })).toMatchObject({ hostname: "::1", port: 2525, user: "u", password: null });
  });

  test("mailboxes: bare or with a name; no header injection", () => {
    expect(parseMailbox("a.b+c@example.co.uk")).toEqual({ name: null, address: "a.b+c@example.co.uk" });
    expect(parseMailbox("jobpilot alerts <alerts@example.com>")).toEqual({ name: "jobpilot alerts", address: "alerts@example.com" });
    for (const bad of [
      "a@b",
      "@example.com",
      "a@@example.com",
      "a b@example.com",
      "x <a@example.com>\r\nBcc: e@evil.example",
      "a@example.com\nBcc: e@evil.example",
      ".a@example.com",
    ]) {
      expect(parseMailbox(bad)).toBeNull();
    }
  });
});

describe("allowPrivateNetwork (ntfy and e-mail)", () => {
  test("true is kept (and shown), false or absent is left out, anything else is refused naming the field; other kinds refuse it", () => {
    for (const type of ["ntfy", "email"] as const) {
      const on = validateChannelConfig(type, { ...VALID[type], allowPrivateNetwork: true });
      expect(on.ok && on.config, type).toMatchObject({ allowPrivateNetwork: true });
      expect(on.ok && maskConfig(type, on.config), type).toMatchObject({ allowPrivateNetwork: true });
      // The schema the OpenAPI page shows accepts what the check keeps.
      expect(on.ok && Value.Check(CHANNEL_CONFIG_SCHEMAS[type], on.config), type).toBe(true);
      const off = validateChannelConfig(type, { ...VALID[type], allowPrivateNetwork: false });
      expect(off.ok && "allowPrivateNetwork" in off.config, type).toBe(false);
      expect(error(type, { ...VALID[type], allowPrivateNetwork: "yes" }).message, type).toBe("config.allowPrivateNetwork must be true or false");
    }
    expect(error("slack", { ...VALID.slack, allowPrivateNetwork: true }).message).toStartWith("config.allowPrivateNetwork is not a slack setting");
  });
});

describe("masking", () => {
  test("secrets are masked, keeping at most their last 4 characters; the rest stays readable", () => {
    expect(maskConfig("telegram", { botToken: TOKEN, chatId: "42" })).toEqual({ botToken: "••••saw9", chatId: "42" });
    expect(maskConfig("slack", { webhookUrl: SLACK })).toEqual({ webhookUrl: "https://hooks.slack.com/••••XXXX" });
    expect(maskConfig("discord", { webhookUrl: DISCORD })).toEqual({ webhookUrl: "https://discord.com/••••89-_" });
    expect(maskConfig("ntfy", { serverUrl: "https://ntfy.sh", topic: "t", token: "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2" })).toEqual({
      serverUrl: "https://ntfy.sh",
      topic: "t",
      token: "••••NIz2",
    });
    expect(maskConfig("ntfy", { serverUrl: "https://ntfy.sh", topic: "t", token: null }).token).toBeNull();
    expect(maskConfig("email", { smtpUrl: "smtps://alerts%40example.com:s3cr%3At@smtp.example.com:465", from: "a@example.com", to: "b@example.com" })).toEqual({
      smtpUrl: "smtps://alerts%40example.com:••••@smtp.example.com:465",
      from: "a@example.com",
      to: "b@example.com",
    });
    expect(maskConfig("email", { smtpUrl: "smtp://relay.lan:25", from: "a@example.com", to: "b@example.com" }).smtpUrl).toBe("smtp://relay.lan:25");
  });

  test("a masked config never contains a secret or more than 4 of its characters in a row", () => {
    const leaks = (masked: unknown, secret: string) => {
      const text = JSON.stringify(masked);
      for (let i = 0; i + 5 <= secret.length; i++) if (text.includes(secret.slice(i, i + 5))) return secret.slice(i, i + 5);
      return null;
    };
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{30,60}$/), fc.stringMatching(/^[A-Za-z0-9]{8,40}$/), (secret, password) => {
        expect(leaks(maskConfig("telegram", { botToken: `987654:${secret}`, chatId: "1" }), secret)).toBeNull();
        expect(leaks(maskConfig("slack", { webhookUrl: `https://hooks.slack.com/services/T1/B1/${secret}` }), secret)).toBeNull();
        expect(leaks(maskConfig("discord", { webhookUrl: `https://discord.com/api/webhooks/1/${secret}` }), secret)).toBeNull();
        expect(leaks(maskConfig("ntfy", { serverUrl: "https://ntfy.sh", topic: "t", token: secret }), secret)).toBeNull();
        expect(
          leaks(maskConfig("email", { smtpUrl: `smtps://user:${password}@smtp.example.com`, from: "a@example.com", to: "b@example.com" }), password),
        ).toBeNull();
      }),
    );
  });

  test("secretFields names the fields that hold secrets", () => {
    expect(Object.fromEntries(CHANNEL_TYPES.map((t) => [t, secretFields(t)]))).toEqual({
      telegram: ["botToken"],
      slack: ["webhookUrl"],
      discord: ["webhookUrl"],
      ntfy: ["token"],
      email: ["smtpUrl"],
    });
  });
});
