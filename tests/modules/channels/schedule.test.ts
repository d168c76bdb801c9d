import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { digestPeriodMs, digestWindowEnd, holdUntil, isQuiet, quietEnd } from "../../../src/modules/channels/schedule";
import { zonedInstants } from "../../../src/lib/time-zone";

// When a channel's alerts go: digest windows, and quiet hours in a time zone, across midnight and DST changes.

const at = (iso: string) => Date.parse(iso);
const iso = (ts: number | null) => (ts === null ? null : new Date(ts).toISOString());
const BERLIN = { from: "22:00", to: "07:00", timeZone: "Europe/Berlin" };

describe("digest windows", () => {
  test("periods: minutes and hours; anything else is none", () => {
    expect(digestPeriodMs("15m")).toBe(900_000);
    expect(digestPeriodMs("1h")).toBe(3_600_000);
    expect(digestPeriodMs("24h")).toBe(86_400_000);
    for (const bad of [null, "", "0m", "15", "1d", "1.5h", " 1h"]) expect(digestPeriodMs(bad)).toBeNull();
  });

  test("a window ends on its period's boundary; an alert on the boundary opens the next window", () => {
    const q = 900_000;
    expect(iso(digestWindowEnd(q, at("2026-01-15T12:00:00Z")))).toBe("2026-01-15T12:15:00.000Z");
    expect(iso(digestWindowEnd(q, at("2026-01-15T12:14:59.999Z")))).toBe("2026-01-15T12:15:00.000Z");
    expect(iso(digestWindowEnd(q, at("2026-01-15T12:15:00Z")))).toBe("2026-01-15T12:30:00.000Z");
    expect(iso(digestWindowEnd(3_600_000, at("2026-01-15T23:59:00Z")))).toBe("2026-01-16T00:00:00.000Z");
  });

  test("holdUntil: instant without quiet hours sends now; digest holds to the window's end (1h by default)", () => {
    const now = at("2026-01-15T12:07:00Z");
    expect(holdUntil({ mode: "instant", digestEvery: null, quietHours: null }, now)).toBeNull();
    expect(iso(holdUntil({ mode: "digest", digestEvery: "15m", quietHours: null }, now))).toBe("2026-01-15T12:15:00.000Z");
    expect(iso(holdUntil({ mode: "digest", digestEvery: null, quietHours: null }, now))).toBe("2026-01-15T13:00:00.000Z");
  });
});

describe("quiet hours", () => {
  test("across midnight in the zone's wall time (Berlin is UTC+1 in winter)", () => {
    expect(isQuiet(BERLIN, at("2026-01-15T20:59:00Z"))).toBe(false); // 21:59
    expect(isQuiet(BERLIN, at("2026-01-15T21:00:00Z"))).toBe(true); // 22:00
    expect(isQuiet(BERLIN, at("2026-01-15T23:30:00Z"))).toBe(true); // 00:30
    expect(isQuiet(BERLIN, at("2026-01-16T05:59:00Z"))).toBe(true); // 06:59
    expect(isQuiet(BERLIN, at("2026-01-16T06:00:00Z"))).toBe(false); // 07:00
    // Before and after midnight, the same end: 07:00 the next morning.
    expect(iso(quietEnd(BERLIN, at("2026-01-15T21:00:00Z")))).toBe("2026-01-16T06:00:00.000Z");
    expect(iso(quietEnd(BERLIN, at("2026-01-16T02:00:00Z")))).toBe("2026-01-16T06:00:00.000Z");
  });

  test("within one day (13:00 to 15:00 in New York)", () => {
    const q = { from: "13:00", to: "15:00", timeZone: "America/New_York" };
    expect(isQuiet(q, at("2026-01-15T17:59:00Z"))).toBe(false); // 12:59 EST
    expect(isQuiet(q, at("2026-01-15T18:00:00Z"))).toBe(true);
    expect(iso(quietEnd(q, at("2026-01-15T19:30:00Z")))).toBe("2026-01-15T20:00:00.000Z");
    expect(isQuiet(q, at("2026-01-15T20:00:00Z"))).toBe(false);
  });

  test("the night clocks go forward (Berlin, 29 March 2026): quiet ends at 07:00 CEST, one hour earlier in UTC", () => {
    const evening = at("2026-03-28T21:00:00Z"); // 22:00 CET
    expect(isQuiet(BERLIN, evening)).toBe(true);
    expect(iso(quietEnd(BERLIN, evening))).toBe("2026-03-29T05:00:00.000Z");
    expect(isQuiet(BERLIN, at("2026-03-29T04:59:00Z"))).toBe(true); // 06:59 CEST
    expect(isQuiet(BERLIN, at("2026-03-29T05:00:00Z"))).toBe(false);
  });

  test("the night clocks go back (Berlin, 25 October 2026): quiet ends at 07:00 CET, one hour later in UTC", () => {
    expect(iso(quietEnd(BERLIN, at("2026-10-24T20:00:00Z")))).toBe("2026-10-25T06:00:00.000Z");
  });

  test("an end that falls in the skipped hour is the moment the clocks jump past it", () => {
    const q = { from: "22:00", to: "02:30", timeZone: "Europe/Berlin" };
    // 02:00 CET becomes 03:00 CEST at 01:00 UTC: 02:30 never shows, quiet ends at the jump.
    expect(zonedInstants("Europe/Berlin", 2026, 3, 29, 2, 30).map(iso)).toEqual(["2026-03-29T01:00:00.000Z"]);
    expect(iso(quietEnd(q, at("2026-03-28T23:00:00Z")))).toBe("2026-03-29T01:00:00.000Z");
  });

  test("an end in the repeated hour: the first 02:30, or the second for an alert in between", () => {
    const q = { from: "22:00", to: "02:30", timeZone: "Europe/Berlin" };
    expect(zonedInstants("Europe/Berlin", 2026, 10, 25, 2, 30).map(iso)).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-25T01:30:00.000Z"]);
    expect(iso(quietEnd(q, at("2026-10-24T23:00:00Z")))).toBe("2026-10-25T00:30:00.000Z");
    // 02:15 CET, after the clocks went back: quiet again until 02:30 CET.
    expect(isQuiet(q, at("2026-10-25T01:15:00Z"))).toBe(true);
    expect(iso(quietEnd(q, at("2026-10-25T01:15:00Z")))).toBe("2026-10-25T01:30:00.000Z");
  });

  test("holdUntil: an instant alert in quiet hours waits for their end; a digest due inside them waits too", () => {
    const night = at("2026-01-15T23:10:00Z"); // 00:10 in Berlin
    expect(iso(holdUntil({ mode: "instant", digestEvery: null, quietHours: BERLIN }, night))).toBe("2026-01-16T06:00:00.000Z");
    expect(holdUntil({ mode: "instant", digestEvery: null, quietHours: BERLIN }, at("2026-01-16T06:00:00Z"))).toBeNull();
    // The 21:00–22:00 (Berlin) hour's digest would go at 22:00, which is quiet: it goes at 07:00 with the night's alerts.
    expect(iso(holdUntil({ mode: "digest", digestEvery: "1h", quietHours: BERLIN }, at("2026-01-15T20:30:00Z")))).toBe("2026-01-16T06:00:00.000Z");
    expect(iso(holdUntil({ mode: "digest", digestEvery: "1h", quietHours: BERLIN }, at("2026-01-15T19:30:00Z")))).toBe("2026-01-15T20:00:00.000Z");
  });

  test("property: every minute from an alert in quiet hours to their end is quiet, and the end is not", () => {
    const zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/Santiago", "UTC"];
    const hhmm = fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`);
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        hhmm,
        hhmm,
        fc.integer({ min: at("2026-01-01T00:00:00Z"), max: at("2027-12-31T00:00:00Z") }),
        (timeZone, from, to, ts) => {
          fc.pre(from !== to);
          const q = { from, to, timeZone };
          const start = Math.floor(ts / 60_000) * 60_000;
          fc.pre(isQuiet(q, start));
          const end = quietEnd(q, start);
          expect(end).toBeGreaterThan(start);
          expect(end - start).toBeLessThanOrEqual(25 * 3_600_000);
          expect(isQuiet(q, end)).toBe(false);
          for (let t = start; t < end; t += 60_000) if (!isQuiet(q, t)) throw new Error(`${iso(t)} is not quiet before the end ${iso(end)}`);
        },
      ),
      { numRuns: 150 },
    );
  });
});
