/**
 * Staying inside each platform's rate limits, so a burst of matches is sent
 * at the pace the platform accepts instead of as a storm of 429s.
 *
 * paceOf() names the limits that apply to a channel as buckets (a key and its
 * rules); a Pacer remembers recent sends per key and answers "how long until
 * one more may go". It owns no timers and reads no clock: the deliverer asks
 * with its own clock's time and schedules the send itself, so a waiting
 * message never holds the delivery loop.
 *
 * Each rule is a sliding window, "at most `limit` sends in any `perMs`": a
 * send is allowed once the `limit`-th most recent one is `perMs` old. That is
 * stricter than a token bucket (which lets a full bucket's burst follow a
 * refilled one, up to twice the limit within one window), so the count the
 * platform sees never exceeds the limit whatever the window's alignment.
 */
import { kindOf } from "./kinds/index";
import type { ChannelConfigs, ChannelType } from "./model";

export interface PaceRule {
  limit: number;
  perMs: number;
}

/** Sends that share a limit: one key (no secrets in it: keys may be logged) and the windows that apply to it. */
export interface PaceBucket {
  key: string;
  rules: PaceRule[];
}

/** The limits a message to this channel counts against: its kind's (each kind's `pace` names its platform's numbers). */
export function paceOf<T extends ChannelType>(type: T, config: ChannelConfigs[T]): PaceBucket[] {
  return kindOf(type).pace(config);
}

interface KeyState {
  /** Times of the most recent sends, oldest first; as many as the largest limit needs. */
  sentAt: number[];
  /** Nothing goes before this time (a platform's retry-after). */
  heldUntil: number;
  /** The longest window of the key's rules: past it, the key's history no longer matters. */
  spanMs: number;
}

/** Forgotten keys are swept at most this often; a key is forgotten once its longest window has passed. */
const SWEEP_EVERY_MS = 60_000;

export class Pacer {
  private readonly keys = new Map<string, KeyState>();
  private lastSweepMs = Number.NEGATIVE_INFINITY;

  /**
   * How long until a message counted against these buckets may be sent: 0 means "now", and the send is then
   * recorded against every bucket; a positive wait records nothing (ask again when it has passed). Several
   * callers may ask for the same key; each send they are allowed is counted, so together they never exceed
   * the rules.
   */
  reserve(buckets: PaceBucket[], nowMs: number): number {
    this.sweep(nowMs);
    const wait = this.waitMs(buckets, nowMs);
    if (wait > 0) return wait;
    for (const bucket of buckets) {
      const state = this.state(bucket);
      const max = Math.max(...bucket.rules.map((r) => r.limit));
      // A clock that steps back (tests, NTP) must not break the ordering the waits are computed from.
      state.sentAt.push(Math.max(nowMs, state.sentAt.at(-1) ?? nowMs));
      if (state.sentAt.length > max) state.sentAt.splice(0, state.sentAt.length - max);
    }
    return 0;
  }

  /** How long until one more send fits every bucket, without recording anything. */
  waitMs(buckets: PaceBucket[], nowMs: number): number {
    let wait = 0;
    for (const bucket of buckets) {
      const state = this.keys.get(bucket.key);
      if (state === undefined) continue;
      wait = Math.max(wait, state.heldUntil - nowMs);
      const n = state.sentAt.length;
      for (const { limit, perMs } of bucket.rules) {
        // At most `limit` in any window of perMs: the next send waits until the limit-th latest is perMs old.
        if (n >= limit) wait = Math.max(wait, state.sentAt[n - limit]! + perMs - nowMs);
      }
    }
    return Math.max(0, wait);
  }

  /** Holds every bucket until `untilMs`: the platform said when to come back (a 429's retry-after). */
  hold(buckets: PaceBucket[], untilMs: number): void {
    for (const bucket of buckets) {
      const state = this.state(bucket);
      state.heldUntil = Math.max(state.heldUntil, untilMs);
    }
  }

  /** Keys with any history (for tests: the sweep forgets idle ones). */
  get size(): number {
    return this.keys.size;
  }

  private state(bucket: PaceBucket): KeyState {
    let state = this.keys.get(bucket.key);
    if (state === undefined) {
      state = { sentAt: [], heldUntil: 0, spanMs: 0 };
      this.keys.set(bucket.key, state);
    }
    state.spanMs = Math.max(state.spanMs, ...bucket.rules.map((r) => r.perMs));
    return state;
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < SWEEP_EVERY_MS) return;
    this.lastSweepMs = nowMs;
    for (const [key, state] of this.keys) {
      const last = state.sentAt.at(-1) ?? Number.NEGATIVE_INFINITY;
      if (last + state.spanMs <= nowMs && state.heldUntil <= nowMs) this.keys.delete(key);
    }
  }
}
