/**
 * The figures a benchmark hands to `bun run bench:all`: when BENCH_SUMMARY names a file, each benchmark
 * merges its figures into it under its own name (bench:all reads the file after the child exits).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

export async function writeSummary(name: string, figures: Record<string, unknown>): Promise<void> {
  const file = process.env.BENCH_SUMMARY;
  if (!file) return;
  const all = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  all[name] = { ...((all[name] as object) ?? {}), ...figures };
  writeFileSync(file, JSON.stringify(all, null, 2));
}

/** A ratio to two decimals, truncated rather than rounded, so 0.696 of a 0.7 goal reads 0.69 beside its ✗, not 0.70. */
export const ratioText = (v: number) => (Math.floor(v * 100) / 100).toFixed(2);

/** A server's CPU time per request in µs: user (our code and the runtime) and system (the kernel, mostly the socket calls). */
export interface CpuTime {
  user: number;
  system: number;
}

/**
 * The caller's engine settings (any BUN_JSC_* option), passed on to the `serve` a benchmark starts, whose
 * environment is otherwise its own: unset, the engine's defaults; the systemd unit's options (lib/engine-tuning.ts)
 * measure what a service runs with, `BUN_JSC_heapGrowthMaxIncrease=0.75 …` another setting.
 */
export function engineSettings(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const passed = Object.entries(env).filter(([name, value]) => value !== undefined && name.startsWith("BUN_JSC_"));
  return Object.fromEntries(passed) as Record<string, string>;
}

/** User and system time together. */
export const cpuTotal = (c: CpuTime) => c.user + c.system;

/** A process's user and system CPU time in ms (Linux: /proc/PID/stat, in clock ticks of 10 ms), or null elsewhere. */
export function cpuMs(pid: number): CpuTime | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return null;
  }
}
