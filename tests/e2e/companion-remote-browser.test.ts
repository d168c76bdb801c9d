import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { buildExtension, launchWithExtension, noBrowser, until } from "../helpers/browser";
import { startServer, type ServerProcess } from "../helpers/process";

// The extension's APIs, as the functions evaluated in its pages and service worker see them (the root tsconfig has no chrome types).
declare const chrome: {
  storage: { local: { get(keys: null): Promise<Record<string, unknown>> } };
  permissions: { request(p: { origins: string[] }): Promise<boolean>; contains(p: { origins: string[] }): Promise<boolean> };
  developerPrivate: { addHostPermission(id: string, host: string, done: () => void): void };
  runtime: { lastError?: { message: string } };
};
// The options page's global, where the test's spy on chrome.permissions.request keeps what it was asked.
declare const window: { asked: unknown[] };

const ROOT = join(import.meta.dir, "../..");
const SHOTS = join(ROOT, "test-artifacts/companion-remote");
/** The dashboard's companion page and the options page, wide and narrow, to look at (gitignored; JOBPILOT_SHOTS_DIR moves them). */
const REVIEW_SHOTS = process.env.JOBPILOT_SHOTS_DIR ?? join(ROOT, "test-artifacts/companion-review");
const ADMIN_TOKEN = "companion-remote-test-admin-token";
/** Loopback, but neither localhost nor 127.0.0.1: to the extension it is a server elsewhere, as a VPS is. */
const HOST = "127.0.0.2";

/**
 * Issue 37: the companion paired with a server that is not on localhost. The server listens on 127.0.0.2, which the
 * manifest does not list: pairing and the long poll reach it through CORS alone, the options page asks Chrome for
 * access to that host (chrome.permissions.request, on the Pair click), and once the host is allowed the sandbox
 * website it serves is read, its jobs captured, and a proposal submitted in review mode by the user's click.
 *
 * Headless Chromium cannot show the permission prompt, so the test plays the user who allows it: it grants the host
 * on chrome://extensions ("Site access"), as a person could, after checking that the Pair click asked for it.
 */
// Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
describe.skipIf(noBrowser)("browser companion with a server elsewhere (not localhost) in Chromium (end to end)", () => {
  test("pair with one paste, connect through CORS, allow the host, capture the sandbox site's jobs, submit in review mode", async () => {
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    mkdirSync(REVIEW_SHOTS, { recursive: true });
    let shot = 0;
    const snap = (p: Page, name: string) => p.screenshot({ path: join(SHOTS, `${String(++shot).padStart(2, "0")}-${name}.png`), fullPage: true });
    /** The page at 1280 and 390 px wide, into REVIEW_SHOTS/companion-<name>-<width>.png. */
    const review = async (p: Page, name: string) => {
      for (const width of [1280, 390]) {
        await p.setViewportSize({ width, height: 900 });
        await p.screenshot({ path: join(REVIEW_SHOTS, `companion-${name}-${width}.png`), fullPage: true });
      }
      await p.setViewportSize({ width: 1200, height: 900 });
    };

    buildExtension();
    const dir = mkdtempSync(join(tmpdir(), "jp-companion-remote-"));
    let server: ServerProcess | undefined;
    let context: BrowserContext | undefined;
    let page: Page | undefined;
    try {
      server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
        JOBPILOT_DB: join(dir, "remote.db"),
        HOST,
        JOBPILOT_SOURCES: "none",
        JOBPILOT_SANDBOX_JOBS_PER_MINUTE: "60",
        JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
        JOBPILOT_COMPANION_MIN_GAP_MS: "0",
        JOBPILOT_COMPANION_REVIEW_TIMEOUT_MS: "30000",
        LOG_LEVEL: "warn",
      });
      const base = server.url.replace(/\/$/, "");
      expect(new URL(base).hostname).toBe(HOST);
      const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())?.[1] ?? "";
      expect(key, server.output()).toStartWith("jp_live_");
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(base + path, {
          method,
          headers: { "content-type": "application/json", "x-api-key": key },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json().catch(() => null)) as any };
      };

      const launched = await launchWithExtension(join(dir, "profile"));
      context = launched.context;
      const worker = launched.worker;
      const extensionId = new URL(worker.url()).host;
      const storage = () => worker.evaluate(() => chrome.storage.local.get(null)) as Promise<Record<string, any>>;
      const explain = async () => JSON.stringify({ companion: (await api("GET", "/api/v1/companion")).body, extension: await storage() });
      page = await context.newPage();

      // (a) The dashboard's companion page: one pairing line holding the code and this server's address.
      await page.goto(`${base}/dashboard/sign-in`);
      await page.getByLabel("API key").fill(key);
      await Promise.all([page.waitForURL(`${base}/dashboard`), page.getByRole("button", { name: "Sign in with key" }).click()]);
      await page.goto(`${base}/dashboard/companion`);
      await expect(page.locator('[data-test="companion-paired"]').textContent()).resolves.toContain("No browser companion is paired");
      await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Make a pairing code" }).click()]);
      const line = (await page.locator('[data-test="pairing-text"]').textContent())!.trim();
      expect(line).toMatch(new RegExp(`^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}@${base.replace(/[.]/g, "\\.")}$`));
      await expect(page.getByRole("button", { name: "Copy" }).isVisible()).resolves.toBe(true);
      await review(page, "dashboard-companion-pairing-line");

      // (b) The options page: the line pasted into the code field alone. The Pair click asks Chrome for the host.
      const options = await context.newPage();
      await options.goto(`chrome-extension://${extensionId}/options.html`);
      await review(options, "options-unpaired");
      await options.evaluate(() => {
        const real = chrome.permissions.request.bind(chrome.permissions);
        const asked: unknown[] = [];
        window.asked = asked;
        chrome.permissions.request = (p) => {
          asked.push(p);
          return real(p);
        };
      });
      await options.getByLabel(/Pairing code/).fill(line);
      await options.getByRole("button", { name: "Pair" }).click();
      // Connected with no host access yet: pairing and the long poll went through the server's CORS answers.
      await until("the companion to connect", 20_000, async () => (await options.locator("#paired").textContent())?.includes("Connected.") === true, explain);
      expect(await options.evaluate(() => window.asked)).toEqual([{ origins: [`http://${HOST}/*`] }]);
      expect(await options.getByLabel("jobpilot server address").inputValue()).toBe(base);
      const status = (await api("GET", "/api/v1/companion")).body;
      expect(status, JSON.stringify(status)).toMatchObject({ driver: "companion", connected: true });
      expect((await storage()).apiKey).toMatch(/^jp_live_/);
      await snap(options, "options-connected-no-access");

      // (c) Headless Chromium never answers the prompt the Pair click opened. The user allows the host where they can
      // (chrome://extensions, "Site access"), then presses the options page's Allow button, which asks again and is
      // answered at once; the service worker then runs the content script on that host's sandbox website.
      await expect(options.locator("#access-text").textContent()).resolves.toContain(`${HOST}:`);
      const extensions = await context.newPage();
      await extensions.goto("chrome://extensions/");
      const granted = await extensions.evaluate(
        ([id, host]) =>
          new Promise<string>((resolve) => chrome.developerPrivate.addHostPermission(id!, host!, () => resolve(chrome.runtime.lastError?.message ?? "ok"))),
        [extensionId, `http://${HOST}/*`],
      );
      expect(granted).toBe("ok");
      await extensions.close();
      // A new options page: the first one still holds the unanswered prompt.
      await options.close();
      const allow = await context.newPage();
      await allow.goto(`chrome-extension://${extensionId}/options.html`);
      await allow.getByRole("button", { name: "Allow access" }).click();
      await until("the host to be allowed", 5_000, () => worker.evaluate((h) => chrome.permissions.contains({ origins: [h] }), `http://${HOST}/*`));
      await until("the Allow button to go", 5_000, async () => !(await allow.locator("#access").isVisible()));
      await review(allow, "options-connected");

      // (d) The dashboard shows the companion paired and connected, with how to unpair.
      await page.goto(`${base}/dashboard/companion`);
      const paired = (await page.locator('[data-test="companion-paired"]').textContent()) ?? "";
      expect(paired).toContain("Paired since");
      expect(paired).toContain("Connected");
      await expect(page.getByRole("button", { name: "Unpair" }).isVisible()).resolves.toBe(true);
      await expect(page.locator("h1").textContent()).resolves.not.toContain("Install");
      await review(page, "dashboard-companion-paired");

      // (e) The sandbox website this server serves is read now: its search page's jobs reach the archive.
      await page.goto(`${base}/sandbox/site/nx/search/jobs/`);
      await page.locator("#login_password").fill(key);
      await Promise.all([page.waitForURL(/\/sandbox\/site\/nx\/search\/jobs\//), page.locator("#login_password_continue").click()]);
      await snap(page, "sandbox-search");
      const tiles: string[] = [];
      for (const link of await page.locator('a[data-test="job-tile-title-link"]').all()) tiles.push(/~02\d+/.exec((await link.getAttribute("href")) ?? "")![0]);
      expect(tiles.length).toBeGreaterThan(0);
      await until("the search page's jobs to reach the archive", 20_000, async () => (await api("GET", `/api/v1/jobs/${tiles[0]}`)).status === 200, explain);
      expect((await storage()).sentCount).toBeGreaterThan(0);

      // (f) Review mode (the default): applied through the companion, the form waits filled, the user's click sends it.
      const job = tiles[0]!;
      const applied = await api("POST", "/api/auto-apply-v2/apply", { jobId: job, coverLetter: `Hello from the remote companion test (${job})` });
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
      const queueId = applied.body.queueId as string;
      await until(
        "waiting for review",
        30_000,
        async () => /Waiting for your review/.test((await api("GET", `/api/auto-apply-v2/status?queueId=${queueId}`)).body?.applicationStatusMessage ?? ""),
        explain,
      );
      const tab = context.pages().find((p) => p !== page && p.url().includes(`/nx/proposals/job/${job}/apply/`));
      expect(tab, "the review tab").toBeDefined();
      await expect(tab!.locator('[data-test="cover-letter-textarea"]').inputValue()).resolves.toBe(`Hello from the remote companion test (${job})`);
      await snap(tab!, "review-filled");
      for (const box of await tab!.locator(".fe-proposal-question textarea").all()) await box.fill("Yes, I have done this before.");
      await tab!.locator('[data-test="submit-proposal"]').click();
      await tab!.locator('#confirm-modal input[type="checkbox"]').check();
      await tab!.locator('[data-test="confirm-submit"]').click();
      let final: any;
      await until(
        "the application to settle",
        30_000,
        async () => {
          final = (await api("GET", `/api/auto-apply-v2/status?queueId=${queueId}`)).body;
          return final?.applicationStatus !== "processing";
        },
        explain,
      );
      expect(final.applicationStatus, JSON.stringify(final)).toBe("applied");
      await snap(allow, "options-after");
    } catch (err) {
      if (page) await snap(page, "failure").catch(() => {});
      console.error(server?.output());
      throw err;
    } finally {
      await context?.close().catch(() => {});
      if (server) expect(await server.stop()).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
