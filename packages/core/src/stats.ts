/**
 * The statistics of repeated trials, computed once here and used by the CLI,
 * the bench harness and the portal alike (browser-safe: no Node modules).
 *
 * The headline figure of a system is the MEDIAN of its trials. Its 95%
 * interval is Student's t interval of the MEAN: with the 3..5 trials a
 * campaign affords, the non-parametric interval of the median (between two
 * order statistics) cannot reach 95% at all below 6 trials (with n = 5 the
 * widest one, min..max, covers 1 - 2 * 0.5^5 = 94%), while the t interval is
 * exact for normal noise and honest about small n through its wide quantile
 * (4.30 for n = 3). "Within x% of the median" is the interval's farthest end
 * from the median, relative to it (SeBS reports the same).
 *
 * A ratio between two systems uses the rounds: in a campaign every round runs
 * one trial of each system close together in time, so drift of the machine
 * hits both. The ratio is the geometric mean of the per-round ratios, and its
 * interval is the t interval of their logarithms taken back (a paired
 * interval: Kalibera & Jones's ratio with a t-based interval, kept symmetric
 * in log space so that a/b and b/a agree).
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
  /** 95% Student t interval of the mean; null with fewer than 2 values */
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

export function summarize(xs: readonly number[]): Summary {
  const m = mean(xs);
  const sd = stddev(xs);
  const med = median(xs);
  const interval = meanInterval(xs);
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
