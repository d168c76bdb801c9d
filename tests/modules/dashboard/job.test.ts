import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { getAccount } from "../../../src/modules/accounts/service";
import { proposalChart } from "../../../src/modules/dashboard/job-views";
import type { TaskWorker } from "../../../src/worker/worker";
import { applyWorker } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser, foreignScripts } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";
import { amountsIn } from "../../helpers/money";

let t: TestApp;
let worker: TaskWorker | undefined;
const { get, post, signIn } = browser(() => t);
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
});

async function setup(opts: { credits?: number } = {}) {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const acct = await t.account({ name: "Acme", credits: opts.credits ?? 5 });
  worker = applyWorker(t);
  const s = await signIn(acct.apiKey);
  return { ...acct, ...s };
}

async function job(over: Parameters<typeof makeDoc>[0] = {}): Promise<string> {
  const doc = makeDoc(over);
  await ingestDocuments(t.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const path = (cipher: string) => `/dashboard/jobs/${encodeURIComponent(cipher)}`;
// Plain SQL on whichever database the app runs on (count(*) comes back as a string on PostgreSQL).
const row = async (sql: string, ...args: unknown[]): Promise<any> => (await rawMany<any>(t.deps.db, sql, sql, args))[0];
const countApps = async () => Number((await row("SELECT count(*) AS n FROM applications")).n);

/** Waits until the latest application for the job leaves `processing` (moving the clock so retries come due). */
async function settledByJob(apiKey: string, cipher: string) {
  const until = performance.now() + 5000;
  for (;;) {
    const res = await t.request("GET", `/api/auto-apply-v2/status?jobId=${encodeURIComponent(cipher)}`, { key: apiKey });
    if (res.status !== 200 || res.body.applicationStatus !== "processing" || performance.now() > until) return res;
    t.clock.advance(10);
    worker!.notify();
    await Bun.sleep(2);
  }
}

describe("dashboard job page", () => {
  test("signed out: redirected to sign-in (page and forms)", async () => {
    t = await createTestApp();
    const cipher = await job();
    const res = await get(path(cipher));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in");
    const posted = await post(`${path(cipher)}/apply`, undefined, { coverLetter: "x" });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe("/dashboard/sign-in");
    expect(await countApps()).toBe(0);
  });

  test("shows the archived job with everything escaped, client score and forms", async () => {
    const { token } = await setup();
    const cipher = await job({
      title: "Build <script>alert(1)</script> bot",
      description: "Line one\n<script>evil()</script> & more",
      skills: ["Go", "SQLite"],
      fixed: 750,
      country: "Germany",
      questions: ["Why <you>?"],
    });
    const res = await get(path(cipher), token);
    expect(res.status, show(res)).toBe(200);
    expect(foreignScripts(res.text)).toEqual([]);
    expect(res.text).toContain("Build &lt;script&gt;alert(1)&lt;/script&gt; bot");
    expect(res.text).toContain("&lt;script&gt;evil()&lt;/script&gt; &amp; more");
    expect(res.text).toContain("Go, SQLite");
    expect(res.text).toContain("750 USD fixed");
    expect(res.text).toContain("<dd>DE</dd>");
    expect(res.text).toContain("FIXED");
    expect(res.text).toContain("<h2>Client</h2>");
    expect(res.text).toContain("You have not applied to this job.");
    expect(res.text).toContain(`action="${path(cipher)}/proposal"`);
    expect(res.text).toContain(`action="${path(cipher)}/apply"`);
    expect(res.text).toContain('name="answer_0"');
    expect(res.text).toContain("Why &lt;you&gt;?");
    for (const e of ["low", "medium", "high"]) expect(res.text).toContain(`<option value="${e}"`);
  });

  test("unknown ciphertext → 404 page; not a ciphertext → 400 page", async () => {
    const { token } = await setup();
    const res = await get(path("~0299999999"), token);
    expect(res.status, show(res)).toBe(404);
    expect(res.text).toContain("No archived job with this ciphertext");
    const bad = await get(path("nope"), token);
    expect(bad.status, show(bad)).toBe(400);
  });

  test("generating a proposal fills the cover letter and answer textareas", async () => {
    const { token, csrf } = await setup();
    const cipher = await job({ title: "Go API work", questions: ["What is your Go experience?", "When can you start?"] });
    const res = await post(`${path(cipher)}/proposal`, token, { csrf, reasoningEffort: "medium" });
    expect(res.status, show(res)).toBe(200);
    const letter = /<textarea id="coverLetter"[^>]*>([^<]*)<\/textarea>/.exec(res.text)?.[1] ?? "";
    expect(letter.trim().length).toBeGreaterThan(20);
    for (const pos of [0, 1]) {
      const answer = new RegExp(`<textarea id="answer_${pos}"[^>]*>([^<]*)</textarea>`).exec(res.text)?.[1] ?? "";
      expect(answer.trim().length).toBeGreaterThan(0);
    }
    expect(res.text).toContain('<option value="medium" selected>');
    const bad = await post(`${path(cipher)}/proposal`, token, { csrf, reasoningEffort: "extreme" });
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.text).toContain("reasoningEffort");
  });

  test("a generated letter states the bid the apply form then sends, and the application carries that bid", async () => {
    const { token, csrf, apiKey } = await setup();
    for (const [over, field, amount] of [
      [{ hourly: [50, 80] as [number, number] }, "hourlyRate", 50],
      [{ fixed: 800 }, "fixedBid", 800],
    ] as const) {
      const cipher = await job({ title: "Shopify speed optimisation", description: "Our store loads slowly.", skills: ["Shopify"], ...over });
      const res = await post(`${path(cipher)}/proposal`, token, { csrf, reasoningEffort: "medium" });
      expect(res.status, show(res)).toBe(200);
      const letter = /<textarea id="coverLetter"[^>]*>([^<]*)<\/textarea>/.exec(res.text)![1]!;
      expect(amountsIn(letter), letter).toEqual([amount]);
      const bidField = new RegExp(`<input[^>]*name="${field}"[^>]*value="([^"]*)"`).exec(res.text)![1]!;
      expect(bidField).toBe(String(amount));
      const applied = await post(`${path(cipher)}/apply`, token, { csrf, coverLetter: letter, [field]: bidField });
      expect(applied.status, show(applied)).toBe(303);
      await settledByJob(apiKey, cipher);
      const stored = (await row("SELECT hourly_rate AS h, fixed_bid AS f, cover_letter AS c FROM applications WHERE job_ciphertext = ?", cipher)) as {
        h: number | null;
        f: number | null;
        c: string;
      };
      expect(field === "hourlyRate" ? stored.h : stored.f).toBe(amount);
      expect(amountsIn(stored.c)).toEqual([amount]);
    }
  });

  test("apply creates an application (seen by the API), redirects, and the job page shows it; again → 409", async () => {
    const { token, csrf, apiKey } = await setup();
    const cipher = await job({ hourly: [40, 80], questions: ["Why you?"] });
    const res = await post(`${path(cipher)}/apply`, token, {
      csrf,
      coverLetter: "Hello, I can help.",
      answer_0: "Because.",
      hourlyRate: "55",
      timeline: "1 to 3 months",
      boostBids: "",
    });
    expect(res.status, show(res)).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/applications");
    const status = await settledByJob(apiKey, cipher);
    expect(status.status, show(status)).toBe(200);
    expect(status.body).toMatchObject({ jobId: cipher, applicationStatus: "applied" });
    const stored = await row("SELECT hourly_rate AS h, timeline, cover_letter AS c FROM applications");
    expect(stored).toEqual({ h: 55, timeline: "1 to 3 months", c: "Hello, I can help." });

    const page = await get(path(cipher), token);
    expect(page.text).toContain(status.body.queueId);
    expect(page.text).toContain("Hello, I can help.");

    // The page now shows the application's status instead of the forms.
    expect(page.text).toContain('Application: <strong class="badge status-applied">applied</strong>');
    expect(page.text).not.toContain(`action="${path(cipher)}/apply"`);

    // A form posted from an older copy of the page is refused, and the page shows the application as it is.
    const again = await post(`${path(cipher)}/apply`, token, { csrf, coverLetter: "Second <try>", answer_0: "Still me.", hourlyRate: "60" });
    expect(again.status, show(again)).toBe(409);
    expect(again.text).toContain("already applied");
    expect(again.text).toContain(status.body.queueId);
    expect(await countApps()).toBe(1);
  });

  test("validation errors name the fields and keep the values (400)", async () => {
    const { token, csrf } = await setup();
    const cipher = await job();
    const res = await post(`${path(cipher)}/apply`, token, { csrf, coverLetter: "", hourlyRate: "lots", boostBids: "1.5" });
    expect(res.status, show(res)).toBe(400);
    expect(res.text).toContain("coverLetter");
    expect(res.text).toContain("hourlyRate");
    expect(res.text).toContain("boostBids");
    expect(res.text).toContain('value="lots"');
    expect(await countApps()).toBe(0);
  });

  test("zero credits → 402 page with the user's values, nothing created", async () => {
    const { token, csrf, accountId } = await setup({ credits: 0 });
    const cipher = await job();
    const res = await post(`${path(cipher)}/apply`, token, { csrf, coverLetter: "Keep this letter" });
    expect(res.status, show(res)).toBe(402);
    expect(res.text).toContain("Insufficient auto-apply credits");
    expect(res.text).toContain("Keep this letter</textarea>");
    expect(await countApps()).toBe(0);
    expect((await getAccount(t.deps, accountId)).creditsHeld).toBe(0);
  });

  test("missing csrf → 403 and nothing created", async () => {
    const { token } = await setup();
    const cipher = await job();
    const res = await post(`${path(cipher)}/apply`, token, { coverLetter: "No token" });
    expect(res.status, show(res)).toBe(403);
    const gen = await post(`${path(cipher)}/proposal`, token, { reasoningEffort: "low" });
    expect(gen.status, show(gen)).toBe(403);
    expect(await countApps()).toBe(0);
  });

  test("the feed detail links each matched job to its job page", async () => {
    const { token, csrf } = await setup();
    const created = await post("/dashboard/feeds", token, { csrf, title: "All", minScore: "0" });
    expect(created.status, show(created)).toBe(303);
    const cipher = await job({ title: "Linked job" });
    const feed = await get(created.headers.get("location")!, token);
    expect(feed.text).toContain("Linked job");
    expect(feed.text).toContain(`href="${path(cipher)}"`);
    expect(feed.text).toContain(">details</a>");
    const opened = await get(path(cipher), token);
    expect(opened.status, show(opened)).toBe(200);
  });
});

describe("proposal history chart", () => {
  test("an SVG line chart with title, role and aria-label; a time that is not one shows as ?", () => {
    const svg = proposalChart([
      { at: Date.parse("2026-01-15T12:00:00.000Z"), proposals: 3, interviewing: 0, hired: 0 },
      { at: Date.parse("2026-01-15T13:00:00.000Z"), proposals: null, interviewing: 0, hired: 0 },
      { at: Date.parse("2026-01-15T14:00:00.000Z"), proposals: 9, interviewing: 1, hired: 0 },
      { at: Number.NaN, proposals: 12, interviewing: 1, hired: 0 },
    ]).value;
    expect(svg).toStartWith("<svg");
    expect(svg).toContain('role="img"');
    expect(svg).toMatch(/aria-label="Proposals over time: 3 at 2026-01-15T12:00:00.000Z, 12 at \?/);
    expect(svg).toContain("<title>Proposals over time");
    expect(svg).toContain("<polyline");
    expect((svg.match(/<circle /g) ?? []).length).toBe(3);
  });

  test("one point: a dot, no line; no points: a sentence", () => {
    const one = proposalChart([{ at: Date.parse("2026-01-15T12:00:00.000Z"), proposals: 4, interviewing: null, hired: null }]).value;
    expect(one).toContain("<circle ");
    expect(one).not.toContain("<polyline");
    expect(proposalChart([]).value).toContain("No proposal history recorded yet.");
    expect(proposalChart(undefined).value).not.toContain("<svg");
    expect(proposalChart([{ at: Date.parse("2026-01-15T12:00:00.000Z"), proposals: null, interviewing: 1, hired: null }]).value).not.toContain("<svg");
  });
});
