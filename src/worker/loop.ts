import type { Logger } from "../lib/log";

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

  constructor(private readonly opts: LoopOptions) {}

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
      try {
        await this.opts.run();
        this.failures = 0;
      } catch (err) {
        this.failures++;
        this.opts.log.error("background loop round failed", { loop: this.opts.name, failures: this.failures, err: err as Error });
      }
      if (!this.running) break;
      if (this.woken && this.failures === 0) continue;
      const backoff = this.failures === 0 ? this.opts.intervalMs : Math.min(this.opts.maxBackoffMs ?? 30_000, this.opts.intervalMs * 2 ** this.failures);
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
