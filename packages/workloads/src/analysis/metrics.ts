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

export interface SustainableCriteria {
  /** completed (successful + rejected) / offered must be at least this */
  minCompletedShare: number;
  /** errors / requests must be below this */
  maxErrorRate: number;
  /** p99 must be below this */
  maxP99Ms: number;
}

export const SUSTAINABLE: SustainableCriteria = { minCompletedShare: 0.95, maxErrorRate: 0.01, maxP99Ms: 1000 };

export interface StepLike {
  scenario: string;
  offeredRate: number | null;
  completedShare: number | null;
  /** the share completed inside the step's measured window (aggregate.ts); when present it is what is judged */
  window?: { completedShare: number | null };
  errorRate: number;
  latency: { count: number; p99: number };
}

export interface StepVerdict {
  scenario: string;
  offeredRate: number | null;
  sustainable: boolean;
  /** why not; empty when sustainable */
  reasons: string[];
}

export interface Sustainable {
  /** offered rate of the highest sustainable step, or null */
  rate: number | null;
  scenario: string | null;
  verdicts: StepVerdict[];
}

const pct = (x: number) => `${(x * 100).toFixed(2).replace(/\.?0+$/, "")}%`;

/** Judges one step against the criteria. */
export function judgeStep(step: StepLike, criteria: SustainableCriteria = SUSTAINABLE): StepVerdict {
  const reasons: string[] = [];
  const completed = step.window ? step.window.completedShare : step.completedShare;
  const within = step.window ? " within the step" : "";
  if (step.offeredRate === null || completed === null) reasons.push("offered rate unknown");
  else if (completed < criteria.minCompletedShare)
    reasons.push(`completed ${pct(completed)} of the offered rate${within} (needs >= ${pct(criteria.minCompletedShare)})`);
  if (!(step.errorRate < criteria.maxErrorRate)) reasons.push(`error rate ${pct(step.errorRate)} (needs < ${pct(criteria.maxErrorRate)})`);
  if (step.latency.count === 0) reasons.push("no answered requests, so no p99");
  else if (!(step.latency.p99 < criteria.maxP99Ms)) reasons.push(`p99 ${step.latency.p99} ms (needs < ${criteria.maxP99Ms} ms)`);
  return { scenario: step.scenario, offeredRate: step.offeredRate, sustainable: reasons.length === 0, reasons };
}

/**
 * The highest offered rate among the steps that meet all criteria (a step
 * passes on its own: a failing lower step does not disqualify a higher one),
 * and the verdict on every step.
 */
export function sustainableRate(steps: readonly StepLike[], criteria: Partial<SustainableCriteria> = {}): Sustainable {
  const c = { ...SUSTAINABLE, ...criteria };
  const verdicts = steps.map((s) => judgeStep(s, c));
  let best: StepVerdict | null = null;
  for (const v of verdicts) if (v.sustainable && (best === null || v.offeredRate! > best.offeredRate!)) best = v;
  return { rate: best?.offeredRate ?? null, scenario: best?.scenario ?? null, verdicts };
}

export interface GeneratorLoad {
  droppedIterations: number;
  /** completed iterations */
  iterations: number;
  /** share (0..1) of the generator's cores it kept busy, when measured */
  generatorCpuShare?: number;
}

export interface GeneratorLimits {
  maxDroppedShare: number;
  maxCpuShare: number;
}

export const GENERATOR_LIMITS: GeneratorLimits = { maxDroppedShare: 0.01, maxCpuShare: 0.9 };

/** The generator is saturated when more than 1% of iterations were dropped or its CPU was above 90%. */
export function generatorSaturated(load: GeneratorLoad, limits: Partial<GeneratorLimits> = {}): { saturated: boolean; droppedShare: number; reasons: string[] } {
  const l = { ...GENERATOR_LIMITS, ...limits };
  const total = load.iterations + load.droppedIterations;
  const droppedShare = total === 0 ? 0 : load.droppedIterations / total;
  const reasons: string[] = [];
  if (droppedShare > l.maxDroppedShare)
    reasons.push(`${pct(droppedShare)} of iterations were dropped (limit ${pct(l.maxDroppedShare)}): k6 ran out of VUs`);
  if (load.generatorCpuShare !== undefined && load.generatorCpuShare > l.maxCpuShare)
    reasons.push(`load generator CPU at ${pct(load.generatorCpuShare)} (limit ${pct(l.maxCpuShare)})`);
  return { saturated: reasons.length > 0, droppedShare, reasons };
}
