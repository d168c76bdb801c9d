/** z for a two-sided 95 % interval: the 97.5th percentile of the standard normal. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval (95 %) for `successes` out of `n`: where the true rate plausibly lies. Unlike
 * p ± z·√(p(1−p)/n) it stays inside [0, 1] and is not zero-width at 0/n or n/n, which matters for the small
 * counts a freelancer's funnel has (1 reply in 12). n = 0 says nothing: [0, 1].
 */
export function wilson(successes: number, n: number): [number, number] {
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(successes) || successes < 0 || successes > n) {
    throw new RangeError(`wilson: need whole numbers 0 ≤ successes ≤ n, got ${successes}/${n}`);
  }
  if (n === 0) return [0, 1];
  const p = successes / n;
  const z2 = Z95 * Z95;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // Clamped because floating point can put 0/n a hair below 0 and n/n a hair above 1.
  return [Math.max(0, center - half), Math.min(1, center + half)];
}
