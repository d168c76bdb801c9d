import { describe, expect, test } from "bun:test";
import { ENGINE_OPTIONS, isEngineTuned } from "../../src/lib/engine-tuning";

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
