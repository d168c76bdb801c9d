/**
 * The JavaScript engine's garbage-collection setting `serve` runs with, and when to start it again with it.
 *
 * JavaScriptCore lets its heap grow to 3 times what its last full collection kept (on a machine with 16 GiB of
 * RAM or more; 2 times on a smaller one) before it collects in full again, so the garbage of a burst of work
 * (requests, an ingest, its webhooks) stays resident until a full collection the burst seldom reaches. The
 * first two options cap that growth at 1.4 times: bench memory's three mixed bursts peaked at 278–287 MiB with
 * the engine's defaults, 189–191 at 1.6 times, 183–186 at 1.5.
 *
 * The third is what keeps a cap that low from collecting in full all the time. After each young-generation
 * (eden) collection the engine also collects in full when the room left for new objects falls under
 * `minEdenToOldGenerationRatio` (1/3) of the heap's limit; with growth capped at 1.6 times that room starts at
 * 0.375 and fell under 1/3 once about a fifth of the live heap had been promoted, so under steady API load
 * every second or third collection was a full one (22 full and 47 eden a 100,000 requests, 371 ms of
 * collector time). At 1.4 times with 0.2, a full collection waits for ~60 % of the live heap to be promoted,
 * behind twice as many (cheaper) eden collections: 6 full and 91 eden, 159 ms (engine defaults: 1 and 27,
 * 43 ms). The burst peak stayed where it was (183–192 MiB, 4 runs each alternated, against 183–191 at 1.6).
 *
 * The engine reads these only from its environment, before any JavaScript runs, and Bun documents `BUN_JSC_*`
 * as an unstable debugging interface: a runtime that does not know a name refuses to start. So main.ts starts
 * `serve` again in place (execve: same process, same streams) with them added, and only on a Bun version a test
 * has started this way (tests/e2e/binary.test.ts); on any other version it runs without them.
 */

import { booleanText } from "./boolean-text";

/** The options, as the engine reads them from the environment. */
export const ENGINE_OPTIONS: Readonly<Record<string, string>> = {
  BUN_JSC_heapGrowthMaxIncrease: "0.4",
  BUN_JSC_smallHeapGrowthFactor: "1.4",
  BUN_JSC_minEdenToOldGenerationRatio: "0.2",
};

/** Bun versions `serve` has been started with ENGINE_OPTIONS on (a new one is added once the binary test passes on it). */
export const ENGINE_TUNED_BUN_VERSIONS: readonly string[] = ["1.4.5"];

/** The setting that turns it off (settings/server.ts documents it; the config check refuses a value other than true/false/1/0). */
export const ENGINE_TUNING_ENV = "JOBPILOT_ENGINE_TUNING";

export interface StartFacts {
  /** The command line after the program (process.argv.slice(2)). */
  args: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  bunVersion: string;
  platform: string;
}

/**
 * The environment variables to add before this start goes on, or null to go on as it is: not `serve` (a CLI
 * command ends before a burst), asked for help, turned off, not Linux (the restart reads /proc), a Bun version
 * not verified, or any of the options already set (by an operator, or by the restart itself).
 */
export function engineRestart(facts: StartFacts): Record<string, string> | null {
  if (facts.args[0] !== "serve" || facts.args.some((a) => a === "--help" || a === "-h")) return null;
  const setting = facts.env[ENGINE_TUNING_ENV];
  // Read here, not through config.ts (that would load the settings list before the restart); the same spelling.
  if (setting !== undefined && booleanText(setting) !== true) return null;
  if (facts.platform !== "linux" || !ENGINE_TUNED_BUN_VERSIONS.includes(facts.bunVersion)) return null;
  if (Object.keys(ENGINE_OPTIONS).some((name) => facts.env[name] !== undefined)) return null;
  return { ...ENGINE_OPTIONS };
}

/** Whether this process runs with ENGINE_OPTIONS as set here (for the start log; an operator's own values read false). */
export function isEngineTuned(env: Readonly<Record<string, string | undefined>>): boolean {
  return Object.entries(ENGINE_OPTIONS).every(([name, value]) => env[name] === value);
}
