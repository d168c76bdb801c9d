import { describe, expect, test } from "bun:test";
import { iso, isoOrNull, monthOf } from "../../src/lib/time";

const ts = Date.UTC(2026, 0, 31, 23, 59, 59, 250);

describe("time formatting", () => {
  test("iso is ISO 8601 in UTC with milliseconds", () => {
    expect(iso(ts)).toBe("2026-01-31T23:59:59.250Z");
    expect(iso(0)).toBe("1970-01-01T00:00:00.000Z");
  });

  test("isoOrNull keeps null (and 0 is a time, not null)", () => {
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull(ts)).toBe("2026-01-31T23:59:59.250Z");
    expect(isoOrNull(0)).toBe("1970-01-01T00:00:00.000Z");
  });

  test("monthOf is the UTC month, whatever the local time zone says", () => {
    expect(monthOf(ts)).toBe("2026-01");
    expect(monthOf(ts + 1000)).toBe("2026-02");
  });
});
