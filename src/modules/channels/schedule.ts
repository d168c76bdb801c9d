/**
 * When a channel's alerts go: at once, at the end of its digest window, or
 * when its quiet hours end. Pure (time in, time out), so the deliverer and the
 * tests share it.
 *
 * Digest windows are fixed slices of time counted from the Unix epoch, so
 * "15m" ends at :00, :15, :30, :45 and "1h" on the hour (UTC; in every zone
 * with a whole-hour or half-hour offset "1h" is on the local hour too), and
 * every node of a cluster computes the same ends.
 *
 * Quiet hours are wall-clock times in an IANA time zone, read through Intl,
 * so daylight saving time moves them with the zone's clocks: 22:00 to 07:00
 * is nine hours on most nights, eight or ten across a change. A window may
 * cross midnight (from > to).
 */
import type { ChannelMode } from "../../db/enums";

export interface QuietHours {
  /** "HH:MM", 24 h */
  from: string;
  to: string;
  /** IANA name, e.g. Europe/Berlin */
  timeZone: string;
}

export interface DeliverySchedule {
  mode: ChannelMode;
  /** "15m", "1h", …; used in digest mode. */
  digestEvery: string | null;
  quietHours: QuietHours | null;
}

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** "15m" → 900000, "2h" → 7200000; null for anything else. */
export function digestPeriodMs(every: string | null): number | null {
  const m = /^([1-9]\d{0,3})(m|h)$/.exec(every ?? "");
  if (!m) return null;
  return Number(m[1]) * (m[2] === "h" ? 60 : 1) * MINUTE_MS;
}

/** The end of the digest window that `ts` falls in (a window holds [end - period, end)). */
export function digestWindowEnd(periodMs: number, ts: number): number {
  return Math.floor(ts / periodMs) * periodMs + periodMs;
}

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

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** What the zone's clocks show at `ts`. */
function wallTime(timeZone: string, ts: number): WallTime {
  const out: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(ts)) if (part.type !== "literal") out[part.type] = Number(part.value);
  return { year: out.year!, month: out.month!, day: out.day!, hour: out.hour!, minute: out.minute!, second: out.second! };
}

/** The zone's offset from UTC at `ts` (local minus UTC), in ms. */
function offsetMs(timeZone: string, ts: number): number {
  const w = wallTime(timeZone, ts);
  const seconds = Math.floor(ts / 1000) * 1000;
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - seconds;
}

/**
 * The instants at which the zone's clocks show this wall time on this date (month 1-based; day may overflow,
 * as in Date.UTC), earliest first: one as a rule; two when clocks going back show it twice; and for a time
 * that never shows (clocks going forward over it), the moment of the change, when the clocks pass it.
 */
export function zonedInstants(timeZone: string, year: number, month: number, day: number, hour: number, minute: number): number[] {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  // No zone changes its offset twice within two days, and no offset is as large as a day.
  const before = offsetMs(timeZone, wall - DAY_MS);
  const after = offsetMs(timeZone, wall + DAY_MS);
  const early = wall - before;
  const late = wall - after;
  const fits = (ts: number) => offsetMs(timeZone, ts) === wall - ts;
  const candidates = [...new Set([early, late])].filter(fits).sort((a, b) => a - b);
  if (candidates.length > 0) return candidates;
  // In the gap of a forward change: between `late` and `early` the offset turns from `before` to `after`.
  let lo = Math.min(early, late);
  let hi = Math.max(early, late);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetMs(timeZone, mid) === before) lo = mid;
    else hi = mid;
  }
  return [hi];
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether `ts` is inside the quiet hours: from (inclusive) to `to` (exclusive), wall-clock in their zone. */
export function isQuiet(q: QuietHours, ts: number): boolean {
  const w = wallTime(q.timeZone, ts);
  const now = w.hour * 60 + w.minute;
  const from = minutesOf(q.from);
  const to = minutesOf(q.to);
  return from < to ? now >= from && now < to : now >= from || now < to;
}

/** When the quiet hours that `ts` is in end: the next time the zone's clocks reach `to`. Call only when isQuiet(q, ts). */
export function quietEnd(q: QuietHours, ts: number): number {
  const w = wallTime(q.timeZone, ts);
  const to = minutesOf(q.to);
  const isToday = w.hour * 60 + w.minute < to;
  const ends = zonedInstants(q.timeZone, w.year, w.month, w.day + (isToday ? 0 : 1), Math.floor(to / 60), to % 60);
  // When clocks going back show `to` twice, `ts` may lie between the two: its end is the second.
  return ends.find((end) => end > ts) ?? ends[ends.length - 1]!;
}

/**
 * When an alert handled at `nowTs` goes out: null for now (an instant channel outside its quiet hours), else
 * the time its digest is sent: the end of the digest window, or of the quiet hours it falls in (a digest that
 * would go out inside quiet hours waits for their end, so the windows meanwhile make one digest).
 */
export function holdUntil(schedule: DeliverySchedule, nowTs: number): number | null {
  const period = schedule.mode === "digest" ? digestPeriodMs(schedule.digestEvery ?? "1h") : null;
  const sendAt = period === null ? nowTs : digestWindowEnd(period, nowTs);
  const q = schedule.quietHours;
  if (q && isQuiet(q, sendAt)) return quietEnd(q, sendAt);
  return period === null ? null : sendAt;
}
