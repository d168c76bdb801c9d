import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { launchChromium, noBrowser, until } from "../helpers/browser";
import { makeDoc } from "../helpers/factories";
import { startServer, type ServerProcess } from "../helpers/process";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { type FakeNtfy, type FakeWebhookPlatform, startFakeNtfy, startFakeSlack } from "../helpers/channel-fakes";

const SHOTS = join(import.meta.dir, "../../test-artifacts/dashboard");
const ADMIN_TOKEN = "browser-test-admin-token";

// A user's walk through the server-rendered dashboard in a real browser, against `serve` as a child process.
describe("dashboard in a browser (end to end)", () => {
  // Skipped only off CI on a machine without /usr/bin/chromium (see noBrowser); .ci/run installs it.
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "sign in, create a feed, see a pushed job, write a proposal, apply, add channels and test them, rotate keys",
    async () => {
      rmSync(SHOTS, { recursive: true, force: true }); // no stale screenshots from an earlier run
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-browser-"));
      let shot = 0;
      /** Clicks a form's submit button and waits for the page the POST answers with to finish loading. */
      const submit = async (page: Page, button: Locator) => {
        const navigated = page.waitForEvent("framenavigated", { timeout: 10_000 });
        await button.click();
        await navigated;
        await page.waitForLoadState("load");
      };
      const snap = async (page: Page, name: string) => {
        await page.screenshot({ path: join(SHOTS, `${String(++shot).padStart(2, "0")}-${name}.png`), fullPage: true });
      };

      let server: ServerProcess | undefined;
      let receiver: WebhookReceiver | undefined;
      let slack: FakeWebhookPlatform | undefined;
      let ntfy: FakeNtfy | undefined;
      let browser: Browser | undefined;
      let opened: Page | undefined; // for the failure screenshot
      try {
        receiver = await startWebhookReceiver();
        [slack, ntfy] = await Promise.all([startFakeSlack(), startFakeNtfy()]);
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "browser.db"),
          JOBPILOT_SOURCES: "none",
          JOBPILOT_WEBHOOK_ALLOW_PRIVATE: "true",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          // Slack's webhooks are a local fake here (test-only setting); ntfy's server is user-chosen anyway.
          JOBPILOT_SLACK_WEBHOOK_ORIGIN: slack.origin,
          // Long enough that the applications page first shows the submission still in flight.
          JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "2000",
          LOG_LEVEL: "warn",
        });
        const base = server.url;
        const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())?.[1];
        expect(key, server.output()).toBeDefined();

        browser = await launchChromium();
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        context.setDefaultTimeout(5_000);
        context.setDefaultNavigationTimeout(10_000);
        const page = await context.newPage();
        opened = page;

        // (a) Signing in: the dashboard sends an anonymous visitor to the sign-in page; typing the key gets in.
        await page.goto(`${base}/dashboard`);
        expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
        await snap(page, "sign-in");
        await page.getByLabel("API key").fill(key!);
        await submit(page, page.getByRole("button", { name: "Sign in with key" }));
        await page.waitForURL(`${base}/dashboard`);
        await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBeTruthy();
        await expect(page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Feeds" }).isVisible()).resolves.toBe(true);
        await snap(page, "overview");

        // (b) A feed with a webhook: its signing secret is shown once, then only masked.
        await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Feeds" }).click();
        await page.waitForURL(`${base}/dashboard/feeds`);
        await snap(page, "feeds");
        await page.getByRole("link", { name: "New feed" }).click();
        await page.waitForURL(`${base}/dashboard/feeds/new`);
        await page.getByLabel("Title").fill("Browser test feed");
        await page.getByLabel("Minimum score").fill("0");
        await page.getByLabel("Include keywords").fill("playwright");
        await page.getByLabel("Webhook URL").fill(receiver.url);
        await snap(page, "feed-new");
        await submit(page, page.getByRole("button", { name: "Create feed" }));
        const secretNotice = page.getByRole("status");
        await expect(secretNotice.textContent()).resolves.toContain("will not be shown again");
        const secret = (await page.locator("code.secret").textContent())?.trim() ?? "";
        expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
        await snap(page, "feed-secret");
        await page.getByRole("link", { name: "Go to the feed" }).click();
        await page.waitForURL(/\/dashboard\/feeds\/[^/]+$/);
        const feedHtml = await page.content();
        expect(feedHtml).not.toContain(secret);
        expect(feedHtml).toContain(`whsec_…${secret.slice(-4)}`);
        await snap(page, "feed-detail-empty");

        // (c) A matching job pushed through the admin API shows up in the feed (and reaches the webhook).
        const doc = makeDoc({
          title: "Playwright end-to-end tests for a dashboard",
          description: "We need someone to write Playwright browser tests for our server-rendered dashboard.",
          skills: ["Playwright", "TypeScript"],
          hourly: [40, 80],
          // The sandbox marketplace refuses postings older than 30 days.
          publishTime: new Date(Date.now() - 60_000).toISOString(),
        });
        const ciphertext = (doc.jobTile as any).job.ciphertext as string;
        const pushed = await fetch(`${base}/admin/jobs`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify(doc),
        });
        expect(pushed.status, await pushed.clone().text()).toBeLessThan(300);
        // The feed page shows its matches as the inbox's cards; the title opens the side panel.
        const details = page.locator("#cards").getByRole("link", { name: "Playwright end-to-end tests for a dashboard" });
        await until("the pushed job in the feed", 10_000, async () => {
          await page.reload();
          return (await details.count()) > 0;
        });
        await snap(page, "feed-detail-job");
        await receiver.waitFor(1, 10_000);

        // htmx: "Star" updates the card in place; the page is not reloaded (a marker on window survives).
        await page.evaluate(() => ((globalThis as any).__sameDocument = true));
        await page.getByRole("button", { name: "Star: Playwright end-to-end tests for a dashboard" }).click();
        await page.getByRole("button", { name: "Unstar: Playwright end-to-end tests for a dashboard" }).waitFor({ timeout: 5_000 });
        expect(await page.evaluate(() => (globalThis as any).__sameDocument === true)).toBe(true);
        await snap(page, "feed-detail-starred");

        // (d) The job page: a proposal from the local writer fills the cover letter; applying lands on applications.
        await page.goto(`${base}/dashboard/jobs/${encodeURIComponent(ciphertext)}`);
        await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toContain("Playwright end-to-end tests");
        await snap(page, "job");
        // The app script posts the proposal form and shows its stages, then the page with the letter (no navigation).
        await page.getByRole("button", { name: "Generate a proposal" }).click();
        await page.getByText("Proposal written").waitFor({ timeout: 15_000 });
        const letter = await page.getByLabel("Cover letter").inputValue();
        expect(letter.length).toBeGreaterThan(50);
        await snap(page, "job-proposal");
        await submit(page, page.getByRole("button", { name: "Apply", exact: true }));
        await page.waitForURL(`${base}/dashboard/applications`);
        const row = page.getByRole("row").filter({ hasText: "Playwright end-to-end tests" });
        const badge = row.locator(".badge");
        expect(["queued", "processing"]).toContain((await badge.textContent())?.trim() ?? "");
        // While anything is in flight the page refreshes itself every 5 s.
        expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(1);
        await snap(page, "applications-pending");
        await until("the application to be applied", 15_000, async () => {
          if ((await badge.textContent())?.trim() === "applied") return true;
          await page.reload();
          return (await badge.textContent())?.trim() === "applied";
        });
        await snap(page, "applications-applied");
        // The dashboard script shows times relative, in the browser's language, with the exact time on hover.
        const applied = page.locator("td time").first();
        expect(await applied.textContent()).not.toMatch(/^\d{4}-\d{2}-\d{2}/);
        expect(await applied.getAttribute("title")).toBeTruthy();

        // (e) Channels: add a Slack and an ntfy channel pointed at local fakes, press "Send test" on each, tick one on the feed.
        const nav = page.getByRole("navigation", { name: "Dashboard" });
        await nav.getByRole("link", { name: "Channels" }).click();
        await page.waitForURL(`${base}/dashboard/channels`);
        await expect(page.getByText("No channels yet").isVisible()).resolves.toBe(true);
        await snap(page, "channels-empty");
        await page.getByRole("link", { name: "Add a Slack channel" }).click();
        await page.getByLabel("Name").fill("#leads");
        await page.getByLabel("Webhook URL").fill(slack.webhookUrl);
        await snap(page, "channel-new-slack");
        await submit(page, page.getByRole("button", { name: "Add channel" }));
        await page.waitForURL(/\/dashboard\/channels\/[^/]+$/);
        expect(await page.content()).not.toContain(slack.webhookUrl);
        await submit(page, page.getByRole("button", { name: "Send test" }));
        await expect(page.getByRole("status").textContent()).resolves.toContain("Test alert sent");
        expect(slack.received).toHaveLength(1);
        expect(JSON.stringify(slack.received[0]!.body)).toContain("blocks");
        await snap(page, "channel-slack-tested");

        await nav.getByRole("link", { name: "Channels" }).click();
        await page.getByRole("link", { name: "Add a ntfy channel" }).click();
        await page.getByLabel("Name").fill("Phone");
        await page.getByLabel("Server URL").fill(ntfy.url);
        await page.getByLabel("Topic").fill("jobpilot-browser-test");
        await page.getByLabel("Mode").selectOption("digest");
        await page.getByLabel("Digest every").selectOption("15m");
        await submit(page, page.getByRole("button", { name: "Add channel" }));
        await expect(page.getByText("a digest every 15m").isVisible()).resolves.toBe(true);
        await submit(page, page.getByRole("button", { name: "Send test" }));
        await expect(page.getByRole("status").textContent()).resolves.toContain("Test alert sent");
        expect(ntfy.received).toHaveLength(1);
        expect(ntfy.received[0]!.body).toMatchObject({ topic: "jobpilot-browser-test" });
        await snap(page, "channel-ntfy-tested");
        await nav.getByRole("link", { name: "Channels" }).click();
        expect(await page.getByRole("row").count()).toBe(3); // the header and the two channels
        await snap(page, "channels");

        await nav.getByRole("link", { name: "Feeds" }).click();
        await page.getByRole("link", { name: "Browser test feed" }).click();
        await page.getByRole("link", { name: "Edit" }).click();
        await page.getByLabel("#leads (slack)").check();
        await submit(page, page.getByRole("button", { name: "Save changes" }));
        await page.waitForURL(/\/dashboard\/feeds\/[^/]+$/);
        await expect(page.getByRole("link", { name: "#leads" }).isVisible()).resolves.toBe(true);
        await snap(page, "feed-with-channel");

        // (f) Keys: create a second key, revoke the one we signed in with; the session ends and the API refuses it.
        await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "API keys" }).click();
        await page.waitForURL(`${base}/dashboard/keys`);
        await snap(page, "keys");
        await page.getByLabel("Label").fill("second");
        await submit(page, page.getByRole("button", { name: "Create key" }));
        await expect(page.getByRole("status").textContent()).resolves.toContain("will not be shown again");
        const second = (await page.locator("code.secret").textContent())?.trim() ?? "";
        expect(second).toMatch(/^jp_live_\w+$/);
        await snap(page, "keys-created");
        // The new key's Copy button only appears with the script (hidden without JavaScript).
        expect(await page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
        // Our own key's row is the one whose shown prefix the key starts with; its Revoke button names it.
        const keyRows = page.getByRole("row").filter({ has: page.getByRole("button", { name: /^Revoke key / }) });
        expect(await keyRows.count()).toBe(2);
        let mine: string | undefined;
        for (const r of await keyRows.all()) {
          const prefix = (await r.locator("code").textContent())?.replace(/…$/, "").trim() ?? "";
          if (prefix && key!.startsWith(prefix)) {
            const name = await r.getByRole("button").getAttribute("aria-label");
            if (name !== "Revoke key second") mine = name ?? undefined;
          }
        }
        expect(mine).toBeDefined();
        // The row's button only asks: the confirmation says this is the key we are signed in with.
        await submit(page, page.getByRole("button", { name: mine!, exact: true }));
        await expect(page.getByRole("alert").textContent()).resolves.toContain("This is the key you are signed in with.");
        await snap(page, "keys-revoke-confirm");
        await submit(page, page.getByRole("button", { name: /^Revoke key / }));
        await snap(page, "keys-revoked");
        await page.goto(`${base}/dashboard/feeds`);
        expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
        await expect(page.getByLabel("API key").isVisible()).resolves.toBe(true);
        await snap(page, "signed-out");

        const revoked = await fetch(`${base}/api/v1/feeds`, { headers: { "x-api-key": key! } });
        expect(revoked.status).toBe(401);
        const fresh = await fetch(`${base}/api/v1/feeds`, { headers: { "x-api-key": second } });
        expect(fresh.status).toBe(200);
      } catch (err) {
        // Leave the page the test stopped on next to the others, and say where it was.
        if (opened) {
          await snap(opened, "failure").catch(() => {});
          console.error(
            `failed on ${opened.url()}:\n${await opened
              .locator("body")
              .textContent()
              .catch(() => "")}`,
          );
        }
        throw err;
      } finally {
        await browser?.close().catch(() => {});
        await receiver?.close();
        await slack?.close();
        await ntfy?.close();
        if (server) expect(await server.stop()).toBe(0);
      }
    },
    60_000,
  );
});
