import { afterEach, describe, expect, test } from "bun:test";
import { browser, foreignScripts } from "../../helpers/dashboard";
import { createTestApp, show, type TestApp, type TestResponse } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { ingestDocuments } from "../../../src/modules/intake/ingest";

let t: TestApp;
const { get, post, signIn } = browser(() => t);
afterEach(() => t?.close());

async function setup() {
  t = await createTestApp();
  const acct = await t.account({ name: "Acme" });
  const s = await signIn(acct.apiKey);
  return { ...acct, ...s };
}

async function apiFeeds(apiKey: string): Promise<any[]> {
  const res = await t.request("GET", "/api/v1/feeds", { key: apiKey });
  expect(res.status, show(res)).toBe(200);
  return res.body.feeds;
}

function feedIdFrom(res: TestResponse): string {
  expect(res.status, show(res)).toBe(303);
  const m = /^\/dashboard\/feeds\/([0-9a-f-]{36})$/.exec(res.headers.get("location") ?? "");
  if (!m) throw new Error(`unexpected location ${res.headers.get("location")}`);
  return m[1]!;
}

async function createFeed(token: string, csrf: string, fields: Record<string, string> = {}) {
  return feedIdFrom(await post("/dashboard/feeds", token, { csrf, title: "Go jobs", minScore: "0", ...fields }));
}

describe("dashboard feeds: list and create", () => {
  test("empty state, then the list shows the feed with its settings", async () => {
    const { token, csrf } = await setup();
    const empty = await get("/dashboard/feeds", token);
    expect(empty.text).toContain("No feeds yet — create one and matching jobs appear here as they arrive");
    expect(empty.text).toContain('href="/dashboard/feeds/new"');
    const id = await createFeed(token, csrf, { includes: "golang, rust", platform_marketplace: "on" });
    const list = await get("/dashboard/feeds", token);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain("No feeds yet");
    expect(list.text).toContain(`href="/dashboard/feeds/${id}"`);
    expect(list.text).toContain("Go jobs");
    expect(list.text).toContain("golang, rust");
    expect(list.text).toContain("marketplace");
  });

  test("the new-feed form has every group, labelled fields and explanations", async () => {
    const { token } = await setup();
    const res = await get("/dashboard/feeds/new", token);
    expect(res.status, show(res)).toBe(200);
    for (const legend of ["Basics", "Keywords", "Budget", "Client", "Other", "Notifications"]) expect(res.text).toContain(`<legend>${legend}</legend>`);
    for (const name of [
      "title",
      "profilePrompt",
      "minScore",
      "includes",
      "excludes",
      "minHourlyRate",
      "minFixedPrice",
      "clientMinSpent",
      "clientMinRating",
      "clientMinReviews",
      "countryFilterMode",
      "excludedCountries",
      "includedCountries",
      "usOnlyMode",
      "emailFound",
      "proposalGenerationPrompt",
      "webhookUrl",
      "paymentVerifiedOnly",
      "notificationsMuted",
      "platform_web",
      "jobType_HOURLY",
    ]) {
      expect(res.text).toContain(`<label for="${name}"`);
    }
    expect(foreignScripts(res.text)).toEqual([]);
  });

  test("create converts the form into the API's types", async () => {
    const { token, csrf, apiKey } = await setup();
    await createFeed(token, csrf, {
      title: "Full",
      profilePrompt: "Senior Go backend work",
      minScore: "7.5",
      includes: "golang\nreact native, develop*",
      excludes: "wordpress",
      minHourlyRate: "40",
      minFixedPrice: "",
      clientMinSpent: "1000",
      clientMinRating: "4.5",
      clientMinReviews: "3",
      countryFilterMode: "include",
      includedCountries: "US, Germany",
      excludedCountries: "",
      usOnlyMode: "exclude",
      emailFound: "email_found",
      paymentVerifiedOnly: "on",
      platform_marketplace: "on",
      platform_web: "on",
      jobType_HOURLY: "on",
      proposalGenerationPrompt: "Be brief",
    });
    const [feed] = await apiFeeds(apiKey);
    expect(feed).toMatchObject({
      title: "Full",
      profilePrompt: "Senior Go backend work",
      minScore: 7.5,
      includes: ["golang", "react native", "develop*"],
      excludes: ["wordpress"],
      minHourlyRate: 40,
      clientMinSpent: 1000,
      clientMinRating: 4.5,
      clientMinReviews: 3,
      countryFilterMode: "include",
      includedCountries: ["US", "Germany"],
      excludedCountries: [],
      usOnlyMode: "exclude",
      emailFound: "email_found",
      paymentVerifiedOnly: true,
      notificationsMuted: false,
      platforms: ["marketplace", "web"],
      jobTypes: ["HOURLY"],
      proposalGenerationPrompt: "Be brief",
    });
    expect(feed.minFixedPrice).toBeUndefined();
    expect(feed.webhookUrl).toBeUndefined();
  });

  test("bad values give a 400 page naming the fields, keeping the values, creating nothing", async () => {
    const { token, csrf, apiKey } = await setup();
    const res = await post("/dashboard/feeds", token, { csrf, title: "", minScore: "11", includes: "keep-me-typed", clientMinReviews: "abc" });
    expect(res.status, show(res)).toBe(400);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    // Each message in the label's words, next to its field; no API field name anywhere in the refusal.
    expect(res.text).toContain('id="titleError">Title must be 1 to 200 characters long');
    expect(res.text).toContain('id="minScoreError">Minimum score must be a number between 0 and 10');
    expect(res.text).toContain('id="clientMinReviewsError">Client minimum reviews must be');
    const refusal = /<div class="error" role="alert">[\s\S]*?<\/div>/.exec(res.text)?.[0] ?? "";
    expect(refusal).toContain('<a href="#minScore">Minimum score must be a number between 0 and 10</a>');
    const words = refusal.replace(/ href="#\w+"/g, ""); // the links point at the controls' ids, which are the API's names
    for (const apiName of ["minScore", "clientMinReviews", "title must"]) expect(words).not.toContain(apiName);
    expect(res.text).toContain('value="11"');
    expect(res.text).toContain("keep-me-typed");
    expect(res.text).toContain('value="abc"');
    // The service's own rules too: no prompt → minScore at most 5; unknown country.
    const svc = await post("/dashboard/feeds", token, { csrf, title: "Mine", minScore: "8", excludedCountries: "Atlantis" });
    expect(svc.status, show(svc)).toBe(400);
    expect(svc.text).toContain('id="minScoreError">Minimum score must be 5 or lower when “Profile prompt” is empty');
    expect(svc.text).toContain('id="excludedCountriesError">Excluded countries (entry 1) is not a known country');
    expect(svc.text).toContain('value="Mine"');
    expect(await apiFeeds(apiKey)).toHaveLength(0);
  });

  test("a webhook secret is shown once, then only masked", async () => {
    const { token, csrf, apiKey } = await setup();
    const res = await post("/dashboard/feeds", token, { csrf, title: "Hooked", minScore: "5", webhookUrl: "https://hooks.example.com/in" });
    expect(res.status, show(res)).toBe(200);
    const secret = /<code class="secret" id="new-secret">(whsec_[^<]+)<\/code>/.exec(res.text)![1]!;
    expect(secret.length).toBeGreaterThan(20);
    const [feed] = await apiFeeds(apiKey);
    expect(feed.webhookUrl).toBe("https://hooks.example.com/in");
    const detail = await get(`/dashboard/feeds/${feed.id}`, token);
    expect(detail.text).not.toContain(secret);
    expect(detail.text).toContain(`whsec_…${secret.slice(-4)}`);
    expect((await get("/dashboard/feeds", token)).text).not.toContain(secret);
  });
});

describe("dashboard feeds: change and delete", () => {
  test("edit changes fields with PATCH semantics; empty numbers clear; errors re-show the form", async () => {
    const { token, csrf, apiKey } = await setup();
    const id = await createFeed(token, csrf, { minHourlyRate: "30", platform_web: "on", includes: "go" });
    const form = await get(`/dashboard/feeds/${id}/edit`, token);
    expect(form.status, show(form)).toBe(200);
    expect(form.text).toContain('value="Go jobs"');
    expect(form.text).toContain('value="30"');
    expect(form.text).toMatch(/name="platform_web" value="on" checked/);
    const bad = await post(`/dashboard/feeds/${id}`, token, { csrf, title: "Renamed", minScore: "12" });
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.text).toContain('id="minScoreError">Minimum score must be a number between 0 and 10');
    expect(bad.text).toContain('value="Renamed"');
    expect((await apiFeeds(apiKey))[0].title).toBe("Go jobs");
    const ok = await post(`/dashboard/feeds/${id}`, token, {
      csrf,
      title: "Renamed",
      minScore: "3",
      includes: "rust",
      minHourlyRate: "",
      platform_marketplace: "on",
    });
    expect(ok.status, show(ok)).toBe(303);
    expect(ok.headers.get("location")).toBe(`/dashboard/feeds/${id}`);
    const [feed] = await apiFeeds(apiKey);
    expect(feed).toMatchObject({ title: "Renamed", minScore: 3, includes: ["rust"], platforms: ["marketplace"] });
    expect(feed.minHourlyRate).toBeUndefined();
  });

  test("mute toggles notificationsMuted", async () => {
    const { token, csrf, apiKey } = await setup();
    const id = await createFeed(token, csrf);
    const res = await post(`/dashboard/feeds/${id}/mute`, token, { csrf });
    expect(res.status, show(res)).toBe(303);
    expect((await apiFeeds(apiKey))[0].notificationsMuted).toBe(true);
    expect((await get(`/dashboard/feeds/${id}`, token)).text).toContain("Unmute notifications");
    await post(`/dashboard/feeds/${id}/mute`, token, { csrf });
    expect((await apiFeeds(apiKey))[0].notificationsMuted).toBe(false);
  });

  test("rotate shows a new secret once; without a webhook it is a 400 page", async () => {
    const { token, csrf } = await setup();
    const created = await post("/dashboard/feeds", token, { csrf, title: "Hooked", minScore: "5", webhookUrl: "https://hooks.example.com/in" });
    const first = /<code class="secret" id="new-secret">(whsec_[^<]+)<\/code>/.exec(created.text)![1]!;
    const id = /href="\/dashboard\/feeds\/([0-9a-f-]{36})"/.exec(created.text)![1]!;
    const rotated = await post(`/dashboard/feeds/${id}/rotate-secret`, token, { csrf });
    expect(rotated.status, show(rotated)).toBe(200);
    const second = /<code class="secret" id="new-secret">(whsec_[^<]+)<\/code>/.exec(rotated.text)![1]!;
    expect(second).not.toBe(first);
    expect((await get(`/dashboard/feeds/${id}`, token)).text).not.toContain(second);
    const plain = await createFeed(token, csrf);
    const refused = await post(`/dashboard/feeds/${plain}/rotate-secret`, token, { csrf });
    expect(refused.status, show(refused)).toBe(400);
    expect(refused.text).toContain("no webhook secret yet");
  });

  test("delete asks first (feed AND its matched jobs), then deletes", async () => {
    const { token, csrf, apiKey } = await setup();
    const id = await createFeed(token, csrf);
    const confirm = await get(`/dashboard/feeds/${id}/delete`, token);
    expect(confirm.status, show(confirm)).toBe(200);
    expect(confirm.text).toContain("AND all of its matched jobs");
    expect(await apiFeeds(apiKey)).toHaveLength(1);
    const res = await post(`/dashboard/feeds/${id}/delete`, token, { csrf });
    expect(res.status, show(res)).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/feeds");
    expect(await apiFeeds(apiKey)).toHaveLength(0);
    expect((await get(`/dashboard/feeds/${id}`, token)).status).toBe(404);
  });
});

describe("dashboard feeds: matched jobs", () => {
  test("the detail page shows its matches as the inbox's cards; their triage forms return to the feed page without JavaScript", async () => {
    const { token, csrf, apiKey } = await setup();
    const id = await createFeed(token, csrf);
    const before = await get(`/dashboard/feeds/${id}`, token);
    expect(before.text).toContain("No matches yet — jobs appear here as they arrive");
    await ingestDocuments(t.deps, [makeDoc({ title: "Build a <Go> API", hourly: [40, 80], country: "Germany" })], { source: "test" });
    const detail = await get(`/dashboard/feeds/${id}`, token);
    expect(detail.status, show(detail)).toBe(200);
    // The inbox's card: title opening the side panel, badges, facts, triage buttons.
    const jobId = /<article class="card unread" id="card-([0-9a-f-]{36})"/.exec(detail.text)?.[1];
    expect(jobId, detail.text).toBeDefined();
    expect(detail.text).toContain("Build a &lt;Go&gt; API");
    expect(detail.text).toContain("<li>40–80 USD/hour</li>");
    expect(detail.text).toContain("<li>Germany</li>");
    expect(detail.text).toContain('<span class="badge unread-badge">New</span>');
    expect(detail.text).toContain(`hx-get="/dashboard/jobs/`);
    expect(detail.text).toContain('<aside id="panel"');
    expect(detail.text).toContain(`action="/dashboard/inbox/${jobId}"`);
    expect(detail.text).toContain('<input type="hidden" name="list" value="feed">');
    expect(detail.text).toContain('<span id="unread-count" data-unread="1">1 unread</span>');
    expect(detail.text).toContain("<title>(1) Go jobs · jobpilot</title>");

    const read = await post(`/dashboard/inbox/${jobId}`, token, { csrf, action: "read", back: "", list: "feed" });
    expect(read.status, show(read)).toBe(303);
    expect(read.headers.get("location")).toBe(`/dashboard/feeds/${id}#card-${jobId}`);
    const star = await post(`/dashboard/inbox/${jobId}`, token, { csrf, action: "star", back: "show=unread&offset=0", list: "feed" });
    expect(star.headers.get("location")).toBe(`/dashboard/feeds/${id}?show=unread#card-${jobId}`);
    const jobs = (await t.request("GET", `/api/v1/feeds/${id}/jobs`, { key: apiKey })).body.jobs;
    expect(jobs[0].read).toBe(true);
    expect(jobs[0].starredAt).not.toBeNull();
    const after = await get(`/dashboard/feeds/${id}`, token);
    expect(after.text).toContain("Unstar: Build a &lt;Go&gt; API");
    expect(after.text).toContain("Mark unread: Build a &lt;Go&gt; API");
    // The older "unread only" link still means unread; a bad filter is a 400 naming it.
    for (const q of ["unread=1", "show=unread"]) expect((await get(`/dashboard/feeds/${id}?${q}`, token)).text).not.toContain("Build a &lt;Go&gt; API");
    expect((await get(`/dashboard/feeds/${id}?show=starred`, token)).text).toContain("Build a &lt;Go&gt; API");
    const bad = await get(`/dashboard/feeds/${id}?show=everything`, token);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("show must be one of unread, starred, all, dismissed");
    expect((await get(`/dashboard/feeds/${id}?offset=-2`, token)).status).toBe(400);
    // Dismissed leaves the default list for the Dismissed one.
    await post(`/dashboard/inbox/${jobId}`, token, { csrf, action: "dismiss", list: "feed" });
    expect((await get(`/dashboard/feeds/${id}`, token)).text).not.toContain("Build a &lt;Go&gt; API");
    expect((await get(`/dashboard/feeds/${id}?show=dismissed`, token)).text).toContain("Dismissed:</span> Build a &lt;Go&gt; API");
  });
});

describe("dashboard feeds: htmx enhancement", () => {
  test("htmx is served by the app and allowed by the page's CSP; a card's star answers with the card for the feed page and the unread count", async () => {
    const { token, csrf, apiKey } = await setup();
    const script = await t.request("GET", "/dashboard/htmx.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect(script.text).toContain("htmx");
    const own = await t.request("GET", "/dashboard/app.js");
    expect(own.status).toBe(200);
    expect(own.text).toContain("RelativeTimeFormat");
    const id = await createFeed(token, csrf);
    await ingestDocuments(t.deps, [makeDoc({ title: "Rust <CLI> tool" })], { source: "test" });
    const detail = await get(`/dashboard/feeds/${id}?show=unread`, token);
    expect(detail.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(detail.text).toContain('<script src="/dashboard/htmx.js" defer></script>');
    const jobId = /hx-post="\/dashboard\/inbox\/([0-9a-f-]{36})" hx-target="#card-\1" hx-swap="outerHTML"/.exec(detail.text)?.[1];
    expect(jobId, detail.text).toBeDefined();

    const res = await t.request("POST", `/dashboard/inbox/${jobId}`, {
      body: new URLSearchParams({ csrf, action: "star", back: "show=unread", list: "feed" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `jp_session=${token}`, "hx-request": "true" },
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.text.trim()).toStartWith(`<article class="card unread starred" id="card-${jobId}"`);
    expect(res.text).not.toContain("<html");
    expect(res.text).toContain("Rust &lt;CLI&gt; tool");
    expect(res.text).toContain(">Unstar</button>");
    // The swapped-in card keeps posting back to the feed page's list.
    expect(res.text).toContain('<input type="hidden" name="back" value="show=unread"><input type="hidden" name="list" value="feed">');
    expect(res.text).toContain('<span id="unread-count" data-unread="1" hx-swap-oob="true">1 unread</span>');
    expect((await t.request("GET", `/api/v1/feeds/${id}/jobs`, { key: apiKey })).body.jobs[0].starredAt).not.toBeNull();
    // CSRF applies to htmx posts too.
    const refused = await t.request("POST", `/dashboard/inbox/${jobId}`, {
      body: new URLSearchParams({ action: "unstar", list: "feed" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `jp_session=${token}`, "hx-request": "true" },
    });
    expect(refused.status).toBe(403);
    expect((await t.request("GET", `/api/v1/feeds/${id}/jobs`, { key: apiKey })).body.jobs[0].starredAt).not.toBeNull();
  });
});

describe("dashboard feeds: access and safety", () => {
  test("signed out → sign-in redirect", async () => {
    t = await createTestApp();
    const res = await t.request("GET", "/dashboard/feeds");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in");
  });

  test("another account's feed is a 404 on every page and stays unchanged", async () => {
    const { token, csrf } = await setup();
    const other = await t.account({ name: "Other" });
    const created = await t.request("POST", "/api/v1/feeds", { key: other.apiKey, json: { title: "Theirs", minScore: 3 } });
    const id = created.body.feed.id as string;
    for (const path of [`/dashboard/feeds/${id}`, `/dashboard/feeds/${id}/edit`, `/dashboard/feeds/${id}/delete`]) {
      const res = await get(path, token);
      expect(res.status, `${path} ${show(res)}`).toBe(404);
      expect(res.text).not.toContain("Theirs");
    }
    for (const [path, fields] of [
      [`/dashboard/feeds/${id}`, { title: "Mine now", minScore: "1" }],
      [`/dashboard/feeds/${id}/mute`, {}],
      [`/dashboard/feeds/${id}/rotate-secret`, {}],
      [`/dashboard/feeds/${id}/delete`, {}],
      [`/dashboard/feeds/${id}/jobs/00000000-0000-4000-8000-000000000000`, { read: "true" }],
    ] as const) {
      const res = await post(path, token, { csrf, ...fields });
      expect(res.status, `${path} ${show(res)}`).toBe(404);
    }
    const after = await t.request("GET", `/api/v1/feeds/${id}`, { key: other.apiKey });
    expect(after.body.feed).toMatchObject({ title: "Theirs", minScore: 3, notificationsMuted: false });
  });

  test("a form without the CSRF token is refused with 403 and changes nothing", async () => {
    const { token, csrf, apiKey } = await setup();
    const create = await post("/dashboard/feeds", token, { title: "Sneaky", minScore: "1" });
    expect(create.status, show(create)).toBe(403);
    expect(await apiFeeds(apiKey)).toHaveLength(0);
    const id = await createFeed(token, csrf);
    for (const [path, fields] of [
      [`/dashboard/feeds/${id}`, { title: "Changed", minScore: "1" }],
      [`/dashboard/feeds/${id}/mute`, {}],
      [`/dashboard/feeds/${id}/delete`, {}],
    ] as const) {
      const res = await post(path, token, { ...fields, csrf: "wrong" });
      expect(res.status, `${path} ${show(res)}`).toBe(403);
    }
    expect((await apiFeeds(apiKey))[0]).toMatchObject({ title: "Go jobs", notificationsMuted: false });
  });

  test("a feed title is escaped on every page", async () => {
    const { token, csrf } = await setup();
    const id = await createFeed(token, csrf, { title: "<script>alert(1)</script>" });
    for (const path of ["/dashboard/feeds", `/dashboard/feeds/${id}`, `/dashboard/feeds/${id}/edit`, `/dashboard/feeds/${id}/delete`]) {
      const res = await get(path, token);
      expect(res.status).toBe(200);
      expect(foreignScripts(res.text)).toEqual([]);
      expect(res.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    }
  });
});
