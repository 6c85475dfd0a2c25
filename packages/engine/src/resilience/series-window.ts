/**
 * Small helpers over a per-second series (SeriesPoint: `t` seconds from the
 * run's start, second t covers [t, t+1)) shared by the fault and scale-up
 * analyses.
 */
import type { SeriesPoint } from "@sfbench/core";

export const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function checkSeries(series: readonly SeriesPoint[], field: string): void {
  for (let i = 1; i < series.length; i++) {
    if (series[i]!.t <= series[i - 1]!.t)
      throw new Error(`${field}: t must increase from second to second (t ${series[i]!.t} follows t ${series[i - 1]!.t} at position ${i})`);
  }
}

/** The last `n` whole seconds that end at or before `atS`; an error naming `field` when there is none. */
export function secondsBefore(series: readonly SeriesPoint[], atS: number, n: number, field: string): SeriesPoint[] {
  const before = series.filter((p) => p.t + 1 <= atS);
  if (!before.length)
    throw new Error(`${field}: ${atS} s leaves no whole second of the series before it to compare with (the series starts at t ${series[0]?.t ?? "none"})`);
  return before.slice(-n);
}

/**
 * The first second at or after `fromS` (the second containing it included)
 * from which `sustainS` consecutive seconds all satisfy `ok`; undefined when
 * the series never does.
 */
export function firstSustained(series: readonly SeriesPoint[], fromS: number, sustainS: number, ok: (p: SeriesPoint) => boolean): SeriesPoint | undefined {
  const start = series.findIndex((p) => p.t >= Math.floor(fromS));
  if (start < 0) return undefined;
  for (let i = start; i + sustainS <= series.length; i++) {
    let good = true;
    for (let j = i; j < i + sustainS && good; j++) good = ok(series[j]!) && (j === i || series[j]!.t === series[j - 1]!.t + 1);
    if (good) return series[i];
  }
  return undefined;
}

/** Seconds from the one containing `fromS` up to (not including) second `toT`, or to the end. */
export function secondsBetween(series: readonly SeriesPoint[], fromS: number, toT?: number): SeriesPoint[] {
  return series.filter((p) => p.t >= Math.floor(fromS) && (toT === undefined || p.t < toT));
}

export const maxOf = (xs: (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? Math.max(...v) : null;
};
