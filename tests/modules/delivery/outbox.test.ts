import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Db } from "../../../src/db/client";
import { tx } from "../../../src/db/client";
import { closePgDatabase, openPgAsDb } from "../../../src/db/client-pg";
import { isPg, rawExec, rawMany } from "../../../src/db/query";
import * as outbox from "../../../src/modules/feeds/outbox";
import * as feedsRepo from "../../../src/modules/feeds/repo";
import * as repo from "../../../src/modules/delivery/repo";
import { openTestDb, type TestDb } from "../../helpers/db";
import { createMigratedPgDatabase, describePg, type TestPgDatabase } from "../../helpers/postgres";

// The outbox and the delivery records against the real migrated schema, on the suite's backend (SQLite, or
// PostgreSQL in the suite's PostgreSQL pass); the cluster-wide claim below on PostgreSQL always when it is there.

const T0 = Date.UTC(2026, 0, 15, 12);
const HOUR = 3_600_000;

async function seedAccount(db: Db, id = "acct-1"): Promise<void> {
  await rawExec(db, "test.account", "INSERT INTO accounts (id, name, kind, created_at_ts) VALUES (?, ?, ?, ?)", [id, "A", "solo", T0]);
}

async function seedFeed(db: Db, id: string, accountId = "acct-1"): Promise<feedsRepo.FeedRow> {
  return feedsRepo.insertFeed(db, {
    id,
    accountId,
    title: `feed ${id}`,
    minScore: 0,
    includes: [],
    excludes: [],
    excludedCountries: [],
    includedCountries: [],
    jobTypes: [],
    webhookUrl: "https://hooks.example/x",
    webhookSecret: "whsec_test",
    createdAtTs: T0,
    updatedAtTs: T0,
  });
}

let n = 0;
/** An event to the feed's webhook, or to `target` (a channel), due at `at` or `nextAttemptAtTs`; `retrying` as after a failure. */
async function addEvent(
  db: Db,
  feedId: string,
  at: number,
  job: string | null = `job-${n}`,
  opts: { target?: string; retrying?: boolean; nextAttemptAtTs?: number } = {},
): Promise<string> {
  const id = `evt_${++n}`;
  await outbox.insertEvent(db, {
    id,
    type: "job.matched",
    accountId: "acct-1",
    feedId,
    target: opts.target ?? "webhook",
    feedJobId: null,
    jobCiphertext: job,
    createdAtTs: at,
    status: "pending",
    nextAttemptAtTs: opts.nextAttemptAtTs ?? at,
  });
  if (opts.retrying) await rawExec(db, "test.retrying", "UPDATE events SET status = 'retrying' WHERE id = ?", [id]);
  return id;
}
const toChannel = (target: string, more: { retrying?: boolean; nextAttemptAtTs?: number } = {}) => ({ target, ...more });

/**
 * PostgreSQL: stamps what a claim would look at, then waits until every transaction older than the stamps
 * has ended (other sessions on a shared test server hold that back a little), so the next claim sees every
 * event settled, as a deliverer does a moment later. Nothing to wait for on SQLite.
 */
async function settle(db: Db, nowTs: number, max = 64): Promise<void> {
  if (!isPg(db)) return;
  const stamping = await outbox.claimDueEvents(db, nowTs, 1_000, max, new Set(), 60_000);
  await outbox.releaseFeeds(db, [...new Set(stamping.events.map((e) => e.feedId))], stamping.leaseUntilTs ?? 0);
  for (const deadline = performance.now() + 10_000; performance.now() < deadline; await Bun.sleep(20)) {
    const [row] = await rawMany<{ settled: boolean }>(
      db,
      "test.settled",
      "SELECT coalesce(max(visible_after_xid), 0) <= pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS settled FROM events",
      [],
    );
    if (row?.settled) return;
  }
}

/** One claim as the deliverer makes it (once what it looks at is settled), its leases let go at once (PostgreSQL). */
async function claim(db: Db, nowTs: number, opts: { busy?: string[]; paused?: string[]; scan?: number } = {}) {
  await settle(db, nowTs);
  const claimed = await outbox.claimDueEvents(db, nowTs, opts.scan ?? 64, 64, new Set(opts.busy ?? []), 60_000, new Set(opts.paused ?? []));
  if (claimed.leaseUntilTs !== null) await outbox.releaseFeeds(db, [...new Set(claimed.events.map((e) => e.feedId))], claimed.leaseUntilTs);
  return { ids: claimed.events.map((e) => e.id), pauses: claimed.pauses };
}

const delivered = { status: "delivered" as const, nextAttemptAtTs: null };
const attemptAt = (ts: number) => ({ startedAtTs: ts, durationMs: 5, statusCode: 200, error: null });

describe("outbox and delivery records", () => {
  let t: TestDb;
  let db: Db;
  beforeEach(async () => {
    t = await openTestDb();
    db = t.db;
    await seedAccount(db);
    await seedFeed(db, "f1");
    await seedFeed(db, "f2");
  });
  afterEach(() => t.close());

  test("due events oldest first; a pick takes the oldest of each feed that is not busy, and nothing not yet due", async () => {
    await addEvent(db, "f1", T0);
    await addEvent(db, "f2", T0 + 1);
    await addEvent(db, "f1", T0 + 2);
    await addEvent(db, "f2", T0 + 10_000);
    const due = await outbox.dueEvents(db, T0 + 5, 10);
    expect(due.map((d) => d.feedId)).toEqual(["f1", "f2", "f1"]);
    expect(typeof due[0]!.seq).toBe("number");
    const picked = (await outbox.pickDueEvents(db, T0 + 5, 10, 10, new Set())).events;
    expect(picked.map((e) => [e.feedId, e.createdAtTs])).toEqual([
      ["f1", T0],
      ["f2", T0 + 1],
    ]);
    expect((await outbox.pickDueEvents(db, T0 + 5, 10, 10, new Set(["f1"]))).events.map((e) => e.feedId)).toEqual(["f2"]);
    await settle(db, T0 + 5);
    const claimed = await outbox.claimDueEvents(db, T0 + 5, 10, 1, new Set(), 60_000);
    expect(claimed.events.map((e) => e.createdAtTs)).toEqual([T0]);
  });

  test("de-duplication: a job delivered to a feed within the window is seen for that feed only", async () => {
    await addEvent(db, "f1", T0, "job-x");
    const [first] = (await outbox.pickDueEvents(db, T0, 10, 10, new Set())).events;
    await repo.recordAttempt(db, first!, attemptAt(T0), delivered);
    const againId = await addEvent(db, "f1", T0 + HOUR, "job-x");
    const otherFeedId = await addEvent(db, "f2", T0 + HOUR, "job-x");
    const again = (await outbox.findEvent(db, "f1", againId))!;
    const otherFeed = (await outbox.findEvent(db, "f2", otherFeedId))!;
    expect(await outbox.deliveredRecently(db, again, T0 + HOUR - 24 * HOUR)).toBe(true);
    expect(await outbox.deliveredRecently(db, again, T0 + 25 * HOUR - 24 * HOUR)).toBe(false);
    expect(await outbox.deliveredRecently(db, otherFeed, T0 + HOUR - 24 * HOUR)).toBe(false);
    // The event itself never counts as its own earlier delivery.
    expect(await outbox.deliveredRecently(db, (await outbox.findEventBySeq(db, first!.seq))!, T0 - HOUR)).toBe(false);
  });

  test("an attempt and the event's new state are booked together; the history lists them", async () => {
    const id = await addEvent(db, "f1", T0);
    const [e] = (await outbox.pickDueEvents(db, T0, 10, 10, new Set())).events;
    await repo.recordAttempt(
      db,
      e!,
      { startedAtTs: T0, durationMs: 7, statusCode: 500, error: "HTTP 500" },
      { status: "retrying", nextAttemptAtTs: T0 + 30_000 },
    );
    expect(await outbox.dueEvents(db, T0 + 29_999, 10)).toEqual([]);
    const retried = (await outbox.findEvent(db, "f1", id))!;
    expect(retried).toMatchObject({ status: "retrying", attempts: 1, nextAttemptAtTs: T0 + 30_000, lastStatusCode: 500, lastError: "HTTP 500" });
    await repo.recordAttempt(db, retried, attemptAt(T0 + 30_000), delivered);
    const listed = await outbox.listEvents(db, "f1", { limit: 10, offset: 0 });
    expect(listed.total).toBe(1);
    expect(listed.items[0]).toMatchObject({ id, status: "delivered", attempts: 2, deliveredAtTs: T0 + 30_005, nextAttemptAtTs: null });
    expect((await repo.attemptsOf(db, [e!.seq])).map((a) => [a.attempt, a.statusCode, a.startedAtTs])).toEqual([
      [1, 500, T0],
      [2, 200, T0 + 30_000],
    ]);
    expect(await outbox.listEvents(db, "f1", { limit: 10, offset: 0, status: "failed" })).toEqual({ items: [], total: 0 });
  });

  test("endpoint health: a final failure starts the streak, past the limit disables once, a success clears it", async () => {
    expect(await feedsRepo.noteDeliveryOutcome(db, "f1", false, T0, 24 * HOUR, "HTTP 500")).toBe("failing");
    expect(await feedsRepo.noteDeliveryOutcome(db, "f1", false, T0 + HOUR, 24 * HOUR, "HTTP 500")).toBe("failing");
    expect(await feedsRepo.noteDeliveryOutcome(db, "f1", false, T0 + 24 * HOUR, 24 * HOUR, "HTTP 502")).toBe("disabled");
    const disabled = (await feedsRepo.findFeedById(db, "f1"))!;
    expect(disabled.webhookFailingSinceTs).toBe(T0);
    expect(disabled.webhookDisabledAtTs).toBe(T0 + 24 * HOUR);
    expect(disabled.webhookDisabledReason).toContain("last: HTTP 502");
    expect((await feedsRepo.feedsWithWebhookProblems(db, "acct-1")).map((p) => p.feedId)).toEqual(["f1"]);
    expect(await feedsRepo.noteDeliveryOutcome(db, "f2", true, T0, 24 * HOUR, "")).toBe("ok");
    expect(await feedsRepo.noteDeliveryOutcome(db, "nope", false, T0, 24 * HOUR, "x")).toBe("ok");
  });

  test("feed entries: one per job and feed; counts per bucket; best scores", async () => {
    for (const job of ["j1", "j2"])
      await rawExec(
        db,
        "test.job",
        `INSERT INTO jobs (ciphertext, platform, title, url, email_found, source, document, first_seen_at_ts, explored_at_ts, updated_at_ts)
         VALUES (?, 'marketplace', 'A job', 'https://example.com/j', ?, 'test', '{}', ?, ?, ?)`,
        [job, false, T0, T0, T0],
      );
    const entry = (id: string, feedId: string, job: string, score: number, at: number) =>
      feedsRepo.insertFeedEntry(db, {
        id,
        feedId,
        accountId: "acct-1",
        jobCiphertext: job,
        matchingScore: score,
        scoreSource: "default",
        scoreReason: null,
        matchedAtTs: at,
      });
    expect(await entry("e1", "f1", "j1", 3, T0)).toBe(true);
    expect(await entry("e2", "f1", "j1", 9, T0)).toBe(false);
    expect(await entry("e3", "f1", "j2", 7.5, T0 + 2 * HOUR)).toBe(true);
    expect(await entry("e4", "f2", "j1", 8, T0 + HOUR)).toBe(true);
    const counts = await feedsRepo.entryCountsPerFeed(db, "acct-1", T0, HOUR);
    expect(counts.map((c) => [c.feedId, c.bucket, c.count]).sort()).toEqual([
      ["f1", 0, 1],
      ["f1", 2, 1],
      ["f2", 1, 1],
    ]);
    expect(await feedsRepo.entryCountsPerFeed(db, "acct-1", T0 + 10 * HOUR, HOUR)).toEqual(
      expect.arrayContaining([expect.objectContaining({ feedId: "f1", bucket: null, count: 0 })]),
    );
    expect(await feedsRepo.bestScoresOfJobs(db, "acct-1", ["j1", "j2", "j3"])).toEqual(
      new Map([
        ["j1", 8],
        ["j2", 7.5],
      ]),
    );
    expect(await feedsRepo.entryScores(db, ["e1", "e3", "gone"])).toEqual(
      new Map([
        ["e1", 3],
        ["e3", 7.5],
      ]),
    );
    expect(await feedsRepo.findFeedJob(db, "f1", "e3")).toMatchObject({ jobCiphertext: "j2", matchingScore: 7.5, read: false });
    expect(await feedsRepo.countFeeds(db, "acct-1")).toBe(2);
    expect(await feedsRepo.deleteFeed(db, "acct-1", "f1")).toBe(true);
    expect(await feedsRepo.matchesOfJob(db, "acct-1", "j1")).toHaveLength(1);
  });

  test("a feed's targets are claimed side by side, each one event at a time; a target busy here is skipped", async () => {
    const hook1 = await addEvent(db, "f1", T0);
    const a1 = await addEvent(db, "f1", T0, undefined, toChannel("ch-a"));
    const b1 = await addEvent(db, "f1", T0, undefined, toChannel("ch-b"));
    await addEvent(db, "f1", T0 + 1);
    await addEvent(db, "f1", T0 + 1, undefined, toChannel("ch-a"));
    expect((await claim(db, T0 + 5)).ids).toEqual([hook1, a1, b1]);
    expect(outbox.targetKey("f1", "webhook")).toBe("f1");
    const busy = await claim(db, T0 + 5, { busy: [outbox.targetKey("f1", "ch-a")] });
    // SQLite: the other targets go. PostgreSQL: a feed with an event in flight is held by this node already.
    expect(busy.ids).toEqual(isPg(db) ? [] : [hook1, b1]);
  });

  test("a channel's event waiting for its retry holds back the channel's newer events (and pauses the channel); a webhook's does not", async () => {
    const head = await addEvent(db, "f1", T0, undefined, toChannel("ch-a", { retrying: true, nextAttemptAtTs: T0 + 30_000 }));
    const newer = await addEvent(db, "f1", T0 + 1, undefined, toChannel("ch-a"));
    await addEvent(db, "f1", T0, undefined, { retrying: true, nextAttemptAtTs: T0 + 30_000 });
    const hookNewer = await addEvent(db, "f1", T0 + 1);
    const early = await claim(db, T0 + 5);
    expect(early.ids).toEqual([hookNewer]);
    expect(early.pauses).toEqual(new Map([["ch-a", T0 + 30_000]]));
    // Once the retry is due, it goes before the newer event, although that one has been due longer.
    const due = await claim(db, T0 + 30_000);
    expect(due.ids).toContain(head);
    expect(due.ids).not.toContain(newer);
  });

  test("a long queue for one busy or paused channel cannot hide another feed's events (the pick walks targets, not the backlog)", async () => {
    for (let i = 0; i < 40; i++) await addEvent(db, "f1", T0 + i, undefined, toChannel("ch-a"));
    const other = await addEvent(db, "f2", T0 + 100);
    // The old global scan of the 10 oldest due events saw only ch-a's queue here and missed `other`.
    expect((await claim(db, T0 + 200, { scan: 10, busy: [outbox.targetKey("f1", "ch-a")] })).ids).toEqual([other]);
    expect((await claim(db, T0 + 200, { scan: 10, paused: ["ch-a"] })).ids).toEqual([other]);
    expect((await outbox.dueEvents(db, T0 + 200, 100, new Set(["ch-a"]))).map((d) => d.target)).toEqual(["webhook"]);
  });

  test("de-duplication is per target", async () => {
    const first = await addEvent(db, "f1", T0, undefined, toChannel("ch-a"));
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

/**
 * Two nodes draining one outbox as deliverers do (claim, send with a random delay, book, let the feed go
 * after its last event in flight), until nothing is due. Counts an overlap whenever an event goes while
 * another of its target key is in flight, or while another node works on its feed. Returns what each target
 * key received, in arrival order (events earlier tests left due are sent too).
 */
async function drainOnTwoNodes(nodes: Db[]): Promise<{ received: Map<string, string[]>; overlaps: number; sentBy: number[] }> {
  const received = new Map<string, string[]>();
  const holders = new Map<string, { node: number; inFlight: number }>();
  const keysInFlight = new Set<string>();
  let overlaps = 0;
  const sentBy = nodes.map(() => 0);
  async function node(db: Db, index: number): Promise<void> {
    const busy = new Set<string>();
    const running = new Set<Promise<void>>();
    const deadline = performance.now() + 20_000;
    while (performance.now() < deadline) {
      const claimed = await outbox.claimDueEvents(db, T0 + 1_000, 64, 4 - running.size, busy, 60_000);
      const perFeed = new Map<string, number>();
      for (const e of claimed.events) perFeed.set(e.feedId, (perFeed.get(e.feedId) ?? 0) + 1);
      for (const e of claimed.events) {
        const key = outbox.targetKey(e.feedId, e.target);
        busy.add(key);
        const work = (async () => {
          const holder = holders.get(e.feedId);
          if ((holder !== undefined && holder.node !== index) || keysInFlight.has(key)) overlaps++;
          holders.set(e.feedId, { node: index, inFlight: (holder?.node === index ? holder.inFlight : 0) + 1 });
          keysInFlight.add(key);
          received.set(key, [...(received.get(key) ?? []), e.id]);
          sentBy[index]!++;
          await Bun.sleep(Math.random() * 3);
          keysInFlight.delete(key);
          const held = holders.get(e.feedId)!;
          if (--held.inFlight === 0) holders.delete(e.feedId);
          await repo.recordAttempt(db, e, attemptAt(T0 + 1_000), delivered);
          const left = perFeed.get(e.feedId)! - 1;
          perFeed.set(e.feedId, left);
          if (left === 0) await outbox.releaseFeeds(db, [e.feedId], claimed.leaseUntilTs!);
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
  await Promise.all(nodes.map((db, i) => node(db, i)));
  return { received, overlaps, sentBy };
}

describePg("two nodes sharing one outbox", () => {
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

  test("each feed's events go out one at a time, in order, each at least once, whichever node sends them", async () => {
    const [a, b] = nodes as [Db, Db];
    await seedAccount(a);
    const feedIds = ["fa", "fb", "fc"];
    for (const id of feedIds) await seedFeed(a, id);
    const expected = new Map<string, string[]>(feedIds.map((f) => [f, []]));
    for (let i = 0; i < 30; i++) for (const f of feedIds) expected.get(f)!.push(await addEvent(i % 2 ? a : b, f, T0 + i));

    const { received, overlaps, sentBy } = await drainOnTwoNodes(nodes);

    expect(overlaps).toBe(0);
    for (const f of feedIds) {
      // At least once and in order: what arrived, with repeats folded, is exactly the feed's events in match order.
      const got = received.get(f) ?? [];
      const folded = got.filter((id, i, all) => all.indexOf(id) === i);
      expect(folded).toEqual(expected.get(f)!);
      expect(got.every((id, i, all) => i === 0 || expected.get(f)!.indexOf(id) >= expected.get(f)!.indexOf(all[i - 1]!))).toBe(true);
    }
    expect(sentBy[0]! > 0 && sentBy[1]! > 0).toBe(true);
  }, 30_000);

  test("an event is not sent while a transaction holding an older event of its feed is still open", async () => {
    const [a, b] = nodes as [Db, Db];
    await seedAccount(a, "acct-late");
    await seedFeed(a, "f-late", "acct-late");
    const claim = async () => {
      const claimed = await outbox.claimDueEvents(a, T0 + 1_000, 64, 4, new Set(), 60_000);
      if (claimed.leaseUntilTs !== null) await outbox.releaseFeeds(a, [...new Set(claimed.events.map((e) => e.feedId))], claimed.leaseUntilTs);
      return claimed.events.filter((e) => e.feedId === "f-late").map((e) => e.id);
    };
    // T1 (node a) writes the feed's older event and stays open; T2 (node b) writes a newer one and commits.
    let finishT1!: () => void;
    const t1Open = new Promise<void>((resolve) => {
      finishT1 = resolve;
    });
    let older!: string;
    let t1Wrote!: () => void;
    const t1HasWritten = new Promise<void>((resolve) => {
      t1Wrote = resolve;
    });
    const t1 = tx(a, async (t) => {
      older = await addEvent(t, "f-late", T0);
      t1Wrote();
      await t1Open;
    });
    let newer: string;
    try {
      await t1HasWritten;
      newer = await tx(b, (t) => addEvent(t, "f-late", T0));
      const seqs = await rawMany<{ id: string }>(b, "test.seqs", "SELECT id FROM events WHERE feed_id = ?", ["f-late"]);
      expect(seqs.map((r) => r.id)).toEqual([newer]); // T1's event is not visible yet
      // Only the newer event is visible, but sending it now would put it before the older one: nothing goes out.
      expect(await claim()).toEqual([]);
    } finally {
      finishT1();
      await t1;
    }
    expect(Number((await outbox.findEvent(a, "f-late", older))!.seq)).toBeLessThan(Number((await outbox.findEvent(a, "f-late", newer))!.seq));
    // Once T1 is committed, the older event goes first (after every transaction older than the check has ended:
    // other sessions on the shared test server may hold that back a little).
    let first: string[] = [];
    for (const deadline = performance.now() + 10_000; first.length === 0 && performance.now() < deadline; ) {
      first = await claim();
      if (first.length === 0) await Bun.sleep(20);
    }
    expect(first).toEqual([older]);
  }, 30_000);

  test("each (feed, target)'s events go in order, at least once, and a feed is worked on by one node at a time", async () => {
    const [a, b] = nodes as [Db, Db];
    await seedAccount(a, "acct-targets");
    for (const id of ["fa-t", "fb-t"]) await seedFeed(a, id, "acct-targets");
    const targets = ["webhook", "ch-1", "ch-2"];
    const expected = new Map<string, string[]>();
    for (let i = 0; i < 15; i++)
      for (const f of ["fa-t", "fb-t"])
        for (const target of targets) {
          const key = outbox.targetKey(f, target);
          expected.set(key, [...(expected.get(key) ?? []), await addEvent(i % 2 ? a : b, f, T0 + i, undefined, toChannel(target))]);
        }
    const { received, overlaps, sentBy } = await drainOnTwoNodes(nodes);
    expect(overlaps).toBe(0);
    for (const [key, ids] of expected) {
      const got = received.get(key) ?? [];
      expect(
        got.filter((id, i) => got.indexOf(id) === i),
        key,
      ).toEqual(ids);
    }
    expect(sentBy[0]! > 0 && sentBy[1]! > 0).toBe(true);
  }, 30_000);
});
