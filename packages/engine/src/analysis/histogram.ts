/**
 * Latency histograms: a thin wrapper over hdr-histogram-js.
 *
 * Values are recorded in microseconds between 1 us and 60 s (k6's default
 * request timeout) with 3 significant digits; values outside are clamped.
 * Stats come out in milliseconds. Histograms encode to the standard HDR
 * compressed base64 form so that a result document can store them and a later
 * analysis can merge them (e.g. over runs).
 */
import * as hdr from "hdr-histogram-js";
import type { LatencyStats } from "@sfbench/core";

export const LOWEST_US = 1;
export const HIGHEST_US = 60_000_000;
export const SIGNIFICANT_DIGITS = 3;

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const usToMs = (us: number) => round3(us / 1000);

export const EMPTY_STATS: LatencyStats = Object.freeze({ count: 0, mean: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, min: 0 });

export class LatencyHistogram {
  private constructor(private readonly h: hdr.Histogram) {}

  /** packed: memory grows with the number of distinct values (for many small histograms, e.g. one per second) */
  static create(options: { packed?: boolean } = {}): LatencyHistogram {
    return new LatencyHistogram(
      hdr.build({
        lowestDiscernibleValue: LOWEST_US,
        highestTrackableValue: HIGHEST_US,
        numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
        bitBucketSize: options.packed ? "packed" : 32,
        autoResize: false,
      }),
    );
  }

  /** Reads a histogram written by encode(); throws an Error that says what was wrong. */
  static decode(encoded: string): LatencyHistogram {
    let h: hdr.Histogram;
    try {
      h = hdr.decodeFromCompressedBase64(encoded, 32, false);
    } catch (e) {
      throw new Error(`not an encoded HDR histogram: ${(e as Error).message}`);
    }
    // decoded histograms keep the range they were written with; copy into ours so merges always fit
    return LatencyHistogram.create().merge(new LatencyHistogram(h));
  }

  get count(): number {
    return this.h.totalCount;
  }

  recordMs(ms: number, count = 1): void {
    const us = Math.min(HIGHEST_US, Math.max(LOWEST_US, Math.round(ms * 1000)));
    if (count === 1) this.h.recordValue(us);
    else this.h.recordValueWithCount(us, count);
  }

  /** Adds other into this histogram; returns this. */
  merge(other: LatencyHistogram): this {
    if (other.count > 0) this.h.add(other.h);
    return this;
  }

  /** A value at a percentile (0..100), in ms; null when empty. */
  percentileMs(p: number): number | null {
    return this.count === 0 ? null : usToMs(Math.min(HIGHEST_US, this.h.getValueAtPercentile(p)));
  }

  stats(): LatencyStats {
    if (this.count === 0) return { ...EMPTY_STATS };
    const at = (p: number) => usToMs(Math.min(HIGHEST_US, this.h.getValueAtPercentile(p)));
    return {
      count: this.count,
      mean: usToMs(this.h.mean),
      p50: at(50),
      p95: at(95),
      p99: at(99),
      p999: at(99.9),
      // from the buckets rather than the exact extremes, so that a decoded or merged copy gives the same numbers
      max: at(100),
      min: at(0),
    };
  }

  encode(): string {
    return hdr.encodeIntoCompressedBase64(this.h);
  }
}

/** A new histogram holding all of the given ones. */
export function mergeHistograms(histograms: Iterable<LatencyHistogram>): LatencyHistogram {
  const sum = LatencyHistogram.create();
  for (const h of histograms) sum.merge(h);
  return sum;
}
