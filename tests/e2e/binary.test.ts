import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ENGINE_OPTIONS, ENGINE_TUNED_BUN_VERSIONS } from "../../src/lib/engine-tuning";
import { buildBinary, runCommand, startServer, type ServerProcess } from "../helpers/process";

/** A running process's environment, as the kernel holds it. */
function environOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return Object.fromEntries(entries.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
}
/** Whether the systemd unit sets the engine options here (lib/engine-tuning.ts): a verified Bun (the executable embeds the Bun running these tests). */
const tuned = ENGINE_TUNED_BUN_VERSIONS.includes(Bun.version);

// The compiled executable, started as a user would: its own process, a real port, a file database, no migrations folder beside it.
describe("compiled binary, end to end", () => {
  let binary: string;
  let server: ServerProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), "jp-e2e-"));
  const env = { JOBPILOT_DB: join(dir, "e2e.db"), LOG_LEVEL: "info" };

  beforeAll(async () => {
    binary = await buildBinary();
  }, 120_000);
  afterAll(() => {
    server?.proc.kill("SIGKILL");
  });

  test("serve starts on an empty database with a first-run key, the CLI adds an account, both keys work over HTTP, SIGTERM stops it cleanly", async () => {
    server = await startServer([binary, "serve"], env);
    // The key goes to stderr, for the person starting it; stdout carries the JSON logs a shipper may collect.
    const firstKey = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.stderr())?.[1];
    expect(firstKey, server.output()).toBeDefined();
    expect(server.stdout()).not.toContain("jp_live_");
    // The owner's one-time set-password link beside it, on stderr too, and it opens the page that sets it.
    const ownerLink = /Owner: .*?(http:\/\/\S+\/dashboard\/set-password\?token=[\w-]+)/.exec(server.stderr())?.[1];
    expect(ownerLink, server.output()).toBeDefined();
    expect(server.stdout()).not.toContain("set-password?token=");
    const ownerPage = await fetch(ownerLink!);
    expect(ownerPage.status).toBe(200);
    expect(await ownerPage.text()).toContain("Set up the owner");

    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    // The executable raises Bun's request-head limit, so a long query string gets jobpilot's JSON 414, not Bun's empty 431.
    const longUrl = await fetch(`${server.url}/healthz?pad=${"a".repeat(40_000)}`);
    expect(longUrl.status).toBe(414);
    expect(await longUrl.json()).toEqual({ error: "URL is longer than 8192 bytes" });
    expect(await health.json()).toMatchObject({ status: "ok", database: { status: "ok", journalMode: "wal" } });

    // the CLI writes to the same database while the server runs
    const created = await runCommand([binary, "account", "create", "--name", "E2E", "--credits", "5", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const { accountId, apiKey } = JSON.parse(created.stdout);

    const me = await fetch(`${server.url}/api/v1/account`, { headers: { "x-api-key": apiKey } });
    expect(me.status).toBe(200);
    expect(me.headers.get("x-ratelimit-limit")).toBe("120");
    expect(((await me.json()) as { account: { id: string; credits: number } }).account).toMatchObject({ id: accountId, credits: 5 });

    const first = await fetch(`${server.url}/api/v1/account`, { headers: { "x-api-key": firstKey! } });
    expect(((await first.json()) as { account: { name: string } }).account.name).toBe("default");

    const denied = await fetch(`${server.url}/api/v1/feeds`, { headers: { "x-api-key": "jp_live_nope" } });
    expect(denied.status).toBe(401);

    const docs = await fetch(`${server.url}/docs/json`);
    expect(((await docs.json()) as { info: { version: string } }).info.version).toBe("2.0.0");
    // The reference page and its script are inside the executable too.
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script src="/docs/assets/scalar.js"');
    const script = await fetch(`${server.url}/docs/assets/scalar.js`);
    expect(script.status).toBe(200);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
    // The browser companion's zip is embedded (bun run build builds it first), not read from a dist/ beside it.
    const zip = await fetch(`${server.url}/extension.zip`);
    expect(zip.status).toBe(200);
    const zipBytes = new Uint8Array(await zip.arrayBuffer());
    expect([...zipBytes.slice(0, 2)]).toEqual([0x50, 0x4b]);
    expect(new TextDecoder().decode(zipBytes)).toContain("manifest.json");
    // The dashboard's assets are inside the executable too, and / leads to it.
    const root = await fetch(`${server.url}/`, { redirect: "manual" });
    expect(root.status).toBe(303);
    expect(root.headers.get("location")).toBe("/dashboard");
    const icon = await fetch(`${server.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect([...new Uint8Array(await icon.arrayBuffer()).slice(0, 4)]).toEqual([0, 0, 1, 0]);
    const htmx = await fetch(`${server.url}/dashboard/htmx.js`);
    expect(htmx.status).toBe(200);
    expect((await htmx.text()).length).toBeGreaterThan(500);
    // The browser code kept as real files (imported as text) is embedded byte for byte, with its type.
    const files = [
      ["/dashboard/app.js", "src/modules/dashboard/app.browser.js", "text/javascript"],
      ["/dashboard/style.css", "src/modules/dashboard/style.css", "text/css"],
      ["/dashboard/channels/time-zone.js", "src/modules/dashboard/time-zone.browser.js", "text/javascript"],
      ["/capture.js", "src/modules/capture/capture.browser.js", "text/javascript"],
    ] as const;
    for (const [asset, file, type] of files) {
      const res = await fetch(server.url + asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get("content-type"), asset).toStartWith(type);
      expect(await res.text(), asset).toBe(readFileSync(join(import.meta.dir, "../..", file), "utf8"));
    }

    // a key revoked from the CLI is refused by the running server at once
    const keyId = JSON.parse((await runCommand([binary, "key", "list", "--account", accountId, "--json"], env)).stdout)[0].id;
    expect((await runCommand([binary, "key", "revoke", keyId], env)).code).toBe(0);
    expect((await fetch(`${server.url}/api/v1/account`, { headers: { "x-api-key": apiKey } })).status).toBe(401);

    const code = await server.stop("SIGTERM");
    expect(code, server.output()).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
    expect(server.stdout()).not.toContain(firstKey!);
    // usage held in memory was written at shutdown
    const keys = JSON.parse((await runCommand([binary, "key", "list", "--account", accountId, "--json"], env)).stdout);
    expect(keys[0].lastUsedAtTs).toBeGreaterThan(0);
    server = undefined;
  }, 60_000);

  test("a restart on the same database does not create another first-run account", async () => {
    server = await startServer([binary, "serve"], env);
    expect(server.output()).not.toContain("First run");
    expect(await server.stop("SIGINT")).toBe(0);
    const list = JSON.parse((await runCommand([binary, "account", "list", "--json"], env)).stdout);
    expect(list.map((a: { name: string }) => a.name).sort()).toEqual(["E2E", "default"]);
    server = undefined;
  }, 30_000);

  test("local scoring and writing run on the executable's own worker threads", async () => {
    const own = { JOBPILOT_DB: join(dir, "threads.db"), JOBPILOT_SOURCES: "none", JOBPILOT_LOCAL_AI_THREADS: "2" };
    server = await startServer([binary, "serve"], own);
    const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())![1]!;
    const headers = { "x-api-key": key, "content-type": "application/json" };
    const feed = await fetch(`${server.url}/api/v1/feeds`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: "Shopify", minScore: 0, profilePrompt: "Shopify speed optimisation, Liquid themes" }),
    });
    expect(feed.status).toBe(201);
    const feedId = ((await feed.json()) as { feed: { id: string } }).feed.id;
    const captured = await fetch(`${server.url}/api/v1/capture`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        url: "https://jobs.example.com/jobs/view/4242",
        title: "Shopify speed expert",
        description: "Make our Shopify theme fast: Liquid, Core Web Vitals.",
      }),
    });
    expect(captured.status).toBe(201);
    let jobs: { scoreSource: string; scoreReason: string }[] = [];
    for (let i = 0; i < 200 && jobs.length === 0; i++) {
      await Bun.sleep(25);
      jobs = ((await (await fetch(`${server.url}/api/v1/feeds/${feedId}/jobs`, { headers })).json()) as { jobs: typeof jobs }).jobs;
    }
    expect(jobs, server.output()).toHaveLength(1);
    expect(jobs[0]!.scoreSource).toBe("local");
    expect(jobs[0]!.scoreReason).toContain("shopify");

    const written = await fetch(`${server.url}/api/auto-apply-v2/generate-proposal`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jobTitle: "Shopify speed expert",
        jobDescription: "Make our Shopify theme fast.",
        questions: [{ position: 0, question: "Which tools do you use?" }],
      }),
    });
    expect(written.status).toBe(200);
    const body = (await written.json()) as { proposal: string; questionAnswers: { answer: string }[] };
    expect(body.proposal.length).toBeGreaterThan(200);
    expect(body.questionAnswers[0]!.answer.length).toBeGreaterThan(20);
    expect(server.output()).not.toContain("local AI thread died");
    expect(await server.stop("SIGTERM")).toBe(0);
    server = undefined;
  }, 30_000);

  test("backups run on the executable's own backup thread while it serves; restore waits for it to stop; the unit starts this executable", async () => {
    const own = { JOBPILOT_DB: join(dir, "backup.db"), JOBPILOT_SOURCES: "none", JOBPILOT_BACKUP_CRON: "* * * * * *", JOBPILOT_BACKUP_KEEP: "2" };
    server = await startServer([binary, "serve"], own);
    const made = await runCommand([binary, "backup", "--json"], own);
    expect(made.code, made.stderr).toBe(0);
    const { path } = JSON.parse(made.stdout) as { path: string };
    expect(path).toStartWith(join(dir, "backups", "jobpilot-"));
    const refused = await runCommand([binary, "restore", path], own);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is in use");
    // The scheduled backups, from inside serve.
    for (let i = 0; i < 200 && !server.stdout().includes('"msg":"backup written"'); i++) await Bun.sleep(25);
    expect(server.stdout(), server.output()).toContain('"msg":"backup written"');
    expect(await server.stop("SIGTERM")).toBe(0);
    server = undefined;
    const restored = await runCommand([binary, "restore", path], own);
    expect(restored.code, restored.stderr).toBe(0);
    const unit = await runCommand([binary, "service", "install", "--user", "--print"], { ...own, HOME: dir });
    expect(unit.stdout).toContain(`ExecStart=${binary} serve\n`);
  }, 30_000);

  // The options reach the engine only from the environment, as the systemd unit sets them: serve must start with them
  // on this Bun (else the unit would not set them), and without them it runs on the engine's defaults, never restarting.
  // Skipped off Linux: the unit is a systemd one, and the options are checked against Linux's /proc; CI runs on Linux.
  test.skipIf(process.platform !== "linux")(
    "the unit `service install` writes runs serve with the engine's heap-growth options on a verified Bun; started plainly, none",
    async () => {
      const own = { JOBPILOT_DB: join(dir, "engine.db"), JOBPILOT_SOURCES: "none" };
      const unit = (await runCommand([binary, "service", "install", "--user", "--print"], { ...own, HOME: dir })).stdout;
      const fromUnit = Object.fromEntries(
        unit
          .split("\n")
          .filter((l) => l.startsWith("Environment=BUN_JSC_"))
          .map((l) => l.slice("Environment=".length).split("=") as [string, string]),
      );
      expect(fromUnit).toEqual(tuned ? { ...ENGINE_OPTIONS } : {});
      for (const [extra, isTuned] of [
        [fromUnit, tuned],
        [{}, false],
      ] as [Record<string, string>, boolean][]) {
        server = await startServer([binary, "serve"], { ...own, ...extra });
        const engine = Object.fromEntries(Object.entries(environOf(server.proc.pid)).filter(([name]) => name.startsWith("BUN_JSC_")));
        expect(engine).toEqual({ ...extra });
        expect(readFileSync(`/proc/${server.proc.pid}/cmdline`, "utf8")).toBe(`${binary}\0serve\0`);
        expect(server.stdout()).toContain(`"engineTuned":${isTuned}`);
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
        expect(await server.stop("SIGTERM"), server.output()).toBe(0);
        server = undefined;
      }
    },
    60_000,
  );

  test("bad configuration fails fast naming the variable", async () => {
    const res = await runCommand([binary, "serve"], { ...env, PORT: "eighty" });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("Invalid PORT");
  });
});

describe("from source", () => {
  test("`bun run src/main.ts serve` starts and answers /healthz", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-src-"));
    const server = await startServer([process.execPath, "run", "src/main.ts", "serve"], { JOBPILOT_DB: join(dir, "src.db") });
    try {
      const res = await fetch(`${server.url}/healthz`);
      expect(res.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 30_000);
});
