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
import { wallTime, zonedInstants } from "../../lib/time-zone";

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
