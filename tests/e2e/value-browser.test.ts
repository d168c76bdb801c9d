import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { axeProblems, launchChromium, noBrowser, overflowsSideways, until } from "../helpers/browser";
import { makeDoc } from "../helpers/factories";
import { startServer, type ServerProcess } from "../helpers/process";

const SHOTS = join(import.meta.dir, "../../test-artifacts/value");
const ADMIN_TOKEN = "value-browser-admin-token";

// The expected-value line on the inbox's cards in a real browser, at 1280 and 390 px: it fits, reads and passes axe.
describe("expected value on inbox cards (browser)", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "each card's value line, worth it or not, at 1280 and 390 px",
    async () => {
      rmSync(SHOTS, { recursive: true, force: true });
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-value-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      try {
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "value.db"),
          JOBPILOT_SOURCES: "none",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          LOG_LEVEL: "warn",
        });
        const base = server.url;
        const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())?.[1];
        expect(key, server.output()).toBeDefined();
        const feed = await fetch(`${base}/api/v1/feeds`, {
          method: "POST",
          headers: { "x-api-key": key!, "content-type": "application/json" },
          body: JSON.stringify({ title: "Widgets", includes: ["widget"], minScore: 0 }),
        });
        expect(feed.status, await feed.clone().text()).toBe(201);
        for (const doc of [
          { ...makeDoc({ title: "Widget store on Shopify", fixed: 900, publishTime: new Date().toISOString() }), connectPrice: 8 },
          makeDoc({ title: "Widget API in Go", hourly: [40, 80], publishTime: new Date().toISOString() }),
          makeDoc({ title: "Tiny widget fix", fixed: 20, publishTime: new Date().toISOString() }),
        ]) {
          const res = await fetch(`${base}/admin/jobs`, {
            method: "POST",
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
            body: JSON.stringify(doc),
          });
          expect(res.status, await res.clone().text()).toBeLessThan(300);
        }
        browser = await launchChromium();
        for (const width of [1280, 390]) {
          const context = await browser.newContext({ viewport: { width, height: width > 600 ? 900 : 844 } });
          context.setDefaultTimeout(8_000);
          const page = await context.newPage();
          await page.goto(`${base}/dashboard`);
          await page.getByLabel("API key").fill(key!);
          await page.getByRole("button", { name: "Sign in with key" }).click();
          await page.waitForURL(`${base}/dashboard`);
          const lines = page.locator("#cards article.card .expected-value");
          await until("three value lines", 10_000, async () => {
            if ((await lines.count()) === 3) return true;
            await page.reload();
            return false;
          });
          const texts = await lines.allTextContents();
          expect(texts).toContain("Worth ~$40.50; costs $1.20 in Connects");
          expect(texts).toContain("Worth ~$36.00; costs $2.40 in Connects");
          expect(texts).toContain("Worth ~$0.90; costs $2.40 in Connects · less than it costs");
          expect(await overflowsSideways(page)).toBe(false);
          expect(await axeProblems(page)).toEqual([]);
          await page.screenshot({ path: join(SHOTS, `inbox-${width}.png`), fullPage: true });
          await context.close();
        }
      } finally {
        await browser?.close();
        await server?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
