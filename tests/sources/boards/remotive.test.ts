import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { JobDocument } from "../../../src/sources/document";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { createRemotiveSource, inCategory, REMOTIVE_MIN_INTERVAL_MS, toDocument } from "../../../src/sources/boards/remotive";
import { fixture, ok, pollContext, startReplay, type Replay } from "../../fixtures/boards/replay-server";

let server: Replay;
let body: string;
let jobs: unknown[];
beforeAll(async () => {
  server = startReplay();
  body = await fixture("remotive.json");
  jobs = (JSON.parse(body) as { jobs: unknown[] }).jobs;
});
afterAll(() => server.stop());

describe("remotive toDocument", () => {
  test("maps fields, strips HTML, decodes entities, keeps the attribution", () => {
    const doc = toDocument(jobs[0])!;
    expect(doc).toMatchObject({
      platform: "web",
      source: "remotive",
      id: "remotive:1950001",
      url: "https://remotive.com/remote-jobs/software-dev/staff-frontend-engineer-1950001",
      title: "Staff Frontend Engineer",
      jobTile: { job: { publishTime: "2026-03-08T14:30:00.000Z" } },
      client: { name: "Hooli", country: "US" },
    });
    expect(doc.description.startsWith("About Hooli\n\nHooli makes middle-out compression… for everyone.\n\nApply at careers@hooli.example.com")).toBe(true);
    expect(doc.description).toContain("Type: Full-time\nSalary: $150k - $180k");
    expect(doc.description.split("\n").at(-1)).toBe(`Source: Remotive — ${doc.url}`);
    expect(doc.ontologySkills?.map((s) => s.uid)).toEqual(["remotive:react", "remotive:typescript", "remotive:graphql"]);
    const n = normalizeJob(doc);
    expect(n.ok && n.job.contactEmails).toEqual(["careers@hooli.example.com"]);
  });

  test("several countries or a region → no client country; a missing title → null", () => {
    expect(toDocument(jobs[2])!.client).toEqual({ name: "Aviato" });
    expect(toDocument(jobs[1])!.client).toEqual({ name: "Pied Piper" });
    expect(toDocument(jobs[3])).toBeNull();
  });

  test("the legal notice is not a job", () => {
    const legal = (JSON.parse(body) as Record<string, unknown>)["0-legal-notice"];
    expect(toDocument(legal)).toBeNull();
  });

  test("category slugs match display names", () => {
    expect(inCategory({ category: "Software Development" }, "software-dev")).toBe(true);
    expect(inCategory({ category: "Human Resources" }, "hr")).toBe(true);
    expect(inCategory({ category: "DevOps / Sysadmin" }, "devops")).toBe(true);
    expect(inCategory({ category: "Marketing" }, "software-dev")).toBe(false);
    expect(inCategory({}, "software-dev")).toBe(true);
  });
});

describe("remotive source", () => {
  test("asks for the category, filters it on the client too, de-duplicates; documents pass normalizeJob", async () => {
    server.route(() => ok(body, { etag: 'W/"r1"' }));
    const source = createRemotiveSource({ baseUrl: server.baseUrl, category: "software-dev" });
    expect(source.name).toBe("remotive");
    const result = await source.poll(pollContext());
    expect(server.requests[0]!.path).toBe("/api/remote-jobs?category=software-dev");
    expect((result.docs as JobDocument[]).map((d) => d.id)).toEqual(["remotive:1950001", "remotive:1950003"]);
    for (const doc of result.docs) {
      const n = normalizeJob(doc);
      expect(n.ok && n.job.platform).toBe("web");
    }
    expect(result.state).toMatchObject({ etag: 'W/"r1"', lastModified: null });
  });

  test("without a category every job is kept", async () => {
    server.route(() => ok(body));
    const result = await createRemotiveSource({ baseUrl: server.baseUrl }).poll(pollContext());
    expect(server.requests[0]!.path).toBe("/api/remote-jobs");
    expect(result.docs.length).toBe(3);
  });

  test("the interval honours the ~4 requests a day the API asks for", () => {
    expect(createRemotiveSource({}).intervalMs).toBeGreaterThanOrEqual(6 * 60 * 60_000);
    expect(createRemotiveSource({ intervalMs: 60_000 }).intervalMs).toBe(REMOTIVE_MIN_INTERVAL_MS);
    expect(createRemotiveSource({ intervalMs: 12 * 60 * 60_000 }).intervalMs).toBe(12 * 60 * 60_000);
  });

  test("sends the validators back; a 304 yields no documents and keeps the state", async () => {
    server.route(() => new Response(null, { status: 304 }));
    const state = { etag: 'W/"r1"', lastModified: "Sun, 08 Mar 2026 14:30:00 GMT" };
    const result = await createRemotiveSource({ baseUrl: server.baseUrl }).poll(pollContext(state));
    expect(server.requests[0]!.headers.get("if-none-match")).toBe('W/"r1"');
    expect(server.requests[0]!.headers.get("if-modified-since")).toBe("Sun, 08 Mar 2026 14:30:00 GMT");
    expect(result.docs).toEqual([]);
    expect(result.state === undefined || result.state === state).toBe(true);
  });

  test("429 with a Retry-After date → retryAfterMs", async () => {
    server.route(() => new Response(null, { status: 429, headers: { "Retry-After": "Tue, 10 Mar 2026 13:00:00 GMT" } }));
    const result = await createRemotiveSource({ baseUrl: server.baseUrl }).poll(pollContext());
    expect(result).toMatchObject({ docs: [], retryAfterMs: 60 * 60_000 });
  });

  test("5xx, malformed JSON and a wrong shape throw", async () => {
    const source = createRemotiveSource({ baseUrl: server.baseUrl });
    server.route(() => new Response("down", { status: 503 }));
    await expect(source.poll(pollContext())).rejects.toThrow(/remotive: GET .* answered HTTP 503/);
    server.route(() => ok('{"jobs": [{"id": 1,'));
    await expect(source.poll(pollContext())).rejects.toThrow(/remotive: malformed JSON from/);
    server.route(() => ok('{"0-legal-notice": "…"}'));
    await expect(source.poll(pollContext())).rejects.toThrow(/expected \{jobs: \[\.\.\.\]\}/);
  });
});
