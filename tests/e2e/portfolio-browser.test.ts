import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { axeProblems, launchChromium, noBrowser, overflowsSideways, pageOpener, signInWithKey, until } from "../helpers/browser";
import { makeDoc } from "../helpers/factories";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai";
import { serverClient, startServer, type ServerProcess } from "../helpers/process";

// Screenshots to look at as a user would (gitignored); JOBPILOT_SHOTS_DIR puts them elsewhere.
const SHOTS = process.env.JOBPILOT_SHOTS_DIR ?? join(import.meta.dir, "../../test-artifacts/portfolio");
const ADMIN_TOKEN = "portfolio-browser-admin-token";

const PORTFOLIO = `# Case studies
## Trading analytics dashboard
- Built: A React dashboard with live charts of trades
- Client: a fintech start-up
- Skills: React, TypeScript
- Outcome: Load time from 6 s to 1.8 s
- Link: https://example.com/trading

## Kubernetes cluster migration
- Built: Moved 40 services to EKS
- Skills: Kubernetes, Terraform

# Years of experience
- React: 6`;

/** The model's letters: a payments job gets one with claims nothing backs (held in auto mode), others a plain one. */
function scriptModel(fake: FakeOpenAi): void {
  let n = 0;
  fake.setFallback((req) => {
    const prompt = JSON.stringify(req.body.messages ?? "");
    n++;
    const proposal = prompt.includes("payments")
      ? "Hi,\n\nYou need a Rust backend for payments. I built the payment engine for Stripe and have 15 years of Rust.\n\nCould we talk?\n\nBest,\nSam"
      : `Hi,\n\nYour sales dashboard needs charts people read at a glance. I built a trading analytics dashboard in React for a fintech start-up (load time from 6 s to 1.8 s): https://example.com/trading. I would start from your data model. (Draft ${n}.)\n\nWhich charts matter most to your team?\n\nBest,\nSam`;
    return { content: JSON.stringify({ proposal, questionAnswers: [] }) };
  });
}

// Issue 44 in a real browser, against `serve` on 127.0.0.2 with a fake model: the Freelancers page's portfolio
// editor, the job page's cited case studies, instruction field and versions, and the Review page's marked claims,
// each at desktop and phone width with no sideways scrolling and no axe problems.
describe("portfolios, instructions and claims in a browser", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "portfolio editor, a job's cited case studies and versions after an instruction, a held letter's claims",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-portfolio-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      let opener: ReturnType<typeof pageOpener> | undefined;
      const fake = await startFakeOpenAi();
      scriptModel(fake);
      const snap = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      try {
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "portfolio.db"),
          HOST: "127.0.0.2",
          JOBPILOT_SOURCES: "none",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "0",
          OPENAI_API_KEY: "sk-test",
          OPENAI_BASE_URL: fake.url,
          LOG_LEVEL: "warn",
        });
        const base = server.url;
        expect(base).toStartWith("http://127.0.0.2:");
        const { apiKey, api, postJob } = serverClient(server, ADMIN_TOKEN);
        const publishTime = new Date(Date.now() - 10 * 60_000).toISOString();

        // Every profile of the account's freelancer gets the same portfolio, so whichever the job page preselects has it.
        const freelancers = (await api("GET", "/api/auto-apply-v2/freelancers")).body.freelancers as { id: string; profiles: { profileId: string }[] }[];
        for (const p of freelancers[0]!.profiles) {
          const saved = await api("POST", `/api/v1/profiles/${encodeURIComponent(p.profileId)}/portfolio/import`, { format: "markdown", text: PORTFOLIO });
          expect(saved.status, JSON.stringify(saved.body)).toBe(200);
        }
        // An auto-mode feed whose letter the model fills with unbacked claims: held for review. Auto mode needs working
        // hours (every hour of every day, so the test runs whenever it is run) and a Connects budget.
        const hours = { timeZone: "UTC", days: [0, 1, 2, 3, 4, 5, 6], start: "00:00", end: "23:59" };
        const limits = await api("PATCH", "/api/v1/automation", { workingHours: hours, connectsPerDay: 1000 });
        expect(limits.status, JSON.stringify(limits.body)).toBe(200);
        const feed = await api("POST", "/api/v1/feeds", { title: "Rust payments", includes: ["payments"], minScore: 0 });
        expect(feed.status, JSON.stringify(feed.body)).toBe(201);
        const mode = await api("PUT", `/api/v1/automation/feeds/${feed.body.feed.id}`, { applyMode: "auto", minScore: 0 });
        expect(mode.status, JSON.stringify(mode.body)).toBe(200);
        await postJob(
          makeDoc({
            title: "Rust engineer for a payments service",
            description: "We need a Rust backend for payments.",
            skills: ["Rust"],
            fixed: 900,
            publishTime,
          }),
        );
        const react = await postJob(
          makeDoc({
            title: "React dashboard for sales data",
            description: "Charts of our sales in React and TypeScript.",
            skills: ["React", "TypeScript"],
            fixed: 900,
            publishTime,
          }),
        );

        browser = await launchChromium();
        opener = pageOpener(browser);
        const { open } = opener;
        const desk = await open(1280);
        const page = desk.page;
        await signInWithKey(page, base, apiKey);

        // (a) The Freelancers page with a portfolio editor open.
        await page.goto(`${base}/dashboard/freelancers`);
        const editor = page.locator("details:has(textarea[id^='pf-'])").first();
        await editor.locator("summary").click();
        expect(await editor.getByLabel("Portfolio").inputValue()).toContain("## Trading analytics dashboard");
        expect(await axeProblems(page)).toEqual([]);
        expect(await overflowsSideways(page)).toBe(false);
        await snap(page, "freelancers-portfolio-1280");
        // The job page's link to a profile's editor (shown when it has no portfolio) opens that editor.
        const second = freelancers[0]!.profiles[1]!.profileId;
        await page.goto(`${base}/dashboard/freelancers#pf-${encodeURIComponent(second)}-md`);
        expect(await page.locator(`[id="pf-${second}-md"]`).evaluate((el: any) => el.closest("details").open)).toBe(true);

        // (b) The job page: the cited case study (not the unrelated one), two drafts, the second with an instruction.
        await page.goto(`${base}/dashboard/jobs/${encodeURIComponent(react)}`);
        const cited = page.locator(".cited");
        expect(await cited.textContent()).toContain("Trading analytics dashboard");
        expect(await cited.textContent()).not.toContain("Kubernetes");
        await page.getByRole("button", { name: "Generate a proposal" }).click();
        await page.getByText("Proposal written").waitFor({ timeout: 20_000 });
        await page.getByLabel("Instruction for the next draft").fill("mention the Shopify app");
        await page.getByRole("button", { name: "Generate a proposal" }).click();
        await page.getByText("Versions of this letter (2)").waitFor({ timeout: 20_000 });
        expect(fake.requests.some((r) => JSON.stringify(r.body).includes("For this version: mention the Shopify app"))).toBe(true);
        await page.getByText("Versions of this letter").click();
        expect(await page.locator(".versions").textContent()).toContain("Instruction: “mention the Shopify app”");
        expect(await axeProblems(page)).toEqual([]);
        expect(await overflowsSideways(page)).toBe(false);
        await snap(page, "job-versions-1280");
        await page.locator(".cited").evaluate((el: any) => el.scrollIntoView({ block: "start" }));
        await page.screenshot({ path: join(SHOTS, "job-draft-panel-1280.png") });
        // Version 1 back into the letter.
        await page.getByRole("button", { name: "Load version 1 into the letter" }).click();
        await page.getByText("Version 1 is in the letter again.").waitFor();
        const versions = (await api("GET", `/api/v1/jobs/${encodeURIComponent(react)}/proposal-versions`)).body.versions as {
          number: number;
          letter: string;
        }[];
        expect(await page.getByLabel("Cover letter").inputValue()).toBe(versions.find((v) => v.number === 1)!.letter);

        // (c) The Review page: the held letter with its claims marked.
        await until("the letter held for its claims", 30_000, async () => (await api("GET", "/api/v1/applications/held")).body.total === 1);
        await page.goto(`${base}/dashboard/review`);
        await page.getByText("Claims your profile and portfolio do not back").waitFor();
        expect(await page.locator(".claims mark").first().textContent()).toBeTruthy();
        expect(await axeProblems(page)).toEqual([]);
        expect(await overflowsSideways(page)).toBe(false);
        await snap(page, "review-claims-1280");

        // At phone width: the same three pages, axe-clean, nothing wider than the screen.
        const phone = (await open(390, await desk.context.storageState())).page;
        for (const [path, name, opened] of [
          ["/dashboard/freelancers", "freelancers-portfolio-390", "details:has(textarea[id^='pf-']) summary"],
          [`/dashboard/jobs/${encodeURIComponent(react)}`, "job-versions-390", ".versions summary"],
          ["/dashboard/review", "review-claims-390", null],
        ] as const) {
          await phone.goto(`${base}${path}`);
          if (opened) await phone.locator(opened).first().click();
          expect(await axeProblems(phone), name).toEqual([]);
          expect(await overflowsSideways(phone), name).toBe(false);
          await snap(phone, name);
        }
        // The draft panel as a phone reader scrolls to it: case studies, instruction, letter and versions.
        await phone.goto(`${base}/dashboard/jobs/${encodeURIComponent(react)}`);
        await phone.locator(".versions summary").click();
        await phone.locator(".cited").evaluate((el: any) => el.scrollIntoView({ block: "start" }));
        await phone.screenshot({ path: join(SHOTS, "job-draft-panel-390.png") });
        await phone.locator(".versions").evaluate((el: any) => el.scrollIntoView({ block: "start" }));
        await phone.screenshot({ path: join(SHOTS, "job-versions-panel-390.png") });
        await opener?.closeAll();
      } catch (err) {
        if (opener?.current) await snap(opener.current, "portfolio-failure").catch(() => {});
        throw err;
      } finally {
        await browser?.close();
        await server?.stop();
        await fake.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    150_000,
  );
});
