import { describe, expect, test } from "bun:test";
import { retryAfterMs } from "../../src/lib/retry-after";

const now = Date.UTC(2026, 0, 15, 12, 0, 0);

describe("retryAfterMs", () => {
  test("delay-seconds, whole or fractional, surrounding spaces ignored", () => {
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs(" 30 ", now)).toBe(30_000);
    expect(retryAfterMs("0", now)).toBe(0);
    expect(retryAfterMs("1.5", now)).toBe(1500);
  });

  test("an HTTP date: ms from now, 0 once it has passed", () => {
    expect(retryAfterMs(new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
    expect(retryAfterMs("Thu, 15 Jan 2026 12:05:00 GMT", now)).toBe(300_000);
    expect(retryAfterMs("Thu, 15 Jan 2026 11:00:00 GMT", now)).toBe(0);
  });

  test("absent, blank, negative or unreadable: null", () => {
    expect(retryAfterMs(null, now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs("  ", now)).toBeNull();
    expect(retryAfterMs("-5", now)).toBeNull();
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs("Infinity", now)).toBeNull();
  });
});
