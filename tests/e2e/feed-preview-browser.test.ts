import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { axeProblems, launchChromium, noBrowser, overflowsSideways } from "../helpers/browser";
import { makeDoc } from "../helpers/factories";
import { startServer, type ServerProcess } from "../helpers/process";

// Screenshots to look at as a user would (gitignored); JOBPILOT_SHOTS_DIR puts them elsewhere.
const SHOTS = process.env.JOBPILOT_SHOTS_DIR ?? join(import.meta.dir, "../../test-artifacts/feed-preview");
const ADMIN_TOKEN = "feed-preview-browser-admin-token";

// Issue 45 in a real browser, against `serve` on 127.0.0.2: the empty inbox says what to expect, and the new-feed
// form's preview panel follows the filters as they are typed (htmx, debounced), at desktop and phone width.
describe("feed preview in a browser", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "the empty inbox links to the preview; the panel updates live as the keywords change",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-preview-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      try {
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "preview.db"),
          HOST: "127.0.0.2",
          JOBPILOT_SOURCES: "sandbox",
          JOBPILOT_SANDBOX_JOBS_PER_MINUTE: "0.01",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          LOG_LEVEL: "warn",
        });
        const base = server.url;
        const apiKey = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.stderr())?.[1];
        expect(apiKey, server.output()).toBeTruthy();
        const publishTime = new Date(Date.now() - 10 * 60_000).toISOString();
        for (const doc of [
          makeDoc({ title: "Rust developer for a command line tool", skills: ["Rust"], publishTime }),
          makeDoc({ title: "Rust and WordPress plugin", skills: ["Rust", "WordPress"], publishTime }),
          makeDoc({ title: "React dashboard for sales data", skills: ["React"], publishTime }),
        ]) {
          const res = await fetch(`${base}/admin/jobs`, {
            method: "POST",
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
            body: JSON.stringify(doc),
          });
          expect(res.status, await res.text()).toBeLessThan(300);
        }
        browser = await launchChromium();
        for (const width of [1280, 390]) {
          const context = await browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, colorScheme: width > 500 ? "light" : "dark" });
          context.setDefaultTimeout(10_000);
          const page = await context.newPage();
          await page.goto(`${base}/dashboard`);
          await page.getByLabel("API key").fill(apiKey!);
          await page.getByRole("button", { name: "Sign in with key" }).click();
          await page.waitForURL(`${base}/dashboard`);
          expect(await page.locator(".empty").last().textContent()).toContain("the sandbox posts a job every 100 minutes");
          expect(await axeProblems(page)).toEqual([]);
          expect(await overflowsSideways(page)).toBe(false);
          await page.screenshot({ path: join(SHOTS, `inbox-empty-${width}.png`), fullPage: true });

          await page.locator('a[href="/dashboard/feeds/new#preview"]').click();
          await page.getByLabel("Minimum score").fill("0");
          await page.getByLabel("Include keywords").fill("rust");
          // Each keystroke restarts the 500 ms debounce and replaces a preview in flight; a loaded CI machine on
          // PostgreSQL once took over 10 s to settle, so the live updates get the time a slow machine needs.
          await page.locator("#preview").getByText("2 jobs matched").waitFor({ timeout: 30_000 });
          await page.getByLabel("Exclude keywords").fill("wordpress");
          await page.locator("#preview").getByText("1 dropped for having one of the exclude keywords (wordpress)").waitFor({ timeout: 30_000 });
          expect(await page.locator("#preview .preview-jobs").textContent()).toContain("Rust developer for a command line tool");
          expect(await axeProblems(page)).toEqual([]);
          expect(await overflowsSideways(page)).toBe(false);
          await page.locator("#preview").evaluate((el: any) => el.scrollIntoView({ block: "start" }));
          await page.screenshot({ path: join(SHOTS, `feed-preview-${width}.png`) });
          await context.close();
        }
      } finally {
        await browser?.close();
        await server?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
