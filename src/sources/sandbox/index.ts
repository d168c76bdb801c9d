import type { JobSource } from "../source";
import { evolveSandboxJob } from "./evolve";
import { generateJob } from "./generator";

export const SANDBOX_NAME = "sandbox";

/**
 * The built-in simulated marketplace (the default source): posts
 * `jobsPerMinute` realistic jobs per minute, deterministic for a seed and a
 * clock. Job ids mix in the time of each poll, so a restart never reposts the
 * same ids. Re-reading a job evolves it to the given time (evolve.ts), so the
 * tracker sees its counts move.
 */
export function createSandboxSource(opts: { seed: number; jobsPerMinute: number }): JobSource {
  let index = 0;
  return {
    name: SANDBOX_NAME,
    intervalMs: Math.max(10, Math.round(60_000 / opts.jobsPerMinute)),
    poll({ nowTs }) {
      return { docs: [generateJob({ seed: opts.seed, index: index++, nowTs })] };
    },
    reread: (doc, nowTs) => evolveSandboxJob(doc, nowTs),
  };
}
