/**
 * Latency distribution of an encoded HDR histogram (result document, SPEC 6):
 * boxplot numbers and an eCDF sampled at about 100 percentiles. Everything
 * comes from the histogram; nothing is interpolated or made up.
 */
import { LatencyHistogram } from "@sfbench/engine";
import type { EcdfPoint, LatencyData, LatencyDistribution } from "../types.ts";

/** Percentiles (0..100) at which the eCDF is sampled: every percent, then the tail in finer steps. */
export const ECDF_PERCENTILES: readonly number[] = [...Array.from({ length: 100 }, (_, i) => i), 99.5, 99.9, 99.95, 99.99, 100];

/** the smallest latency an HDR histogram of the result holds (1 us), so that a log axis never meets 0 */
const MIN_MS = 0.001;

const cache = new Map<string, LatencyDistribution>();
const CACHE_LIMIT = 512;

/**
 * Decodes an encoded histogram and computes its distribution; null when it is
 * empty. Throws when the text is not an encoded histogram. Results are cached
 * by the encoded text (documents are never overwritten, and the key is the
 * content anyway); callers get their own copy.
 */
export function latencyDistribution(encoded: string): LatencyDistribution | null {
  let d = cache.get(encoded);
  if (!d) {
    const h = LatencyHistogram.decode(encoded);
    if (h.count === 0) return null;
    d = compute(h);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(encoded, d);
  }
  return { ...d, ecdf: d.ecdf.map((p) => ({ ...p })) };
}

function compute(h: LatencyHistogram): LatencyDistribution {
  const at = (p: number) => Math.max(MIN_MS, h.percentileMs(p)!);
  const stats = h.stats();
  return {
    count: stats.count,
    mean: stats.mean,
    min: at(0),
    p1: at(1),
    p25: at(25),
    p50: at(50),
    p75: at(75),
    p99: at(99),
    p999: at(99.9),
    max: at(100),
    ecdf: ecdfPoints(ECDF_PERCENTILES.map((p) => ({ ms: at(p), p: p / 100 }))),
  };
}

/**
 * Makes sampled percentile points an eCDF polyline: the first point is
 * (min, 0); later points with the same latency as the one before collapse
 * into it with the higher share. Monotone in ms and p; the last p is 1.
 */
export function ecdfPoints(samples: readonly EcdfPoint[]): EcdfPoint[] {
  const out: EcdfPoint[] = [];
  for (const s of samples) {
    const last = out[out.length - 1];
    if (last && out.length > 1 && last.ms === s.ms) last.p = Math.max(last.p, s.p);
    else out.push({ ms: s.ms, p: s.p });
  }
  return out;
}

/** Boxes and eCDFs of several systems, with a shared [min, max] for a log axis. */
export function latencyData(entries: ReadonlyArray<{ key: string; distribution: LatencyDistribution }>): LatencyData {
  const boxes = entries.map(({ key, distribution }) => {
    const { ecdf: _ecdf, ...box } = distribution;
    return { key, ...box };
  });
  const ecdf: Record<string, EcdfPoint[]> = {};
  for (const e of entries) ecdf[e.key] = e.distribution.ecdf;
  const domain: [number, number] | null = boxes.length ? [Math.min(...boxes.map((b) => b.min)), Math.max(...boxes.map((b) => b.max))] : null;
  return { boxes, ecdf, domain };
}
