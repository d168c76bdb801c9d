import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/index";
import { closeDatabase, openDatabase } from "../../src/db/client";
import { recordPoll } from "../../src/modules/intake/repo";
import { findOAuthToken } from "../../src/modules/intake/token-repo";
import { MARKETPLACE_PROVIDER, oauthTokenVault } from "../../src/modules/intake/tokens";
import { loadTokens } from "../../src/sources/marketplace-api/token-store";
import { startFakeMarketplaceApi, tokenReply, type FakeMarketplaceApi } from "../fixtures/marketplace-api/fake-api";

const SECRET_KEY = "cli-test-secret-key-0123456789";

function cli(env: Record<string, string> = {}) {
  const dbPath = join(mkdtempSync(join(tmpdir(), "jp-cli-source-")), "cli.db");
  const run = async (argv: string[], stdin?: (out: () => string) => ReadableStream<Uint8Array>) => {
    let stdout = "";
    let stderr = "";
    const code = await runCli(argv, {
      env: { JOBPILOT_DB: dbPath, ...env },
      stdout: (s) => void (stdout += s),
      stderr: (s) => void (stderr += s),
      stdin: stdin ? () => stdin(() => stdout) : undefined,
    });
    if (typeof code !== "number") throw new Error("unexpected long-running command");
    return { code, stdout, stderr };
  };
  /** The stored row's ciphertext (null when none, or no database yet) and the tokens it decrypts to. */
  const stored = async () => {
    if (!existsSync(dbPath)) return null;
    const db = openDatabase(dbPath);
    try {
      const row = await findOAuthToken(db, MARKETPLACE_PROVIDER);
      return row === undefined ? null : { ciphertext: row.ciphertext, tokens: await loadTokens(oauthTokenVault(db), SECRET_KEY) };
    } finally {
      closeDatabase(db);
    }
  };
  return { run, dbPath, stored };
}

/** Standard input that waits until stdout shows the authorize URL, then sends the line built from it. */
function pasteAfterUrl(line: (authorizeUrl: URL) => string): (out: () => string) => ReadableStream<Uint8Array> {
  return (out) =>
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (let i = 0; i < 1000; i++) {
          const m = /https?:\/\/\S+state=\S+/.exec(out());
          if (m) {
            controller.enqueue(new TextEncoder().encode(line(new URL(m[0])) + "\n"));
            controller.close();
            return;
          }
          await Bun.sleep(5);
        }
        controller.error(new Error("the authorize URL was never printed"));
      },
    });
}

describe("source list", () => {
  test("a table of every source with ENABLED from JOBPILOT_SOURCES and the schedule", async () => {
    const { run } = cli({ JOBPILOT_SOURCES: "remoteok,hackernews", JOBPILOT_SOURCE_INTERVALS: "hackernews=30m" });
    const res = await run(["source", "list"]);
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^SOURCE\s+ENABLED\s+PLATFORM\s+SCHEDULE\s+WHAT/);
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))!;
    expect(row("remoteok")).toMatch(/^remoteok\s+yes\s+web\s+1h\s+/);
    expect(row("hackernews")).toMatch(/^hackernews\s+yes\s+web\s+30m\s+/);
    expect(row("sandbox")).toMatch(/^sandbox\s+no\s+marketplace\s+15s\s+/);
    expect(row("remotive")).toMatch(/^remotive\s+no\s+web\s+6h\s+/);
    expect(row("marketplace-api")).toMatch(/^marketplace-api\s+no\s+marketplace\s+cron \*\/5 \* \* \* \*\s+/);
    expect(lines).toHaveLength(8);
  });

  test("--json: one array with enabled flags", async () => {
    const { run } = cli({ JOBPILOT_SOURCES: "weworkremotely,marketplace-api", JOBPILOT_MARKETPLACE_API_CRON: "0 * * * *" });
    const res = await run(["source", "list", "--json"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim().split("\n")).toHaveLength(1);
    const rows = JSON.parse(res.stdout) as { name: string; enabled: boolean; platform: string; schedule: string; description: string }[];
    expect(rows.map((r) => r.name).sort()).toEqual(["hackernews", "himalayas", "marketplace-api", "remoteok", "remotive", "sandbox", "weworkremotely"]);
    expect(
      rows
        .filter((r) => r.enabled)
        .map((r) => r.name)
        .sort(),
    ).toEqual(["marketplace-api", "weworkremotely"]);
    expect(rows.find((r) => r.name === "marketplace-api")).toMatchObject({ platform: "marketplace", schedule: "cron 0 * * * *" });
    expect(rows.find((r) => r.name === "weworkremotely")).toMatchObject({ platform: "web", schedule: "30m" });
    for (const r of rows) expect(Object.keys(r).sort()).toEqual(["description", "enabled", "name", "platform", "schedule"]);
  });

  test("JOBPILOT_SOURCES=none: nothing enabled", async () => {
    const { run } = cli({ JOBPILOT_SOURCES: "none" });
    const rows = JSON.parse((await run(["source", "list", "--json"])).stdout) as { enabled: boolean }[];
    expect(rows.every((r) => !r.enabled)).toBe(true);
  });
});

describe("source status", () => {
  test("nothing enabled and nothing polled: says so", async () => {
    const { run } = cli({ JOBPILOT_SOURCES: "none" });
    const res = await run(["source", "status"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("No job sources enabled");
    expect(JSON.parse((await run(["source", "status", "--json"])).stdout)).toEqual([]);
  });

  test("shows recorded polls: counters, last error, next run; enabled sources that never polled too", async () => {
    const { run, dbPath } = cli({ JOBPILOT_SOURCES: "remoteok,hackernews,himalayas" });
    expect((await run(["source", "status"])).code).toBe(0); // creates and migrates the database
    const db = openDatabase(dbPath);
    const t0 = Date.UTC(2026, 2, 1, 10, 0, 0);
    await recordPoll(db, "remoteok", t0, { ok: true, state: { etag: "x" }, seen: 10, inserted: 4, nextRunAtTs: t0 + 3_600_000 });
    await recordPoll(db, "remoteok", t0 + 3_600_000, { ok: true, state: { etag: "y" }, seen: 7, inserted: 1, nextRunAtTs: t0 + 7_200_000 });
    await recordPoll(db, "hackernews", t0, { ok: false, error: "HTTP 503 from hn.algolia.com", nextRunAtTs: t0 + 7_200_000 });
    await recordPoll(db, "hackernews", t0 + 60_000, { ok: false, error: "HTTP 503 again", nextRunAtTs: t0 + 9_000_000 });
    await recordPoll(db, "sandbox", t0, { ok: true, state: {}, seen: 1, inserted: 1, nextRunAtTs: t0 + 15_000 });
    closeDatabase(db);

    const json = await run(["source", "status", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => r.name)).toEqual(["hackernews", "himalayas", "remoteok", "sandbox"]);
    const by = Object.fromEntries(rows.map((r) => [r.name as string, r]));
    expect(by.remoteok).toEqual({
      name: "remoteok",
      enabled: true,
      lastPollAtTs: t0 + 3_600_000,
      lastSuccessAtTs: t0 + 3_600_000,
      lastSeen: 7,
      lastNew: 1,
      totalSeen: 17,
      totalNew: 5,
      consecutiveFailures: 0,
      lastError: null,
      lastErrorAtTs: null,
      nextRunAtTs: t0 + 7_200_000,
    });
    expect(by.hackernews).toMatchObject({
      enabled: true,
      consecutiveFailures: 2,
      lastError: "HTTP 503 again",
      lastErrorAtTs: t0 + 60_000,
      lastSuccessAtTs: null,
      totalSeen: 0,
      nextRunAtTs: t0 + 9_000_000,
    });
    expect(by.himalayas).toMatchObject({ enabled: true, lastPollAtTs: null, totalSeen: 0, consecutiveFailures: 0, lastError: null, nextRunAtTs: null });
    // Polled once but no longer enabled: still listed, with no next run.
    expect(by.sandbox).toMatchObject({ enabled: false, totalSeen: 1, nextRunAtTs: null });

    const text = await run(["source", "status"]);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^SOURCE\s+ENABLED\s+LAST POLL\s+SEEN\/NEW \(LAST\)\s+SEEN\/NEW \(TOTAL\)\s+NEXT RUN\s+LAST ERROR/);
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))!;
    expect(row("remoteok")).toMatch(/^remoteok\s+yes\s+2026-03-01T11:00:00Z\s+7\/1\s+17\/5\s+2026-03-01T12:00:00Z\s+-$/);
    expect(row("hackernews")).toContain("HTTP 503 again (2 failures in a row, 2026-03-01T10:01:00Z)");
    expect(row("himalayas")).toMatch(/^himalayas\s+yes\s+-\s+0\/0\s+0\/0\s+at start\s+-$/);
    expect(row("sandbox")).toMatch(/^sandbox\s+no\s+.*\s+1\/1\s+1\/1\s+-\s+-$/);
  });

  test("one failure reads '1 failure in a row'", async () => {
    const { run, dbPath } = cli({ JOBPILOT_SOURCES: "remoteok" });
    await run(["source", "status"]);
    const db = openDatabase(dbPath);
    await recordPoll(db, "remoteok", Date.UTC(2026, 2, 1), { ok: false, error: "boom", nextRunAtTs: Date.UTC(2026, 2, 1, 1) });
    closeDatabase(db);
    expect((await run(["source", "status"])).stdout).toContain("boom (1 failure in a row, 2026-03-01T00:00:00Z)");
  });
});

describe("source connect", () => {
  let fake: FakeMarketplaceApi;
  beforeAll(() => {
    fake = startFakeMarketplaceApi();
  });
  afterAll(async () => {
    await fake.close();
  });
  const env = () => ({
    JOBPILOT_MARKETPLACE_CLIENT_ID: "cli-client",
    JOBPILOT_MARKETPLACE_CLIENT_SECRET: "cli-secret",
    JOBPILOT_SECRET_KEY: SECRET_KEY,
    JOBPILOT_MARKETPLACE_TOKEN_URL: fake.tokenUrl,
    JOBPILOT_MARKETPLACE_REDIRECT_URI: "http://127.0.0.1:3999/admin/oauth/callback",
    JOBPILOT_MARKETPLACE_AUTHORIZE_URL: "http://127.0.0.1:3999/authorize",
  });

  test("an unknown provider is a usage error (exit 2)", async () => {
    const { run } = cli(env());
    const res = await run(["source", "connect", "linkedin"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown provider "linkedin"');
  });

  test("a missing provider or a bad --wait is a usage error", async () => {
    const { run } = cli(env());
    expect((await run(["source", "connect"])).code).toBe(2);
    const res = await run(["source", "connect", "marketplace", "--wait", "0"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("--wait");
  });

  test("missing settings: exit 1 naming the variables", async () => {
    const { run, stored } = cli({ JOBPILOT_SECRET_KEY: SECRET_KEY });
    const res = await run(["source", "connect", "marketplace", "--code", "abc"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("JOBPILOT_MARKETPLACE_CLIENT_ID, JOBPILOT_MARKETPLACE_CLIENT_SECRET");
    expect(res.stderr).not.toContain("JOBPILOT_SECRET_KEY");
    const interactive = await run(["source", "connect", "marketplace"]);
    expect(interactive.code).toBe(1);
    expect(interactive.stderr).toContain("JOBPILOT_MARKETPLACE_CLIENT_ID");
    expect(await stored()).toBeNull();
  });

  test("--code with a redirect URL trades the code and stores the tokens encrypted in the database", async () => {
    fake.onToken((form) => (form.get("code") === "good-code" ? tokenReply("access-1", "refresh-1", 86400) : { status: 400, json: { error: "invalid_grant" } }));
    const { run, stored, dbPath } = cli(env());
    const before = fake.tokenRequests.length;
    const res = await run(["source", "connect", "marketplace", "--code", "http://127.0.0.1:3999/admin/oauth/callback?code=good-code"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("Connected.");
    const form = fake.tokenRequests[before]!;
    expect(Object.fromEntries(form)).toMatchObject({
      grant_type: "authorization_code",
      code: "good-code",
      client_id: "cli-client",
      client_secret: "cli-secret",
      redirect_uri: env().JOBPILOT_MARKETPLACE_REDIRECT_URI,
    });
    const row = await stored();
    expect(row!.ciphertext).not.toContain("refresh-1");
    expect(row!.ciphertext).not.toContain("access-1");
    expect(row!.tokens).toMatchObject({ accessToken: "access-1", refreshToken: "refresh-1" });
    // No token file any more: every node reads the row.
    expect(existsSync(join(dbPath, "..", "marketplace-tokens.enc"))).toBe(false);
  });

  test("--code with a bare code works; a refused code exits 1 storing nothing", async () => {
    fake.onToken((form) =>
      form.get("code") === "bare" ? tokenReply("access-2", "refresh-2") : { status: 400, json: { error: "invalid_grant", error_description: "code expired" } },
    );
    const ok = cli(env());
    expect((await ok.run(["source", "connect", "marketplace", "--code", "bare"])).code).toBe(0);
    expect((await ok.stored())!.tokens).toMatchObject({ accessToken: "access-2" });

    const bad = cli(env());
    const res = await bad.run(["source", "connect", "marketplace", "--code", "stale"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("the authorisation code was refused");
    expect(await bad.stored()).toBeNull();
  });

  test("--code with a redirect URL carrying an unknown state is refused before the code is traded", async () => {
    fake.onToken(() => tokenReply("never", "never"));
    const { run, stored } = cli(env());
    const before = fake.tokenRequests.length;
    const res = await run(["source", "connect", "marketplace", "--code", "http://127.0.0.1:3999/admin/oauth/callback?code=c&state=forged"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("Unknown, used or expired state");
    expect(fake.tokenRequests.length).toBe(before);
    expect(await stored()).toBeNull();
  });

  test("--code with an error redirect is refused with the marketplace's reason", async () => {
    const { run, stored } = cli(env());
    const res = await run(["source", "connect", "marketplace", "--code", "http://127.0.0.1:3999/cb?error=access_denied&error_description=User+said+no"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("The marketplace refused the authorisation: User said no");
    expect(await stored()).toBeNull();
  });

  test("interactive: prints the authorize URL, takes the pasted redirect URL with its state, stores the tokens", async () => {
    fake.onToken((form) => (form.get("code") === "pasted-code" ? tokenReply("access-3", "refresh-3") : { status: 400, json: { error: "invalid_grant" } }));
    const { run, stored } = cli(env());
    let authorize: URL | undefined;
    const res = await run(
      ["source", "connect", "marketplace", "--wait", "30"],
      pasteAfterUrl((url) => {
        authorize = url;
        return `${env().JOBPILOT_MARKETPLACE_REDIRECT_URI}?code=pasted-code&state=${encodeURIComponent(url.searchParams.get("state")!)}`;
      }),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(authorize!.origin + authorize!.pathname).toBe("http://127.0.0.1:3999/authorize");
    expect(Object.fromEntries(authorize!.searchParams)).toMatchObject({
      response_type: "code",
      client_id: "cli-client",
      redirect_uri: env().JOBPILOT_MARKETPLACE_REDIRECT_URI,
    });
    expect(authorize!.searchParams.get("state")!.length).toBeGreaterThanOrEqual(16);
    expect(res.stdout).toContain("Connected. Access token valid until");
    expect((await stored())!.tokens).toMatchObject({ accessToken: "access-3", refreshToken: "refresh-3" });
  });

  test("interactive: a bare pasted code is checked against the state this run handed out", async () => {
    fake.onToken((form) => (form.get("code") === "pasted-bare" ? tokenReply("access-4", "refresh-4") : { status: 400, json: { error: "invalid_grant" } }));
    const { run, stored } = cli(env());
    const res = await run(
      ["source", "connect", "marketplace", "--wait", "30"],
      pasteAfterUrl(() => "pasted-bare"),
    );
    expect(res.code, res.stderr).toBe(0);
    expect((await stored())!.tokens).toMatchObject({ accessToken: "access-4" });
  });

  test("interactive: a pasted URL with the wrong state fails clearly, trades nothing and stores no tokens", async () => {
    fake.onToken(() => tokenReply("never", "never"));
    const { run, stored } = cli(env());
    const before = fake.tokenRequests.length;
    const res = await run(
      ["source", "connect", "marketplace", "--wait", "30"],
      pasteAfterUrl((url) => `${env().JOBPILOT_MARKETPLACE_REDIRECT_URI}?code=c&state=${url.searchParams.get("state")}-tampered`),
    );
    expect(res.code).not.toBe(0);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("Unknown, used or expired state");
    expect(fake.tokenRequests.length).toBe(before);
    expect(await stored()).toBeNull();
  });
});
