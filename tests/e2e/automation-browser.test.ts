import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { axeProblems, launchChromium, noBrowser, overflowsSideways, until } from "../helpers/browser";
import { makeDoc } from "../helpers/factories";
import { startServer, type ServerProcess } from "../helpers/process";

const SHOTS = join(import.meta.dir, "../../test-artifacts/automation");
const ADMIN_TOKEN = "automation-browser-admin-token";
const LETTER =
  "Hello, I have built Rust services that ingest events at high rates and expose gRPC APIs with clear documentation. I would start by profiling your current pipeline, then design the schema with you, and deliver a tested service in small weekly steps. Could we talk about the event volume you expect next year?";

// The governor's pages in a real browser at 1280 and 390 px: Auto-apply (limits, usage, feed modes), Review with a
// letter held as too like one already sent (the two side by side, or stacked), and the audit log.
describe("automation pages (browser)", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "Auto-apply, Review and Audit at 1280 and 390 px: they fit, read and pass axe",
    async () => {
      rmSync(SHOTS, { recursive: true, force: true });
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-automation-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      try {
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "automation.db"),
          JOBPILOT_SOURCES: "none",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "0",
          JOBPILOT_LOGGED_OUT_WINDOW_MS: "0",
          // The test helper turns the governor off for other suites; these pages are about it.
          JOBPILOT_GOVERNOR: "true",
          LOG_LEVEL: "warn",
        });
        const base = server.url;
        const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())?.[1];
        expect(key, server.output()).toBeDefined();
        const api = async (method: string, path: string, body?: unknown) => {
          const res = await fetch(`${base}${path}`, {
            method,
            headers: { "x-api-key": key!, "content-type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const text = await res.text();
          expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
          return JSON.parse(text);
        };
        await api("POST", "/api/v1/feeds", { title: "Rust services", includes: ["rust"], minScore: 0 });
        await api("PATCH", "/api/v1/automation", { connectsPerWeek: 120, minGapMinutes: 0 });
        const ciphers: string[] = [];
        for (const i of [1, 2]) {
          const doc = makeDoc({
            title: `Rust engineer for an events service, part ${i}`,
            description: `Rust backend ${i}.`,
            skills: ["Rust"],
            fixed: 900,
            publishTime: new Date().toISOString(),
          });
          const res = await fetch(`${base}/admin/jobs`, {
            method: "POST",
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
            body: JSON.stringify(doc),
          });
          expect(res.status, await res.clone().text()).toBeLessThan(300);
          ciphers.push((doc.jobTile as { job: { ciphertext: string } }).job.ciphertext);
        }
        const first = await api("POST", "/api/auto-apply-v2/apply", { jobId: ciphers[0], coverLetter: LETTER });
        await until(
          "the first application sent",
          15_000,
          async () => (await api("GET", `/api/auto-apply-v2/status?queueId=${first.queueId}`)).applicationStatus === "applied",
        );
        const second = await api("POST", "/api/auto-apply-v2/apply", { jobId: ciphers[1], coverLetter: LETTER.replace("Hello,", "Hi,") });
        await until(
          "the second held as similar",
          15_000,
          async () => (await api("GET", "/api/v1/applications/held")).total === 1,
          async () => JSON.stringify([await api("GET", `/api/auto-apply-v2/status?queueId=${second.queueId}`), (await api("GET", "/api/v1/audit")).entries]),
        );

        browser = await launchChromium();
        for (const width of [1280, 390]) {
          const context = await browser.newContext({ viewport: { width, height: width > 600 ? 900 : 844 } });
          context.setDefaultTimeout(8_000);
          const page = await context.newPage();
          await page.goto(`${base}/dashboard/sign-in`);
          await page.getByLabel("API key").fill(key!);
          await page.getByRole("button", { name: "Sign in with key" }).click();
          await page.waitForURL(`${base}/dashboard`);

          await page.goto(`${base}/dashboard/auto-apply`);
          const usage = await page.locator("ul.usage li").allTextContents();
          expect(usage).toContain("1 of 15 proposals today");
          expect(usage.some((u) => / of 120 Connects this week$/.test(u))).toBe(true);
          expect(await page.getByLabel("Proposals a day").getAttribute("placeholder")).toBe("15");
          expect(await overflowsSideways(page), `auto-apply at ${width}`).toBe(false);
          expect(await axeProblems(page)).toEqual([]);
          await page.screenshot({ path: join(SHOTS, `auto-apply-${width}.png`), fullPage: true });
          await page.locator("#modes").screenshot({ path: join(SHOTS, `auto-apply-modes-${width}.png`) });

          // A bad value, shown by its field.
          await page.getByLabel("Proposals a day").fill("500");
          await page.getByRole("button", { name: "Save limits" }).click();
          await page.locator("#proposalsPerDayError").waitFor();
          expect(await page.locator("#proposalsPerDayError").textContent()).toStartWith("Proposals a day");
          expect(await overflowsSideways(page), `refused limits at ${width}`).toBe(false);
          await page.locator("#proposalsPerDay").scrollIntoViewIfNeeded();
          await page.screenshot({ path: join(SHOTS, `auto-apply-error-${width}.png`) });

          await page.goto(`${base}/dashboard/review`);
          expect(await page.locator("nav .nav-count").textContent()).toBe("1");
          const mine = page.locator(".letters .letter-mine");
          const earlier = page.locator(".letters .letter-earlier");
          const [a, b] = [await mine.boundingBox(), await earlier.boundingBox()];
          // Side by side on a wide screen, one above the other on a phone.
          if (width > 600) expect(Math.abs(a!.y - b!.y)).toBeLessThan(5);
          else expect(b!.y).toBeGreaterThan(a!.y + a!.height - 1);
          expect(await page.locator(".letter-earlier").textContent()).toMatch(/\d+ % alike/);
          expect(await overflowsSideways(page), `review at ${width}`).toBe(false);
          expect(await axeProblems(page)).toEqual([]);
          await page.screenshot({ path: join(SHOTS, `review-${width}.png`), fullPage: true });

          await page.goto(`${base}/dashboard/audit`);
          const actions = await page.locator('td[data-label="Action"]').allTextContents();
          expect(actions).toEqual(expect.arrayContaining(["Sent", "Held for review", "Limits changed"]));
          expect(await overflowsSideways(page), `audit at ${width}`).toBe(false);
          expect(await axeProblems(page)).toEqual([]);
          await page.screenshot({ path: join(SHOTS, `audit-${width}.png`), fullPage: true });
          await context.close();
        }
      } finally {
        await browser?.close();
        await server?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
