/** Unix ms as ISO 8601 in UTC ("2026-01-15T12:00:00.000Z"): the form of every time the API and the job documents carry. */
export function iso(ts: number): string {
  return new Date(ts).toISOString();
}

/** iso(), with null for no time. */
export function isoOrNull(ts: number | null): string | null {
  return ts === null ? null : iso(ts);
}

/** The UTC calendar month of a time, "2026-01": the period of monthly allowances and usage counts. */
export function monthOf(ts: number): string {
  return iso(ts).slice(0, 7);
}

const DAY_MS = 86_400_000;

/** UTC midnight of the day `ts` falls in: where "today" starts for daily counts. */
export function utcDayStart(ts: number): number {
  return Math.floor(ts / DAY_MS) * DAY_MS;
}
