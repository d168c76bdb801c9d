import type { Logger } from "../lib/log";
import { staleAfterMs, type Heartbeat } from "./liveness";

export interface LoopOptions {
  name: string;
  /** Pause between rounds when there is nothing to wake it. */
  intervalMs: number;
  /** One round of work. A throw is logged and the next round waits longer (backoff). */
  run: () => unknown | Promise<unknown>;
  log: Logger;
  maxBackoffMs?: number;
}

/**
 * A background loop with start(), stop() (waits for the round in hand) and
 * notify() (runs the next round at once instead of after the interval). Every
 * background worker of the service is one of these, so shutdown can drain them
 * all the same way.
 */
export class Loop {
  private running = false;
  private wake: (() => void) | null = null;
  private woken = false;
  private done: Promise<void> | null = null;
  private failures = 0;
  private gate: (() => Promise<boolean>) | null = null;
  /** Monotonic time of the last round start or end (a heartbeat for /readyz), and the pause planned after it. */
  private lastTickAt = performance.now();
  private pauseMs: number;

  constructor(private readonly opts: LoopOptions) {
    this.pauseMs = opts.intervalMs;
  }

  /** Whether it runs, when it last ticked, and how long a silence means it is stuck (see worker/liveness.ts). */
  heartbeat(): Heartbeat {
    return { running: this.running, lastTickAt: this.lastTickAt, staleAfterMs: staleAfterMs(this.pauseMs) };
  }

  /**
   * Runs a round only when `gate` answers true (asked before each one): e.g. only on the node holding the
   * loop's lease, when several nodes share one database. A throwing gate counts as a failed round.
   */
  onlyWhen(gate: () => Promise<boolean>): this {
    this.gate = gate;
    return this;
  }

  get name(): string {
    return this.opts.name;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.done = this.loop();
  }

  notify(): void {
    this.woken = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.done;
    this.done = null;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.woken = false;
      this.lastTickAt = performance.now();
      try {
        if (this.gate === null || (await this.gate())) await this.opts.run();
        this.failures = 0;
      } catch (err) {
        this.failures++;
        this.opts.log.error("background loop round failed", { loop: this.opts.name, failures: this.failures, err: err as Error });
      }
      this.lastTickAt = performance.now();
      if (!this.running) break;
      if (this.woken && this.failures === 0) {
        // Woken during the round: go again at once, but after pending I/O, so a loop that is woken without pause
        // (a task finishing every few milliseconds) never holds requests back.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      const backoff = this.failures === 0 ? this.opts.intervalMs : Math.min(this.opts.maxBackoffMs ?? 30_000, this.opts.intervalMs * 2 ** this.failures);
      this.pauseMs = backoff;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoff);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}

/**
 * A loop that starts work without waiting for it (up to a bound the subclass
 * keeps) and tracks what is in flight: stop() stops starting new work and then
 * waits for what is running; whenever a piece finishes the loop looks for more
 * at once. The task worker and the webhook deliverer are both one.
 */
export abstract class PoolLoop {
  protected readonly loop: Loop;
  protected readonly inFlight = new Set<Promise<void>>();

  constructor(name: string, intervalMs: number, log: Logger) {
    this.loop = new Loop({ name, intervalMs, run: () => this.round(), log });
  }

  protected abstract round(): void | Promise<void>;

  start(): void {
    this.loop.start();
  }

  get name(): string {
    return this.loop.name;
  }

  heartbeat(): Heartbeat {
    return this.loop.heartbeat();
  }

  notify(): void {
    this.loop.notify();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Runs `work` in the background; `after` runs when it settles, before the loop is woken for more. */
  protected track(work: Promise<unknown>, after: () => void): void {
    const running: Promise<void> = work
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        this.inFlight.delete(running);
        after();
        this.loop.notify();
      });
    this.inFlight.add(running);
  }

  /** Resolves once nothing is in flight and `nothingDue()` holds (tests and benchmarks). */
  protected async waitIdle(nothingDue: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
    const until = performance.now() + timeoutMs;
    for (;;) {
      if (this.inFlight.size === 0 && (await nothingDue()) && this.inFlight.size === 0) return;
      if (performance.now() > until) throw new Error(`${what} still pending after ${timeoutMs} ms`);
      this.notify();
      await Bun.sleep(2);
    }
  }
}
