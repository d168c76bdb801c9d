import { Elysia } from "elysia";
import { getRequestState } from "./context";
import type { Bucket } from "./rate-limit-table";

/**
 * What the request-wide plugins need to know about a route, declared by the
 * module with the route (`policy: { … }` in its options), so http/ lists no
 * feature's paths. A route without a policy takes the defaults: /api needs an
 * API key and counts in the `default` bucket, /admin needs the admin token,
 * bodies are JSON only, and validation errors are a message naming the fields.
 */
export interface RoutePolicy {
  /** Served without credentials even under /api or /admin: the route authenticates its callers itself, or needs none (a CORS preflight). */
  public?: true;
  /** Any origin may read the responses, including the 401 and 429 answered before routing (`access-control-allow-origin: *`). */
  anyOrigin?: true;
  /** Takes `application/x-www-form-urlencoded` bodies (HTML forms) as well as JSON. */
  formBody?: true;
  /** `details`: validation errors are `{ error: "Validation failed", details }`, the shape the spec gives the feed routes. */
  validationErrors?: "details";
  /**
   * Needs an API key though outside /api, taken from `x-api-key` or `Authorization: Bearer <key>` (the way
   * MCP clients send credentials), and metered like the API.
   */
  apiKey?: true;
  /**
   * What the caller's role must allow (modules/members/permissions.ts names them): checked before routing by the one
   * function app.ts hands the auth plugin, and by the dashboard's guard for its pages. Without it a GET needs `read`
   * and any other method `members` (the owner's), so a route that forgets to say is closed, not open.
   */
  permission?: string;
  /** The rate-limit bucket that meters the route; an authenticated route without one counts in `default`. */
  rateLimit?: Bucket;
  /**
   * The route is deprecated in favour of this path: every response it gives, a 401 or 429 included,
   * carries `Deprecation: true` and `Link: <successor>; rel="successor-version"`.
   */
  successor?: string;
}

/**
 * The `policy` route option. Only declares: the value stays in the route's
 * hooks, where the resolver below reads it.
 */
export const routePolicy = new Elysia({ name: "route-policy" }).macro({
  policy: (_policy: RoutePolicy) => ({}),
});

/** What the resolver reads of a route: Elysia's `app.routes` entries. */
export interface PolicyRoute {
  method: string;
  path: string;
  hooks?: unknown;
}

/** `/x/` and `/x` are one route to Elysia (non-strict paths); keep the root as it is. */
const loose = (path: string) => (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path);

/** Per segment: a literal outranks a `:param`, which outranks `*`, as in Elysia's router. */
const segmentRank = (segment: string) => (segment === "*" ? 2 : segment.startsWith(":") ? 1 : 0);

function byRouterPreference(a: string, b: string): number {
  const as = a.split("/");
  const bs = b.split("/");
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const d = segmentRank(as[i]!) - segmentRank(bs[i]!);
    if (d !== 0) return d;
  }
  return 0;
}

/** The route a request reaches: its pattern as registered (`/api/v1/feeds/:id`, the metrics label) and its policy. */
export interface RouteMatch {
  route: string;
  policy: RoutePolicy;
}

/**
 * Finds the route a request will reach, before routing (the auth and
 * rate-limit plugins run then), the way Elysia picks it: literal paths first,
 * one trailing slash ignored, HEAD served by GET, `ALL` for any method. Other
 * spellings (a double slash, other letter case, percent-encoded letters) reach
 * no route, and get none. Routes added later (tests do) rebuild the index.
 */
export function createRouteResolver(routes: () => readonly PolicyRoute[]) {
  let indexedCount = -1;
  let exact = new Map<string, RouteMatch>();
  let patterns: { method: string; re: RegExp; match: RouteMatch }[] = [];
  // Remembered (bounded): a polling client asks about the same few paths all day.
  const memo = new Map<string, RouteMatch | null>();

  function index(list: readonly PolicyRoute[]) {
    indexedCount = list.length;
    exact = new Map();
    patterns = [];
    memo.clear();
    const dynamic: { method: string; path: string; match: RouteMatch }[] = [];
    for (const route of list) {
      const policy = (route.hooks as { policy?: RoutePolicy } | undefined)?.policy ?? {};
      const path = loose(route.path);
      const match = { route: path, policy };
      if (path.includes(":") || path.includes("*")) dynamic.push({ method: route.method, path, match });
      // The first route registered for a method and path is the one served.
      else if (!exact.has(`${route.method} ${path}`)) exact.set(`${route.method} ${path}`, match);
    }
    dynamic.sort((a, b) => byRouterPreference(a.path, b.path));
    for (const { method, path, match } of dynamic) {
      const source = path
        .split("/")
        .map((seg) => (seg === "*" ? ".*" : seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/");
      patterns.push({ method, re: new RegExp(`^${source}$`), match });
    }
  }

  function find(method: string, path: string): RouteMatch | undefined {
    const found = exact.get(`${method} ${path}`) ?? exact.get(`ALL ${path}`);
    if (found) return found;
    return patterns.find((p) => (p.method === method || p.method === "ALL") && p.re.test(path))?.match;
  }

  return (method: string, requestPath: string): RouteMatch | undefined => {
    const list = routes();
    if (list.length !== indexedCount) index(list);
    const path = loose(requestPath);
    const id = `${method} ${path}`;
    const known = memo.get(id);
    if (known !== undefined) return known ?? undefined;
    const match = find(method, path) ?? (method === "HEAD" ? find("GET", path) : undefined) ?? null;
    if (memo.size >= 10_000) memo.clear();
    memo.set(id, match);
    return match ?? undefined;
  };
}

/** The policy of the route a request will reach (see createRouteResolver). */
export function createPolicyResolver(routes: () => readonly PolicyRoute[]) {
  const resolve = createRouteResolver(routes);
  return (method: string, requestPath: string): RoutePolicy | undefined => resolve(method, requestPath)?.policy;
}

/**
 * Resolves the request's route and its policy before routing, for the plugins
 * after it (auth, rate limit, body parser, error handler, the request's
 * metrics, which label it by the route's pattern), and sets the headers the
 * policy asks for (CORS of `anyOrigin` routes, the deprecation headers of a
 * route with a `successor`) first, so even a 401 or 429 carries them.
 */
export function resolveRoutePolicy(routes: () => readonly PolicyRoute[]) {
  const resolve = createRouteResolver(routes);
  return new Elysia({ name: "resolve-route-policy" }).onRequest(({ request, set }) => {
    const state = getRequestState(request);
    if (!state) return;
    const match = resolve(request.method, state.path);
    state.route = match?.route;
    state.policy = match?.policy;
    if (state.policy?.anyOrigin) set.headers["access-control-allow-origin"] = "*";
    if (state.policy?.successor) {
      set.headers.deprecation = "true";
      set.headers.link = `<${state.policy.successor}>; rel="successor-version"`;
    }
  });
}
