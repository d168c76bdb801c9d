/**
 * Watch mode's rules that both the service worker and the options page apply, kept pure so bun can test them
 * (tests/extension-watch.test.ts): the interval's floor, the upgrade from versions with a shorter one, and the
 * state line the options page shows.
 */
import type { Settings } from "./messages";
import { DEFAULT_INTERVAL_MIN, MIN_INTERVAL_MIN } from "./messages";
import { describeWorkingHours, workingHoursProblem } from "./working-hours";

/** The interval in minutes the worker uses: the stored one, never under the floor. */
export function intervalMinutes(settings: Pick<Settings, "intervalMin">): number {
  const stored = settings.intervalMin;
  return typeof stored === "number" && Number.isFinite(stored) ? Math.max(MIN_INTERVAL_MIN, stored) : DEFAULT_INTERVAL_MIN;
}

/**
 * What an update from an older version changes: an interval under the floor (the old default was 5, the old minimum
 * 2) is raised to it. Watch stays on or off as the user had it. null when nothing changes.
 */
export function upgradedWatchSettings(settings: Pick<Settings, "intervalMin">): Partial<Settings> | null {
  if (typeof settings.intervalMin === "number" && settings.intervalMin < MIN_INTERVAL_MIN) return { intervalMin: MIN_INTERVAL_MIN };
  return null;
}

/** The options page's interval field read: whole minutes from the floor up to a day, or the error in the label's words. */
export function readInterval(text: string): { minutes: number } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { error: `Reload every … minutes: enter a number of minutes, at least ${MIN_INTERVAL_MIN}.` };
  const minutes = Number(trimmed);
  if (!Number.isInteger(minutes)) return { error: `Reload every … minutes: enter whole minutes, at least ${MIN_INTERVAL_MIN}.` };
  if (minutes < MIN_INTERVAL_MIN)
    return {
      error: `Reload every … minutes must be at least ${MIN_INTERVAL_MIN}: reloading more often is what the marketplace counts as a bot.`,
    };
  if (minutes > 1440) return { error: "Reload every … minutes can be at most 1440 (once a day)." };
  return { minutes };
}

/** When the server gives no usable retry-after with a refusal, the companion waits out a whole hour. */
const CAP_PAUSE_FALLBACK_MS = 60 * 60_000;

/**
 * What a 429 from a capture or "my proposals" answer sets (the governor's companionReadsPerHour): reads pause until
 * the time its retry-after names, and the state line shows the server's `{ error }`, which names the limit.
 */
export function readsPause(body: unknown, retryAfter: string | null, nowTs: number): Pick<Settings, "readsPausedUntil" | "readsPausedReason" | "lastStatus"> {
  const error = typeof (body as { error?: unknown } | null)?.error === "string" ? (body as { error: string }).error : "";
  const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : null;
  const until = nowTs + (seconds !== null && seconds > 0 ? seconds * 1000 : CAP_PAUSE_FALLBACK_MS);
  const reason = error || "the server refused more captures and reads this hour (companionReadsPerHour)";
  return { readsPausedUntil: until, readsPausedReason: reason, lastStatus: `paused until ${new Date(until).toLocaleTimeString()}: ${reason}` };
}

/** Whether reads are paused by the server's cap at `nowTs`. */
export const readsPaused = (settings: Pick<Settings, "readsPausedUntil">, nowTs: number) => (settings.readsPausedUntil ?? 0) > nowTs;

/** The watch state in words, as the options page shows it, and a short key for styling. */
export function watchStateLine(settings: Settings): { text: string; state: "off" | "on" | "waiting" } {
  if (!settings.watchEnabled) return { text: "Off", state: "off" };
  if (!settings.watchUrls?.length) return { text: "Waiting: no saved searches to watch", state: "waiting" };
  if (settings.needsYou)
    return {
      text: `Waiting: the marketplace shows a ${settings.needsYou === "login" ? "login" : "bot-check"} page; solve it in the watch tab`,
      state: "waiting",
    };
  if (readsPaused(settings, Date.now()))
    return {
      text: `Waiting until ${new Date(settings.readsPausedUntil!).toLocaleTimeString()}: ${settings.readsPausedReason ?? "the server's hourly cap on companion reads is used up"}`,
      state: "waiting",
    };
  const hours = settings.workingHours ?? null;
  const problem = workingHoursProblem(hours);
  if (problem || settings.watchState === "bad-hours")
    return { text: `Waiting: ${problem ?? "your working hours cannot be read"}; fix them on the dashboard's Auto-apply page`, state: "waiting" };
  const where = hours ? ` (${describeWorkingHours(hours)})` : "";
  if (settings.watchState === "outside-hours") return { text: `Waiting: outside your working hours${where}`, state: "waiting" };
  if (settings.watchState === "idle") return { text: "Waiting: the browser is idle", state: "waiting" };
  if (settings.watchState === "locked") return { text: "Waiting: the screen is locked", state: "waiting" };
  const every = `every ${intervalMinutes(settings)} min`;
  return {
    text: hours
      ? `Watching ${every} in your working hours${where} while you use the browser`
      : `Watching ${every} while you use the browser (no working hours set on the dashboard: any time of day)`,
    state: "on",
  };
}
