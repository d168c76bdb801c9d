/**
 * Whether the background loops are alive, for /readyz and the metrics: each loop (worker/loop.ts) and each
 * schedule (worker/scheduler.ts) reports a heartbeat, and `serve` hands them to one Liveness. A loop is
 * dead when it was stopped, or when it has not ticked for a few of its pauses: a round that never ends (a
 * hung request, a lost promise) stops the ticks while `running` still says yes.
 */

export interface Heartbeat {
  running: boolean;
  /** performance.now() of the last tick (a round's start or end, a schedule's tick). */
  lastTickAt: number;
  /** Silence longer than this means the loop is stuck. */
  staleAfterMs: number;
}

export interface Beating {
  readonly name: string;
  heartbeat(): Heartbeat;
}

/** A loop's silence is judged against this many of its pauses… */
export const STALE_PAUSES = 5;
/** …and never less than this: a poll of a slow job board or a big batch may run for a minute or two. */
export const MIN_STALE_MS = 3 * 60_000;

export function staleAfterMs(pauseMs: number): number {
  return Math.max(MIN_STALE_MS, STALE_PAUSES * pauseMs);
}

export interface LoopHealth {
  name: string;
  ok: boolean;
  /** Seconds since the last tick. */
  lastTickAgoS: number;
  /** Why it is not ok. */
  reason?: string;
}

export class Liveness {
  private readonly watched = new Set<Beating>();

  watch(...loops: Beating[]): void {
    for (const loop of loops) this.watched.add(loop);
  }

  /** Every watched loop's state; `now` is performance.now() (tests pass a later one). */
  check(now = performance.now()): LoopHealth[] {
    return [...this.watched].map((loop) => {
      const beat = loop.heartbeat();
      const agoMs = Math.max(0, now - beat.lastTickAt);
      const lastTickAgoS = Math.round(agoMs / 100) / 10;
      if (!beat.running) return { name: loop.name, ok: false, lastTickAgoS, reason: "stopped" };
      if (agoMs > beat.staleAfterMs) return { name: loop.name, ok: false, lastTickAgoS, reason: `no tick for ${Math.round(agoMs / 1000)} s (stuck?)` };
      return { name: loop.name, ok: true, lastTickAgoS };
    });
  }
}
