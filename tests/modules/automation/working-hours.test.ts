import { describe, expect, test } from "bun:test";
import { periodSpan } from "../../../src/modules/automation/periods";
import { nextWorkingStart, withinWorkingHours } from "../../../src/modules/automation/working-hours";

const BERLIN_WEEKDAYS = { timeZone: "Europe/Berlin", days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" };

describe("working hours", () => {
  test("inside, before, after, and over a weekend, on Berlin's clock", () => {
    // Tuesday 8 December 2026: Berlin is UTC+1.
    expect(nextWorkingStart(BERLIN_WEEKDAYS, Date.UTC(2026, 11, 8, 8, 0))).toBeNull(); // 09:00 Berlin
    expect(nextWorkingStart(BERLIN_WEEKDAYS, Date.UTC(2026, 11, 8, 7, 59))).toBe(Date.UTC(2026, 11, 8, 8, 0));
    expect(nextWorkingStart(BERLIN_WEEKDAYS, Date.UTC(2026, 11, 8, 16, 0))).toBe(Date.UTC(2026, 11, 9, 8, 0)); // 17:00: the end is out
    // Friday evening → Monday 09:00.
    expect(nextWorkingStart(BERLIN_WEEKDAYS, Date.UTC(2026, 11, 11, 17, 0))).toBe(Date.UTC(2026, 11, 14, 8, 0));
  });

  test("daylight saving time moves the hours with the zone's clocks", () => {
    // Monday 30 March 2026, after the change: Berlin is UTC+2, so 09:00 is 07:00 UTC.
    expect(nextWorkingStart(BERLIN_WEEKDAYS, Date.UTC(2026, 2, 30, 6, 30))).toBe(Date.UTC(2026, 2, 30, 7, 0));
    // Monday 23 March, before it: 08:00 UTC.
    expect(nextWorkingStart(BERLIN_WEEKDAYS, Date.UTC(2026, 2, 23, 7, 30))).toBe(Date.UTC(2026, 2, 23, 8, 0));
  });

  test("a night shift past midnight belongs to the day it starts on", () => {
    const night = { timeZone: "UTC", days: [5], start: "22:00", end: "02:00" }; // Fridays 22:00 → Saturday 02:00
    expect(withinWorkingHours(night, Date.UTC(2026, 11, 12, 1, 0))).toBe(true); // Saturday 01:00
    expect(withinWorkingHours(night, Date.UTC(2026, 11, 12, 2, 0))).toBe(false);
    expect(nextWorkingStart(night, Date.UTC(2026, 11, 12, 3, 0))).toBe(Date.UTC(2026, 11, 18, 22, 0));
    expect(withinWorkingHours(null, 0)).toBe(true);
  });
});

describe("periods", () => {
  test("day, week (Monday to Sunday) and month on the freelancer's wall clock", () => {
    const ts = Date.UTC(2026, 11, 6, 23, 30); // Monday 7 December 00:30 in Berlin, still Sunday in UTC
    expect(periodSpan("day", "Europe/Berlin", ts)).toEqual({ from: Date.UTC(2026, 11, 6, 23), to: Date.UTC(2026, 11, 7, 23), key: "2026-12-07" });
    expect(periodSpan("day", "UTC", ts).key).toBe("2026-12-06");
    expect(periodSpan("week", "Europe/Berlin", ts)).toEqual({ from: Date.UTC(2026, 11, 6, 23), to: Date.UTC(2026, 11, 13, 23), key: "2026-12-W7" });
    expect(periodSpan("week", "UTC", ts)).toMatchObject({ from: Date.UTC(2026, 10, 30), key: "2026-11-W30" });
    expect(periodSpan("month", "Europe/Berlin", Date.UTC(2026, 11, 31, 23, 30))).toMatchObject({ key: "2027-01", from: Date.UTC(2026, 11, 31, 23) });
  });
});
