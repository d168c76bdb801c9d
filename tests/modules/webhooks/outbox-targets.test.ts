import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Db } from "../../../src/db/client";
import { closePgDatabase, openPgAsDb } from "../../../src/db/client-pg";
import { isPg, rawExec } from "../../../src/db/query";
import * as outbox from "../../../src/modules/feeds/outbox";
import * as feedsRepo from "../../../src/modules/feeds/repo";
import * as repo from "../../../src/modules/webhooks/repo";
import { openTestDb, type TestDb } from "../../helpers/db";
import { createMigratedPgDatabase, describePg, type TestPgDatabase } from "../../helpers/postgres";

// The outbox with several targets per feed (the webhook and channels), on the suite's backend: what is
// claimed together, what waits for what; and, on PostgreSQL, two nodes sharing it.

const T0 = Date.UTC(2026, 0, 15, 12);

async function seed(db: Db, feeds: string[]): Promise<void> {
  await rawExec(db, "test.account", "INSERT INTO accounts (id, name, kind, created_at_ts) VALUES (?, ?, ?, ?)", ["acct-1", "A", "solo", T0]);
  for (const id of feeds)
    await feedsRepo.insertFeed(db, {
      id,
      accountId: "acct-1",
      title: id,
      minScore: 0,
      includes: [],
      excludes: [],
      excludedCountries: [],
      includedCountries: [],
      jobTypes: [],
      createdAtTs: T0,
      updatedAtTs: T0,
    });
}

let n = 0;
async function addEvent(
  db: Db,
  feedId: string,
  target: string,
  at: number,
  over: { status?: "pending" | "retrying"; nextAttemptAtTs?: number } = {},
): Promise<string> {
  const id = `evt_${target}_${++n}`;
  await outbox.insertEvent(db, {
    id,
    type: "job.matched",
    accountId: "acct-1",
    feedId,
    target,
    feedJobId: null,
    jobCiphertext: `job-${n}`,
    createdAtTs: at,
    status: "pending",
    nextAttemptAtTs: over.nextAttemptAtTs ?? at,
  });
  if (over.status === "retrying") await rawExec(db, "test.retrying", "UPDATE events SET status = 'retrying' WHERE id = ?", [id]);
  return id;
}

/** One claim as the deliverer makes it, its leases let go at once (PostgreSQL). */
async function claim(db: Db, nowTs: number, opts: { busy?: string[]; paused?: string[]; scan?: number } = {}) {
  const claimed = await outbox.claimDueEvents(db, nowTs, opts.scan ?? 64, 64, new Set(opts.busy ?? []), 60_000, new Set(opts.paused ?? []));
  if (claimed.leaseUntilTs !== null) await outbox.releaseFeeds(db, [...new Set(claimed.events.map((e) => e.feedId))], claimed.leaseUntilTs);
  return { ids: claimed.events.map((e) => e.id), pauses: claimed.pauses };
}

const delivered = { status: "delivered" as const, nextAttemptAtTs: null };
const attemptAt = (ts: number) => ({ startedAtTs: ts, durationMs: 5, statusCode: 200, error: null });

describe("outbox targets", () => {
  let t: TestDb;
  let db: Db;
  beforeEach(async () => {
    t = await openTestDb();
    db = t.db;
    await seed(db, ["f1", "f2"]);
  });
  afterEach(() => t.close());

  test("a feed's targets are claimed side by side, each one event at a time; a target busy here is skipped", async () => {
    const hook1 = await addEvent(db, "f1", "webhook", T0);
    const a1 = await addEvent(db, "f1", "ch-a", T0);
    const b1 = await addEvent(db, "f1", "ch-b", T0);
    await addEvent(db, "f1", "webhook", T0 + 1);
    await addEvent(db, "f1", "ch-a", T0 + 1);
    expect((await claim(db, T0 + 5)).ids).toEqual([hook1, a1, b1]);
    expect(outbox.targetKey("f1", "webhook")).toBe("f1");
    const busy = await claim(db, T0 + 5, { busy: [outbox.targetKey("f1", "ch-a")] });
    // SQLite: the other targets go. PostgreSQL: a feed with an event in flight is held by this node already.
    expect(busy.ids).toEqual(isPg(db) ? [] : [hook1, b1]);
  });

  test("a channel's event waiting for its retry holds back the channel's newer events (and pauses the channel); a webhook's does not", async () => {
    const head = await addEvent(db, "f1", "ch-a", T0, { status: "retrying", nextAttemptAtTs: T0 + 30_000 });
    const newer = await addEvent(db, "f1", "ch-a", T0 + 1);
    await addEvent(db, "f1", "webhook", T0, { status: "retrying", nextAttemptAtTs: T0 + 30_000 });
    const hookNewer = await addEvent(db, "f1", "webhook", T0 + 1);
    const early = await claim(db, T0 + 5);
    expect(early.ids).toEqual([hookNewer]);
    expect(early.pauses).toEqual(new Map([["ch-a", T0 + 30_000]]));
    // Once the retry is due, it goes before the newer event, although that one has been due longer.
    const due = await claim(db, T0 + 30_000);
    expect(due.ids).toContain(head);
    expect(due.ids).not.toContain(newer);
  });

  test("paused channels are left out of the scan: a long queue for one cannot hide another feed's events", async () => {
    for (let i = 0; i < 40; i++) await addEvent(db, "f1", "ch-a", T0 + i);
    const other = await addEvent(db, "f2", "webhook", T0 + 100);
    expect((await claim(db, T0 + 200, { scan: 10, busy: [outbox.targetKey("f1", "ch-a")] })).ids).not.toContain(other);
    expect((await claim(db, T0 + 200, { scan: 10, paused: ["ch-a"] })).ids).toEqual([other]);
    expect((await outbox.dueEvents(db, T0 + 200, 100, new Set(["ch-a"]))).map((d) => d.target)).toEqual(["webhook"]);
  });

  test("de-duplication is per target", async () => {
    const first = await addEvent(db, "f1", "ch-a", T0);
    const [e] = (await outbox.pickDueEvents(db, T0, 10, 10, new Set())).events;
    expect(e!.id).toBe(first);
    await repo.recordAttempt(db, e!, attemptAt(T0), delivered);
    const same = (target: string) =>
      rawExec(
        db,
        "test.same",
        "INSERT INTO events (id, type, account_id, feed_id, target, job_ciphertext, created_at_ts, status, next_attempt_at_ts) VALUES (?, 'job.matched', 'acct-1', 'f1', ?, ?, ?, 'pending', ?)",
        [`again-${target}`, target, e!.jobCiphertext, T0 + 1, T0 + 1],
      );
    await same("ch-a");
    await same("webhook");
    const again = (id: string) => outbox.findEvent(db, "f1", id).then((x) => x!);
    expect(await outbox.deliveredRecently(db, await again("again-ch-a"), T0 - 1)).toBe(true);
    expect(await outbox.deliveredRecently(db, await again("again-webhook"), T0 - 1)).toBe(false);
  });
});

describePg("two nodes sharing an outbox with several targets per feed", () => {
  let pg: TestPgDatabase;
  let nodes: Db[];
  beforeAll(async () => {
    pg = await createMigratedPgDatabase();
    nodes = [openPgAsDb(pg.url, { max: 4 }), openPgAsDb(pg.url, { max: 4 })];
  });
  afterAll(async () => {
    for (const db of nodes) await closePgDatabase(db);
    await pg.drop();
  });

  test("each (feed, target)'s events go in order, at least once, and a feed is worked on by one node at a time", async () => {
    const [a, b] = nodes as [Db, Db];
    await seed(a, ["fa", "fb"]);
    const targets = ["webhook", "ch-1", "ch-2"];
    const expected = new Map<string, string[]>();
    for (let i = 0; i < 15; i++)
      for (const f of ["fa", "fb"])
        for (const target of targets) {
          const key = outbox.targetKey(f, target);
          expected.set(key, [...(expected.get(key) ?? []), await addEvent(i % 2 ? a : b, f, target, T0 + i)]);
        }
    const received = new Map<string, string[]>([...expected.keys()].map((k) => [k, []]));
    const nodeOf = new Map<string, number>();
    let overlaps = 0;
    const sentBy = [0, 0];
    async function node(db: Db, index: number): Promise<void> {
      const busy = new Set<string>();
      const running = new Set<Promise<void>>();
      const deadline = performance.now() + 20_000;
      while (performance.now() < deadline) {
        const claimed = await outbox.claimDueEvents(db, T0 + 1_000, 64, 8 - running.size, busy, 60_000);
        const perFeed = new Map<string, number>();
        for (const e of claimed.events) perFeed.set(e.feedId, (perFeed.get(e.feedId) ?? 0) + 1);
        for (const e of claimed.events) {
          const key = outbox.targetKey(e.feedId, e.target);
          busy.add(key);
          const work = (async () => {
            const holder = nodeOf.get(e.feedId);
            if (holder !== undefined && holder !== index) overlaps++;
            nodeOf.set(e.feedId, index);
            received.get(key)!.push(e.id);
            sentBy[index]!++;
            await Bun.sleep(Math.random() * 3);
            await repo.recordAttempt(db, e, attemptAt(T0 + 1_000), delivered);
            const left = perFeed.get(e.feedId)! - 1;
            perFeed.set(e.feedId, left);
            if (left === 0) {
              nodeOf.delete(e.feedId);
              await outbox.releaseFeeds(db, [e.feedId], claimed.leaseUntilTs!);
            }
          })().finally(() => {
            busy.delete(key);
            running.delete(work);
          });
          running.add(work);
        }
        if (running.size === 0 && (await outbox.dueEvents(db, T0 + 1_000, 1)).length === 0) return;
        await (running.size > 0 ? Promise.race(running) : Bun.sleep(1));
      }
      throw new Error("the outbox did not drain");
    }
    await Promise.all([node(a, 0), node(b, 1)]);
    expect(overlaps).toBe(0);
    for (const [key, ids] of expected) {
      const got = received.get(key)!;
      expect(
        got.filter((id, i) => got.indexOf(id) === i),
        key,
      ).toEqual(ids);
    }
    expect(sentBy[0]! > 0 && sentBy[1]! > 0).toBe(true);
  }, 30_000);
});
