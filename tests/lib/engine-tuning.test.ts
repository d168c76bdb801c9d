import { describe, expect, test } from "bun:test";
import { ENGINE_OPTIONS, ENGINE_TUNED_BUN_VERSIONS, ENGINE_TUNING_ENV, engineRestart, isEngineTuned, type StartFacts } from "../../src/lib/engine-tuning";

const verified = ENGINE_TUNED_BUN_VERSIONS[0]!;
const facts = (over: Partial<StartFacts> = {}): StartFacts => ({ args: ["serve"], env: {}, bunVersion: verified, platform: "linux", ...over });

describe("engineRestart", () => {
  test("serve on Linux with a verified Bun restarts with the three garbage-collection options", () => {
    expect(engineRestart(facts())).toEqual({
      BUN_JSC_heapGrowthMaxIncrease: "0.4",
      BUN_JSC_smallHeapGrowthFactor: "1.4",
      BUN_JSC_minEdenToOldGenerationRatio: "0.2",
    });
    expect(engineRestart(facts({ args: ["serve", "--port", "0"], env: { [ENGINE_TUNING_ENV]: "true" } }))).toEqual({ ...ENGINE_OPTIONS });
    expect(engineRestart(facts({ env: { [ENGINE_TUNING_ENV]: "1" } }))).not.toBeNull();
  });

  test("a CLI command, or serve asked for its help, goes on as it is", () => {
    for (const args of [[], ["key", "create"], ["backup"], ["serve", "--help"], ["serve", "-h"], ["help", "serve"]]) {
      expect(engineRestart(facts({ args }))).toBeNull();
    }
  });

  test("turned off, or any value the config check will refuse, starts without a restart", () => {
    for (const value of ["false", "0", "no", ""]) expect(engineRestart(facts({ env: { [ENGINE_TUNING_ENV]: value } }))).toBeNull();
  });

  test("another OS or an unverified Bun runs on the engine's defaults", () => {
    expect(engineRestart(facts({ platform: "darwin" }))).toBeNull();
    expect(engineRestart(facts({ bunVersion: "0.0.1" }))).toBeNull();
  });

  test("options already in the environment (the operator's, or the restart's own) are kept: no second restart", () => {
    for (const name of Object.keys(ENGINE_OPTIONS)) expect(engineRestart(facts({ env: { [name]: "1" } }))).toBeNull();
    expect(engineRestart(facts({ env: { ...ENGINE_OPTIONS } }))).toBeNull();
  });
});

describe("isEngineTuned", () => {
  test("true only with every option at this module's values", () => {
    expect(isEngineTuned({ ...ENGINE_OPTIONS })).toBe(true);
    const { BUN_JSC_minEdenToOldGenerationRatio: _ratio, ...growthOnly } = ENGINE_OPTIONS;
    expect(isEngineTuned(growthOnly)).toBe(false);
    expect(isEngineTuned({})).toBe(false);
    expect(isEngineTuned({ ...ENGINE_OPTIONS, BUN_JSC_heapGrowthMaxIncrease: "1" })).toBe(false);
    expect(isEngineTuned({ BUN_JSC_heapGrowthMaxIncrease: ENGINE_OPTIONS.BUN_JSC_heapGrowthMaxIncrease })).toBe(false);
  });
});
