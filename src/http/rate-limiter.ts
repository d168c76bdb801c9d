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
  /** Present when several nodes share the database (PostgreSQL): then every window is counted cluster-wide through it. */
  shared?: SharedCountStore;
}

/** One window of one key's bucket. */
export interface CounterRef {
  keyId: string;
  bucket: string;
  window: WindowName;
  windowStartTs: number;
}

/** Counts every node adds to: an increment is one atomic statement, and answers with the cluster-wide total. */
export interface SharedCountStore {
  /** The stored totals (0 when none), in order. */
  read(refs: CounterRef[]): Promise<number[]>;
  /** Adds each delta to its window's total; resolves to the new totals, in order. */
  add(rows: (CounterRef & { delta: number })[]): Promise<number[]>;
  /** Forgets day windows started before `dayBeforeTs` and minute windows started before `minuteBeforeTs`. */
  prune(dayBeforeTs: number, minuteBeforeTs: number): Promise<void>;
}

/**
 * Shared counts (PostgreSQL): how long admitted requests may wait in memory before they are added to the
 * cluster-wide total, and how old this node's view of that total may be when it decides (older → read it
 * again first). See RateLimiter.
 */
export const SHARED_SYNC_MS = 125;

interface WindowState {
  startTs: number;
  /** Requests counted in this window: on PostgreSQL the cluster-wide total as last read, plus `unsynced`. */
  count: number;
  /** PostgreSQL: requests this node admitted that are not yet in the shared total. */
  unsynced: number;
}

interface Counter {
  keyId: string;
  bucket: Bucket;
  minute: WindowState;
  day: WindowState;
  dayDirty: boolean;
  /** The stored count of a day being read back (requests for the key wait for it rather than count from zero). */
  dayLoading?: { startTs: number; count: Promise<number> };
  /** PostgreSQL: when (performance.now()) this node last learnt the shared totals, and the read under way. */
  sharedAt: number;
  sharedLoading?: Promise<void>;
}

/**
 * Fixed UTC windows (minute and day), counted per key and bucket in memory so the hot path does no write; day
 * counts are written behind so a restart does not hand out a fresh day. Nodes on one PostgreSQL share the
 * windows and still decide in memory, which bounds their overshoot by what one node admits in 2 × SHARED_SYNC_MS
 * (see docs/architecture.md, 'Rate limits across nodes').
 */
export class RateLimiter {
  private counters = new Map<string, Counter>();
  private readonly shared: SharedCountStore | undefined;
  /** PostgreSQL: counters with admitted requests not yet added to the shared totals, and the timer that will. */
  private unsynced = new Set<Counter>();
  private syncTimer: ReturnType<typeof setTimeout> | undefined;
  /** PostgreSQL: the shared store's reads and writes, one at a time (a read never overlaps an add of the same counter). */
  private sharedQueue: Promise<unknown> = Promise.resolve();
  private prunedMinute = -1;

  constructor(
    private readonly dayCounts: DayCountStore,
    private readonly clock: Clock,
  ) {
    this.shared = dayCounts.shared;
  }

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

  /**
   * check() without waiting, when every count the decision needs is already in memory (on SQLite, the day's
   * count once read; on PostgreSQL, shared totals read less than SHARED_SYNC_MS ago): the hot path of every
   * API request. Undefined when a count must be read first (then call check()). `units` is how many requests
   * this one counts as (see decide).
   */
  checkNow(keyId: string, bucket: Bucket, limits: Partial<Record<WindowName, number>>, units = 1): LimitDecision | undefined {
    const c = this.counters.get(`${keyId}\u0000${bucket}`);
    // The time is read once, since it is read on every API request (docs/performance.md, 'Why the code is as it is').
    const now = this.clock.now();
    return c && this.hasCounts(c, limits, now) ? this.decide(c, limits, now, units) : undefined;
  }

  /**
   * Whether the counts a decision needs are in memory and current: on PostgreSQL, every limited window's
   * shared total read less than SHARED_SYNC_MS ago for the window now running; on SQLite, today's count.
   */
  private hasCounts(c: Counter, limits: Partial<Record<WindowName, number>>, now: number): boolean {
    const dayCurrent = limits.day === undefined || c.day.startTs === now - (now % WINDOWS.day);
    if (!this.shared) return dayCurrent;
    const minuteCurrent = limits.minute === undefined || c.minute.startTs === now - (now % WINDOWS.minute);
    return performance.now() - c.sharedAt <= SHARED_SYNC_MS && minuteCurrent && dayCurrent;
  }

  async check(keyId: string, bucket: Bucket, limits: Partial<Record<WindowName, number>>, units = 1): Promise<LimitDecision> {
    const id = `${keyId}\u0000${bucket}`;
    let c = this.counters.get(id);
    if (!c) {
      c = { keyId, bucket, minute: { startTs: -1, count: 0, unsynced: 0 }, day: { startTs: -1, count: 0, unsynced: 0 }, dayDirty: false, sharedAt: -Infinity };
      this.counters.set(id, c);
    }
    if (this.shared) await this.loadShared(this.shared, c, limits);
    else if (limits.day !== undefined) {
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
          c.day = { startTs: start, count, unsynced: 0 };
          c.dayDirty = false;
        }
      }
    }
    return this.decide(c, limits, this.clock.now(), units);
  }

  /**
   * The decision for one request, once the day's count is in memory (synchronous: nothing interleaves). Written
   * as two plain steps over the two windows, without lists or closures: it runs for every API request.
   * `units` requests are admitted together or not at all (one POST carrying a batch of operations): refused
   * when any window has less room than that, and then nothing is counted.
   */
  private decide(c: Counter, limits: Partial<Record<WindowName, number>>, now: number, units: number): LimitDecision {
    const minute = limits.minute === undefined ? undefined : this.windowNow(c, "minute", now);
    const day = limits.day === undefined ? undefined : this.windowNow(c, "day", now);
    if (minute === undefined && day === undefined) return { allowed: true, limit: 0, remaining: 0, resetTs: Math.ceil(now / 1000) };

    // Refused when a window is used up: report the exhausted one that frees last. When both are, that is the day,
    // except in a day's last minute, when both end together and the minute is reported.
    const minuteResetAt = now - (now % WINDOWS.minute) + WINDOWS.minute;
    const dayResetAt = now - (now % WINDOWS.day) + WINDOWS.day;
    const dayOut = day !== undefined && day.count + units > limits.day!;
    const minuteOut = minute !== undefined && minute.count + units > limits.minute!;
    if (dayOut || minuteOut) {
      const isDay = dayOut && (!minuteOut || dayResetAt > minuteResetAt);
      const [limit, resetAt, used] = isDay ? [limits.day!, dayResetAt, day!.count] : [limits.minute!, minuteResetAt, minute!.count];
      // Room may be left for fewer units than asked: the remaining count stays true (0 for a single request refused).
      const remaining = Math.max(0, limit - used);
      return { allowed: false, limit, remaining, resetTs: resetAt / 1000, retryAfterS: Math.max(1, Math.ceil((resetAt - now) / 1000)) };
    }
    if (minute !== undefined) minute.count += units;
    if (day !== undefined) day.count += units;
    if (this.shared) {
      if (minute !== undefined) minute.unsynced += units;
      if (day !== undefined) day.unsynced += units;
      this.unsynced.add(c);
      this.scheduleSync();
    } else if (day !== undefined) c.dayDirty = true;
    // Report the tightest window; on a tie, the one that frees first (the minute's).
    const minuteLeft = minute === undefined ? Infinity : limits.minute! - minute.count;
    const dayLeft = day === undefined ? Infinity : limits.day! - day.count;
    return dayLeft < minuteLeft
      ? { allowed: true, limit: limits.day!, remaining: dayLeft, resetTs: dayResetAt / 1000 }
      : { allowed: true, limit: limits.minute!, remaining: minuteLeft, resetTs: minuteResetAt / 1000 };
  }

  /**
   * A counter's window as of `now`: a new window starts from zero. (check() has just read the day's count; a day
   * that began in the instant since starts from zero too.)
   */
  private windowNow(c: Counter, name: WindowName, now: number): WindowState {
    const state = c[name];
    const start = now - (now % WINDOWS[name]);
    if (state.startTs !== start) {
      state.startTs = start;
      state.count = 0;
      state.unsynced = 0;
    }
    return state;
  }

  /** Writes changed day counts (on PostgreSQL: adds every unsynced increment) and drops counters whose windows are over. */
  async flush(): Promise<void> {
    if (this.shared) return this.flushShared(this.shared);
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

  // ------------------------------------------------------------ shared counts (PostgreSQL)

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.sharedQueue.then(fn, fn);
    this.sharedQueue = run.catch(() => undefined);
    return run;
  }

  /** Before a decision: reads the shared totals of windows this node has not seen yet, or when its view is older than SHARED_SYNC_MS. */
  private async loadShared(shared: SharedCountStore, c: Counter, limits: Partial<Record<WindowName, number>>): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const refs: CounterRef[] = [];
      for (const window of ["minute", "day"] as const)
        if (limits[window] !== undefined) refs.push({ keyId: c.keyId, bucket: c.bucket, window, windowStartTs: now - (now % WINDOWS[window]) });
      if (refs.length === 0 || this.hasCounts(c, limits, now)) return;
      if (!c.sharedLoading) {
        const loading = this.serial(async () => {
          const readAt = performance.now();
          const totals = await shared.read(refs);
          refs.forEach((r, i) => {
            const state = c[r.window];
            if (state.startTs !== r.windowStartTs) c[r.window] = { startTs: r.windowStartTs, count: totals[i]!, unsynced: 0 };
            else state.count = totals[i]! + state.unsynced;
          });
          c.sharedAt = readAt;
        }).finally(() => {
          if (c.sharedLoading === loading) c.sharedLoading = undefined;
        });
        c.sharedLoading = loading;
      }
      await c.sharedLoading;
    }
  }

  private scheduleSync(): void {
    if (this.syncTimer !== undefined) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      // A failed add keeps its increments for the next one (the next admitted request, or flush()).
      this.serial(() => this.pushShared(this.shared!)).catch(() => undefined);
    }, SHARED_SYNC_MS);
    (this.syncTimer as { unref?: () => void }).unref?.();
  }

  /** Adds every counter's unsynced increments to the shared totals and takes the totals back. */
  private async pushShared(shared: SharedCountStore): Promise<void> {
    if (this.unsynced.size === 0) return;
    const rows: (CounterRef & { delta: number })[] = [];
    const targets: { c: Counter; state: WindowState; startTs: number }[] = [];
    for (const c of this.unsynced) {
      for (const window of ["minute", "day"] as const) {
        const state = c[window];
        if (state.unsynced === 0) continue;
        rows.push({ keyId: c.keyId, bucket: c.bucket, window, windowStartTs: state.startTs, delta: state.unsynced });
        targets.push({ c, state, startTs: state.startTs });
        state.unsynced = 0;
      }
    }
    this.unsynced.clear();
    if (rows.length === 0) return;
    const sentAt = performance.now();
    let totals: number[];
    try {
      totals = await shared.add(rows);
    } catch (err) {
      targets.forEach(({ c, state, startTs }, i) => {
        if (state.startTs !== startTs) return;
        state.unsynced += rows[i]!.delta;
        this.unsynced.add(c);
      });
      throw err;
    }
    targets.forEach(({ c, state, startTs }, i) => {
      if (state.startTs !== startTs) return;
      // The total includes this node's increments just added; requests admitted during the add are still unsynced.
      state.count = totals[i]! + state.unsynced;
      c.sharedAt = Math.max(c.sharedAt, sentAt);
    });
  }

  private async flushShared(shared: SharedCountStore): Promise<void> {
    if (this.syncTimer !== undefined) {
      clearTimeout(this.syncTimer);
      this.syncTimer = undefined;
    }
    await this.serial(() => this.pushShared(shared));
    const now = this.clock.now();
    const today = now - (now % WINDOWS.day);
    const thisMinute = now - (now % WINDOWS.minute);
    // Every node prunes, at most once a minute; a minute window is kept one minute after it ends.
    if (this.prunedMinute !== thisMinute) {
      this.prunedMinute = thisMinute;
      await this.serial(() => shared.prune(today - WINDOWS.day, thisMinute - WINDOWS.minute));
    }
    for (const [id, c] of this.counters) {
      if (!this.unsynced.has(c) && c.day.startTs < today && c.minute.startTs < thisMinute) this.counters.delete(id);
    }
  }
}
