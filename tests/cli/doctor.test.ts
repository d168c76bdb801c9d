import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/index";
import { loadConfig, type Config } from "../../src/config";
import { ManualClock } from "../../src/lib/clock";
import { COMPANION_KEY_LABEL } from "../../src/marketplace/driver";
import { authenticate, createKey } from "../../src/modules/accounts/service";
import { noteChannelOutcome } from "../../src/modules/channels/repo";
import { noteDeliveryOutcome } from "../../src/modules/feeds/repo";
import * as feeds from "../../src/modules/feeds/service";
import { pollSource } from "../../src/modules/intake/runner";
import { runDoctor, SKEW_FAIL_MS, type Finding } from "../../src/modules/monitoring/doctor";
import { createSandboxSource } from "../../src/sources/sandbox/index";
import { createTestApp, type TestApp } from "../helpers/app";
import { useCleanups } from "../helpers/cleanups";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai";
import { PG_BACKEND, createMigratedPgDatabase } from "../helpers/postgres";

const later = useCleanups();
let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/**
 * A database as `serve` leaves it: migrated, one account with a feed, the sandbox polled once (at the
 * clock's time). On the suite's PostgreSQL pass, a fresh PostgreSQL database instead of the file.
 */
async function preparedDatabase(clock: ManualClock, config: Partial<Config> = {}): Promise<{ config: Config; app: TestApp }> {
  const dbPath = join(mkdtempSync(join(tmpdir(), "jp-doctor-")), "jobpilot.db");
  const pg = PG_BACKEND ? await createMigratedPgDatabase() : undefined;
  if (pg) later(() => pg.drop());
  const shared = { sources: "sandbox", ...(pg ? { databaseUrl: pg.url, databasePoolSize: 2 } : {}), ...config };
  const app = await createTestApp({ clock, dbPath: pg ? undefined : dbPath, config: shared });
  await pollSource(app.deps, createSandboxSource({ seed: 1, jobsPerMinute: 60 }));
  return { config: { ...loadConfig({}), dbPath, ...shared }, app };
}

/** The fake model server answers in milliseconds, but a loaded test machine can stall a request for seconds. */
const SLOW_MACHINE_MS = 15_000;
const withoutModelKey = (config: Config): Config => ({ ...config, openaiApiKey: undefined }) as unknown as Config;
const line = (findings: Finding[], check: string) => findings.filter((f) => f.check === check);
const show = (findings: Finding[]) => findings.map((f) => `${f.status} ${f.check}: ${f.detail}${f.fix ? ` — ${f.fix}` : ""}`).join("\n");

describe("jobpilot doctor", () => {
  test("a healthy database with a working model server: every check OK or not applicable", async () => {
    fake = await startFakeOpenAi();
    const clock = new ManualClock(Date.now());
    const { config, app } = await preparedDatabase(clock, { openaiApiKey: "sk-test", openaiBaseUrl: fake.url });
    await app.close();
    const findings = await runDoctor(config, { clock, timeoutMs: SLOW_MACHINE_MS });
    expect(
      findings.filter((f) => f.status !== "OK" && f.status !== "SKIP"),
      show(findings),
    ).toEqual([]);
    for (const check of ["configuration", "database", "migrations", "model server", "source sandbox", "webhooks", "channels", "clock"])
      expect(
        line(findings, check).map((f) => f.status),
        `${check}\n${show(findings)}`,
      ).toEqual(["OK"]);
    if (!PG_BACKEND) expect(line(findings, "disk")[0]!.status).toBe("OK");
    expect(line(findings, "model server")[0]!.detail).toContain("serves gpt-5-nano and gpt-5-mini");
    expect(line(findings, "companion")[0]).toMatchObject({ status: "SKIP", detail: expect.stringContaining("not paired") });
    expect(fake.requests.find((r) => r.path === "/v1/models")!.headers.authorization).toBe("Bearer sk-test");
  });

  test("a model server that fails, refuses the key, is not there or lacks a model: FAIL with the fix", async () => {
    fake = await startFakeOpenAi();
    const clock = new ManualClock(Date.now());
    const { config, app } = await preparedDatabase(clock, { openaiApiKey: "sk-test", openaiBaseUrl: fake.url });
    await app.close();
    const model = async (c: Config = config) => line(await runDoctor(c, { clock, timeoutMs: SLOW_MACHINE_MS }), "model server");

    fake.setModels({ status: 500 });
    expect(await model()).toEqual([
      { status: "FAIL", check: "model server", detail: `${fake.url}/models answered HTTP 500`, fix: expect.stringContaining("OPENAI_BASE_URL") },
    ]);
    fake.setModels({ status: 401 });
    expect((await model())[0]).toMatchObject({ status: "FAIL", detail: expect.stringContaining("refused the API key"), fix: "check OPENAI_API_KEY" });
    fake.setModels(["gpt-5-nano", "llama-3"]);
    expect(await model()).toEqual([
      {
        status: "FAIL",
        check: "model server",
        detail: `${fake.url} does not serve the model "gpt-5-mini" (JOBPILOT_PROPOSAL_MODEL); it serves: gpt-5-nano, llama-3`,
        fix: 'set JOBPILOT_PROPOSAL_MODEL to a served model, or load "gpt-5-mini" into the model server',
      },
    ]);
    const url = fake.url;
    await fake.close();
    fake = undefined;
    const gone = await model({ ...config, openaiBaseUrl: url });
    expect(gone[0]).toMatchObject({
      status: "FAIL",
      detail: expect.stringContaining(`cannot reach ${url}`),
      fix: expect.stringContaining("model server is running"),
    });
    // Without a key there is nothing to check.
    expect((await model(withoutModelKey(config)))[0]!.status).toBe("SKIP");
  });

  test("a disabled or failing webhook endpoint is a WARN naming the feed; a failing source too", async () => {
    const clock = new ManualClock(Date.now());
    const { config, app } = await preparedDatabase(clock);
    const { apiKey } = await app.account();
    const auth = (await authenticate(app.deps, apiKey))!;
    const broken = await feeds.createFeed(app.deps, auth, { title: "broken hook", minScore: 0 });
    const flaky = await feeds.createFeed(app.deps, auth, { title: "flaky hook", minScore: 0 });
    await noteDeliveryOutcome(app.deps.db, broken.id, false, clock.now(), 0, "HTTP 500");
    await noteDeliveryOutcome(app.deps.db, broken.id, false, clock.now(), 0, "HTTP 500");
    await noteDeliveryOutcome(app.deps.db, flaky.id, false, clock.now() - 3_600_000, 86_400_000, "HTTP 502");
    const slack = (
      await app.request("POST", "/api/v1/channels", {
        key: apiKey,
        json: { type: "slack", name: "team alerts", config: { webhookUrl: "https://hooks.slack.com/services/T0/B0/doctorTESTdoctorTEST" } },
      })
    ).body.channel;
    await noteChannelOutcome(app.deps.db, slack.id, { error: "HTTP 404" });
    await pollSource(app.deps, {
      name: "sandbox",
      intervalMs: 1000,
      poll: () => {
        throw new Error("board down");
      },
    });
    await app.close();
    const findings = await runDoctor(config, { clock, timeoutMs: SLOW_MACHINE_MS });
    const hooks = line(findings, "webhooks");
    const failingChannel = line(findings, "channels");
    expect(
      failingChannel.map((f) => f.status),
      show(findings),
    ).toEqual(["WARN"]);
    expect(failingChannel[0]!.detail).toBe(
      `slack channel "team alerts" (${slack.id}, account ${auth.accountId}): last attempt failed: HTTP 404 (never delivered)`,
    );
    expect(failingChannel[0]!.fix).toContain("Send test");
    expect(
      hooks.map((f) => f.status),
      show(findings),
    ).toEqual(["WARN", "WARN"]);
    expect(hooks.find((f) => f.detail.includes(broken.id))!.detail).toContain(
      `feed "broken hook" (${broken.id}, account ${auth.accountId}): endpoint disabled`,
    );
    expect(hooks.find((f) => f.detail.includes(broken.id))!.fix).toContain("save the feed's webhookUrl again");
    expect(hooks.find((f) => f.detail.includes(flaky.id))!.detail).toContain("every delivery failing for 60 min");
    expect(line(findings, "source sandbox")[0]).toMatchObject({
      status: "WARN",
      detail: expect.stringMatching(/^1 failed poll\(s\) in a row, .*: board down$/),
    });
    // Warnings only: the doctor still exits 0.
    expect(findings.some((f) => f.status === "FAIL")).toBe(false);
  });

  test("a source that is overdue, and one that never polled, are WARNs", async () => {
    const clock = new ManualClock(Date.now());
    const { config, app } = await preparedDatabase(clock);
    await app.close();
    clock.advance(60 * 60_000);
    const findings = await runDoctor({ ...config, sources: "sandbox,remoteok" }, { clock, timeoutMs: SLOW_MACHINE_MS });
    expect(line(findings, "source sandbox")[0]).toMatchObject({ status: "WARN", detail: expect.stringContaining("its next poll was due") });
    expect(line(findings, "source remoteok")[0]).toMatchObject({ status: "WARN", detail: "has never polled" });
  });

  test("a clock minutes off the server's Date header: WARN, then FAIL", async () => {
    fake = await startFakeOpenAi();
    const { config, app } = await preparedDatabase(new ManualClock(Date.now()), { openaiApiKey: "sk-test", openaiBaseUrl: fake.url });
    await app.close();
    const ahead = await runDoctor(config, { clock: new ManualClock(Date.now() + 90_000), timeoutMs: SLOW_MACHINE_MS });
    // Read before toMatchObject: Bun's asymmetric matchers leave their own objects in the matched one's fields.
    const aheadBy = Number.parseInt(line(ahead, "clock")[0]!.detail, 10);
    expect(line(ahead, "clock")[0]).toMatchObject({
      status: "WARN",
      detail: expect.stringMatching(/^\d+ s ahead of 127\.0\.0\.1:\d+$/),
      fix: expect.stringContaining("set-ntp"),
    });
    // 90 s, give or take the Date header's whole seconds and a round trip on a loaded machine.
    expect(aheadBy).toBeWithin(88, 94);
    const behind = await runDoctor(config, { clock: new ManualClock(Date.now() - SKEW_FAIL_MS - 60_000), timeoutMs: SLOW_MACHINE_MS });
    expect(line(behind, "clock")[0]).toMatchObject({ status: "FAIL", detail: expect.stringContaining("behind 127.0.0.1") });
    // JOBPILOT_TIME_CHECK_URL is asked instead of the model server when set.
    const other = await runDoctor(
      { ...withoutModelKey(config), timeCheckUrl: `${fake.url}/models` },
      { clock: new ManualClock(Date.now()), timeoutMs: SLOW_MACHINE_MS },
    );
    expect(line(other, "clock")[0]!.status).toBe("OK");
  });

  test("insecure settings are WARNs naming the variable", async () => {
    const clock = new ManualClock(Date.now());
    const { config, app } = await preparedDatabase(clock);
    await app.close();
    const findings = await runDoctor(
      { ...config, webhookAllowPrivate: true, openaiApiKey: "sk-x", openaiBaseUrl: "http://127.0.0.1:9/v1", bridgeUrl: "http://submitter.example:8080/submit" },
      { clock, timeoutMs: SLOW_MACHINE_MS },
    );
    const warnings = line(findings, "configuration");
    expect(warnings.map((f) => f.status)).toEqual(["WARN", "WARN"]);
    expect(warnings[0]!.detail).toContain("JOBPILOT_WEBHOOK_ALLOW_PRIVATE=true");
    expect(warnings[1]!.detail).toContain("JOBPILOT_BRIDGE_URL is plain http");
  });

  test("a test-only setting that is set is a WARN naming it; at their defaults nothing is said", async () => {
    const clock = new ManualClock(Date.now());
    const { config, app } = await preparedDatabase(clock);
    await app.close();
    const quiet = line(await runDoctor(config, { clock, timeoutMs: SLOW_MACHINE_MS }), "configuration");
    expect(quiet.map((f) => f.status)).toEqual(["OK"]);
    const findings = await runDoctor(
      { ...config, telegramApiUrl: "http://127.0.0.1:9", slackWebhookOrigin: "http://127.0.0.1:8081", discordWebhookOrigin: "http://127.0.0.1:8082" },
      { clock, timeoutMs: SLOW_MACHINE_MS },
    );
    const warnings = line(findings, "configuration");
    expect(warnings.map((f) => f.status)).toEqual(["WARN", "WARN", "WARN"]);
    expect(warnings.map((f) => f.detail.split(" ")[0])).toEqual([
      "JOBPILOT_TELEGRAM_API_URL",
      "JOBPILOT_SLACK_WEBHOOK_ORIGIN",
      "JOBPILOT_DISCORD_WEBHOOK_ORIGIN",
    ]);
    for (const w of warnings) expect(w.detail).not.toContain("nothing insecure");
  });
});

// SQLite only: the command line is given JOBPILOT_DB, the file preparedDatabase made; on the PostgreSQL pass that
// file does not exist (the data is in a throw-away PostgreSQL database), and the checks themselves run on both above.
describe.skipIf(PG_BACKEND)("jobpilot doctor on the command line (SQLite)", () => {
  const io = (env: Record<string, string>) => {
    const out: string[] = [];
    const err: string[] = [];
    return { io: { env, stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s) }, out, err };
  };

  test("exit 0 with warnings only, 1 on any FAIL; one aligned line per check", async () => {
    fake = await startFakeOpenAi();
    const clock = new ManualClock(Date.now());
    const { config, app } = await preparedDatabase(clock);
    await app.close();
    const env = { JOBPILOT_DB: config.dbPath, JOBPILOT_SOURCES: "none", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.url };
    const good = io(env);
    expect(await runCli(["doctor"], good.io)).toBe(0);
    const lines = good.out.join("").trimEnd().split("\n");
    expect(
      lines.every((l) => /^(OK {2}|WARN|FAIL|SKIP) {2}\S/.test(l)),
      lines.join("\n"),
    ).toBe(true);
    expect(lines.find((l) => l.includes("migrations"))).toMatch(/^OK {4}migrations +all \d+ of this version applied$/);
    fake.setModels({ status: 503 });
    const bad = io(env);
    expect(await runCli(["doctor"], bad.io)).toBe(1);
    expect(bad.out.join("")).toContain(`FAIL  model server   ${fake.url}/models answered HTTP 503 — check OPENAI_BASE_URL`);
    const json = io(env);
    expect(await runCli(["doctor", "--json"], json.io)).toBe(1);
    expect(JSON.parse(json.out.join("")).find((f: Finding) => f.check === "model server")).toMatchObject({ status: "FAIL" });
  });

  test("settings that do not parse are a FAIL line (exit 1); a missing database file is a WARN and is not created", async () => {
    const broken = io({ JOBPILOT_WEBHOOK_TIMEOUT_MS: "soon" });
    expect(await runCli(["doctor"], broken.io)).toBe(1);
    expect(broken.out.join("")).toStartWith("FAIL  configuration  Invalid JOBPILOT_WEBHOOK_TIMEOUT_MS");
    const path = join(mkdtempSync(join(tmpdir(), "jp-doctor-")), "none", "jobpilot.db");
    const missing = io({ JOBPILOT_DB: path, JOBPILOT_SOURCES: "none" });
    expect(await runCli(["doctor"], missing.io)).toBe(0);
    expect(missing.out.join("")).toContain(`WARN  database       ${path} does not exist yet`);
    expect(existsSync(path)).toBe(false);
  });

  test("a paired browser companion is reported as it is: never connected since pairing (WARN), connected, last seen", async () => {
    const clock = new ManualClock(Date.now());
    const { config, app } = await preparedDatabase(clock);
    later(() => app.close());
    const { accountId } = await app.account();
    const companion = async () => line(await runDoctor(config, { clock, timeoutMs: SLOW_MACHINE_MS }), "companion");
    expect(await companion()).toEqual([{ status: "SKIP", check: "companion", detail: expect.stringContaining("not paired") }]);

    const paired = await createKey(app.deps, accountId, COMPANION_KEY_LABEL);
    clock.advance(60_000);
    const waiting = await companion();
    expect(waiting, show(waiting)).toEqual([
      {
        status: "WARN",
        check: "companion",
        detail: `account ${accountId}: paired 60 s ago, has not connected since`,
        fix: expect.stringContaining("options page"),
      },
    ]);

    const poll = await app.request("GET", "/api/v1/companion/tasks?waitMs=0", { key: paired.apiKey });
    expect(poll.status, poll.text).toBe(200);
    clock.advance(2_000);
    expect(await companion()).toEqual([{ status: "OK", check: "companion", detail: `account ${accountId}: paired and connected (last seen 2 s ago)` }]);
    clock.advance(3 * 3_600_000);
    expect((await companion())[0]).toMatchObject({ status: "OK", detail: expect.stringContaining("not connected now (last seen 3 h ago") });
    expect((await companion())[0]!.detail).not.toContain("no browser companion");
  });

  test("--help describes the command", async () => {
    const help = io({});
    expect(await runCli(["doctor", "--help"], help.io)).toBe(0);
    expect(help.out.join("")).toContain("Usage: jobpilot doctor");
    expect(help.out.join("")).toContain("Exit code 1 when any check FAILs");
  });
});
