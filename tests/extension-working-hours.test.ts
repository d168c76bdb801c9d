import { describe, expect, test } from "bun:test";
import { describeWorkingHours, localTime, parseWorkingHours, type WorkingHours, withinWorkingHours, workingHoursProblem } from "../extension/src/working-hours";

// Office hours in Berlin; every instant below is written in UTC, so the test says what the zone's offset must do.
const office: WorkingHours = { timeZone: "Europe/Berlin", days: [1, 2, 3, 4, 5], start: "09:00", end: "18:00" };
const at = (iso: string) => new Date(iso);

describe("withinWorkingHours (the companion's watch mode)", () => {
  test("no working hours set: any time", () => {
    expect(withinWorkingHours(null, at("2026-12-06T03:00:00Z"))).toBe(true);
  });

  test("a weekday inside, before and after, in the zone's own time (CET is UTC+1 in December)", () => {
    // Wednesday 2 December 2026.
    expect(withinWorkingHours(office, at("2026-12-02T07:59:00Z"))).toBe(false); // 08:59 in Berlin
    expect(withinWorkingHours(office, at("2026-12-02T08:00:00Z"))).toBe(true); // 09:00: the start is inside
    expect(withinWorkingHours(office, at("2026-12-02T12:30:00Z"))).toBe(true);
    expect(withinWorkingHours(office, at("2026-12-02T16:59:00Z"))).toBe(true); // 17:59
    expect(withinWorkingHours(office, at("2026-12-02T17:00:00Z"))).toBe(false); // 18:00: the end is outside
  });

  test("the weekend is outside, and the weekday is Berlin's, not UTC's", () => {
    expect(withinWorkingHours(office, at("2026-12-05T11:00:00Z"))).toBe(false); // Saturday noon
    expect(withinWorkingHours(office, at("2026-12-06T11:00:00Z"))).toBe(false); // Sunday noon
    // Sunday 23:30 UTC is already Monday 00:30 in Berlin.
    const earlyMonday: WorkingHours = { ...office, start: "00:00", end: "01:00" };
    expect(withinWorkingHours(earlyMonday, at("2026-12-06T23:30:00Z"))).toBe(true);
    expect(withinWorkingHours({ ...earlyMonday, days: [0] }, at("2026-12-06T23:30:00Z"))).toBe(false);
  });

  test("a night shift spanning midnight belongs to the day it starts on", () => {
    const fridayNight: WorkingHours = { timeZone: "Europe/Berlin", days: [5], start: "22:00", end: "06:00" };
    expect(withinWorkingHours(fridayNight, at("2026-12-04T20:59:00Z"))).toBe(false); // Friday 21:59
    expect(withinWorkingHours(fridayNight, at("2026-12-04T22:00:00Z"))).toBe(true); // Friday 23:00
    expect(withinWorkingHours(fridayNight, at("2026-12-05T02:00:00Z"))).toBe(true); // Saturday 03:00
    expect(withinWorkingHours(fridayNight, at("2026-12-05T05:00:00Z"))).toBe(false); // Saturday 06:00: ended
    expect(withinWorkingHours(fridayNight, at("2026-12-05T21:30:00Z"))).toBe(false); // Saturday 22:30: no Saturday shift
    expect(withinWorkingHours(fridayNight, at("2026-12-04T02:00:00Z"))).toBe(false); // Friday 03:00: Thursday's shift
  });

  test("a DST day in Europe/Berlin: the offset moves from +1 to +2 on 29 March 2026", () => {
    const everyDay: WorkingHours = { ...office, days: [0, 1, 2, 3, 4, 5, 6] };
    // 16:30 UTC on the DST Sunday is 18:30 CEST (outside); a fixed +1 offset would say 17:30 (inside).
    expect(withinWorkingHours(everyDay, at("2026-03-29T16:30:00Z"))).toBe(false);
    expect(withinWorkingHours(everyDay, at("2026-03-29T07:00:00Z"))).toBe(true); // 09:00 CEST
    // The same UTC time the Sunday before is 17:30 CET: inside.
    expect(withinWorkingHours(everyDay, at("2026-03-22T16:30:00Z"))).toBe(true);
    // Monday after: 07:00 UTC is 09:00 CEST (inside), 06:30 UTC is 08:30 (outside).
    expect(withinWorkingHours(office, at("2026-03-30T07:00:00Z"))).toBe(true);
    expect(withinWorkingHours(office, at("2026-03-30T06:30:00Z"))).toBe(false);
    expect(localTime("Europe/Berlin", at("2026-03-29T01:00:00Z"))).toEqual({ day: 0, minutes: 3 * 60 }); // 02:00 never happens
  });

  test("an invalid time zone is never within, and the problem names it", () => {
    const mars: WorkingHours = { ...office, timeZone: "Mars/Olympus_Mons" };
    expect(withinWorkingHours(mars, at("2026-12-02T12:00:00Z"))).toBe(false);
    expect(workingHoursProblem(mars)).toBe(`your working hours' time zone "Mars/Olympus_Mons" is not one this browser knows`);
    expect(workingHoursProblem(office)).toBeNull();
    expect(workingHoursProblem(null)).toBeNull();
  });

  test("a time that is not HH:MM, or a day out of range, is never within", () => {
    expect(withinWorkingHours({ ...office, start: "9am" }, at("2026-12-02T12:00:00Z"))).toBe(false);
    expect(workingHoursProblem({ ...office, start: "9am" })).toContain('start "9am"');
    expect(workingHoursProblem({ ...office, end: "25:00" })).toContain('end "25:00"');
    expect(workingHoursProblem({ ...office, days: [1, 7] })).toContain("days");
    // "24:00" is the end of the day.
    expect(withinWorkingHours({ ...office, start: "18:00", end: "24:00" }, at("2026-12-02T22:59:00Z"))).toBe(true);
  });

  test("start equal to end is the whole of each listed day", () => {
    const allWednesday: WorkingHours = { ...office, days: [3], start: "00:00", end: "00:00" };
    expect(withinWorkingHours(allWednesday, at("2026-12-02T22:30:00Z"))).toBe(true); // Wednesday 23:30
    expect(withinWorkingHours(allWednesday, at("2026-12-03T00:30:00Z"))).toBe(false); // Thursday 01:30
  });

  test("the server's value is read defensively, and described in words", () => {
    expect(parseWorkingHours(null)).toBeNull();
    expect(parseWorkingHours({ timeZone: "Europe/Berlin", days: [1, 2, 3, 4, 5], start: "09:00", end: "18:00" })).toEqual(office);
    expect(parseWorkingHours({ timeZone: "Europe/Berlin" })).toBeUndefined();
    expect(parseWorkingHours("09:00-18:00")).toBeUndefined();
    expect(describeWorkingHours(office)).toBe("09:00–18:00 Europe/Berlin");
    expect(describeWorkingHours({ ...office, days: [6, 0], start: "10:00", end: "14:00" })).toBe("Sun, Sat 10:00–14:00 Europe/Berlin");
    expect(describeWorkingHours({ ...office, days: [0, 1, 2, 3, 4, 5, 6] })).toBe("every day 09:00–18:00 Europe/Berlin");
  });
});
