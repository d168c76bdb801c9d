import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { authenticate } from "../../../src/modules/accounts/service";
import { bookmarkletHref, CAPTURE_SCRIPT } from "../../../src/modules/capture/bookmarklet";
import { captureRoutes } from "../../../src/modules/capture/index";
import { captureIdentity, countryOfLocation, htmlToText } from "../../../src/modules/capture/service";
import * as feeds from "../../../src/modules/feeds/service";
import * as jobsRepo from "../../../src/modules/jobs/repo";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { createTestApp, show, type TestApp } from "../../helpers/app";

/** The capture script's source, served as it is at GET /capture.js. */
const CAPTURE_SOURCE_FILE = new URL("../../../src/modules/capture/capture.browser.js", import.meta.url);

let t: TestApp;
afterEach(() => t?.close());

async function setup() {
  t = await createTestApp();
  return t.account({ name: "Capturer" });
}

const capture = (key: string | null, json: unknown) => t.request("POST", "/api/v1/capture", { key, json });

const PAGE = {
  url: "https://www.linkedin.com/jobs/view/3912345678/?trk=public_jobs_topcard&refId=abc",
  title: "Senior Rust Engineer",
  company: "Acme GmbH",
  location: "Berlin, Germany (Hybrid)",
  descriptionHtml:
    "<div><p>We build <strong>fast</strong> things &amp; more.</p><script>alert('x')</script><style>p{color:red}</style>" +
    "<ul><li>Rust &gt; 3 years</li><li>Tokio&nbsp;&#38;&#x20AC;</li></ul></div>",
};

describe("POST /api/v1/capture", () => {
  test("archives a professional_network job that normalizeJob accepts and that enters a matching feed", async () => {
    const { apiKey } = await setup();
    const auth = (await authenticate(t.deps, apiKey))!;
    await feeds.createFeed(t.deps, auth, { title: "rust", minScore: 0, includes: ["rust engineer"] });
    const other = (await authenticate(t.deps, (await t.account({ name: "Other" })).apiKey))!;
    await feeds.createFeed(t.deps, other, { title: "rust too", minScore: 0, includes: ["rust"] });

    const res = await capture(apiKey, { ...PAGE, contactEmail: "jobs@acme.example" });
    expect(res.status, show(res)).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    // Only the caller's feeds are counted, though the other account's feed matched too.
    expect(res.body).toEqual({ captured: true, ciphertext: expect.stringMatching(/^~p[0-9a-f]{20}$/), inserted: true, matched: 1 });

    const row = (await jobsRepo.findJob(t.deps.db, res.body.ciphertext))!;
    expect(row.source).toBe("capture");
    const doc = row.document as Record<string, any>;
    expect(doc).toMatchObject({
      platform: "professional_network",
      source: "capture",
      id: "3912345678",
      title: "Senior Rust Engineer",
      url: "https://www.linkedin.com/jobs/view/3912345678/",
      client: { name: "Acme GmbH", country: "DE" },
      contactEmail: "jobs@acme.example",
      jobTile: { job: { publishTime: new Date(t.clock.now()).toISOString() } },
    });
    const normalized = normalizeJob(doc);
    expect(normalized.ok).toBe(true);
    if (!normalized.ok) return;
    expect(normalized.job).toMatchObject({ ciphertext: res.body.ciphertext, platform: "professional_network", clientCountry: "DE", emailFound: true });

    const listed = await feeds.listFeedJobs(t.deps, auth, (await feeds.listFeeds(t.deps, auth))[0]!.id, {});
    expect(listed.total).toBe(1);
  });

  test("the description is the HTML's text: scripts and styles removed, entities decoded, paragraphs kept", async () => {
    const { apiKey } = await setup();
    const res = await capture(apiKey, PAGE);
    expect(res.status, show(res)).toBe(201);
    const doc = (await jobsRepo.findJob(t.deps.db, res.body.ciphertext))!.document as Record<string, any>;
    expect(doc.description).toBe("We build fast things & more.\n\n- Rust > 3 years\n- Tokio &€");
    expect(doc.description).not.toContain("alert");
    expect(doc.description).not.toContain("color");
  });

  test("the same job captured again, from a search page: 200 inserted false", async () => {
    const { apiKey } = await setup();
    const first = await capture(apiKey, { ...PAGE, url: "https://www.linkedin.com/jobs/view/123" });
    expect(first.status, show(first)).toBe(201);
    const again = await capture(apiKey, { ...PAGE, url: "https://de.linkedin.com/jobs/search/?keywords=rust&currentJobId=123&trk=x" });
    expect(again.status, show(again)).toBe(200);
    expect(again.body).toEqual({ captured: true, ciphertext: first.body.ciphertext, inserted: false, matched: 0 });
  });

  test("web pages and pages without a job id are keyed by the URL without tracking parameters", async () => {
    const { apiKey } = await setup();
    const a = await capture(apiKey, {
      url: "https://boards.example.com/jobs/42?utm_source=x&b=2&a=1#apply",
      title: "Go developer",
      description: "Go.",
      platform: "web",
    });
    expect(a.status, show(a)).toBe(201);
    const b = await capture(apiKey, { url: "https://BOARDS.example.com/jobs/42/?a=1&b=2&gclid=z", title: "Go developer", description: "Go.", platform: "web" });
    expect(b.body).toMatchObject({ ciphertext: a.body.ciphertext, inserted: false });
    const doc = (await jobsRepo.findJob(t.deps.db, a.body.ciphertext))!.document as Record<string, any>;
    expect(doc).toMatchObject({ platform: "web", url: "https://boards.example.com/jobs/42?a=1&b=2", id: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(a.body.ciphertext).toMatch(/^~w/);
  });

  test("400 naming the field: missing url, ftp url, missing or blank title, oversized HTML, bad e-mail", async () => {
    const { apiKey } = await setup();
    const cases: [unknown, string][] = [
      [{ title: "x", description: "y" }, "url"],
      [{ url: "ftp://example.com/job", title: "x" }, "url"],
      [{ url: "not a url", title: "x" }, "url"],
      [{ url: "https://example.com/job" }, "title"],
      [{ url: "https://example.com/job", title: "   " }, "title"],
      [{ url: "https://example.com/job", title: "x".repeat(501) }, "title"],
      [{ url: "https://example.com/job", title: "x", descriptionHtml: "<p>" + "a".repeat(200_000) + "</p>" }, "descriptionHtml"],
      [{ url: "https://example.com/job", title: "x", contactEmail: "nobody" }, "contactEmail"],
      [{ url: "https://example.com/job", title: "x", platform: "marketplace" }, "platform"],
    ];
    for (const [json, field] of cases) {
      const res = await capture(apiKey, json);
      expect(res.status, `${JSON.stringify(json).slice(0, 80)} → ${show(res).slice(0, 200)}`).toBe(400);
      expect(res.body.error).toContain(field);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  test("401 without a key", async () => {
    await setup();
    const res = await capture(null, PAGE);
    expect(res.status, show(res)).toBe(401);
  });

  test("a page with no description text falls back to the title", async () => {
    const { apiKey } = await setup();
    const res = await capture(apiKey, { url: "https://www.linkedin.com/jobs/view/77", title: "Data engineer", descriptionHtml: "<script>x()</script>" });
    expect(res.status, show(res)).toBe(201);
    expect(((await jobsRepo.findJob(t.deps.db, res.body.ciphertext))!.document as Record<string, any>).description).toBe("Data engineer");
  });
});

describe("CORS preflight", () => {
  test("OPTIONS /api/v1/capture answers with the CORS headers, no key needed", async () => {
    t = await createTestApp();
    // The bare routes: in the full app the auth plugin must let this preflight through (see the integration note).
    const app = new Elysia().use(captureRoutes(t.deps));
    const res = await app.handle(
      new Request("http://localhost/api/v1/capture", {
        method: "OPTIONS",
        headers: { origin: "https://www.linkedin.com", "access-control-request-method": "POST", "access-control-request-private-network": "true" },
      }),
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toBe("POST");
    expect(res.headers.get("access-control-allow-headers")).toBe("content-type, x-api-key");
    expect(res.headers.get("access-control-allow-private-network")).toBe("true");
  });

  // Its route is `public` in its policy, so the auth plugin lets it through.
  test("full app: the preflight passes the auth plugin", async () => {
    await setup();
    const res = await t.request("OPTIONS", "/api/v1/capture", { headers: { origin: "https://www.linkedin.com", "access-control-request-method": "POST" } });
    expect(res.status, show(res)).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("bookmarklet", () => {
  test("GET /capture.js serves JavaScript that posts to /api/v1/capture", async () => {
    await setup();
    const res = await t.request("GET", "/capture.js");
    expect(res.status, show(res)).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/javascript");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    // The file itself, byte for byte: nothing is built or substituted between the reviewed source and the browser.
    expect(res.text).toBe(await Bun.file(CAPTURE_SOURCE_FILE).text());
    expect(res.text).toBe(CAPTURE_SCRIPT);
    expect(res.text).toContain('"/api/v1/capture"');
    expect(res.text).toContain('"x-api-key"');
    expect(() => new Function(res.text)).not.toThrow(); // parses as a script
  });

  test("the script reads a job page, asks once for URL and key, and posts the page to jobpilot", async () => {
    const { apiKey } = await setup();
    const page = fakePage({
      ".job-details-jobs-unified-top-card__job-title h1": { text: "Platform Engineer" },
      ".job-details-jobs-unified-top-card__company-name a": { text: "Initech" },
      ".job-details-jobs-unified-top-card__bullet": { text: "Toronto, ON, Canada" },
      "#job-details": { text: "Kubernetes all day", html: "<p>Kubernetes all day</p>", mail: "mailto:hr@initech.example?subject=Hi" },
    });
    const answers = ["https://jobs.example.com/", apiKey];
    const posted: { url: string; body: any }[] = [];
    const run = () =>
      new Promise<string>((resolve) => {
        page.onMessage = resolve;
        const fetch = async (url: string, init: RequestInit) => {
          posted.push({ url, body: JSON.parse(String(init.body)) });
          return t.app.handle(new Request("http://localhost/api/v1/capture", init));
        };
        new Function("window", "document", "location", "localStorage", "prompt", "fetch", "setTimeout", CAPTURE_SCRIPT)(
          {},
          page.document,
          page.location,
          page.storage,
          () => answers.shift() ?? null,
          fetch,
          () => 0,
        );
      });

    expect(await run()).toBe("jobpilot: saved");
    expect(posted[0]!.url).toBe("https://jobs.example.com/api/v1/capture");
    expect(posted[0]!.body).toEqual({
      url: "https://www.linkedin.com/jobs/view/555/",
      title: "Platform Engineer",
      company: "Initech",
      location: "Toronto, ON, Canada",
      platform: "professional_network",
      descriptionHtml: "<p>Kubernetes all day</p>",
      contactEmail: "hr@initech.example",
    });
    expect(JSON.parse(page.storage.getItem("jobpilot.capture.v1")!)).toEqual({ base: "https://jobs.example.com", key: apiKey });
    // Second click: no questions asked, the job is already there.
    expect(await run()).toBe("jobpilot: already saved");
    expect(answers).toEqual([]);
  });

  test("bookmarkletHref loads <base>/capture.js", () => {
    const href = bookmarkletHref("https://jobs.example.com/pilot/");
    expect(href).toStartWith("javascript:");
    const code = decodeURIComponent(href.slice("javascript:".length));
    expect(code).toContain('"https://jobs.example.com/pilot/capture.js"');
    expect(() => new Function(code)).not.toThrow();
    expect(() => bookmarkletHref("ftp://x")).toThrow();
  });

  test("the bookmarklet is one short line that adds a fresh <script> for capture.js and says so when it cannot load", () => {
    const code = decodeURIComponent(bookmarkletHref("https://jobs.example.com/pilot/").slice("javascript:".length));
    // The file's comments and indentation stay out of the bookmark, and the placeholder is gone.
    expect(code).not.toContain("\n");
    expect(code).not.toContain("  ");
    expect(code).not.toContain("bookmarks bar"); // the file's header comment
    expect(code).not.toContain("{{");
    const run = runBookmarklet(code, 1_700_000_000_000);
    expect(run.result).toBeUndefined(); // a javascript: URL that evaluates to a value would replace the page with it
    expect(run.appended).toHaveLength(1);
    expect(run.appended[0]!.src).toBe("https://jobs.example.com/pilot/capture.js?t=1700000000000");
    expect(run.alerts).toEqual([]);
    run.appended[0]!.onerror!();
    expect(run.alerts).toEqual([
      "jobpilot: could not load https://jobs.example.com/pilot/capture.js (is jobpilot running? does this page block outside scripts?)",
    ]);
  });

  test("an address with quotes or $-patterns is copied into the bookmarklet as it is, as data", () => {
    // new URL keeps $, & and ' in a path; a replacement string would read $& and $' as patterns.
    const href = bookmarkletHref("https://jobs.example.com/a$&b$'c/");
    const run = runBookmarklet(decodeURIComponent(href.slice("javascript:".length)), 5);
    expect(run.appended[0]!.src).toBe("https://jobs.example.com/a$&b$'c/capture.js?t=5");
    const quoted = runBookmarklet(decodeURIComponent(bookmarkletHref('https://jobs.example.com/x"+alert(1)+"/').slice("javascript:".length)), 5);
    expect(quoted.appended[0]!.src).toBe("https://jobs.example.com/x%22+alert(1)+%22/capture.js?t=5");
    expect(quoted.alerts).toEqual([]);
  });
});

/** Runs the bookmarklet's code against just enough of a page: the scripts it appends and the alerts it shows. */
function runBookmarklet(code: string, now: number) {
  const appended: { src?: string; onerror?: () => void }[] = [];
  const alerts: string[] = [];
  const document = {
    head: { appendChild: (el: { src?: string }) => void appended.push(el) },
    createElement: (tag: string) => {
      expect(tag).toBe("script");
      return {};
    },
  };
  const result = new Function("document", "alert", "Date", `return ${code.replace(/;$/, "")}`)(document, (m: string) => alerts.push(m), { now: () => now });
  return { result, appended, alerts };
}

/** Just enough of a browser page for the capture script: elements found by exact selector, localStorage, messages. */
function fakePage(elements: Record<string, { text: string; html?: string; mail?: string }>) {
  const stored = new Map<string, string>();
  const el = (spec: { text: string; html?: string; mail?: string }) => ({
    innerText: spec.text,
    textContent: spec.text,
    innerHTML: spec.html ?? spec.text,
    querySelector: (sel: string) => (sel.startsWith("a[href^") && spec.mail ? { getAttribute: () => spec.mail } : null),
  });
  const page = {
    onMessage: (_: string) => {},
    location: { href: "https://www.linkedin.com/jobs/view/555/", hostname: "www.linkedin.com" },
    storage: {
      getItem: (k: string) => stored.get(k) ?? null,
      setItem: (k: string, v: string) => void stored.set(k, v),
      removeItem: (k: string) => void stored.delete(k),
    },
    document: {
      title: "Platform Engineer | Initech | LinkedIn",
      currentScript: { src: "https://jobs.example.com/capture.js?t=1" },
      querySelector: (sel: string) => (elements[sel] ? el(elements[sel]!) : null),
      querySelectorAll: () => [],
      createElement: () => ({ style: {}, textContent: "", remove() {} }),
      body: { innerText: "whole page", appendChild: (box: { textContent: string }) => page.onMessage(box.textContent) },
    },
  };
  return page;
}

describe("helpers", () => {
  test("job ids from the professional network's URLs, else a URL hash", () => {
    const id = (u: string, p: "professional_network" | "web" = "professional_network") => captureIdentity(p, new URL(u)).id;
    expect(id("https://www.linkedin.com/jobs/view/123")).toBe("123");
    expect(id("https://www.linkedin.com/jobs/view/senior-dev-at-acme-4567/")).toBe("4567");
    expect(id("https://www.linkedin.com/jobs/collections/recommended/?currentJobId=123")).toBe("123");
    expect(id("https://www.linkedin.com/feed/update/urn:li:activity:1/")).toMatch(/^[0-9a-f]{24}$/);
    expect(id("https://example.com/jobs/view/123", "web")).toMatch(/^[0-9a-f]{24}$/);
  });

  test("countries from locations", () => {
    expect(countryOfLocation("Berlin, Germany (Remote)")).toBe("DE");
    expect(countryOfLocation("Austin, TX")).toBeUndefined();
    expect(countryOfLocation("San Francisco, CA, United States")).toBe("US");
    expect(countryOfLocation("London, UK")).toBe("GB");
    expect(countryOfLocation("Atlanta, Georgia")).toBeUndefined();
    expect(countryOfLocation("Remote")).toBeUndefined();
  });

  test("htmlToText is linear on hostile markup and keeps text that only looks like tags", () => {
    expect(htmlToText("a < b and c <3 d")).toBe("a < b and c <3 d");
    expect(htmlToText('<a title="x>y">link</a><br>next<!-- gone -->')).toBe("link\nnext");
    expect(htmlToText("<p>one</p><div><p>two</p></div><ul><li>a</li><li>b</li></ul>")).toBe("one\n\ntwo\n\n- a\n- b");
    expect(htmlToText("<p class=it's>one</p>two's &#13;&#10;three")).toBe("one\n\ntwo's\nthree");
    expect(htmlToText("<pre>  keep\n  this</pre>")).toBe("keep\nthis");
    const started = performance.now();
    htmlToText("<script".repeat(30_000));
    htmlToText("<a ".repeat(60_000));
    htmlToText("<p x='".repeat(30_000));
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
