import { Elysia } from "elysia";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { getRequestState } from "./context";
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
    const auth = state?.auth;
    if (!state || !auth) return;
    const bucket = state.policy?.rateLimit ?? "default";
    const limits = deps.rateLimiter.limitsFor(bucket, auth.rateLimitMultiplier, auth.rateLimitOverrides);
    const decision = deps.rateLimiter.checkNow(auth.keyId, bucket, limits) ?? (await deps.rateLimiter.check(auth.keyId, bucket, limits));
    writeRateLimitHeaders(set.headers, decision);
    if (!decision.allowed) {
      throw new AppError("rate_limited", `Rate limit exceeded; retry in ${decision.retryAfterS} s`, {}, { "retry-after": String(decision.retryAfterS) });
    }
  });
}

/** The X-RateLimit-* headers of a decision, written into a response's headers (here, and on routes answered at hand). */
export function writeRateLimitHeaders(headers: Record<string, string | number>, decision: LimitDecision): void {
  headers["x-ratelimit-limit"] = String(decision.limit);
  headers["x-ratelimit-remaining"] = String(decision.remaining);
  headers["x-ratelimit-reset"] = String(decision.resetTs);
}
