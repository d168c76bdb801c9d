import type { Logger } from "./lib/log";

export interface ShutdownStep {
  name: string;
  run: () => unknown | Promise<unknown>;
  /** Called when the step's share of the time ran out (e.g. cut open connections). */
  force?: () => unknown;
}

/**
 * Ordered, bounded, idempotent shutdown: steps run one after another (stop
 * intake → drain loops → flush and close the database); each may use what is
 * left of the overall budget, and a step that overruns is forced and the next
 * one still runs, so the database is always closed. Calling it again returns
 * the same promise.
 */
export function createShutdown(steps: ShutdownStep[], opts: { timeoutMs: number; log: Logger }) {
  let running: Promise<void> | null = null;
  return (reason: string): Promise<void> => {
    running ??= (async () => {
      const deadline = performance.now() + opts.timeoutMs;
      opts.log.info("shutting down", { reason });
      for (const step of steps) {
        const left = Math.max(0, deadline - performance.now());
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), left)));
        try {
          const outcome = await Promise.race([Promise.resolve().then(step.run), timedOut]);
          if (outcome === "timeout") {
            opts.log.warn("shutdown step timed out; forcing", { step: step.name });
            await step.force?.();
          }
        } catch (err) {
          opts.log.error("shutdown step failed", { step: step.name, err: err as Error });
        } finally {
          clearTimeout(timer);
        }
      }
      opts.log.info("stopped", { reason });
    })();
    return running;
  };
}
