/**
 * A freelancer's working hours: the days and the wall-clock span in their time zone when automation may act for
 * them. Pure (time in, time out), read through lib/time-zone.ts so daylight saving time moves the hours with the
 * zone's clocks. A span may cross midnight (end before start: a night shift belongs to the day it starts on).
 */
import { wallTime, zonedInstants } from "../../lib/time-zone";

export interface WorkingHours {
  /** IANA name, e.g. Europe/Berlin. */
  timeZone: string;
  /** 0 = Sunday … 6 = Saturday: the days a span starts on. */
  days: number[];
  /** "HH:MM", 24 h. */
  start: string;
  end: string;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const weekday = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).getUTCDay();

/** The span that starts on the wall date (y, m, d + offset), as instants [from, to). */
function spanOn(h: WorkingHours, y: number, m: number, d: number): [number, number] {
  const s = minutesOf(h.start);
  const e = minutesOf(h.end);
  const from = zonedInstants(h.timeZone, y, m, d, Math.floor(s / 60), s % 60)[0]!;
  const endDay = e > s ? d : d + 1;
  const to = zonedInstants(h.timeZone, y, m, endDay, Math.floor(e / 60), e % 60).at(-1)!;
  return [from, to];
}

/**
 * Null when `ts` is inside the working hours, else the instant the next span starts. A span starting yesterday
 * (a night shift) counts too. Within 8 days there is always a start when `days` is not empty.
 */
export function nextWorkingStart(h: WorkingHours, ts: number): number | null {
  if (h.days.length === 0) return null;
  const w = wallTime(h.timeZone, ts);
  for (let offset = -1; offset <= 8; offset++) {
    const day = weekday(w.year, w.month, w.day + offset);
    if (!h.days.includes(day)) continue;
    const [from, to] = spanOn(h, w.year, w.month, w.day + offset);
    if (ts >= from && ts < to) return null;
    if (from > ts) return from;
  }
  return null;
}

export const withinWorkingHours = (h: WorkingHours | null, ts: number): boolean => h === null || nextWorkingStart(h, ts) === null;
