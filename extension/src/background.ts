/**
 * The companion's service worker: the only part that talks to the paired jobpilot server. It posts the jobs
 * content scripts read, counts them on the badge, and runs watch mode: one pinned background tab cycles through
 * the saved searches, reloading one at most every N minutes (N ≥ 15, jittered upwards), only in the freelancer's
 * working hours and while the user is at the browser (not idle, not locked), and paused while the marketplace shows a login or bot-check page ("needs you", reported to the server) until a
 * marketplace page reads normally again. While paired it is also the companion client of issue 20 (companion.ts):
 * it holds the long poll for tasks and submits proposals through the user's own marketplace session.
 */
import { ensurePolling, focusApplication, noteBoost, resumeReviews, siteBaseOf } from "./companion";
import type { BoostReport, PageReport, Settings } from "./messages";
import { INTERVAL_JITTER, WORKING_HOURS_REFRESH_MS } from "./messages";
import { hostPermissionFor, sandboxMatchFor } from "./pairing";
import { intervalMinutes, readsPause, readsPaused, upgradedWatchSettings } from "./watch";
import { parseWorkingHours, type WorkingHours, withinWorkingHours, workingHoursProblem } from "./working-hours";

const ALARM = "watch";
/** Wakes a stopped service worker so the companion's long poll resumes (Chrome ends idle workers). */
const POLL_ALARM = "companion-poll";

const load = () => chrome.storage.local.get(null) as Promise<Settings>;
const save = (patch: Partial<Settings>) => chrome.storage.local.set(patch);

async function call(settings: Settings, path: string, body: unknown): Promise<Response | null> {
  if (!settings.server || !settings.apiKey) return null;
  try {
    return await fetch(`${settings.server}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": settings.apiKey },
      body: JSON.stringify(body),
      credentials: "omit",
    });
  } catch {
    await save({ lastStatus: `could not reach ${settings.server}` });
    return null;
  }
}

async function reportWatch(settings: Settings): Promise<void> {
  await call(settings, "/api/v1/capture/status", {
    watch: settings.watchEnabled ? (settings.needsYou ? "paused" : "watching") : "off",
    needsYou: settings.needsYou ?? null,
  });
}

/** The next reload in ms: the test setting, or the interval (never under the floor) × 1.0–1.4. */
function nextDelayMs(settings: Settings): number {
  if (settings.testIntervalMs && settings.testIntervalMs > 0) return settings.testIntervalMs;
  return intervalMinutes(settings) * 60_000 * (1 + Math.random() * INTERVAL_JITTER);
}

/** The shortest gap between two loads of the watch tab, whatever triggers them (alarm, a settings change). */
function minGapMs(settings: Settings): number {
  if (settings.testIntervalMs && settings.testIntervalMs > 0) return settings.testIntervalMs;
  return intervalMinutes(settings) * 60_000;
}

async function schedule(): Promise<void> {
  const settings = await load();
  await chrome.alarms.clear(ALARM);
  if (!settings.watchEnabled || !settings.watchUrls?.length) return;
  await chrome.alarms.create(ALARM, { when: Date.now() + nextDelayMs(settings) });
}

/**
 * The freelancer's working hours from the server, asked at most every 15 minutes. A 404 (a server without the
 * endpoint), another error or no answer keeps the last known value; with none known, none are set (any time).
 */
async function workingHours(settings: Settings): Promise<WorkingHours | null> {
  const known = settings.workingHours ?? null;
  if (!settings.server || !settings.apiKey) return known;
  if (settings.workingHoursCheckedAt && Date.now() - settings.workingHoursCheckedAt < WORKING_HOURS_REFRESH_MS) return known;
  await save({ workingHoursCheckedAt: Date.now() });
  try {
    const res = await fetch(`${settings.server}/api/v1/automation`, { headers: { "x-api-key": settings.apiKey }, credentials: "omit" });
    if (!res.ok) return known;
    const body = (await res.json()) as { limits?: { workingHours?: unknown } };
    const hours = parseWorkingHours(body?.limits?.workingHours);
    if (hours === undefined) return known;
    await save({ workingHours: hours });
    return hours;
  } catch {
    return known;
  }
}

/**
 * One watch turn: loads the next saved search in the pinned watch tab (made again if the user closed it), but only
 * in the freelancer's working hours, while the user is at the browser (chrome.idle says "active": not idle for a
 * minute, not locked), and never sooner than the interval after the last load. A skipped turn is not made up
 * later: the next alarm comes after the normal interval, so a returning user sees at most one load, not a burst.
 */
async function reloadNext(): Promise<void> {
  const settings = await load();
  const urls = settings.watchUrls ?? [];
  if (!settings.watchEnabled || urls.length === 0 || settings.needsYou) return;
  // The server's hourly cap on captures is used up: reloading would only read pages it refuses.
  if (readsPaused(settings, Date.now())) return void (await save({ watchState: "capped" }));
  if (settings.watchReloadAt && Date.now() - settings.watchReloadAt < minGapMs(settings)) return;
  const hours = await workingHours(settings);
  if (workingHoursProblem(hours)) return void (await save({ watchState: "bad-hours" }));
  if (!withinWorkingHours(hours, new Date())) return void (await save({ watchState: "outside-hours" }));
  const idle = await chrome.idle.queryState(60);
  if (idle !== "active") return void (await save({ watchState: idle === "locked" ? "locked" : "idle" }));
  const index = (settings.watchIndex ?? 0) % urls.length;
  const url = urls[index]!;
  let tabId = settings.watchTabId;
  const tab = tabId === undefined ? undefined : await chrome.tabs.get(tabId).catch(() => undefined);
  if (tab?.id !== undefined) await chrome.tabs.update(tab.id, { url });
  else tabId = (await chrome.tabs.create({ url, pinned: true, active: false })).id;
  await save({ watchTabId: tabId, watchIndex: index + 1, watchReloadAt: Date.now(), watchState: "watching" });
}

async function onPage(message: PageReport): Promise<void> {
  const settings = await load();
  if (!settings.server || !settings.apiKey) return;
  const { kind, jobs } = message.extraction;
  // Where the marketplace is for tasks that name no page (freelancers.list, session.reconnect): the last one browsed.
  const siteBase = siteBaseOf(message.href, settings.server ? [new URL(settings.server).origin] : []);
  if (siteBase && kind !== "other" && siteBase !== settings.siteBase) await save({ siteBase });
  if (kind === "login" || kind === "challenge") {
    if (settings.needsYou !== kind) {
      await save({ needsYou: kind, lastStatus: `needs you: the marketplace shows a ${kind === "login" ? "login" : "bot-check"} page` });
      await chrome.action.setBadgeText({ text: "!" });
      await reportWatch({ ...settings, needsYou: kind });
    }
    return;
  }
  if (settings.needsYou && (kind === "search" || kind === "job")) {
    // The user solved it: the marketplace reads normally again.
    await save({ needsYou: null });
    await reportWatch({ ...settings, needsYou: null });
  }
  if (jobs.length === 0) return;
  const res = await call(settings, "/api/v1/capture/jobs", { pageUrl: message.href, jobs });
  if (!res) return;
  if (res.status === 401) {
    await save({ lastStatus: "the server refused the key: pair again" });
    return;
  }
  if (res.status === 429) {
    // companionReadsPerHour: watching stops until the time the server names (the state line shows its words).
    await save({ ...readsPause(await res.json().catch(() => null), res.headers.get("retry-after"), Date.now()), watchState: "capped" });
    return;
  }
  if (!res.ok) {
    await save({ lastStatus: `the server answered ${res.status}` });
    return;
  }
  const result = (await res.json()) as { inserted: number; received: number };
  const sentCount = ((await load()).sentCount ?? 0) + result.received;
  await save({ sentCount, lastStatus: `sent ${result.received} jobs (${result.inserted} new) at ${new Date().toLocaleTimeString()}` });
  await chrome.action.setBadgeText({ text: String(sentCount) });
}

/** The content script registered for the paired server's sandbox website, when that server is not one the manifest lists. */
const PAIRED_SCRIPT = "paired-sandbox";
let scriptSync = Promise.resolve();

/**
 * Runs the content script on the paired server's sandbox website while this extension may read that host (the
 * options page asks for it when pairing; the user may take it back on chrome://extensions). Serialised: two
 * overlapping syncs would register the same id twice.
 */
function syncPairedScript(): Promise<void> {
  scriptSync = scriptSync
    .then(async () => {
      const { server } = await load();
      const wanted = server ? hostPermissionFor(server) : null;
      const allowed = wanted !== null && (await chrome.permissions.contains({ origins: [wanted] }));
      const matches = allowed ? [sandboxMatchFor(server!)] : [];
      const [registered] = await chrome.scripting.getRegisteredContentScripts({ ids: [PAIRED_SCRIPT] });
      if (registered && registered.matches?.join() === matches.join()) return;
      if (registered) await chrome.scripting.unregisterContentScripts({ ids: [PAIRED_SCRIPT] });
      if (allowed) {
        await chrome.scripting.registerContentScripts([
          { id: PAIRED_SCRIPT, matches, js: ["content.js"], runAt: "document_idle", persistAcrossSessions: true },
        ]);
      }
    })
    .catch(async (err) => {
      await save({ lastStatus: `could not set up reading the paired server's sandbox website: ${String(err)}` });
    });
  return scriptSync;
}

chrome.runtime.onMessage.addListener((message: PageReport | BoostReport | { type: "focus"; applicationId: string }, sender, sendResponse) => {
  // Only this extension's own pages and content scripts.
  if (sender.id !== chrome.runtime.id) return;
  if (message?.type === "page") void onPage(message);
  if (message?.type === "boost" && sender.tab?.id !== undefined) void noteBoost(sender.tab.id, message.boost);
  if (message?.type === "focus") {
    void focusApplication(message.applicationId).then(sendResponse);
    return true;
  }
});

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === POLL_ALARM) void ensurePolling();
  if (alarm.name !== ALARM) return;
  void reloadNext().finally(() => void schedule());
});

chrome.storage.onChanged.addListener((changes) => {
  if ("watchEnabled" in changes || "watchUrls" in changes || "intervalMin" in changes || "testIntervalMs" in changes) {
    void (async () => {
      const settings = await load();
      // A watch turned off forgets why it last waited, so turning it on again does not show a stale reason.
      if (!settings.watchEnabled && settings.watchState) await chrome.storage.local.remove("watchState");
      await reportWatch(settings);
      // A new watch starts at once; later reloads follow the interval.
      if (settings.watchEnabled) await reloadNext();
      await schedule();
    })();
  }
  if ("needsYou" in changes && changes.needsYou?.newValue == null && changes.needsYou?.oldValue) void schedule();
  if ("apiKey" in changes || "server" in changes) void ensurePolling();
  if ("server" in changes) void syncPairedScript();
});

chrome.permissions.onAdded.addListener(() => void syncPairedScript());
chrome.permissions.onRemoved.addListener(() => void syncPairedScript());

chrome.action.onClicked.addListener(() => void chrome.runtime.openOptionsPage());
chrome.runtime.onStartup.addListener(() => void schedule());
chrome.runtime.onInstalled.addListener((details) => {
  void (async () => {
    // An update from a version with a shorter interval keeps watch on or off as the user chose, at the new floor.
    if (details.reason === "update") {
      const patch = upgradedWatchSettings(await load());
      if (patch) await save(patch);
    }
    await schedule();
  })();
});

// Each start of the service worker (install, browser start, reload, or woken by an event) resumes the companion's poll.
void chrome.alarms.create(POLL_ALARM, { periodInMinutes: 0.5 });
void ensurePolling();
void resumeReviews();
void syncPairedScript();
