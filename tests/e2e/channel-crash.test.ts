import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeTelegram } from "../helpers/channel-fakes";
import { makeDoc } from "../helpers/factories";
import { startServer } from "../helpers/process";

const ADMIN_TOKEN = "channel-crash-admin-token-0123";
const CMD = [process.execPath, "run", "src/main.ts", "serve"];
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
const BOT_TOKEN = "123456789:AAFcrashTESTcrashTESTcrashTESTcrash01";

// SIGKILL a server after jobs matched a feed with a Telegram channel but before their alerts went out (the
// chat's pace lets one a second through), restart it on the same database: every alert arrives, in order.
// No JOBPILOT_SECRET_KEY: the key file generated on the first start is what opens the channel after the restart.
describe("crash safety of channel alerts", () => {
  test("kill -9 between match and send: after a restart every alert is delivered, in match order", async () => {
    const telegram = await startFakeTelegram();
    const dir = mkdtempSync(join(tmpdir(), "jp-channel-crash-"));
    const env = {
      JOBPILOT_DB: join(dir, "crash.db"),
      JOBPILOT_SOURCES: "none",
      JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
      JOBPILOT_TELEGRAM_API_URL: telegram.url,
      LOG_LEVEL: "warn",
    };
    let server = await startServer(CMD, env);
    try {
      const created = (await (
        await fetch(`${server.url}/admin/accounts`, { method: "POST", headers: ADMIN, body: JSON.stringify({ name: "crash" }) })
      ).json()) as any;
      const headers = { "x-api-key": created.apiKey as string, "content-type": "application/json" };
      const channel = (await (
        await fetch(`${server.url}/api/v1/channels`, {
          method: "POST",
          headers,
          body: JSON.stringify({ type: "telegram", name: "phone", config: { botToken: BOT_TOKEN, chatId: 77 } }),
        })
      ).json()) as any;
      expect(channel.channel?.id, JSON.stringify(channel)).toBeString();
      const feed = await fetch(`${server.url}/api/v1/feeds`, {
        method: "POST",
        headers,
        body: JSON.stringify({ title: "all", minScore: 0, channelIds: [channel.channel.id] }),
      });
      expect(feed.status).toBe(201);
      const titles = Array.from({ length: 5 }, (_, i) => `Crash job ${i}`);
      const docs = titles.map((title) => makeDoc({ title }));
      const ingested = (await (await fetch(`${server.url}/admin/jobs`, { method: "POST", headers: ADMIN, body: JSON.stringify(docs) })).json()) as any;
      expect(ingested.inserted).toBe(docs.length);
      await telegram.waitFor("sendMessage", 1);
      server.proc.kill("SIGKILL");
      await server.proc.exited;

      const db = new Database(env.JOBPILOT_DB);
      const waiting = db.query("SELECT count(*) AS n FROM events WHERE target != 'webhook' AND status = 'pending'").get() as { n: number };
      db.close();
      expect(waiting.n, "the kill landed before most alerts were sent").toBeGreaterThanOrEqual(3);
      expect(statSync(join(dir, "jobpilot-secret.key")).mode & 0o777).toBe(0o600);

      server = await startServer(CMD, env);
      const arrived = () => new Set(telegram.callsTo("sendMessage").map((c) => /Crash job \d/.exec(c.body.text)?.[0]));
      for (const deadline = Date.now() + 20_000; arrived().size < titles.length && Date.now() < deadline; ) await Bun.sleep(50);
      // At least once, in order: what arrived, with repeats folded, is every alert in match order.
      const seen = telegram.callsTo("sendMessage").map((c) => /Crash job \d/.exec(c.body.text)?.[0]);
      expect(
        seen.filter((x, i) => seen.indexOf(x) === i),
        server.output(),
      ).toEqual(titles);
      expect(await server.stop()).toBe(0);
      const after = new Database(env.JOBPILOT_DB, { readonly: true });
      expect(after.query("SELECT status, count(*) AS n FROM events WHERE target != 'webhook' GROUP BY status").all()).toEqual([{ status: "delivered", n: 5 }]);
      after.close();
    } finally {
      if (server.proc.exitCode === null) server.proc.kill("SIGKILL");
      await telegram.close();
    }
  }, 60_000);
});
