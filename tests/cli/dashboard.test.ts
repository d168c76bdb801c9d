import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/index";
import { createTestApp, type TestApp } from "../helpers/app";
import { form, openSignInForm } from "../helpers/dashboard";

let t: TestApp | undefined;
afterEach(() => t?.close());

async function run(env: Record<string, string>, ...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, { env, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code: code as number, stdout, stderr };
}

describe("jobpilot dashboard link", () => {
  test("prints a one-time link that signs a browser into the account", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "jp-cli-dash-")), "cli.db");
    const created = await run({ JOBPILOT_DB: dbPath }, "account", "create", "--name", "Linked", "--json");
    expect(created.code, created.stderr).toBe(0);
    const accountId = JSON.parse(created.stdout).accountId as string;

    const res = await run({ JOBPILOT_DB: dbPath, HOST: "0.0.0.0", PORT: "8080" }, "dashboard", "link", "--account", accountId);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^http:\/\/localhost:8080\/dashboard\/link\/[A-Za-z0-9_-]{43}\n$/);
    expect(res.stderr).toContain("15 minutes");

    const custom = await run({ JOBPILOT_DB: dbPath }, "dashboard", "link", "--account", accountId, "--base-url", "https://jobs.example.com/");
    expect(custom.stdout).toMatch(/^https:\/\/jobs\.example\.com\/dashboard\/link\/[A-Za-z0-9_-]{43}\n$/);

    // The same database served by the app: the link works once.
    t = await createTestApp({ dbPath });
    const path = new URL(res.stdout.trim()).pathname;
    const { headers, csrf } = await openSignInForm(t, path);
    const first = await t.request("POST", path, { body: form({ csrf }), headers });
    expect(first.status).toBe(303);
    expect(first.headers.get("set-cookie")).toStartWith("jp_session=");
    expect((await t.request("POST", path, { body: form({ csrf }), headers })).status).toBe(404);
  });

  test("defaults to http://HOST:PORT and refuses an unknown account or a missing --account", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "jp-cli-dash-")), "cli.db");
    const unknown = await run({ JOBPILOT_DB: dbPath }, "dashboard", "link", "--account", "nope");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Account not found");
    const missing = await run({ JOBPILOT_DB: dbPath }, "dashboard", "link");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--account is required");
    const created = await run({ JOBPILOT_DB: dbPath }, "account", "create", "--name", "x", "--json");
    const accountId = JSON.parse(created.stdout).accountId as string;
    const res = await run({ JOBPILOT_DB: dbPath }, "dashboard", "link", "--account", accountId);
    expect(res.stdout).toStartWith("http://127.0.0.1:3000/dashboard/link/");
  });

  test("follows the server's own settings: PORT and HOST, or --port and --host as `serve` takes them", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "jp-cli-dash-")), "cli.db");
    const created = await run({ JOBPILOT_DB: dbPath }, "account", "create", "--name", "x", "--json");
    const accountId = JSON.parse(created.stdout).accountId as string;
    const viaEnv = await run({ JOBPILOT_DB: dbPath, PORT: "8123", HOST: "10.1.2.3" }, "dashboard", "link", "--account", accountId);
    expect(viaEnv.stdout, viaEnv.stderr).toStartWith("http://10.1.2.3:8123/dashboard/link/");
    const viaFlags = await run({ JOBPILOT_DB: dbPath, PORT: "8123" }, "dashboard", "link", "--account", accountId, "--port", "4567", "--host", "::");
    expect(viaFlags.code, viaFlags.stderr).toBe(0);
    expect(viaFlags.stdout).toStartWith("http://localhost:4567/dashboard/link/");
    const v6 = await run({ JOBPILOT_DB: dbPath }, "dashboard", "link", "--account", accountId, "--host", "::1", "--port", "80");
    expect(v6.stdout).toStartWith("http://[::1]:80/dashboard/link/");
    // Port 0 means "any free port": only the running server knows which, so say how to name it instead of guessing.
    const anyPort = await run({ JOBPILOT_DB: dbPath, PORT: "0" }, "dashboard", "link", "--account", accountId);
    expect(anyPort.code).toBe(2);
    expect(anyPort.stdout).toBe("");
    expect(anyPort.stderr).toContain("--port");
    expect(anyPort.stderr).toContain("--base-url");
    const named = await run({ JOBPILOT_DB: dbPath, PORT: "0" }, "dashboard", "link", "--account", accountId, "--base-url", "http://127.0.0.1:41234");
    expect(named.stdout).toStartWith("http://127.0.0.1:41234/dashboard/link/");
  });
});
