import { Elysia } from "elysia";
import type { Deps } from "../deps";
import type { Caller } from "./context";
import { writeRateLimitHeaders } from "./rate-limit";
import { isPlainRequest, recordAnswer, requestIdOf, writeAnswerHeaders } from "./request-context";
import type { PolicyRoute, RoutePolicy } from "./route-policy";

/**
 * A route's answer when it is already in memory for this caller (a read cache hit), else undefined. Synchronous
 * and free of side effects: it may run for a request that is then refused or answered by the app instead.
 */
export type AtHand = (caller: Caller) => object | undefined;

/**
 * The `atHand` route option. Only declares: the value stays in the route's hooks, where atHandRoutes reads it.
 * The route's handler stays the answer for everything else (app.handle, a cache miss, any answer but a 200).
 */
export const answerAtHand = new Elysia({ name: "answer-at-hand" }).macro({
  atHand: (_answer: AtHand) => ({}),
});

/** What a request answered at hand goes through, the same objects the app's plugins use. */
export type AtHandDeps = Pick<Deps, "rateLimiter" | "metrics" | "log">;

type BunRouteHandler = (request: Request) => Response | Promise<Response>;

/**
 * Handlers for Bun's router (the listening server only) for every route that declares `atHand`: an
 * authenticated GET whose answer is in memory is answered in one synchronous step, without the app's
 * per-request path (its hooks, context, response check and promises cost an API request about a fifth of its
 * CPU). The step does what that path does for such a request and in the same terms: the key is checked by
 * `callerNow` (the auth plugin's own check), the request is counted against the route's rate-limit bucket
 * (RateLimiter.checkNow, as the rate-limit plugin counts it), and the response carries the same body and headers
 * (x-request-id echoed or made, X-RateLimit-*), is counted in the metrics under the route's pattern and writes
 * the same access line.
 *
 * Anything else goes untouched to the route's own handler (`viaApp(route)`: Elysia's, as Bun's router would call
 * it without this), which answers as it always does: a body or an overlong URL, a missing, unknown or revoked
 * key, a key or answer not in memory, a refusal (a refused request counts nothing, so the app's own check
 * refuses it the same way). Only a 200 is ever answered here.
 *
 * Only a plain `/api` GET without path parameters qualifies, under a policy that adds no headers and takes
 * the key only from `x-api-key`; a route declaring `atHand` otherwise is a mistake caught at start.
 */
export function atHandRoutes<R extends PolicyRoute>(
  routes: readonly R[],
  deps: AtHandDeps,
  callerNow: (presented: string | null) => Caller | null | undefined,
  viaApp: (route: R) => BunRouteHandler,
): Record<string, { GET: BunRouteHandler }> {
  const handlers: Record<string, { GET: BunRouteHandler }> = {};
  for (const route of routes) {
    const hooks = route.hooks as { atHand?: AtHand; policy?: RoutePolicy } | undefined;
    if (!hooks?.atHand) continue;
    const policy = hooks.policy;
    if (route.method !== "GET" || !route.path.startsWith("/api/") || /[:*]/.test(route.path)) {
      throw new Error(`atHand on ${route.method} ${route.path}: only a GET /api route without path parameters can be answered at hand`);
    }
    if (policy?.public || policy?.anyOrigin || policy?.apiKey || policy?.successor) {
      throw new Error(`atHand on ${route.path}: its policy adds headers or another way in, which only the app's path gives`);
    }
    handlers[route.path] = { GET: answerer(route.path, policy?.rateLimit ?? "default", hooks.atHand, deps, callerNow, viaApp(route)) };
  }
  return handlers;
}

function answerer(
  route: string,
  bucket: NonNullable<RoutePolicy["rateLimit"]>,
  atHand: AtHand,
  deps: AtHandDeps,
  callerNow: (presented: string | null) => Caller | null | undefined,
  viaApp: BunRouteHandler,
): BunRouteHandler {
  const { rateLimiter } = deps;
  return (request) => {
    if (!isPlainRequest(request)) return viaApp(request);
    const startedAt = performance.now();
    const caller = callerNow(request.headers.get("x-api-key"));
    if (!caller) return viaApp(request);
    // The answer before the count: a request the app answers after all must not have been counted here too.
    const body = atHand(caller);
    if (body === undefined) return viaApp(request);
    const limits = rateLimiter.limitsFor(bucket, caller.rateLimitMultiplier, caller.rateLimitOverrides);
    const decision = rateLimiter.checkNow(caller.keyId, bucket, limits);
    if (!decision?.allowed) return viaApp(request);
    const id = requestIdOf(request);
    // Bun's router serves HEAD with the GET handler; it is counted and logged under its own method, as the app does.
    recordAnswer(deps, request.method, route, 200, id, startedAt, caller);
    const headers: Record<string, string> = { "content-type": "application/json;charset=utf-8" };
    writeAnswerHeaders(headers, id);
    writeRateLimitHeaders(headers, decision);
    return new Response(JSON.stringify(body), { headers });
  };
}
