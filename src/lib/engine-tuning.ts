/**
 * The JavaScript engine's garbage-collection setting `serve` runs with, and when to start it again with it.
 *
 * JavaScriptCore lets its heap grow to 3 times what its last full collection kept (on a machine with 16 GiB of
 * RAM or more; 2 times on a smaller one) before it collects in full again, so the garbage of a burst of work
 * (requests, an ingest, its webhooks) stays resident until a full collection the burst seldom reaches. These
 * two options cap that growth at 1.6 times. bench memory's three mixed bursts, 2 runs each: peak RSS 278–287
 * MiB by default, 200–202 at 1.75 times, 189–191 at 1.6, 183–186 at 1.5; the server's CPU through them 7.6–7.7,
 * 7.1–8.0, 7.9–8.1 and 8.8–8.9 s. 1.6 keeps the peak under 200 MiB with a margin for a few percent of CPU.
 *
 * The engine reads them only from its environment, before any JavaScript runs, and Bun documents `BUN_JSC_*`
 * as an unstable debugging interface: a runtime that does not know a name refuses to start. So main.ts starts
 * `serve` again in place (execve: same process, same streams) with them added, and only on a Bun version a test
 * has started this way (tests/e2e/binary.test.ts); on any other version it runs without them.
 */

import { booleanText } from "./boolean-text";

/** The options, as the engine reads them from the environment. */
export const ENGINE_OPTIONS: Readonly<Record<string, string>> = {
  BUN_JSC_heapGrowthMaxIncrease: "0.6",
  BUN_JSC_smallHeapGrowthFactor: "1.6",
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
