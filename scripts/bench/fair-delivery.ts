/**
 * Fair delivery: what one pick of the deliverer costs as another account's backlog grows (issue 38, finding
 * 1). An attacker account queues N events over 500 targets (50 feeds × 10 channels, all paused for their
 * Slack pace, as they are most of the time); a victim has one due event. For each N it times the old global
 * scan (outbox.dueEvents: oldest due first, paused channels left out in the query) and the fair pick
 * (outbox-fair.ts fairCandidates), and says whether each found the victim's event. SQLite in memory, bounded:
 * at most 100,000 events.
 *
 *   bun run scripts/bench/fair-delivery.ts [maxEvents]
 */
import { closeDatabase, openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { rawExec } from "../../src/db/query";
import * as outbox from "../../src/modules/feeds/outbox";
import { fairCandidates, newFairCursor } from "../../src/modules/feeds/outbox-fair";

const MAX = Math.min(100_000, Number(process.argv[2] ?? 100_000));
const FEEDS = 50;
const CHANNELS = 10;
const T0 = Date.UTC(2026, 0, 15, 12);

async function run(events: number) {
  const db = openDatabase(":memory:");
  migrate(db.$client);
  for (const id of ["attacker", "victim"])
    await rawExec(db, "b.acct", "INSERT INTO accounts (id, name, kind, created_at_ts) VALUES (?, ?, 'solo', 0)", [id, id]);
  const feed = (id: string, account: string) =>
    rawExec(
      db,
      "b.feed",
      `INSERT INTO feeds (id, account_id, title, min_score, includes, excludes, excluded_countries, included_countries, job_types, created_at_ts, updated_at_ts)
       VALUES (?, ?, ?, 0, '[]', '[]', '[]', '[]', '[]', 0, 0)`,
      [id, account, id],
    );
  for (let f = 0; f < FEEDS; f++) await feed(`fa${f}`, "attacker");
  await feed("fv", "victim");
  const rows: outbox.EventInsert[] = [];
  for (let i = 0; i < events; i++) {
    const target = `ch${i % CHANNELS}`;
    rows.push({
      id: `e${i}`,
      type: "job.matched",
      accountId: "attacker",
      feedId: `fa${Math.floor(i / CHANNELS) % FEEDS}`,
      target,
      feedJobId: null,
      jobCiphertext: `j${i}`,
      createdAtTs: T0 + Math.floor(i / 500),
      status: "pending",
      nextAttemptAtTs: T0 + Math.floor(i / 500),
    });
  }
  rows.push({
    id: "victim",
    type: "job.matched",
    accountId: "victim",
    feedId: "fv",
    target: "webhook",
    feedJobId: null,
    jobCiphertext: "jv",
    createdAtTs: T0 + events,
    status: "pending",
    nextAttemptAtTs: T0 + events,
  });
  await outbox.insertEvents(db, rows);
  const now = T0 + events + 1;
  const paused = new Set(Array.from({ length: CHANNELS }, (_, i) => `ch${i}`));
  const time = async (f: () => Promise<boolean>) => {
    let found = false;
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) found = await f();
    return { ms: (performance.now() - t0) / 20, found };
  };
  const old = await time(async () => (await outbox.dueEvents(db, now, 512, paused)).some((d) => d.feedId === "fv"));
  const fair = await time(async () =>
    (await fairCandidates(db, now, 64, { cursor: newFairCursor(), roomOf: () => 16, isSkipped: (_f, t) => paused.has(t), seeksPerAccount: 64 })).some(
      (c) => c.feedId === "fv",
    ),
  );
  closeDatabase(db);
  return { events, oldScanMs: +old.ms.toFixed(3), oldFindsVictim: old.found, fairPickMs: +fair.ms.toFixed(3), fairFindsVictim: fair.found };
}

for (const n of [1_000, 10_000, 100_000].filter((n) => n <= MAX)) console.log(JSON.stringify(await run(n)));
