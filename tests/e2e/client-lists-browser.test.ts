import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { axeProblems, launchChromium, noBrowser, overflowsSideways, pageOpener, signInWithKey } from "../helpers/browser";
import { makeDoc } from "../helpers/factories";
import { serverClient, startServer, type ServerProcess } from "../helpers/process";

// Screenshots to look at as a user would (gitignored); JOBPILOT_SHOTS_DIR puts them elsewhere.
const SHOTS = process.env.JOBPILOT_SHOTS_DIR ?? join(import.meta.dir, "../../test-artifacts/client-lists");
const ADMIN_TOKEN = "client-lists-browser-admin-token";

/** `serve` on 127.0.0.2 (not loopback's usual address), with no job sources, on its own database file. */
const serveOnSecondAddress = (db: string) =>
  startServer([process.execPath, "run", "src/main.ts", "serve"], {
    JOBPILOT_DB: db,
    HOST: "127.0.0.2",
    JOBPILOT_SOURCES: "none",
    JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: "warn",
  });

// Issue 45 in a real browser, against `serve` on 127.0.0.2: a card's Block client, the favoured mark, the job page's
// client section, the Clients page and a feed's Filtered out page, at desktop and phone width, axe-clean and with
// no sideways scrolling.
describe("client lists in a browser", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "block a client from a card, see the favoured mark, the Clients page and the feed's filtered-out jobs",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-clients-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      let opener: ReturnType<typeof pageOpener> | undefined;
      const snap = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      try {
        server = await serveOnSecondAddress(join(dir, "clients.db"));
        const base = server.url;
        expect(base).toStartWith("http://127.0.0.2:");
        const { apiKey, api, postJob } = serverClient(server, ADMIN_TOKEN);
        const publishTime = new Date(Date.now() - 10 * 60_000).toISOString();
        const feed = await api("POST", "/api/v1/feeds", { title: "Rust work", minScore: 0 });
        expect(feed.status, JSON.stringify(feed.body)).toBe(201);
        const feedId = feed.body.feed.id as string;
        expect((await api("PUT", "/api/v1/client-lists/co-fav", { list: "favoured", reason: "Hired us three times" })).status).toBe(200);
        const favJob = await postJob(makeDoc({ title: "Rust CLI for a long-time client", companyId: "co-fav", fixed: 800, publishTime }));
        await postJob(makeDoc({ title: "Rust service for a client who never pays", companyId: "co-bad", fixed: 400, publishTime }));

        browser = await launchChromium();
        opener = pageOpener(browser);
        const { open } = opener;
        const desk = await open(1280);
        const page = desk.page;
        await signInWithKey(page, base, apiKey);

        // (a) The inbox: the favoured mark, and a card's Client… form opened.
        expect(await page.getByText("★ Favoured client").count()).toBe(1);
        const card = page.locator("article", { hasText: "who never pays" });
        await card.locator(".client-list summary").click();
        await card.getByLabel("Reason (optional)").fill("Never paid the last invoice");
        expect(await axeProblems(page)).toEqual([]);
        expect(await overflowsSideways(page)).toBe(false);
        await snap(page, "inbox-client-form-1280");
        await card.getByRole("button", { name: /^Block client/ }).click();
        await page.waitForURL(`${base}/dashboard`);
        expect((await api("GET", "/api/v1/client-lists?list=blocked")).body.clients).toMatchObject([
          { companyId: "co-bad", reason: "Never paid the last invoice" },
        ]);
        // Their next job is kept out of the feed.
        await postJob(makeDoc({ title: "Another Rust service from the same client", companyId: "co-bad", fixed: 300, publishTime }));

        const pages = [
          ["/dashboard", "inbox-marks"],
          [`/dashboard/jobs/${encodeURIComponent(favJob)}`, "job-client"],
          ["/dashboard/clients", "clients"],
          [`/dashboard/feeds/${feedId}`, "feed"],
          [`/dashboard/feeds/${feedId}/filtered`, "feed-filtered"],
        ] as const;
        for (const [path, name] of pages) {
          await page.goto(`${base}${path}`);
          expect(await axeProblems(page), name).toEqual([]);
          expect(await overflowsSideways(page), name).toBe(false);
          await snap(page, `${name}-1280`);
        }
        await page.goto(`${base}/dashboard/feeds/${feedId}/filtered`);
        expect(await page.locator("main").textContent()).toContain("Another Rust service from the same client");
        expect(await page.locator("main").textContent()).toContain("Blocked client: Never paid the last invoice");

        const phone = (await open(390, await desk.context.storageState())).page;
        for (const [path, name] of pages) {
          await phone.goto(`${base}${path}`);
          expect(await axeProblems(phone), name).toEqual([]);
          expect(await overflowsSideways(phone), name).toBe(false);
          await snap(phone, `${name}-390`);
        }
        await opener?.closeAll();
      } catch (err) {
        if (opener?.current) await snap(opener.current, "client-lists-failure").catch(() => {});
        throw err;
      } finally {
        await browser?.close();
        await server?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  // The signals (issue 45) as flags: a card whose text trips a scam rule and a repost of the same client's earlier
  // job, on the inbox and on the repost's job page (whose flag links to the earlier job), at both widths.
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "cards and the job page show a job's signals as flags",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-signals-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      let opener: ReturnType<typeof pageOpener> | undefined;
      const snap = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      try {
        server = await serveOnSecondAddress(join(dir, "signals.db"));
        const base = server.url;
        const { apiKey, api, postJob } = serverClient(server, ADMIN_TOKEN);
        // The default signalRules ({}) warn: every signal lets the job in with its flags.
        const feed = await api("POST", "/api/v1/feeds", { title: "Rust work", minScore: 0 });
        expect(feed.status, JSON.stringify(feed.body)).toBe(201);
        expect(feed.body.feed.signalRules ?? {}).toEqual({});
        const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
        const scam = await postJob(
          makeDoc({
            title: "Rust scraper for product prices",
            description:
              "Write a small Rust scraper that collects product prices from three shops every hour. Contact me on Telegram @rustboss for the details.",
            companyId: "co-scam",
            fixed: 300,
            publishTime: minutesAgo(30),
          }),
        );
        // The same client's job posted again five days later, near-identical: the later one is the repost.
        const description =
          "Build a command-line tool in Rust that reads the CSV exports of our billing system, checks every row against the schema, " +
          "reports the rows that fail with their line numbers and writes a short summary of totals per customer. Tests and a README are expected.";
        const earlier = await postJob(
          makeDoc({ title: "Rust CSV checker for billing exports", description, companyId: "co-repost", fixed: 600, publishTime: minutesAgo(5 * 24 * 60) }),
        );
        const repost = await postJob(
          makeDoc({ title: "Rust CSV checker for our billing exports", description, companyId: "co-repost", fixed: 600, publishTime: minutesAgo(10) }),
        );
        const signals = (await api("GET", `/api/v1/jobs/${encodeURIComponent(repost)}`)).body.signals;
        expect(signals, JSON.stringify(signals)).toMatchObject([{ id: "repost", earlier: { ciphertext: earlier } }]);
        expect((await api("GET", `/api/v1/jobs/${encodeURIComponent(scam)}`)).body.signals).toMatchObject([{ id: "scam", rule: "off-platform" }]);

        browser = await launchChromium();
        opener = pageOpener(browser);
        const { open } = opener;
        const desk = await open(1280);
        await signInWithKey(desk.page, base, apiKey);
        const phone = await open(390, await desk.context.storageState());
        const earlierPath = `/dashboard/jobs/${encodeURIComponent(earlier)}`;

        for (const [page, width] of [
          [desk.page, 1280],
          [phone.page, 390],
        ] as const) {
          opener.use(page);
          await page.goto(`${base}/dashboard`);
          const scamFlag = page.locator("article", { hasText: "Rust scraper for product prices" }).locator(".signal-flags li");
          expect(await scamFlag.allTextContents()).toEqual(["⚠ Scam risk: asks to talk off the platform"]);
          expect(await scamFlag.isVisible()).toBe(true);
          const repostFlag = page.locator("article", { hasText: "Rust CSV checker for our billing exports" }).locator(".signal-flags li");
          expect(await repostFlag.count()).toBe(1);
          expect(await repostFlag.textContent()).toStartWith("⚠ Reposted: near-identical to a job of ");
          expect(await repostFlag.isVisible()).toBe(true);
          expect(await repostFlag.getByRole("link", { name: "the earlier job" }).getAttribute("href")).toBe(earlierPath);
          // The earlier job itself carries no flag.
          expect(await page.locator("article", { hasText: "Rust CSV checker for billing exports" }).locator(".signal-flags").count()).toBe(0);
          expect(await axeProblems(page), `inbox ${width}`).toEqual([]);
          expect(await overflowsSideways(page), `inbox ${width}`).toBe(false);
          await snap(page, `inbox-signals-${width}`);

          await page.goto(`${base}/dashboard/jobs/${encodeURIComponent(repost)}`);
          const flag = page.locator("main .signal-flags li");
          expect(await flag.textContent()).toStartWith("⚠ Reposted: near-identical to a job of ");
          expect(await flag.isVisible()).toBe(true);
          expect(await flag.getByRole("link", { name: "the earlier job" }).getAttribute("href")).toBe(earlierPath);
          expect(await axeProblems(page), `job ${width}`).toEqual([]);
          expect(await overflowsSideways(page), `job ${width}`).toBe(false);
          await snap(page, `job-signals-${width}`);
        }
        // The flag's link opens the earlier job.
        await phone.page.getByRole("link", { name: "the earlier job" }).click();
        await phone.page.waitForURL(`${base}${earlierPath}`);
        expect(await phone.page.locator("h1").textContent()).toContain("Rust CSV checker for billing exports");
        await opener?.closeAll();
      } catch (err) {
        if (opener?.current) await snap(opener.current, "signals-failure").catch(() => {});
        throw err;
      } finally {
        await browser?.close();
        await server?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
