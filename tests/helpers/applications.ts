import * as repo from "../../src/modules/applications/repo";
import { newId } from "../../src/lib/ids";
import { expect } from "bun:test";
import { ensureOwnFreelancer } from "../../src/marketplace/sandbox/driver";
import { setConnects } from "../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../src/marketplace/sandbox/rules";
import { show, type TestApp } from "./app";

/** A proposal sent through the sandbox as the worker leaves it: applied a second before now, in score band 5-6. */
export async function insertSentApplication(t: TestApp, accountId: string, jobCiphertext: string, over: Partial<repo.ApplicationInsert> = {}): Promise<void> {
  const ts = t.clock.now();
  await repo.insertApplication(t.deps.db, {
    id: newId(),
    accountId,
    jobCiphertext,
    processedJobId: null,
    driver: "sandbox",
    freelancerId: "fl-1",
    profileId: "pr-1",
    status: "applied",
    phase: "done",
    creditHeld: false,
    coverLetter: "Hello",
    hourlyRate: null,
    fixedBid: 1000,
    timeline: "1 to 3 months",
    boostBids: 0,
    answers: [],
    autoFill: false,
    explicitPositions: [],
    appliedAtTs: ts - 1000,
    processedAtTs: ts,
    score: 5,
    ...over,
  });
}

/** Monday 7 December 2026, 10:00 UTC: inside AUTO_WORKING_HOURS. */
export const AUTO_MONDAY_1000 = Date.UTC(2026, 11, 7, 10, 0);
export const AUTO_WORKING_HOURS = { timeZone: "UTC", days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" };

/**
 * An account whose own sandbox freelancer has Connects to spare, with limits that let automation send at once
 * (within AUTO_WORKING_HOURS) and a feed in auto mode matching "rust" at any score.
 */
export async function autoModeRustFeed(t: TestApp): Promise<{ apiKey: string; accountId: string; feedId: string }> {
  const a = await t.account({ credits: 50 });
  await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
  await setConnects(t.deps.db, freelancerIdFor(a.accountId), 10_000);
  const limits = { proposalsPerDay: 10, proposalsPerHour: 10, minGapMinutes: 0, workingHours: AUTO_WORKING_HOURS, connectsPerDay: 10_000 };
  expect((await t.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: limits })).status).toBe(200);
  const feed = await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "Rust", minScore: 0, includes: ["rust"] } });
  const mode = await t.request("PUT", `/api/v1/automation/feeds/${feed.body.feed.id}`, { key: a.apiKey, json: { applyMode: "auto", minScore: 0 } });
  expect(mode.status, show(mode)).toBe(200);
  return { apiKey: a.apiKey, accountId: a.accountId, feedId: feed.body.feed.id };
}
