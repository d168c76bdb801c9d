import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { runDueTasks } from "../../helpers/apply-worker";
import { makeDoc } from "../../helpers/factories";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const TUESDAY_10 = Date.UTC(2026, 11, 8, 10, 0);
const WORKING = { timeZone: "Europe/Berlin", days: [1, 2, 3, 4, 5], start: "09:00", end: "18:00" };

async function setup() {
  t = await createTestApp({ clock: new ManualClock(TUESDAY_10), config: { governor: true, sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const a = await t.account({ credits: 50 });
  await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
  return { app: t, a, freelancerId: freelancerIdFor(a.accountId) };
}

describe("GET and PATCH /api/v1/automation", () => {
  test("the documented defaults, then a change; a bad value is a 400 naming the field and changes nothing", async () => {
    const { app, a } = await setup();
    const read = await app.request("GET", "/api/v1/automation", { key: a.apiKey });
    expect(read.status, show(read)).toBe(200);
    expect(read.body.limits).toMatchObject({
      proposalsPerDay: 15,
      proposalsPerHour: 4,
      minGapMinutes: 6,
      companionReadsPerHour: 60,
      connectsPerWeek: null,
      similarityThreshold: 0.8,
      workingHours: null,
    });
    expect(read.body.usage.today).toMatchObject({ proposals: 0, connects: 0 });

    for (const [json, field] of [
      [{ proposalsPerDay: -1 }, "proposalsPerDay"],
      [{ proposalsPerHour: "four" }, "proposalsPerHour"],
      [{ similarityThreshold: 2 }, "similarityThreshold"],
      [{ workingHours: { timeZone: "Mars/Olympus", days: [1], start: "09:00", end: "17:00" } }, "workingHours.timeZone"],
      [{ workingHours: { timeZone: "UTC", days: [1], start: "25:00", end: "17:00" } }, "start"],
      [{ workingHours: { timeZone: "UTC", days: [1], start: "09:00", end: "09:00" } }, "workingHours.end"],
    ] as const) {
      const res = await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json });
      expect(res.status, `${JSON.stringify(json)}: ${show(res)}`).toBe(400);
      expect(res.body.error, JSON.stringify(json)).toContain(field);
    }
    expect((await app.request("GET", "/api/v1/automation", { key: a.apiKey })).body.limits).toEqual(read.body.limits);

    const changed = await app.request("PATCH", "/api/v1/automation", {
      key: a.apiKey,
      json: { proposalsPerDay: 8, connectsPerWeek: 120, workingHours: WORKING },
    });
    expect(changed.status, show(changed)).toBe(200);
    expect(changed.body.limits).toMatchObject({ proposalsPerDay: 8, proposalsPerHour: 4, connectsPerWeek: 120, workingHours: WORKING });
    // The week is Monday to Sunday on the working hours' clock (Berlin: Monday 00:00 is Sunday 23:00 UTC).
    expect(changed.body.usage.week.from).toBe(Date.UTC(2026, 11, 6, 23, 0));
    const cleared = await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: { connectsPerWeek: null } });
    expect(cleared.body.limits.connectsPerWeek).toBeNull();
  });

  test("a freelancer's own limits override the account's; another account's freelancer is a 404", async () => {
    const { app, a, freelancerId } = await setup();
    await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: { proposalsPerDay: 10 } });
    const own = await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: { freelancerId, proposalsPerDay: 3 } });
    expect(own.status, show(own)).toBe(200);
    expect(own.body.limits.proposalsPerDay).toBe(3);
    expect((await app.request("GET", "/api/v1/automation", { key: a.apiKey })).body.limits.proposalsPerDay).toBe(10);
    expect((await app.request("GET", `/api/v1/automation?freelancerId=${freelancerId}`, { key: a.apiKey })).body.limits.proposalsPerDay).toBe(3);
    const b = await app.account({ name: "other" });
    expect((await app.request("GET", `/api/v1/automation?freelancerId=${freelancerId}`, { key: b.apiKey })).status).toBe(404);
    expect((await app.request("PUT", "/api/v1/automation/connects", { key: b.apiKey, json: { freelancerId, available: 3 } })).status).toBe(404);
  });
});

describe("apply modes per feed", () => {
  test("auto needs working hours and a Connects budget; the spec's feed endpoints cannot set a mode", async () => {
    const { app, a } = await setup();
    const feed = (await app.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "Rust", minScore: 0, includes: ["rust"] } })).body.feed;
    expect((await app.request("GET", `/api/v1/automation/feeds/${feed.id}`, { key: a.apiKey })).body).toMatchObject({ applyMode: "alert", overBudget: "skip" });
    const put = (json: unknown) => app.request("PUT", `/api/v1/automation/feeds/${feed.id}`, { key: a.apiKey, json });
    let res = await put({ applyMode: "auto" });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("working hours");
    await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: { workingHours: WORKING } });
    res = await put({ applyMode: "auto" });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("Connects budget");
    await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: { connectsPerDay: 60 } });
    res = await put({ applyMode: "auto", minScore: 7, minExpectedUsd: 2.5, overBudget: "review" });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual({
      feedId: feed.id,
      applyMode: "auto",
      minScore: 7,
      minExpectedUsd: 2.5,
      overBudget: "review",
      freelancerId: null,
      profileId: null,
      memberIds: [],
    });
    expect((await put({ applyMode: "sometimes" })).status).toBe(400);
    const b = await app.account({ name: "other" });
    expect((await app.request("PUT", `/api/v1/automation/feeds/${feed.id}`, { key: b.apiKey, json: { applyMode: "draft" } })).status).toBe(404);

    // The spec's feed endpoints neither show nor take the mode.
    const patched = await app.request("PATCH", `/api/v1/feeds/${feed.id}`, { key: a.apiKey, json: { applyMode: "alert" } });
    expect(patched.status).toBe(400);
    expect((await app.request("GET", `/api/v1/automation/feeds/${feed.id}`, { key: a.apiKey })).body.applyMode).toBe("auto");
    const audit = (await app.request("GET", "/api/v1/audit", { key: a.apiKey })).body.entries;
    expect(audit.map((e: { action: string }) => e.action)).toContain("feed_mode");
  });

  test("draft mode writes the letter for each match above the score and holds it; approve sends it, in the audit log", async () => {
    const { app, a } = await setup();
    await setConnects(app.deps.db, freelancerIdFor(a.accountId), 1000);
    await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: { minGapMinutes: 0 } });
    const feed = (await app.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "Rust", minScore: 0, includes: ["rust"] } })).body.feed;
    expect((await app.request("PUT", `/api/v1/automation/feeds/${feed.id}`, { key: a.apiKey, json: { applyMode: "draft", minScore: 0 } })).status).toBe(200);
    const doc = makeDoc({
      title: "Rust developer for a payments API",
      description: "Build a Rust payments API.",
      skills: ["Rust"],
      fixed: 900,
      publishTime: new Date(TUESDAY_10 - 60_000).toISOString(),
    });
    await ingestDocuments(app.deps, [doc], { source: "test" });
    await runDueTasks(app);
    const held = await app.request("GET", "/api/v1/applications/held", { key: a.apiKey });
    expect(held.body.total, show(held)).toBe(1);
    const item = held.body.applications[0];
    expect(item).toMatchObject({ kind: "draft", origin: "draft", feedId: feed.id, jobTitle: "Rust developer for a payments API" });
    expect(item.coverLetter.length).toBeGreaterThan(50);
    expect((await app.request("POST", `/api/v1/applications/${item.queueId}/approve`, { key: a.apiKey, json: {} })).status).toBe(200);
    await runDueTasks(app);
    const rows = await rawMany<{ status: string; origin: string }>(app.deps.db, "test.apps", "SELECT status, origin FROM applications", []);
    expect(rows).toEqual([{ status: "applied", origin: "draft" }]);
    const actions = (await app.request("GET", "/api/v1/audit", { key: a.apiKey })).body.entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["draft", "approve", "submit"]));
  });
});

describe("the Connects balance", () => {
  test("set by hand; a proposal that needs more is refused uncharged with the balance named", async () => {
    const { app, a, freelancerId } = await setup();
    await app.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: { minGapMinutes: 0 } });
    const bad = await app.request("PUT", "/api/v1/automation/connects", { key: a.apiKey, json: { freelancerId, available: -3 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("available");
    const set = await app.request("PUT", "/api/v1/automation/connects", { key: a.apiKey, json: { freelancerId, available: 10 } });
    expect(set.status, show(set)).toBe(200);
    expect(set.body.balance).toMatchObject({ available: 10, source: "manual", readAt: TUESDAY_10 });
    const doc = makeDoc({ title: "Rust job", fixed: 500, publishTime: new Date(TUESDAY_10 - 60_000).toISOString() });
    doc.connectPrice = 12;
    await ingestDocuments(app.deps, [doc], { source: "test" });
    const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
    const queued = await app.request("POST", "/api/auto-apply-v2/apply", {
      key: a.apiKey,
      json: { jobId: cipher, coverLetter: "A letter for the Rust job that is long enough." },
    });
    expect(queued.status, show(queued)).toBe(200);
    await runDueTasks(app);
    const status = (await app.request("GET", `/api/auto-apply-v2/status?queueId=${queued.body.queueId}`, { key: a.apiKey })).body;
    expect(status.applicationStatus).toBe("not_enough_connects");
    expect(JSON.stringify(status)).toContain("the freelancer has 10 Connects");
    expect((await app.request("GET", "/api/v1/account", { key: a.apiKey })).body.account.credits).toBe(50);
  });
});
