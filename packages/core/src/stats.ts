/**
 * The statistics of repeated trials, computed once here and used by the CLI,
 * the bench harness and the portal alike (browser-safe: no Node modules).
 *
 * The headline figure of a system is the MEDIAN of its trials, and its
 * interval is distribution-free: the pair of order statistics x(k), x(n+1-k)
 * that holds the true median with probability 1 - 2 P(B <= k - 1), B ~
 * Binomial(n, 1/2), whatever the distribution of the trials, as long as they
 * are independent. The narrowest such pair that reaches 95% is taken; below
 * 6 trials none does, and the interval is min..max with the coverage it has
 * (75% for 3 trials, 87.5% for 4, 93.75% for 5), kept beside it as
 * `coverage` and shown with it. Knees are not normal (a knee sits on the
 * ramp's grid of rates, and a bad trial is far off rather than a little),
 * so a t interval's 95% would be a promise the data do not keep; the order
 * statistics promise less and keep it. "Within x% of the median" is the
 * interval's farthest end from the median, relative to it (SeBS reports the
 * same).
 *
 * A ratio between two systems uses the rounds: in a campaign every round runs
 * one trial of each system close together in time, so drift of the machine
 * hits both. The ratio is the geometric mean of the per-round ratios, and its
 * interval is the t interval of their logarithms taken back (a paired
 * interval: Kalibera & Jones's ratio with a t-based interval, kept symmetric
 * in log space so that a/b and b/a agree): per-round log ratios are close to
 * normal where single knees are not, since the drift they share cancels.
 */
// jstat ships no types; a reference (not an import) brings the declaration to every package that compiles core's sources
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./jstat.d.ts" />
import jStat from "jstat";

/** The confidence level of every interval here. */
export const CONFIDENCE = 0.95;

export interface Interval {
  low: number;
  high: number;
  /**
   * how likely the interval holds what it is an interval of, as its method
   * gives it: for a median's order statistics the exact binomial coverage,
   * which is below CONFIDENCE with fewer than 6 trials; absent for the t
   * intervals (they are CONFIDENCE by construction)
   */
  coverage?: number;
}

export interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
  mean: number;
  /** sample standard deviation (n - 1); 0 for one value */
  stddev: number;
  /** coefficient of variation: stddev / mean (0 when the mean is 0) */
  cv: number;
  /** the distribution-free interval of the median (order statistics, `coverage` beside it); null with fewer than 2 values */
  interval: Interval | null;
  /** the interval's farthest end from the median, as a share of the median (0.08: within 8% of the median); null without an interval */
  withinShareOfMedian: number | null;
}

export function median(xs: readonly number[]): number {
  if (!xs.length) throw new Error("median of no values");
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function mean(xs: readonly number[]): number {
  if (!xs.length) throw new Error("mean of no values");
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Sample standard deviation (n - 1 in the denominator); 0 for one value. */
export function stddev(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** The two-sided t quantile for the confidence level with n values (n - 1 degrees of freedom). */
export function tQuantile(n: number, confidence = CONFIDENCE): number {
  if (n < 2) throw new Error("a t interval needs at least 2 values");
  return jStat.studentt.inv(1 - (1 - confidence) / 2, n - 1);
}

/** Student's t interval of the mean; null with fewer than 2 values. */
export function meanInterval(xs: readonly number[], confidence = CONFIDENCE): Interval | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  const half = (tQuantile(xs.length, confidence) * stddev(xs)) / Math.sqrt(xs.length);
  return { low: m - half, high: m + half };
}

/** P(B <= k) for B ~ Binomial(n, 1/2), exactly (n is a count of trials: small). */
function binomialHalfCdf(k: number, n: number): number {
  let term = 0.5 ** n; // P(B = 0)
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum;
}

/** The probability that x(k)..x(n+1-k) of n independent values holds their distribution's median. */
export const orderStatisticCoverage = (k: number, n: number): number => 1 - 2 * binomialHalfCdf(k - 1, n);

/**
 * The distribution-free interval of the median: the narrowest pair of order
 * statistics x(k), x(n+1-k) whose coverage reaches `confidence`, or min..max
 * when none does (fewer than 6 values at 95%), with its coverage either way;
 * null with fewer than 2 values.
 */
export function medianInterval(xs: readonly number[], confidence = CONFIDENCE): Interval | null {
  const n = xs.length;
  if (n < 2) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  let k = 1;
  while (k + 1 <= Math.floor(n / 2) && orderStatisticCoverage(k + 1, n) >= confidence) k++;
  return { low: sorted[k - 1]!, high: sorted[n - k]!, coverage: orderStatisticCoverage(k, n) };
}

export function summarize(xs: readonly number[]): Summary {
  const m = mean(xs);
  const sd = stddev(xs);
  const med = median(xs);
  const interval = medianInterval(xs);
  return {
    n: xs.length,
    median: med,
    min: Math.min(...xs),
    max: Math.max(...xs),
    mean: m,
    stddev: sd,
    cv: m === 0 ? 0 : sd / m,
    interval,
    withinShareOfMedian: interval && med !== 0 ? Math.max(Math.abs(interval.high - med), Math.abs(med - interval.low)) / Math.abs(med) : null,
  };
}

export interface Ratio {
  /** rounds where both values were there and positive */
  n: number;
  /** geometric mean of the per-round ratios a / b */
  ratio: number;
  /** 95% interval of the ratio (t interval of the log ratios); null with fewer than 2 rounds */
  interval: Interval | null;
}

/**
 * The ratio a / b of two systems measured in the same rounds (pairs[i] = [a, b]
 * of round i). Rounds where either value is missing or not positive are
 * left out (a ratio to nothing says nothing); null when none is left.
 */
export function pairedRatio(pairs: ReadonlyArray<readonly [number | null, number | null]>): Ratio | null {
  const logs = pairs.filter((p): p is [number, number] => p[0] !== null && p[1] !== null && p[0] > 0 && p[1] > 0).map(([a, b]) => Math.log(a / b));
  if (!logs.length) return null;
  const i = meanInterval(logs);
  return { n: logs.length, ratio: Math.exp(mean(logs)), interval: i && { low: Math.exp(i.low), high: Math.exp(i.high) } };
}

export const overlaps = (a: Interval, b: Interval): boolean => a.low <= b.high && b.low <= a.high;

/**
 * Tie groups: the systems ordered by median, best (highest) first; a system
 * joins the group above it when its interval overlaps the interval of any
 * system already in that group, otherwise it starts a new group. A system
 * without an interval (one trial) is tied with nothing and nothing with it:
 * it is a group of its own. Returns the names, group by group.
 */
export function tieGroups(systems: ReadonlyArray<{ name: string; median: number; interval: Interval | null }>): string[][] {
  const sorted = [...systems].sort((a, b) => b.median - a.median || a.name.localeCompare(b.name));
  const groups: Array<typeof sorted> = [];
  for (const s of sorted) {
    const last = groups.at(-1);
    if (last && s.interval && last.some((o) => o.interval && overlaps(o.interval, s.interval!))) last.push(s);
    else groups.push([s]);
  }
  return groups.map((g) => g.map((s) => s.name));
}
