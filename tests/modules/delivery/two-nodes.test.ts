import { afterAll, beforeAll, expect, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import { rawExec } from "../../../src/db/query";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { insertEvent } from "../../../src/modules/feeds/outbox";
import { insertFeed, insertFeedEntry } from "../../../src/modules/feeds/repo";
import { ManualClock } from "../../../src/lib/clock";
import { createTestApp, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { createMigratedPgDatabase, describePg, type TestPgDatabase } from "../../helpers/postgres";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

// Two jobpilot nodes (two apps, each with its own pool and deliverer) on ONE PostgreSQL database: each feed's
// events must reach the receiver one at a time, in match order, each at least once, whichever node sends them.
describePg("webhook delivery from two nodes", () => {
  let pg: TestPgDatabase;
  let apps: TestApp[] = [];
  let deliverers: WebhookDeliverer[] = [];
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    pg = await createMigratedPgDatabase();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    for (const d of deliverers) await d.stop();
    for (const a of apps) await a.close();
    await receiver?.close();
    await pg?.drop();
  });

  test("per feed, in order and at least once across both deliverers", async () => {
    const clock = new ManualClock();
    const config = { databaseUrl: pg.url, databasePoolSize: 4, webhookAllowPrivate: true, webhookTimeoutMs: 2_000 };
    apps = [await createTestApp({ clock, config }), await createTestApp({ clock, config })];
    const [a, b] = apps as [TestApp, TestApp];
    const db = a.deps.db;
    const now = clock.now();
    await rawExec(db, "test.account", "INSERT INTO accounts (id, name, kind, created_at_ts) VALUES (?, ?, ?, ?)", ["acct-1", "A", "solo", now]);
    const feedIds = ["f1", "f2", "f3"];
    for (const id of feedIds)
      await insertFeed(db, {
        id,
        accountId: "acct-1",
        title: id,
        minScore: 0,
        includes: [],
        excludes: [],
        excludedCountries: [],
        includedCountries: [],
        jobTypes: [],
        webhookUrl: receiver.url,
        webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        createdAtTs: now,
        updatedAtTs: now,
      });
    const expected = new Map<string, string[]>(feedIds.map((f) => [f, []]));
    for (let i = 0; i < 20; i++) {
      const doc = makeDoc({ title: `Job ${i}` });
      const ct = `ct-${i}`;
      await rawExec(
        db,
        "test.job",
        `INSERT INTO jobs (ciphertext, platform, title, url, email_found, source, document, first_seen_at_ts, explored_at_ts, updated_at_ts)
         VALUES (?, 'marketplace', ?, 'https://example.com/j', ?, 'test', ?, ?, ?, ?)`,
        [ct, `Job ${i}`, false, JSON.stringify(doc), now, now, now],
      );
      for (const f of feedIds) {
        const feedJobId = `${f}-${i}`;
        const node = (i % 2 ? a : b).deps.db;
        await insertFeedEntry(node, {
          id: feedJobId,
          feedId: f,
          accountId: "acct-1",
          jobCiphertext: ct,
          matchingScore: 5,
          scoreSource: "default",
          scoreReason: null,
          matchedAtTs: now,
        });
        const id = `evt_${f}_${String(i).padStart(2, "0")}`;
        await insertEvent(node, {
          id,
          type: "job.matched",
          accountId: "acct-1",
          feedId: f,
          target: "webhook",
          feedJobId,
          jobCiphertext: ct,
          createdAtTs: now + i,
          status: "pending",
          nextAttemptAtTs: now + i,
        });
        expected.get(f)!.push(id);
      }
    }
    clock.advance(1_000);
    deliverers = apps.map((app) => createDeliverer(app.deps));
    for (const d of deliverers) d.start();
    await receiver.waitFor(60, 20_000);
    for (const d of deliverers) await d.idle(20_000);
    for (const f of feedIds) {
      const ids = receiver.received.filter((r) => r.json?.feedId === f).map((r) => r.headers["webhook-id"]!);
      const folded = ids.filter((id, i) => ids.indexOf(id) === i);
      expect(folded).toEqual(expected.get(f)!);
      // A repeat (at-least-once) never comes after a newer event of the feed.
      expect(ids.every((id, i) => i === 0 || expected.get(f)!.indexOf(id) >= expected.get(f)!.indexOf(ids[i - 1]!))).toBe(true);
    }
  }, 60_000);
});
