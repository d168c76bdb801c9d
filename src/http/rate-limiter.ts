import type { Clock } from "../lib/clock";
import { RATE_LIMITS, WINDOWS, type Bucket, type WindowName } from "./rate-limit-table";

export interface LimitDecision {
  allowed: boolean;
  /** The window reported in the headers: the one with the least remaining (or, when refused, the exhausted one that frees last). */
  limit: number;
  remaining: number;
  resetTs: number; // Unix seconds
  retryAfterS?: number;
}

/** Where day counts outlive the process (accounts' rate_limit_counters table; handed in by deps.ts). */
export interface DayCountStore {
  load(keyId: string, bucket: string, windowStartTs: number): Promise<number>;
  /** Writes absolute counts and forgets days that started before `pruneBeforeTs`. */
  save(rows: { keyId: string; bucket: string; windowStartTs: number; count: number }[], pruneBeforeTs: number): Promise<void>;
}

interface WindowState {
  startTs: number;
  count: number;
}

interface Counter {
  keyId: string;
  bucket: Bucket;
  minute: WindowState;
  day: WindowState;
  dayDirty: boolean;
  /** The stored count of a day being read back (requests for the key wait for it rather than count from zero). */
  dayLoading?: { startTs: number; count: Promise<number> };
}

/**
 * Fixed UTC windows (minute and day), counted per key and bucket. Fixed
 * windows are what "X-RateLimit-Reset = when the window rolls over" means; the
 * cost is that a client can spend up to twice a minute's limit across a
 * boundary.
 *
 * Counting happens in memory so the hot path does no write. Day counts are
 * written behind (flush(), every second and at shutdown) and read back the
 * first time a key is seen in a day, so a restart does not hand out a fresh
 * day; a hard crash can forget at most one flush interval. Minute windows are
 * not persisted: a restart resets them. Refused (429) requests are not counted,
 * so waiting Retry-After is always enough.
 */
export class RateLimiter {
  private counters = new Map<string, Counter>();

  constructor(
    private readonly dayCounts: DayCountStore,
    private readonly clock: Clock,
  ) {}

  limitsFor(bucket: Bucket, multiplier: number, overrides: Record<string, number> | null): Partial<Record<WindowName, number>> {
    const base = RATE_LIMITS[bucket] as { minute?: number; day?: number };
    const out: Partial<Record<WindowName, number>> = {};
    for (const w of ["minute", "day"] as const) {
      const override = overrides?.[`${bucket}.${w}`];
      if (override !== undefined) out[w] = override;
      else if (base[w] !== undefined) out[w] = Math.max(1, Math.floor(base[w] * multiplier));
    }
    return out;
  }

  async check(keyId: string, bucket: Bucket, limits: Partial<Record<WindowName, number>>): Promise<LimitDecision> {
    const id = `${keyId}\u0000${bucket}`;
    let c = this.counters.get(id);
    if (!c) {
      c = { keyId, bucket, minute: { startTs: -1, count: 0 }, day: { startTs: -1, count: 0 }, dayDirty: false };
      this.counters.set(id, c);
    }
    if (limits.day !== undefined) {
      // The first request of a day reads the day's stored count; others arriving meanwhile wait for the same read.
      for (;;) {
        const now = this.clock.now();
        const start = now - (now % WINDOWS.day);
        if (c.day.startTs === start) break;
        if (c.dayLoading?.startTs !== start) c.dayLoading = { startTs: start, count: this.dayCounts.load(keyId, bucket, start) };
        const loading = c.dayLoading;
        const count = await loading.count;
        if (c.dayLoading === loading) c.dayLoading = undefined;
        if (c.day.startTs !== start) {
          c.day = { startTs: start, count };
          c.dayDirty = false;
        }
      }
    }
    return this.decide(c, limits);
  }

  /** The decision for one request, once the day's count is in memory (synchronous: nothing interleaves). */
  private decide(c: Counter, limits: Partial<Record<WindowName, number>>): LimitDecision {
    const now = this.clock.now();
    const windows: { name: WindowName; limit: number; state: WindowState; resetAt: number }[] = [];
    for (const name of ["minute", "day"] as const) {
      const limit = limits[name];
      if (limit === undefined) continue;
      const state = c[name];
      const start = now - (now % WINDOWS[name]);
      if (state.startTs !== start) {
        // A new minute starts from zero. (check() has just read the day's count; a day that began in the
        // instant since starts from zero too.)
        state.startTs = start;
        state.count = 0;
      }
      windows.push({ name, limit, state, resetAt: start + WINDOWS[name] });
    }
    if (windows.length === 0) return { allowed: true, limit: 0, remaining: 0, resetTs: Math.ceil(now / 1000) };

    const exhausted = windows.filter((w) => w.state.count >= w.limit);
    if (exhausted.length > 0) {
      const last = exhausted.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
      return {
        allowed: false,
        limit: last.limit,
        remaining: 0,
        resetTs: last.resetAt / 1000,
        retryAfterS: Math.max(1, Math.ceil((last.resetAt - now) / 1000)),
      };
    }
    for (const w of windows) w.state.count++;
    if (limits.day !== undefined) c.dayDirty = true;
    // Report the tightest window; on a tie, the one that frees first.
    const shown = windows.reduce((a, b) => {
      const ra = a.limit - a.state.count;
      const rb = b.limit - b.state.count;
      return rb < ra || (rb === ra && b.resetAt < a.resetAt) ? b : a;
    });
    return { allowed: true, limit: shown.limit, remaining: shown.limit - shown.state.count, resetTs: shown.resetAt / 1000 };
  }

  /** Writes changed day counts and drops counters whose windows are over. */
  async flush(): Promise<void> {
    const now = this.clock.now();
    const today = now - (now % WINDOWS.day);
    const thisMinute = now - (now % WINDOWS.minute);
    const rows: { keyId: string; bucket: string; windowStartTs: number; count: number }[] = [];
    for (const [id, c] of this.counters) {
      if (c.dayDirty) {
        rows.push({ keyId: c.keyId, bucket: c.bucket, windowStartTs: c.day.startTs, count: c.day.count });
        c.dayDirty = false;
      } else if (c.day.startTs < today && c.minute.startTs < thisMinute) {
        this.counters.delete(id);
      }
    }
    if (rows.length > 0) await this.dayCounts.save(rows, today - WINDOWS.day);
  }
}
