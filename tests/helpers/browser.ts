import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

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

/** Polls `check` (which may reload the page) until it is true or `timeoutMs` passes. */
export async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(200);
  }
}
