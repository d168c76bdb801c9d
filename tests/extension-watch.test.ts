import { describe, expect, test } from "bun:test";
import { DEFAULT_INTERVAL_MIN, MIN_INTERVAL_MIN } from "../extension/src/messages";
import { intervalMinutes, readInterval, upgradedWatchSettings, watchStateLine } from "../extension/src/watch";

const berlin = { timeZone: "Europe/Berlin", days: [1, 2, 3, 4, 5], start: "09:00", end: "18:00" };
const on = { watchEnabled: true, watchUrls: ["https://www.upwork.com/nx/search/jobs/?q=react"] };

describe("watch mode's rules (the companion)", () => {
  test("the floor is 15 minutes, and the default is the floor", () => {
    expect(MIN_INTERVAL_MIN).toBe(15);
    expect(DEFAULT_INTERVAL_MIN).toBeGreaterThanOrEqual(MIN_INTERVAL_MIN);
    expect(intervalMinutes({})).toBe(DEFAULT_INTERVAL_MIN);
    expect(intervalMinutes({ intervalMin: 2 })).toBe(15); // an older version's stored minimum
    expect(intervalMinutes({ intervalMin: 45 })).toBe(45);
    expect(intervalMinutes({ intervalMin: Number.NaN })).toBe(DEFAULT_INTERVAL_MIN);
  });

  test("an update raises an interval under the floor and leaves watch on or off alone", () => {
    expect(upgradedWatchSettings({ intervalMin: 5 })).toEqual({ intervalMin: 15 });
    expect(upgradedWatchSettings({ intervalMin: 30 })).toBeNull();
    expect(upgradedWatchSettings({})).toBeNull();
    expect(Object.keys(upgradedWatchSettings({ intervalMin: 2 })!)).toEqual(["intervalMin"]);
  });

  test("the interval field refuses less than 15, fractions, blanks and more than a day, in the label's words", () => {
    expect(readInterval("15")).toEqual({ minutes: 15 });
    expect(readInterval(" 60 ")).toEqual({ minutes: 60 });
    for (const bad of ["5", "14", "0", "-20", "15.5", "", "abc", "1441"]) {
      const read = readInterval(bad);
      expect("error" in read, bad).toBe(true);
      expect((read as { error: string }).error).toStartWith("Reload every … minutes");
    }
    expect((readInterval("5") as { error: string }).error).toContain("at least 15");
  });

  test("the state line says what watch mode is doing, in words", () => {
    expect(watchStateLine({}).text).toBe("Off");
    expect(watchStateLine({ ...on, watchEnabled: false, watchState: "idle" }).text).toBe("Off");
    expect(watchStateLine({ ...on, workingHours: berlin }).text).toBe(
      "Watching every 15 min in your working hours (09:00–18:00 Europe/Berlin) while you use the browser",
    );
    expect(watchStateLine({ ...on, intervalMin: 30 }).text).toBe(
      "Watching every 30 min while you use the browser (no working hours set on the dashboard: any time of day)",
    );
    expect(watchStateLine({ ...on, workingHours: berlin, watchState: "outside-hours" }).text).toBe(
      "Waiting: outside your working hours (09:00–18:00 Europe/Berlin)",
    );
    expect(watchStateLine({ ...on, watchState: "idle" }).text).toBe("Waiting: the browser is idle");
    expect(watchStateLine({ ...on, watchState: "locked" }).text).toBe("Waiting: the screen is locked");
    expect(watchStateLine({ ...on, workingHours: { ...berlin, timeZone: "Mars/Base" }, watchState: "bad-hours" }).text).toBe(
      `Waiting: your working hours' time zone "Mars/Base" is not one this browser knows; fix them on the dashboard's Auto-apply page`,
    );
    expect(watchStateLine({ ...on, needsYou: "login" }).state).toBe("waiting");
    expect(watchStateLine({ watchEnabled: true }).text).toBe("Waiting: no saved searches to watch");
  });
});
