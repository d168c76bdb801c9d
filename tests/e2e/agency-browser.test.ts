import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchChromium, noBrowser, overflowsSideways, until } from "../helpers/browser";
import { makeDoc } from "../helpers/factories";
import { runCommand, startServer, type ServerProcess } from "../helpers/process";

// Screenshots to look at as a user would (gitignored); JOBPILOT_SHOTS_DIR puts them elsewhere.
const SHOTS = process.env.JOBPILOT_SHOTS_DIR ?? join(import.meta.dir, "../../test-artifacts/agency");
const ADMIN_TOKEN = "agency-browser-admin-token";

// Issue 37: an agency owner picked one freelancer and the proposal went out as another. In a real browser, with
// the keyboard: the picked specialization is the one the letter introduces, the dashboard records and the
// marketplace receives, and the `a` shortcut asks before it sends.
describe("an agency applies as the freelancer it picked (end to end)", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "three freelancers; pick the second one's specialization in the panel, draft, apply through the confirmation",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-agency-"));
      const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", JOBPILOT_DB: join(dir, "agency.db"), LOG_LEVEL: "warn" };
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      let current: Page | undefined;
      const snap = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      /** The panel's apply form scrolled to the top of the view, as a reader sees it there. */
      const formInView = async (page: Page, name: string) => {
        await page.locator('#panel label[for="p-profileId"]').evaluate((el: any) => el.scrollIntoView({ block: "start" }));
        await page.screenshot({ path: join(SHOTS, `${name}.png`) });
      };
      try {
        const created = await runCommand(
          [process.execPath, "run", "src/main.ts", "account", "create", "--name", "Nair & Chen Studio", "--kind", "agency", "--credits", "5", "--json"],
          env,
        );
        expect(created.code, created.stderr).toBe(0);
        const { accountId, apiKey } = JSON.parse(created.stdout) as { accountId: string; apiKey: string };
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          ...env,
          JOBPILOT_SOURCES: "none",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "500",
        });
        const base = server.url;
        const call = async (method: string, path: string, body?: unknown, admin = false) => {
          const auth: Record<string, string> = admin ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { "x-api-key": apiKey };
          const res = await fetch(`${base}${path}`, {
            method,
            headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          return { status: res.status, body: (await res.json()) as any };
        };

        // The agency's own freelancer (its primary, the default before the fix) and two more, each with a specialization.
        for (const [name, profile] of [
          ["Priya Nair", "Data Pipeline Engineer"],
          ["Tomás Silva", "iOS Developer"],
        ] as const) {
          const res = await call("POST", `/admin/sandbox/accounts/${accountId}/freelancers`, { name, profiles: [{ name: profile }], connects: 200 }, true);
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          await Bun.sleep(5); // listed by age
        }
        const listed = await call("GET", "/api/auto-apply-v2/freelancers");
        const freelancers = listed.body.freelancers as { id: string; name: string; profiles: { profileId: string; type: string; name: string }[] }[];
        expect(freelancers.map((f) => f.name).slice(1)).toEqual(["Priya Nair", "Tomás Silva"]);
        const primary = freelancers[0]!;
        const priya = freelancers[1]!;
        const priyaSpec = priya.profiles.find((p) => p.type === "specialization")!;
        const connectsOf = async () =>
          new Map(
            (
              (await call("GET", `/admin/sandbox/accounts/${accountId}/freelancers`, undefined, true)).body.freelancers as { id: string; connects: number }[]
            ).map((f) => [f.id, f.connects]),
          );
        const connectsBefore = await connectsOf();

        const feed = await call("POST", "/api/v1/feeds", { title: "Data work", includes: ["react", "airflow"], minScore: 0 });
        expect(feed.status, JSON.stringify(feed.body)).toBe(201);
        const publishTime = new Date(Date.now() - 60_000).toISOString();
        for (const doc of [
          makeDoc({
            title: "React dashboard for sales data",
            skills: ["React"],
            hourly: [50, 90],
            country: "Germany",
            questions: ["Which warehouse have you used?"],
            publishTime,
          }),
          makeDoc({ title: "Airflow DAG clean-up", skills: ["Airflow"], fixed: 800, country: "Canada", publishTime }),
        ]) {
          const res = await call("POST", "/admin/jobs", doc, true);
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
        }

        browser = await launchChromium();
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        context.setDefaultTimeout(8_000);
        const page = await context.newPage();
        current = page;
        await page.goto(`${base}/dashboard?show=all`); // read on the phone: no longer in the unread list
        await page.getByLabel("API key").fill(apiKey);
        await page.getByRole("button", { name: "Sign in with key" }).click();
        await page.waitForURL(`${base}/dashboard`);
        const cards = page.locator("#cards article.card");
        await until("two cards", 10_000, async () => {
          if ((await cards.count()) === 2) return true;
          await page.reload();
          return false;
        });
        // The client's country as words, not a flag emoji (boxes without an emoji font).
        const react = cards.filter({ hasText: "React dashboard for sales data" });
        expect(await react.locator(".facts").textContent()).toContain("Germany");

        // Open the job in the panel and pick the second freelancer's specialization.
        await react.getByRole("link", { name: "React dashboard for sales data" }).click();
        await page.locator("#panel-title", { hasText: "React dashboard for sales data" }).waitFor();
        const panel = page.locator("#panel");
        const picker = panel.getByLabel("Apply as");
        // Preselected: the primary freelancer's React specialization, the best fit for a React job.
        expect(await picker.locator("option:checked").textContent()).toStartWith(primary.name);
        await picker.selectOption(priyaSpec.profileId);
        await snap(page, "agency-panel-1280");

        // Draft by keyboard: the picker survives, and the letter is Priya's.
        await page.locator("#panel-title").focus();
        await page.keyboard.press("d");
        await panel.getByText("Proposal written").waitFor({ timeout: 15_000 });
        expect(await picker.inputValue()).toBe(priyaSpec.profileId);
        const letter = await panel.getByLabel("Cover letter").inputValue();
        expect(letter).toContain("Priya Nair");
        expect(letter).toContain("Data Pipeline Engineer");
        expect(letter).not.toContain(primary.name);
        const answer = panel.getByLabel("1. Which warehouse have you used?");
        expect((await answer.inputValue()).length).toBeGreaterThan(10);
        // What only the freelancer knows is left as a "[your …]" slot, which apply refuses: fill it in as a user would.
        if ((await answer.inputValue()).includes("[your ")) await answer.fill("Snowflake and BigQuery, both in production for clients.");
        await snap(page, "agency-panel-drafted-1280");
        // The panel scrolls on its own: its form, as the reader scrolled to it.
        await formInView(page, "agency-panel-form-1280");

        // `a` asks first: Esc (or Cancel, which has the focus) sends nothing.
        const dialog = panel.locator("dialog[data-confirm-apply]");
        await page.locator("#panel-title").focus();
        await page.keyboard.press("a");
        await dialog.waitFor({ state: "visible" });
        expect(await dialog.textContent()).toContain(`Priya Nair — Data Pipeline Engineer`);
        expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe("Cancel");
        await snap(page, "agency-panel-confirm-1280");
        await page.keyboard.press("Escape");
        await dialog.waitFor({ state: "hidden" });
        expect(await panel.locator("#panel-title").count(), "Esc closed the dialog, not the panel").toBe(1);
        await page.keyboard.press("a");
        await dialog.waitFor({ state: "visible" });
        await page.keyboard.press("Enter"); // on Cancel
        await dialog.waitFor({ state: "hidden" });
        expect((await call("GET", "/api/auto-apply-v2/applied-jobs")).body.total).toBe(0);

        // Accept: Tab to "Send application", Enter.
        await page.locator("#panel-title").focus();
        await page.keyboard.press("a");
        await dialog.waitFor({ state: "visible" });
        await page.keyboard.press("Tab");
        expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe("Send application");
        await page.keyboard.press("Enter");
        const status = panel.locator(".app-status");
        await status.waitFor();
        await until("the application to be applied in place", 20_000, async () => ((await status.textContent()) ?? "").includes("Applied"));
        expect(await status.textContent()).toContain("Priya Nair (Data Pipeline Engineer)");
        // One status, in words: no second one drawn when it was still being sent.
        expect(await panel.getByText("processing").count()).toBe(0);
        await until("the card's badge", 10_000, async () => ((await react.locator(".badges").textContent()) ?? "").includes("Applied"));
        expect(await react.locator(".unread-badge").count(), "an applied job is not new").toBe(0);
        await snap(page, "agency-panel-applied-1280");

        // The application as the API reports it.
        const applied = await call("GET", "/api/auto-apply-v2/applied-jobs");
        expect(applied.body.total).toBe(1);
        expect(applied.body.jobs[0].applicationStatus).toBe("applied");
        expect(applied.body.jobs[0].applicationStatusMessage).toContain("Priya Nair (Data Pipeline Engineer)");
        expect(applied.body.jobs[0].coverLetter).toContain("Priya Nair");
        expect(applied.body.jobs[0].coverLetter).not.toContain(primary.name);
        const byJob = await call("GET", `/api/auto-apply-v2/status?queueId=${applied.body.jobs[0].queueId}`);
        expect(byJob.body.applicationStatusMessage).toContain("Priya Nair (Data Pipeline Engineer)");
        // The marketplace's side: Priya's Connects paid for it, the primary freelancer's did not move…
        const connectsAfter = await connectsOf();
        expect(connectsAfter.get(priya.id)!).toBeLessThan(connectsBefore.get(priya.id)!);
        expect(connectsAfter.get(primary.id)).toBe(connectsBefore.get(primary.id)!);
        // …and its own proposals page names her.
        await page.goto(`${base}/sandbox/site/ab/account-security/login?redir=${encodeURIComponent("/sandbox/site/nx/proposals")}`);
        await page.getByLabel(/^Password/).fill(apiKey);
        await page.getByRole("button", { name: "Log in" }).click();
        const item = page.locator('[data-test="proposal-item"]');
        await item.first().waitFor();
        expect(await item.count()).toBe(1);
        expect(await item.textContent()).toContain("Proposal submitted as Priya Nair (Data Pipeline Engineer)");

        // The job page says the same, at 1280 and at 390 px (nothing scrolls sideways there).
        const jobPath = `/dashboard/jobs/${encodeURIComponent(applied.body.jobs[0].jobId)}`;
        await page.goto(`${base}${jobPath}`);
        expect(await page.locator("main").textContent()).toContain("Priya Nair — Data Pipeline Engineer");
        await snap(page, "agency-job-1280");
        const narrow = await browser.newContext({ viewport: { width: 390, height: 844 } });
        await narrow.addCookies(await context.cookies());
        const phone = await narrow.newPage();
        current = phone;
        await phone.goto(`${base}${jobPath}`);
        expect(await overflowsSideways(phone)).toBe(false);
        await snap(phone, "agency-job-390");
        // The other job, still open for applying, in the panel at 390 px.
        await phone.goto(`${base}/dashboard`);
        await phone.locator("#cards article.card").filter({ hasText: "Airflow DAG clean-up" }).getByRole("link", { name: "Airflow DAG clean-up" }).click();
        await phone.locator("#panel-title").waitFor();
        expect(await overflowsSideways(phone)).toBe(false);
        await snap(phone, "agency-panel-390");
        await formInView(phone, "agency-panel-form-390");
        await narrow.close();
        current = page;
        await page.goto(`${base}/dashboard?show=all`); // read on the phone: no longer in the unread list
        await page.locator("#cards article.card").filter({ hasText: "Airflow DAG clean-up" }).getByRole("link", { name: "Airflow DAG clean-up" }).click();
        await page.locator("#panel-title").waitFor();
        await snap(page, "agency-panel-open-1280");
      } catch (err) {
        if (current) {
          await snap(current, "agency-failure").catch(() => {});
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
