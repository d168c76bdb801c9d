import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { axeProblems, launchChromium, noBrowser, overflowsSideways } from "../../helpers/browser";
import { runCommand, startServer, type ServerProcess } from "../../helpers/process";

const SHOTS = join(import.meta.dir, "../../../test-artifacts/members");

// Issue 43 in a real browser: an agency adds a freelancer and a profile on the Freelancers page, routes a feed to
// it; the page at 1280 and 390 px, axe-clean and never wider than a phone.
describe("the Freelancers page in a browser", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "add a freelancer and a profile, route a feed to it; 1280 and 390 px",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-freelancers-"));
      const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", JOBPILOT_DB: join(dir, "team.db"), LOG_LEVEL: "warn" };
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      let current: Page | undefined;
      const snap = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      try {
        const created = await runCommand(
          [process.execPath, "run", "src/main.ts", "account", "create", "--name", "Nair & Chen Studio", "--kind", "agency", "--credits", "5", "--json"],
          env,
        );
        expect(created.code, created.stderr).toBe(0);
        const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], { ...env, JOBPILOT_SOURCES: "none" });
        const base = server.url;
        const feed = await fetch(`${base}/api/v1/feeds`, {
          method: "POST",
          headers: { "x-api-key": apiKey, "content-type": "application/json" },
          body: JSON.stringify({ title: "Data pipelines", includes: ["python"], minScore: 0 }),
        });
        expect(feed.status).toBe(201);

        browser = await launchChromium();
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
        context.setDefaultTimeout(8_000);
        const page = await context.newPage();
        current = page;
        await page.goto(`${base}/dashboard/sign-in`);
        await page.getByLabel("API key").fill(apiKey);
        await page.getByRole("button", { name: "Sign in with key" }).click();
        await page.waitForURL(`${base}/dashboard`);

        await page.goto(`${base}/dashboard/freelancers`);
        // A refusal sits by its field, in the label's words, and keeps what was typed.
        await page.getByLabel("Name", { exact: true }).last().fill("Priya Nair");
        await page.getByLabel("Base hourly rate (USD)").last().fill("lots");
        await page.getByRole("button", { name: "Add freelancer" }).click();
        const rateError = page.locator("#new-rateError");
        await rateError.waitFor();
        expect(await rateError.textContent()).toContain("Base hourly rate must be a number");
        expect(await page.getByLabel("Base hourly rate (USD)").last().getAttribute("aria-describedby")).toBe("new-rateError");
        expect(await page.getByLabel("Name", { exact: true }).last().inputValue()).toBe("Priya Nair");
        expect(await axeProblems(page)).toEqual([]);
        await snap(page, "freelancers-refused-1280");
        await page.getByLabel("Name", { exact: true }).last().fill("Priya Nair");
        await page.getByLabel("Base hourly rate (USD)").last().fill("70");
        await page.getByLabel("Country (two letters, default US)").fill("in");
        await page.getByRole("button", { name: "Add freelancer" }).click();
        await page.getByText("Freelancer added.").waitFor();
        const priya = page.locator("section", { has: page.getByRole("heading", { name: /Priya Nair/ }) });
        expect(await priya.textContent()).toContain("Base rate 70/h · IN");

        await priya.getByText("Edit Priya Nair").click();
        await priya.getByRole("group", { name: "Add a profile" }).getByLabel("Title").fill("Data Pipeline Engineer");
        await priya.getByRole("group", { name: "Add a profile" }).getByLabel("Skills (comma-separated)").fill("Python, Airflow, dbt");
        await priya.getByRole("button", { name: "Add profile" }).click();
        await page.getByText("Profile saved.").waitFor();
        expect(await page.getByRole("cell", { name: "Python, Airflow, dbt" }).count()).toBe(1);

        const routing = page.getByRole("group", { name: "Data pipelines" });
        await routing.getByLabel("Goes out as").selectOption({ label: "Priya Nair — Data Pipeline Engineer" });
        await routing.getByRole("button", { name: "Save routing" }).click();
        await page.getByText("Feed routing saved.").waitFor();
        expect(await page.getByRole("group", { name: "Data pipelines" }).getByLabel("Goes out as").inputValue()).not.toBe("");

        expect(await axeProblems(page)).toEqual([]);
        expect(await overflowsSideways(page)).toBe(false);
        await snap(page, "freelancers-1280");

        const phoneContext = await browser.newContext({
          viewport: { width: 390, height: 844 },
          colorScheme: "dark",
          storageState: await context.storageState(),
        });
        const phone = await phoneContext.newPage();
        current = phone;
        await phone.goto(`${base}/dashboard/freelancers`);
        await phone.getByRole("heading", { level: 1, name: "Freelancers" }).waitFor();
        expect(await axeProblems(phone)).toEqual([]);
        expect(await overflowsSideways(phone)).toBe(false);
        await snap(phone, "freelancers-390");
      } catch (err) {
        if (current) await snap(current, "freelancers-failure").catch(() => {});
        throw err;
      } finally {
        await browser?.close();
        await server?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
