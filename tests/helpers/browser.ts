import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page, type Worker } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

// `.ci/run` installs Chromium when it is missing, so under CI browser tests always run (and fail without a browser).
// On a developer machine without /usr/bin/chromium they are skipped rather than failing.
export const noBrowser = !existsSync(CHROMIUM) && !process.env.CI;

/** Headless Chromium for the end-to-end browser tests. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    timeout: 15_000,
  });
}

/**
 * Polls `check` (which may reload the page) until it is true or `timeoutMs` passes. `explain`, when given, adds what
 * the test can see of the state (say, the extension's storage) to the timeout's message, for a failure in CI.
 */
export async function until(what: string, timeoutMs: number, check: () => Promise<boolean> | boolean, explain?: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) {
      const state = explain ? await explain().catch((err) => `(could not be read: ${String(err)})`) : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${state ? `; ${state}` : ""}`);
    }
    await Bun.sleep(200);
  }
}

const ROOT = join(import.meta.dir, "../..");
export const EXTENSION_DIR = join(ROOT, "dist/extension");

/** Builds the browser companion as `bun run build:extension` does; the tests load what it makes. */
export function buildExtension(): void {
  const build = Bun.spawnSync([process.execPath, "run", join(ROOT, "scripts/build-extension.ts")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build:extension failed: ${build.stderr.toString()}`);
}

/** Chromium with the companion loaded (headless=new: the old headless mode cannot load extensions) and its service worker. */
export async function launchWithExtension(profileDir: string): Promise<{ context: BrowserContext; worker: Worker }> {
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: false, // --headless=new below
    viewport: { width: 1200, height: 900 },
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      `--disable-extensions-except=${EXTENSION_DIR}`,
      `--load-extension=${EXTENSION_DIR}`,
    ],
    timeout: 20_000,
  });
  context.setDefaultTimeout(10_000);
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker", { timeout: 15_000 }));
  return { context, worker };
}

/** True when the page scrolls sideways (its content is wider than the viewport). */
export function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const g = globalThis as any;
    return g.document.documentElement.scrollWidth > g.innerWidth + 1;
  });
}

// axe-core (dev dependency) runs inside the page, read from node_modules like any other test fixture.
let axeSource: string | undefined;

/** The serious and critical axe-core violations on the page as it is now (rule id and the first offending node). */
export async function axeProblems(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(join(import.meta.dir, "../../node_modules/axe-core/axe.min.js"), "utf8");
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const g = globalThis as any;
    const result = await g.axe.run(g.document, { resultTypes: ["violations"] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, node: v.nodes[0]?.html ?? "", summary: v.nodes[0]?.failureSummary ?? "" }));
  });
  return violations.filter((v: any) => v.impact === "serious" || v.impact === "critical").map((v: any) => `${v.id} (${v.impact}): ${v.node} — ${v.summary}`);
}

/** A page at a desktop (light) or phone (dark) width, optionally with a signed-in context's storage state. */
export async function openPage(
  browser: Browser,
  width: number,
  storageState?: Awaited<ReturnType<BrowserContext["storageState"]>>,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 }, colorScheme: width > 500 ? "light" : "dark", storageState });
  context.setDefaultTimeout(10_000);
  return { context, page: await context.newPage() };
}

/**
 * Pages opened in one browser (openPage), kept so a test can close them all at the end and, on a failure,
 * screenshot the page it last used.
 */
export function pageOpener(browser: Browser) {
  const contexts: BrowserContext[] = [];
  let last: Page | undefined;
  return {
    async open(width: number, storageState?: Awaited<ReturnType<BrowserContext["storageState"]>>) {
      const opened = await openPage(browser, width, storageState);
      contexts.push(opened.context);
      last = opened.page;
      return opened;
    },
    /** Marks `page` as the one in use (the one a failure screenshot shows). */
    use(page: Page) {
      last = page;
    },
    get current(): Page | undefined {
      return last;
    },
    async closeAll() {
      for (const c of contexts) await c.close();
    },
  };
}

/** Signs in on the dashboard's sign-in form with an API key, as a user pastes it. */
export async function signInWithKey(page: Page, base: string, apiKey: string): Promise<void> {
  await page.goto(`${base}/dashboard`);
  await page.getByLabel("API key").fill(apiKey);
  await page.getByRole("button", { name: "Sign in with key" }).click();
  await page.waitForURL(`${base}/dashboard`);
}
