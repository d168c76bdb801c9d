import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { axeProblems, launchChromium, noBrowser, overflowsSideways, until } from "../helpers/browser";
import { postAdminJob, startServer, type ServerProcess } from "../helpers/process";

// Screenshots to look at as a user would (gitignored); JOBPILOT_SHOTS_DIR puts them elsewhere.
const SHOTS = process.env.JOBPILOT_SHOTS_DIR ?? join(import.meta.dir, "../../test-artifacts/team");
const ADMIN_TOKEN = "team-browser-admin-token";
const PASSWORD = "a long enough password";

// Issue 43 as an agency walks it, in a real browser against a server on 127.0.0.2 (not localhost): the owner from the
// first-run banner's link invites a bidder and an admin on the Team page; the bidder signs in with their own password,
// drafts and requests approval; the admin approves; the job page names who drafted, approved and sent it.
describe("an agency team in a browser", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "owner invites a bidder and an admin; the bidder drafts and asks; the admin approves; three names on the application",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      const dir = mkdtempSync(join(tmpdir(), "jp-team-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      let current: Page | undefined;
      const snap = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      try {
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "team.db"),
          HOST: "127.0.0.2",
          JOBPILOT_SOURCES: "none",
          JOBPILOT_ADMIN_TOKEN: ADMIN_TOKEN,
          JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "0",
          LOG_LEVEL: "warn",
        });
        const base = server.url;
        expect(base).toStartWith("http://127.0.0.2:");
        const apiKey = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.stderr())?.[1];
        const ownerLink = /(http:\/\/\S+\/dashboard\/set-password\?token=[\w-]+)/.exec(server.stderr())?.[1];
        expect(apiKey && ownerLink, server.output()).toBeTruthy();
        const api = async (method: string, path: string, body?: unknown) => {
          const res = await fetch(`${base}${path}`, {
            method,
            headers: { "x-api-key": apiKey!, ...(body === undefined ? {} : { "content-type": "application/json" }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          return { status: res.status, body: (await res.json()) as any };
        };
        expect((await api("POST", "/api/v1/feeds", { title: "Python work", includes: ["python"], minScore: 0 })).status).toBe(201);
        const cipher = await postAdminJob(base, ADMIN_TOKEN, "Python ETL clean-up for a logistics firm");

        browser = await launchChromium();
        const contexts: BrowserContext[] = [];
        const person = async (width = 1280) => {
          const context = await browser!.newContext({ viewport: { width, height: 900 }, colorScheme: "light" });
          context.setDefaultTimeout(8_000);
          contexts.push(context);
          const page = await context.newPage();
          current = page;
          return { context, page };
        };
        /** Opens a set-password link and chooses the password (the first owner gives an e-mail and a name too). */
        const setPassword = async (page: Page, link: string, owner?: { email: string; name: string }) => {
          await page.goto(link);
          if (owner) {
            await page.getByLabel("Your e-mail").fill(owner.email);
            await page.getByLabel("Your name").fill(owner.name);
          }
          await page.getByLabel("New password").fill(PASSWORD);
          await page.getByLabel("Repeat the password").fill(PASSWORD);
          await page.getByRole("button", { name: "Set password and sign in" }).click();
          await page.waitForURL(`${base}/dashboard`);
        };

        // The owner, from the banner's link: their own e-mail and password.
        const owner = await person();
        await owner.page.goto(ownerLink!);
        expect(await axeProblems(owner.page)).toEqual([]);
        await snap(owner.page, "owner-set-up-1280");
        await setPassword(owner.page, ownerLink!, { email: "olga@example.com", name: "Olga" });

        // The Team page: invite a bidder and an admin; each link is shown once, to pass on.
        const invite = async (email: string, name: string, role: string) => {
          await owner.page.goto(`${base}/dashboard/team`);
          await owner.page.getByLabel("E-mail", { exact: true }).fill(email);
          await owner.page.getByLabel("Name", { exact: true }).fill(name);
          await owner.page.getByLabel("Role", { exact: true }).selectOption(role);
          await owner.page.getByRole("button", { name: "Invite" }).click();
          const link = (await owner.page.locator("#invite-link").textContent())?.trim() ?? "";
          expect(link).toStartWith(`${base}/dashboard/set-password?token=`);
          return link;
        };
        const beaLink = await invite("bea@example.com", "Bea", "bidder");
        const adamLink = await invite("adam@example.com", "Adam", "admin");
        expect(await owner.page.getByRole("row", { name: /Bea/ }).textContent()).toContain("Invited: has not set a password yet");
        expect(await axeProblems(owner.page)).toEqual([]);
        expect(await overflowsSideways(owner.page)).toBe(false);
        await snap(owner.page, "team-1280");

        // The bidder: own password, opens the job (claiming it), writes and asks for approval.
        const bea = await person();
        await setPassword(bea.page, beaLink);
        await bea.page.goto(`${base}/dashboard/jobs/${encodeURIComponent(cipher)}`);
        await bea.page.getByText("You are drafting this job").waitFor();
        await bea.page.getByLabel("Cover letter").fill("Hello, I have cleaned up three ETL pipelines like yours; here is how I would start.");
        await bea.page.getByRole("button", { name: "Request approval" }).click();
        await bea.page.waitForURL(/\/dashboard\/review\?done=requested/);
        const waiting = await api("GET", "/api/v1/applications/held");
        expect(waiting.body.total, "held for an approver, not sent").toBe(1);
        expect(waiting.body.applications[0]).toMatchObject({ kind: "approval", draftedBy: "Bea" });

        // The owner's Team page now shows both as active members.
        await owner.page.goto(`${base}/dashboard/team`);
        expect(await owner.page.getByRole("row", { name: /Bea/ }).textContent()).toContain("Active");

        // The admin approves on the Review page: letter, bid and job side by side.
        const adam = await person();
        await setPassword(adam.page, adamLink);
        await adam.page.goto(`${base}/dashboard/review`);
        const held = adam.page.locator("article.held", { hasText: "Python ETL clean-up" });
        expect(await held.textContent()).toContain("drafted by Bea");
        expect(await axeProblems(adam.page)).toEqual([]);
        await snap(adam.page, "review-approval-1280");
        await held.getByRole("button", { name: "Approve and send" }).click();
        await adam.page.waitForURL(/\/dashboard\/review\?done=approved/);
        await until(
          "the application to go out",
          20_000,
          async () => (await api("GET", "/api/auto-apply-v2/applied-jobs")).body.jobs?.[0]?.applicationStatus === "applied",
        );

        // The application names all three steps' people, and the freelancer it went out as.
        await owner.page.goto(`${base}/dashboard/jobs/${encodeURIComponent(cipher)}`);
        const main = (await owner.page.locator("main").textContent()) ?? "";
        expect(main).toMatch(/Drafted by\s*Bea/);
        expect(main).toMatch(/Approved by\s*Adam/);
        expect(main).toMatch(/Sent by\s*Adam/);
        expect(main).toContain("Applied as");
        const audit = await api("GET", "/api/v1/audit?limit=100");
        const actors = new Set((audit.body.entries as { actor: string | null }[]).map((e) => e.actor));
        for (const name of ["Olga", "Bea", "Adam"]) expect(actors.has(name), name).toBe(true);

        // At phone width: the Team and Review pages axe-clean, nothing wider than the screen.
        for (const [path, name] of [
          ["/dashboard/team", "team-390"],
          ["/dashboard/review", "review-390"],
        ] as const) {
          const phoneContext = await browser.newContext({
            viewport: { width: 390, height: 844 },
            colorScheme: "dark",
            storageState: await owner.context.storageState(),
          });
          contexts.push(phoneContext);
          const phone = await phoneContext.newPage();
          current = phone;
          await phone.goto(`${base}${path}`);
          expect(await axeProblems(phone)).toEqual([]);
          expect(await overflowsSideways(phone)).toBe(false);
          await snap(phone, name);
        }
      } catch (err) {
        if (current) await snap(current, "team-failure").catch(() => {});
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
