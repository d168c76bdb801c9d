import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import { apply, SUBMIT_TASK } from "../../../src/modules/applications/service";
import { submitApplication } from "../../../src/modules/applications/submit.task";
import { authenticate } from "../../../src/modules/accounts/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { NUMBER_LIMITS } from "../../../src/modules/dashboard/automation-views";
import { claimTasks, completeTask } from "../../../src/worker/tasks";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser, foreignScripts } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
const { get, post, signIn } = browser(() => t);
afterEach(async () => {
  await t?.close();
});

const MONDAY_10 = Date.UTC(2026, 11, 7, 10, 0);
const AUTO = "/dashboard/auto-apply";
const LETTER =
  "Hello, I have built Rust services that ingest events at high rates and expose gRPC APIs with clear documentation. I would start by profiling your current pipeline, then design the schema with you, and deliver a tested service in small weekly steps. Could we talk about the event volume you expect next year?";

async function setup() {
  t = await createTestApp({ clock: new ManualClock(MONDAY_10), config: { governor: true, sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const a = await t.account({ name: "Acme", credits: 50 });
  await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
  await setConnects(t.deps.db, freelancerIdFor(a.accountId), 100_000);
  const patched = await t.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: { minGapMinutes: 0 } });
  expect(patched.status, show(patched)).toBe(200);
  return { ...a, ...(await signIn(a.apiKey)), freelancerId: freelancerIdFor(a.accountId) };
}

async function runDue(): Promise<void> {
  for (;;) {
    const claimed = await claimTasks(t.deps.db, [SUBMIT_TASK], 20, t.clock.now(), 60_000);
    if (claimed.length === 0) return;
    for (const task of claimed) {
      await submitApplication(t.deps, task.payload as never, { attempt: 1, signal: new AbortController().signal } as never);
      await completeTask(t.deps.db, task);
    }
  }
}

async function job(i: number): Promise<{ cipher: string; title: string }> {
  const title = `Rust engineer for service ${i}`;
  const doc = makeDoc({
    title,
    description: `Rust backend number ${i}.`,
    skills: ["Rust"],
    fixed: 800 + i,
    publishTime: new Date(t.clock.now() - 60_000).toISOString(),
  });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  return { cipher: (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext, title };
}

async function applyVia(apiKey: string, cipher: string, coverLetter: string): Promise<string> {
  const res = await t.request("POST", "/api/auto-apply-v2/apply", { key: apiKey, json: { jobId: cipher, coverLetter } });
  expect(res.status, show(res)).toBe(200);
  await runDue();
  return res.body.queueId;
}

const limitsOf = async (apiKey: string, freelancerId?: string) =>
  (await t.request("GET", `/api/v1/automation${freelancerId ? `?freelancerId=${freelancerId}` : ""}`, { key: apiKey })).body;

/** The limits form as a browser posts it: every field empty, "any time" ticked, then `over`. */
function limitsForm(csrf: string, over: Record<string, string> = {}): Record<string, string> {
  const fields: Record<string, string> = { csrf, whAny: "on", whTimeZone: "", whStart: "", whEnd: "" };
  for (const k of NUMBER_LIMITS) fields[k] = "";
  return { ...fields, minGapMinutes: "0", ...over };
}

/** The form's working hours: Mondays and Tuesdays, 09:00 to 18:00 in Berlin. */
const BERLIN_MON_TUE = { whAny: "", whTimeZone: "Europe/Berlin", whDay1: "on", whDay2: "on", whStart: "09:00", whEnd: "18:00" };

/** The text of the field error under a control, or null. */
const fieldErrorOf = (page: string, id: string) => new RegExp(`<p class="field-error error-text" id="${id}Error">([^<]*)</p>`).exec(page)?.[1] ?? null;

describe("dashboard: auto-apply limits and usage", () => {
  test("usage in plain words for the budgets that are set; the balance with where it was read", async () => {
    const a = await setup();
    await t.request("PATCH", "/api/v1/automation", { key: a.apiKey, json: { connectsPerWeek: 120 } });
    await applyVia(a.apiKey, (await job(1)).cipher, LETTER);
    const usage = (await limitsOf(a.apiKey)).usage;
    expect(usage.today.proposals).toBe(1);
    expect(usage.week.connects).toBeGreaterThan(0);

    const res = await get(AUTO, a.token);
    expect(res.status, show(res)).toBe(200);
    expect(res.text).toContain("1 of 15 proposals today");
    expect(res.text).toContain("1 of 4 in the last hour");
    expect(res.text).toContain(`${usage.week.connects} of 120 Connects this week`);
    expect(res.text).toContain(`No daily Connects budget (${usage.today.connects} spent today)`);
    expect(res.text).toContain("All freelancers (account)");
    expect(foreignScripts(res.text)).toEqual([]);

    // The balance set by hand shows as such, for the freelancer picked.
    const set = await post(`${AUTO}/connects`, a.token, { csrf: a.csrf, freelancerId: a.freelancerId, available: "84", back: AUTO });
    expect(set.status, show(set)).toBe(303);
    const one = await get(`${AUTO}?freelancer=${a.freelancerId}`, a.token);
    expect(one.text).toMatch(/Connects balance: <strong>84<\/strong> Connects, set by hand <time/);
    expect(one.text).toContain("&#39;s own limits</h3>");
  });

  test("a bad value shows next to its field in the label's words and changes nothing; a good one saves", async () => {
    const a = await setup();
    const before = (await limitsOf(a.apiKey)).limits;
    for (const [over, id, label] of [
      [{ proposalsPerDay: "lots" }, "proposalsPerDay", "Proposals a day"],
      [{ similarityThreshold: "2" }, "similarityThreshold", "Held when this similar"],
      [{ whAny: "", whTimeZone: "Mars/Olympus", whDay1: "on", whStart: "09:00", whEnd: "17:00" }, "whTimeZone", "Time zone"],
      [{ whAny: "", whTimeZone: "UTC", whStart: "09:00", whEnd: "17:00" }, "whDays", "Days"],
      [{ whAny: "", whTimeZone: "UTC", whDay1: "on", whStart: "09:00", whEnd: "09:00" }, "whEnd", "Until"],
    ] as const) {
      const res = await post(`${AUTO}/limits`, a.token, limitsForm(a.csrf, over));
      expect(res.status, `${JSON.stringify(over)}: ${show(res)}`).toBe(400);
      const message = fieldErrorOf(res.text, id);
      expect(message, `${id}: ${res.text.slice(0, 300)}`).not.toBeNull();
      expect(message!.startsWith(label), message!).toBe(true);
      // No API field name or path reaches the page's messages.
      expect(message).not.toMatch(/workingHours|proposalsPerDay|similarityThreshold|\/api\//);
      expect(res.text).toContain(`aria-describedby="${id}Error`);
    }
    expect((await limitsOf(a.apiKey)).limits).toEqual(before);

    const ok = await post(
      `${AUTO}/limits`,
      a.token,
      limitsForm(a.csrf, {
        proposalsPerDay: "8",
        connectsPerWeek: "120",
        ...BERLIN_MON_TUE,
      }),
    );
    expect(ok.status, show(ok)).toBe(303);
    const after = (await limitsOf(a.apiKey)).limits;
    expect(after).toMatchObject({
      proposalsPerDay: 8,
      proposalsPerHour: 4,
      connectsPerWeek: 120,
      connectsPerDay: null,
      workingHours: { timeZone: "Europe/Berlin", days: [1, 2], start: "09:00", end: "18:00" },
    });
    const page = await get(ok.headers.get("location")!, a.token);
    expect(page.text).toContain("Limits saved.");
    expect(page.text).toContain('id="proposalsPerDay" name="proposalsPerDay" inputmode="numeric" min="0" step="1" value="8" placeholder="15"');

    // A freelancer's override changes only theirs; a freelancer not of the account changes nothing.
    const own = await post(`${AUTO}/limits`, a.token, {
      ...limitsForm(a.csrf, { proposalsPerDay: "3" }),
      freelancerId: a.freelancerId,
      ...BERLIN_MON_TUE,
    });
    expect(own.status, show(own)).toBe(303);
    expect((await limitsOf(a.apiKey, a.freelancerId)).limits.proposalsPerDay).toBe(3);
    expect((await limitsOf(a.apiKey)).limits.proposalsPerDay).toBe(8);
    const foreign = await post(`${AUTO}/limits`, a.token, { ...limitsForm(a.csrf, { proposalsPerDay: "1" }), freelancerId: "someone-else" });
    expect(foreign.status).toBe(404);
    expect((await limitsOf(a.apiKey)).limits.proposalsPerDay).toBe(8);
  });

  test("a feed's mode: auto without working hours or a budget is refused next to the mode with a link to the limits", async () => {
    const a = await setup();
    const feed = (await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "Rust", minScore: 0, includes: ["rust"] } })).body.feed;
    const path = `${AUTO}/feeds/${feed.id}`;
    const feedMode = async () => (await t.request("GET", `/api/v1/automation/feeds/${feed.id}`, { key: a.apiKey })).body;
    const refused = await post(path, a.token, { csrf: a.csrf, applyMode: "auto", minScore: "", minExpectedUsd: "", overBudget: "skip" });
    expect(refused.status, show(refused)).toBe(400);
    const modeError = new RegExp(`id="feed-${feed.id}-applyModeError">(.*?)</p>`).exec(refused.text)?.[1] ?? "";
    expect(modeError).toContain("needs working hours first");
    expect(modeError).toContain('href="#whAny"');
    expect(modeError).not.toContain("/api/");
    expect((await feedMode()).applyMode).toBe("alert");

    await t.request("PATCH", "/api/v1/automation", {
      key: a.apiKey,
      json: { workingHours: { timeZone: "UTC", days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" } },
    });
    const noBudget = await post(path, a.token, { csrf: a.csrf, applyMode: "auto", minScore: "", minExpectedUsd: "", overBudget: "skip" });
    expect(noBudget.status).toBe(400);
    expect(noBudget.text).toContain("needs a Connects budget first");

    const badScore = await post(path, a.token, { csrf: a.csrf, applyMode: "draft", minScore: "high", minExpectedUsd: "", overBudget: "skip" });
    expect(badScore.status).toBe(400);
    expect(fieldErrorOf(badScore.text, `feed-${feed.id}-minScore`)).toStartWith("Minimum score");
    expect((await feedMode()).applyMode).toBe("alert");

    const ok = await post(path, a.token, { csrf: a.csrf, applyMode: "draft", minScore: "7", minExpectedUsd: "2.5", overBudget: "review" });
    expect(ok.status, show(ok)).toBe(303);
    expect(await feedMode()).toEqual({
      feedId: feed.id,
      applyMode: "draft",
      minScore: 7,
      minExpectedUsd: 2.5,
      overBudget: "review",
      freelancerId: null,
      profileId: null,
      memberIds: [],
    });
    const page = await get(AUTO, a.token);
    expect(page.text).toContain('<option value="draft" selected>Draft and wait for my approval</option>');
  });
});

describe("dashboard: review and audit", () => {
  test("held applications listed with why, the earlier letter beside a similar one; approve sends the edited letter, discard ends it; twice is a notice", async () => {
    const a = await setup();
    const first = await job(1);
    const firstId = await applyVia(a.apiKey, first.cipher, LETTER);
    const second = await job(2);
    const similarId = await applyVia(a.apiKey, second.cipher, LETTER.replace("Hello,", "Hi,"));
    const third = await job(3);
    const auth = (await authenticate(t.deps, a.apiKey))!;
    const draft = await apply(
      t.deps,
      auth,
      { jobId: third.cipher, coverLetter: "A drafted letter for the third job." },
      { origin: "draft", heldReason: "draft" },
    );

    const statuses = await rawMany<{ id: string; status: string; held_reason: string | null; status_message: string | null }>(
      t.deps.db,
      "test.dashboard.held",
      "SELECT id, status, held_reason, status_message FROM applications",
      [],
    );
    expect(statuses.find((r) => r.id === firstId)?.status, JSON.stringify(statuses)).toBe("applied");
    expect(statuses.find((r) => r.id === similarId)?.held_reason, JSON.stringify(statuses)).toStartWith("similar:");
    const list = await get("/dashboard/review", a.token);
    expect(list.status, show(list)).toBe(200);
    expect(list.text).toContain(second.title);
    expect(list.text).toContain(third.title);
    expect(list.text).not.toContain(`>${first.title}<`);
    expect(list.text).toContain(`href="/dashboard/jobs/${encodeURIComponent(second.cipher)}"`);
    expect(list.text).toMatch(/\d+ % alike/);
    expect(list.text).toContain("draft mode, waiting for your approval");
    // The earlier letter, as sent, beside the held one.
    expect(list.text).toContain(`<pre class="wrap earlier"`);
    expect(list.text).toMatch(/Review <span class="nav-count"[^>]*>2<\/span>/);

    const edited = `${LETTER.replace("Hello,", "Good morning,")} I can start this week.`;
    const approved = await post(`/dashboard/review/${similarId}/approve`, a.token, { csrf: a.csrf, coverLetter: edited });
    expect(approved.status, show(approved)).toBe(303);
    expect(approved.headers.get("location")).toBe("/dashboard/review?done=approved");
    await runDue();
    const rows = await rawMany<{ id: string; status: string; cover_letter: string }>(
      t.deps.db,
      "test.dashboard.letters",
      "SELECT id, status, cover_letter FROM applications",
      [],
    );
    expect(rows.find((r) => r.id === similarId)).toMatchObject({ status: "applied", cover_letter: edited });

    const again = await post(`/dashboard/review/${similarId}/approve`, a.token, { csrf: a.csrf, coverLetter: edited });
    expect(again.headers.get("location")).toBe("/dashboard/review?done=gone");
    const notice = await get(again.headers.get("location")!, a.token);
    expect(notice.status).toBe(200);
    expect(notice.text).toContain("already handled");

    const discarded = await post(`/dashboard/review/${draft.queueId}/discard`, a.token, { csrf: a.csrf, coverLetter: "whatever" });
    expect(discarded.headers.get("location")).toBe("/dashboard/review?done=discarded");
    const after = await rawMany<{ id: string; status: string }>(t.deps.db, "test.apps", "SELECT id, status FROM applications", []);
    expect(after.find((r) => r.id === draft.queueId)?.status).toBe("failed");
    expect(after.find((r) => r.id === firstId)?.status).toBe("applied");
    const empty = await get("/dashboard/review?done=discarded", a.token);
    expect(empty.text).toContain("Nothing is waiting for review.");
    expect(empty.text).not.toContain("nav-count");

    // A forged form changes nothing.
    const third2 = await job(4);
    const held = await apply(t.deps, auth, { jobId: third2.cipher, coverLetter: "Another draft." }, { origin: "draft", heldReason: "draft" });
    expect((await post(`/dashboard/review/${held.queueId}/approve`, a.token, { csrf: "forged", coverLetter: "x" })).status).toBe(403);

    // Another account's application is not found from this session.
    const b = await t.account({ name: "Other" });
    const bs = await signIn(b.apiKey);
    const foreign = await post(`/dashboard/review/${held.queueId}/discard`, bs.token, { csrf: bs.csrf });
    expect(foreign.headers.get("location")).toBe("/dashboard/review?done=missing");
    expect((await t.request("GET", "/api/v1/applications/held", { key: a.apiKey })).body.total).toBe(1);

    // The audit page lists what happened, newest first, in words, with links to the jobs.
    await post(`${AUTO}/limits`, a.token, limitsForm(a.csrf, { proposalsPerDay: "9" }));
    const audit = await get("/dashboard/audit", a.token);
    expect(audit.status, show(audit)).toBe(200);
    const actions = [...audit.text.matchAll(/<td data-label="Action" class="primary">([^<]+)<\/td>/g)].map((m) => m[1]);
    const api = (await t.request("GET", "/api/v1/audit?limit=50", { key: a.apiKey })).body.entries as { action: string }[];
    expect(actions.length).toBe(api.length);
    expect(actions[0]).toBe("Limits changed");
    expect(actions).toEqual(expect.arrayContaining(["Sent", "Held for review", "Approved", "Discarded"]));
    // Only what changed is logged, in the labels' words: no JSON, no API field names.
    expect(audit.text).toContain('<td data-label="Detail" class="detail">Proposals a day: 9</td>');
    expect(audit.text).toContain(`href="/dashboard/jobs/${encodeURIComponent(second.cipher)}"`);
    const tbody = audit.text.slice(audit.text.indexOf("<tbody>"));
    expect(tbody).not.toContain('{"');
    expect(tbody).not.toMatch(/proposalsPerDay|applyMode|similar:/);
    const byFreelancer = await get(`/dashboard/audit?freelancer=${a.freelancerId}`, a.token);
    expect(byFreelancer.text).not.toContain(">Limits changed<");
    expect(byFreelancer.text).toContain(">Sent<");
    expect((await get("/dashboard/audit?offset=x", a.token)).status).toBe(400);
  });

  test("the job page shows the expected-value line", async () => {
    const a = await setup();
    const j = await job(5);
    const res = await get(`/dashboard/jobs/${encodeURIComponent(j.cipher)}`, a.token);
    expect(res.status, show(res)).toBe(200);
    expect(res.text).toMatch(/<p class="meta expected-value" title="Chance of a reply/);
    expect(res.text).toContain("Connects");
  });
});
