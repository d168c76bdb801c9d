import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { buildExtension, launchWithExtension, noBrowser, until } from "../helpers/browser";
import { startServer, type ServerProcess } from "../helpers/process";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

// The extension's storage, as the functions evaluated in its service worker see it (the root tsconfig has no chrome types).
declare const chrome: { storage: { local: { get(keys: null): Promise<Record<string, unknown>>; set(items: object): Promise<void> } } };

const ROOT = join(import.meta.dir, "../..");
const SHOTS = join(ROOT, "test-artifacts/companion");
const ADMIN_TOKEN = "companion-test-admin-token";

// Jobs delivered to the feed webhook (not its "webhook.test" event, sent when the URL is saved).
const ciphertextsIn = (receiver: WebhookReceiver) =>
  new Set(receiver.received.filter((r) => !r.body.includes('"webhook.test"')).flatMap((r) => r.body.match(/~02\d{19}/g) ?? []));

// The browser companion in Debian's Chromium (headless=new loads unpacked extensions), against `serve` as a child process.
describe("browser companion in Chromium (end to end)", () => {
  // Skipped only off CI on a machine without /usr/bin/chromium (see noBrowser); .ci/run installs it.
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "pair from the dashboard, capture the sandbox search page into a feed, watch picks up a new job, a login page pauses it, other pages send nothing",
    async () => {
      // Only this test's own numbered screenshots: the watch-mode test (companion-watch-browser) writes beside them.
      mkdirSync(SHOTS, { recursive: true });
      for (const name of readdirSync(SHOTS)) if (/^\d\d-/.test(name)) rmSync(join(SHOTS, name), { force: true });
      let shot = 0;
      const snap = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${String(++shot).padStart(2, "0")}-${name}.png`), fullPage: true });

      // The extension the test loads is the one `bun run build:extension` makes.
      buildExtension();

      const dir = mkdtempSync(join(tmpdir(), "jp-companion-"));
      let server: ServerProcess | undefined;
      let receiver: WebhookReceiver | undefined;
      let other: ReturnType<typeof Bun.serve> | undefined;
      let context: BrowserContext | undefined;
      let opened: Page | undefined;
      try {
        receiver = await startWebhookReceiver();
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "companion.db"),
          // No polled source: every job in the archive came through the companion.
          JOBPILOT_SOURCES: "none",
          // The sandbox website posts a job every 4 s, so watch mode has something new to find soon.
          JOBPILOT_SANDBOX_JOBS_PER_MINUTE: "15",
          JOBPILOT_WEBHOOK_ALLOW_PRIVATE: "true",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          LOG_LEVEL: "warn",
        });
        const base = server.url.replace(/\/$/, "");
        const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())?.[1];
        expect(key, server.output()).toBeDefined();
        const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { "x-api-key": key! }) => {
          const res = await fetch(base + path, {
            method,
            headers: { "content-type": "application/json", ...headers },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          return { status: res.status, body: (await res.json().catch(() => null)) as any };
        };
        const feed = await api("POST", "/api/v1/feeds", { title: "Everything the companion brings", minScore: 0, webhookUrl: receiver.url });
        expect(feed.status, JSON.stringify(feed.body)).toBe(201);
        const me = await api("GET", "/api/v1/account");
        const accountId = me.body?.account?.id ?? me.body?.id;
        expect(accountId, JSON.stringify(me.body)).toBeString();

        // A page that looks like a marketplace job page but is not on the marketplace (nor the sandbox site).
        other = Bun.serve({
          port: 0,
          hostname: "127.0.0.1",
          fetch: () =>
            new Response(
              `<!doctype html><title>Look-alike</title><h4 data-test="job-title">Build a React dashboard</h4><div data-test="Description">A job page elsewhere.</div>`,
              { headers: { "content-type": "text/html" } },
            ),
        });

        const launched = await launchWithExtension(join(dir, "profile"));
        context = launched.context;
        const worker = launched.worker;
        const extensionId = new URL(worker.url()).host;
        const storage = () => worker.evaluate(() => chrome.storage.local.get(null)) as Promise<Record<string, any>>;
        const page = await context.newPage();
        opened = page;

        // (a) The dashboard's install page makes a pairing code.
        await page.goto(`${base}/dashboard/sign-in`);
        await page.getByLabel("API key").fill(key!);
        await Promise.all([page.waitForURL(`${base}/dashboard`), page.getByRole("button", { name: "Sign in with key" }).click()]);
        await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Browser companion" }).click();
        await page.waitForURL(`${base}/dashboard/companion`);
        await expect(page.getByRole("link", { name: "jobpilot-companion.zip" }).getAttribute("href")).resolves.toBe("/extension.zip");
        await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Make a pairing code" }).click()]);
        const code = (await page.locator('[data-test="pairing-code"]').textContent())!.trim();
        expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
        await snap(page, "dashboard-install");
        const zip = await fetch(`${base}/extension.zip`);
        expect(zip.status).toBe(200);
        expect(new Uint8Array(await zip.arrayBuffer()).slice(0, 2)).toEqual(new Uint8Array([0x50, 0x4b])); // "PK"

        // (b) Pairing in the extension's options page: its own key, labelled "browser companion".
        await page.goto(`chrome-extension://${extensionId}/options.html`);
        await page.getByLabel("jobpilot server address").fill(base);
        await page.getByLabel(/Pairing code/).fill(code);
        await page.getByRole("button", { name: "Pair" }).click();
        await until("pairing", 10_000, async () => (await page.locator("#paired").textContent())?.startsWith("Paired with") === true);
        await snap(page, "options-paired");
        const paired = await storage();
        expect(paired.apiKey).toMatch(/^jp_live_/);
        expect(paired.apiKey).not.toBe(key);
        const companionKey = await api("GET", "/api/v1/account", undefined, { "x-api-key": paired.apiKey });
        expect(companionKey.body.key.label).toBe("browser companion");

        // (c) A page outside the marketplace sends nothing.
        await page.goto(`http://127.0.0.1:${other.port}/jobs/~021111111111111111111`);
        await Bun.sleep(1500);
        expect(ciphertextsIn(receiver).size, receiver.received.map((r) => r.body).join("\n")).toBe(0);
        expect((await storage()).sentCount ?? 0).toBe(0);
        expect((await api("GET", "/api/v1/jobs/~021111111111111111111")).status).toBe(404);

        // (d) The sandbox site: log in with the API key, then the search page's jobs reach the feed and its webhook.
        await page.goto(`${base}/sandbox/site/nx/search/jobs/`);
        expect(new URL(page.url()).pathname).toBe("/sandbox/site/ab/account-security/login");
        await page.locator("#login_password").fill(key!);
        await Promise.all([page.waitForURL(/\/sandbox\/site\/nx\/search\/jobs\//), page.locator("#login_password_continue").click()]);
        await snap(page, "sandbox-search");
        await until("the search page's jobs to reach the webhook", 20_000, () => ciphertextsIn(receiver!).size >= 10);
        const firstBatch = ciphertextsIn(receiver);
        for (const c of firstBatch) await expect(page.locator(`a[href$="/jobs/${c}"]`).count()).resolves.toBe(1);
        expect((await storage()).sentCount).toBeGreaterThanOrEqual(10);

        // (e) Watch mode (fast test setting): a job the sandbox posts after the watch started reaches the feed.
        await worker.evaluate(
          (url) => chrome.storage.local.set({ testIntervalMs: 1500, watchUrls: [url], watchEnabled: true }),
          `${base}/sandbox/site/nx/search/jobs/`,
        );
        await until("a job posted after the watch started", 40_000, () => [...ciphertextsIn(receiver!)].some((c) => !firstBatch.has(c)));
        const watchTab = context.pages().find((p) => p.url().includes("/sandbox/site/nx/search/jobs/") && p !== page);
        expect(watchTab, "the pinned watch tab").toBeDefined();

        // (f) The session expires: the watch tab lands on the login page, watching pauses and the status says "needs you".
        const invalidated = await api("POST", `/admin/sandbox/accounts/${accountId}/session`, { valid: false }, { authorization: `Bearer ${ADMIN_TOKEN}` });
        expect(invalidated.status).toBe(200);
        await until("the companion to notice the login page", 20_000, async () => (await storage()).needsYou === "login");
        const sentWhenPaused = (await storage()).sentCount;
        await page.goto(`${base}/dashboard/companion`);
        await expect(page.locator('[data-test="companion-status"]').textContent()).resolves.toContain("needs you");
        await snap(page, "dashboard-needs-you");
        await page.goto(`${base}/dashboard/overview`);
        await expect(page.locator("body").textContent()).resolves.toContain("needs you");
        // The landing page (the inbox) says so at the top too.
        await page.goto(`${base}/dashboard`);
        await expect(page.locator('[data-test="companion-needs-you"]').textContent()).resolves.toContain("needs you");
        await Bun.sleep(3500); // two watch intervals: paused, nothing reloads into captures
        expect((await storage()).sentCount).toBe(sentWhenPaused);
        expect(await watchTab!.url()).toContain("/ab/account-security/login");
        await snap(watchTab!, "watch-tab-login");
      } catch (err) {
        if (opened) await snap(opened, "failure").catch(() => {});
        console.error(server?.output());
        throw err;
      } finally {
        await context?.close().catch(() => {});
        other?.stop(true);
        await receiver?.close();
        if (server) expect(await server.stop()).toBe(0);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
