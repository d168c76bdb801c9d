import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  ABORTED,
  count,
  currencyCode,
  detailRoots,
  first,
  firstNum,
  firstStr,
  gqlRoot,
  idStr,
  isAborted,
  isCount,
  isoTime,
  isPositive,
  jobType,
  num,
  numIf,
  obj,
  paymentVerified,
  str,
  timestamp,
} from "../../src/lib/json-readers";

const MAX_TS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** The shapes in which the marketplace says "this value is gated". */
const aborted = fc.constantFrom<unknown>(
  ABORTED,
  { __typename: ABORTED },
  { code: ABORTED },
  { extensions: { code: ABORTED } },
  { __typename: ABORTED, amount: 5 },
);
const anyValue = fc.oneof(fc.anything(), fc.jsonValue(), aborted);
// -0 written out is "0", so it would not read back as -0; the two are the same amount.
const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n));

describe("document readers", () => {
  test("no reader throws, whatever it is given, and each answers in its own range", () => {
    fc.assert(
      fc.property(anyValue, (v) => {
        const o = obj(v);
        expect(o === undefined || (typeof o === "object" && !Array.isArray(o))).toBe(true);
        const s = str(v);
        expect(s === undefined || (s.length > 0 && s === s.trim())).toBe(true);
        const n = num(v);
        expect(n === null || Number.isFinite(n)).toBe(true);
        const c = count(v);
        expect(c === null || (Number.isInteger(c) && c >= 0)).toBe(true);
        const ts = timestamp(v);
        // >= 0, not > 0: a positive number of seconds under half a millisecond rounds to the epoch itself (left as it was).
        expect(ts === null || (Number.isInteger(ts) && ts >= 0 && ts <= MAX_TS)).toBe(true);
        expect([null, "HOURLY", "FIXED"]).toContain(jobType(v));
        expect([null, true, false]).toContain(paymentVerified(v));
        const code = currencyCode(v);
        expect(code === null || /^[A-Z]{3}$/.test(code)).toBe(true);
        const roots = detailRoots(v);
        expect(roots.auth === undefined || typeof roots.auth === "object").toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  test("ExecutionAborted, in any of its shapes, reads as unknown", () => {
    fc.assert(
      fc.property(aborted, (v) => {
        expect(isAborted(v)).toBe(true);
        expect(obj(v)).toBeUndefined();
        expect(str(v)).toBeUndefined();
        expect(num(v)).toBeNull();
        expect(gqlRoot({ data: { jobAuthDetails: v } }, "jobAuthDetails")).toBeUndefined();
      }),
    );
  });

  test("obj keeps plain objects as they are and refuses arrays, null and primitives", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string().filter((k) => !["__typename", "code", "extensions"].includes(k)),
          fc.jsonValue(),
        ),
        (o) => {
          expect(obj(o)).toBe(o);
        },
      ),
    );
    for (const v of [null, undefined, [], [1], 1, "x", true]) expect(obj(v)).toBeUndefined();
  });

  test("str is the trimmed string when anything is left, and only for strings", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(str(s)).toBe(s === ABORTED || s.trim() === "" ? undefined : s.trim());
      }),
    );
    expect(str(5)).toBeUndefined();
  });

  test("idStr writes out whole numbers JSON.parse kept exact, and no others", () => {
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => expect(idStr(n)).toBe(String(n))));
    expect(idStr(2 ** 53)).toBeUndefined();
    expect(idStr(1.5)).toBeUndefined();
    expect(idStr(" 42 ")).toBe("42");
    expect(firstStr([null, ABORTED, "", 7, "x"])).toBe("7");
    expect(firstStr([null])).toBeUndefined();
  });

  test("num reads money as numbers, numeric strings, {amount} and {rawValue}, all the same", () => {
    fc.assert(
      fc.property(finite, (n) => {
        for (const form of [n, String(n), ` ${n} `, { amount: n }, { amount: String(n) }, { rawValue: n }, { rawValue: String(n) }]) expect(num(form)).toBe(n);
      }),
    );
    // An empty string is not 0, and neither is an object without an amount.
    for (const v of ["", "  ", {}, { currency: "USD" }, "12 USD", Infinity, NaN, "Infinity", null, true]) expect(num(v)).toBeNull();
    expect(num({ amount: 3, rawValue: 4 })).toBe(3);
  });

  test("numIf and count accept only what passes; firstNum and first take the first location that reads", () => {
    fc.assert(
      fc.property(fc.array(anyValue, { maxLength: 8 }), (values) => {
        const picked = firstNum(values, isPositive);
        const expected = values.map(num).find((n) => n !== null && n > 0) ?? null;
        expect(picked).toBe(expected);
        expect(first(values, str)).toBe(values.map(str).find((s) => s !== undefined) ?? null);
        for (const v of values) {
          const n = numIf(v, isPositive);
          expect(n === null || n > 0).toBe(true);
          expect(count(v)).toBe(numIf(v, isCount));
        }
      }),
    );
    expect(firstNum(["2024-01-01T00:00:00Z"], () => true, timestamp)).toBe(Date.UTC(2024, 0, 1));
  });

  test("timestamp: seconds below 1e11, milliseconds above, ISO strings; isoTime writes the same instant", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e11 - 1 }), (s) => {
        expect(timestamp(s)).toBe(s * 1000);
        expect(timestamp(String(s))).toBe(s * 1000);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1e11, max: MAX_TS }), (ms) => {
        expect(timestamp(ms)).toBe(ms);
        expect(timestamp(new Date(ms).toISOString())).toBe(ms);
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
    fc.assert(
      fc.property(anyValue, (v) => {
        const ts = timestamp(v);
        const iso = isoTime(v);
        expect(iso === null).toBe(ts === null);
        // Below 1e11 ms (before March 1973) the parsed ISO string would be taken for seconds, as numbers are (left as it was).
        if (iso !== null && ts! >= 1e11) expect(timestamp(iso)).toBe(ts);
      }),
    );
    // Past year 9999 (and far past what a Date can hold) there is no usable instant.
    for (const v of [0, -5, MAX_TS + 1, 9e15, 1e300, "", "soon", ABORTED]) expect(timestamp(v)).toBeNull();
  });

  test("jobType, paymentVerified and currencyCode read the marketplace's spellings", () => {
    fc.assert(
      fc.property(fc.constantFrom("hourly", "HOURLY", " Hourly_rate "), fc.constantFrom("fixed", "FIXED_PRICE", "Fixed"), (h, f) => {
        expect(jobType(h)).toBe("HOURLY");
        expect(jobType(f)).toBe("FIXED");
      }),
    );
    expect(jobType("OTHER")).toBeNull();
    fc.assert(
      fc.property(
        fc.string().filter((s) => str(s) !== undefined),
        (s) => {
          const upper = s.trim().toUpperCase();
          expect(paymentVerified(s)).toBe(upper === "TRUE" || upper === "VERIFIED");
        },
      ),
    );
    for (const [v, want] of [
      [true, true],
      [false, false],
      ["verified", true],
      ["UNVERIFIED", false],
      ["false", false],
      [null, null],
      [1, null],
      [ABORTED, null],
    ] as const) {
      expect(paymentVerified(v)).toBe(want);
    }
    expect(currencyCode(" usd ")).toBe("USD");
    for (const v of ["US", "USDT", "U$D", 840, null]) expect(currencyCode(v)).toBeNull();
  });

  test("gqlRoot unwraps {data:{root}} and tolerates the root stored without data; detailRoots finds both bodies", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("opening", "buyer", "qualifications"), fc.jsonValue()), (root) => {
        expect(gqlRoot({ data: { jobPubDetails: root } }, "jobPubDetails")).toBe(root);
        expect(gqlRoot({ jobPubDetails: root }, "jobPubDetails")).toBe(root);
        const other = { opening: {} };
        expect(gqlRoot({ data: { jobPubDetails: root }, jobPubDetails: other }, "jobPubDetails")).toBe(root);
        const doc = { authJobDetailsResponse: { data: { jobAuthDetails: root } }, jobDetailsResponse: { jobPubDetails: other } };
        expect(detailRoots(doc)).toEqual({ auth: root, pub: other });
      }),
    );
    expect(detailRoots({})).toEqual({ auth: undefined, pub: undefined });
    expect(gqlRoot({ data: null, jobAuthDetails: { a: 1 } }, "jobAuthDetails")).toEqual({ a: 1 });
    expect(gqlRoot([{ jobAuthDetails: {} }], "jobAuthDetails")).toBeUndefined();
  });
});
