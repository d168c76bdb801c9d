/**
 * The freelancer's working hours (the server's `GET /api/v1/automation` → `limits.workingHours`): watch mode reloads
 * only inside them, so the companion is never busy on the marketplace at hours the freelancer does not work.
 * Pure functions, unit-tested with bun (tests/extension-working-hours.test.ts).
 */

/** As the server sends it. days: 0 = Sunday … 6 = Saturday; start/end "HH:MM" local to timeZone; end before start spans midnight. */
export interface WorkingHours {
  timeZone: string;
  days: number[];
  start: string;
  end: string;
}

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const DAY_NAMES = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** "09:00" → 540; null for anything else (hours 00–23, minutes 00–59; "24:00" is accepted as the end of the day). */
export function minutesOf(hhmm: string): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!m) return null;
  const [h, min] = [Number(m[1]), Number(m[2])];
  if (h === 24 && min === 0) return 1440;
  return h < 24 && min < 60 ? h * 60 + min : null;
}

/** The weekday and minutes since midnight at `now` in `timeZone`; null when the browser does not know the zone. */
export function localTime(timeZone: string, now: Date): { day: number; minutes: number } | null {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(now);
  } catch {
    return null; // RangeError: an unknown time zone
  }
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const day = WEEKDAYS[get("weekday")];
  // Some engines still write midnight as "24" with h23; it is hour 0.
  const hour = Number(get("hour")) % 24;
  const minute = Number(get("minute"));
  if (day === undefined || Number.isNaN(hour) || Number.isNaN(minute)) return null;
  return { day, minutes: hour * 60 + minute };
}

/**
 * Why these hours cannot be used, in words for the options page; null when they can. A bad value stops watching
 * rather than letting it run at any hour: the freelancer asked for limits, so a broken limit is not "no limit".
 */
export function workingHoursProblem(hours: WorkingHours | null): string | null {
  if (hours === null) return null;
  if (localTime(hours.timeZone, new Date(0)) === null) return `your working hours' time zone "${hours.timeZone}" is not one this browser knows`;
  if (minutesOf(hours.start) === null || minutesOf(hours.start) === 1440) return `your working hours' start "${hours.start}" is not a time of day (HH:MM)`;
  if (minutesOf(hours.end) === null) return `your working hours' end "${hours.end}" is not a time of day (HH:MM)`;
  if (!Array.isArray(hours.days) || hours.days.some((d) => !Number.isInteger(d) || d < 0 || d > 6))
    return "your working hours' days are not weekdays 0 (Sunday) to 6 (Saturday)";
  return null;
}

/**
 * Whether `now` is inside the working hours. null (no working hours set) is any time. A shift whose end is before
 * its start runs past midnight and belongs to the day it started on (Friday 22:00–06:00 covers Saturday 03:00).
 * start equal to end is the whole of each listed day. Unusable hours (workingHoursProblem) are never within.
 */
export function withinWorkingHours(hours: WorkingHours | null, now: Date): boolean {
  if (hours === null) return true;
  if (workingHoursProblem(hours) !== null) return false;
  const local = localTime(hours.timeZone, now)!;
  const start = minutesOf(hours.start)!;
  const end = minutesOf(hours.end)!;
  const on = (day: number) => hours.days.includes(day);
  if (start === end) return on(local.day);
  if (start < end) return on(local.day) && local.minutes >= start && local.minutes < end;
  if (local.minutes >= start) return on(local.day);
  return local.minutes < end && on((local.day + 6) % 7);
}

/** "09:00–18:00 Europe/Berlin", plus the days when they are not Monday to Friday ("Sat, Sun 10:00–14:00 Europe/Berlin"). */
export function describeWorkingHours(hours: WorkingHours): string {
  const days = [...new Set(hours.days)].sort((a, b) => a - b);
  const weekdays = days.join() === "1,2,3,4,5";
  const dayText = weekdays ? "" : `${days.length === 7 ? "every day" : days.map((d) => DAY_NAMES[d] ?? String(d)).join(", ")} `;
  return `${dayText}${hours.start}–${hours.end} ${hours.timeZone}`;
}

/** The server's `limits.workingHours` read defensively: an object of the right shape, null, or undefined when it is neither. */
export function parseWorkingHours(value: unknown): WorkingHours | null | undefined {
  if (value === null) return null;
  if (typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.timeZone !== "string" || typeof v.start !== "string" || typeof v.end !== "string" || !Array.isArray(v.days)) return undefined;
  return { timeZone: v.timeZone, start: v.start, end: v.end, days: v.days.filter((d): d is number => typeof d === "number") };
}
