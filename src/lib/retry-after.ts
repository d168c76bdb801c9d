/**
 * A Retry-After header (RFC 9110: delay-seconds or an HTTP date) as milliseconds
 * from `nowTs`; null when absent or unreadable. Fractional seconds are read too,
 * as HTTP clients commonly do; a negative number is unreadable; a date already
 * past is 0. Callers cap the wait to what they are willing to honour.
 */
export function retryAfterMs(header: string | null | undefined, nowTs: number): number | null {
  if (header === null || header === undefined) return null;
  const value = header.trim();
  if (value === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : null;
  // Numbers are settled above on purpose: Date.parse reads even "0" and "-5" as years.
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - nowTs) : null;
}
