/**
 * The rate-limit table: every metered endpoint, its bucket and its limits per
 * key. The spec's Limits table gives the numbers for the first seven buckets;
 * `feeds` and `default` (every other authenticated /api route, extensions
 * included) are our own documented defaults. Forwarding paths share the bucket
 * of the path they forward to, and the legacy apply endpoint shares `apply`,
 * so a client cannot double a limit by switching paths.
 */
export const WINDOWS = { minute: 60_000, day: 86_400_000 } as const;
export type WindowName = keyof typeof WINDOWS;

export interface BucketLimits {
  minute?: number;
  day?: number;
  routes: string[];
}

export const RATE_LIMITS = {
  apply: { minute: 60, day: 1000, routes: ["POST /api/auto-apply-v2/apply", "POST /api/auto-apply/external"] },
  status: { minute: 300, routes: ["GET /api/auto-apply-v2/status"] },
  appliedJobs: { minute: 60, routes: ["GET /api/auto-apply-v2/applied-jobs"] },
  generateProposal: { minute: 30, day: 500, routes: ["POST /api/auto-apply-v2/generate-proposal"] },
  freelancers: { minute: 30, routes: ["GET /api/auto-apply-v2/freelancers", "GET /api/auto-apply/external/freelancers"] },
  jobs: {
    minute: 60,
    routes: ["GET /api/jobs/by-ciphertext", "GET /api/v1/jobs/:ciphertext", "GET /api/v2/jobs/:ciphertext"],
  },
  clients: {
    minute: 60,
    routes: ["GET /api/clients/:companyId/jobs", "GET /api/v1/clients/:companyId/jobs", "GET /api/v2/clients/:companyId/jobs"],
  },
  feeds: { minute: 120, day: 10_000, routes: ["* /api/v1/feeds", "* /api/v1/feeds/*"] },
  default: { minute: 120, day: 10_000, routes: ["* /api/*"] },
} as const satisfies Record<string, BucketLimits>;

export type Bucket = keyof typeof RATE_LIMITS;
export const BUCKETS = Object.keys(RATE_LIMITS) as Bucket[];

/** Names accepted by `account limits --set`, e.g. `apply.minute`. */
export function isOverrideName(name: string): boolean {
  const [bucket, window] = name.split(".");
  return BUCKETS.includes(bucket as Bucket) && window !== undefined && window in WINDOWS;
}

interface CompiledRoute {
  method: string;
  re: RegExp;
  bucket: Bucket;
}

/**
 * Resolves method + path to the bucket of the route it is served by. Exact paths are a map lookup; patterns
 * (`:param`, trailing `*`) are tried in table order, so specific buckets win
 * over `default`, which is last.
 */
export function createBucketResolver(table: Record<Bucket, BucketLimits> = RATE_LIMITS) {
  const exact = new Map<string, Bucket>();
  const patterns: CompiledRoute[] = [];
  for (const bucket of BUCKETS) {
    for (const route of table[bucket].routes) {
      const [method, path] = route.split(" ") as [string, string];
      if (method !== "*" && !path.includes(":") && !path.includes("*")) {
        exact.set(`${method} ${path}`, bucket);
        continue;
      }
      const source = path
        .split("/")
        .map((seg) => (seg === "*" ? ".+" : seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/");
      patterns.push({ method, re: new RegExp(`^${source}$`), bucket });
    }
  }
  // Pattern answers are remembered (bounded): a polling client asks about the same few paths all day.
  const memo = new Map<string, Bucket | null>();
  return (requestMethod: string, requestPath: string): Bucket | undefined => {
    // Meter the route the request reaches, not the raw path: Elysia serves a path with one trailing
    // slash added (non-strict paths) and answers HEAD with the GET handler. Any other spelling
    // (double slash, other letter case, encoded letters) reaches no route and is a 404.
    const method = requestMethod === "HEAD" ? "GET" : requestMethod;
    const path = requestPath.length > 1 && requestPath.endsWith("/") ? requestPath.slice(0, -1) : requestPath;
    const id = `${method} ${path}`;
    const hit = exact.get(id) ?? memo.get(id);
    if (hit !== undefined) return hit ?? undefined;
    let found: Bucket | null = null;
    for (const p of patterns) {
      if ((p.method === "*" || p.method === method) && p.re.test(path)) {
        found = p.bucket;
        break;
      }
    }
    if (memo.size >= 10_000) memo.clear();
    memo.set(id, found);
    return found ?? undefined;
  };
}
