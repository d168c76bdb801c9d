import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { createRemoteOkSource, toDocument } from "../../../src/sources/boards/remoteok";
import { USER_AGENT } from "../../../src/sources/boards/http";
import type { JobDocument } from "../../../src/sources/document";
import { fixture, ok, pollContext, startReplay, type Replay } from "../../fixtures/boards/replay-server";

let server: Replay;
let body: string;
beforeAll(async () => {
  server = startReplay();
  body = await fixture("remoteok.json");
});
afterAll(() => server.stop());

describe("remoteok toDocument", () => {
  test("skips the legal element and items without a title", async () => {
    const items = JSON.parse(body) as unknown[];
    expect(toDocument(items[0])).toBeNull();
    expect(toDocument(items[4])).toBeNull();
    expect(toDocument("not an object")).toBeNull();
  });

  test("maps fields, strips HTML, decodes entities, keeps the attribution", async () => {
    const doc = toDocument((JSON.parse(body) as unknown[])[1])!;
    expect(doc).toMatchObject({
      platform: "web",
      source: "remoteok",
      id: "remoteok:1093355",
      url: "https://remoteok.com/remote-jobs/remote-senior-backend-engineer-acme-remote-1093355",
      title: "Senior Backend Engineer (Go & Postgres)",
      jobTile: { job: { publishTime: "2026-03-09T10:00:00.000Z" } },
      client: { name: "Acme Remote", country: "DE" },
    });
    expect(doc.description).toContain("We’re hiring a backend engineer to build our billing platform.");
    expect(doc.description).toContain("- Own services in Go & Postgres\n- Ship <3 every week");
    expect(doc.description).toContain("write to us (jobs@acme-remote.io)");
    expect(doc.description).not.toMatch(/<\/?[a-z]/i);
    expect(doc.description).not.toContain("track()");
    expect(doc.description).toContain("Salary: $90,000–$120,000 a year");
    expect(doc.description).toContain("Apply: https://acme-remote.io/careers/backend");
    expect(doc.description.split("\n").at(-1)).toBe(`Source: Remote OK — ${doc.url}`);
    expect(doc.ontologySkills).toEqual([
      { uid: "remoteok:golang", prefLabel: "golang" },
      { uid: "remoteok:postgres", prefLabel: "postgres" },
      { uid: "remoteok:backend", prefLabel: "backend" },
    ]);
  });

  test("numeric ids, epoch dates, plain-text descriptions, mailto apply links, multi-country locations", () => {
    const doc = toDocument((JSON.parse(body) as unknown[])[2])!;
    expect(doc.id).toBe("remoteok:1093356");
    expect(doc.jobTile?.job?.publishTime).toBe(new Date(1773046800 * 1000).toISOString());
    expect(doc.description.startsWith("Design for our mobile app.\n\nWork with a small team")).toBe(true);
    expect(doc.description).not.toContain("Salary");
    expect(doc.contactEmail).toBe("design@globex.example.com");
    expect(doc.client).toEqual({ name: "Globex" });
    const n = normalizeJob(doc);
    expect(n.ok && n.job.emailFound).toBe(true);
  });
});

describe("remoteok source", () => {
  test("polls /api with the User-Agent, de-duplicates, and every document passes normalizeJob", async () => {
    server.route(() => ok(body, { etag: '"v1"', lastModified: "Mon, 09 Mar 2026 10:00:00 GMT" }));
    const source = createRemoteOkSource({ baseUrl: server.baseUrl });
    expect(source.name).toBe("remoteok");
    expect(source.intervalMs).toBe(60 * 60_000);
    const result = await source.poll(pollContext());
    expect(server.requests[0]!.path).toBe("/api");
    expect(server.requests[0]!.headers.get("user-agent")).toBe(USER_AGENT);
    const ids = (result.docs as JobDocument[]).map((d) => d.id);
    expect(ids).toEqual(["remoteok:1093355", "remoteok:1093356"]);
    for (const doc of result.docs) {
      const n = normalizeJob(doc);
      expect(n.ok).toBe(true);
      if (n.ok) expect(n.job.platform).toBe("web");
    }
    expect(result.state).toMatchObject({ etag: '"v1"', lastModified: "Mon, 09 Mar 2026 10:00:00 GMT" });
  });

  test("sends the validators back; a 304 yields no documents and keeps the state", async () => {
    server.route((req) => (req.headers.get("if-none-match") === '"v1"' ? new Response(null, { status: 304 }) : ok(body)));
    const state = { etag: '"v1"', lastModified: "Mon, 09 Mar 2026 10:00:00 GMT" };
    const result = await createRemoteOkSource({ baseUrl: server.baseUrl }).poll(pollContext(state));
    expect(server.requests[0]!.headers.get("if-none-match")).toBe('"v1"');
    expect(server.requests[0]!.headers.get("if-modified-since")).toBe("Mon, 09 Mar 2026 10:00:00 GMT");
    expect(result.docs).toEqual([]);
    expect(result.state === undefined || result.state === state).toBe(true);
  });

  test("429 with Retry-After → retryAfterMs", async () => {
    server.route(() => new Response("slow down", { status: 429, headers: { "Retry-After": "120" } }));
    const result = await createRemoteOkSource({ baseUrl: server.baseUrl }).poll(pollContext());
    expect(result).toMatchObject({ docs: [], retryAfterMs: 120_000 });
  });

  test("5xx throws", async () => {
    server.route(() => new Response("oops", { status: 502 }));
    await expect(createRemoteOkSource({ baseUrl: server.baseUrl }).poll(pollContext())).rejects.toThrow(/remoteok: GET .*\/api answered HTTP 502/);
  });

  test("malformed JSON and a non-array answer throw clear errors", async () => {
    server.route(() => ok("<html>Just a moment…</html>", { type: "text/html" }));
    await expect(createRemoteOkSource({ baseUrl: server.baseUrl }).poll(pollContext())).rejects.toThrow(/remoteok: malformed JSON from .*\/api/);
    server.route(() => ok('{"error":"blocked"}'));
    await expect(createRemoteOkSource({ baseUrl: server.baseUrl }).poll(pollContext())).rejects.toThrow(/expected a JSON array/);
  });
});
