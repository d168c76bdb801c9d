import { Elysia } from "elysia";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { type Caller, getRequestState, type RequestState } from "./context";
import type { LimitDecision } from "./rate-limiter";

/**
 * Meters every authenticated /api request against the bucket its route's
 * policy names (`default` when it names none, or when no route serves the
 * request) and sets X-RateLimit-Limit/Remaining/Reset on the response (errors
 * included). Over the limit: 429 with Retry-After. Unauthenticated requests
 * (401) carry no rate-limit headers: there is no key to count them against.
 */
export function rateLimit(deps: Deps) {
  return new Elysia({ name: "rate-limit" }).onRequest(async ({ request, set }) => {
    const state = getRequestState(request);
    if (!state?.auth) return;
    // Awaited only when a count must be read first: the hot path of every API request decides in memory.
    let decision = meter(deps, state as MeteredState, 1);
    if (decision instanceof Promise) decision = await decision;
    writeRateLimitHeaders(set.headers, decision);
    if (!decision.allowed) throw rateLimited(`Rate limit exceeded; retry in ${decision.retryAfterS} s`, decision);
  });
}

type MeteredState = RequestState & { auth: Caller };

/** Counts `units` requests of an authenticated request in its route's bucket (all or none). */
function meter(deps: Deps, state: MeteredState, units: number): LimitDecision | Promise<LimitDecision> {
  const { auth } = state;
  const bucket = state.policy?.rateLimit ?? "default";
  const limits = deps.rateLimiter.limitsFor(bucket, auth.rateLimitMultiplier, auth.rateLimitOverrides);
  return deps.rateLimiter.checkNow(auth.keyId, bucket, limits, units) ?? deps.rateLimiter.check(auth.keyId, bucket, limits, units);
}

const rateLimited = (message: string, decision: LimitDecision) => new AppError("rate_limited", message, {}, { "retry-after": String(decision.retryAfterS) });

/**
 * For a route whose one request carries several operations (a JSON-RPC batch): counts it as `count` requests
 * in all, the plugin above having counted one, before any of them runs. All or none: when the rest do not
 * fit in what remains, it throws the 429 (nothing more is counted) and the headers say what remains.
 * Without this, one request could do the work of hundreds for the price of one.
 */
export async function meterAsMany(deps: Deps, request: Request, headers: Record<string, string | number>, count: number): Promise<void> {
  const state = getRequestState(request);
  if (!state?.auth || count <= 1) return;
  const decision = await meter(deps, state as MeteredState, count - 1);
  writeRateLimitHeaders(headers, decision);
  if (decision.allowed) return;
  const never = count > decision.limit ? ` (more than the limit of ${decision.limit}: send fewer at a time)` : "";
  throw rateLimited(
    `Rate limit exceeded: this request counts as ${count} requests and ${decision.remaining} remain${never}; retry in ${decision.retryAfterS} s`,
    decision,
  );
}

/** The X-RateLimit-* headers of a decision, written into a response's headers. */
export function writeRateLimitHeaders(headers: Record<string, string | number>, decision: LimitDecision): void {
  headers["x-ratelimit-limit"] = String(decision.limit);
  headers["x-ratelimit-remaining"] = String(decision.remaining);
  headers["x-ratelimit-reset"] = String(decision.resetTs);
}
