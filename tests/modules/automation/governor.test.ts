import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { runDueTasks } from "../../helpers/apply-worker";
import { makeDoc } from "../../helpers/factories";
import { createMigratedPgDatabase, PG_BACKEND } from "../../helpers/postgres";

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Monday 7 December 2026, 08:30 UTC: half an hour before the working day the tests set. */
const MONDAY_0830 = Date.UTC(2026, 11, 7, 8, 30);
const WORKING = { timeZone: "UTC", days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" };

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function open(clock: ManualClock, where: { dbPath?: string; databaseUrl?: string }) {
  t = await createTestApp({
    clock,
    dbPath: where.dbPath,
    config: { governor: true, sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, ...(where.databaseUrl ? { databaseUrl: where.databaseUrl } : {}) },
  });
  return t;
}

/** Moves the clock in `stepMs` steps to `toTs`, running what is due at each step. */
async function runUntil(app: TestApp, toTs: number, stepMs = MIN): Promise<void> {
  while (app.clock.now() < toTs) {
    app.clock.set(Math.min(toTs, app.clock.now() + stepMs));
    await runDueTasks(app);
  }
}

interface AppRow {
  id: string;
  status: string;
  governed_at_ts: number | null;
  processed_at_ts: number | null;
  held_reason: string | null;
  origin: string | null;
  message: string | null;
}
const applications = (app: TestApp) =>
  rawMany<AppRow>(
    app.deps.db,
    "test.apps",
    "SELECT id, status, governed_at_ts, processed_at_ts, held_reason, origin, status_message AS message FROM applications ORDER BY governed_at_ts",
    [],
  );

const TOPICS = ["payments", "inventory", "robotics", "genomics", "logistics", "weather", "music", "chess", "satellites", "recipes"];
/** A fresh Rust job with a title and description of its own (the built-in writer quotes them, so letters differ). */
function rustDoc(i: number, nowTs: number) {
  const topic = TOPICS[i % TOPICS.length]!;
  return makeDoc({
    title: `Rust engineer for a ${topic} service, project ${i}`,
    description: `We need a Rust backend for ${topic} number ${i}: ingest ${i * 7} events a second, expose a gRPC API and document it for team ${i}.`,
    skills: ["Rust"],
    fixed: 800 + i,
    publishTime: new Date(nowTs - MIN).toISOString(),
  });
}

async function autoAccount(app: TestApp, limits: Record<string, unknown>) {
  const a = await app.account({ credits: 500 });
  await ensureOwnFreelancer(app.deps.db, a.accountId, app.clock.now());
  await setConnects(app.deps.db, freelancerIdFor(a.accountId), 100_000);
  const patched = await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: limits });
  expect(patched.status, show(patched)).toBe(200);
  const feed = await app.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "Rust", minScore: 0, includes: ["rust"] } });
  expect(feed.status, show(feed)).toBe(201);
  const feedId = feed.body.feed.id as string;
  const mode = await app.request("PUT", `/api/v1/automation/feeds/${feedId}`, { key: a.apiKey, json: { applyMode: "auto", minScore: 0 } });
  expect(mode.status, show(mode)).toBe(200);
  return { ...a, feedId };
}

async function allAudit(app: TestApp, key: string): Promise<{ action: string; rule: string; applicationId: string | null }[]> {
  const out = [];
  for (let offset = 0; ; offset += 100) {
    const page = await app.request("GET", `/api/v1/audit?limit=100&offset=${offset}`, { key });
    expect(page.status, show(page)).toBe(200);
    out.push(...page.body.entries);
    if (out.length >= page.body.total) return out;
  }
}

async function burstDay(where: () => Promise<{ dbPath?: string; databaseUrl?: string }>) {
  const clock = new ManualClock(MONDAY_0830);
  const place = await where();
  let app = await open(clock, place);
  const a = await autoAccount(app, { proposalsPerDay: 15, proposalsPerHour: 4, minGapMinutes: 6, workingHours: WORKING, connectsPerDay: 10_000 });
  const docs = Array.from({ length: 100 }, (_, i) => rustDoc(i, clock.now()));
  expect((await ingestDocuments(app.deps, docs, { source: "test" })).matched).toBe(100);

  // Before 09:00 everything is queued and put off: nothing goes out of working hours.
  await runDueTasks(app);
  let rows = await applications(app);
  expect(rows.length).toBe(100);
  expect(rows.filter((r) => r.governed_at_ts !== null)).toEqual([]);
  expect(rows.every((r) => r.origin === "auto" && r.status === "processing")).toBe(true);

  // Through Monday's working day.
  await runUntil(app, Date.UTC(2026, 11, 7, 17, 30));
  rows = await applications(app);
  const sent = rows.filter((r) => r.governed_at_ts !== null);
  expect(sent.length).toBe(15);
  expect(sent.every((r) => r.status === "applied")).toBe(true);
  const times = sent.map((r) => Number(r.governed_at_ts));
  for (const at of times) {
    const d = new Date(at);
    expect(d.getUTCHours() >= 9 && d.getUTCHours() < 17, d.toISOString()).toBe(true);
  }
  // Paced: at least 6 minutes apart, not on a fixed beat, and never more than 4 in any hour.
  const gaps = times.slice(1).map((at, i) => at - times[i]!);
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(6 * MIN);
  expect(new Set(gaps).size).toBeGreaterThan(3);
  for (const at of times) expect(times.filter((x) => x >= at && x < at + HOUR).length).toBeLessThanOrEqual(4);
  // The rest wait, uncharged: 15 credits spent of 500.
  expect(rows.filter((r) => r.status === "processing").length).toBe(85);
  // The built-in writer's letters for two jobs on one topic come out over 80 % alike: the guard held those for review
  // (never sent, never counted) rather than send them.
  const held = rows.filter((r) => r.held_reason !== null);
  for (const r of held) {
    expect(r.held_reason).toMatch(/^similar:/);
    expect(Number(r.held_reason!.split(":")[2])).toBeGreaterThanOrEqual(0.8);
  }
  const account = (await app.request("GET", "/api/v1/account", { key: a.apiKey })).body.account;
  expect([account.credits + account.creditsHeld, account.creditsHeld]).toEqual([500 - 15, 85]);
  const usage = await app.request("GET", "/api/v1/automation", { key: a.apiKey });
  expect(usage.body.usage.today.proposals).toBe(15);

  // A restart in the evening does not reset the day: nothing more goes out before Tuesday 09:00.
  await app.close();
  t = undefined;
  app = await open(clock, place);
  await runUntil(app, Date.UTC(2026, 11, 8, 8, 59), 10 * MIN);
  expect((await applications(app)).filter((r) => r.governed_at_ts !== null).length).toBe(15);
  // Tuesday: the next 15.
  await runUntil(app, Date.UTC(2026, 11, 8, 17, 30));
  const tuesday = (await applications(app)).filter((r) => r.governed_at_ts !== null && Number(r.governed_at_ts) >= Date.UTC(2026, 11, 8));
  expect(tuesday.length).toBe(15);
  // The audit log says what happened and why, once per kind of wait: not every time a queue of 85 is judged again.
  const audit = await allAudit(app, a.apiKey);
  const of = (action: string, prefix: string) => audit.filter((e) => e.action === action && e.rule.startsWith(prefix));
  expect(audit.filter((e) => e.action === "submit").length).toBe(30);
  expect(audit.filter((e) => e.action === "queue").length).toBe(100);
  expect(of("wait", "working hours: outside 09:00–17:00 UTC").length).toBeGreaterThanOrEqual(100);
  // Those judged after the 15th before 17:00 wait for the daily cap; the rest for the next working day.
  expect(of("wait", "daily cap: 15 of 15 proposals today").length).toBeGreaterThan(0);
  expect(of("wait", "pacing:").length).toBeGreaterThan(0);
  expect(audit.length).toBeLessThan(1500);
}

describe("the governor on an auto feed", () => {
  test("a burst of 100 matches with 15 a day sends exactly 15 on Monday, in working hours and paced; a restart does not reset the day", async () => {
    await burstDay(async () =>
      PG_BACKEND ? { databaseUrl: (await createMigratedPgDatabase()).url } : { dbPath: join(mkdtempSync(join(tmpdir(), "jobpilot-gov-")), "db.sqlite") },
    );
  }, 120_000);
});

/** An account applying by hand through the API, with the sandbox's Connects ample and the given limits. */
async function handAccount(app: TestApp, limits: Record<string, unknown>) {
  const a = await app.account({ credits: 500 });
  await ensureOwnFreelancer(app.deps.db, a.accountId, app.clock.now());
  await setConnects(app.deps.db, freelancerIdFor(a.accountId), 100_000);
  const patched = await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: limits });
  expect(patched.status, show(patched)).toBe(200);
  return a;
}

async function archived(app: TestApp, i: number, connectPrice?: number): Promise<string> {
  const doc = rustDoc(i, app.clock.now());
  if (connectPrice !== undefined) doc.connectPrice = connectPrice;
  await ingestDocuments(app.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const LETTER =
  "Hello, I have built Rust services that ingest events at high rates and expose gRPC APIs with clear documentation. I would start by profiling your current pipeline, then design the schema with you, and deliver a tested service in small weekly steps. Could we talk about the event volume you expect next year?";
const OTHER_LETTER =
  "Hi there. Your logistics platform needs a dependable backend: I wrote a routing engine in Rust for a courier company that plans 40,000 stops a day. For you I would begin with the data model for shipments and depots, add an async API, and measure it against your peak week. Which carrier integrations matter most to you?";

describe("the letter similarity guard", () => {
  test("a letter copied from one sent yesterday is held with the reason and the earlier letter; a different one goes out; approve sends it", async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 7, 10, 0));
    const app = await open(clock, {});
    const a = await handAccount(app, { minGapMinutes: 0 });
    const apply = async (cipher: string, coverLetter: string) => {
      const res = await app.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId: cipher, coverLetter } });
      expect(res.status, show(res)).toBe(200);
      await runDueTasks(app);
      return res.body.queueId as string;
    };
    const status = async (queueId: string) =>
      (await app.request("GET", `/api/auto-apply-v2/status?queueId=${queueId}`, { key: a.apiKey })).body.applicationStatus;
    const first = await apply(await archived(app, 1), LETTER);
    expect(await status(first)).toBe("applied");

    clock.advance(24 * HOUR);
    // The same letter with a word changed: still over 80 % alike.
    const copied = await apply(await archived(app, 2), LETTER.replace("Hello,", "Hi,"));
    expect(await status(copied)).toBe("processing");
    const different = await apply(await archived(app, 3), OTHER_LETTER);
    expect(await status(different)).toBe("applied");

    const held = await app.request("GET", "/api/v1/applications/held", { key: a.apiKey });
    expect(held.status, show(held)).toBe(200);
    expect(held.body.total).toBe(1);
    const item = held.body.applications[0];
    expect(item).toMatchObject({ queueId: copied, kind: "similar", origin: "person" });
    expect(item.why).toContain("% like one this freelancer sent in the last 30 days");
    expect(item.similarTo.queueId).toBe(first);
    expect(item.similarTo.coverLetter).toBe(LETTER);
    expect(item.similarTo.similarity).toBeGreaterThanOrEqual(0.8);
    const audit = await allAudit(app, a.apiKey);
    expect(audit.some((e) => e.action === "hold" && e.applicationId === copied && /letter \d+ % like one sent in the last 30 days/.test(e.rule))).toBe(true);

    // Another account sees none of it; approving twice is a 409 the second time.
    const b = await app.account({ name: "other" });
    expect((await app.request("GET", "/api/v1/applications/held", { key: b.apiKey })).body.total).toBe(0);
    expect((await app.request("POST", `/api/v1/applications/${copied}/approve`, { key: b.apiKey, json: {} })).status).toBe(404);
    const approved = await app.request("POST", `/api/v1/applications/${copied}/approve`, { key: a.apiKey, json: {} });
    expect(approved.status, show(approved)).toBe(200);
    expect(approved.body).toMatchObject({ queueId: copied, applicationStatus: "processing", held: false });
    expect((await app.request("POST", `/api/v1/applications/${copied}/approve`, { key: a.apiKey, json: {} })).status).toBe(409);
    await runDueTasks(app);
    expect(await status(copied)).toBe("applied");
  });

  test("a held letter rewritten at review goes out as rewritten; a discarded one ends failed and uncharged", async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 7, 10, 0));
    const app = await open(clock, {});
    const a = await handAccount(app, { minGapMinutes: 0 });
    const apply = async (cipher: string, coverLetter: string) => {
      const res = await app.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId: cipher, coverLetter } });
      await runDueTasks(app);
      return res.body.queueId as string;
    };
    await apply(await archived(app, 1), LETTER);
    const rewrite = await apply(await archived(app, 2), LETTER);
    const drop = await apply(await archived(app, 3), LETTER);
    expect((await app.request("GET", "/api/v1/applications/held", { key: a.apiKey })).body.total).toBe(2);
    const before = (await app.request("GET", "/api/v1/account", { key: a.apiKey })).body.account;

    const bad = await app.request("POST", `/api/v1/applications/${rewrite}/approve`, { key: a.apiKey, json: { coverLetter: "" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("coverLetter");
    expect((await app.request("POST", `/api/v1/applications/${rewrite}/approve`, { key: a.apiKey, json: { coverLetter: OTHER_LETTER } })).status).toBe(200);
    const discarded = await app.request("POST", `/api/v1/applications/${drop}/discard`, { key: a.apiKey });
    expect(discarded.status, show(discarded)).toBe(200);
    expect(discarded.body).toMatchObject({ applicationStatus: "failed", held: false });
    await runDueTasks(app);
    const rows = await rawMany<{ id: string; status: string; cover_letter: string }>(
      app.deps.db,
      "test.letters",
      "SELECT id, status, cover_letter FROM applications",
      [],
    );
    expect(rows.find((r) => r.id === rewrite)).toMatchObject({ status: "applied", cover_letter: OTHER_LETTER });
    expect(rows.find((r) => r.id === drop)?.status).toBe("failed");
    const after = (await app.request("GET", "/api/v1/account", { key: a.apiKey })).body.account;
    // One credit charged (the rewritten letter), none for the discarded one.
    expect(after.credits + after.creditsHeld).toBe(before.credits + before.creditsHeld - 1);
    expect(after.creditsHeld).toBe(0);
  });
});

describe("the Connects budget", () => {
  async function burst(apps: TestApp[], accountKey: string, n: number) {
    const ciphers = [];
    for (let i = 0; i < n; i++) ciphers.push(await archived(apps[0]!, 100 + i, 8));
    const letters = ciphers.map((_, i) => `${OTHER_LETTER} Job ${i}: ${TOPICS.map((w) => `${w}${i * 13}`).join(" ")}`);
    const queued = await Promise.all(
      ciphers.map((jobId, i) =>
        apps[i % apps.length]!.request("POST", "/api/auto-apply-v2/apply", { key: accountKey, json: { jobId, coverLetter: letters[i] } }),
      ),
    );
    for (const q of queued) expect(q.status, show(q)).toBe(200);
    // Four runners on every node take what is due at once: the budget's last Connects are raced for.
    await Promise.all(apps.flatMap((x) => [runDueTasks(x), runDueTasks(x), runDueTasks(x), runDueTasks(x)]));
    return rawMany<{ status: string; status_message: string | null; connects_required: number | null }>(
      apps[0]!.deps.db,
      "test.budget",
      "SELECT status, status_message, connects_required FROM applications",
      [],
    );
  }

  test("20 concurrent applies against a 40-Connects daily budget: 5 sent, the rest end not_enough_connects uncharged, naming the budget", async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 7, 10, 0));
    const app = await open(clock, {});
    const a = await handAccount(app, { minGapMinutes: 0, proposalsPerHour: 50, proposalsPerDay: 200, connectsPerDay: 40 });
    const rows = await burst([app], a.apiKey, 20);
    expect(rows.filter((r) => r.status === "applied").length).toBe(5);
    const refused = rows.filter((r) => r.status === "not_enough_connects");
    expect(refused.length).toBe(15);
    expect(refused[0]!.status_message).toContain("daily Connects budget is 40 and 40 are spent; this proposal needs 8. Nothing was charged.");
    const account = (await app.request("GET", "/api/v1/account", { key: a.apiKey })).body.account;
    expect([account.credits, account.creditsHeld]).toEqual([495, 0]);
    const usage = (await app.request("GET", "/api/v1/automation", { key: a.apiKey })).body.usage;
    expect(usage.today.connects).toBe(40);
  });

  // Skipped on SQLite, run on the PostgreSQL pass: several nodes share only a PostgreSQL database (on SQLite one
  // process holds the file), so there is no second node to race with.
  test.skipIf(!PG_BACKEND)(
    "two nodes on one PostgreSQL database never spend past the budget",
    async () => {
      const clock = new ManualClock(Date.UTC(2026, 11, 7, 10, 0));
      const url = (await createMigratedPgDatabase()).url;
      const one = await open(clock, { databaseUrl: url });
      t = undefined;
      const two = await createTestApp({ clock, config: { governor: true, sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, databaseUrl: url } });
      try {
        const a = await handAccount(one, { minGapMinutes: 0, proposalsPerHour: 50, proposalsPerDay: 200, connectsPerDay: 56 });
        const rows = await burst([one, two], a.apiKey, 24);
        expect(rows.filter((r) => r.status === "applied").length).toBe(7);
        expect(rows.filter((r) => r.status === "not_enough_connects").length).toBe(17);
        const spent = rows.filter((r) => r.status === "applied").reduce((n, r) => n + Number(r.connects_required ?? 0), 0);
        expect(spent).toBe(56);
      } finally {
        await two.close();
        await one.close();
      }
    },
    60_000,
  );
});
