import { afterEach, describe, expect, test } from "bun:test";
import { rawExec, rawMany } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { TaskWorker } from "../../../src/worker/worker";
import { applyWorker } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser, FORM, form, foreignScripts } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
let worker: TaskWorker | undefined;
const { get, post, signIn } = browser(() => t);
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
});

const HTMX = { "hx-request": "true" };

async function setup() {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const acct = await t.account({ name: "Acme", credits: 5 });
  const s = await signIn(acct.apiKey);
  return { ...acct, ...s };
}

async function createFeed(apiKey: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.request("POST", "/api/v1/feeds", { key: apiKey, json: { minScore: 0, ...body } });
  expect(res.status, show(res)).toBe(201);
  return res.body.feed.id;
}

async function ingest(over: Parameters<typeof makeDoc>[0]): Promise<string> {
  const doc = makeDoc(over);
  await ingestDocuments(t.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const rows = (sql: string, ...args: unknown[]) => rawMany<any>(t.deps.db, sql, sql, args);
const entryOf = async (cipher: string, feedId: string): Promise<string> =>
  (await rows("SELECT id FROM feed_jobs WHERE job_ciphertext = ? AND feed_id = ?", cipher, feedId))[0].id;
const stateOf = async (id: string) => {
  const [r] = await rows("SELECT read, starred_at_ts AS starred, dismissed_at_ts AS dismissed FROM feed_jobs WHERE id = ?", id);
  return { read: Boolean(r.read), starred: r.starred !== null, dismissed: r.dismissed !== null };
};
const htmxGet = (path: string, token: string, headers: Record<string, string> = {}) =>
  t.request("GET", path, { headers: { cookie: `jp_session=${token}`, ...HTMX, ...headers } });
const htmxPost = (path: string, token: string, fields: Record<string, string>) =>
  t.request("POST", path, { body: form(fields), headers: { ...FORM, cookie: `jp_session=${token}`, ...HTMX } });

/** Two feeds with a job each (one in both), the Go job two minutes newer. */
async function twoFeeds(apiKey: string) {
  const goFeed = await createFeed(apiKey, { title: "Go feed", includes: ["golang"] });
  const rustFeed = await createFeed(apiKey, { title: "Rust feed", includes: ["rust"] });
  const rust = await ingest({ title: "Rust CLI tool", skills: ["Rust"], fixed: 900, country: "Germany", questions: ["Why you?"] });
  t.clock.advance(120_000);
  const go = await ingest({ title: "Golang API 100%_done", skills: ["Golang", "PostgreSQL"], hourly: [40, 80], country: "United States" });
  return { goFeed, rustFeed, go, rust, goEntry: await entryOf(go, goFeed), rustEntry: await entryOf(rust, rustFeed) };
}

describe("dashboard inbox", () => {
  test("signed out: the inbox and its fragments redirect to sign-in; the overview moved to /dashboard/overview", async () => {
    const { token } = await setup();
    for (const path of ["/dashboard", "/dashboard/inbox/new?since=0", "/dashboard/inbox/fresh?since=0", "/dashboard/inbox/cards"]) {
      const res = await get(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get("location")).toBe("/dashboard/sign-in");
    }
    const overview = await get("/dashboard/overview", token);
    expect(overview.status, show(overview)).toBe(200);
    expect(overview.text).toContain("credits available");
    expect(overview.text).toContain('<a href="/dashboard/overview" aria-current="page">Overview</a>');
  });

  test("shows matches from every feed, newest first, as cards with their badges; nothing of another account", async () => {
    const { token, apiKey } = await setup();
    const { go, rust, goEntry } = await twoFeeds(apiKey);
    await rawExec(t.deps.db, "reason", "UPDATE feed_jobs SET matching_score = 8.5, score_reason = ? WHERE id = ?", ["Strong <Go> fit", goEntry]);
    const other = await t.account({ name: "Other" });
    await createFeed(other.apiKey, { title: "Other's feed", includes: ["elixir"] });
    await ingest({ title: "Another elixir job" });

    const res = await get("/dashboard", token);
    expect(res.status, show(res)).toBe(200);
    expect(foreignScripts(res.text)).toEqual([]);
    expect(res.text).toContain('<a href="/dashboard" aria-current="page">Inbox</a>');
    // Newest first: the Go job (and Other's job, which is not ours, never).
    expect(res.text.indexOf("Golang API")).toBeLessThan(res.text.indexOf("Rust CLI tool"));
    expect(res.text).not.toContain("Another elixir job");
    expect(res.text).not.toContain("Other&#39;s feed");
    expect(res.text).toContain("<title>(2) Inbox · jobpilot</title>");
    expect(res.text).toContain('data-unread="2"');
    // Badges and facts.
    expect(res.text).toContain('title="Strong &lt;Go&gt; fit">Match 8.5/10</span>');
    expect(res.text).toContain("<summary>Why</summary><p>Strong &lt;Go&gt; fit</p>");
    expect(res.text).toMatch(/Client \d+ · \w+/);
    expect(res.text).toContain("Go feed</a>");
    expect(res.text).toContain("Rust feed</a>");
    expect(res.text).toContain("Fixed price");
    expect(res.text).toContain("Hourly");
    // The client's country in words: a flag emoji is two empty boxes without an emoji font.
    expect(res.text).toContain("<li>Germany</li>");
    expect(res.text).not.toMatch(/[\u{1F1E6}-\u{1F1FF}]/u);
    expect(res.text).toContain("Payment verified");
    expect(res.text).toContain("via test");
    // Without JavaScript a card is a link to the job page; with htmx it opens the side panel.
    expect(res.text).toContain(`href="/dashboard/jobs/${encodeURIComponent(go)}" hx-get="/dashboard/jobs/${encodeURIComponent(go)}?panel=${goEntry}"`);
    expect(res.text).toContain(`href="/dashboard/jobs/${encodeURIComponent(rust)}"`);
    expect(res.text).toContain('<aside id="panel"');
    expect(res.text).toContain("<kbd>j / k</kbd>");
  });

  test("filters by feed, score, platform, text and state; bad values are a 400 naming the field", async () => {
    const { token, csrf, apiKey } = await setup();
    const { goFeed, rustFeed, goEntry, rustEntry } = await twoFeeds(apiKey);
    await rawExec(t.deps.db, "score", "UPDATE feed_jobs SET matching_score = 8 WHERE id = ?", [goEntry]);
    const titles = async (query: string) => {
      const res = await get(`/dashboard?${query}`, token);
      expect(res.status, show(res)).toBe(200);
      return ["Golang API", "Rust CLI tool"].filter((x) => res.text.includes(x));
    };
    expect(await titles(`feed=${rustFeed}`)).toEqual(["Rust CLI tool"]);
    expect(await titles(`feed=${goFeed}`)).toEqual(["Golang API"]);
    expect(await titles("min=7")).toEqual(["Golang API"]);
    expect(await titles("platform=web")).toEqual([]);
    expect(await titles("platform=marketplace")).toEqual(["Golang API", "Rust CLI tool"]);
    // Title and skills, any case; LIKE's wildcards are taken literally.
    expect(await titles("q=POSTGRESQL")).toEqual(["Golang API"]);
    expect(await titles("q=rust")).toEqual(["Rust CLI tool"]);
    expect(await titles("q=100%25_")).toEqual(["Golang API"]);
    expect(await titles("q=%25")).toEqual(["Golang API"]);
    expect(await titles("q=_")).toEqual(["Golang API"]);
    // States: unread is the default; starred; all; dismissed.
    await htmxPost(`/dashboard/inbox/${rustEntry}`, token, { csrf, action: "star" });
    expect(await titles("show=starred")).toEqual(["Rust CLI tool"]);
    await rawExec(t.deps.db, "read", "UPDATE feed_jobs SET read = ? WHERE id = ?", [true, goEntry]);
    expect(await titles("")).toEqual(["Rust CLI tool"]);
    expect(await titles("show=all")).toEqual(["Golang API", "Rust CLI tool"]);
    expect(await titles("show=dismissed")).toEqual([]);

    for (const [query, message] of [
      ["min=11", "min (score at least) must be a number from 0 to 10"],
      ["min=abc", "min (score at least)"],
      ["show=everything", "show must be one of unread, starred, all, dismissed"],
      ["platform=moon", "platform must be one of"],
      [`q=${"x".repeat(201)}`, "q (search) must be at most 200 characters"],
      ["offset=-1", "offset must be a whole number"],
      ["until=soon", "until must be a time in Unix milliseconds"],
    ] as const) {
      const res = await get(`/dashboard?${query}`, token);
      expect(res.status, query).toBe(400);
      expect(res.text).toContain(message);
    }
    const other = await t.account({ name: "Other" });
    const foreign = await createFeed(other.apiKey, { title: "Other's feed" });
    expect((await get(`/dashboard?feed=${foreign}`, token)).status).toBe(404);
    expect((await get(`/dashboard/inbox/new?since=x`, token)).status).toBe(400);
  });

  test("triage in place: read, star, dismiss and undo; without htmx the browser returns to the same list position", async () => {
    const { token, csrf, apiKey } = await setup();
    const { goEntry, rustEntry } = await twoFeeds(apiKey);
    const path = `/dashboard/inbox/${goEntry}`;

    const starred = await htmxPost(path, token, { csrf, action: "star", back: "show=all" });
    expect(starred.status, show(starred)).toBe(200);
    expect(starred.text).not.toContain("<html");
    expect(starred.text).toContain(`id="card-${goEntry}"`);
    expect(starred.text).toContain("★ Starred");
    expect(starred.text).toContain("Unstar: Golang API");
    expect(starred.text).toContain('<input type="hidden" name="back" value="show=all">');
    expect(await stateOf(goEntry)).toEqual({ read: false, starred: true, dismissed: false });

    const read = await htmxPost(path, token, { csrf, action: "read" });
    expect(read.text).toContain('<span id="unread-count" data-unread="1" hx-swap-oob="true">1 unread</span>');
    expect((await stateOf(goEntry)).read).toBe(true);

    // Dismissing ("not interested") records it, reads it, and the card becomes an undo line.
    const dismissed = await htmxPost(`/dashboard/inbox/${rustEntry}`, token, { csrf, action: "dismiss" });
    expect(dismissed.text).toContain("Dismissed:</span> Rust CLI tool");
    expect(dismissed.text).toContain('value="undismiss"');
    expect(await stateOf(rustEntry)).toEqual({ read: true, starred: false, dismissed: true });
    const all = await get("/dashboard?show=all", token);
    expect(all.text).not.toContain("Rust CLI tool");
    expect((await get("/dashboard?show=dismissed", token)).text).toContain("Rust CLI tool");
    await htmxPost(`/dashboard/inbox/${rustEntry}`, token, { csrf, action: "undismiss" });
    expect((await stateOf(rustEntry)).dismissed).toBe(false);

    // Without JavaScript: a 303 back to the list the form came from, at the card.
    const plain = await post(path, token, { csrf, action: "unstar", back: "show=all&min=2&offset=0" });
    expect(plain.status, show(plain)).toBe(303);
    expect(plain.headers.get("location")).toBe(`/dashboard?min=2&show=all#card-${goEntry}`);
    // A `back` that is not a list query is dropped, never echoed.
    const odd = await post(path, token, { csrf, action: "star", back: "show=%3Cscript%3E" });
    expect(odd.headers.get("location")).toBe(`/dashboard#card-${goEntry}`);
  });

  test("triage refusals change nothing: bad action, missing CSRF, another account's or unknown entry", async () => {
    const { token, csrf, apiKey } = await setup();
    const { goEntry } = await twoFeeds(apiKey);
    const before = await stateOf(goEntry);
    const bad = await post(`/dashboard/inbox/${goEntry}`, token, { csrf, action: "delete" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("action must be one of read, unread, star, unstar, dismiss, undismiss");
    const forged = await post(`/dashboard/inbox/${goEntry}`, token, { action: "dismiss" });
    expect(forged.status).toBe(403);
    const other = await t.account({ name: "Other" });
    const otherSession = await signIn(other.apiKey);
    const foreign = await post(`/dashboard/inbox/${goEntry}`, otherSession.token, { csrf: otherSession.csrf, action: "dismiss" });
    expect(foreign.status).toBe(404);
    for (const id of ["not-a-uuid", "0190a8f2-0000-7000-8000-000000000000"]) {
      expect((await post(`/dashboard/inbox/${id}`, token, { csrf, action: "read" })).status).toBe(404);
    }
    expect(await stateOf(goEntry)).toEqual(before);
  });

  test("paging keeps its place while new matches arrive; htmx appends the next cards", async () => {
    const { token, apiKey } = await setup();
    const feed = await createFeed(apiKey, { title: "Many" });
    for (let i = 0; i < 27; i++) {
      await ingest({ title: `Job number ${String(i).padStart(2, "0")}` });
      t.clock.advance(1000);
    }
    const first = await get("/dashboard", token);
    expect(first.text).toContain("1–25 of 27, newest first.");
    const older = /href="\/dashboard\?(offset=25&amp;until=\d+)" rel="next"/.exec(first.text);
    expect(older, first.text.slice(-3000)).not.toBeNull();
    // A job arriving now would shift an offset-only second page; the snapshot time keeps it put.
    t.clock.advance(1000);
    await ingest({ title: "Job number late" });
    const second = await get(`/dashboard?${older![1]!.replaceAll("&amp;", "&")}`, token);
    expect(second.text).toContain("26–27 of 27");
    expect(second.text).toContain("Job number 01");
    expect(second.text).toContain("Job number 00");
    expect(second.text).not.toContain("Job number late");
    expect(second.text).toContain('rel="prev">Newer</a>');
    const more = await htmxGet(`/dashboard/inbox/cards?${older![1]!.replaceAll("&amp;", "&")}`, token);
    expect(more.status, show(more)).toBe(200);
    expect(more.text).not.toContain("<html");
    expect((more.text.match(/<article /g) ?? []).length).toBe(2);
    expect(more.text).toContain('<nav aria-label="Pages" class="pager" id="pager">');
    expect(feed).toBeTruthy();
  });

  test("live: the badge counts new matches (304 when unchanged) and inserts them on request", async () => {
    const { token, apiKey } = await setup();
    await twoFeeds(apiKey);
    const page = await get("/dashboard", token);
    const since = /hx-get="\/dashboard\/inbox\/new\?since=(\d+)"/.exec(page.text)?.[1];
    expect(since, page.text).toBeDefined();
    const quiet = await htmxGet(`/dashboard/inbox/new?since=${since}`, token);
    expect(quiet.status, show(quiet)).toBe(200);
    expect(quiet.text).not.toContain(" new</button>");
    const etag = quiet.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"/);
    expect(quiet.headers.get("cache-control")).toBe("private, no-cache");
    const unchanged = await htmxGet(`/dashboard/inbox/new?since=${since}`, token, { "if-none-match": etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe("");

    t.clock.advance(5000);
    await ingest({ title: "Fresh golang gig" });
    const badge = await htmxGet(`/dashboard/inbox/new?since=${since}`, token, { "if-none-match": etag });
    expect(badge.status, show(badge)).toBe(200);
    expect(badge.text).toContain(">1 new</button>");
    expect(badge.text).toContain('data-unread="3"');
    const fresh = await htmxGet(`/dashboard/inbox/fresh?since=${since}`, token);
    expect(fresh.status, show(fresh)).toBe(200);
    expect(fresh.text).toContain("Fresh golang gig");
    expect(fresh.text).not.toContain("Rust CLI tool");
    // The badge comes back (out of band) counting from the newest card inserted.
    const reset = /id="new-badge"[^>]*hx-get="\/dashboard\/inbox\/new\?since=(\d+)"/.exec(fresh.text)?.[1];
    expect(Number(reset)).toBeGreaterThan(Number(since));
    expect(fresh.text).toContain('hx-swap-oob="true"');
    const after = await htmxGet(`/dashboard/inbox/new?since=${reset}`, token);
    expect(after.text).not.toContain(" new</button>");
  });

  test("the side panel: the job page as a fragment for htmx, which reads the entry; the full page otherwise", async () => {
    const { token, apiKey } = await setup();
    const { rust, rustEntry, goEntry } = await twoFeeds(apiKey);
    const path = `/dashboard/jobs/${encodeURIComponent(rust)}?panel=${rustEntry}`;
    const plain = await get(path, token);
    expect(plain.text).toContain("<!doctype html>");
    expect((await stateOf(rustEntry)).read).toBe(false);
    const panel = await htmxGet(path, token);
    expect(panel.status, show(panel)).toBe(200);
    expect(panel.text).not.toContain("<html");
    expect(panel.text).toContain('<h2 id="panel-title" tabindex="-1">Rust CLI tool</h2>');
    expect(panel.text).toContain("<h3>Client</h3>");
    expect(panel.text).toContain("<h3>Proposal activity</h3>");
    // Its forms post to the job page's handlers and come back to the panel (the proposal form through the app script's stream).
    expect(panel.text).toContain(`hx-post="/dashboard/jobs/${encodeURIComponent(rust)}/apply" hx-target="#panel"`);
    expect(panel.text).toContain(`action="/dashboard/jobs/${encodeURIComponent(rust)}/proposal" data-progress="p-progress"`);
    expect(panel.text).toContain(`<input type="hidden" name="panel" value="${rustEntry}">`);
    expect(panel.text).toContain('id="p-coverLetter"');
    expect((await stateOf(rustEntry)).read).toBe(true);
    expect((await stateOf(goEntry)).read).toBe(false);
    // The list follows at once: the card (read now, no "New" badge) and the unread count, out of band beside the panel.
    expect(panel.text).toContain('<span id="unread-count" data-unread="1" hx-swap-oob="true">1 unread</span>');
    const card = /<article class="card read" id="card-([^"]+)"[^>]*hx-swap-oob="true">[\s\S]*?<\/article>/.exec(panel.text);
    expect(card?.[1], panel.text).toBe(rustEntry);
    expect(card![0]).not.toContain("unread-badge");
    expect(card![0]).toContain("Mark unread: Rust CLI tool");
    // The full page (no panel) marks nothing and sends no list pieces.
    expect(plain.text).not.toContain('hx-swap-oob="true">1 unread');
  });

  test("draft and apply from the panel: answers required next to their question, one bid field, then the status until final", async () => {
    const { token, csrf, apiKey } = await setup();
    worker = applyWorker(t);
    const { rust, rustEntry, go } = await twoFeeds(apiKey);
    const job = `/dashboard/jobs/${encodeURIComponent(rust)}`;
    // A fixed-price job: only the fixed bid, filled with the client's budget.
    const page = await get(job, token);
    expect(page.text).toContain('name="fixedBid" inputmode="decimal" value="900"');
    expect(page.text).not.toContain('name="hourlyRate"');
    const hourly = await get(`/dashboard/jobs/${encodeURIComponent(go)}`, token);
    expect(hourly.text).toContain('name="hourlyRate" inputmode="decimal" value="40"');
    expect(hourly.text).not.toContain('name="fixedBid"');

    const drafted = await htmxPost(`${job}/proposal`, token, { csrf, panel: rustEntry, reasoningEffort: "low" });
    expect(drafted.status, show(drafted)).toBe(200);
    expect(drafted.text).not.toContain("<html");
    expect(drafted.text).toContain("Proposal written");
    const letter = /<textarea id="p-coverLetter"[^>]*>([^<]+)<\/textarea>/.exec(drafted.text)?.[1] ?? "";
    expect(letter.length).toBeGreaterThan(20);

    const unanswered = await htmxPost(`${job}/apply`, token, { csrf, panel: rustEntry, coverLetter: "Hello", answer_0: "  ", fixedBid: "900" });
    expect(unanswered.status, show(unanswered)).toBe(400);
    expect(unanswered.text).toContain('<p id="p-answer_0Error" class="error-text field-error">Answer question 1 before applying.</p>');
    expect(unanswered.text).toContain('aria-invalid="true" aria-describedby="p-answer_0Error"');
    expect(Number((await rows("SELECT count(*) AS n FROM applications"))[0].n)).toBe(0);

    const applied = await htmxPost(`${job}/apply`, token, { csrf, panel: rustEntry, coverLetter: "Hello", answer_0: "Because.", fixedBid: "900" });
    expect(applied.status, show(applied)).toBe(200);
    expect(applied.text).not.toContain("<html");
    expect(applied.text).toContain('class="app-status"');
    expect(applied.text).not.toContain(`action="${job}/apply"`);
    // The card's badge comes along out of band.
    expect(applied.text).toContain(`id="card-status-${rustEntry}" hx-swap-oob="true"`);
    // Until final, both poll; at the end neither does.
    const until = performance.now() + 5000;
    let status = await htmxGet(`${job}/status?panel=${rustEntry}`, token);
    while (status.text.includes("hx-trigger") && performance.now() < until) {
      t.clock.advance(10);
      worker.notify();
      await Bun.sleep(5);
      status = await htmxGet(`${job}/status?panel=${rustEntry}`, token);
    }
    expect(status.text).toContain('<strong class="badge status-applied">Applied</strong>');
    expect(status.text).not.toContain("hx-trigger");
    const badge = await htmxGet(`/dashboard/inbox/${rustEntry}/status`, token);
    expect(badge.text).toContain('<span class="badge status-applied">Applied</span>');
    expect(badge.text).not.toContain("hx-trigger");
    const inbox = await get("/dashboard?show=all", token);
    expect(inbox.text).toContain('<span class="badge status-applied">Applied</span>');
  });

  test("the feed page leads with its matched jobs, a summary line and Edit; deliveries and the inbox are a click away", async () => {
    const { token, apiKey } = await setup();
    const { goFeed } = await twoFeeds(apiKey);
    const res = await get(`/dashboard/feeds/${goFeed}`, token);
    expect(res.status, show(res)).toBe(200);
    const text = res.text;
    expect(text).toContain("score ≥ 0 · keywords: golang · all platforms · no webhook");
    expect(text.indexOf("Matched jobs")).toBeLessThan(text.indexOf("<summary>All settings</summary>"));
    expect(text.indexOf("Golang API")).toBeLessThan(text.indexOf("Minimum score"));
    expect(text).toContain(`<a href="/dashboard/feeds/${goFeed}/edit">Edit</a>`);
    expect(text).toContain(`<a href="/dashboard/feeds/${goFeed}/deliveries">Deliveries</a>`);
    expect(text).toContain(`<a href="/dashboard?feed=${goFeed}&amp;show=all">Triage in the inbox</a>`);
    expect(text).toContain('<a href="/dashboard/feeds" aria-current="page">Feeds</a>');
    const deliveries = await get(`/dashboard/feeds/${goFeed}/deliveries`, token);
    expect(deliveries.text).toContain('<a href="/dashboard/feeds" aria-current="page">Feeds</a>');
  });
});

describe("inbox: the browser companion", () => {
  test("says at the top when the companion stopped capturing (a login page), and no more once it captures again", async () => {
    const { apiKey, token } = await setup();
    const notice = async () => {
      const res = await t.request("GET", "/dashboard", { headers: { cookie: `jp_session=${token}` } });
      expect(res.status, show(res)).toBe(200);
      return /data-test="companion-needs-you"[^>]*>([^<]*)/.exec(res.text)?.[1] ?? null;
    };
    expect(await notice()).toBeNull();
    const paused = await t.request("POST", "/api/v1/capture/status", { key: apiKey, json: { watch: "paused", needsYou: "login" } });
    expect(paused.status, show(paused)).toBe(200);
    expect(await notice()).toStartWith("Browser companion: needs you: the marketplace shows its login page");
    // Another account's companion is not this one's business.
    const other = await t.account({ name: "Other" });
    expect((await t.request("POST", "/api/v1/capture/status", { key: other.apiKey, json: { watch: "paused", needsYou: "login" } })).status).toBe(200);
    const captured = await t.request("POST", "/api/v1/capture/jobs", {
      key: apiKey,
      json: { pageUrl: "https://www.upwork.com/nx/search/jobs/", jobs: [makeDoc({ title: "Captured again" })] },
    });
    expect(captured.status, show(captured)).toBe(200);
    expect(await notice()).toBeNull();
  });
});
