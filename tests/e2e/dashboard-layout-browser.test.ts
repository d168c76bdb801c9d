import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchChromium, noBrowser, until } from "../helpers/browser";
import { type FakeWebhookPlatform, startFakeSlack } from "../helpers/channel-fakes";
import { makeDoc } from "../helpers/factories";
import { startServer, type ServerProcess } from "../helpers/process";

const ADMIN_TOKEN = "layout-test-admin-token";
// Screenshots of every page at both widths, to look at as a user would; JOBPILOT_SHOTS_DIR puts them elsewhere.
const SHOTS = process.env.JOBPILOT_SHOTS_DIR ?? join(import.meta.dir, "../../test-artifacts/dashboard-layout");
const PHONE = 390;
const DESKTOP = 1280;

// The dashboard at a phone's width and a desktop's, in a real browser against `serve`: nothing scrolls
// sideways, the navigation folds into a menu, applications become cards, forms keep errors by their fields.
describe("dashboard layout in a browser (end to end)", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "at 390 px no page scrolls sideways and the nav is a closed menu; at 1280 px the links show; the channel form takes the browser's time zone",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-layout-"));
      let server: ServerProcess | undefined;
      let slack: FakeWebhookPlatform | undefined;
      let browser: Browser | undefined;
      try {
        slack = await startFakeSlack();
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "layout.db"),
          JOBPILOT_SOURCES: "none",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          JOBPILOT_SLACK_WEBHOOK_ORIGIN: slack.origin,
          JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "0",
          LOG_LEVEL: "warn",
        });
        const base = server.url;
        const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
        const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
          const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
          const text = await res.text();
          expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
          return JSON.parse(text);
        };
        // An agency with a second freelancer, so the applications page has its Freelancer column.
        const created = await call("POST", "/admin/accounts", admin, { name: "Nair & Chen Studio", kind: "agency", credits: 10 });
        const apiKey: string = created.apiKey;
        const key = { "x-api-key": apiKey, "content-type": "application/json" };
        const tomas = (await call("POST", `/admin/sandbox/accounts/${created.account.id}/freelancers`, admin, { name: "Tomás Silva" })).freelancer;
        const feed = (await call("POST", "/api/v1/feeds", key, { title: "Playwright and end-to-end testing contracts", minScore: 0, includes: ["playwright"] }))
          .feed;
        const titles = [
          "Playwright end-to-end tests for a server-rendered dashboard with internationalisation",
          "Senior Playwright engineer: migrate a Cypress suite of 400 specifications",
        ];
        const ciphertexts: string[] = [];
        for (const title of titles) {
          const doc = makeDoc({ title, skills: ["Playwright", "TypeScript"], hourly: [40, 80], publishTime: new Date(Date.now() - 60_000).toISOString() });
          ciphertexts.push((doc.jobTile as { job: { ciphertext: string } }).job.ciphertext);
          await call("POST", "/admin/jobs", admin, doc);
        }
        await call("POST", "/api/auto-apply-v2/apply", key, { jobId: ciphertexts[0], coverLetter: "Dear client,\n\nI write Playwright tests every day." });
        await call("POST", "/api/auto-apply-v2/apply", key, {
          jobId: ciphertexts[1],
          coverLetter: "Hello, Tomás here.",
          profileId: tomas.profiles[0].profileId,
        });
        const channel = (await call("POST", "/api/v1/channels", key, { type: "slack", name: "#leads", config: { webhookUrl: slack.webhookUrl } })).channel;

        browser = await launchChromium();
        const context = await browser.newContext({ viewport: { width: DESKTOP, height: 900 }, timezoneId: "America/New_York" });
        context.setDefaultTimeout(5_000);
        const page = await context.newPage();
        await page.goto(`${base}/dashboard/sign-in`);
        await page.getByLabel("API key").fill(apiKey);
        await page.getByRole("button", { name: "Sign in with key" }).click();
        await page.waitForURL(`${base}/dashboard`);
        await until("the pushed jobs in the feed", 10_000, async () => {
          await page.goto(`${base}/dashboard/feeds/${feed.id}`);
          return (await page.locator("#cards .card").count()) >= 2;
        });

        const pages: [name: string, path: string][] = [
          ["inbox", "/dashboard"],
          ["overview", "/dashboard/overview"],
          ["feeds", "/dashboard/feeds"],
          ["feed", `/dashboard/feeds/${feed.id}`],
          ["feed-form", `/dashboard/feeds/${feed.id}/edit`],
          ["job", `/dashboard/jobs/${encodeURIComponent(ciphertexts[0]!)}`],
          ["applications", "/dashboard/applications"],
          ["channels", "/dashboard/channels"],
          ["channel", `/dashboard/channels/${channel.id}`],
          ["channel-form", "/dashboard/channels/new?type=email"],
          ["keys", "/dashboard/keys"],
          ["revoke-key", `/dashboard/keys/${created.key.id}/revoke`],
        ];
        const overflow = (p: Page) => p.evaluate(() => (globalThis as any).document.scrollingElement.scrollWidth as number);
        for (const width of [DESKTOP, PHONE]) {
          await page.setViewportSize({ width, height: width === PHONE ? 844 : 900 });
          for (const [name, path] of pages) {
            await page.goto(`${base}${path}`);
            await page.waitForLoadState("load");
            await page.screenshot({ path: join(SHOTS, `layout-${name}-${width}.png`), fullPage: true });
            if (width === PHONE) expect(await overflow(page), `${name} scrolls sideways at ${PHONE} px`).toBeLessThanOrEqual(PHONE);
          }
        }

        // The phone's menu: closed on arrival (the links hidden), naming the current page; open, the links are a list.
        await page.goto(`${base}/dashboard/applications`);
        const nav = page.getByRole("navigation", { name: "Dashboard" });
        const menu = page.locator("details.menu summary");
        expect(await menu.textContent()).toBe("Menu · Applications");
        expect(await nav.isVisible()).toBe(false);
        await menu.click();
        expect(await nav.getByRole("link", { name: "Feeds" }).isVisible()).toBe(true);
        expect(await nav.locator('a[aria-current="page"]').textContent()).toBe("Applications");
        await page.screenshot({ path: join(SHOTS, `layout-menu-open-${PHONE}.png`), fullPage: true });
        // Applications as cards: the column headings are not shown, each cell says its column; who applied is there.
        expect(await page.locator("table.applications thead").evaluate((el) => el.getBoundingClientRect().height)).toBeLessThanOrEqual(1);
        const freelancerCell = page.locator('td[data-label="Freelancer"]', { hasText: "Tomás Silva" });
        expect(await freelancerCell.evaluate((td) => (globalThis as any).getComputedStyle(td, "::before").content as string)).toBe('"Freelancer: "');

        // A refused form at phone width: the message sits by its field, in the label's words.
        await page.goto(`${base}/dashboard/channels/new?type=email`);
        await page.getByLabel("Name").fill("Mail");
        await page.getByLabel("SMTP URL").fill("smtp://alerts:pw@192.168.1.20:25");
        await page.getByLabel("From", { exact: true }).fill("alerts@example.com");
        await page.getByLabel("To", { exact: true }).fill("me@example.com");
        await page.getByRole("button", { name: "Add channel" }).click();
        await page.waitForLoadState("load");
        expect(await page.locator("#config_smtpUrlError").textContent()).toContain("turn on “Allow a private-network address for this server”");
        expect(await overflow(page)).toBeLessThanOrEqual(PHONE);
        await page.screenshot({ path: join(SHOTS, `layout-channel-form-refused-${PHONE}.png`), fullPage: true });

        // At desktop width the links are there and the toggle is not.
        await page.setViewportSize({ width: DESKTOP, height: 900 });
        await page.goto(`${base}/dashboard/overview`);
        expect(await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Feeds" }).isVisible()).toBe(true);
        expect(await page.locator("details.menu").isVisible()).toBe(false);

        // The quiet hours' time zone starts as the browser's own on a new channel; a saved one is left alone.
        await page.goto(`${base}/dashboard/channels/new?type=slack`);
        expect(await page.getByLabel("Time zone").inputValue()).toBe("America/New_York");
        await call("PATCH", `/api/v1/channels/${channel.id}`, key, { quietHours: { from: "22:00", to: "07:00", timeZone: "Europe/Berlin" } });
        await page.goto(`${base}/dashboard/channels/${channel.id}/edit`);
        expect(await page.getByLabel("Time zone").inputValue()).toBe("Europe/Berlin");
      } finally {
        await browser?.close().catch(() => {});
        await slack?.close();
        if (server) expect(await server.stop()).toBe(0);
      }
    },
    90_000,
  );
});
