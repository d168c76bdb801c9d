import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser } from "../../helpers/dashboard";
import { AUTO_MONDAY_1000, autoModeRustFeed } from "../../helpers/applications";
import { runDueTasks } from "../../helpers/apply-worker";
import { makeDoc } from "../../helpers/factories";
import { startFakeOpenAi, type FakeOpenAi } from "../../helpers/fake-openai";

/** Monday 7 December 2026, 10:00 UTC: inside the working hours autoModeRustFeed sets. */
const MONDAY_1000 = AUTO_MONDAY_1000;

let t: TestApp | undefined;
let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.close());
afterEach(async () => {
  await t?.close();
  t = undefined;
});

test("auto mode does not send a letter the claim check flags: it waits for review with its reason", async () => {
  const clock = new ManualClock(MONDAY_1000);
  t = await createTestApp({
    clock,
    config: { governor: true, sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, openaiApiKey: "sk-test", openaiBaseUrl: fake.url, aiMaxRetries: 0 },
  });
  // The model keeps inventing a track record, through the rewrite round too.
  fake.setFallback(() => ({
    content: JSON.stringify({
      proposal: "Hi,\n\nYou need a Rust backend for payments. I built the payment engine for Stripe and have 15 years of Rust.\n\nCould we talk?\n\nBest,\nSam",
      questionAnswers: [],
    }),
  }));
  const a = await autoModeRustFeed(t);
  const doc = makeDoc({ title: "Rust engineer for a payments service", description: "We need a Rust backend for payments.", skills: ["Rust"], fixed: 900 });
  expect((await ingestDocuments(t.deps, [doc], { source: "test" })).matched).toBe(1);
  for (let i = 0; i < 5; i++) {
    clock.advance(60_000);
    await runDueTasks(t);
  }
  const rows = await rawMany<{ status: string; held_reason: string | null; phase: string }>(
    t.deps.db,
    "apps",
    "SELECT status, held_reason, phase FROM applications",
    [],
  );
  expect(rows.map((r) => [r.status, r.phase])).toEqual([["processing", "queued"]]);
  // The years, the project and Stripe (as a client, and as a technology nothing lists) are each flagged.
  expect(rows[0]!.held_reason).toBe("claims:4");
  const held = await t.request("GET", "/api/v1/applications/held", { key: a.apiKey });
  expect(held.status, show(held)).toBe(200);
  expect(held.body.applications[0].kind).toBe("claims");
  expect(held.body.applications[0].why).toMatch(/claim check flagged 4 claims/);
  expect(held.body.applications[0].claims.map((c: { text: string }) => c.text)).toContain("15 years");
  // The Review page marks each flagged claim in the letter and says why.
  const b = browser(() => t!);
  const { token } = await b.signIn(a.apiKey);
  const page = await b.get("/dashboard/review", token);
  expect(page.status).toBe(200);
  expect(page.text).toContain("Claims your profile and portfolio do not back");
  expect(page.text).toContain("<mark>15 years</mark>");
  expect(page.text).toContain("Unbacked claims");
});
