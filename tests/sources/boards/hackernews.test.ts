import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { JobDocument } from "../../../src/sources/document";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { createHackerNewsSource, newestHiringStory, parseFirstLine, toDocument } from "../../../src/sources/boards/hackernews";
import type { SourceState } from "../../../src/sources/source";
import { fixture, ok, pollContext, startReplay, type Replay } from "../../fixtures/boards/replay-server";

let server: Replay;
let stories: string;
let thread: string;
let newer: string;
beforeAll(async () => {
  server = startReplay();
  [stories, thread, newer] = (await Promise.all(["hn-stories.json", "hn-thread.json", "hn-newer.json"].map(fixture))) as [string, string, string];
});
afterAll(() => server.stop());

const STORY = "43000000";
const SINCE = 1772467800; // created_at_i of the newest top-level comment in hn-thread.json

function routeAlgolia() {
  server.route((_req, url) => {
    if (url.pathname === "/api/v1/search_by_date" && url.searchParams.get("tags") === "story,author_whoishiring") return ok(stories);
    if (url.pathname === `/api/v1/items/${STORY}`) return ok(thread);
    if (url.pathname === "/api/v1/search_by_date" && url.searchParams.get("tags") === `comment,story_${STORY}`) return ok(newer);
    return new Response("not found", { status: 404 });
  });
}

const ids = (docs: unknown[]) => (docs as JobDocument[]).map((d) => d.id);

describe("hackernews first line", () => {
  test("Company | Role | Location | REMOTE | …", () => {
    expect(parseFirstLine("Acme Corp (YC W21) | Senior Backend Engineer | San Francisco, CA | REMOTE (US) | Full-time | $180k-$220k + equity")).toEqual({
      company: "Acme Corp",
      role: "Senior Backend Engineer",
      location: "San Francisco, CA",
      remote: true,
    });
  });

  test("fields in another order, ONSITE, and a place inside the remote field", () => {
    expect(parseFirstLine("Globex | Berlin, Germany | ONSITE | Frontend Developer, Designer")).toEqual({
      company: "Globex",
      role: "Frontend Developer, Designer",
      location: "Berlin, Germany",
      remote: false,
    });
    expect(parseFirstLine("Initech | Staff Engineer | REMOTE (US or Canada) | https://initech.example.com")).toEqual({
      company: "Initech",
      role: "Staff Engineer",
      location: "US or Canada",
      remote: true,
    });
    expect(parseFirstLine("Hooli | Hybrid | Engineers")).toMatchObject({ remote: false, role: "Engineers" });
    expect(parseFirstLine("Vandelay | Importer | Onsite in NYC")).toMatchObject({ location: "NYC", remote: false });
    expect(parseFirstLine("Bluth | Banana Stand Lead | Remote, US only")).toMatchObject({ location: "US", remote: true });
    expect(parseFirstLine("We're hiring engineers at Hooli")).toEqual({ remote: null });
  });
});

describe("hackernews toDocument", () => {
  test("maps a top-level comment; e-mail obfuscations stay in the text so emailFound works", () => {
    const comment = (JSON.parse(thread) as { children: unknown[] }).children[0];
    const doc = toDocument(comment)!;
    expect(doc).toMatchObject({
      platform: "web",
      source: "hackernews",
      id: "hackernews:43000101",
      url: "https://news.ycombinator.com/item?id=43000101",
      title: "Senior Backend Engineer at Acme Corp",
      jobTile: { job: { publishTime: "2026-03-02T16:01:10.000Z" } },
      client: { name: "Acme Corp", country: "US" },
      location: "San Francisco, CA",
      remote: true,
    });
    expect(doc.description).toContain("We're building payments infrastructure in Rust & Go.");
    expect(doc.description).toContain('Email jobs [at] acme [dot] com with "HN" in the subject.');
    expect(doc.description.split("\n").at(-1)).toBe("Source: Hacker News — https://news.ycombinator.com/item?id=43000101");
    const n = normalizeJob(doc);
    expect(n.ok).toBe(true);
    if (n.ok) {
      expect(n.job.emailFound).toBe(true);
      expect(n.job.contactEmails).toEqual(["jobs@acme.com"]);
    }
  });

  test("links decoded, no pipes → the first line is the title, deleted comments → null", () => {
    const children = (JSON.parse(thread) as { children: unknown[] }).children;
    const globex = toDocument(children[1])!;
    expect(globex.description).toContain("Apply: https://globex.example.com/jobs");
    expect(globex.client).toEqual({ name: "Globex", country: "DE" });
    expect(toDocument(children[2])).toBeNull();
    const hooli = toDocument(children[3])!;
    expect(hooli.title).toBe("We're hiring engineers at Hooli to work on search and compression, contact hr(at)hooli(dot)example.com");
    expect(hooli.client).toBeUndefined();
    const n = normalizeJob(hooli);
    expect(n.ok && n.job.emailFound).toBe(true);
  });

  test("the newest 'Who is hiring?' story, not the 'Who wants to be hired?' or freelancer ones", () => {
    expect(newestHiringStory((JSON.parse(stories) as { hits: Record<string, unknown>[] }).hits)).toEqual({
      id: STORY,
      title: "Ask HN: Who is hiring? (March 2026)",
    });
  });
});

describe("hackernews source", () => {
  test("first poll of a thread: the whole tree, one job per top-level comment; documents pass normalizeJob", async () => {
    routeAlgolia();
    const source = createHackerNewsSource({ baseUrl: server.baseUrl });
    expect(source.name).toBe("hackernews");
    const result = await source.poll(pollContext());
    expect(server.requests.map((r) => r.path)).toEqual(["/api/v1/search_by_date?tags=story,author_whoishiring&hitsPerPage=10", `/api/v1/items/${STORY}`]);
    // 43000102 is a reply, 43000104 deleted.
    expect(ids(result.docs)).toEqual(["hackernews:43000101", "hackernews:43000103", "hackernews:43000105"]);
    for (const doc of result.docs) {
      const n = normalizeJob(doc);
      expect(n.ok && n.job.platform).toBe("web");
    }
    expect(result.state).toMatchObject({ storyId: STORY, since: SINCE, seen: ["43000101", "43000103", "43000105"] });
  });

  test("later polls: only comments newer than the state, only top-level, none seen before", async () => {
    routeAlgolia();
    const state: SourceState = { storyId: STORY, since: SINCE, seen: ["43000101", "43000103", "43000105"] };
    const result = await createHackerNewsSource({ baseUrl: server.baseUrl }).poll(pollContext(state));
    const search = new URL(server.requests[1]!.path, "http://x");
    expect(search.searchParams.get("tags")).toBe(`comment,story_${STORY}`);
    expect(search.searchParams.get("numericFilters")).toBe(`created_at_i>=${SINCE - 15 * 60}`);
    // 43000301 is a reply; 43000105 was seen.
    expect(ids(result.docs)).toEqual(["hackernews:43000201"]);
    const initech = result.docs[0] as JobDocument;
    expect(initech).toMatchObject({ title: "Staff Engineer at Initech", remote: true });
    const n = normalizeJob(initech);
    expect(n.ok && n.job.emailFound).toBe(true);
    expect(result.state).toMatchObject({ storyId: STORY, since: 1772528400, seen: ["43000101", "43000103", "43000105", "43000201"] });
  });

  test("a new month's thread starts over from its whole tree", async () => {
    routeAlgolia();
    const state: SourceState = { storyId: "42500000", since: 1770000000, seen: ["42500001"] };
    const result = await createHackerNewsSource({ baseUrl: server.baseUrl }).poll(pollContext(state));
    expect(server.requests[1]!.path).toBe(`/api/v1/items/${STORY}`);
    expect(result.state).toMatchObject({ storyId: STORY, seen: ["43000101", "43000103", "43000105"] });
  });

  test("the same query as last time is sent with its validators; a 304 yields no documents and keeps the state", async () => {
    let query = "";
    server.route((req, url) => {
      if (url.searchParams.get("tags") === "story,author_whoishiring") return ok(stories);
      query = url.pathname + url.search;
      return req.headers.get("if-none-match") === '"c1"' ? new Response(null, { status: 304 }) : ok(newer, { etag: '"c1"' });
    });
    const source = createHackerNewsSource({ baseUrl: server.baseUrl });
    const first = await source.poll(pollContext({ storyId: STORY, since: SINCE + 100_000, seen: [] }));
    expect(first.state).toMatchObject({ etag: '"c1"', validatorsUrl: server.baseUrl + query });
    const state = first.state!;
    const second = await source.poll(pollContext(state));
    expect(server.requests.at(-1)!.headers.get("if-none-match")).toBe('"c1"');
    expect(second.docs).toEqual([]);
    expect(second.state === undefined || second.state === state).toBe(true);
  });

  test("429 with Retry-After → retryAfterMs", async () => {
    server.route(() => new Response(null, { status: 429, headers: { "Retry-After": "90" } }));
    const result = await createHackerNewsSource({ baseUrl: server.baseUrl }).poll(pollContext());
    expect(result).toMatchObject({ docs: [], retryAfterMs: 90_000 });
  });

  test("5xx and malformed JSON throw", async () => {
    const source = createHackerNewsSource({ baseUrl: server.baseUrl });
    server.route(() => new Response("oops", { status: 503 }));
    await expect(source.poll(pollContext())).rejects.toThrow(/hackernews: GET .*search_by_date.* answered HTTP 503/);
    server.route((_req, url) => (url.pathname.startsWith("/api/v1/items/") ? ok('{"id": 1, "children": [') : ok(stories)));
    await expect(source.poll(pollContext())).rejects.toThrow(/hackernews: malformed JSON from .*\/api\/v1\/items\/43000000/);
    server.route(() => ok('{"message": "invalid"}'));
    await expect(source.poll(pollContext())).rejects.toThrow(/expected \{hits: \[\.\.\.\]\}/);
  });
});
