/**
 * The rate-limit table: every bucket and its limits per key. The spec's Limits
 * table gives the numbers for the first seven buckets; `feeds` and `default`
 * (every other authenticated /api route, extensions included) are our own
 * documented defaults. Each route names its bucket in its policy
 * (`policy: { rateLimit }`, see route-policy.ts); forwarding paths name the
 * bucket of the path they forward to, and the legacy apply endpoint names
 * `apply`, so a client cannot double a limit by switching paths.
 */
export const WINDOWS = { minute: 60_000, day: 86_400_000 } as const;
export type WindowName = keyof typeof WINDOWS;

export interface BucketLimits {
  minute?: number;
  day?: number;
}

export const RATE_LIMITS = {
  apply: { minute: 60, day: 1000 },
  status: { minute: 300 },
  appliedJobs: { minute: 60 },
  generateProposal: { minute: 30, day: 500 },
  freelancers: { minute: 30 },
  jobs: { minute: 60 },
  clients: { minute: 60 },
  feeds: { minute: 120, day: 10_000 },
  default: { minute: 120, day: 10_000 },
} as const satisfies Record<string, BucketLimits>;

export type Bucket = keyof typeof RATE_LIMITS;
export const BUCKETS = Object.keys(RATE_LIMITS) as Bucket[];

/** Names accepted by `account limits --set`, e.g. `apply.minute`. */
export function isOverrideName(name: string): boolean {
  const [bucket, window] = name.split(".");
  return BUCKETS.includes(bucket as Bucket) && window !== undefined && window in WINDOWS;
}
