/**
 * Wall clocks in IANA time zones, read through Intl (which follows daylight saving time): what a zone's clocks
 * show at an instant, its offset from UTC, and the instants at which they show a given wall time. Channels'
 * quiet hours, analytics by weekday and the dashboard's local times all go through here.
 */

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True for any zone name Intl accepts (channels' quiet hours take only exact names: channels/model.ts). */
export function isKnownZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** What the zone's clocks show at `ts` (month 1-based). */
export function wallTime(timeZone: string, ts: number): WallTime {
  const out: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(ts)) if (part.type !== "literal") out[part.type] = Number(part.value);
  return { year: out.year!, month: out.month!, day: out.day!, hour: out.hour! % 24, minute: out.minute!, second: out.second! };
}

/** The zone's offset from UTC at `ts` (local minus UTC), in ms. */
export function zoneOffsetMs(timeZone: string, ts: number): number {
  const w = wallTime(timeZone, ts);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ts / 1000) * 1000;
}

/**
 * The instants at which the zone's clocks show this wall time on this date (month 1-based; day may overflow,
 * as in Date.UTC), earliest first: one as a rule; two when clocks going back show it twice; and for a time
 * that never shows (clocks going forward over it), the moment of the change, when the clocks pass it.
 */
export function zonedInstants(timeZone: string, year: number, month: number, day: number, hour: number, minute: number, second = 0): number[] {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  // No zone changes its offset twice within two days, and no offset is as large as a day.
  const before = zoneOffsetMs(timeZone, wall - DAY_MS);
  const after = zoneOffsetMs(timeZone, wall + DAY_MS);
  const early = wall - before;
  const late = wall - after;
  const fits = (ts: number) => zoneOffsetMs(timeZone, ts) === wall - ts;
  const candidates = [...new Set([early, late])].filter(fits).sort((a, b) => a - b);
  if (candidates.length > 0) return candidates;
  // In the gap of a forward change: between `late` and `early` the offset turns from `before` to `after`.
  let lo = Math.min(early, late);
  let hi = Math.max(early, late);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (zoneOffsetMs(timeZone, mid) === before) lo = mid;
    else hi = mid;
  }
  return [hi];
}
