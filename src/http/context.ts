import type { RoutePolicy } from "./route-policy";

/**
 * The caller an API key belongs to, as far as the request-wide plugins read it.
 * Whoever authenticates (app.ts hands the auth plugin accounts' `authenticate`)
 * stores its full record; modules read that back with their own type.
 */
export interface Caller {
  keyId: string;
  accountId: string;
  rateLimitMultiplier: number;
  rateLimitOverrides: Record<string, number> | null;
  /** The member role the request acts with (modules/members/permissions.ts) and the account's bidder setting. */
  role: string;
  biddersMaySend: boolean;
}

/** Per-request facts gathered before routing (onRequest) and read by handlers, logs and the error handler. */
export interface RequestState {
  id: string;
  startedAt: number;
  path: string;
  /** The pattern of the route the request reaches (`/api/v1/feeds/:id`); none when no route serves it. */
  route?: string;
  /** The policy its module declared for the route the request reaches; none when no route serves it. */
  policy?: RoutePolicy;
  auth?: Caller;
  /** What the JSON parser saw, set only when the route reads a body. */
  bodyKind?: "none" | "object" | "array" | "other";
}

const states = new WeakMap<Request, RequestState>();

export function setRequestState(request: Request, state: RequestState): void {
  states.set(request, state);
}

export function getRequestState(request: Request): RequestState | undefined {
  return states.get(request);
}

/** The path without query string, cheaper than new URL() on every request. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const q = url.indexOf("?", start);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}
