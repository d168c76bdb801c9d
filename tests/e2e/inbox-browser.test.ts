import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { axeProblems, launchChromium, noBrowser, overflowsSideways, until } from "../helpers/browser";
import { makeDoc } from "../helpers/factories";
import { startServer, type ServerProcess } from "../helpers/process";

const SHOTS = join(import.meta.dir, "../../test-artifacts/inbox");
const ADMIN_TOKEN = "inbox-browser-admin-token";

// The flow in a real browser: new matches from two feeds to a sent proposal, at 1280 and 390 px, light and dark.
describe("inbox in a browser (end to end)", () => {
  // Skipped only off CI on a machine without /usr/bin/chromium (see noBrowser); .ci/run installs it.
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "sign in, triage matches from two feeds by keyboard, a live new match, draft and apply from the panel; at 390 px too; axe finds nothing serious",
    async () => {
      rmSync(SHOTS, { recursive: true, force: true });
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-inbox-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      let current: Page | undefined;
      const snap = async (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      try {
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "inbox.db"),
          JOBPILOT_SOURCES: "none",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "1500",
          LOG_LEVEL: "warn",
        });
        const base = server.url;
        const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())?.[1];
        expect(key, server.output()).toBeDefined();
        const api = (path: string, body: unknown) =>
          fetch(`${base}${path}`, { method: "POST", headers: { "x-api-key": key!, "content-type": "application/json" }, body: JSON.stringify(body) });
        const push = async (over: Parameters<typeof makeDoc>[0]) => {
          const doc = makeDoc({ publishTime: new Date(Date.now() - 60_000).toISOString(), ...over });
          const res = await fetch(`${base}/admin/jobs`, {
            method: "POST",
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
            body: JSON.stringify(doc),
          });
          expect(res.status, await res.clone().text()).toBeLessThan(300);
        };
        for (const feed of [
          { title: "Browser tests", includes: ["playwright"], minScore: 0 },
          { title: "Mobile apps", includes: ["kotlin"], minScore: 0 },
        ]) {
          const res = await api("/api/v1/feeds", feed);
          expect(res.status, await res.clone().text()).toBe(201);
        }
        await push({ title: "Playwright suite for a web shop", skills: ["Playwright"], hourly: [45, 90], country: "Germany" });
        await push({ title: "Kotlin Android app", skills: ["Kotlin"], fixed: 1500, country: "United States", questions: ["Which apps did you ship?"] });
        await push({ title: "Playwright visual tests", skills: ["Playwright", "TypeScript"], fixed: 600, country: "Canada" });

        browser = await launchChromium();
        const open = async (width: number, colorScheme: "light" | "dark"): Promise<{ context: BrowserContext; page: Page }> => {
          const context = await browser!.newContext({ viewport: { width, height: width > 600 ? 900 : 844 }, colorScheme });
          context.setDefaultTimeout(8_000);
          const page = await context.newPage();
          current = page;
          return { context, page };
        };

        // (a) Sign in: the inbox is the landing page, with cards from both feeds and their badges.
        const { context: wideContext, page } = await open(1280, "light");
        await page.goto(`${base}/dashboard`);
        await page.getByLabel("API key").fill(key!);
        await page.getByRole("button", { name: "Sign in with key" }).click();
        await page.waitForURL(`${base}/dashboard`);
        await page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
        const cards = page.locator("#cards article.card");
        await until("three cards", 10_000, async () => {
          if ((await cards.count()) === 3) return true;
          await page.reload();
          return false;
        });
        const text = (await page.locator("#cards").textContent()) ?? "";
        for (const expected of ["Browser tests", "Mobile apps", "Match 5/10", "Fixed price", "Hourly", "Payment verified", "Germany"])
          expect(text).toContain(expected);
        expect(await page.title()).toBe("(3) Inbox · jobpilot");
        expect(await page.locator('nav[aria-label="Dashboard"] a[aria-current="page"]').textContent()).toBe("Inbox");
        expect(await axeProblems(page)).toEqual([]);
        await snap(page, "inbox-1280-light");

        // (b) Filters: by feed, then by score.
        await page.getByLabel("Feed").selectOption({ label: "Mobile apps" });
        await page.getByRole("button", { name: "Filter" }).click();
        await page.waitForURL(/feed=/);
        expect(await cards.count()).toBe(1);
        expect(await cards.first().textContent()).toContain("Kotlin Android app");
        await page.getByLabel("Feed").selectOption({ label: "All feeds" });
        await page.getByLabel("Score at least").fill("6");
        await page.getByRole("button", { name: "Filter" }).click();
        await page.waitForURL(/min=6/);
        expect(await cards.count()).toBe(0);
        await snap(page, "inbox-filtered-1280-light");
        await page.goto(`${base}/dashboard`);

        // (c) Keyboard triage: j selects, o opens the panel (no reload), s stars, x dismisses.
        await page.evaluate(() => ((globalThis as any).__sameDocument = true));
        await page.keyboard.press("j");
        await page.keyboard.press("j");
        const second = page.locator("#cards article.card.selected");
        expect(await second.locator("h2").textContent()).toContain("Kotlin Android app");
        await page.keyboard.press("o");
        await page.locator("#panel-title").waitFor();
        expect(await page.locator("#panel-title").textContent()).toBe("Kotlin Android app");
        // Opening it read it: the count and the tab title follow with the panel, not at the next poll (every 5 s).
        await until("the unread count to drop as the panel opens", 1_500, async () => (await page.locator("#unread-count").textContent()) === "2 unread");
        expect(await page.title()).toBe("(2) Inbox · jobpilot");
        expect(await second.locator(".unread-badge").count()).toBe(0);
        expect(await second.getByRole("button", { name: "Mark unread: Kotlin Android app" }).count()).toBe(1);
        expect(await page.locator("#panel svg[role=img], #panel .muted").count()).toBeGreaterThan(0);
        expect(await axeProblems(page)).toEqual([]);
        await snap(page, "panel-1280-light");
        await page.locator("#cards").click({ position: { x: 5, y: 5 } }); // focus back on the list, off the panel's fields
        await page.keyboard.press("s");
        await page.getByRole("button", { name: "Unstar: Kotlin Android app" }).waitFor();
        await page.keyboard.press("x");
        await page.locator("#cards").getByText("Dismissed:").waitFor();
        expect(await page.evaluate(() => (globalThis as any).__sameDocument === true)).toBe(true);
        await page.keyboard.press("?");
        expect(await page.locator("#keys-help").getAttribute("open")).not.toBeNull();
        await snap(page, "triaged-1280-light");

        // (d) Live: a job ingested while the page is open shows as "1 new"; clicking inserts it at the top.
        await push({ title: "Playwright flaky test fixes", skills: ["Playwright"], hourly: [50, 70], country: "France" });
        const badge = page.getByRole("button", { name: "1 new" });
        await badge.waitFor({ timeout: 15_000 });
        await snap(page, "new-badge-1280-light");
        await badge.click();
        await until("the new card on top", 5_000, async () => ((await cards.first().textContent()) ?? "").includes("Playwright flaky test fixes"));
        await until("the tab title to count it", 10_000, async () => /^\(\d+\) Inbox/.test(await page.title()));

        // (e) Draft and apply from the panel, for a job with no questions: open, d, a — three actions.
        await cards.filter({ hasText: "Playwright suite for a web shop" }).getByRole("link", { name: "Playwright suite for a web shop" }).click();
        await page.locator("#panel-title", { hasText: "Playwright suite for a web shop" }).waitFor();
        expect(await page.locator("#panel-title").textContent()).toBe("Playwright suite for a web shop");
        expect(await page.locator("#panel").getByLabel("Hourly rate (USD)").inputValue()).toBe("45");
        expect(await page.locator("#panel").getByLabel("Fixed bid (USD)").count()).toBe(0);
        await page.locator("#panel-title").focus();
        // The stages of writing are shown as the server starts each (recorded here: the local writer is quick).
        await page.evaluate(() => {
          const g = globalThis as any;
          g.__stages = [];
          new g.MutationObserver((records: any[]) => {
            for (const r of records)
              for (const n of r.addedNodes) if (n.nodeName === "LI" && n.parentNode?.classList?.contains("stages")) g.__stages.push(n.textContent);
          }).observe(g.document.body, { childList: true, subtree: true });
        });
        await page.keyboard.press("d");
        await page.locator("#panel").getByText("Proposal written").waitFor({ timeout: 15_000 });
        // Finished stages carry the time they took.
        const stages: string[] = await page.evaluate(() => (globalThis as any).__stages);
        expect(stages).toHaveLength(3);
        expect(stages[0]).toMatch(/^Reading the job — \d+\.\d s$/);
        expect(stages[1]).toMatch(/^Reading your freelancer profile — \d+\.\d s$/);
        expect(stages[2]).toStartWith("Writing the letter with the local writer");
        expect((await page.locator("#p-coverLetter").inputValue()).length).toBeGreaterThan(50);
        await snap(page, "panel-drafted-1280-light");
        await page.locator("#panel-title").focus();
        // `a` asks before it sends (tests/e2e/agency-browser.test.ts walks through cancelling it).
        await page.keyboard.press("a");
        await page.locator("#panel").getByRole("button", { name: "Send application" }).click();
        await page.locator("#panel .app-status").waitFor();
        await until("the application to be applied in place", 20_000, async () =>
          ((await page.locator("#panel .app-status").textContent()) ?? "").includes("Applied"),
        );
        const card = cards.filter({ hasText: "Playwright suite for a web shop" });
        await until("the card's status", 10_000, async () => ((await card.locator(".badges").textContent()) ?? "").includes("Applied"));
        expect(await page.evaluate(() => (globalThis as any).__sameDocument === true)).toBe(true);
        await snap(page, "applied-1280-light");

        // (f) A job with a screening question: an empty answer is refused next to it.
        await page.goto(`${base}/dashboard?show=dismissed`);
        await cards.first().getByRole("button", { name: /^Undo/ }).click();
        await page.goto(`${base}/dashboard?show=all`);
        await cards.filter({ hasText: "Kotlin Android app" }).getByRole("link", { name: "Kotlin Android app" }).click();
        await page.locator("#panel-title").waitFor();
        await page.locator("#p-coverLetter").fill("I can build it.");
        await page.locator("#panel").getByRole("button", { name: "Apply" }).click();
        await page.locator("#p-answer_0Error").waitFor();
        expect(await page.locator("#p-answer_0Error").textContent()).toBe("Answer question 1 before applying.");
        await snap(page, "panel-missing-answer-1280-light");

        // (g) The feed page leads with its jobs.
        await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Feeds" }).click();
        await page.getByRole("link", { name: "Browser tests" }).click();
        await page.getByRole("heading", { name: "Matched jobs" }).waitFor();
        // …as the inbox's cards, triaged in place and opened into the same side panel.
        const feedCards = page.locator("#cards article.card");
        expect(await feedCards.count()).toBe(3);
        await page.evaluate(() => ((globalThis as any).__sameDocument = true));
        const visual = feedCards.filter({ hasText: "Playwright visual tests" });
        expect(await visual.locator(".unread-badge").count()).toBe(1);
        await visual.getByRole("button", { name: "Star: Playwright visual tests" }).click();
        await page.getByRole("button", { name: "Unstar: Playwright visual tests" }).waitFor();
        const unreadBefore = Number(await page.locator("#unread-count").getAttribute("data-unread"));
        expect(await page.title()).toBe(`(${unreadBefore}) Browser tests · jobpilot`);
        await visual.getByRole("link", { name: "Playwright visual tests" }).click();
        await page.locator("#panel-title").waitFor();
        await until(
          "the feed page's unread count to drop as the panel opens",
          1_500,
          async () => (await page.locator("#unread-count").getAttribute("data-unread")) === String(unreadBefore - 1),
        );
        expect(await page.title()).toBe(unreadBefore - 1 > 0 ? `(${unreadBefore - 1}) Browser tests · jobpilot` : "Browser tests · jobpilot");
        expect(await page.locator("#panel svg[role=img]").count()).toBeGreaterThan(0);
        expect(await page.evaluate(() => (globalThis as any).__sameDocument === true)).toBe(true);
        expect(await axeProblems(page)).toEqual([]);
        await snap(page, "feed-panel-1280-light");
        await page.keyboard.press("Escape");
        expect(await axeProblems(page)).toEqual([]);
        await snap(page, "feed-1280-light");
        const feedUrl = page.url();
        const cookies = await wideContext.cookies();
        await wideContext.close();

        // (h) Dark, at 1280: the same pages.
        const dark = await open(1280, "dark");
        await dark.context.addCookies(cookies);
        await dark.page.goto(`${base}/dashboard?show=all`);
        expect(await axeProblems(dark.page)).toEqual([]);
        await snap(dark.page, "inbox-1280-dark");
        await dark.page.locator("#cards article.card a.open").first().click();
        await dark.page.locator("#panel-title").waitFor();
        expect(await axeProblems(dark.page)).toEqual([]);
        await snap(dark.page, "panel-1280-dark");
        await dark.page.goto(feedUrl);
        await snap(dark.page, "feed-1280-dark");
        await dark.context.close();

        // (i) 390 px, light and dark: no sideways scrolling; the panel covers the list like a page; apply works there too.
        for (const scheme of ["light", "dark"] as const) {
          const narrow = await open(390, scheme);
          await narrow.context.addCookies(cookies);
          const p = narrow.page;
          for (const path of ["/dashboard?show=all", "/dashboard/overview", feedUrl.slice(base.length), "/dashboard/applications"]) {
            await p.goto(`${base}${path}`);
            expect(await overflowsSideways(p), `${path} at 390 px (${scheme})`).toBe(false);
          }
          await p.goto(`${base}/dashboard?show=all`);
          await snap(p, `inbox-390-${scheme}`);
          const target = p.locator("#cards article.card").filter({ hasText: "Playwright visual tests" });
          await target.getByRole("link", { name: "Playwright visual tests" }).click();
          await p.locator("#panel-title").waitFor();
          expect(await p.locator("#panel").isVisible()).toBe(true);
          expect(await overflowsSideways(p)).toBe(false);
          if (scheme === "light") {
            expect(await axeProblems(p)).toEqual([]);
            await p.locator("#panel").getByRole("button", { name: "Generate a proposal" }).click();
            await p.locator("#panel").getByText("Proposal written").waitFor({ timeout: 15_000 });
            await snap(p, "panel-drafted-390-light");
            await p.locator("#panel").getByRole("button", { name: "Apply" }).click();
            await until("the application at 390 px", 20_000, async () => ((await p.locator("#panel .app-status").textContent()) ?? "").includes("Applied"));
          }
          await snap(p, `panel-390-${scheme}`);
          await p.keyboard.press("Escape");
          await p.goto(feedUrl);
          await snap(p, `feed-390-${scheme}`);
          await narrow.context.close();
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
