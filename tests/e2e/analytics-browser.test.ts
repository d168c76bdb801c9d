import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { axeProblems, launchChromium, noBrowser, overflowsSideways, until } from "../helpers/browser";
import { postAdminJob, startKeyedServer, type ServerProcess } from "../helpers/process";

const SHOTS = join(import.meta.dir, "../../test-artifacts/analytics");
const ADMIN_TOKEN = "analytics-browser-admin-token";

// Issue 40 in a real browser: two proposals sent, "replied" recorded on a job page (htmx), and the Analytics page
// counting it; both pages at 1280 and 390 px, light and dark, axe-clean, nothing wider than a phone.
describe("analytics and outcomes in a browser (end to end)", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "record replied from the job page and the inbox panel, see the funnel move on the Analytics page; 390 px too",
    async () => {
      rmSync(SHOTS, { recursive: true, force: true });
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-analytics-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      let current: Page | undefined;
      const snap = async (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      try {
        const started = await startKeyedServer(join(dir, "analytics.db"), { JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN });
        server = started.server;
        const { key, api } = started;
        const base = server.url;
        browser = await launchChromium();
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
        context.setDefaultTimeout(8_000);
        const page = await context.newPage();
        current = page;
        await page.goto(`${base}/dashboard/sign-in`);
        await page.getByLabel("API key").fill(key!);
        await page.getByRole("button", { name: "Sign in with key" }).click();
        await page.waitForURL(`${base}/dashboard`);

        // A new account: the page says what will appear and when.
        await page.goto(`${base}/dashboard/analytics`);
        await page.getByRole("heading", { name: "Nothing to analyse yet" }).waitFor();
        expect(await axeProblems(page)).toEqual([]);
        await snap(page, "analytics-empty-1280-light");

        expect((await api("POST", "/api/v1/feeds", { title: "Data jobs", includes: ["python"], minScore: 0 })).status).toBe(201);
        const ciphers: string[] = [];
        for (const title of ["Python ETL pipeline", "Python scraper for prices"]) {
          ciphers.push(await postAdminJob(base, ADMIN_TOKEN, title));
        }
        for (const cipher of ciphers) {
          const applied = await api("POST", "/api/auto-apply-v2/apply", { jobId: cipher, coverLetter: "Hello, I have built this before." });
          expect(applied.status, JSON.stringify(applied.body)).toBe(200);
          await until("the application is sent", 20_000, async () => {
            const s = await api("GET", `/api/auto-apply-v2/status?queueId=${applied.body.queueId}`);
            return s.body.applicationStatus === "applied";
          });
        }

        // The Analytics page before any reply: two sent, none replied, every group too small for a rate.
        await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Analytics" }).click();
        await page.getByRole("heading", { level: 1, name: "Analytics" }).waitFor();
        expect(await page.locator("ul.stats").textContent()).toContain("2proposals sent");
        expect(await page.locator("#funnel-desc").textContent()).toContain("Replied 0");
        expect(await page.getByText("fewer than 10 sent — not enough to tell").count()).toBeGreaterThan(0);
        expect(await axeProblems(page)).toEqual([]);
        await snap(page, "analytics-1280-light");

        // The job page: the contract value appears only for a hire; recording "replied" swaps the section in place.
        await page.goto(`${base}/dashboard/jobs/${encodeURIComponent(ciphers[0]!)}`);
        const section = page.locator("#outcome");
        await section.waitFor();
        const value = section.getByLabel("Contract value (USD) (optional)");
        expect(await value.isVisible()).toBe(false);
        await section.getByLabel("Hired").check();
        expect(await value.isVisible()).toBe(true);
        expect(await section.locator("[data-time-zone-name]").textContent()).not.toBe("");
        expect(await axeProblems(page)).toEqual([]);
        await section.getByLabel("The client replied").check();
        expect(await value.isVisible()).toBe(false);
        await section.getByLabel("Note (optional)").fill("Asked for a call on Friday");
        await page.evaluate(() => ((globalThis as any).__sameDocument = true));
        await section.getByRole("button", { name: "Record" }).click();
        await page.locator("#outcome .notice").getByText("Recorded: the client replied.").waitFor();
        expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);
        expect(await page.locator("#outcome li.reached").allTextContents()).toEqual([
          expect.stringContaining("Sent"),
          expect.stringContaining("Viewed"),
          expect.stringContaining("Replied"),
        ]);
        expect(await page.locator("#outcome dl").textContent()).toContain("Asked for a call on Friday");
        // Backwards is refused next to the choice, in the form's words.
        await page.locator("#outcome").getByLabel("I withdrew").check();
        await page.locator("#outcome").getByRole("button", { name: "Record" }).click();
        await page.locator("#outcome .notice").getByText("Recorded: you withdrew.").waitFor();
        await page.locator("#outcome").getByLabel("The client replied").check();
        await page.locator("#outcome").getByRole("button", { name: "Record" }).click();
        const refusal = page.locator("#outcome-outcomeError");
        await refusal.waitFor();
        expect(await refusal.textContent()).toContain("would move it backwards");
        expect(await axeProblems(page)).toEqual([]);
        await snap(page, "job-outcome-1280-light");

        // The inbox's side panel carries the same section for the other job.
        await page.goto(`${base}/dashboard`);
        await page.locator("#cards article.card", { hasText: "Python scraper for prices" }).getByRole("link").first().click();
        const panelOutcome = page.locator("#panel #p-outcome");
        await panelOutcome.waitFor();
        await panelOutcome.getByLabel("Interview").check();
        await panelOutcome.getByRole("button", { name: "Record" }).click();
        await page.locator("#panel #p-outcome .notice").getByText("Recorded: an interview.").waitFor();
        expect(await axeProblems(page)).toEqual([]);
        await snap(page, "inbox-panel-outcome-1280-light");

        // The Analytics page counts both replies (an interview implies one) and the withdrawal.
        await page.goto(`${base}/dashboard/analytics`);
        expect(await page.locator("#funnel-desc").textContent()).toContain("Replied 2");
        expect(await page.locator("#funnel-desc").textContent()).toContain("Interview 1");
        await snap(page, "analytics-after-1280-light");
        await page.goto(`${base}/dashboard/applications`);
        await snap(page, "applications-1280-light");
        await context.close();

        for (const scheme of ["light", "dark"] as const) {
          const narrow = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: scheme });
          narrow.setDefaultTimeout(8_000);
          const p = await narrow.newPage();
          current = p;
          await p.goto(`${base}/dashboard/sign-in`);
          await p.getByLabel("API key").fill(key!);
          await p.getByRole("button", { name: "Sign in with key" }).click();
          await p.waitForURL(`${base}/dashboard`);
          for (const [path, name] of [
            ["/dashboard/analytics", "analytics"],
            ["/dashboard/analytics?range=7", "analytics-7-days"],
            [`/dashboard/jobs/${encodeURIComponent(ciphers[1]!)}#outcome`, "job-outcome"],
            ["/dashboard/applications", "applications"],
          ] as const) {
            await p.goto(`${base}${path}`);
            if (name === "analytics") for (const d of await p.locator("details.numbers").all()) await d.locator("summary").click();
            expect(await overflowsSideways(p), `${path} at 390 px (${scheme})`).toBe(false);
            expect(await axeProblems(p), `${path} at 390 px (${scheme})`).toEqual([]);
            await snap(p, `${name}-390-${scheme}`);
          }
          await narrow.close();
        }
      } catch (err) {
        if (current) {
          await snap(current, "failure").catch(() => {});
          console.error(`failed on ${current.url()}`);
        }
        throw err;
      } finally {
        await browser?.close().catch(() => {});
        if (server) expect(await server.stop()).toBe(0);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
