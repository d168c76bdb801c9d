import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page, Worker } from "playwright-core";
import { axeProblems, buildExtension, launchWithExtension, noBrowser, overflowsSideways, until } from "../helpers/browser";

// What the functions evaluated in the extension's service worker use (the root tsconfig has no chrome types).
declare const chrome: {
  storage: { local: { get(keys: null): Promise<Record<string, unknown>>; set(items: object): Promise<void> } };
  alarms: { get(name: string): Promise<{ scheduledTime: number } | undefined>; create(name: string, info: { when: number }): Promise<void> };
  idle: { queryState: (seconds: number) => Promise<string> };
};

const ROOT = join(import.meta.dir, "../..");
const SHOTS = join(ROOT, "test-artifacts/companion");
const FLOOR_MS = 15 * 60_000;

/** Working hours around the present moment in Berlin (every day, whole hours, two either side), or hours `offsetHours` away. */
function hoursAroundNow(offsetHours: number): { timeZone: string; days: number[]; start: string; end: string } {
  const berlin = (shift: number) =>
    `${new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", hourCycle: "h23" }).format(new Date(Date.now() + shift * 3_600_000))}:00`;
  return { timeZone: "Europe/Berlin", days: [0, 1, 2, 3, 4, 5, 6], start: berlin(offsetHours - 2), end: berlin(offsetHours + 2) };
}

// Watch mode in Chromium against a stand-in for the paired server: it answers the working hours the test sets and
// serves the "saved search" the watch tab loads, counting every load, so "no reload" is a count that stays put.
describe("browser companion watch mode in Chromium (issue 42: off by default, 15-minute floor, never while idle)", () => {
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "fresh install: off, no alarm, no tab; turning it on needs the rule acknowledged; reloads respect the floor, idle and working hours",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      buildExtension();

      let workingHours: unknown = hoursAroundNow(0);
      let automationStatus = 200;
      let automationReads = 0;
      let searchLoads = 0;
      const fake = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: async (req) => {
          const url = new URL(req.url);
          const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "*" };
          if (req.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
          if (url.pathname === "/search") {
            searchLoads++;
            return new Response("<!doctype html><title>Saved search</title><p>jobs</p>", { headers: { "content-type": "text/html" } });
          }
          if (url.pathname === "/api/v1/automation") {
            automationReads++;
            if (req.headers.get("x-api-key") !== "jp_live_watchtest") return Response.json({ error: "bad key" }, { status: 401, headers: cors });
            if (automationStatus !== 200) return Response.json({ error: "not found" }, { status: automationStatus, headers: cors });
            return Response.json({ limits: { workingHours }, usage: {} }, { headers: cors });
          }
          if (url.pathname === "/api/v1/companion/tasks") {
            await Bun.sleep(1000);
            return Response.json({ task: null }, { headers: cors });
          }
          return Response.json({ ok: true }, { headers: cors });
        },
      });
      const base = `http://127.0.0.1:${fake.port}`;
      const searchUrl = `${base}/search?q=react`;

      const dir = mkdtempSync(join(tmpdir(), "jp-watch-"));
      let context: BrowserContext | undefined;
      let options: Page | undefined;
      try {
        const launched = await launchWithExtension(join(dir, "profile"));
        context = launched.context;
        const worker: Worker = launched.worker;
        const extensionId = new URL(worker.url()).host;
        const storage = () => worker.evaluate(() => chrome.storage.local.get(null)) as Promise<Record<string, any>>;
        const alarmAt = () => worker.evaluate(() => chrome.alarms.get("watch").then((a) => a?.scheduledTime ?? null));
        const setIdle = (state: string) =>
          worker.evaluate((s) => {
            chrome.idle.queryState = async () => s;
          }, state);
        // Fires the watch alarm now, as Chrome would when its time comes: the product's own handler takes it from there.
        const fireAlarm = async () => {
          await worker.evaluate(() => chrome.alarms.create("watch", { when: Date.now() + 50 }));
          await until("the fired watch alarm to be replaced by the next", 5_000, async () => ((await alarmAt()) ?? 0) > Date.now() + 60_000);
          await Bun.sleep(700); // a load the turn started would reach the stand-in by now
        };
        // As if the last load was longer ago than the floor (the test cannot wait 15 minutes).
        const ageLastLoad = () => worker.evaluate(() => chrome.storage.local.set({ watchReloadAt: Date.now() - 16 * 60_000 }));
        const explain = async () => JSON.stringify({ ...(await storage()), searchLoads, automationReads });
        const snapBoth = async (page: Page, name: string) => {
          for (const width of [1280, 390]) {
            await page.setViewportSize({ width, height: 900 });
            expect(await overflowsSideways(page), `${name} at ${width} px scrolls sideways`).toBe(false);
            await page.screenshot({ path: join(SHOTS, `watch-${name}-${width}.png`), fullPage: true });
          }
          await page.setViewportSize({ width: 1280, height: 900 });
        };

        // (a) A fresh install: watch off, no watch alarm, and over a bounded wait no tab opens and nothing loads.
        const pagesAtStart = context.pages().length;
        await Bun.sleep(3000);
        const fresh = await storage();
        expect(fresh.watchEnabled).toBeUndefined();
        expect(await alarmAt()).toBeNull();
        expect(context.pages().length).toBe(pagesAtStart);
        expect(searchLoads).toBe(0);

        options = await context.newPage();
        await options.goto(`chrome-extension://${extensionId}/options.html`);
        await expect(options.locator("#watch-state").textContent()).resolves.toBe("Off");
        await expect(options.getByLabel(/Reload every/).inputValue()).resolves.toBe("15");
        await expect(options.locator("#watch-risk").isVisible()).resolves.toBe(false);
        await snapBoth(options, "1-off");

        // Paired (pairing itself is companion-browser.test.ts's): the stand-in is the server.
        await worker.evaluate((server) => chrome.storage.local.set({ server, apiKey: "jp_live_watchtest" }), base);
        await setIdle("active");

        // (b) Ticking Watch shows the marketplace's rule and the confirmation; 5 minutes and no confirmation are refused.
        await options.getByLabel(/Saved searches to watch/).fill(searchUrl);
        await options.getByLabel(/Reload every/).fill("5");
        await options.getByLabel("Watch (one pinned background tab)").check();
        const rule = options.locator("#watch-risk");
        await expect(rule.isVisible()).resolves.toBe(true);
        await expect(rule.textContent()).resolves.toContain("faster or more frequently than a human could");
        await expect(rule.textContent()).resolves.toContain("official API job source");
        await snapBoth(options, "2-turning-on");
        expect(await axeProblems(options)).toEqual([]);
        await options.getByRole("button", { name: "Save" }).click();
        await expect(options.locator("#interval-error").textContent()).resolves.toContain("at least 15");
        await expect(options.locator("#risk-error").textContent()).resolves.toContain("I understand the risk");
        await expect(options.getByLabel(/Reload every/).getAttribute("aria-invalid")).resolves.toBe("true");
        await options.getByLabel(/Reload every/).fill("15");
        await options.getByRole("button", { name: "Save" }).click();
        await expect(options.locator("#interval-error").isVisible()).resolves.toBe(false);
        await expect(options.locator("#risk-error").isVisible()).resolves.toBe(true);
        await Bun.sleep(500);
        expect((await storage()).watchEnabled).toBeUndefined();
        await snapBoth(options, "3-refused");
        expect(searchLoads).toBe(0);

        await options.getByLabel("I understand the risk").check();
        await options.getByRole("button", { name: "Save" }).click();
        await until("watch mode saved on, and its first load", 10_000, async () => (await storage()).watchEnabled === true && searchLoads === 1, explain);
        const saved = await storage();
        expect(saved).toMatchObject({ watchEnabled: true, watchRiskAccepted: true, intervalMin: 15, watchState: "watching" });
        expect(saved.testIntervalMs).toBeUndefined();
        await until(
          "the state line to say it watches",
          5_000,
          async () => (await options!.locator("#watch-state").textContent())?.startsWith("Watching") === true,
        );
        // The hours the stand-in answers, not a fresh reading of the clock: an hour can turn over in between.
        const hours = workingHours as { start: string; end: string };
        await expect(options.locator("#watch-state").textContent()).resolves.toBe(
          `Watching every 15 min in your working hours (every day ${hours.start}–${hours.end} Europe/Berlin) while you use the browser`,
        );
        await snapBoth(options, "4-on");

        // (c) The product path schedules the next load at least the floor after this one, at most 1.4 × the floor.
        await until("the watch alarm", 5_000, async () => (await alarmAt()) !== null);
        const first = await storage();
        const next = (await alarmAt())!;
        expect(next - first.watchReloadAt).toBeGreaterThanOrEqual(FLOOR_MS);
        expect(next - first.watchReloadAt).toBeLessThanOrEqual(1.4 * FLOOR_MS + 5_000);
        expect(next - Date.now()).toBeGreaterThan(FLOOR_MS - 30_000);

        // An alarm that comes early (or any other trigger) inside the floor loads nothing, and the next is again ≥ the floor.
        await fireAlarm();
        expect(searchLoads).toBe(1);
        expect(((await alarmAt()) ?? 0) - Date.now()).toBeGreaterThan(FLOOR_MS - 30_000);
        // Saving the settings again does not load sooner either.
        await options.getByRole("button", { name: "Save" }).click();
        await Bun.sleep(1000);
        expect(searchLoads).toBe(1);

        // (d) Idle: the turn is skipped, twice, and the state says why; back to active, exactly one load, then the interval.
        await setIdle("idle");
        await ageLastLoad();
        await fireAlarm();
        await fireAlarm();
        expect(searchLoads).toBe(1);
        expect((await storage()).watchState).toBe("idle");
        await until("the state line to say idle", 5_000, async () => (await options!.locator("#watch-state").textContent()) === "Waiting: the browser is idle");
        await setIdle("locked");
        await fireAlarm();
        expect(searchLoads).toBe(1);
        await setIdle("active");
        await fireAlarm();
        await until("one load once the user is back", 5_000, () => searchLoads === 2, explain);
        await fireAlarm();
        await Bun.sleep(1000);
        expect(searchLoads).toBe(2); // no catch-up burst
        expect(((await alarmAt()) ?? 0) - Date.now()).toBeGreaterThan(FLOOR_MS - 30_000);

        // Working hours: read at most every 15 minutes; outside them nothing loads; a 404 keeps the last known hours.
        const readsBefore = automationReads;
        await ageLastLoad();
        await fireAlarm();
        expect(searchLoads).toBe(3);
        expect(automationReads).toBe(readsBefore); // read less than 15 minutes ago: the cached hours serve
        workingHours = hoursAroundNow(6);
        await worker.evaluate(() => chrome.storage.local.set({ workingHoursCheckedAt: 0, watchReloadAt: Date.now() - 16 * 60_000 }));
        await fireAlarm();
        expect(automationReads).toBe(readsBefore + 1);
        expect(searchLoads).toBe(3);
        expect((await storage()).watchState).toBe("outside-hours");
        await until("the state line to say outside working hours", 5_000, async () =>
          ((await options!.locator("#watch-state").textContent()) ?? "").startsWith("Waiting: outside your working hours ("),
        );
        automationStatus = 404;
        await worker.evaluate(() => chrome.storage.local.set({ workingHoursCheckedAt: 0 }));
        await fireAlarm();
        expect(searchLoads).toBe(3);
        expect((await storage()).workingHours).toEqual(workingHours);

        // Hours in a time zone this browser does not know: not within, and the page says why.
        automationStatus = 200;
        workingHours = { ...hoursAroundNow(0), timeZone: "Mars/Base" };
        await worker.evaluate(() => chrome.storage.local.set({ workingHoursCheckedAt: 0 }));
        await fireAlarm();
        expect(searchLoads).toBe(3);
        await until("the state line to name the time zone", 5_000, async () =>
          ((await options!.locator("#watch-state").textContent()) ?? "").includes('time zone "Mars/Base" is not one this browser knows'),
        );

        // Turned off: the alarm goes and nothing loads again.
        await options.getByLabel("Watch (one pinned background tab)").uncheck();
        await options.getByRole("button", { name: "Save" }).click();
        await until("watch off", 5_000, async () => (await storage()).watchEnabled === false && (await alarmAt()) === null, explain);
        await expect(options.locator("#watch-state").textContent()).resolves.toBe("Off");
      } catch (err) {
        if (options) await options.screenshot({ path: join(SHOTS, "watch-failure.png"), fullPage: true }).catch(() => {});
        throw err;
      } finally {
        await context?.close().catch(() => {});
        fake.stop(true);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
