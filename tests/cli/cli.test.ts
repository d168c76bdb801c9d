import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMANDS, runCli } from "../../src/cli/index";
import { openDatabase, closeDatabase } from "../../src/db/client";
import { touchCompanion } from "../../src/marketplace/companion/repo";
import { authenticate } from "../../src/modules/accounts/service";

function cli(env: Record<string, string> = {}) {
  const dbPath = env.JOBPILOT_DB ?? join(mkdtempSync(join(tmpdir(), "jp-cli-")), "cli.db");
  const run = async (...argv: string[]) => {
    let stdout = "";
    let stderr = "";
    const code = await runCli(argv, { env: { JOBPILOT_DB: dbPath, ...env }, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
    if (typeof code !== "number") {
      await code.stop("test");
      return { code: await code.done, stdout, stderr };
    }
    return { code, stdout, stderr };
  };
  return { run, dbPath };
}

describe("command line", () => {
  test("--help works at the top and on every command", async () => {
    const { run } = cli();
    const top = await run("--help");
    expect(top.code).toBe(0);
    for (const c of COMMANDS) expect(top.stdout).toContain(c.name);
    for (const c of COMMANDS) {
      const res = await run(...c.name.split(" "), "--help");
      expect(res.code, c.name).toBe(0);
      expect(res.stdout).toStartWith(`Usage: ${c.usage}`);
      expect(res.stdout).toContain("--db PATH");
    }
    expect((await run("help", "key", "create")).stdout).toStartWith("Usage: jobpilot key create");
    expect((await run("key", "--help")).code).toBe(0);
  });

  test("docs/command-line.md's command table has a row for every command", async () => {
    const page = await Bun.file(join(import.meta.dir, "../../docs/command-line.md")).text();
    const table = page.slice(page.indexOf("| Command | What it does |"));
    for (const c of COMMANDS) expect(table, c.name).toContain(`| \`${c.name}`);
  });

  test.each([
    [["bogus"], /^jobpilot: unknown command 'bogus'/],
    [["key", "frobnicate"], /^jobpilot: unknown command 'key frobnicate' \(expected one of: create, list, revoke\)/],
    [["key"], /^$/],
    [["key", "create", "--nope"], /^jobpilot key create: Unknown option '--nope'/],
    [["key", "create"], /^jobpilot key create: --account is required/],
    [["key", "revoke"], /^jobpilot key revoke: missing KEY_ID/],
    [["account", "create", "--name", "x", "--kind", "team"], /--kind must be solo or agency/],
    [["account", "create", "--name", "x", "--credits", "1.5"], /--credits must be a non-negative whole number/],
    [["credits", "grant", "--account", "a"], /--amount is required/],
    [["account", "limits", "--account", "a"], /give --multiplier, --set, --clear or --ai-scoring/],
    [["account", "limits", "--account", "a", "--set", "apply"], /--set takes BUCKET.WINDOW=N/],
  ])("a bad command line %p exits 2 with one line on stderr", async (argv, message) => {
    const { run } = cli();
    const res = await run(...argv);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stderr.trim().split("\n").length).toBeLessThanOrEqual(1);
  });

  test("a bad environment variable is named and exits 2", async () => {
    const { run } = cli({ PORT: "abc" });
    const res = await run("serve");
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("Invalid PORT");
  });

  test("serve prints the first-run API key on stderr, never on stdout where the JSON logs go", async () => {
    const { run, dbPath } = cli({ PORT: "0", JOBPILOT_SOURCES: "none", LOG_LEVEL: "info" });
    const res = await run("serve");
    expect(res.code, res.stderr).toBe(0);
    const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(res.stderr)?.[1];
    // A newcomer is told where the dashboard and the API reference are.
    const base = /is listening on (http:\/\/\S+)/.exec(res.stderr)?.[1];
    expect(base, res.stderr).toBeDefined();
    expect(res.stderr).toContain(`Dashboard: ${base}/dashboard`);
    expect(res.stderr).toContain(`API docs:  ${base}/docs`);
    expect(key, res.stderr).toBeDefined();
    expect(res.stdout).not.toContain("jp_live_");
    // stdout is the log stream: every line of it is a JSON record.
    for (const line of res.stdout.split("\n").filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
    const db = openDatabase(dbPath);
    expect(await authenticate({ db }, key)).not.toBeNull();
    closeDatabase(db);
  });

  test("account create --json prints exactly one JSON object with a working key", async () => {
    const { run, dbPath } = cli();
    const res = await run("account", "create", "--name", "Acme", "--kind", "agency", "--credits", "3", "--json");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim().split("\n")).toHaveLength(1);
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out).sort()).toEqual(["accountId", "apiKey"]);
    const db = openDatabase(dbPath);
    expect(await authenticate({ db }, out.apiKey)).toMatchObject({ accountId: out.accountId, accountKind: "agency" });
    closeDatabase(db);
  });

  test("keys: create shows the key once, list never shows it, revoke makes it fail", async () => {
    const { run, dbPath } = cli();
    const { accountId, apiKey: firstKey } = JSON.parse((await run("account", "create", "--name", "A", "--json")).stdout);
    const created = JSON.parse((await run("key", "create", "--account", accountId, "--label", "staging", "--json")).stdout);
    expect(created.apiKey).toMatch(/^jp_live_/);
    const listed = await run("key", "list", "--account", accountId);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("staging");
    expect(listed.stdout).not.toContain(created.apiKey);
    expect(listed.stdout).not.toContain(firstKey);
    const json = JSON.parse((await run("key", "list", "--account", accountId, "--json")).stdout);
    expect(json).toHaveLength(2);
    expect(JSON.stringify(json)).not.toContain(created.apiKey.slice(8));
    const revoked = await run("key", "revoke", created.keyId);
    expect(revoked.stdout).toContain("Revoked key");
    expect((await run("key", "revoke", created.keyId)).stdout).toContain("already revoked");
    const db = openDatabase(dbPath);
    expect(await authenticate({ db }, created.apiKey)).toBeNull();
    expect(await authenticate({ db }, firstKey)).not.toBeNull();
    closeDatabase(db);
    const missing = await run("key", "list", "--account", "nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Account not found");
  });

  test("credits grant adds, corrects and refuses a negative balance", async () => {
    const { run } = cli();
    const { accountId } = JSON.parse((await run("account", "create", "--name", "A", "--credits", "2", "--json")).stdout);
    expect(JSON.parse((await run("credits", "grant", "--account", accountId, "--amount", "5", "--json")).stdout)).toEqual({ accountId, balance: 7 });
    expect((await run("credits", "grant", "--account", accountId, "--amount", "-3")).stdout).toContain("balance is now 4");
    const refused = await run("credits", "grant", "--account", accountId, "--amount", "-5");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("would leave a negative balance");
    const list = JSON.parse((await run("account", "list", "--json")).stdout);
    expect(list[0]).toMatchObject({ id: accountId, credits: 4, activeKeys: 1 });
  });

  test("account limits sets a multiplier and overrides, and --clear resets them", async () => {
    const { run } = cli();
    const { accountId } = JSON.parse((await run("account", "create", "--name", "A", "--json")).stdout);
    const set = await run("account", "limits", "--account", accountId, "--multiplier", "3", "--set", "apply.day=5000", "--set", "status.minute=900", "--json");
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ rateLimitMultiplier: 3, rateLimitOverrides: { "apply.day": 5000, "status.minute": 900 } });
    const bad = await run("account", "limits", "--account", accountId, "--set", "apply.week=1");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unknown limit "apply.week"');
    const cleared = JSON.parse((await run("account", "limits", "--account", accountId, "--clear", "--json")).stdout);
    expect(cleared).toMatchObject({ rateLimitMultiplier: 1, rateLimitOverrides: {} });
  });

  test("account limits sets an account's own ceilings (feeds, API keys, prompt length) and `default` goes back to the server's", async () => {
    const { run } = cli({ JOBPILOT_MAX_API_KEYS_PER_ACCOUNT: "2" });
    const { accountId } = JSON.parse((await run("account", "create", "--name", "A", "--json")).stdout);
    const set = await run("account", "limits", "--account", accountId, "--feeds", "500", "--api-keys", "1", "--prompt-chars", "40000", "--json");
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ maxFeeds: 500, maxApiKeys: 1, maxPromptChars: 40000, rateLimitMultiplier: 1 });
    // The account's first key already fills its own ceiling of 1.
    const refused = await run("key", "create", "--account", accountId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("API key limit reached");
    const text = await run("account", "limits", "--account", accountId, "--api-keys", "default");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("feeds 500, API keys 2 (server default), prompts 40000 characters");
    expect((await run("key", "create", "--account", accountId)).code).toBe(0);
    expect((await run("key", "create", "--account", accountId)).code).toBe(1);
    const bad = await run("account", "limits", "--account", accountId, "--prompt-chars", "200000");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("promptChars must be a whole number from 0 to 100000");
    const usage = await run("account", "limits", "--account", accountId, "--feeds", "many");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--feeds must be a whole number or default, got 'many'");
  });

  test("migrate reports what it applied, then that nothing is pending", async () => {
    const { run } = cli();
    expect((await run("migrate")).stdout).toContain("applied 0000_init");
    expect((await run("migrate")).stdout).toContain("already up to date");
  });

  test("version prints the version", async () => {
    const { run } = cli();
    expect((await run("--version")).stdout).toMatch(/^jobpilot \d+\.\d+\.\d+/);
  });
});

describe("jobpilot ingest", () => {
  test("reads NDJSON, rejects bad lines with their line numbers, keeps the rest, prints counts as JSON", async () => {
    const { makeDoc } = await import("../helpers/factories");
    const { run, dbPath } = cli();
    const file = join(mkdtempSync(join(tmpdir(), "jp-ingest-")), "jobs.ndjson");
    const lines = [JSON.stringify(makeDoc()), "{not json", "", JSON.stringify({ title: "no description" }), JSON.stringify(makeDoc())];
    await Bun.write(file, lines.join("\n") + "\n");
    const res = await run("ingest", file, "--batch", "1");
    expect(res.code, res.stderr).toBe(0);
    const counts = JSON.parse(res.stdout);
    expect(counts).toMatchObject({ received: 4, inserted: 2, updated: 0, rejected: 2 });
    expect(counts.errors.map((e: { at: number }) => e.at)).toEqual([2, 4]);
    expect(counts.errors[0].error).toContain("invalid JSON");
    expect(res.stderr).toContain("ingested 4 documents");
    const again = JSON.parse((await run("ingest", file)).stdout);
    expect(again).toMatchObject({ inserted: 0, updated: 2, rejected: 2 });
    const db = openDatabase(dbPath);
    expect((db.$client.query("SELECT count(*) AS n FROM jobs").get() as { n: number }).n).toBe(2);
    closeDatabase(db);
    expect((await run("ingest", "/nonexistent/file.ndjson")).code).toBe(2);
  });

  test("reads standard input with -", async () => {
    const { makeDoc } = await import("../helpers/factories");
    const dbPath = join(mkdtempSync(join(tmpdir(), "jp-cli-")), "cli.db");
    let stdout = "";
    const input = new Blob([JSON.stringify(makeDoc()) + "\n"]).stream();
    const code = await runCli(["ingest", "-"], {
      env: { JOBPILOT_DB: dbPath },
      stdout: (s) => void (stdout += s),
      stderr: () => {},
      stdin: () => input,
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ received: 1, inserted: 1 });
  });
});

describe("account driver", () => {
  test("sets and resets the marketplace driver of an account", async () => {
    const { run } = cli();
    const { accountId } = JSON.parse((await run("account", "create", "--name", "A", "--json")).stdout);
    expect(JSON.parse((await run("account", "driver", "--account", accountId, "--driver", "bridge", "--json")).stdout).marketplaceDriver).toBe("bridge");
    expect((await run("account", "driver", "--account", accountId, "--driver", "default")).stdout).toContain("the default (sandbox)");
    expect((await run("account", "driver", "--account", accountId, "--driver", "carrier-pigeon")).code).toBe(2);
    expect(JSON.parse((await run("account", "driver", "--account", accountId, "--driver", "companion", "--json")).stdout).marketplaceDriver).toBe("companion");
  });

  test("the default is the browser companion once the account's paired one (a key labelled browser companion) has connected", async () => {
    const { run, dbPath } = cli();
    const { accountId } = JSON.parse((await run("account", "create", "--name", "A", "--json")).stdout);
    expect((await run("key", "create", "--account", accountId, "--label", "browser companion")).code).toBe(0);
    // Paired, never heard from: proposals stay on the sandbox rather than wait for it.
    expect((await run("account", "driver", "--account", accountId, "--driver", "default")).stdout).toContain("the default (sandbox)");
    // What its first long poll records.
    const db = openDatabase(dbPath);
    await touchCompanion(db, accountId, Date.now());
    closeDatabase(db);
    expect((await run("account", "driver", "--account", accountId, "--driver", "default")).stdout).toContain("the default (companion)");
  });
});
