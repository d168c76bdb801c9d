import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { JobDocument } from "../../../src/sources/document";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { createHimalayasSource, toDocument } from "../../../src/sources/boards/himalayas";
import type { SourceState } from "../../../src/sources/source";
import { fixture, ok, pollContext, startReplay, type Replay } from "../../fixtures/boards/replay-server";

let server: Replay;
const pages: Record<string, string> = {};
beforeAll(async () => {
  server = startReplay();
  pages.first = await fixture("himalayas-page1.json");
  pages["cursor-2"] = await fixture("himalayas-page2.json");
  pages["cursor-3"] = await fixture("himalayas-page3.json");
});
afterAll(() => server.stop());

/** Serves the three fixture pages by cursor; the first page carries an ETag. */
function routePages() {
  server.route((req, url) => {
    if (url.pathname !== "/jobs/api") return new Response("not found", { status: 404 });
    const cursor = url.searchParams.get("cursor");
    if (cursor === null && req.headers.get("if-none-match") === '"h1"') return new Response(null, { status: 304 });
    const page = pages[cursor ?? "first"];
    return page ? ok(page, cursor === null ? { etag: '"h1"' } : {}) : new Response("bad cursor", { status: 400 });
  });
}

const ids = (docs: unknown[]) => (docs as JobDocument[]).map((d) => d.id);
const INITECH = "himalayas:https://himalayas.app/companies/initech/jobs/senior-data-engineer";
const VANDELAY = "himalayas:https://himalayas.app/companies/vandelay/jobs/customer-success-manager";
const KRAMERICA = "himalayas:https://himalayas.app/companies/kramerica/jobs/backend-developer";
const MONKS = "himalayas:https://himalayas.app/companies/monks/jobs/qa-engineer";
const BLUTH = "himalayas:https://himalayas.app/companies/bluth/jobs/technical-writer";

describe("himalayas toDocument", () => {
  test("maps fields, strips HTML, categories → skills, one country restriction → client country", () => {
    const doc = toDocument((JSON.parse(pages.first!) as { jobs: unknown[] }).jobs[0])!;
    expect(doc).toMatchObject({
      platform: "web",
      source: "himalayas",
      id: INITECH,
      url: "https://himalayas.app/companies/initech/jobs/senior-data-engineer",
      title: "Senior Data Engineer",
      jobTile: { job: { publishTime: new Date(1773050400 * 1000).toISOString() } },
      client: { name: "Initech", country: "US" },
    });
    expect(doc.description).toContain("Initech is moving its TPS reports to the cloud…\n\n- Python\n- Airflow & dbt");
    expect(doc.description).toContain("Salary: 120,000–150,000 USD (annual)");
    expect(doc.description).toContain("Apply: https://himalayas.app/companies/initech/jobs/senior-data-engineer/apply");
    expect(doc.description.split("\n").at(-1)).toBe(`Source: Himalayas — ${doc.url}`);
    expect(doc.ontologySkills?.map((s) => s.uid)).toEqual(["himalayas:data engineering", "himalayas:python", "himalayas:airflow"]);
  });

  test("excerpt when the description is empty, mailto → contactEmail, several countries → no client country", () => {
    const jobs = (JSON.parse(pages.first!) as { jobs: unknown[] }).jobs;
    const vandelay = toDocument(jobs[1])!;
    expect(vandelay.description.startsWith("Help customers succeed.")).toBe(true);
    expect(vandelay.contactEmail).toBe("jobs@vandelay.example.com");
    expect(vandelay.description).toContain("Location: Worldwide");
    expect(toDocument(jobs[2])!.client).toEqual({ name: "Kramerica" });
    expect(toDocument((JSON.parse(pages["cursor-2"]!) as { jobs: unknown[] }).jobs[1])).toBeNull();
  });
});

describe("himalayas source", () => {
  test("first poll: follows nextCursor up to maxPages, de-duplicates; documents pass normalizeJob", async () => {
    routePages();
    const source = createHimalayasSource({ baseUrl: server.baseUrl, maxPages: 2 });
    expect(source.name).toBe("himalayas");
    const result = await source.poll(pollContext());
    expect(server.requests.map((r) => r.path)).toEqual(["/jobs/api?limit=20", "/jobs/api?limit=20&cursor=cursor-2"]);
    expect(ids(result.docs)).toEqual([INITECH, VANDELAY, KRAMERICA, MONKS]);
    for (const doc of result.docs) {
      const n = normalizeJob(doc);
      expect(n.ok && n.job.platform).toBe("web");
    }
    expect(result.state).toMatchObject({ etag: '"h1"' });
    expect((result.state!.seen as string[]).slice(-4)).toEqual([MONKS, KRAMERICA, VANDELAY, INITECH]);
  });

  test("stops at the last page without a nextCursor", async () => {
    routePages();
    const result = await createHimalayasSource({ baseUrl: server.baseUrl, maxPages: 10 }).poll(pollContext());
    expect(server.requests.length).toBe(3);
    expect(ids(result.docs)).toEqual([INITECH, VANDELAY, KRAMERICA, MONKS, BLUTH]);
  });

  test("stops at the first page holding an already-seen id, returning only the new jobs", async () => {
    routePages();
    const state: SourceState = { seen: [KRAMERICA] };
    const result = await createHimalayasSource({ baseUrl: server.baseUrl, maxPages: 5 }).poll(pollContext(state));
    expect(server.requests.length).toBe(1);
    expect(ids(result.docs)).toEqual([INITECH, VANDELAY]);
    expect(result.state!.seen).toEqual([KRAMERICA, VANDELAY, INITECH]);
  });

  test("sends the first page's validators back; a 304 yields no documents and keeps the state", async () => {
    routePages();
    const state: SourceState = { etag: '"h1"', lastModified: "Mon, 09 Mar 2026 10:00:00 GMT", seen: [INITECH] };
    const result = await createHimalayasSource({ baseUrl: server.baseUrl }).poll(pollContext(state));
    expect(server.requests.length).toBe(1);
    expect(server.requests[0]!.headers.get("if-none-match")).toBe('"h1"');
    expect(server.requests[0]!.headers.get("if-modified-since")).toBe("Mon, 09 Mar 2026 10:00:00 GMT");
    expect(result.docs).toEqual([]);
    expect(result.state === undefined || result.state === state).toBe(true);
  });

  test("429 with Retry-After → retryAfterMs, keeping the pages already read", async () => {
    server.route((_req, url) => (url.searchParams.get("cursor") ? new Response(null, { status: 429, headers: { "Retry-After": "30" } }) : ok(pages.first!)));
    const result = await createHimalayasSource({ baseUrl: server.baseUrl }).poll(pollContext());
    expect(result.retryAfterMs).toBe(30_000);
    expect(ids(result.docs)).toEqual([INITECH, VANDELAY, KRAMERICA]);
  });

  test("5xx and malformed JSON throw", async () => {
    const source = createHimalayasSource({ baseUrl: server.baseUrl });
    server.route(() => new Response("oops", { status: 500 }));
    await expect(source.poll(pollContext())).rejects.toThrow(/himalayas: GET .*\/jobs\/api\?limit=20 answered HTTP 500/);
    server.route(() => ok("{not json"));
    await expect(source.poll(pollContext())).rejects.toThrow(/himalayas: malformed JSON from .*\/jobs\/api/);
    server.route(() => ok('{"jobs": null}'));
    await expect(source.poll(pollContext())).rejects.toThrow(/expected \{jobs: \[\.\.\.\]\}/);
  });
});
