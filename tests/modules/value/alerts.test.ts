import { afterEach, describe, expect, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { CHANNEL_TYPES } from "../../../src/modules/channels/model";
import { renderAlert } from "../../../src/modules/channels/render";
import { ManualClock } from "../../../src/lib/clock";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { type FakeNtfy, type FakeTelegram, startFakeNtfy, startFakeTelegram } from "../../helpers/channel-fakes";
import { makeDoc } from "../../helpers/factories";
import { DASHBOARD_JOB_URL, fullPayload, NOW } from "../channels/fixtures";

const LINE = "worth ~$22.50; costs $2.40 in Connects";

describe("the value line in each kind's alert", () => {
  test("every kind shows it once when the alert carries it, and none without it", () => {
    for (const type of CHANNEL_TYPES) {
      const withValue = JSON.stringify(renderAlert(type, fullPayload(), { dashboardJobUrl: DASHBOARD_JOB_URL, nowTs: NOW, expectedValue: LINE }));
      const without = JSON.stringify(renderAlert(type, fullPayload(), { dashboardJobUrl: DASHBOARD_JOB_URL, nowTs: NOW }));
      expect(withValue, type).toContain(`Value`);
      // Discord escapes markdown's ~ (strikethrough) as \~; every other kind shows the line as it is.
      expect(withValue, type).toContain(type === "discord" ? LINE.replace("~", "\\\\~") : LINE);
      expect(without, type).not.toContain(LINE);
      expect(without, type).not.toContain("Value");
    }
    const telegram = renderAlert("telegram", fullPayload(), { dashboardJobUrl: null, nowTs: NOW, expectedValue: LINE });
    expect(telegram.text).toContain(`<b>Value:</b> ${LINE}`);
  });
});

let t: TestApp;
let deliverer: WebhookDeliverer | undefined;
let fakes: { telegram: FakeTelegram; ntfy: FakeNtfy } | undefined;

afterEach(async () => {
  await deliverer?.stop();
  deliverer = undefined;
  await Promise.all(Object.values(fakes ?? {}).map((f) => f.close()));
  fakes = undefined;
  await t?.close();
});

describe("alerts as delivered", () => {
  test("a matched job's Telegram and ntfy alerts say what it is worth against its Connects, from the feed's account's ledger", async () => {
    const [telegram, ntfy] = await Promise.all([startFakeTelegram(), startFakeNtfy()]);
    fakes = { telegram, ntfy };
    t = await createTestApp({ config: { webhookAllowPrivate: true, webhookTimeoutMs: 2_000, telegramApiUrl: telegram.url, connectPriceUsd: 0.15 } });
    const { apiKey: key } = await t.account();
    deliverer = createDeliverer(t.deps);
    t.deps.work.subscribe(() => deliverer?.notify());
    deliverer.start();
    const ids: string[] = [];
    for (const [type, config] of [
      ["telegram", { botToken: "123456789:AAFsecretSECRETsecretSECRETsecret0042", chatId: 4242 }],
      ["ntfy", { serverUrl: ntfy.url, topic: "jobpilot-test" }],
    ] as const) {
      const res = await t.request("POST", "/api/v1/channels", { key, json: { type, name: type, config } });
      expect(res.status, show(res)).toBe(201);
      ids.push(res.body.channel.id);
    }
    const feed = await t.request("POST", "/api/v1/feeds", { key, json: { title: "alerts", minScore: 0, includes: ["widget"], channelIds: ids } });
    expect(feed.status, show(feed)).toBe(201);
    // Fixed $500, 10 Connects stated, prompt-less feed (score 5), no outcomes yet: 0.15 × 0.3 × $500 = $22.50; 10 × $0.15.
    const doc: Record<string, unknown> = { ...makeDoc({ title: "Widget store", fixed: 500 }), connectPrice: 10 };
    await ingestDocuments(t.deps, [doc], { source: "test" });
    await deliverer.idle();
    const texts = telegram.callsTo("sendMessage").map((c) => String(c.body.text));
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain("<b>Value:</b> worth ~$22.50; costs $1.50 in Connects");
    expect(ntfy.received).toHaveLength(1);
    expect(JSON.stringify(ntfy.received[0]!.body)).toContain("Value: worth ~$22.50; costs $1.50 in Connects");
  });

  test("a digest window of one job goes as its ordinary alert, value line included", async () => {
    const telegram = await startFakeTelegram();
    fakes = { telegram, ntfy: await startFakeNtfy() };
    t = await createTestApp({ clock: new ManualClock(Date.parse("2026-01-15T12:00:00Z")), config: { telegramApiUrl: telegram.url, connectPriceUsd: 0.15 } });
    const { apiKey: key } = await t.account();
    deliverer = createDeliverer(t.deps);
    t.deps.work.subscribe(() => deliverer?.notify());
    deliverer.start();
    const channel = await t.request("POST", "/api/v1/channels", {
      key,
      json: {
        type: "telegram",
        name: "phone",
        mode: "digest",
        digestEvery: "15m",
        config: { botToken: "123456789:AAFsecretSECRETsecretSECRETsecret0042", chatId: 7 },
      },
    });
    expect(channel.status, show(channel)).toBe(201);
    const feed = await t.request("POST", "/api/v1/feeds", { key, json: { title: "alerts", minScore: 0, channelIds: [channel.body.channel.id] } });
    expect(feed.status, show(feed)).toBe(201);
    await ingestDocuments(t.deps, [makeDoc({ title: "Lone job", fixed: 500 })], { source: "test" });
    await deliverer.idle();
    expect(telegram.callsTo("sendMessage")).toHaveLength(0); // held for the window
    t.clock.set(Date.parse("2026-01-15T12:15:00Z"));
    deliverer.notify();
    await deliverer.idle();
    const texts = telegram.callsTo("sendMessage").map((c) => String(c.body.text));
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain("Lone job");
    expect(texts[0]).toContain("<b>Value:</b> worth ~$22.50; costs $2.40 in Connects");
  });
});
