/**
 * The statistics of an experiment: per-arm intervals, the difference to the control, a stopping rule that stays
 * valid when the freelancer looks every day, Thompson-sampling allocation and the sample size a difference needs.
 * Pure functions of counts (no database, no clock, no Math.random): the same counts give the same answer.
 *
 * The decision comes from an always-valid test — a mixture sequential probability ratio test (mSPRT, Johari,
 * Pekelis & Walsh, "Always valid inference", 2017/2022) on the difference of two proportions with a normal mixing
 * distribution N(0, τ²) — whose error rate holds however often it is checked. docs/experiments.md ("How the
 * decision is made") says the same in plain words; the parameters are the exported constants below.
 */
import { wilson } from "../../lib/wilson";

export { wilson };

/** Successes (replies, interviews, hires…) out of n proposals sent in one arm. */
export interface Counts {
  successes: number;
  n: number;
}

export interface ArmCounts extends Counts {
  id: string;
}

export type DecisionKind = "running" | `winner:${string}` | "no_difference" | "stopped";

export interface Lift {
  /** Arm rate minus control rate (a fraction: 0.07 is 7 points); null for the control itself or an empty arm. */
  absolute: number | null;
  /** Newcombe's 95 % interval for that difference at the current counts (valid for one look, see below). */
  ci95: [number, number] | null;
  /**
   * The always-valid 95 % confidence sequence for the same difference (Bonferroni-corrected like the test):
   * wider than ci95, but it holds at every look, so it is the one to quote next to a decision.
   */
  alwaysValid95: [number, number] | null;
  /** The always-valid p-value of this arm against the control (before Bonferroni); null for the control. */
  pValue: number | null;
}

export interface Decision {
  decision: DecisionKind;
  /** Posterior probability (Beta(1,1) prior, Monte Carlo) that each arm has the highest rate: for display only. */
  probabilityBest: Record<string, number>;
  lift: Record<string, Lift>;
  /** One sentence saying why, in plain words. */
  reason: string;
}

export interface DecideOptions {
  controlId: string;
  /** The error rate of the whole experiment (false winners, Bonferroni across the arms vs the control). Default 0.05. */
  alpha?: number;
  /** No decision before every arm has this many sent. Default DEFAULT_MIN_PER_ARM. */
  minPerArm?: number;
  /** Stopped by its owner: the decision is "stopped" whatever the counts say. */
  stopped?: boolean;
  /** "No difference" once every confidence sequence lies within ±margin (a fraction). Default DEFAULT_MARGIN. */
  margin?: number;
  /** "No difference" once every arm reached this many sent without a winner. Default: no such cap. */
  maxPerArm?: number;
  /** Monte Carlo draws for probabilityBest. Default DEFAULT_DRAWS. */
  draws?: number;
}

export interface SampleSizeOptions {
  /** Default 0.05. */
  alpha?: number;
  /** Default 0.9. */
  power?: number;
  /** Arms including the control (2–4): Bonferroni divides alpha by arms − 1. Default 2. */
  arms?: number;
}

/**
 * τ, the standard deviation of the normal mixing distribution over the true difference: the size of difference
 * the test is tuned to find soonest. 0.05 (5 points) is where freelancers' letter and bid differences sit.
 */
export const MIXTURE_SD = 0.05;
export const DEFAULT_ALPHA = 0.05;
export const DEFAULT_MIN_PER_ARM = 20;
export const DEFAULT_MARGIN = 0.03;
export const DEFAULT_DRAWS = 4000;
/** The smallest share of proposals Thompson allocation leaves any arm, so every arm keeps being measured. */
export const THOMPSON_FLOOR = 0.1;

/** Throws for counts no caller should pass (the API validates what clients send; this guards the code). */
function checkCounts(c: Counts, what: string): void {
  if (!Number.isInteger(c.n) || c.n < 0 || !Number.isInteger(c.successes) || c.successes < 0 || c.successes > c.n) {
    throw new RangeError(`${what}: need whole numbers 0 ≤ successes ≤ n, got ${c.successes}/${c.n}`);
  }
}

/**
 * Newcombe's hybrid score interval (1998, method 10) for the difference b − a of two independent proportions,
 * 95 %: it combines the two Wilson intervals, so like them it stays sensible at 0/n and small n, where the
 * textbook p̂ ± z·SE interval is too narrow. Null when either arm has sent nothing.
 * Example (Newcombe's): 56/70 vs 48/80 → difference 0.2, interval [0.0524, 0.3339].
 * It is valid for one look at a fixed sample; under daily looks use the decision's `alwaysValid95`.
 */
export function differenceCi95(a: Counts, b: Counts): [number, number] | null {
  checkCounts(a, "differenceCi95 a");
  checkCounts(b, "differenceCi95 b");
  if (a.n === 0 || b.n === 0) return null;
  const pa = a.successes / a.n;
  const pb = b.successes / b.n;
  const [la, ua] = wilson(a.successes, a.n);
  const [lb, ub] = wilson(b.successes, b.n);
  const d = pb - pa;
  const below = Math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2);
  const above = Math.sqrt((ub - pb) ** 2 + (pa - la) ** 2);
  return [Math.max(-1, d - below), Math.min(1, d + above)];
}

/**
 * The variance of p̂b − p̂a with each rate shrunk as (s + 1)/(n + 2): the plug-in variance of 0/20 would be 0,
 * which would make the very first reply look infinitely significant; the shrunk one keeps early looks honest.
 */
function diffVariance(a: Counts, b: Counts): number {
  const ta = (a.successes + 1) / (a.n + 2);
  const tb = (b.successes + 1) / (b.n + 2);
  return (ta * (1 - ta)) / a.n + (tb * (1 - tb)) / b.n;
}

/**
 * The mSPRT against "no difference": the mixture likelihood ratio Λ = √(σ²/(σ²+τ²))·exp(θ̂²τ²/(2σ²(σ²+τ²)))
 * (Johari et al., eq. for normal data with a N(0, τ²) mixture; σ² the variance of the difference θ̂). Λ is a
 * nonnegative martingale under the null, so P(Λ ever ≥ 1/α) ≤ α (Ville's inequality): the p-value min(1, 1/Λ)
 * may be read at every look. The confidence sequence is every θ₀ whose own Λ stays below 1/α.
 */
function alwaysValid(a: Counts, b: Counts, alpha: number): { diff: number; pValue: number; sequence: [number, number] } {
  const diff = b.successes / b.n - a.successes / a.n;
  const v = diffVariance(a, b);
  const t2 = MIXTURE_SD * MIXTURE_SD;
  const logLambda = 0.5 * Math.log(v / (v + t2)) + (diff * diff * t2) / (2 * v * (v + t2));
  const pValue = Math.min(1, Math.exp(-logLambda));
  const half = Math.sqrt(((2 * v * (v + t2)) / t2) * (Math.log(1 / alpha) + 0.5 * Math.log((v + t2) / v)));
  return { diff, pValue, sequence: [Math.max(-1, diff - half), Math.min(1, diff + half)] };
}

/** A small, fast, seedable PRNG (mulberry32): uniform in [0, 1), the same stream for the same seed. */
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

/** FNV-1a of a string: turns a seed given as text (or the counts themselves) into a PRNG seed. */
function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function normal(rand: () => number): number {
  // Box–Muller; 1 − u keeps the logarithm's argument in (0, 1].
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** Gamma(shape ≥ 1, 1) by Marsaglia & Tsang (2000); Beta shapes here are 1 + counts, never below 1. */
function gamma(shape: number, rand: () => number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(rand);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    if (Math.log(1 - rand()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** The share of Monte Carlo draws from each arm's Beta(1 + s, 1 + n − s) posterior in which it has the highest rate. */
function probabilityBestOf(arms: readonly ArmCounts[], draws: number, rand: () => number): Record<string, number> {
  const wins = new Array<number>(arms.length).fill(0);
  for (let d = 0; d < draws; d++) {
    let best = 0;
    let bestValue = -1;
    for (let i = 0; i < arms.length; i++) {
      const arm = arms[i]!;
      const x = gamma(1 + arm.successes, rand);
      const value = x / (x + gamma(1 + arm.n - arm.successes, rand));
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    wins[best]! += 1;
  }
  return Object.fromEntries(arms.map((arm, i) => [arm.id, wins[i]! / draws]));
}

function checkArms(arms: readonly ArmCounts[], what: string): void {
  if (arms.length < 2 || arms.length > 4) throw new RangeError(`${what}: need 2–4 arms, got ${arms.length}`);
  const ids = new Set<string>();
  for (const arm of arms) {
    checkCounts(arm, `${what} arm ${arm.id}`);
    if (ids.has(arm.id)) throw new RangeError(`${what}: arm id ${arm.id} appears twice`);
    ids.add(arm.id);
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1).replace(/\.0$/, "")} %`;
const points = (x: number) => `${(x * 100).toFixed(1).replace(/\.0$/, "")}`;

/**
 * What the experiment says now. Each arm is compared with the control by the always-valid mSPRT above at level
 * alpha / (arms − 1) (Bonferroni, so the whole experiment's chance of any false winner stays ≤ alpha):
 * - `winner:<arm>` when an arm's always-valid p-value is below that level and it is better than the control (the
 *   best such arm if several are); `winner:<control>` when every other arm is significantly worse;
 * - `no_difference` when every arm's confidence sequence lies within ±margin of the control (equivalence, with
 *   the same guarantee), or once every arm has `maxPerArm` sent when that cap is given;
 * - `running` otherwise, and always while an arm has fewer than `minPerArm` (the normal approximation needs a
 *   few successes); `stopped` when its owner stopped it (the reason still says what the counts show).
 * The answer is a function of the current counts: since the guarantee covers "ever shows a winner", a caller may
 * freeze the first non-running decision. probabilityBest (Beta(1,1) posteriors, seeded by the counts, so the
 * same counts show the same figure) is for display and never decides.
 */
export function decide(arms: readonly ArmCounts[], opts: DecideOptions): Decision {
  checkArms(arms, "decide");
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  const minPerArm = opts.minPerArm ?? DEFAULT_MIN_PER_ARM;
  const margin = opts.margin ?? DEFAULT_MARGIN;
  const draws = opts.draws ?? DEFAULT_DRAWS;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`decide: alpha must be in (0, 1), got ${alpha}`);
  if (!Number.isInteger(minPerArm) || minPerArm < 1) throw new RangeError(`decide: minPerArm must be a whole number ≥ 1, got ${minPerArm}`);
  if (!(margin > 0 && margin < 1)) throw new RangeError(`decide: margin must be in (0, 1), got ${margin}`);
  if (!Number.isInteger(draws) || draws < 1) throw new RangeError(`decide: draws must be a whole number ≥ 1, got ${draws}`);
  if (opts.maxPerArm !== undefined && (!Number.isInteger(opts.maxPerArm) || opts.maxPerArm < minPerArm))
    throw new RangeError(`decide: maxPerArm must be a whole number ≥ minPerArm, got ${opts.maxPerArm}`);
  const control = arms.find((a) => a.id === opts.controlId);
  if (!control) throw new RangeError(`decide: controlId ${opts.controlId} is not one of the arms`);

  const level = alpha / (arms.length - 1);
  const treatments = arms.filter((a) => a !== control);
  const seed = hashSeed(arms.map((a) => `${a.id}:${a.successes}/${a.n}`).join("|"));
  const probabilityBest = probabilityBestOf(arms, draws, mulberry32(seed));

  const lift: Record<string, Lift> = { [control.id]: { absolute: null, ci95: null, alwaysValid95: null, pValue: null } };
  const tests = new Map<string, ReturnType<typeof alwaysValid>>();
  for (const arm of treatments) {
    if (arm.n === 0 || control.n === 0) {
      lift[arm.id] = { absolute: null, ci95: null, alwaysValid95: null, pValue: null };
      continue;
    }
    const t = alwaysValid(control, arm, level);
    tests.set(arm.id, t);
    lift[arm.id] = { absolute: t.diff, ci95: differenceCi95(control, arm), alwaysValid95: t.sequence, pValue: t.pValue };
  }

  const verdict = ((): { decision: DecisionKind; reason: string } => {
    const short = arms.filter((a) => a.n < minPerArm);
    if (short.length > 0) {
      const need = short.map((a) => `${minPerArm - a.n} more in ${a.id}`).join(", ");
      return { decision: "running", reason: `Too few proposals to judge yet: ${need} (at least ${minPerArm} per arm).` };
    }
    const rate = (a: ArmCounts) => a.successes / a.n;
    const better = treatments.filter((a) => tests.get(a.id)!.pValue < level && tests.get(a.id)!.diff > 0);
    if (better.length > 0) {
      const best = better.reduce((x, y) => (rate(y) > rate(x) ? y : x));
      const [lo, hi] = tests.get(best.id)!.sequence;
      return {
        decision: `winner:${best.id}`,
        reason: `${best.id} does better: ${pct(rate(best))} vs ${pct(rate(control))} for ${control.id}, difference ${points(rate(best) - rate(control))} points (${points(lo)} to ${points(hi)}), ${pct(1 - alpha)} sure under daily looks.`,
      };
    }
    const worse = treatments.filter((a) => tests.get(a.id)!.pValue < level && tests.get(a.id)!.diff < 0);
    if (worse.length === treatments.length) {
      const others = treatments.map((a) => `${a.id} ${pct(rate(a))}`).join(", ");
      return {
        decision: `winner:${control.id}`,
        reason: `${control.id} (the control) does better than every other arm: ${pct(rate(control))} vs ${others}, ${pct(1 - alpha)} sure under daily looks.`,
      };
    }
    const within = treatments.every((a) => {
      const [lo, hi] = tests.get(a.id)!.sequence;
      return lo >= -margin && hi <= margin;
    });
    if (within) {
      return {
        decision: "no_difference",
        reason: `No difference worth having: every arm is within ${points(margin)} points of ${control.id}, ${pct(1 - alpha)} sure under daily looks.`,
      };
    }
    if (opts.maxPerArm !== undefined && arms.every((a) => a.n >= opts.maxPerArm!)) {
      return {
        decision: "no_difference",
        reason: `Every arm reached ${opts.maxPerArm} proposals without a clear winner: any difference left is too small for this test to see at that size.`,
      };
    }
    return { decision: "running", reason: "No arm is clearly better or worse than the control yet: keep sending." };
  })();

  if (opts.stopped) return { decision: "stopped", probabilityBest, lift, reason: `Stopped. At the stop: ${verdict.reason}` };
  return { decision: verdict.decision, probabilityBest, lift, reason: verdict.reason };
}

/**
 * Thompson-sampling allocation: each arm's share of new proposals is its posterior probability of being best
 * (Beta(1,1) priors, `draws` Monte Carlo draws from a PRNG seeded by `seed`, so the same seed and counts give the
 * same weights), squeezed into [floor, 1 − (arms − 1)·floor] as floor + (1 − arms·floor)·P(best). The floor keeps
 * every arm — the control above all — being measured, so the test above can still conclude.
 */
export function thompsonWeights(arms: readonly ArmCounts[], seed: number | string, opts: { floor?: number; draws?: number } = {}): Record<string, number> {
  checkArms(arms, "thompsonWeights");
  const floor = opts.floor ?? THOMPSON_FLOOR;
  const draws = opts.draws ?? DEFAULT_DRAWS;
  if (!(floor >= 0 && floor * arms.length <= 1)) throw new RangeError(`thompsonWeights: floor must be in [0, 1/arms], got ${floor}`);
  if (!Number.isInteger(draws) || draws < 1) throw new RangeError(`thompsonWeights: draws must be a whole number ≥ 1, got ${draws}`);
  const rand = mulberry32(typeof seed === "number" ? hashSeed(`n:${seed}`) : hashSeed(`s:${seed}`));
  const best = probabilityBestOf(arms, draws, rand);
  return Object.fromEntries(arms.map((a) => [a.id, floor + (1 - arms.length * floor) * best[a.id]!]));
}

/**
 * The arm a uniform number u in [0, 1] falls on when [0, 1) is cut into consecutive pieces, one per arm in the
 * order given, as long as its share of the weights: with a seeded u the assignment is reproducible.
 */
export function assignArm(arms: readonly { id: string }[], weights: Record<string, number>, u: number): string {
  if (arms.length === 0) throw new RangeError("assignArm: no arms");
  if (!(u >= 0 && u <= 1)) throw new RangeError(`assignArm: u must be in [0, 1], got ${u}`);
  let total = 0;
  for (const arm of arms) {
    const w = weights[arm.id];
    if (w === undefined || !Number.isFinite(w) || w < 0) throw new RangeError(`assignArm: weight of ${arm.id} must be a number ≥ 0, got ${w}`);
    total += w;
  }
  if (!(total > 0)) throw new RangeError("assignArm: the weights add up to 0");
  let cumulative = 0;
  let last = arms[0]!.id;
  for (const arm of arms) {
    const w = weights[arm.id]!;
    if (w === 0) continue;
    cumulative += w / total;
    last = arm.id;
    if (u < cumulative) return arm.id;
  }
  // u = 1, or rounding left the cumulative sum a hair under 1: the last arm that has any weight.
  return last;
}

/** The standard normal distribution function (Abramowitz & Stegun 7.1.26 via erf; error below 1.5e-7). */
function phi(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** The chance the always-valid test has crossed at n per arm, looking only at that one look (so a lower bound). */
function powerAt(p0: number, p1: number, n: number, level: number): number {
  const v = (p0 * (1 - p0) + p1 * (1 - p1)) / n;
  const t2 = MIXTURE_SD * MIXTURE_SD;
  // The test says "different" when |θ̂|/σ exceeds c, from Λ ≥ 1/level solved for θ̂.
  const c = Math.sqrt((2 * (v + t2) * (Math.log(1 / level) + 0.5 * Math.log((v + t2) / v))) / t2);
  const z = Math.abs(p1 - p0) / Math.sqrt(v);
  return phi(z - c) + phi(-z - c);
}

/**
 * How many proposals per arm the always-valid test of `decide` needs to find a true difference of `lift` (a
 * fraction: 0.07 for 11 % → 18 %) from a base rate `baseRate`, with probability `power`: the smallest n at which
 * the test's boundary is crossed at that look with that probability. Looks before n only add to the chance, so
 * with daily looks the real power by n is at least `power`. It is larger than the one-look textbook size (about
 * 530 for 11 % vs 18 %), the price of being allowed to look every day — and the test often stops well before.
 */
export function sampleSizePerArm(baseRate: number, lift: number, opts: SampleSizeOptions = {}): number {
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  const power = opts.power ?? 0.9;
  const arms = opts.arms ?? 2;
  const p1 = baseRate + lift;
  if (!(baseRate > 0 && baseRate < 1)) throw new RangeError(`sampleSizePerArm: baseRate must be in (0, 1), got ${baseRate}`);
  if (!(lift !== 0 && p1 > 0 && p1 < 1)) throw new RangeError(`sampleSizePerArm: lift must be non-zero and keep the rate in (0, 1), got ${lift}`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`sampleSizePerArm: alpha must be in (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`sampleSizePerArm: power must be in (0, 1), got ${power}`);
  if (!Number.isInteger(arms) || arms < 2 || arms > 4) throw new RangeError(`sampleSizePerArm: arms must be 2–4, got ${arms}`);
  const level = alpha / (arms - 1);
  // Power rises with n (the distance grows like √n, the boundary like √log n): double, then halve the gap.
  let hi = 2;
  while (powerAt(baseRate, p1, hi, level) < power) hi *= 2;
  let lo = Math.floor(hi / 2);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (powerAt(baseRate, p1, mid, level) >= power) hi = mid;
    else lo = mid;
  }
  return hi;
}
