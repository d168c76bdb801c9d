import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig, SETTINGS } from "../src/config";

describe("configuration", () => {
  test("defaults apply when nothing is set", () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.host).toBe("127.0.0.1");
    expect(c.dbPath).toBe("./data/jobpilot.db");
    expect(c.adminToken).toBeUndefined();
    expect(c.logLevel).toBe("info");
    expect(c.sqliteSynchronous).toBe("FULL");
    expect(c.maxBodyBytes).toBe(1024 * 1024);
  });

  test("environment variables set values and flags override them", () => {
    const c = loadConfig({ PORT: "4000", HOST: "0.0.0.0", JOBPILOT_DB: "/tmp/x.db", LOG_LEVEL: "warn" }, { port: "5000", db: ":memory:" });
    expect(c.port).toBe(5000);
    expect(c.host).toBe("0.0.0.0");
    expect(c.dbPath).toBe(":memory:");
    expect(c.logLevel).toBe("warn");
  });

  test.each([
    [{ PORT: "abc" }, /Invalid PORT: expected an integer between 0 and 65535, got "abc"/],
    [{ PORT: "70000" }, /Invalid PORT/],
    [{ PORT: "1.5" }, /Invalid PORT/],
    [{ LOG_LEVEL: "loud" }, /Invalid LOG_LEVEL: expected one of debug, info, warn, error/],
    [{ JOBPILOT_ADMIN_TOKEN: "short" }, /Invalid JOBPILOT_ADMIN_TOKEN: expected a string of at least 16 characters, got \(hidden\)/],
    [{ JOBPILOT_SQLITE_SYNCHRONOUS: "OFF" }, /Invalid JOBPILOT_SQLITE_SYNCHRONOUS/],
    [{ JOBPILOT_MAX_BODY_BYTES: "-1" }, /Invalid JOBPILOT_MAX_BODY_BYTES/],
  ])("a bad value names its variable: %p", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  test("a bad flag names the flag", () => {
    expect(() => loadConfig({}, { port: "x" })).toThrow(/Invalid --port/);
  });

  test("every setting has its own environment variable and documentation", () => {
    const envs = Object.values(SETTINGS).map((s) => s.env);
    expect(new Set(envs).size).toBe(envs.length);
    for (const s of Object.values(SETTINGS)) expect(s.doc.length).toBeGreaterThan(10);
  });
});

describe("documentation", () => {
  test("docs/configuration.md documents every setting, and the README keeps the two first commands", async () => {
    const reference = await Bun.file(new URL("../docs/configuration.md", import.meta.url)).text();
    for (const s of Object.values(SETTINGS)) expect(reference, s.env).toContain(`| \`${s.env}\` |`);
    const readme = await Bun.file(new URL("../README.md", import.meta.url)).text();
    // The first sh block: the line that runs the service (runtime dependencies only), then the one for developers.
    const block = /```sh\n([\s\S]*?)\n```/.exec(readme)![1]!.split("\n");
    expect(block).toHaveLength(2);
    for (const line of block) expect(line.startsWith("command -v bun >/dev/null || npm install -g bun && bun install ")).toBe(true);
    expect(block[0]).toContain("bun install --production --frozen-lockfile && bun run start");
    expect(block[1]).toContain("bun install --frozen-lockfile && bun test");
  });
});
