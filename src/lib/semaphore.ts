/**
 * A counting semaphore that a caller's AbortSignal can leave while it waits: how the model client
 * (ai/client.ts) caps its requests in flight. Hand-written because it is short and its two rules
 * are the point: FIFO (a released slot passes straight to the oldest waiter, so later calls cannot
 * overtake) and an aborted waiter leaves the queue without taking a slot.
 */
export class Semaphore {
  private free: number;
  private readonly waiters: Array<{ grant: () => void; cancel?: () => void }> = [];

  constructor(limit: number) {
    this.free = limit;
  }

  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: { grant: () => void; cancel?: () => void } = {
        grant: () => {
          if (waiter.cancel) signal?.removeEventListener("abort", waiter.cancel);
          resolve(this.releaser());
        },
      };
      if (signal) {
        waiter.cancel = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal.reason ?? new Error("aborted"));
        };
        signal.addEventListener("abort", waiter.cancel, { once: true });
      }
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiters.shift();
      if (next) next.grant();
      else this.free++;
    };
  }
}
