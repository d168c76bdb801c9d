import { afterEach, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser } from "../../helpers/dashboard";
import { AUTO_MONDAY_1000, autoModeRustFeed } from "../../helpers/applications";
import { runDueTasks } from "../../helpers/apply-worker";
import { makeDoc } from "../../helpers/factories";

// The local writer leaves what only the freelancer knows as a "[your …]" slot. Auto mode drafts the screening answers
// at submission: one with a slot is never sent, it waits on the Review page until a person fills it in.

/** Monday 7 December 2026, 10:00 UTC: inside the working hours autoModeRustFeed sets. */
const MONDAY_1000 = AUTO_MONDAY_1000;
const QUESTION = "When can you start?";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

type AppRow = { id: string; status: string; held_reason: string | null; phase: string; answers: string; governed_at_ts: number | null };
const applications = () => rawMany<AppRow>(t!.deps.db, "apps", "SELECT id, status, held_reason, phase, answers, governed_at_ts FROM applications", []);
const submissions = () => rawMany<{ application_id: string }>(t!.deps.db, "subs", "SELECT application_id FROM sandbox_submissions", []);
const answersOf = (row: AppRow): { position: number; answer: string }[] => (typeof row.answers === "string" ? JSON.parse(row.answers) : row.answers);

/** An account with a feed in auto mode and a new match whose screening question asks when the freelancer can start. */
async function autoModeMatch() {
  const clock = new ManualClock(MONDAY_1000);
  t = await createTestApp({ clock, config: { governor: true, sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const a = await autoModeRustFeed(t);
  const doc = makeDoc({
    title: "Rust engineer for a payments service",
    description: "We need a Rust backend.",
    skills: ["Rust"],
    fixed: 900,
    questions: [QUESTION],
    publishTime: "2026-12-07T09:30:00.000Z",
  });
  expect((await ingestDocuments(t.deps, [doc], { source: "test" })).matched).toBe(1);
  await runAWhile();
  return a;
}

async function runAWhile() {
  for (let i = 0; i < 5; i++) {
    t!.clock.advance(60_000);
    await runDueTasks(t!);
  }
}

const credits = async (key: string) => {
  const { account } = (await t!.request("GET", "/api/v1/account", { key })).body;
  return { credits: account.credits as number, creditsHeld: account.creditsHeld as number };
};

test("auto mode holds drafted answers with a slot for review; the approver fills them in and it is sent once", async () => {
  const a = await autoModeMatch();
  // Held, not sent: nothing reached the marketplace, the drafted answer is kept, and one credit is held.
  const [row] = await applications();
  expect([row!.status, row!.phase, row!.held_reason]).toEqual(["processing", "queued", "fill-in:1"]);
  expect(row!.governed_at_ts).toBeNull(); // waiting does not count against the caps
  const drafted = answersOf(row!);
  expect(drafted).toHaveLength(1);
  expect(drafted[0]!.answer).toMatch(/\[your [^\]]+\]/);
  expect(await submissions()).toEqual([]);
  expect(await credits(a.apiKey)).toEqual({ credits: 49, creditsHeld: 1 });
  // More runs change nothing: it waits for a person.
  await runAWhile();
  expect((await applications())[0]!.held_reason).toBe("fill-in:1");
  const audit = await rawMany<{ action: string; rule: string }>(
    t!.deps.db,
    "audit",
    "SELECT action, rule FROM automation_audit WHERE application_id = ? AND action = 'hold'",
    [row!.id],
  );
  expect(audit).toEqual([{ action: "hold", rule: "1 screening answer to fill in" }]);

  const held = await t!.request("GET", "/api/v1/applications/held", { key: a.apiKey });
  expect(held.status, show(held)).toBe(200);
  expect(held.body.applications[0]).toMatchObject({ kind: "fill-in", answers: [{ position: 0, question: QUESTION, answer: drafted[0]!.answer }] });
  expect(held.body.applications[0].why).toBe(
    "1 screening answer needs something only you know (marked [your …]); fill it in on the Review page, then approve.",
  );

  // The Review page: the answer is a field of the approve form, labelled with its question, its slot marked.
  const b = browser(() => t!);
  const { token, csrf } = await b.signIn(a.apiKey);
  const page = await b.get("/dashboard/review", token);
  expect(page.status).toBe(200);
  const id = `held-${row!.id}`;
  expect(page.text).toContain("Answers to fill in");
  expect(page.text).toContain(`<label for="${id}-answer_0">${QUESTION}</label>`);
  expect(page.text).toMatch(new RegExp(`<textarea id="${id}-answer_0" name="answer_0" rows="4" form="${id}-form">[^<]*\\[your `));
  expect(page.text).toMatch(/Still to fill in: <mark>\[your [^\]]+\]<\/mark>/);
  const letter = held.body.applications[0].coverLetter as string;

  // Approved with the slot still in: a 400 next to the answer, in its question's words; nothing changes.
  const refused = await b.post(`/dashboard/review/${row!.id}/approve`, token, { csrf, coverLetter: letter, answer_0: drafted[0]!.answer });
  expect(refused.status).toBe(400);
  expect(refused.text).toContain(`<p id="${id}-answer_0Error" class="field-error error-text">${QUESTION}: replace “`);
  expect(refused.text).toContain(`aria-invalid="true" aria-describedby="${id}-answer_0Error"`);
  expect(refused.text).not.toContain("questionAnswers");
  expect((await applications())[0]!.held_reason).toBe("fill-in:1");
  // Through the API too: the held answer, kept as it was, is named by its position.
  const api = await t!.request("POST", `/api/v1/applications/${row!.id}/approve`, { key: a.apiKey, json: {} });
  expect(api.status, show(api)).toBe(400);
  expect(api.body.error).toMatch(/^The held answer at position 0 still has "\[your [^\]]+\]" to fill in$/);
  const apiSent = await t!.request("POST", `/api/v1/applications/${row!.id}/approve`, {
    key: a.apiKey,
    json: { questionAnswers: [{ position: 0, answer: "Still [your start date]" }] },
  });
  expect(apiSent.status, show(apiSent)).toBe(400);
  expect(apiSent.body.error).toBe('questionAnswers[0].answer still has "[your start date]" to fill in');
  // Cleared instead of filled in: a blank answer would reach the client, so it is refused too, in both places.
  const apiBlank = await t!.request("POST", `/api/v1/applications/${row!.id}/approve`, {
    key: a.apiKey,
    json: { questionAnswers: [{ position: 0, answer: "  " }] },
  });
  expect(apiBlank.status, show(apiBlank)).toBe(400);
  expect(apiBlank.body.error).toBe("questionAnswers[0].answer is empty: a screening question is answered, not left blank");
  const blank = await b.post(`/dashboard/review/${row!.id}/approve`, token, { csrf, coverLetter: letter, answer_0: "" });
  expect(blank.status).toBe(400);
  expect(blank.text).toContain(
    `<p id="${id}-answer_0Error" class="field-error error-text">${QUESTION}: write the answer before approving; it cannot be left blank.</p>`,
  );
  expect(blank.text).not.toContain("questionAnswers");
  expect((await applications())[0]!.held_reason).toBe("fill-in:1");
  expect(await submissions()).toEqual([]);

  // Filled in: approved, sent exactly once with the answer as written, one credit charged.
  const filled = "I can start on Monday, 14 December.";
  const approved = await b.post(`/dashboard/review/${row!.id}/approve`, token, { csrf, coverLetter: letter, answer_0: filled });
  expect(approved.status, show(approved)).toBe(303);
  await runAWhile();
  const [sent] = await applications();
  expect([sent!.status, sent!.held_reason]).toEqual(["applied", "approved"]);
  expect(answersOf(sent!)).toEqual([{ position: 0, answer: filled }]);
  expect((await submissions()).map((s) => s.application_id)).toEqual([row!.id]);
  expect(await credits(a.apiKey)).toEqual({ credits: 49, creditsHeld: 0 });
  const charges = await rawMany<{ n: number }>(t!.deps.db, "ledger", "SELECT count(*) AS n FROM credit_ledger WHERE ref = ?", [row!.id]);
  expect(Number(charges[0]!.n)).toBe(1);
});

test("apply refuses a letter or answer with a slot left in, naming the field, and holds no credit", async () => {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0 } });
  const a = await t.account({ credits: 5 });
  await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
  const doc = makeDoc({ title: "Rust engineer", skills: ["Rust"], questions: [QUESTION, "Links to past work?"] });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const jobId = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  const answer = await t.request("POST", "/api/auto-apply-v2/apply", {
    key: a.apiKey,
    json: { jobId, coverLetter: "Hi, I build Rust services.", questionAnswers: [{ position: 0, answer: "I can start on [your start date]." }] },
  });
  expect(answer.status, show(answer)).toBe(400);
  expect(answer.body.error).toBe('questionAnswers[0].answer still has "[your start date]" to fill in');
  const letter = await t.request("POST", "/api/auto-apply-v2/apply", {
    key: a.apiKey,
    json: { jobId, coverLetter: "Hi, see [your portfolio link].", questionAnswers: [{ position: 0, answer: "Monday." }] },
  });
  expect(letter.status, show(letter)).toBe(400);
  expect(letter.body.error).toBe('coverLetter still has "[your portfolio link]" to fill in');
  expect(await applications()).toEqual([]);
  expect(await credits(a.apiKey)).toEqual({ credits: 5, creditsHeld: 0 });

  // The dashboard's apply form says it next to the answer, in its label's words.
  const b = browser(() => t!);
  const { token, csrf } = await b.signIn(a.apiKey);
  const res = await b.post(`/dashboard/jobs/${encodeURIComponent(jobId)}/apply`, token, {
    csrf,
    coverLetter: "Hi, I build Rust services.",
    answer_0: "Monday.",
    answer_1: "See [your links to past work].",
  });
  expect(res.status).toBe(400);
  expect(res.text).toContain("2. Links to past work?: replace “[your links to past work]” with what is true before applying.");
  expect(res.text).toMatch(/<p id="[^"]*answer_1Error" class="error-text field-error">2\. Links to past work\?: replace/);
  expect(res.text).not.toContain("questionAnswers");
  expect(await applications()).toEqual([]);
  expect(await credits(a.apiKey)).toEqual({ credits: 5, creditsHeld: 0 });
});
