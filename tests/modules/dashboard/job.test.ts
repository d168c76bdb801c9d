import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { getAccount } from "../../../src/modules/accounts/service";
import { usd } from "../../../src/modules/dashboard/charts";
import { proposalChart } from "../../../src/modules/dashboard/job-views";
import type { TaskWorker } from "../../../src/worker/worker";
import { applyWorker, settledByJob as waitSettled } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser, foreignScripts } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";
import { startFakeOpenAi } from "../../helpers/fake-openai";
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

const settledByJob = (apiKey: string, cipher: string) => waitSettled(t, worker!, apiKey, cipher);

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
    expect(page.text).toContain('<strong class="badge status-applied">Applied</strong>');
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
    expect(feed.text).toContain(`hx-get="${path(cipher)}?panel=`);
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

describe("client spend and hires over time", () => {
  /** A job of `companyId` whose client, as this document shows it, has spent `spent` with `hires` hires. */
  async function clientJob(companyId: string, spent: number | null, hires: number | null, title: string): Promise<string> {
    const doc = makeDoc({ companyId, title });
    const client = (doc.upworkHistoryData as { client: Record<string, unknown> }).client;
    if (spent === null) delete client.totalSpent;
    else client.totalSpent = { isoCurrencyCode: "USD", amount: String(spent) };
    if (hires !== null) client.totalHires = hires;
    await ingestDocuments(t.deps, [doc], { source: "test" });
    return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  }

  test("the job page and the panel plot the company's archived snapshots by the time each was seen, with axes, units and a table", async () => {
    const { token } = await setup();
    const start = t.clock.now();
    await clientJob("1500000000000000777", 4000, 3, "First job of the client");
    t.clock.advance(86_400_000);
    await clientJob("1500000000000000777", null, null, "A job that says nothing of the client");
    t.clock.advance(86_400_000);
    await clientJob("1500000000000000999", 2_000_000, 77, "Another company's job");
    t.clock.advance(86_400_000);
    const cipher = await clientJob("1500000000000000777", 12_500, 5, "Latest job of the client");

    const page = await get(path(cipher), token);
    expect(page.status, show(page)).toBe(200);
    const figure = /<figure class="chart client-history">[\s\S]*?<\/figure>/.exec(page.text)?.[0] ?? "";
    expect(figure, page.text).toContain("as its 2 archived jobs showed them, each plotted at the time jobpilot last saw that job");
    // Spend in USD, hires as a count, both over UTC time, oldest first.
    expect(figure).toContain(
      `aria-label="Client spend over time: $4k at ${new Date(start).toISOString()}, $12.5k at ${new Date(start + 3 * 86_400_000).toISOString()} (2 points, peak $12.5k)"`,
    );
    expect(figure).toContain(`aria-label="Client hires over time: 3 at ${new Date(start).toISOString()}, 5 at`);
    expect(figure).toContain(">spend (USD)</text>");
    expect(figure).toContain(">hires</text>");
    expect((figure.match(/>time \(UTC\)<\/text>/g) ?? []).length).toBe(2);
    expect(figure).toContain(`<tr><td>${new Date(start).toISOString()}</td><td>$4k</td><td>3</td></tr>`);
    // Another company's numbers never enter the chart.
    expect(figure).not.toContain("$2M");
    expect(figure).not.toContain(">77<");

    const lone = await get(path(await clientJob("1500000000000000555", null, null, "A client nobody knows")), token);
    expect(lone.text).toContain("No spend or hires known for this client yet.");
  });

  test("the inbox's panel shows the same chart", async () => {
    const { token, apiKey } = await setup();
    const feed = await t.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "All", minScore: 0 } });
    expect(feed.status, show(feed)).toBe(201);
    const cipher = await clientJob("1500000000000000777", 800, 1, "Panel job");
    const [entry] = await rawMany<{ id: string }>(t.deps.db, "entry", "SELECT id FROM feed_jobs WHERE job_ciphertext = ?", [cipher]);
    const panel = await t.request("GET", `${path(cipher)}?panel=${entry!.id}`, { headers: { cookie: `jp_session=${token}`, "hx-request": "true" } });
    expect(panel.status, show(panel)).toBe(200);
    expect(panel.text).toContain("<h4>Spend and hires over time</h4>");
    expect(panel.text).toContain('aria-label="Client spend over time: $800 at');
    expect(panel.text).toContain("as its one archived job showed them");
  });
});

describe("chart money", () => {
  test("dollars round into the next unit instead of showing 1000 of the smaller one", () => {
    expect([0, 950, 999.6, 12_500, 999_999, 2_340_000].map(usd)).toEqual(["$0", "$950", "$1k", "$12.5k", "$1M", "$2.3M"]);
  });
});

describe("writing a proposal, stage by stage", () => {
  type Event = { event: string; data: any };
  const events = (text: string): Event[] =>
    text
      .split("\n\n")
      .filter(Boolean)
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
  const streamed = (cipher: string, token: string, fields: Record<string, string>, panel = true) =>
    t.request("POST", `${path(cipher)}/proposal`, {
      body: new URLSearchParams(fields).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: `jp_session=${token}`,
        accept: "text/event-stream",
        ...(panel ? { "hx-request": "true" } : {}),
      },
    });

  test("asked for a stream: each stage as it begins, then the panel (or the page) with the letter; the plain form is unchanged", async () => {
    const { token, csrf, apiKey } = await setup();
    const feed = await t.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "All", minScore: 0 } });
    expect(feed.status, show(feed)).toBe(201);
    const cipher = await job({ title: "Staged job", questions: ["Why you?"] });
    const entry = (await row("SELECT id FROM feed_jobs WHERE job_ciphertext = ?", cipher)).id as string;

    const res = await streamed(cipher, token, { csrf, panel: entry, reasoningEffort: "low" });
    expect(res.status, show(res)).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const all = events(res.text);
    expect(all.map((e) => e.event)).toEqual(["stage", "stage", "stage", "done"]);
    expect(all.slice(0, 3).map((e) => e.data.text)).toEqual([
      "Reading the job",
      "Reading your freelancer profile",
      "Writing the letter and 1 screening answer with the local writer",
    ]);
    const times = all.slice(0, 3).map((e) => e.data.atMs as number);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const done = all[3]!.data;
    expect(done.status).toBe(200);
    expect(done.html).not.toContain("<html");
    expect(done.html).toContain("Proposal written");
    expect(/<textarea id="p-coverLetter"[^>]*>([^<]+)<\/textarea>/.exec(done.html)?.[1]?.length ?? 0).toBeGreaterThan(50);
    expect(done.html).toMatch(/<textarea id="p-answer_0"[^>]*>[^<]+<\/textarea>/);

    // The job page (no panel) gets the whole page in `done`.
    const page = events((await streamed(cipher, token, { csrf, reasoningEffort: "high" }, false)).text).at(-1)!.data;
    expect(page.html).toStartWith("<!doctype html>");
    expect(page.html).toContain("Proposal written");

    // A bad effort is refused before any writing: no stage, `done` carries the 400 and its message.
    const bad = events((await streamed(cipher, token, { csrf, panel: entry, reasoningEffort: "extreme" })).text);
    expect(bad.map((e) => e.event)).toEqual(["done"]);
    expect(bad[0]!.data.status).toBe(400);
    expect(bad[0]!.data.html).toContain("reasoningEffort");

    // Refusals before the work starts are ordinary pages, not streams: no CSRF token, another job.
    const forged = await streamed(cipher, token, { panel: entry });
    expect(forged.status).toBe(403);
    expect(forged.headers.get("content-type")).toContain("text/html");
    expect((await streamed("~0299999999999999999", token, { csrf })).status).toBe(404);

    // The form without the script: the page as before.
    const plain = await post(`${path(cipher)}/proposal`, token, { csrf, reasoningEffort: "low" });
    expect(plain.headers.get("content-type")).toContain("text/html");
    expect(plain.text).toContain("Proposal written");
    // The page's form is the script's to post (no htmx attributes): its draft button names the stream's address and the stage list it fills.
    expect(plain.text).toMatch(/<form method="post" action="[^"]+\/apply" novalidate>/);
    expect(plain.text).toMatch(/<button type="submit" class="draft-button" formaction="[^"]+\/proposal" data-progress="progress" data-key="d">/);
    expect(plain.text).toContain('<ol class="stages"></ol>');
  });

  test("with a model, the writing stage arrives while the model is still answering", async () => {
    const fake = await startFakeOpenAi();
    try {
      t = await createTestApp({
        config: { sandboxApplyLatencyMs: 0, openaiApiKey: "sk-test", openaiBaseUrl: fake.url, aiMaxRetries: 0, aiTimeoutMs: 5000 },
      });
      const acct = await t.account({ name: "Acme", credits: 5 });
      const { token, csrf } = await signIn(acct.apiKey);
      const cipher = await job({ title: "Model job" });
      fake.setFallback(() => ({
        content: JSON.stringify({ proposal: "A careful letter about the model job. ".repeat(5), questionAnswers: [] }),
        delayMs: 400,
      }));
      const res = await t.app.handle(
        new Request(`http://localhost${path(cipher)}/proposal`, {
          method: "POST",
          body: new URLSearchParams({ csrf, reasoningEffort: "low" }).toString(),
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: `jp_session=${token}`, accept: "text/event-stream" },
        }),
      );
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes("with the model")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      expect(text).toContain('"text":"Writing the letter with the model"');
      expect(text).not.toContain("event: done");
      // The model takes 400 ms to answer: the stage was on its way that long before the letter.
      const stagedAt = performance.now();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      expect(performance.now() - stagedAt).toBeGreaterThan(300);
      expect(fake.requests).toHaveLength(1);
      const last = events(text).at(-1)!;
      expect(last.event).toBe("done");
      expect(last.data.html).toContain("A careful letter about the model job.");
    } finally {
      await fake.close();
    }
  });
});
