import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { wilson as libWilson } from "../../../src/lib/wilson";
import {
  type ArmCounts,
  assignArm,
  DEFAULT_DRAWS,
  DEFAULT_MARGIN,
  DEFAULT_MIN_PER_ARM,
  MIXTURE_SD,
  decide,
  differenceCi95,
  sampleSizePerArm,
  THOMPSON_FLOOR,
  thompsonWeights,
  wilson,
} from "../../../src/modules/experiments/stats";

/** The tests' own seeded PRNG (mulberry32), so every simulated campaign is the same on every run. */
function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PER_DAY = 10;

/** docs/experiments.md quotes the simulations' counts; each test checks the page says what it found. */
const docsPage = () => readFileSync(join(import.meta.dir, "../../../docs/experiments.md"), "utf8");

/**
 * One campaign as a freelancer runs it: PER_DAY proposals per arm per day, each replied to with its arm's true
 * rate, and a look at decide() after every day until it stops being "running" or every arm reached maxPerArm.
 * probabilityBest does not decide, so few draws keep 400 campaigns fast.
 */
function campaign(rates: number[], maxPerArm: number, seed: number, look: (arms: ArmCounts[]) => string = lookAtDecide): string {
  const rand = mulberry32(seed);
  const arms: ArmCounts[] = rates.map((_, i) => ({ id: String.fromCharCode(97 + i), successes: 0, n: 0 }));
  while (arms[0]!.n < maxPerArm) {
    const today = Math.min(PER_DAY, maxPerArm - arms[0]!.n);
    arms.forEach((arm, i) => {
      for (let j = 0; j < today; j++) if (rand() < rates[i]!) arm.successes++;
      arm.n += today;
    });
    const decision = look(arms);
    if (decision !== "running") return decision;
  }
  return "running";
}

function lookAtDecide(arms: ArmCounts[]): string {
  return decide(arms, { controlId: "a", draws: 20 }).decision;
}

/** The naive way: name a winner as soon as the one-look 95 % interval excludes 0 (same 20-per-arm minimum). */
function lookAtOneLookInterval(arms: ArmCounts[]): string {
  if (arms[0]!.n < DEFAULT_MIN_PER_ARM) return "running";
  const [lo, hi] = differenceCi95(arms[0]!, arms[1]!)!;
  return lo > 0 ? "winner:b" : hi < 0 ? "winner:a" : "running";
}

describe("differenceCi95 (Newcombe's method 10)", () => {
  test("matches Newcombe's (1998) Table II to four places, including the 0/n and n/n cases", () => {
    // [successes₁, n₁, successes₂, n₂, lower, upper] for the difference p₁ − p₂, as printed in the paper.
    const table: [number, number, number, number, number, number][] = [
      [56, 70, 48, 80, 0.0524, 0.3339],
      [9, 10, 3, 10, 0.1705, 0.809],
      [6, 7, 2, 7, 0.0582, 0.8062],
      [5, 56, 0, 29, -0.0381, 0.1926],
      [0, 10, 0, 20, -0.1611, 0.2775],
      [0, 10, 0, 10, -0.2775, 0.2775],
      [10, 10, 0, 20, 0.6791, 1],
      [10, 10, 0, 10, 0.6075, 1],
    ];
    for (const [s1, n1, s2, n2, lo, hi] of table) {
      const ci = differenceCi95({ successes: s2, n: n2 }, { successes: s1, n: n1 })!;
      expect(ci[0]).toBeCloseTo(lo, 4);
      expect(ci[1]).toBeCloseTo(hi, 4);
    }
  });

  test("is built on the project's Wilson interval, swaps sign with the arms, and is null for an empty arm", () => {
    expect(wilson).toBe(libWilson);
    const a = { successes: 11, n: 100 };
    const b = { successes: 18, n: 100 };
    const [la, ua] = libWilson(11, 100);
    const [lb, ub] = libWilson(18, 100);
    const ci = differenceCi95(a, b)!;
    expect(ci[0]).toBeCloseTo(0.07 - Math.hypot(0.18 - lb, ua - 0.11), 12);
    expect(ci[1]).toBeCloseTo(0.07 + Math.hypot(ub - 0.18, 0.11 - la), 12);
    const back = differenceCi95(b, a)!;
    expect(back[0]).toBeCloseTo(-ci[1], 12);
    expect(back[1]).toBeCloseTo(-ci[0], 12);
    expect(differenceCi95({ successes: 0, n: 0 }, b)).toBeNull();
    expect(differenceCi95(a, { successes: 0, n: 0 })).toBeNull();
    expect(() => differenceCi95({ successes: 5, n: 4 }, b)).toThrow(RangeError);
  });
});

describe("decide", () => {
  test("A/A with daily peeking (2 arms at 15 %, 10 a day each, up to 60 days): a false winner in ≤ 5 % of 400 runs", () => {
    // If the true false-winner rate were exactly 5 %, the count in 400 runs would be Binomial(400, 0.05): mean
    // 20, sd 4.4, and P(count > 28) ≈ 3 %. Allowing 28 (7 %) absorbs that sampling noise only; a method whose
    // true rate is 8 % or more (mean ≥ 32) would fail here most of the time. The mSPRT is expected well under.
    let falseWinners = 0;
    for (let run = 0; run < 400; run++) if (campaign([0.15, 0.15], 600, 1 + run).startsWith("winner:")) falseWinners++;
    expect(falseWinners).toBeLessThanOrEqual(28);
    expect(docsPage()).toContain(`false winner in ${falseWinners} of 400 seeded runs with 2 arms`);
  }, 15_000);

  test("the same A/A campaigns judged by the one-look interval name false winners far more often (what the test guards against)", () => {
    // Shows the A/A check above can fail: peeking daily at an ordinary 95 % interval is fooled well over 5 % of the time.
    let falseWinners = 0;
    for (let run = 0; run < 400; run++) if (campaign([0.15, 0.15], 600, 1 + run, lookAtOneLookInterval).startsWith("winner:")) falseWinners++;
    expect(falseWinners).toBeGreaterThan(28);
    expect(docsPage()).toContain(`one-look interval instead named a false winner in ${falseWinners} of 400 runs`);
  }, 15_000);

  test("A/A/A (3 identical arms, Bonferroni against the control): a false winner in ≤ 5 % of 400 runs", () => {
    // Same binomial allowance as above: ≤ 28 of 400.
    let falseWinners = 0;
    for (let run = 0; run < 400; run++) if (campaign([0.15, 0.15, 0.15], 600, 10_000 + run).startsWith("winner:")) falseWinners++;
    expect(falseWinners).toBeLessThanOrEqual(28);
    expect(docsPage()).toContain(`in ${falseWinners} of 400 with 3 arms`);
  }, 15_000);

  test("11 % vs 18 % is found, naming the right arm, in ≥ 90 % of 400 runs by the sample size the docs state", () => {
    const n = sampleSizePerArm(0.11, 0.07);
    let right = 0;
    let wrong = 0;
    for (let run = 0; run < 400; run++) {
      const d = campaign([0.11, 0.18], n, 50_000 + run);
      if (d === "winner:b") right++;
      else if (d !== "running") wrong++;
    }
    expect(right / 400).toBeGreaterThanOrEqual(0.9);
    expect(wrong).toBeLessThanOrEqual(2);
    expect(docsPage()).toContain(`in ${right} of 400 runs by the ${n} per arm below, and the wrong arm ${wrong === 0 ? "never" : `${wrong} times`}`);
    expect(docsPage()).toContain(`the simulation above found ${Math.round((right / 400) * 100)} %`);
  }, 15_000);

  test("names the control when the other arm is clearly worse, and reports lift, intervals and p-values", () => {
    const d = decide(
      [
        { id: "long", successes: 90, n: 500 },
        { id: "short", successes: 40, n: 500 },
      ],
      { controlId: "long" },
    );
    expect(d.decision).toBe("winner:long");
    expect(d.lift.long).toEqual({ absolute: null, ci95: null, alwaysValid95: null, pValue: null });
    const lift = d.lift.short!;
    expect(lift.absolute).toBeCloseTo(-0.1, 12);
    expect(lift.ci95).toEqual(differenceCi95({ successes: 90, n: 500 }, { successes: 40, n: 500 }));
    // The always-valid sequence is wider than the one-look interval: that is what daily looks cost.
    expect(lift.alwaysValid95![0]).toBeLessThan(lift.ci95![0]);
    expect(lift.alwaysValid95![1]).toBeGreaterThan(lift.ci95![1]);
    expect(lift.alwaysValid95![1]).toBeLessThan(0);
    expect(lift.pValue!).toBeLessThan(0.05);
    expect(d.probabilityBest.long!).toBeGreaterThan(0.99);
    expect(d.reason).toContain("long");
  });

  test("with 3 arms a winner must beat the control at alpha/2, and the better of two significant arms wins", () => {
    const arms = [
      { id: "a", successes: 50, n: 500 },
      { id: "b", successes: 100, n: 500 },
      { id: "c", successes: 120, n: 500 },
    ];
    expect(decide(arms, { controlId: "a" }).decision).toBe("winner:c");
    // A difference whose p-value lies between 0.025 and 0.05 wins with 2 arms but not with 3.
    const two = [
      { id: "a", successes: 55, n: 500 },
      { id: "b", successes: 90, n: 500 },
    ];
    const p = decide(two, { controlId: "a" }).lift.b!.pValue!;
    expect(p).toBeGreaterThan(0.025);
    expect(p).toBeLessThan(0.05);
    expect(decide(two, { controlId: "a" }).decision).toBe("winner:b");
    expect(decide([...two, { id: "c", successes: 55, n: 500 }], { controlId: "a" }).decision).toBe("running");
  });

  test("no_difference once every confidence sequence is inside the margin, or at the stated maximum sample", () => {
    const same = [
      { id: "a", successes: 1500, n: 10_000 },
      { id: "b", successes: 1510, n: 10_000 },
    ];
    expect(decide(same, { controlId: "a" }).decision).toBe("no_difference");
    // A tighter margin than the sequence's half-width (≈ 1.5 points here) cannot be claimed.
    expect(decide(same, { controlId: "a", margin: 0.01 }).decision).toBe("running");
    const small = [
      { id: "a", successes: 30, n: 200 },
      { id: "b", successes: 33, n: 200 },
    ];
    expect(decide(small, { controlId: "a" }).decision).toBe("running");
    expect(decide(small, { controlId: "a", maxPerArm: 200 }).decision).toBe("no_difference");
    expect(decide(small, { controlId: "a", maxPerArm: 201 }).decision).toBe("running");
  });

  test("stays running below minPerArm, says stopped when stopped, and refuses bad input", () => {
    const early = [
      { id: "a", successes: 0, n: DEFAULT_MIN_PER_ARM - 1 },
      { id: "b", successes: DEFAULT_MIN_PER_ARM - 1, n: DEFAULT_MIN_PER_ARM - 1 },
    ];
    const d = decide(early, { controlId: "a" });
    expect(d.decision).toBe("running");
    expect(d.reason).toContain("1 more in a");
    expect(decide(early, { controlId: "a", minPerArm: 5 }).decision).toBe("winner:b");
    const stopped = decide(early, { controlId: "a", minPerArm: 5, stopped: true });
    expect(stopped.decision).toBe("stopped");
    expect(stopped.reason).toContain("b does better");
    const empty = decide(
      [
        { id: "a", successes: 0, n: 0 },
        { id: "b", successes: 0, n: 0 },
      ],
      { controlId: "a" },
    );
    expect(empty.decision).toBe("running");
    expect(empty.lift.b).toEqual({ absolute: null, ci95: null, alwaysValid95: null, pValue: null });
    expect(empty.probabilityBest.a! + empty.probabilityBest.b!).toBeCloseTo(1, 12);
    expect(() => decide(early, { controlId: "z" })).toThrow(/controlId/);
    expect(() => decide([early[0]!], { controlId: "a" })).toThrow(/2–4 arms/);
    expect(() => decide([early[0]!, early[0]!], { controlId: "a" })).toThrow(/twice/);
    expect(() => decide(early, { controlId: "a", alpha: 0 })).toThrow(/alpha/);
  });

  test("probabilityBest is the same for the same counts and favours the leader", () => {
    const arms = [
      { id: "a", successes: 10, n: 60 },
      { id: "b", successes: 16, n: 60 },
    ];
    const first = decide(arms, { controlId: "a" }).probabilityBest;
    expect(decide(arms, { controlId: "a" }).probabilityBest).toEqual(first);
    expect(first.b!).toBeGreaterThan(0.8);
    expect(first.b!).toBeLessThan(0.95);
    expect(first.a! + first.b!).toBeCloseTo(1, 12);
  });
});

describe("Thompson allocation", () => {
  const arms = [
    { id: "a", successes: 6, n: 60 },
    { id: "b", successes: 14, n: 60 },
    { id: "c", successes: 8, n: 60 },
  ];

  test("favours the leading arm, keeps every arm above the floor, and is the same for the same seed", () => {
    const w = thompsonWeights(arms, 42);
    expect(w.b!).toBeGreaterThan(w.a!);
    expect(w.b!).toBeGreaterThan(w.c!);
    expect(w.b!).toBeGreaterThan(0.6);
    for (const id of ["a", "b", "c"]) expect(w[id]!).toBeGreaterThanOrEqual(0.1);
    expect(w.a! + w.b! + w.c!).toBeCloseTo(1, 12);
    expect(thompsonWeights(arms, 42)).toEqual(w);
    expect(thompsonWeights(arms, "exp-1")).toEqual(thompsonWeights(arms, "exp-1"));
    expect(thompsonWeights(arms, 43)).not.toEqual(w);
    // With no data every arm is equally likely to be best.
    const blank = thompsonWeights(
      arms.map((a) => ({ ...a, successes: 0, n: 0 })),
      7,
    );
    for (const id of ["a", "b", "c"]) expect(blank[id]!).toBeCloseTo(1 / 3, 1);
  });

  test("assignArm cuts [0, 1) in the arms' order by weight, and refuses bad weights or u", () => {
    const weights = { a: 0.2, b: 0.5, c: 0.3 };
    expect(assignArm(arms, weights, 0)).toBe("a");
    expect(assignArm(arms, weights, 0.1999)).toBe("a");
    expect(assignArm(arms, weights, 0.2)).toBe("b");
    expect(assignArm(arms, weights, 0.6999)).toBe("b");
    expect(assignArm(arms, weights, 0.7)).toBe("c");
    expect(assignArm(arms, weights, 1)).toBe("c");
    expect(assignArm(arms, { a: 1, b: 1, c: 0 }, 1)).toBe("b");
    expect(() => assignArm(arms, weights, 1.01)).toThrow(/u must/);
    expect(() => assignArm(arms, weights, Number.NaN)).toThrow(/u must/);
    expect(() => assignArm(arms, { a: 1, b: -1, c: 1 }, 0.5)).toThrow(/weight of b/);
    expect(() => assignArm(arms, { a: 1, b: 1 }, 0.5)).toThrow(/weight of c/);
    expect(() => assignArm(arms, { a: 0, b: 0, c: 0 }, 0.5)).toThrow(/add up to 0/);
    // Seeded uniforms spread proposals in proportion to the weights.
    const rand = mulberry32(9);
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 10_000; i++) counts[assignArm(arms, weights, rand())]!++;
    expect(counts.a! / 10_000).toBeCloseTo(0.2, 1);
    expect(counts.b! / 10_000).toBeCloseTo(0.5, 1);
  });
});

describe("sampleSizePerArm", () => {
  test("is above the one-look textbook size (≈ 530 for 11 % vs 18 %), grows for smaller differences and more arms", () => {
    const n = sampleSizePerArm(0.11, 0.07);
    expect(n).toBeGreaterThan(530);
    expect(n).toBeLessThan(2 * 530);
    expect(sampleSizePerArm(0.11, 0.05)).toBeGreaterThan(n);
    expect(sampleSizePerArm(0.11, 0.07, { arms: 3 })).toBeGreaterThan(n);
    expect(sampleSizePerArm(0.11, 0.07, { power: 0.8 })).toBeLessThan(n);
    expect(sampleSizePerArm(0.18, -0.07)).toBe(n);
    expect(() => sampleSizePerArm(0.11, 0)).toThrow(/lift/);
    expect(() => sampleSizePerArm(0.95, 0.1)).toThrow(/lift/);
    expect(() => sampleSizePerArm(0.11, 0.07, { arms: 5 })).toThrow(/arms/);
  });

  test("docs/experiments.md states the numbers the code gives", () => {
    const page = docsPage();
    const rows = [...page.matchAll(/^\| (\d+) % vs (\d+) % \| (\d+) \| (\d+) \| (\d+) \|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const [, from, to, two, three, four] of rows) {
      const base = Number(from) / 100;
      const lift = (Number(to) - Number(from)) / 100;
      expect(Number(two), `${from} % vs ${to} %`).toBe(sampleSizePerArm(base, lift));
      expect(Number(three), `${from} % vs ${to} %, 3 arms`).toBe(sampleSizePerArm(base, lift, { arms: 3 }));
      expect(Number(four), `${from} % vs ${to} %, 4 arms`).toBe(sampleSizePerArm(base, lift, { arms: 4 }));
    }
    expect(page).toContain(`about ${sampleSizePerArm(0.11, 0.07)} proposals per arm`);
    // The parameters the page names are the code's.
    expect(page).toContain(`every arm has sent ${DEFAULT_MIN_PER_ARM} proposals`);
    expect(page).toContain(`fewer than ${DEFAULT_MIN_PER_ARM} in an arm`);
    expect(page).toContain(`±margin (default ${DEFAULT_MARGIN})`);
    expect(page).toContain(`τ = ${MIXTURE_SD}:`);
    expect(page).toContain(`${DEFAULT_DRAWS.toLocaleString("en-US")} Monte Carlo draws`);
    expect(page).toContain(`less than ${THOMPSON_FLOOR * 100} %`);
  });
});
