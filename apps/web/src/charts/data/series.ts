/**
 * Per-second series: successful requests per second and their trailing 10 s
 * moving average, with the same conventions as the analysis that wrote the
 * result (packages/workloads maxMovingAverage): seconds missing from the
 * series count as zero, and the average at t covers t-9..t.
 */
import type { SeriesPoint } from "@sfbench/core";
import type { Row, ThroughputData } from "../types.ts";

export const MOVING_AVERAGE_WINDOW_S = 10;
/** at most this many points per line: longer series are averaged into buckets of several seconds */
export const MAX_POINTS = 720;

/** successful/s for every second from the first to the last t of the series, gaps filled with 0 */
export function denseSuccessful(series: readonly Pick<SeriesPoint, "t" | "successful">[]): { first: number; values: number[] } {
  if (series.length === 0) return { first: 0, values: [] };
  let first = Infinity;
  let last = -Infinity;
  for (const p of series) {
    first = Math.min(first, p.t);
    last = Math.max(last, p.t);
  }
  const values = new Array<number>(last - first + 1).fill(0);
  for (const p of series) values[p.t - first]! += p.successful;
  return { first, values };
}

/**
 * Trailing moving average over windowS values. An index with fewer than
 * windowS values before it gets null, except when the whole series is shorter
 * than the window: then every index gets the mean of what exists so far
 * (partial: true), so that a short run still shows a line.
 */
export function movingAverage(values: readonly number[], windowS = MOVING_AVERAGE_WINDOW_S): { values: Array<number | null>; partial: boolean } {
  if (!(windowS >= 1 && Number.isInteger(windowS))) throw new Error(`windowS must be a positive integer, got ${windowS}`);
  const partial = values.length > 0 && values.length < windowS;
  const out: Array<number | null> = [];
  let sum = 0;
  values.forEach((v, i) => {
    sum += v;
    if (i >= windowS) sum -= values[i - windowS]!;
    if (i >= windowS - 1) out.push(round(sum / windowS));
    else out.push(partial ? round(sum / (i + 1)) : null);
  });
  return { values: out, partial };
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** One row per second over the union of the systems' series: {t, <key>, <key>_ma}; a system without that second gets null. */
export function throughputRows(bySystem: ReadonlyArray<{ key: string; series: readonly SeriesPoint[]; maxMovingAvg10s?: number }>): ThroughputData {
  const rowsByT = new Map<number, Row>();
  const partial: string[] = [];
  const maxMovingAvg10s: Record<string, number> = {};
  for (const s of bySystem) {
    const { first, values } = denseSuccessful(s.series);
    const ma = movingAverage(values);
    if (ma.partial) partial.push(s.key);
    if (s.maxMovingAvg10s !== undefined) maxMovingAvg10s[s.key] = round(s.maxMovingAvg10s);
    values.forEach((v, i) => {
      const t = first + i;
      let row = rowsByT.get(t);
      if (!row) {
        row = { t };
        rowsByT.set(t, row);
      }
      row[s.key] = v;
      row[`${s.key}_ma`] = ma.values[i]!;
    });
  }
  const keys = bySystem.map((s) => s.key);
  const dense = [...rowsByT.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, row]) => {
      for (const k of keys) {
        if (!(k in row)) row[k] = null;
        if (!(`${k}_ma` in row)) row[`${k}_ma`] = null;
      }
      return row;
    });
  const how: Record<string, Aggregate> = {};
  for (const k of keys) how[`${k}_ma`] = "last";
  const { rows, bucketS } = downsample(dense, how);
  return { rows, windowS: MOVING_AVERAGE_WINDOW_S, bucketS, partial, maxMovingAvg10s };
}

export type Aggregate = "mean" | "last" | "max";

/**
 * Rows ordered by t, at most maxPoints of them: consecutive rows are merged
 * into buckets of bucketS seconds, each at the t of its last second. A value
 * is aggregated as `how` says (default: mean of the non-null values; null
 * when all are null); moving averages take the last value, which is the
 * trailing average at that second.
 */
export function downsample(rows: readonly Row[], how: Record<string, Aggregate> = {}, maxPoints = MAX_POINTS): { rows: Row[]; bucketS: number } {
  if (rows.length <= maxPoints) return { rows: [...rows], bucketS: 1 };
  const bucketS = Math.ceil(rows.length / maxPoints);
  const out: Row[] = [];
  for (let i = 0; i < rows.length; i += bucketS) {
    const bucket = rows.slice(i, i + bucketS);
    const last = bucket[bucket.length - 1]!;
    const row: Row = { t: last.t ?? null };
    for (const key of Object.keys(last)) {
      if (key === "t") continue;
      const mode = how[key] ?? "mean";
      if (mode === "last") {
        row[key] = last[key] ?? null;
        continue;
      }
      const values = bucket.map((r) => r[key]).filter((v): v is number => typeof v === "number");
      if (values.length === 0) row[key] = null;
      else if (mode === "max") row[key] = Math.max(...values);
      else row[key] = round(values.reduce((a, b) => a + b, 0) / values.length);
    }
    out.push(row);
  }
  return { rows: out, bucketS };
}
