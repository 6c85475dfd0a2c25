/**
 * The max-throughput metrics of SPEC 5, computed from an aggregate:
 * (a) the maximum of the 10-second moving average of successful requests per
 * second, (b) the sustainable rate; plus the check that the load generator,
 * not the target, was the bottleneck (then the run measures nothing).
 */
import type { SeriesPoint } from "@sfbench/core";

export interface MovingAverageMax {
  /** successful requests per second */
  value: number;
  /** t of the last second of the best window; null for an empty series */
  atS: number | null;
  windowS: number;
  /** the series was shorter than the window: the value is the mean of what exists */
  partial: boolean;
}

/**
 * Max over the series of the trailing windowS-second mean of successful/s.
 * Missing seconds count as zero.
 */
export function maxMovingAverage(perSecond: readonly Pick<SeriesPoint, "t" | "successful">[], windowS = 10): MovingAverageMax {
  if (!(windowS >= 1 && Number.isInteger(windowS))) throw new Error(`windowS must be a positive integer, got ${windowS}`);
  if (perSecond.length === 0) return { value: 0, atS: null, windowS, partial: true };
  const first = Math.min(...perSecond.map((p) => p.t));
  const last = Math.max(...perSecond.map((p) => p.t));
  const values = new Array<number>(last - first + 1).fill(0);
  for (const p of perSecond) values[p.t - first]! += p.successful;
  if (values.length < windowS) {
    return { value: values.reduce((a, b) => a + b, 0) / values.length, atS: last, windowS, partial: true };
  }
  let sum = 0;
  let best = -Infinity;
  let bestAt = first;
  values.forEach((v, i) => {
    sum += v;
    if (i >= windowS) sum -= values[i - windowS]!;
    if (i >= windowS - 1 && sum > best) [best, bestAt] = [sum, first + i];
  });
  return { value: best / windowS, atS: bestAt, windowS, partial: false };
}

// the criteria are core's, so that the engine, the import and the board judge alike
export {
  generatorSaturated,
  GENERATOR_LIMITS,
  judgeStep,
  SUSTAINABLE,
  sustainableRate,
  type GeneratorLimits,
  type GeneratorLoad,
  type StepLike,
  type StepVerdict,
  type Sustainable,
  type SustainableCriteria,
} from "@sfbench/core";
