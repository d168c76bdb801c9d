/**
 * HTTP for the public job-board adapters: a polite conditional GET (ETag /
 * Last-Modified sent back, so an unchanged feed costs the board a 304), a
 * named User-Agent as the boards ask, a 429's Retry-After turned into a delay
 * for the runner, and every other failure thrown with a message that says
 * which board and URL failed and why.
 */
import { readCapped, TooLargeError } from "../../lib/read-capped";
import { retryAfterMs } from "../../lib/retry-after";
import type { JobDocument } from "../document";
import type { PollContext, PollResult, SourceState } from "../source";

export const USER_AGENT = "jobpilot (+self-hosted job feed)";
const TIMEOUT_MS = 30_000;
// The largest answers (a whole "Who is hiring?" thread) are a few MB.
const MAX_BODY_BYTES = 20 * 1024 * 1024;
/** Used when a 429 carries no usable Retry-After. */
const DEFAULT_RETRY_AFTER_MS = 60 * 60_000;
const MAX_RETRY_AFTER_MS = 24 * 60 * 60_000;

export interface Validators {
  etag?: string | null;
  lastModified?: string | null;
}

export type GetResult =
  | { kind: "ok"; body: string; etag: string | null; lastModified: string | null }
  | { kind: "not-modified" }
  | { kind: "rate-limited"; retryAfterMs: number };

export interface GetOptions {
  fetch: typeof fetch;
  /** Names the board in error messages. */
  source: string;
  url: string;
  accept?: string;
  /** Validators from the previous answer for this URL; sent back as If-None-Match / If-Modified-Since. */
  validators?: Validators;
  nowTs: number;
  timeoutMs?: number;
  /** Defaults to USER_AGENT. */
  userAgent?: string;
}

/**
 * One GET. 200 → body and the new validators; 304 → not-modified; 429 →
 * rate-limited with the delay the board asked for. Anything else (network
 * error, timeout, other status, oversized body) throws.
 */
export async function conditionalGet(opts: GetOptions): Promise<GetResult> {
  const headers: Record<string, string> = { "User-Agent": opts.userAgent || USER_AGENT, Accept: opts.accept ?? "application/json" };
  if (opts.validators?.etag) headers["If-None-Match"] = opts.validators.etag;
  if (opts.validators?.lastModified) headers["If-Modified-Since"] = opts.validators.lastModified;
  let res: Response;
  try {
    res = await opts.fetch(opts.url, { headers, redirect: "follow", signal: AbortSignal.timeout(opts.timeoutMs ?? TIMEOUT_MS) });
  } catch (err) {
    throw new Error(`${opts.source}: GET ${opts.url} failed: ${describeError(err)}`);
  }
  if (res.status === 304) {
    await res.body?.cancel().catch(() => {});
    return { kind: "not-modified" };
  }
  if (res.status === 429) {
    await res.body?.cancel().catch(() => {});
    return { kind: "rate-limited", retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), opts.nowTs) ?? DEFAULT_RETRY_AFTER_MS };
  }
  if (res.status < 200 || res.status >= 300) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`${opts.source}: GET ${opts.url} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(res.body, MAX_BODY_BYTES);
  } catch (err) {
    const why = err instanceof TooLargeError ? err.message : `reading the body failed: ${describeError(err)}`;
    throw new Error(`${opts.source}: GET ${opts.url}: ${why}`);
  }
  return {
    kind: "ok",
    body: new TextDecoder().decode(bytes),
    etag: res.headers.get("etag"),
    lastModified: res.headers.get("last-modified"),
  };
}

/** Retry-After as delta-seconds or an HTTP date, in ms from now (capped at a day); null when unusable. */
export function parseRetryAfter(value: string | null, nowTs: number): number | null {
  const ms = retryAfterMs(value, nowTs);
  return ms === null ? null : Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** JSON.parse that names the board and URL when the answer is not JSON (an HTML error page, a cut-off body). */
export function parseJson(body: string, source: string, url: string): unknown {
  try {
    return JSON.parse(body);
  } catch (err) {
    const start = body.trimStart().slice(0, 40).replace(/\s+/g, " ");
    throw new Error(`${source}: malformed JSON from ${url}: ${describeError(err)} (body starts with ${JSON.stringify(start)})`);
  }
}

/**
 * One poll of a board that answers with a single JSON document: the parsed
 * body and the state to keep, or — unchanged (304) or asked to slow down
 * (429) — the poll's result as it stands.
 */
export async function pollJson(
  ctx: PollContext,
  source: string,
  url: string,
  userAgent: string | undefined,
): Promise<{ body: unknown; state: SourceState } | { result: PollResult }> {
  const got = await conditionalGet({ fetch: ctx.fetch, source, url, validators: ctx.state, nowTs: ctx.nowTs, userAgent });
  if (got.kind === "not-modified") return { result: { docs: [] } };
  if (got.kind === "rate-limited") {
    ctx.log.warn(`${source} asked to slow down`, { retryAfterMs: got.retryAfterMs });
    return { result: { docs: [], retryAfterMs: got.retryAfterMs } };
  }
  return { body: parseJson(got.body, source, url), state: withValidators(ctx.state, got) };
}

/** The documents of a board's list, each id once (boards do list a job twice). */
export function uniqueDocuments(items: unknown[], toDocument: (raw: unknown) => JobDocument | null): JobDocument[] {
  const docs: JobDocument[] = [];
  const seen = new Set<string>();
  for (const raw of items) {
    const doc = toDocument(raw);
    if (doc === null || seen.has(doc.id)) continue;
    seen.add(doc.id);
    docs.push(doc);
  }
  return docs;
}

/** The validators of an answer, merged into a state. */
function withValidators(state: SourceState, got: { etag: string | null; lastModified: string | null }): SourceState {
  return { ...state, etag: got.etag, lastModified: got.lastModified };
}

function describeError(err: unknown): string {
  if (err instanceof Error) return err.name === "TimeoutError" ? "timed out" : err.message;
  return String(err);
}

/** Joins a base URL (with or without a trailing slash) and a path. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path.startsWith("/") ? path : `/${path}`}`;
}

/** Keeps the newest `max` entries of a list of ids, without repeats. */
export function recentIds(ids: Iterable<string>, max: number): string[] {
  const out = [...new Set(ids)];
  return out.length > max ? out.slice(out.length - max) : out;
}

/** A string id list kept in state; anything else reads as empty. */
export function stateIds(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The interval to use: the caller's, else the default, never below the board's floor. */
export function intervalOf(requested: number | undefined, fallback: number, floor: number): number {
  const v = typeof requested === "number" && Number.isFinite(requested) && requested > 0 ? requested : fallback;
  return Math.max(floor, v);
}
