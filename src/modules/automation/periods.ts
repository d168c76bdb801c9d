/**
 * The periods caps and budgets count in: the calendar day, the week (Monday to Sunday) and the month, on the
 * freelancer's wall clock (their working hours' time zone, else UTC), so "15 a day" resets at their midnight.
 */
import { wallTime, zonedInstants } from "../../lib/time-zone";

export type Period = "day" | "week" | "month";

export interface PeriodSpan {
  from: number;
  to: number;
  /** A name for the period: 2026-12-02, 2026-12-W1 (the week starting Monday the 1st) or 2026-12. */
  key: string;
}

const pad = (n: number) => String(n).padStart(2, "0");
const startOf = (tz: string, y: number, m: number, d: number) => zonedInstants(tz, y, m, d, 0, 0)[0]!;

export function periodSpan(period: Period, timeZone: string, ts: number): PeriodSpan {
  const w = wallTime(timeZone, ts);
  if (period === "month") {
    return { from: startOf(timeZone, w.year, w.month, 1), to: startOf(timeZone, w.year, w.month + 1, 1), key: `${w.year}-${pad(w.month)}` };
  }
  if (period === "day") {
    return {
      from: startOf(timeZone, w.year, w.month, w.day),
      to: startOf(timeZone, w.year, w.month, w.day + 1),
      key: `${w.year}-${pad(w.month)}-${pad(w.day)}`,
    };
  }
  // Monday is day 1 of the week; Sunday (0) the 7th.
  const weekday = new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay();
  const monday = w.day - ((weekday + 6) % 7);
  const first = new Date(Date.UTC(w.year, w.month - 1, monday));
  return {
    from: startOf(timeZone, w.year, w.month, monday),
    to: startOf(timeZone, w.year, w.month, monday + 7),
    key: `${first.getUTCFullYear()}-${pad(first.getUTCMonth() + 1)}-W${first.getUTCDate()}`,
  };
}
