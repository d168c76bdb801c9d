import type { AuthContext } from "../modules/accounts/service";

/** Per-request facts gathered before routing (onRequest) and read by handlers, logs and the error handler. */
export interface RequestState {
  id: string;
  startedAt: number;
  path: string;
  auth?: AuthContext;
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
