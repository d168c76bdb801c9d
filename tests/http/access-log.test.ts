import { afterEach, describe, expect, test } from "bun:test";
import { memoryLogger, resolveLogFormat } from "../../src/lib/log";
import { redactPath } from "../../src/lib/redact";
import { accessLine } from "../../src/http/request-context";
import { createSignInLink } from "../../src/modules/dashboard/service";
import { createTestApp, type TestApp } from "../helpers/app";
import { form, openSignInForm } from "../helpers/dashboard";

let t: TestApp;
afterEach(() => t?.close());

const accessLines = () => t.log.records().filter((r) => r.msg === "request");

describe("access log", () => {
  test("a one-time sign-in link's token never reaches the log, opened or used", async () => {
    t = await createTestApp();
    const { accountId } = await t.account();
    const { token } = await createSignInLink(t.deps, accountId);
    const { headers, csrf } = await openSignInForm(t, `/dashboard/link/${token}`);
    const used = await t.request("POST", `/dashboard/link/${token}`, { body: form({ csrf }), headers });
    expect(used.status).toBe(303);
    // The access line is written after the response; give the hook its turn.
    await Bun.sleep(5);
    const lines = accessLines();
    expect(lines.map((r) => [r.method, r.path])).toEqual([
      ["GET", "/dashboard/link/[redacted]"],
      ["POST", "/dashboard/link/[redacted]"],
    ]);
    expect(t.log.lines.join("")).not.toContain(token);
    expect(t.log.lines.join("")).not.toContain(csrf);
  });

  test("an API key pasted into a path is redacted; ordinary ids and ciphertexts are kept", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    await t.request("GET", `/api/v1/feeds/${apiKey}`, { key: apiKey });
    await t.request("GET", "/api/v1/jobs/~021900000000000000001", { key: apiKey });
    await t.request("GET", "/api/v1/feeds/0193a7b2-6c1d-7e5f-8a9b-0c1d2e3f4a5b", { key: apiKey });
    await Bun.sleep(5);
    expect(accessLines().map((r) => r.path)).toEqual([
      "/api/v1/feeds/[redacted]",
      "/api/v1/jobs/~021900000000000000001",
      "/api/v1/feeds/0193a7b2-6c1d-7e5f-8a9b-0c1d2e3f4a5b",
    ]);
    expect(t.log.lines.join("")).not.toContain(apiKey);
  });
});

describe("what an interactive start shows", () => {
  test("a 304 (the inbox asking whether anything changed) is logged at debug, every other answer at info", () => {
    const state = { id: "r1", startedAt: performance.now(), path: "/dashboard/inbox/new" };
    const info = memoryLogger("info");
    accessLine({ log: info }, "GET", state, 304);
    accessLine({ log: info }, "GET", state, 200);
    expect(info.records().map((r) => [r.level, r.status])).toEqual([["info", 200]]);
    const debug = memoryLogger("debug");
    accessLine({ log: debug }, "GET", state, 304);
    expect(debug.records().map((r) => [r.level, r.status])).toEqual([["debug", 304]]);
  });

  test("LOG_FORMAT=auto (the default) writes readable lines to a terminal and JSON anywhere else", () => {
    expect(resolveLogFormat("auto", true)).toBe("pretty");
    expect(resolveLogFormat("auto", false)).toBe("json");
    expect(resolveLogFormat("json", true)).toBe("json");
    expect(resolveLogFormat("pretty", false)).toBe("pretty");
  });
});

describe("redactPath", () => {
  test.each([
    ["/dashboard/link/abc", "/dashboard/link/[redacted]"],
    ["/dashboard/link/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde", "/dashboard/link/[redacted]"],
    ["/pair/ABC-123", "/pair/[redacted]"],
    ["/telegram/pairing/482913", "/telegram/pairing/[redacted]"],
    ["/x/jp_live_3xYkP0qR7sT1uV2wX3yZ4aB5cD6eF7gH8iJ9kL0mN1oP2qR3sT4uV", "/x/[redacted]"],
    ["/x/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "/x/[redacted]"],
    ["/admin/oauth/callback?code=s3cr3t&state=xyz&x=1", "/admin/oauth/callback?code=[redacted]&state=[redacted]&x=1"],
    ["/a?token=abc&access_token=def&api_key=ghi&offset=20", "/a?token=[redacted]&access_token=[redacted]&api_key=[redacted]&offset=20"],
  ])("%s → %s", (path, expected) => {
    expect(redactPath(path)).toBe(expected);
  });

  test.each([
    ["/"],
    ["/healthz"],
    ["/api/v1/jobs/~021900000000000000001"],
    ["/api/v1/feeds/0193a7b2-6c1d-7e5f-8a9b-0c1d2e3f4a5b/jobs"],
    ["/dashboard/feeds/0193a7b2-6c1d-7e5f-8a9b-0c1d2e3f4a5b/deliveries"],
    ["/api/auto-apply-v2/applied-jobs?status=applied&offset=20"],
    ["/dashboard/keys"],
    ["/docs/json"],
  ])("%s is kept as it is", (path) => {
    expect(redactPath(path)).toBe(path);
  });
});
