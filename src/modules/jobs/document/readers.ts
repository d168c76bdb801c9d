/**
 * Tolerant readers for marketplace documents, shared by the normaliser, the
 * client score, the proposal activity and the client record: every nested
 * field may be missing, null, a string where a number is expected, or
 * `ExecutionAborted` (what the marketplace's visitor responses put where
 * gated values would be). Each reader returns "unknown" for anything it cannot
 * use, so callers can fall through to the next place a fact may live.
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
