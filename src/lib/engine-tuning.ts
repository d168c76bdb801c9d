/**
 * The JavaScript engine's garbage-collection options the systemd unit (`jobpilot service install`) runs `serve`
 * with: the heap grows to at most 1.4 times what the last full collection kept, so a burst's garbage does not
 * stay resident (docs/performance.md has the figures; docs/operations.md, "Memory on a small VPS", the how).
 *
 * The engine reads them only from its environment before any JavaScript runs, and Bun documents `BUN_JSC_*` as
 * an unstable debugging interface: a runtime that does not know a name refuses to start. So the unit sets them
 * only for a Bun version a test has started `serve` with them on (tests/e2e/binary.test.ts).
 */

/** The options, as the engine reads them from the environment. */
export const ENGINE_OPTIONS: Readonly<Record<string, string>> = {
  BUN_JSC_heapGrowthMaxIncrease: "0.4",
  BUN_JSC_smallHeapGrowthFactor: "1.4",
  BUN_JSC_minEdenToOldGenerationRatio: "0.2",
};

/** Bun versions `serve` has been started with ENGINE_OPTIONS on (a new one is added once the binary test passes on it). */
export const ENGINE_TUNED_BUN_VERSIONS: readonly string[] = ["1.4.5"];

/** Whether this process runs with ENGINE_OPTIONS as set here (for the start log; an operator's own values read false). */
export function isEngineTuned(env: Readonly<Record<string, string | undefined>>): boolean {
  return Object.entries(ENGINE_OPTIONS).every(([name, value]) => env[name] === value);
}
