/**
 * Tolerant readers for archived job documents (src/sources/document.ts), the one set everything that reads a
 * document uses; in lib/ so adapters use it as the features do. A document's fields may be absent, null,
 * `ExecutionAborted` or a string for a number, so each reader returns "unknown" for what it cannot use and the
 * caller falls through (see docs/architecture.md, 'Tolerant document readers'). Pure: no clock, no I/O, no throwing.
 */
export type Obj = Record<string, unknown>;

export const ABORTED = "ExecutionAborted";

export function isAborted(v: unknown): boolean {
  if (v === ABORTED) return true;
  if (typeof v !== "object" || v === null) return false;
  const o = v as Obj;
  return o.__typename === ABORTED || o.code === ABORTED || (o.extensions as Obj | null | undefined)?.code === ABORTED;
}

/** A plain object that carries information, else undefined. */
export function obj(v: unknown): Obj | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isAborted(v) ? (v as Obj) : undefined;
}

/** A non-empty trimmed string, else undefined. */
export function str(v: unknown): string | undefined {
  if (typeof v !== "string" || v === ABORTED) return undefined;
  const t = v.trim();
  return t.length > 0 ? t : undefined;
}

/**
 * Ids, codes and labels: a string as `str` reads it, or a whole number written
 * out. Integers beyond 2^53 have already lost digits in JSON.parse; a wrong id
 * is worse than none, so they read as unknown.
 */
export function idStr(v: unknown): string | undefined {
  return typeof v === "number" && Number.isSafeInteger(v) ? String(v) : str(v);
}

/** Money and counts arrive as numbers, numeric strings, `{amount}` or `{rawValue}`. */
export function num(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string") {
    if (v.trim() === "") return null; // Number("") is 0, which would invent a value
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  const o = obj(v);
  if (o === undefined) return null;
  return o.amount !== undefined ? num(o.amount) : o.rawValue !== undefined ? num(o.rawValue) : null;
}

// What a number must be to count, for `numIf` and `firstNum`.
export const isPositive = (n: number) => n > 0;
export const isNonNegative = (n: number) => n >= 0;
/** Counts (proposals, reviews, hires…) are whole and never negative. */
export const isCount = (n: number) => n >= 0 && Number.isInteger(n);
/** Marketplace ratings are 0–5 stars (0 is what it sends for "no rating yet"; the client score skips it). */
export const isRating = (n: number) => n >= 0 && n <= 5;

/** `num(v)` when it passes `accept`, else null. */
export function numIf(v: unknown, accept: (n: number) => boolean): number | null {
  const n = num(v);
  return n !== null && accept(n) ? n : null;
}

export const count = (v: unknown) => numIf(v, isCount);

/**
 * The first of `values` that reads as a number (with `read`, `num` by default)
 * and passes `accept`; null when none does. The values are a fact's locations
 * in priority order.
 */
export function firstNum(values: readonly unknown[], accept: (n: number) => boolean, read: (v: unknown) => number | null = num): number | null {
  for (const v of values) {
    const n = read(v);
    if (n !== null && accept(n)) return n;
  }
  return null;
}

/** The first thing `read` makes of `items` (undefined and null count as nothing), else null. */
export function first<S, T>(items: readonly S[], read: (item: S) => T | null | undefined): T | null {
  for (const item of items) {
    const v = read(item);
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/** The first of `values` that `idStr` can read, else undefined. */
export function firstStr(values: readonly unknown[]): string | undefined {
  return first(values, idStr) ?? undefined;
}

/** Past year 9999 an ISO string gains a sign and stops sorting as text, and a Date turns invalid further on. */
const MAX_TS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Timestamps: ISO strings, or epoch numbers / numeric strings (seconds when below 1e11, else ms) → Unix ms. */
export function timestamp(v: unknown): number | null {
  let n: number;
  if (typeof v === "number") n = v;
  else if (typeof v === "string" && v.trim() !== "") {
    n = Number(v);
    if (!Number.isFinite(n)) n = Date.parse(v);
  } else return null;
  if (!Number.isFinite(n) || n <= 0) return null;
  const ms = n < 1e11 ? Math.round(n * 1000) : Math.round(n);
  return ms <= MAX_TS ? ms : null;
}

/** A timestamp (as `timestamp` reads it) re-emitted as ISO 8601, so every record sorts and compares the same way. */
export function isoTime(v: unknown): string | null {
  const ts = timestamp(v);
  return ts === null ? null : new Date(ts).toISOString();
}

/** HOURLY / FIXED from a contract type ("HOURLY", "FIXED", "FIXED_PRICE" in the official API…), else null. */
export function jobType(v: unknown): "HOURLY" | "FIXED" | null {
  const s = str(v)?.toUpperCase();
  if (s === undefined) return null;
  if (s.startsWith("HOURLY")) return "HOURLY";
  if (s.startsWith("FIXED")) return "FIXED";
  return null;
}

/**
 * Payment verification from a boolean, "true"/"false", or a status string:
 * VERIFIED is verified, any other status (UNVERIFIED, NOT_VERIFIED, PENDING…)
 * is not. Null when the value says nothing.
 */
export function paymentVerified(v: unknown): boolean | null {
  if (typeof v === "boolean") return v;
  const s = str(v)?.toUpperCase();
  if (s === undefined) return null;
  if (s === "TRUE") return true;
  if (s === "FALSE") return false;
  return s === "VERIFIED";
}

const CURRENCY = /^[A-Za-z]{3}$/;

/** A three-letter currency code, upper-cased, else null. */
export function currencyCode(v: unknown): string | null {
  const s = str(v);
  return s !== undefined && CURRENCY.test(s) ? s.toUpperCase() : null;
}

/** Unwraps a GraphQL body: `{data:{<root>}}`, tolerating a body stored with the root directly on it. */
export function gqlRoot(body: unknown, root: string): Obj | undefined {
  const b = obj(body);
  return b === undefined ? undefined : (obj(obj(b.data)?.[root]) ?? obj(b[root]));
}

/**
 * The two detail bodies of a document: `auth` (authenticatedJobDetails,
 * `authJobDetailsResponse.data.jobAuthDetails`) and `pub` (public details,
 * `jobDetailsResponse.data.jobPubDetails`); either may be undefined. The auth
 * body nests the job under `opening.job`; the public one keeps its fields on
 * `opening`.
 */
export function detailRoots(doc: unknown): { auth: Obj | undefined; pub: Obj | undefined } {
  const d = obj(doc);
  return { auth: gqlRoot(d?.authJobDetailsResponse, "jobAuthDetails"), pub: gqlRoot(d?.jobDetailsResponse, "jobPubDetails") };
}
