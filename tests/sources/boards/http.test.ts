import { describe, expect, test } from "bun:test";
import { conditionalGet, USER_AGENT } from "../../../src/sources/boards/http";
import { NOW, pollContext, startReplay } from "../../fixtures/boards/replay-server";

describe("conditionalGet", () => {
  test("sends the User-Agent and validators, returns the new validators", async () => {
    const server = startReplay();
    try {
      server.route(() => new Response("[]", { headers: { ETag: '"e2"', "Last-Modified": "Tue, 10 Mar 2026 11:00:00 GMT" } }));
      const got = await conditionalGet({ fetch, source: "t", url: `${server.baseUrl}/x`, nowTs: NOW, validators: { etag: '"e1"', lastModified: null } });
      expect(got).toEqual({ kind: "ok", body: "[]", etag: '"e2"', lastModified: "Tue, 10 Mar 2026 11:00:00 GMT" });
      expect(server.requests[0]!.headers.get("user-agent")).toBe(USER_AGENT);
      expect(server.requests[0]!.headers.get("if-none-match")).toBe('"e1"');
      expect(server.requests[0]!.headers.has("if-modified-since")).toBe(false);
    } finally {
      server.stop();
    }
  });

  test("a 429 without Retry-After still asks for a pause; other 4xx throw", async () => {
    const server = startReplay();
    try {
      server.route(() => new Response(null, { status: 429 }));
      const got = await conditionalGet({ fetch, source: "t", url: `${server.baseUrl}/x`, nowTs: NOW });
      expect(got.kind === "rate-limited" && got.retryAfterMs).toBe(60 * 60_000);
      server.route(() => new Response("gone", { status: 410, statusText: "Gone" }));
      await expect(conditionalGet({ fetch, source: "t", url: `${server.baseUrl}/x`, nowTs: NOW })).rejects.toThrow(
        "t: GET " + server.baseUrl + "/x answered HTTP 410 Gone",
      );
    } finally {
      server.stop();
    }
  });

  test("network failures and timeouts throw with the board and URL", async () => {
    const server = startReplay();
    const url = `${server.baseUrl}/x`;
    server.route(() => new Promise<Response>(() => {})); // never answers
    await expect(conditionalGet({ fetch, source: "t", url, nowTs: NOW, timeoutMs: 100 })).rejects.toThrow(`t: GET ${url} failed: timed out`);
    server.stop();
    await expect(conditionalGet({ fetch, source: "t", url, nowTs: NOW })).rejects.toThrow(`t: GET ${url} failed:`);
  });
});

describe("board factories", () => {
  test("names, default intervals and the User-Agent override", async () => {
    const { createRemoteOkSource } = await import("../../../src/sources/boards/remoteok");
    const { createWeWorkRemotelySource } = await import("../../../src/sources/boards/weworkremotely");
    const { createRemotiveSource } = await import("../../../src/sources/boards/remotive");
    const { createHimalayasSource } = await import("../../../src/sources/boards/himalayas");
    const { createHackerNewsSource } = await import("../../../src/sources/boards/hackernews");
    const sources = [
      createRemoteOkSource(),
      createWeWorkRemotelySource({ categories: ["all"] }),
      createRemotiveSource(),
      createHimalayasSource(),
      createHackerNewsSource(),
    ];
    expect(sources.map((s) => [s.name, s.intervalMs / 60_000])).toEqual([
      ["remoteok", 60],
      ["weworkremotely", 30],
      ["remotive", 360],
      ["himalayas", 60],
      ["hackernews", 60],
    ]);
    // A floor keeps a typo from hammering a board.
    expect(createRemoteOkSource({ intervalMs: 1000 }).intervalMs).toBe(5 * 60_000);

    const server = startReplay();
    try {
      server.route(() => new Response("[]"));
      await createRemoteOkSource({ baseUrl: server.baseUrl, userAgent: "custom agent" }).poll(pollContext());
      expect(server.requests[0]!.headers.get("user-agent")).toBe("custom agent");
    } finally {
      server.stop();
    }
  });
});
