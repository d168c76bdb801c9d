import { describe, expect, test } from "bun:test";
import { isOneOf } from "../../src/lib/one-of";

describe("isOneOf", () => {
  const KINDS = ["solo", "agency"] as const;

  test("true for a member, false for anything else (case, type, absence)", () => {
    expect(isOneOf(KINDS, "agency")).toBe(true);
    expect(isOneOf(KINDS, "Agency")).toBe(false);
    expect(isOneOf(KINDS, "")).toBe(false);
    expect(isOneOf(KINDS, undefined)).toBe(false);
    expect(isOneOf(KINDS, 1)).toBe(false);
  });

  test("narrows the value to the set's type", () => {
    const input: string = "solo";
    if (!isOneOf(KINDS, input)) throw new Error("expected a member");
    const kind: "solo" | "agency" = input;
    expect(kind).toBe("solo");
  });
});
