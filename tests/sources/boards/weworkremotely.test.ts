import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { JobDocument } from "../../../src/sources/document";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { createWeWorkRemotelySource, feedPath, parseRss, toDocument } from "../../../src/sources/boards/weworkremotely";
import { fixture, ok, pollContext, startReplay, type Replay } from "../../fixtures/boards/replay-server";

const RSS = "application/rss+xml; charset=utf-8";
let server: Replay;
let programming: string;
let design: string;
let truncated: string;
beforeAll(async () => {
  server = startReplay();
  [programming, design, truncated] = (await Promise.all(["wwr-programming.rss", "wwr-design.rss", "wwr-truncated.rss"].map(fixture))) as [
    string,
    string,
    string,
  ];
});
afterAll(() => server.stop());

describe("weworkremotely RSS", () => {
  test("parses items, decoding entities and keeping CDATA verbatim", () => {
    const items = parseRss(programming);
    expect(items.length).toBe(3);
    expect(items[0]!.title).toBe("Smith & Wesson Labs: Senior Rails Developer");
    expect(items[0]!.description).toContain("<p><strong>Headquarters:</strong> Boston, MA</p>");
    expect(items[1]!.title).toBe("Umbrella Corp: Full-Stack Engineer (TypeScript) <remote>");
    expect(items[1]!.categories).toEqual(["Full-Stack Programming", "TypeScript"]);
  });

  test("maps an item: company from the title, HTML stripped, entities decoded once per layer", () => {
    const doc = toDocument(parseRss(programming)[0]!)!;
    expect(doc).toMatchObject({
      platform: "web",
      source: "weworkremotely",
      id: "weworkremotely:smith-wesson-labs-senior-rails-developer",
      url: "https://weworkremotely.com/remote-jobs/smith-wesson-labs-senior-rails-developer",
      title: "Senior Rails Developer",
      jobTile: { job: { publishTime: "2026-03-09T15:04:05.000Z" } },
      client: { name: "Smith & Wesson Labs", country: "US" },
    });
    expect(doc.description).toContain("Headquarters: Boston, MA\n\nWe build tools for café owners & bakers.\n\n- Rails 7\n- Hotwire");
    expect(doc.description).toContain("Literal markup in the text: <div>");
    expect(doc.description).toContain("Type: Full-Time");
    expect(doc.description.split("\n").at(-1)).toBe(`Source: We Work Remotely — ${doc.url}`);
    expect(doc.ontologySkills).toEqual([
      { uid: "weworkremotely:ruby", prefLabel: "Ruby" },
      { uid: "weworkremotely:rails", prefLabel: "Rails" },
      { uid: "weworkremotely:postgresql", prefLabel: "PostgreSQL" },
    ]);
  });

  test("CDATA HTML, categories as tags when there are no skills, worldwide → no country, items without a title skipped", () => {
    const items = parseRss(programming);
    const doc = toDocument(items[1]!)!;
    expect(doc.title).toBe("Full-Stack Engineer (TypeScript) <remote>");
    expect(doc.client).toEqual({ name: "Umbrella Corp" });
    expect(doc.description.startsWith("Build dashboards with React & Node.\n\nContact: hiring [at] umbrella [dot] example")).toBe(true);
    expect(doc.ontologySkills?.map((s) => s.prefLabel)).toEqual(["Full-Stack Programming", "TypeScript"]);
    expect(toDocument(items[2]!)).toBeNull();
  });

  test("feed paths", () => {
    expect(feedPath("all")).toBe("/remote-jobs.rss");
    expect(feedPath("remote-programming-jobs")).toBe("/categories/remote-programming-jobs.rss");
  });

  test("malformed XML throws", () => {
    expect(() => parseRss(truncated)).toThrow(/not closed/);
    expect(() => parseRss("<html><body>blocked</body></html>")).toThrow(/no <rss> element/);
  });
});

describe("weworkremotely source", () => {
  const routeFeeds = (headers: (path: string) => { etag?: string; lastModified?: string } = () => ({})) =>
    server.route((_req, url) => {
      if (url.pathname === "/categories/remote-programming-jobs.rss") return ok(programming, { type: RSS, ...headers(url.pathname) });
      if (url.pathname === "/categories/remote-design-jobs.rss") return ok(design, { type: RSS, ...headers(url.pathname) });
      return new Response("gone", { status: 410 });
    });

  test("one feed per category, de-duplicated across feeds; documents pass normalizeJob", async () => {
    routeFeeds((p) => ({ etag: `"${p.includes("design") ? "d1" : "p1"}"` }));
    const source = createWeWorkRemotelySource({ baseUrl: server.baseUrl, categories: ["remote-programming-jobs", "remote-design-jobs"] });
    expect(source.name).toBe("weworkremotely");
    const result = await source.poll(pollContext());
    expect(server.requests.map((r) => r.path)).toEqual(["/categories/remote-programming-jobs.rss", "/categories/remote-design-jobs.rss"]);
    expect((result.docs as JobDocument[]).map((d) => d.id)).toEqual([
      "weworkremotely:smith-wesson-labs-senior-rails-developer",
      "weworkremotely:umbrella-corp-full-stack-engineer",
      "weworkremotely:cyberdyne-senior-product-designer",
    ]);
    for (const doc of result.docs) expect(normalizeJob(doc).ok).toBe(true);
    const umbrella = normalizeJob(result.docs[1]);
    expect(umbrella.ok && umbrella.job.platform).toBe("web");
    expect(result.state).toMatchObject({
      feeds: { "remote-programming-jobs": { etag: '"p1"' }, "remote-design-jobs": { etag: '"d1"' } },
    });
  });

  test("each feed gets its own validators back; 304s yield no documents and keep the state", async () => {
    server.route(() => new Response(null, { status: 304 }));
    const state = {
      feeds: {
        "remote-programming-jobs": { etag: '"p1"', lastModified: "Mon, 09 Mar 2026 15:04:05 GMT" },
        "remote-design-jobs": { etag: '"d1"', lastModified: null },
      },
    };
    const source = createWeWorkRemotelySource({ baseUrl: server.baseUrl, categories: ["remote-programming-jobs", "remote-design-jobs"] });
    const result = await source.poll(pollContext(state));
    expect(server.requests.map((r) => r.headers.get("if-none-match"))).toEqual(['"p1"', '"d1"']);
    expect(server.requests[0]!.headers.get("if-modified-since")).toBe("Mon, 09 Mar 2026 15:04:05 GMT");
    expect(result.docs).toEqual([]);
    expect(result.state).toEqual(state);
  });

  test("429 with Retry-After → retryAfterMs", async () => {
    server.route(() => new Response(null, { status: 429, headers: { "Retry-After": "300" } }));
    const result = await createWeWorkRemotelySource({ baseUrl: server.baseUrl, categories: ["all"] }).poll(pollContext());
    expect(server.requests[0]!.path).toBe("/remote-jobs.rss");
    expect(result.docs).toEqual([]);
    expect(result.retryAfterMs).toBe(300_000);
  });

  test("5xx and malformed XML throw", async () => {
    const source = createWeWorkRemotelySource({ baseUrl: server.baseUrl, categories: ["all"] });
    server.route(() => new Response("bad gateway", { status: 502 }));
    await expect(source.poll(pollContext())).rejects.toThrow(/weworkremotely: GET .*\/remote-jobs\.rss answered HTTP 502/);
    server.route(() => ok(truncated, { type: RSS }));
    await expect(source.poll(pollContext())).rejects.toThrow(/weworkremotely: malformed RSS from .*\/remote-jobs\.rss: .*not closed/);
  });

  test("needs a category", () => {
    expect(() => createWeWorkRemotelySource({ categories: [] })).toThrow(/at least one category/);
  });
});
